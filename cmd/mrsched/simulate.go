package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "scenario YAML (required; see examples/)")
	out := fs.String("out", "", "output directory (required): scenario.yaml, summary.json, jobs.csv, timeseries.csv, perf.json")
	quiet := fs.Bool("q", false, "no progress line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end of the run")
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
	prog := newProgress(stderr, []string{c.Policy.Name}, *quiet)
	start := time.Now()
	res, err := c.Run(func(now float64, done, total int) { prog.update(0, done, total) })
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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(io.Writer) error) error {
		path := filepath.Join(*out, name)
		fh, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return fh.Close()
	}
	if err := write("scenario.yaml", func(w io.Writer) error {
		// The run's own record of what it ran: results alone do not say
		// which network mode, seed or trace made them.
		if _, err := fmt.Fprintf(w, "# The scenario of this run, as read from %s (paths in it are relative to that file's directory).\n", *cfgPath); err != nil {
			return err
		}
		_, err := w.Write(c.Source())
		return err
	}); err != nil {
		return err
	}
	if err := write("summary.json", func(w io.Writer) error { return metrics.WriteSummaryJSON(w, res.Summary) }); err != nil {
		return err
	}
	if err := write("jobs.csv", res.Collector.WriteJobsCSV); err != nil {
		return err
	}
	if err := write("timeseries.csv", res.Collector.WriteTimeseriesCSV); err != nil {
		return err
	}
	perf := perfReport(res.Summary.Policy, res.Cost, res.Engine, wall)
	if err := write("perf.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(perf)
	}); err != nil {
		return err
	}
	fmt.Fprintln(stderr, perf.line())
	s := res.Summary
	fmt.Fprintf(stdout, "%s: %d/%d jobs, makespan %.0f s, throughput %.1f jobs/h, mean turnaround %.1f s, node-local maps %.1f%%, cross-rack %.2f GB\nwrote %s\n",
		s.Policy, s.JobsCompleted, s.JobsSubmitted, s.MakespanS, s.ThroughputJobsPerHour, s.Turnaround.Mean,
		100*s.Locality.Node, s.Bytes.CrossRackTotal/1e9, *out)
	return nil
}
