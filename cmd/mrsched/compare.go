package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "scenario YAML to compare on (its policy is ignored); default: embedded FB-2009 on the default cluster")
	trace := fs.String("trace", "", "override the workload trace: FB-2009, FB-2010, FB-2010-paths, a SWIM TSV file (with -source-nodes), a Rumen or SLS jobs file, or a .jhist file or directory")
	topology := fs.String("topology", "", "the cluster's hosts and racks: a Rumen topology, a Hadoop table file or an SLS nodes file")
	allocs := fs.String("allocations", "", "a Hadoop 1 or YARN fair-scheduler.xml whose pools or queues the policies with pools take")
	site := fs.String("site", "", "a Hadoop site file (mapred-site.xml, yarn-site.xml) whose Fair Scheduler locality settings give the delay policies' waits")
	sourceNodes := fs.Int("source-nodes", 0, "the node count of the cluster a trace file was recorded on (SWIM scales its bytes by nodes / source nodes); embedded traces know theirs")
	pols := fs.String("policies", "", "comma-separated policies, or \"all\" to add the papers' ablation variants (default: every registered policy but the ablations)")
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	csvPath := fs.String("csv", "", "also write the table as CSV to this file (plain numbers, units in the header)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "policies simulated at once")
	quiet := fs.Bool("q", false, "no progress line")
	outs := addOutputFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *sourceNodes < 0 {
		return fmt.Errorf("-source-nodes: must be positive, got %d", *sourceNodes)
	}
	if *csvPath != "" {
		if err := writableFile(*csvPath); err != nil {
			return fmt.Errorf("-csv: %w", err)
		}
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
		// Another trace: the scenario's source_nodes was for its own.
		base.Workload.Trace, base.Workload.Generator, base.Workload.SourceNodes = *trace, "", 0
		if _, _, embedded := traces.Embedded(*trace); !embedded {
			if _, err := os.Stat(*trace); err != nil {
				return fmt.Errorf("-trace: neither an embedded trace (%s) nor a file: %w", strings.Join(traces.Names(), ", "), err)
			}
			if *sourceNodes == 0 && isSWIMFile(*trace) {
				return fmt.Errorf("-trace %s: a trace file needs -source-nodes N, the node count of the cluster it was recorded on", *trace)
			}
			abs, _ := filepath.Abs(*trace)
			base.Workload.Trace = abs
		}
	}
	if err := ownClusterFlags(base, *topology, *allocs, *site); err != nil {
		return err
	}
	if *sourceNodes > 0 {
		base.Workload.SourceNodes = *sourceNodes
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
			if slices.Contains(names[:i], names[i]) {
				return fmt.Errorf("-policies: %s is named twice", names[i])
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
	printInputWarnings(base, stderr)
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
			fmt.Fprintln(stderr, perfReport(r.Summary.Policy, r.Cost, r.Engine, walls[i]).Line())
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
		if err := compareCSV(results).WriteCSV(f); err != nil {
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
		Title: fmt.Sprintf("%s on %s (seed %d)", w, clusterTitle(cl, results), max(c.Seed, 1)), // an unset seed runs as 1
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

// compareCSV is the comparison as plain numbers, units in the headers, for
// tools; a ratio to fair is a plain number too, empty without a fair run.
func compareCSV(results []*scenario.Result) *report.Table {
	t := &report.Table{Headers: []string{"policy", "jobs_submitted", "jobs_completed",
		"throughput_jobs_per_h", "throughput_vs_fair", "mean_turnaround_s", "mean_turnaround_vs_fair",
		"p95_turnaround_s", "node_local_maps_pct", "cross_rack_gb", "cross_rack_vs_fair"}}
	var ref *metrics.Summary
	for _, r := range results {
		if r.Summary.Policy == "fair" {
			ref = &r.Summary
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	ratio := func(get func(*metrics.Summary) float64, s *metrics.Summary) string {
		if ref == nil || get(ref) == 0 {
			return ""
		}
		return num(get(s) / get(ref))
	}
	for _, r := range results {
		s := &r.Summary
		t.AddRow(s.Policy, strconv.Itoa(s.JobsSubmitted), strconv.Itoa(s.JobsCompleted),
			num(s.ThroughputJobsPerHour), ratio(func(s *metrics.Summary) float64 { return s.ThroughputJobsPerHour }, s),
			num(s.Turnaround.Mean), ratio(func(s *metrics.Summary) float64 { return s.Turnaround.Mean }, s),
			num(s.Turnaround.P95), num(100*s.Locality.Node),
			num(s.Bytes.CrossRackTotal/1e9), ratio(func(s *metrics.Summary) float64 { return s.Bytes.CrossRackTotal }, s))
	}
	return t
}
