package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/traces"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("compare", stderr, "usage: mrsched compare [-config FILE] [-trace NAME|FILE [-source-nodes N]] [-topology FILE] [-allocations FILE] [-site FILE]\n                       [-policies a,b] [-seed N] [-seeds N] [-csv FILE] [-out DIR [-force]] [-report FILE] [-q] [-v]",
		"  every policy on one scenario, side by side; with -seeds N, the mean and standard error over N seeds")
	sf := addScenarioFlags(fs, "scenario YAML to compare on (its policy is ignored); default: embedded FB-2009 on the default cluster")
	pols := fs.String("policies", "", "comma-separated policies, or \"all\" to add the papers' ablation variants (default: every registered policy but the ablations)")
	seed := fs.Uint64("seed", 0, "override the scenario's seed")
	csvPath := fs.String("csv", "", "also write the table as CSV to this file (plain numbers, units in the header)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "policies simulated at once")
	quiet := fs.Bool("q", false, "no progress line")
	verbose := fs.Bool("v", false, "also say what each policy's decisions cost on this machine (Assign calls, mean and p99 wall time)")
	force := fs.Bool("force", false, "with -out: replace what the directory holds (another run, or other files)")
	seeds := fs.Int("seeds", 1, "run each policy on this many seeds (the scenario's seed and the next ones, common to every policy) and show mean ± standard error")
	outs := addOutputFlags(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *csvPath != "" {
		if err := writableFile(*csvPath); err != nil {
			return fmt.Errorf("-csv: %w", err)
		}
	}
	base, err := sf.base()
	if err != nil {
		return err
	}
	if flagGiven(fs, "seed") {
		base.SetSeed(*seed)
	}
	// Every name is checked before any policy runs, so that a misspelt
	// last one does not cost the runs before it.
	names, err := policyList(*pols)
	if err != nil {
		return err
	}
	if *parallel < 1 {
		return fmt.Errorf("-parallel: must be at least 1, got %d", *parallel)
	}
	if err := outs.check(); err != nil {
		return err
	}
	if *seeds != 1 {
		return compareSeeds(fs, base, names, *seeds, *parallel, *quiet, stdout, stderr)
	}
	runs := make([]*compareRun, len(names))
	for i, name := range names {
		scen, err := compareScenario(base, name)
		if err != nil {
			return err
		}
		runs[i] = &compareRun{name: name, config: base.WithPolicy(name), scenario: scen}
	}
	man := newCompareManifest(runs)
	var dir *outDir
	if *outs.out != "" {
		var err error
		if dir, err = openOutDir("-out", *outs.out, *force, man.matches); err != nil {
			return err
		}
		if err := man.write(dir.path); err != nil {
			dir.discard()
			return err
		}
		for _, r := range runs {
			r.readBack(dir.path)
		}
	}
	err = runCompare(base, runs, dir, *parallel, *quiet, stderr)
	if err != nil {
		return err
	}
	printInputWarnings(base, stderr)
	summaries := make([]metrics.Summary, len(runs))
	for i, r := range runs {
		summaries[i] = r.summary
	}
	t := compareTable(base, summaries)
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	if err := writeTimeTable(stdout, names, func(p int) []metrics.Summary { return summaries[p : p+1] }); err != nil {
		return err
	}
	if *verbose {
		// What each policy's decisions cost on this machine: it varies from
		// run to run and machine to machine, so only when asked for.
		for _, r := range runs {
			if r.cost != nil {
				fmt.Fprintln(stderr, perfReport(r.name, r.cost, r.engine, r.wall).Line())
			}
		}
	}
	if err := outs.writeCompare(base, runs, stderr, *quiet); err != nil {
		return err
	}
	if *csvPath != "" {
		f, err := os.Create(*csvPath)
		if err != nil {
			return err
		}
		if err := compareCSV(summaries).WriteCSV(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// compareRun is one policy's run in a comparison: simulated now, or read
// back from the run directory an earlier, interrupted compare left.
type compareRun struct {
	name     string
	config   *scenario.Config
	scenario []byte // the run's scenario.yaml
	summary  metrics.Summary
	// cost and engine are what the simulation cost, nil and zero for a
	// run read back; run is what the report draws, either way. The run's
	// collector is not kept past run: the tables and figures read run, and
	// what else the collector holds would stay live until the command
	// ends, for every policy.
	cost   *metrics.Latency
	engine sim.Stats
	run    *report.Run
	wall   time.Duration
	// dir is the run's directory under -out, once written.
	dir string
}

// readBack takes the run from out/<policy> when an earlier compare of the
// same scenario finished it there.
func (r *compareRun) readBack(out string) {
	dir := filepath.Join(out, r.name)
	got, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil || !bytes.Equal(got, r.scenario) || !report.IsRunDir(dir) {
		return
	}
	run, err := report.LoadRun(dir)
	if err != nil {
		return // run again: what is there is not a whole run
	}
	r.run, r.summary, r.dir = run, run.Summary, dir
}

func (r *compareRun) done() bool { return r.run != nil }

// runCompare simulates the runs not yet done, parallel at a time, writing
// each into dir (when not nil) as it finishes. SIGINT or SIGTERM ends it
// with what finished kept; a run that fails ends it once the others have
// finished.
func runCompare(base *scenario.Config, runs []*compareRun, dir *outDir, parallel int, quiet bool, stderr io.Writer) error {
	var pending []int
	for i, r := range runs {
		if !r.done() {
			pending = append(pending, i)
		}
	}
	if dir != nil && len(pending) < len(runs) && !quiet {
		fmt.Fprintf(stderr, "compare: %d of %d runs read back from %s\n", len(runs)-len(pending), len(runs), dir.path)
	}
	var wl jobSpan
	if !quiet && len(pending) > 0 {
		wl = workloadOf(base)
	}
	ctx, stop := interruptContext()
	defer stop()
	prog := newProgress(stderr, "compare", len(pending), wl, quiet)
	var (
		mu          sync.Mutex // guards the writes, errs and interrupted
		interrupted bool
		errs        []error
	)
	finished := func() int {
		n := 0
		for _, r := range runs {
			if r.done() {
				n++
			}
		}
		return n
	}
	runOne := func(k int, r *compareRun) {
		start := time.Now()
		res, err := r.config.Run(func(now float64, done, total int) { prog.sim(k, now, done, total) })
		wall := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		if interrupted {
			return
		}
		if err == nil && dir != nil {
			err = writeCompareRun(dir.path, r, res, wall)
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		r.cost, r.engine, r.wall, r.summary = res.Cost, res.Engine, wall, res.Summary
		r.run = report.FromCollector(r.scenario, res.Summary, res.Collector)
		r.run.Dir = r.dir
	}
	all := inOrder(ctx, len(pending), parallel, func(k int) { runOne(k, runs[pending[k]]) })
	select {
	case <-all:
	case <-ctx.Done():
		mu.Lock()
		interrupted = true
		mu.Unlock()
		prog.abandon()
		n := finished()
		switch {
		case dir == nil:
			fmt.Fprintf(stderr, "interrupted: %d of %d runs finished; none kept (-out DIR keeps finished runs, and a rerun resumes from them)\n", n, len(runs))
		case n == 0 && dir.made:
			dir.discard()
			fmt.Fprintf(stderr, "interrupted: 0 of %d runs finished; %s removed\n", len(runs), dir.path)
		default:
			fmt.Fprintf(stderr, "interrupted: %d of %d runs finished, kept in %s; the same command resumes from them\n", n, len(runs), dir.path)
		}
		return errInterrupted
	}
	prog.finish()
	if len(errs) > 0 {
		if dir != nil {
			if n := finished(); n == 0 && dir.made {
				dir.discard()
			} else if n > 0 {
				fmt.Fprintf(stderr, "compare: %d of %d runs finished, kept in %s\n", n, len(runs), dir.path)
			}
		}
		return errs[0]
	}
	return nil
}

// writeCompareRun writes a finished run to out/<policy> whole: into a
// hidden directory first, renamed when every file is written, so that an
// interrupted write leaves no half run to be read back.
func writeCompareRun(out string, r *compareRun, res *scenario.Result, wall time.Duration) error {
	final := filepath.Join(out, r.name)
	tmp := filepath.Join(out, "."+r.name+".partial")
	os.RemoveAll(tmp)
	perf := perfReport(r.name, res.Cost, res.Engine, wall)
	if err := report.WriteRunDir(tmp, report.Output{Scenario: r.scenario, Summary: res.Summary, Collector: res.Collector, Perf: perf}); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.RemoveAll(final); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	r.dir = final
	return nil
}

// compareManifest is compare.json in compare's -out directory: which
// runs it holds, so that the same command resumes there and another is
// refused rather than mixed with them.
type compareManifest struct {
	Command string `json:"command"`
	// Runs are the policies in order, each with a hash of its
	// scenario.yaml: the scenario, seed, trace and pools it runs.
	Runs []compareManifestRun `json:"runs"`
}

type compareManifestRun struct {
	Policy   string `json:"policy"`
	Scenario string `json:"scenario"`
}

const compareManifestFile = "compare.json"

func newCompareManifest(runs []*compareRun) *compareManifest {
	m := &compareManifest{Command: "compare"}
	for _, r := range runs {
		sum := sha256.Sum256(r.scenario)
		m.Runs = append(m.Runs, compareManifestRun{Policy: r.name, Scenario: "sha256:" + hex.EncodeToString(sum[:8])})
	}
	return m
}

// matches reports whether dir holds this comparison: the same policies on
// the same scenario.
func (m *compareManifest) matches(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, compareManifestFile))
	if err != nil {
		return false
	}
	var got compareManifest
	return json.Unmarshal(b, &got) == nil && reflect.DeepEqual(&got, m)
}

func (m *compareManifest) write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, compareManifestFile), append(b, '\n'), 0o644)
}

// fairRun is the summary the comparison's ratios are to, fair's (the
// last, should it run twice), or nil without a fair run.
func fairRun(results []metrics.Summary) *metrics.Summary {
	var ref *metrics.Summary
	for i := range results {
		if results[i].Policy == "fair" {
			ref = &results[i]
		}
	}
	return ref
}

// workloadTitle names a comparison's workload in its title: an embedded
// trace or the generator by name, a trace file by its file name (the
// topology is named so too), whatever the path it was given by.
func workloadTitle(c *scenario.Config) string {
	if w := c.Workload.Trace; w != "" {
		if slices.Contains(traces.Names(), w) {
			return w
		}
		return filepath.Base(w)
	}
	return c.Workload.Generator
}

func compareTable(c *scenario.Config, results []metrics.Summary) *report.Table {
	ref := fairRun(results)
	cl := c.Cluster.WithDefaults()
	t := &report.Table{
		Title: fmt.Sprintf("%s on %s (seed %d)", workloadTitle(c), clusterTitle(cl, results), c.RunSeed()),
		Headers: []string{"policy", "jobs", "throughput (jobs/h)", "vs fair", "mean turnaround (s)", "vs fair",
			"p95 turnaround (s)", "node-local maps", "cross-rack GB", "vs fair"},
	}
	norm := func(v, r float64) string {
		if ref == nil || r == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", v/r)
	}
	for _, s := range results {
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
	t.Notes = append(t.Notes, configNotes(c, results)...)
	return t
}

// compareCSV is the comparison as plain numbers, units in the headers, for
// tools; a ratio to fair is a plain number too, empty without a fair run.
func compareCSV(results []metrics.Summary) *report.Table {
	t := &report.Table{Headers: []string{"policy", "jobs_submitted", "jobs_completed",
		"throughput_jobs_per_h", "throughput_vs_fair", "mean_turnaround_s", "mean_turnaround_vs_fair",
		"p95_turnaround_s", "node_local_maps_pct", "cross_rack_gb", "cross_rack_vs_fair"}}
	ref := fairRun(results)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	ratio := func(get func(*metrics.Summary) float64, s *metrics.Summary) string {
		if ref == nil || get(ref) == 0 {
			return ""
		}
		return num(get(s) / get(ref))
	}
	for i := range results {
		s := &results[i]
		t.AddRow(s.Policy, strconv.Itoa(s.JobsSubmitted), strconv.Itoa(s.JobsCompleted),
			num(s.ThroughputJobsPerHour), ratio(func(s *metrics.Summary) float64 { return s.ThroughputJobsPerHour }, s),
			num(s.Turnaround.Mean), ratio(func(s *metrics.Summary) float64 { return s.Turnaround.Mean }, s),
			num(s.Turnaround.P95), num(100*s.Locality.Node),
			num(s.Bytes.CrossRackTotal/1e9), ratio(func(s *metrics.Summary) float64 { return s.Bytes.CrossRackTotal }, s))
	}
	return t
}

// configNotes says what of the scenario's configuration each policy ran
// with: the scenario's own parameters for its own policy, and what of the
// cluster's pools a policy could not apply.
func configNotes(c *scenario.Config, results []metrics.Summary) []string {
	var notes []string
	if c.OwnParams() {
		for _, s := range results {
			if s.Policy == c.Policy.Name {
				notes = append(notes, fmt.Sprintf("%s ran with the scenario's parameters; the other policies with their defaults.", c.Policy.Name))
			}
		}
	}
	for _, s := range results {
		for _, n := range notApplied(s) {
			notes = append(notes, n+".")
		}
	}
	return notes
}

// notApplied is what of the scenario a run's policy could not apply, from
// its summary in memory or as read back from summary.json.
func notApplied(s metrics.Summary) []string {
	switch cfg := s.Config.(type) {
	case scenario.Effective:
		return cfg.Policy.NotApplied
	case map[string]any:
		pol, _ := cfg["policy"].(map[string]any)
		list, _ := pol["not_applied"].([]any)
		var out []string
		for _, v := range list {
			if n, ok := v.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}
