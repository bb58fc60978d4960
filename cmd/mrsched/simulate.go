package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "scenario YAML (required; see examples/)")
	out := fs.String("out", "", "output directory (required): scenario.yaml, summary.json, jobs.csv, timeseries.csv, uplinks.csv, pools.csv, perf.json")
	ov := addOverrideFlags(fs)
	quiet := fs.Bool("q", false, "no progress line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end of the run")
	outs := addReportFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mrsched simulate -config FILE -out DIR [-policy NAME] [-seed N] [-set path=value]... [-report FILE] [-q]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cfgPath == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	flagSets, described, err := ov.settings(fs)
	if err != nil {
		return err
	}
	if err := writableDir(*out); err != nil {
		return fmt.Errorf("-out %s: %w", *out, err)
	}
	for _, f := range []struct{ flag, path string }{{"-cpuprofile", *cpuProfile}, {"-memprofile", *memProfile}} {
		if f.path != "" {
			if err := writableFile(f.path); err != nil {
				return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
			}
		}
	}
	if err := outs.check(); err != nil {
		return err
	}
	c, record, err := loadSimulated(*cfgPath, *out, flagSets, described)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var wl jobSpan
	if !*quiet {
		wl = workloadOf(c)
	}
	prog := newProgress(stderr, c.Policy.Name, 1, wl, *quiet)
	start := time.Now()
	res, err := c.Run(func(now float64, done, total int) { prog.sim(0, now, done, total) })
	wall := time.Since(start)
	prog.finish()
	printInputWarnings(c, stderr)
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	perf := perfReport(res.Summary.Policy, res.Cost, res.Engine, wall)
	if err := report.WriteRunDir(*out, report.Output{Scenario: record, Summary: res.Summary, Collector: res.Collector, Perf: perf}); err != nil {
		return err
	}
	if err := outs.writeRuns([]*report.Run{report.FromCollector(record, res.Summary, res.Collector)}, "simulate "+*cfgPath, stderr, *quiet); err != nil {
		return err
	}
	fmt.Fprintln(stderr, perf.Line())
	s := res.Summary
	fmt.Fprintf(stdout, "%s: %d/%d jobs, makespan %.0f s, throughput %.1f jobs/h, mean turnaround %.1f s, node-local maps %.1f%%, cross-rack %.2f GB\nwrote %s\n",
		s.Policy, s.JobsCompleted, s.JobsSubmitted, s.MakespanS, s.ThroughputJobsPerHour, s.Turnaround.Mean,
		100*s.Locality.Node, s.Bytes.CrossRackTotal/1e9, *out)
	return nil
}

// loadSimulated reads the scenario at path with the flags' settings
// applied (described as the command line gave them), and returns it with the record of it a run directory keeps:
// the scenario as it runs, after a comment saying where it came from.
// With settings, the record is written to DIR/scenario.yaml before it is
// parsed, so that an error's line is a line of a file the user can open.
func loadSimulated(path, out string, sets []scenario.Setting, described []string) (*scenario.Config, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(sets) == 0 {
		c, err := scenario.Load(path)
		if err != nil {
			return nil, nil, err
		}
		// The run's own record of what it ran: results alone do not say
		// which network mode, seed or trace made them.
		head := fmt.Sprintf("# The scenario of this run, as read from %s (paths in it are relative to that file's directory).\n", path)
		return c, append([]byte(head), c.Source()...), nil
	}
	edited, err := scenario.Override(src, sets...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	head := fmt.Sprintf("# The scenario of this run: %s with %s (paths in it are relative to that file's directory).\n", path, strings.Join(described, " "))
	record := append([]byte(head), edited...)
	name := filepath.Join(out, "scenario.yaml")
	if err := os.WriteFile(name, record, 0o644); err != nil {
		return nil, nil, err
	}
	c, err := scenario.LoadBytes(record, name, filepath.Dir(path))
	if err != nil {
		return nil, nil, err
	}
	return c, record, nil
}
