package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/mrsched/mrsched/experiment"
	"github.com/mrsched/mrsched/report"
)

//go:generate go run . experiment -q -write-docs -fast

// cmdExperiment runs the papers' experiments by name:
//
//	mrsched experiment -list
//	mrsched experiment -write-docs [-fast] [-keep DIR] [NAME...]
//	mrsched experiment -check [-fast] [-keep DIR] [NAME...]
//	mrsched experiment [-seeds N] [-seed S] [-out DIR] [-report FILE] [-figures DIR] [-keep DIR] [-parallel P] [-q] NAME...
//
// NAME is a full name (fair-delay/zipf), a short one (zipf) or a paper
// (fair-delay: all of its experiments). Each experiment prints a table of
// our numbers beside the paper's on stdout. With -out, each also writes its
// rows as CSV to DIR/<name>.csv (DIR/fair-delay/zipf.csv); without it
// nothing is written. Progress and wall time go to stderr unless -q.
//
// -write-docs runs the commands of the write-ups' generated blocks and
// rewrites the blocks with what they print; -check runs them and fails on
// any block that differs or claim that no longer holds (package writeup,
// writeups.go). -fast keeps to the fast experiments' blocks, NAMEs to
// those experiments'; -keep DIR keeps their nas simulations as a run of
// the experiments does, so a pass stopped half way resumes. go generate
// ./cmd/mrsched rewrites the fast blocks.
func cmdExperiment(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("experiment", stderr, "usage: mrsched experiment [-seeds N] [-seed S] [-out DIR] [-report FILE] [-figures DIR] [-keep DIR] [-parallel P] [-q] NAME...\n       mrsched experiment -list\n       mrsched experiment -write-docs|-check [-fast] [-keep DIR] [-q] [NAME...]")
	seeds := fs.Int("seeds", 0, "schedules (seeds) to average over; 0 = the experiment's default (see -list)")
	seed := fs.Uint64("seed", 1, "first seed; schedules use seed, seed+1, ...")
	out := fs.String("out", "", "also write each experiment's rows as CSV to DIR/<name>.csv")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "simulations run at once (results do not depend on it)")
	quiet := fs.Bool("q", false, "no progress or timing on stderr")
	list := fs.Bool("list", false, "list the experiments and exit")
	keep := fs.String("keep", "", "keep each finished simulation of the nas experiments in DIR (created if missing) and reuse those a build of the same source kept there (docs/cli.md): a stopped experiment resumes")
	outs := addReportFlag(fs)
	writeDocs := fs.Bool("write-docs", false, "rewrite the generated blocks of README.md, docs/*.md and experiment/README-*.md with what their commands print (run inside the source tree); with NAMEs only those experiments' blocks")
	check := fs.Bool("check", false, "run the write-ups' generated blocks' commands and fail on any block that differs or claim that no longer holds; with NAMEs only those experiments'")
	fast := fs.Bool("fast", false, "with -write-docs or -check: only the blocks and claims of fast experiments (and of mrsched compare)")
	figures := fs.String("figures", "", "also write each experiment's figure (those that have one) to DIR/<paper>-<name>.svg; with no NAME, run every experiment that has a figure")
	// Flags may come before or after the names.
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *list {
		for _, e := range experiment.All() {
			fmt.Fprintf(stdout, "%-28s %s (%s; default seeds %d)\n", e.Name, e.Summary, e.Source, e.DefaultSeeds)
		}
		return nil
	}
	if *writeDocs && *check {
		return fmt.Errorf("-write-docs and -check: give one (-check after -write-docs finds nothing to report)")
	}
	if *keep != "" {
		if err := writableDir(*keep); err != nil {
			return fmt.Errorf("-keep %s: %w", *keep, err)
		}
	}
	if *writeDocs || *check {
		return cmdWriteups(*writeDocs, *fast, *keep, names, *quiet, stdout, stderr)
	}
	if *fast {
		return fmt.Errorf("-fast applies only with -write-docs or -check")
	}
	if len(names) == 0 && *figures != "" {
		names = experiment.WithFigures()
	}
	if len(names) == 0 {
		fs.Usage()
		return errUsage
	}
	if *seeds < 0 {
		return fmt.Errorf("-seeds: must not be negative, got %d", *seeds)
	}
	if *seed == 0 {
		return fmt.Errorf("-seed: must be positive")
	}
	if *parallel < 1 {
		return fmt.Errorf("-parallel: must be at least 1, got %d", *parallel)
	}
	exps, err := experiment.Select(names)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writableDir(*out); err != nil {
			return fmt.Errorf("-out %s: %w", *out, err)
		}
	}
	if err := outs.check(); err != nil {
		return err
	}
	if *figures != "" {
		if err := writableDir(*figures); err != nil {
			return fmt.Errorf("-figures %s: %w", *figures, err)
		}
	}
	page := &report.Page{Title: "mrsched experiment " + strings.Join(names, " "),
		Note: "Written by mrsched experiment: our numbers beside the paper's, and our figure beside a description of the paper's."}
	for i, e := range exps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		prog := newCounter(stderr, e.Name, *quiet)
		var done, total atomic.Int64
		count := func(d, t int) {
			done.Store(int64(d))
			total.Store(int64(t))
			prog.count(d, t)
		}
		opts := experiment.Options{Seeds: *seeds, Seed: *seed, Parallel: *parallel, Progress: count, KeepDir: *keep}
		res, err := runInterruptible(func() (*experiment.Result, error) { return e.Run(opts) })
		if errors.Is(err, errInterrupted) {
			prog.abandon()
			kept := "none kept (-keep DIR keeps the nas experiments' simulations, and the same command resumes from them)"
			if *keep != "" {
				kept = "those of the nas experiments are kept in " + *keep + ", and the same command resumes from them"
			}
			if *out != "" && i > 0 {
				kept += fmt.Sprintf("; the %d experiments before it are in %s", i, *out)
			}
			fmt.Fprintf(stderr, "interrupted: %d of %d runs of %s finished; %s\n", done.Load(), total.Load(), e.Name, kept)
			return err
		}
		prog.finish()
		if err != nil {
			return err
		}
		page.Experiments = append(page.Experiments, report.Experiment{Name: e.Name, Table: res.Table, CSV: res.CSV, Figure: e.Figure()})
		if e.Figure() == nil && *figures != "" && !*quiet {
			fmt.Fprintf(stderr, "%s has no figure (those that do: %s)\n", e.Name, strings.Join(experiment.WithFigures(), ", "))
		}
		if f := e.Figure(); f != nil && *figures != "" {
			fig, err := f.Figure(report.FigureName(e.Name), res.CSV)
			if err != nil {
				return err
			}
			written, err := report.WriteFigures(*figures, []*report.Figure{fig}, false)
			if err != nil {
				return err
			}
			if !*quiet {
				fmt.Fprintf(stderr, "wrote %s\n", strings.Join(written, ", "))
			}
		}
		if err := res.Table.WriteText(stdout); err != nil {
			return err
		}
		if res.Wall != "" && !*quiet {
			fmt.Fprintf(stderr, "%s: %s\n", e.Name, res.Wall)
		}
		if *out != "" {
			path := filepath.Join(*out, filepath.FromSlash(e.Name)+".csv")
			if err := writeCSV(path, res); err != nil {
				return err
			}
			if !*quiet {
				fmt.Fprintf(stderr, "wrote %s\n", path)
			}
		}
	}
	if *outs.report != "" {
		if err := page.WriteFile(*outs.report); err != nil {
			return err
		}
		if !*quiet {
			fmt.Fprintf(stderr, "wrote %s\n", *outs.report)
		}
	}
	return nil
}

func writeCSV(path string, res *experiment.Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := res.CSV.WriteCSV(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// runInterruptible runs f until it returns or SIGINT or SIGTERM arrives,
// when it returns errInterrupted at once: f's own work is abandoned with
// the process.
func runInterruptible[T any](f func() (T, error)) (T, error) {
	ctx, stop := interruptContext()
	defer stop()
	type result struct {
		v   T
		err error
	}
	ended := make(chan result, 1)
	go func() {
		v, err := f()
		ended <- result{v, err}
	}()
	select {
	case r := <-ended:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, errInterrupted
	}
}
