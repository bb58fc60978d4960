package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "scenario YAML to compare on (its policy is ignored); default: embedded FB-2009 on the default cluster")
	trace := fs.String("trace", "", "override the workload trace: FB-2009, FB-2010 or a SWIM TSV file")
	pols := fs.String("policies", "", "comma-separated policies, or \"all\" to add the papers' ablation variants (default: every registered policy but the ablations)")
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	csvPath := fs.String("csv", "", "also write the table as CSV to this file")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "policies simulated at once")
	quiet := fs.Bool("q", false, "no progress line")
	outs := addOutputFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	base := scenario.Default()
	if *cfgPath != "" {
		c, err := scenario.Load(*cfgPath)
		if err != nil {
			return err
		}
		base = c
	}
	if *trace != "" {
		base.Workload.Trace, base.Workload.Generator = *trace, ""
		if _, err := os.Stat(*trace); err == nil {
			abs, _ := filepath.Abs(*trace)
			base.Workload.Trace = abs
		}
	}
	if *seed != 0 {
		base.Seed = *seed
	}
	names := sched.MainPolicyNames()
	switch *pols {
	case "":
	case "all":
		names = sched.PolicyNames()
	default:
		names = strings.Split(*pols, ",")
		for i, name := range names {
			// Every name is checked before any policy runs, so that a
			// misspelt last one does not cost the runs before it.
			names[i] = strings.TrimSpace(name)
			if _, err := sched.NewPolicy(names[i], nil); err != nil {
				return fmt.Errorf("-policies: %w", err)
			}
		}
	}
	if *parallel < 1 {
		return fmt.Errorf("-parallel: must be at least 1, got %d", *parallel)
	}
	if err := outs.check(); err != nil {
		return err
	}
	var wl jobSpan
	if !*quiet {
		wl = workloadOf(base)
	}
	prog := newProgress(stderr, "compare", len(names), wl, *quiet)
	results := make([]*scenario.Result, len(names))
	walls := make([]time.Duration, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, *parallel)
	var wg sync.WaitGroup
	for i, name := range names {
		c := base.WithPolicy(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			results[i], errs[i] = c.Run(func(now float64, done, total int) { prog.sim(i, now, done, total) })
			walls[i] = time.Since(start)
		}()
	}
	wg.Wait()
	prog.finish()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	t := compareTable(base, results)
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	if !*quiet {
		// What each policy's decisions cost on this machine: on stderr,
		// since it varies from run to run and machine to machine.
		for i, r := range results {
			fmt.Fprintln(stderr, perfReport(r.Summary.Policy, r.Cost, r.Engine, walls[i]).line())
		}
	}
	if err := outs.writeCompare(base, names, results, walls, stderr, *quiet); err != nil {
		return err
	}
	if *csvPath != "" {
		f, err := os.Create(*csvPath)
		if err != nil {
			return err
		}
		if err := t.WriteCSV(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

func compareTable(c *scenario.Config, results []*scenario.Result) *report.Table {
	var ref *metrics.Summary
	for _, r := range results {
		if r.Summary.Policy == "fair" {
			ref = &r.Summary
		}
	}
	cl := c.Cluster.WithDefaults()
	w := c.Workload.Trace
	if w == "" {
		w = c.Workload.Generator
	}
	t := &report.Table{
		Title: fmt.Sprintf("%s on %d racks x %d nodes (seed %d)", w, cl.Racks, cl.NodesPerRack, c.Seed),
		Headers: []string{"policy", "jobs", "throughput (jobs/h)", "vs fair", "mean turnaround (s)", "vs fair",
			"p95 turnaround (s)", "node-local maps", "cross-rack GB", "vs fair"},
	}
	norm := func(v, r float64) string {
		if ref == nil || r == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", v/r)
	}
	for _, r := range results {
		s := r.Summary
		var rt, rm, rx float64
		if ref != nil {
			rt, rm, rx = ref.ThroughputJobsPerHour, ref.Turnaround.Mean, ref.Bytes.CrossRackTotal
		}
		t.AddRow(s.Policy, fmt.Sprintf("%d/%d", s.JobsCompleted, s.JobsSubmitted),
			fmt.Sprintf("%.1f", s.ThroughputJobsPerHour), norm(s.ThroughputJobsPerHour, rt),
			fmt.Sprintf("%.1f", s.Turnaround.Mean), norm(s.Turnaround.Mean, rm),
			fmt.Sprintf("%.1f", s.Turnaround.P95),
			fmt.Sprintf("%.1f%%", 100*s.Locality.Node),
			fmt.Sprintf("%.1f", s.Bytes.CrossRackTotal/1e9), norm(s.Bytes.CrossRackTotal, rx))
	}
	t.Notes = []string{
		"throughput: completed jobs / (last finish - first submit); turnaround: finish - submit;",
		"cross-rack GB: shuffle + remote map reads + reduce output that crossed a rack uplink (1 GB = 1e9 bytes).",
	}
	return t
}
