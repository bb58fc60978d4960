package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
)

// cmdDiff compares runs written by `mrsched simulate` with a base run, as
// docs/performance.md's tables of the network modes' error do: one row a run, and
// for several runs their mean and its standard error, since one run of a
// busy cluster moves by percents with the timing of a few jobs. With
// -bases it compares the runs' mean with the mean of a set of base runs
// instead, which is how a model is judged against another whose own runs
// differ among themselves.
func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("diff", stderr, "usage: mrsched diff [-csv] [-by-size] [-force] BASE_DIR RUN_DIR...",
		"       mrsched diff [-csv] [-force] -bases DIR,PATTERN,... RUN_DIR...",
		"  each RUN_DIR's change from BASE_DIR, in percent (output directories of 'mrsched simulate');",
		"  with -bases, the change of the runs' mean from the base runs' mean")
	csvOut := fs.Bool("csv", false, "write CSV instead of a text table")
	bases := fs.String("bases", "", "compare the runs' mean with the mean of these base runs: directories or quoted glob patterns, comma-separated; every argument is then a run")
	force := fs.Bool("force", false, "compare runs of different workloads (different jobs or clusters) anyway; jobs are paired by id")
	bySize := fs.Bool("by-size", false, "also, for the jobs in each decade of the base run's turnaround (<1 s, 1-10 s, ...), the change in their mean turnaround, the median job's change, the share held up over 10 s and the rest's mean change")
	if err := fs.Parse(args); err != nil {
		return flagErr(err)
	}
	if *bases != "" {
		if *bySize {
			return fmt.Errorf("diff: -by-size bands jobs by one base run's turnaround; it cannot be used with -bases")
		}
		if fs.NArg() < 1 {
			fs.Usage()
			return errUsage
		}
		return diffMeans(*bases, fs.Args(), *csvOut, *force, stdout, stderr)
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return errUsage
	}
	base, err := metrics.ReadRun(fs.Arg(0))
	if err != nil {
		return err
	}
	t := &report.Table{
		Title: fmt.Sprintf("change from %s (%%)", fs.Arg(0)),
		Headers: []string{"run", "mean turnaround", "median job", "throughput over the run",
			"steady-state throughput", "cross-rack bytes", "jobs in the median"},
		Notes: []string{
			"median job: the median over jobs of each job's change in turnaround, over the jobs that took more than 1 s in both runs",
			"throughput over the run: completed jobs / (last finish - first submit); steady-state: jobs finished per hour between the first and the last submission",
		},
	}
	var cols [5][]float64
	var bands [][]metrics.BandChange
	var went []string             // where each run's change went, when both runs recorded it
	policies := map[string]bool{} // the runs' policies, with their parameters
	undefined := false
	for _, dir := range fs.Args()[1:] {
		r, err := metrics.ReadRun(dir)
		if err != nil {
			return err
		}
		if err := sameWorkload(base, r, *force, stderr); err != nil {
			return err
		}
		if err := sameSeed(base, r, *force, stderr); err != nil {
			return err
		}
		policies[runPolicy(r)] = true
		c, err := metrics.Compare(base, r)
		if err != nil {
			return err
		}
		if *bySize {
			b, err := metrics.CompareBySize(base, r, metrics.SizeBands)
			if err != nil {
				return err
			}
			bands = append(bands, b)
		}
		v := [5]float64{c.MeanTurnaround, c.MedianJob, c.Throughput, c.SteadyThroughput, c.CrossRackBytes}
		row := []string{filepath.Clean(dir)}
		for i, x := range v {
			cols[i] = append(cols[i], x)
			row = append(row, pctCell(x, "%+.2f"))
			undefined = undefined || math.IsNaN(x)
		}
		t.AddRow(append(row, fmt.Sprint(c.Jobs))...)
		if s, ok := report.TimeChange(&base.Summary, &r.Summary); ok {
			went = append(went, fmt.Sprintf("  %s: %s", filepath.Clean(dir), s))
		}
	}
	if n := len(cols[0]); n > 1 && len(policies) > 1 {
		t.Notes = append(t.Notes, "no mean over the runs: they ran different policies, and a mean over policies means nothing")
	} else if n > 1 {
		mean, se := []string{fmt.Sprintf("mean of %d", n)}, []string{"standard error"}
		for _, c := range cols {
			m, s := metrics.MeanSE(c)
			mean = append(mean, pctCell(m, "%+.2f"))
			se = append(se, pctCell(s, "%.2f"))
		}
		t.AddRow(append(mean, "")...)
		t.AddRow(append(se, "")...)
	}
	if undefined {
		t.Notes = append(t.Notes, "n/a: the base run's figure is 0 and the run's is not, so no relative change exists")
	}
	if len(went) > 0 && !*csvOut {
		t.Notes = append(t.Notes, fmt.Sprintf("where the change in mean turnaround went, by part of the jobs' critical path (mean seconds a job; docs/time.md):\n%s", strings.Join(went, "\n")))
	}
	tables := []*report.Table{t}
	if *bySize {
		tables = append(tables, sizeTable(fs.Arg(0), bands))
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		write := t.WriteText
		if *csvOut {
			write = t.WriteCSV
		}
		if err := write(stdout); err != nil {
			return err
		}
	}
	return nil
}

// sizeTable shows how the jobs of each band of the base run's turnaround
// moved: the change in the band's mean turnaround in seconds, which is how
// a timing model's error shows (a delay per job), and in percent, each the
// mean over the runs with its standard error when there are several; then
// the median job's change and the share of jobs held up (metrics.HeldUpS),
// which tell the typical job's delay from the few long waits that carry a
// band's mean.
func sizeTable(base string, runs [][]metrics.BandChange) *report.Table {
	n := len(runs)
	held := fmt.Sprintf("held up > %g s (%%)", metrics.HeldUpS)
	t := &report.Table{
		Title:   fmt.Sprintf("change in mean turnaround by the job's turnaround in %s", base),
		Headers: []string{"turnaround in the base run", "jobs", "base mean (s)", "change (s)", "change (%)"},
		Notes: []string{
			"jobs are banded by their turnaround in the base run, which favours that run: compare with a control run of the base's own model, not with 0",
			fmt.Sprintf("median change: the median over the band's jobs of each one's change; held up: jobs that took over %g s longer than in the base run; the rest: the mean change of the others", metrics.HeldUpS),
		},
	}
	if n > 1 {
		t.Title += fmt.Sprintf(", mean of %d runs", n)
		t.Headers = append(t.Headers, "SE (s)", "SE (%)")
	}
	t.Headers = append(t.Headers, "median change (s)", held, "the rest's change (s)")
	for i := range runs[0] {
		b := runs[0][i] // the band as the run that matched most of its jobs saw it
		for _, r := range runs[1:] {
			if r[i].Jobs > b.Jobs {
				b = r[i]
			}
		}
		band := fmt.Sprintf("%g-%g s", b.Lo, b.Hi)
		if math.IsInf(b.Hi, 1) {
			band = fmt.Sprintf(">= %g s", b.Lo)
		}
		var ds, ps, meds, helds, rests []float64
		for _, r := range runs {
			if r[i].Jobs > 0 { // a run that finished none of the band's jobs says nothing of it
				ds = append(ds, r[i].Delta())
				ps = append(ps, r[i].Pct())
				meds = append(meds, r[i].MedianDelta)
				helds = append(helds, 100*r[i].HeldUp)
				if r[i].HeldUp < 1 {
					rests = append(rests, r[i].RestDelta)
				}
			}
		}
		rest := "-" // every job held up
		if len(rests) > 0 {
			rest = fmt.Sprintf("%+.3g", mean(rests))
		}
		tail := []string{fmt.Sprintf("%+.3g", mean(meds)), fmt.Sprintf("%.1f", mean(helds)), rest}
		row := []string{band, fmt.Sprint(b.Jobs), fmt.Sprintf("%.3g", b.BaseMean)}
		if len(ds) == 0 {
			for len(row) < len(t.Headers) {
				row = append(row, "-")
			}
			t.AddRow(row...)
			continue
		}
		if n == 1 {
			t.AddRow(append(append(row, fmt.Sprintf("%+.3g", ds[0]), pctCell(ps[0], "%+.1f")), tail...)...)
			continue
		}
		if len(ds) == 1 {
			t.AddRow(append(append(row, fmt.Sprintf("%+.3g", ds[0]), pctCell(ps[0], "%+.1f"), "-", "-"), tail...)...)
			continue
		}
		dm, dse := metrics.MeanSE(ds)
		pm, pse := metrics.MeanSE(ps)
		t.AddRow(append(append(row, fmt.Sprintf("%+.3g", dm), pctCell(pm, "%+.1f"), fmt.Sprintf("%.2g", dse), pctCell(pse, "%.1f")), tail...)...)
	}
	return t
}

// pctCell formats a change, or n/a where none is defined (NaN: a zero
// base; a mean over such changes is NaN too).
func pctCell(x float64, format string) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf(format, x)
}

// mean returns the mean of v (at least one value).
func mean(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	return m / float64(len(v))
}

// sameWorkload refuses to compare runs of different workloads (their
// jobs would be paired by id) unless force, when it warns; it warns too
// when a run does not record its workload.
func sameWorkload(base, r *metrics.Run, force bool, stderr io.Writer) error {
	known, err := metrics.SameWorkload(base, r)
	switch {
	case !known:
		fmt.Fprintf(stderr, "mrsched diff: warning: %s or %s does not record its workload's fingerprint (written by an older mrsched); cannot tell whether they ran the same jobs\n", base.Dir, r.Dir)
	case err != nil && force:
		fmt.Fprintf(stderr, "mrsched diff: warning: %v; compared anyway (-force), pairing jobs by id\n", err)
	case err != nil:
		return fmt.Errorf("%w; jobs are paired by id, so the comparison would pair unrelated jobs (-force compares anyway)", err)
	}
	return nil
}

// diffMeans compares the mean of runs with the mean of the base runs that
// list names (see cmdDiff's -bases).
func diffMeans(list string, runDirs []string, csvOut, force bool, stdout, stderr io.Writer) error {
	baseDirs, err := expandRunDirs(list)
	if err != nil {
		return err
	}
	read := func(dirs []string) ([]*metrics.Run, error) {
		var out []*metrics.Run
		for _, d := range dirs {
			r, err := metrics.ReadRun(d)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	bs, err := read(baseDirs)
	if err != nil {
		return err
	}
	rs, err := read(runDirs)
	if err != nil {
		return err
	}
	for _, r := range append(bs[1:], rs...) {
		if err := sameWorkload(bs[0], r, force, stderr); err != nil {
			return err
		}
	}
	c, err := metrics.CompareMeans(bs, rs)
	if err != nil {
		return err
	}
	t := &report.Table{
		Title:   fmt.Sprintf("mean of %d runs against the mean of %d base runs", c.Runs, c.Bases),
		Headers: []string{"figure", "base runs' mean", "runs' mean", "change (%)", "SE (%)"},
		Notes: []string{
			"SE: the change's standard error from both sets' spread, sqrt(var(runs)/runs + var(bases)/bases) / the bases' mean; n/a with a single run on either side",
			"median job's change: the median over jobs of each job's change in turnaround (jobs over 1 s in both runs), averaged over every pair of a base run and a run",
		},
	}
	for _, d := range c.Figures {
		t.AddRow(d.Name, fmt.Sprintf("%.6g", d.BaseMean), fmt.Sprintf("%.6g", d.RunMean), pctCell(d.Pct, "%+.2f"), pctCell(d.SE, "%.2f"))
	}
	t.AddRow("median job's change (%)", "", "", pctCell(c.MedianJob, "%+.2f"), "")
	if csvOut {
		return t.WriteCSV(stdout)
	}
	return t.WriteText(stdout)
}

// expandRunDirs splits a comma-separated list of directories and glob
// patterns into directories, each pattern's matches in lexical order. A
// pattern's matches that are not directories (a run's log beside it, say)
// are passed over; a pattern that matches no directory is an error, so a
// mistyped pattern is not read as an empty set.
func expandRunDirs(list string) ([]string, error) {
	var dirs []string
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("diff -bases %q: an empty entry; want directories or patterns separated by commas", list)
		}
		if !strings.ContainsAny(item, "*?[") {
			dirs = append(dirs, item)
			continue
		}
		matches, err := filepath.Glob(item)
		if err != nil {
			return nil, fmt.Errorf("diff -bases: pattern %q: %w", item, err)
		}
		n := len(dirs)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				dirs = append(dirs, m)
			}
		}
		if len(dirs) == n {
			return nil, fmt.Errorf("diff -bases: pattern %q matches no directory", item)
		}
	}
	return dirs, nil
}

// runPolicy names a run's policy with its parameters, as its summary
// records them.
func runPolicy(r *metrics.Run) string {
	if cfg, ok := report.ConfigMap(r.Summary.Config); ok {
		return report.PolicyKey(cfg)
	}
	return r.Summary.Policy
}

// sameSeed refuses to pair a run with a base of another seed: a change
// between two draws is not the change a setting made.
func sameSeed(base, r *metrics.Run, force bool, stderr io.Writer) error {
	bs, ok1 := runSeed(base)
	rs, ok2 := runSeed(r)
	if !ok1 || !ok2 || bs == rs {
		return nil
	}
	msg := fmt.Sprintf("%s ran seed %d and %s seed %d", base.Dir, bs, r.Dir, rs)
	if force {
		fmt.Fprintf(stderr, "mrsched diff: warning: %s; compared anyway (-force)\n", msg)
		return nil
	}
	return fmt.Errorf("%s: the change would be a change between two draws, not the change the runs' settings made (-force compares anyway; -bases compares sets of seeds)", msg)
}

func runSeed(r *metrics.Run) (uint64, bool) {
	cfg, ok := report.ConfigMap(r.Summary.Config)
	if !ok {
		return 0, false
	}
	s, ok := cfg["seed"].(float64)
	return uint64(s), ok
}
