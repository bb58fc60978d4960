package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/testbed"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/worker"
)

func cmdTestbed(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "clean":
			return cmdTestbedClean(args[1:], stdout, stderr)
		case "netsim":
			return cmdTestbedNetsim(args[1:], stdout, stderr)
		case "microbench":
			return cmdTestbedMicrobench(args[1:], stdout, stderr)
		case "worker":
			// A worker, started by a run inside its node's namespace: it
			// speaks the control protocol on its standard input and output.
			return worker.Run(context.Background(), os.Stdin, os.Stdout)
		}
	}
	fs := commandFlags("testbed", stderr, `usage: mrsched testbed -config FILE [-trace, -topology, -allocations, -site as compare] -out DIR
                    [-force] [-policy NAME] [-seed N] [-set path=value]...
                                                run a scenario on an emulated cluster (needs root)
       mrsched testbed clean                    remove what a killed run left behind
       mrsched testbed netsim FILE.json         a netsim file's flows as real TCP transfers, beside the model's`)
	sf := addScenarioFlags(fs, "scenario YAML with an optional testbed: section (required; see examples/testbed/)")
	cfgPath := sf.config
	out := fs.String("out", "", "output directory (required): the files simulate writes, plus testbed.json")
	ov := addOverrideFlags(fs)
	quiet := fs.Bool("q", false, "no progress line")
	force := fs.Bool("force", false, "replace what -out holds (another run, or other files)")
	if err := parseCommand(fs, args, cfgPath, out); err != nil {
		return err
	}
	sets, described, err := ov.settings(fs)
	if err != nil {
		return err
	}
	if err := fabric.CheckPrivileges(); err != nil {
		return err // before anything is changed, the output directory included
	}
	owned := sf.owned(fs)
	unlined := unlinedErrors(sf, owned, sets)
	c, record, err := simulated(sf, owned, sets, described)
	if err != nil {
		return unlined(err)
	}
	if err := c.CheckPolicy(); err != nil {
		return unlined(err) // before the output directory is touched
	}
	// A run that fails keeps what it says of itself (testbed.json, the
	// workers' logs) in the directory: only another run's is refused.
	if _, err := openOutDir("-out", *out, *force, nil); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// SIGUSR1 dumps every process's goroutines into the output directory
	// and the run goes on (docs/testbed.md, When a run fails).
	dumps := make(chan os.Signal, 1)
	signal.Notify(dumps, worker.DumpSignal)
	defer signal.Stop(dumps)
	dump := make(chan struct{}, 1)
	go func() {
		for range dumps {
			select {
			case dump <- struct{}{}:
			default:
			}
		}
	}()
	for _, n := range c.NotApplied() {
		fmt.Fprintf(stderr, "warning: %s\n", n)
	}
	prog := newProgress(stderr, c.Policy.Name+" on the testbed", 1, workloadOf(c), *quiet)
	start := time.Now()
	res, err := testbed.Run(ctx, c, testbed.Options{
		Progress: func(now float64, done, total int) { prog.sim(0, now, done, total) },
		Log:      stderr, LogDir: *out, Dump: dump,
	})
	prog.finish()
	printInputWarnings(c, stderr)
	if err != nil && (res == nil || res.Report.Error != "") {
		err = unlined(err)
	}
	var teardown error
	if err != nil && res != nil && res.Report.Error == "" {
		// The run completed and only its teardown failed: write what it
		// measured, and exit non-zero all the same.
		teardown, err = err, nil
	}
	if err != nil {
		// What happened, and the jobs finished so far; a run that failed
		// before its jobs began has only its error to say.
		rep := testbed.Report{Error: err.Error()}
		if res != nil {
			rep = res.Report
			rep.Error = err.Error() // as printed: a line of an edited scenario left out
		}
		if werr := writeJSONFile(filepath.Join(*out, "testbed.json"), rep); werr != nil {
			return errors.Join(err, werr)
		}
		return fmt.Errorf("%w\n(what happened is in %s; the workers' logs in %s)", err,
			filepath.Join(*out, "testbed.json"), filepath.Join(*out, "workers"))
	}
	s := res.Collector.Summarize(c.Policy.Name)
	if err := c.Describe(&s); err != nil {
		return err
	}
	if err := report.WriteRunDir(*out, report.Output{Scenario: record, Summary: s, Collector: res.Collector,
		Perf: perf{Policy: s.Policy, WallS: time.Since(start).Seconds(), AssignCalls: res.Cost.Count(),
			DecisionMeanUS: float64(res.Cost.Mean()) / 1e3, DecisionP99US: float64(res.Cost.Quantile(0.99)) / 1e3}}); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(*out, "testbed.json"), res.Report); err != nil {
		return err
	}
	r := res.Report
	fmt.Fprintf(stdout, "%s on the testbed: %d/%d jobs, makespan %.0f s, mean turnaround %.1f s, node-local maps %.1f%%, cross-rack %.3f GB; wall %.0f s; cores %.0f%% busy with un-niced work (p95 %.0f%%)\nwrote %s\n",
		s.Policy, s.JobsCompleted, s.JobsSubmitted, s.MakespanS, s.Turnaround.Mean, 100*s.Locality.Node,
		s.Bytes.CrossRackTotal/1e9, r.WallS, 100*mean(r.Host.UnniceMean), 100*r.Host.UnniceP95, *out)
	if sh := r.Host.NicedShare(); sh > testbed.NicedWarnShare {
		fmt.Fprintf(stderr, "warning: niced work took %.0f%% of the host's CPU during the run; it slows the shaped links all the same (docs/testbed.md, The host): take ground truth on a quiet host\n", 100*sh)
	}
	if !r.ChecksumsOK {
		var bad []string
		for _, j := range r.Jobs {
			if j.Status == "completed" && !j.OK {
				bad = append(bad, j.Name)
			}
		}
		return errors.Join(teardown, fmt.Errorf("%d jobs wrote output other than their plans predict: %s (see %s)", len(bad), strings.Join(bad, ", "), filepath.Join(*out, "testbed.json")))
	}
	if teardown != nil {
		return fmt.Errorf("the run completed, but left something behind (see testbed.json's teardown; mrsched testbed clean removes what it can): %w", teardown)
	}
	return nil
}

func cmdTestbedClean(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("testbed clean", stderr, "usage: mrsched testbed clean [-work-dir DIR]",
		"  remove the namespaces, processes and work directories that killed testbed runs left, and nothing else (needs root)")
	workDir := fs.String("work-dir", "", "also look for leftover run directories here (a scenario's testbed.work_dir); the system's temporary directory is always searched")
	if err := fs.Parse(args); err != nil {
		return flagErr(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: mrsched testbed clean [-work-dir DIR]")
		return errUsage
	}
	if err := fabric.CheckPrivileges(); err != nil {
		return err
	}
	removed, err := fabric.Clean(context.Background())
	for _, r := range removed {
		fmt.Fprintln(stdout, "removed", r)
	}
	dirs, derr := testbed.CleanWorkDirs("")
	if *workDir != "" {
		more, err := testbed.CleanWorkDirs(*workDir)
		dirs, derr = append(dirs, more...), errors.Join(derr, err)
	}
	for _, d := range dirs {
		fmt.Fprintln(stdout, "removed", d)
	}
	if len(removed) == 0 && len(dirs) == 0 && err == nil && derr == nil {
		fmt.Fprintln(stdout, "nothing to clean")
	}
	return errors.Join(err, derr)
}

// writeJSONFile writes v to path as indented JSON.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
