package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "scenario YAML (required; see examples/)")
	out := fs.String("out", "", "output directory (required): scenario.yaml, summary.json, jobs.csv, timeseries.csv, uplinks.csv, pools.csv, perf.json")
	quiet := fs.Bool("q", false, "no progress line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end of the run")
	outs := addReportFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *cfgPath == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: mrsched simulate -config FILE -out DIR")
		fs.PrintDefaults()
		return errUsage
	}
	c, err := scenario.Load(*cfgPath)
	if err != nil {
		return err
	}
	if err := outs.check(); err != nil {
		return err
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
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	// The run's own record of what it ran: results alone do not say which
	// network mode, seed or trace made them.
	scen := fmt.Appendf(nil, "# The scenario of this run, as read from %s (paths in it are relative to that file's directory).\n", *cfgPath)
	scen = append(scen, c.Source()...)
	perf := perfReport(res.Summary.Policy, res.Cost, res.Engine, wall)
	if err := report.WriteRunDir(*out, report.Output{Scenario: scen, Summary: res.Summary, Collector: res.Collector, Perf: perf}); err != nil {
		return err
	}
	if err := outs.writeRuns([]*report.Run{report.FromCollector(scen, res.Summary, res.Collector)}, "simulate "+*cfgPath, stderr, *quiet); err != nil {
		return err
	}
	fmt.Fprintln(stderr, perf.line())
	s := res.Summary
	fmt.Fprintf(stdout, "%s: %d/%d jobs, makespan %.0f s, throughput %.1f jobs/h, mean turnaround %.1f s, node-local maps %.1f%%, cross-rack %.2f GB\nwrote %s\n",
		s.Policy, s.JobsCompleted, s.JobsSubmitted, s.MakespanS, s.ThroughputJobsPerHour, s.Turnaround.Mean,
		100*s.Locality.Node, s.Bytes.CrossRackTotal/1e9, *out)
	return nil
}
