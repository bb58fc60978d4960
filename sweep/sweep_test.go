package sweep

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
)

// smallBase is a base scenario of a fraction of a second a run.
const smallBase = "seed: 1\ncluster:\n  racks: 2\n  nodes_per_rack: 4\nworkload:\n  trace: FB-2009\n  max_jobs: 40\npolicy:\n  name: fair\n"

// writeGrid writes a base scenario and a grid beside it and returns the
// grid's path.
func writeGrid(t *testing.T, dir, grid string) string {
	t.Helper()
	testfile.Write(t, filepath.Join(dir, "base.yaml"), smallBase)
	path := filepath.Join(dir, "grid.yaml")
	testfile.Write(t, path, grid)
	return path
}

const smallGrid = "base: base.yaml\npolicies: [fair, delay]\nseeds: 2\naxes:\n  cluster.rack_uplink_mbps: [250, 1000]\n"

// planSmall plans smallGrid into dir/sweep.
func planSmall(t *testing.T, dir string) *Sweep {
	t.Helper()
	g, err := LoadGrid(writeGrid(t, dir, smallGrid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(filepath.Join(dir, "sweep")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(dir, "sweep"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collectSmall plans the small grid, runs all of it two at a time and
// collects it.
func collectSmall(t *testing.T) (*Sweep, *Collection) {
	t.Helper()
	s := planSmall(t, t.TempDir())
	if err := s.RunAll(2, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Collect(CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestGridRefusesBadInput(t *testing.T) {
	tests := []struct {
		name, grid string
		want       []string
	}{
		{"no base", "policies: [fair]\n", []string{"base: required"}},
		{"missing base", "base: nope.yaml\n", []string{"line 1", "nope.yaml"}},
		{"unknown key", "base: base.yaml\npolicy: [fair]\n", []string{"line 2", `unknown key "policy"`}},
		{"unknown policy", "base: base.yaml\npolicies: [fair, nsa]\n", []string{"line 2", `policies[1]: unknown policy "nsa"`}},
		{"policy twice", "base: base.yaml\npolicies: [fair, fair]\n", []string{"policies[1]: fair is named twice"}},
		{"zero seeds", "base: base.yaml\nseeds: 0\n", []string{"line 2", "seeds: want a count"}},
		{"fractional seed", "base: base.yaml\nseeds: [1, 2.5]\n", []string{"seeds[1]: want a whole number >= 1, got 2.5"}},
		{"seed twice", "base: base.yaml\nseeds: [3, 3]\n", []string{"seeds[1]: seed 3 is given twice"}},
		{"unknown field", "base: base.yaml\naxes:\n  cluster.rackz: [1, 2]\n", []string{"line 3", "cluster has no field rackz"}},
		{"value of the wrong kind", "base: base.yaml\naxes:\n  cluster.racks:\n    - 2\n    - many\n", []string{"line 5", "cluster.racks=many: want a whole number"}},
		{"empty axis", "base: base.yaml\naxes:\n  cluster.racks: []\n", []string{"line 3", "non-empty list"}},
		{"value twice", "base: base.yaml\naxes:\n  cluster.racks: [2, 2]\n", []string{"cluster.racks[1]: 2 is given twice"}},
		{"seed as an axis", "base: base.yaml\naxes:\n  seed: [1, 2]\n", []string{"grid's seeds key"}},
		{"policy as an axis", "base: base.yaml\naxes:\n  policy.name: [fair]\n", []string{"grid's policies key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeGrid(t, t.TempDir(), tc.grid)
			_, err := LoadGrid(path)
			if err == nil {
				t.Fatalf("LoadGrid accepted %q", tc.grid)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q: the user must see the file, line and key", err, w)
				}
			}
		})
	}
}

// TestPlanWritesOneScenarioPerRun: every cell, policy and seed gets a
// scenario with the cell's values, the policy and the seed, in index order
// (first axis slowest, then policy, then seed).
func TestPlanWritesOneScenarioPerRun(t *testing.T) {
	s := planSmall(t, t.TempDir())
	if n := len(s.Plan.Runs); n != 8 {
		t.Fatalf("%d runs, want 2 cells x 2 policies x 2 seeds = 8", n)
	}
	for i, r := range s.Plan.Runs {
		wantUplink := []float64{250, 1000}[i/4]
		wantPolicy := []string{"fair", "delay"}[i/2%2]
		wantSeed := uint64(i%2 + 1)
		c, err := scenario.Load(s.Spec(i))
		if err != nil {
			t.Fatalf("run %d's scenario: %v", i, err)
		}
		if c.Cluster.RackUplinkMbps != wantUplink || c.Policy.Name != wantPolicy || c.Seed != wantSeed || c.Workload.MaxJobs != 40 {
			t.Errorf("run %d's scenario has uplink %v, policy %s, seed %d, max_jobs %d; want %v, %s, %d and the base's 40",
				i, c.Cluster.RackUplinkMbps, c.Policy.Name, c.Seed, c.Workload.MaxJobs, wantUplink, wantPolicy, wantSeed)
		}
		if r.Cell != i/4 || r.Policy != wantPolicy || r.Seed != wantSeed || r.Settings[0].Value != strconv.Itoa(int(wantUplink)) {
			t.Errorf("plan's run %d is %+v; want cell %d, %s, seed %d", i, r, i/4, wantPolicy, wantSeed)
		}
		if fp, _ := workloadOf(c); fp != r.Workload {
			t.Errorf("run %d planned workload %s, its scenario's is %s", i, r.Workload, fp)
		}
	}
}

func TestPlanAgain(t *testing.T) {
	dir := t.TempDir()
	s := planSmall(t, dir)
	g, err := LoadGrid(filepath.Join(dir, "grid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(s.Dir); !errors.Is(err, ErrPlanned) {
		t.Errorf("planning the same grid again: %v, want ErrPlanned (a no-op)", err)
	}
	if g, err = LoadGrid(dir + "/./grid.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(s.Dir); !errors.Is(err, ErrPlanned) {
		t.Errorf("planning the same grid named by another path: %v, want ErrPlanned", err)
	}
	// The base changed in a setting that is not the workload's: another plan.
	testfile.Write(t, filepath.Join(dir, "base.yaml"), smallBase+"engine: {heartbeat_s: 2}\n")
	if g, err = LoadGrid(filepath.Join(dir, "grid.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(s.Dir); err == nil || !strings.Contains(err.Error(), "holds another plan") {
		t.Errorf("planning after the base scenario changed: %v, want a refusal", err)
	}
	other := writeGrid(t, dir, "base: base.yaml\nseeds: 5\n")
	g, err = LoadGrid(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(s.Dir); err == nil || !strings.Contains(err.Error(), "holds another plan") {
		t.Errorf("planning another grid into a planned directory: %v, want a refusal", err)
	}
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(full); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("planning into a directory of other files: %v, want a refusal", err)
	}
}

// TestPlanLeavesNothingOnABadRun: a value the scenario refuses only when it
// is built (a negative rack count) fails the plan naming the run, and
// leaves no directory behind.
func TestPlanLeavesNothingOnABadRun(t *testing.T) {
	dir := t.TempDir()
	g, err := LoadGrid(writeGrid(t, dir, "base: base.yaml\naxes:\n  cluster.racks: [2, -1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Write(filepath.Join(dir, "sweep"))
	if err == nil || !strings.Contains(err.Error(), "run 1 (cluster.racks=-1, fair, seed 1): cluster.racks") {
		t.Fatalf("plan with racks -1: %v, want an error naming run 1 and cluster.racks (and no line of a file never written)", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("a failed plan left %s behind", e.Name())
		}
	}
}

// TestPlanCopiesTraceFiles: a trace file is copied into the sweep, so
// that the directory holds everything its runs read wherever it is
// mounted.
func TestPlanCopiesTraceFiles(t *testing.T) {
	dir := t.TempDir()
	tr := "job0\t0\t0\t1000000\t1000000\t1000000\njob1\t5\t5\t2000000\t0\t0\n"
	g := traceGrid(t, dir, "data/t.tsv", tr, "seeds: 2\n")
	moved := filepath.Join(dir, "elsewhere", "sweep")
	if _, err := g.Write(filepath.Join(dir, "sweep")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "sweep"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(moved)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunAll(2, nil); err != nil {
		t.Fatalf("the moved sweep, without the original trace, does not run: %v", err)
	}
}

// TestRunResumes: a finished run is not run again; a run whose task died
// half-way (a temporary directory left behind) runs again; a run's
// directory holds every output.
func TestRunResumes(t *testing.T) {
	s := planSmall(t, t.TempDir())
	o, err := s.Execute(3, nil)
	if err != nil || o.Skipped {
		t.Fatalf("Execute(3) = %+v, %v; want a run", o, err)
	}
	for _, f := range []string{"scenario.yaml", "summary.json", "jobs.csv", "timeseries.csv", "perf.json", "run.json"} {
		if _, err := os.Stat(filepath.Join(s.RunDir(3), f)); err != nil {
			t.Errorf("run 3's directory lacks %s", f)
		}
	}
	if o, err := s.Execute(3, nil); err != nil || !o.Skipped {
		t.Errorf("Execute(3) again = %+v, %v; want it skipped as finished", o, err)
	}
	// A task killed while writing leaves a temporary directory only.
	dead := filepath.Join(s.Dir, runsDir, ".0005-killed")
	if err := os.MkdirAll(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	testfile.Write(t, filepath.Join(dead, "summary.json"), "{")
	if s.Done(5) {
		t.Fatal("a dead attempt's temporary directory counts as a finished run")
	}
	var ran []int
	if err := s.RunAll(2, func(done, total, i int, o *Outcome, err error) {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		ran = append(ran, i)
	}); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 7 {
		t.Errorf("RunAll ran %v, want the 7 runs but 3", ran)
	}
	if len(s.Pending()) != 0 {
		t.Errorf("runs %v still pending", s.Pending())
	}
	if _, err := s.Execute(8, nil); err == nil || !strings.Contains(err.Error(), "0 to 7") {
		t.Errorf("Execute(8) = %v, want an error giving the plan's range", err)
	}
}

// TestRunsAreDeterministic: a run's summary is the same bytes whichever
// process runs it, alone or beside others.
func TestRunsAreDeterministic(t *testing.T) {
	a, b := planSmall(t, t.TempDir()), planSmall(t, t.TempDir())
	if err := a.RunAll(1, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.RunAll(4, nil); err != nil {
		t.Fatal(err)
	}
	for i := range a.Plan.Runs {
		x, _ := os.ReadFile(filepath.Join(a.RunDir(i), "summary.json"))
		y, _ := os.ReadFile(filepath.Join(b.RunDir(i), "summary.json"))
		if string(x) != string(y) || len(x) == 0 {
			t.Errorf("run %d's summary differs between a serial and a parallel sweep", i)
		}
	}
}

// TestRunRefusesChangedInputs: a run whose scenario file or trace file
// changed after the plan is refused, so that a sweep's runs are all of
// the plan it collects under.
func TestRunRefusesChangedInputs(t *testing.T) {
	s := planSmall(t, t.TempDir())
	spec := s.Spec(0)
	b, _ := os.ReadFile(spec)
	testfile.Write(t, spec, strings.Replace(string(b), "racks: 2", "racks: 3", 1))
	if _, err := s.Execute(0, nil); err == nil || !strings.Contains(err.Error(), "changed since the plan") {
		t.Errorf("running a run whose scenario changed since the plan: %v, want a refusal", err)
	}

	dir := t.TempDir()
	g := traceGrid(t, dir, "t.tsv", "job0\t0\t0\t1000000\t1000000\t1000000\n", "")
	if _, err := g.Write(filepath.Join(dir, "s")); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "s", inputDir, "t.tsv")
	testfile.Write(t, copied, "job0\t0\t0\t2000000\t1000000\t1000000\n")
	s, err := Open(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(0, nil); err == nil || !strings.Contains(err.Error(), "planned as") || !strings.Contains(err.Error(), "a file it reads changed") {
		t.Errorf("running a run whose trace changed since the plan: %v, want a refusal", err)
	}
}

func TestCollect(t *testing.T) {
	s := planSmall(t, t.TempDir())
	for _, i := range []int{0, 1, 2} {
		if _, err := s.Execute(i, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Collect(CollectOptions{}); err == nil || !strings.Contains(err.Error(), "5 of 8 runs have not finished (3-7)") {
		t.Errorf("collecting an unfinished sweep: %v, want a refusal naming the runs", err)
	}
	c, err := s.Collect(CollectOptions{Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 3 || len(c.Missing) != 5 {
		t.Errorf("-partial collected %d runs, %d missing; want 3 and 5", len(c.Runs), len(c.Missing))
	}
	if err := s.RunAll(2, nil); err != nil {
		t.Fatal(err)
	}
	c, err = s.Collect(CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	groups := c.Groups()
	if len(groups) != 4 {
		t.Fatalf("%d groups, want 2 cells x 2 policies", len(groups))
	}
	// The first group's mean turnaround and standard error, from its runs'
	// summaries by hand.
	var v []float64
	for _, i := range []int{0, 1} {
		b, _ := os.ReadFile(filepath.Join(s.RunDir(i), "summary.json"))
		var sum metrics.Summary
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		v = append(v, sum.Turnaround.Mean)
	}
	mean := (v[0] + v[1]) / 2
	se := math.Abs(v[0]-v[1]) / 2 // sd = |a-b|/sqrt(2), over sqrt(2)
	csv := c.CSV()
	row := csv.Rows[0]
	col := map[string]string{}
	for i, h := range csv.Headers {
		col[h] = row[i]
	}
	got, _ := strconv.ParseFloat(col["mean_turnaround_s_mean"], 64)
	gotSE, _ := strconv.ParseFloat(col["mean_turnaround_s_se"], 64)
	if math.Abs(got-mean) > 1e-9 || math.Abs(gotSE-se) > 1e-9 {
		t.Errorf("group 0's mean turnaround %v ± %v, want %v ± %v from its runs' summaries", got, gotSE, mean, se)
	}
	if col["cluster.rack_uplink_mbps"] != "250" || col["policy"] != "fair" || col["seeds"] != "2" {
		t.Errorf("group 0 is %v, want uplink 250, fair, 2 seeds", row[:3])
	}
	text := &strings.Builder{}
	if err := c.Table().WriteText(text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "±") || !strings.Contains(text.String(), "seeds 1, 2") {
		t.Errorf("the table does not give means ± standard errors over the seeds:\n%s", text)
	}
}

// TestCollectRefusesMixedWorkloads: a run recorded for another workload or
// another plan is not averaged with the others unless forced.
func TestCollectRefusesMixedWorkloads(t *testing.T) {
	tests := []struct {
		name, field, value, want string
		// summaryPolicy, when set, also rewrites the run's summary.json
		// to another policy: one run, two mismatches.
		summaryPolicy string
	}{
		{"another workload", "workload", "sha256:0000000000000000", "ran workload sha256:0000000000000000", ""},
		{"another plan", "plan", "sha256:1111111111111111", "was run for another plan", ""},
		{"one run, two mismatches", "plan", "sha256:1111111111111111", "1 run is not what the plan says", "fifo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := planSmall(t, t.TempDir())
			if err := s.RunAll(2, nil); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(s.RunDir(2), recordFile)
			b, _ := os.ReadFile(path)
			var rec map[string]any
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			rec[tc.field] = tc.value
			b, _ = json.Marshal(rec)
			testfile.Write(t, path, b)
			if tc.summaryPolicy != "" {
				sp := filepath.Join(s.RunDir(2), "summary.json")
				b, _ := os.ReadFile(sp)
				var sum map[string]any
				if err := json.Unmarshal(b, &sum); err != nil {
					t.Fatal(err)
				}
				sum["policy"] = tc.summaryPolicy
				b, _ = json.Marshal(sum)
				testfile.Write(t, sp, b)
			}
			if _, err := s.Collect(CollectOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-force") {
				t.Errorf("Collect = %v, want a refusal saying %q and offering -force", err, tc.want)
			}
			c, err := s.Collect(CollectOptions{Force: true})
			want := 1
			if tc.summaryPolicy != "" {
				want = 2
			}
			if err != nil || len(c.Runs) != 8 || len(c.Mismatched) != want {
				t.Errorf("Collect with Force: %v, %d mismatches; want all 8 runs and the mismatches noted", err, len(c.Mismatched))
			}
		})
	}
}

func TestParallelKeepsOrderAndRunsEverything(t *testing.T) {
	for _, p := range []int{1, 3, 16} {
		calls := make([]bool, 10)
		var seen []int
		out, err := Parallel(10, p, func(done, total int) { seen = append(seen, done) }, func(i int) (int, error) {
			calls[i] = true
			if i == 7 || i == 4 {
				return 0, errors.New("boom " + strconv.Itoa(i))
			}
			return i * i, nil
		})
		if err == nil || err.Error() != "boom 4" || out != nil {
			t.Errorf("parallel %d: err %v, want the first error by index, boom 4", p, err)
		}
		for i, c := range calls {
			if !c {
				t.Errorf("parallel %d: call %d was not made after an earlier one failed", p, i)
			}
		}
		if len(seen) != 10 || seen[9] != 10 {
			t.Errorf("parallel %d: progress saw %v, want 1..10", p, seen)
		}
		out, err = Parallel(5, p, nil, func(i int) (int, error) { return i * i, nil })
		for i, v := range out {
			if v != i*i || err != nil {
				t.Errorf("parallel %d: result %d is %d, want %d in index order", p, i, v, i*i)
			}
		}
	}
}

// TestPage: the report draws each policy's mean turnaround against the
// first axis, with bars of one standard error, from the collected runs.
func TestPage(t *testing.T) {
	_, c := collectSmall(t)
	p := c.Page()
	if len(p.Experiments) != 1 || p.Experiments[0].Figure == nil {
		t.Fatalf("the page has %d sections; want one with the table and a figure", len(p.Experiments))
	}
	e := p.Experiments[0]
	panels, err := e.Figure.Data(e.CSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 1 || len(panels[0].Series) != 2 {
		t.Fatalf("%d panels; want one with a line for each of 2 policies", len(panels))
	}
	for gi, g := range c.Groups() {
		mean, se := g.stats(measures[2])
		ser := panels[0].Series[gi%2]
		k := gi / 2
		if ser.Label != g.Policy || ser.Points[k].X != []float64{250, 1000}[k] || ser.Points[k].Y != mean ||
			math.Abs(ser.High[k]-ser.Low[k]-2*se) > 1e-9 {
			t.Errorf("group %d (%s): point %+v, bar %v-%v; want x = its uplink, y = %v, a bar of ± %v", gi, g.Policy, ser.Points[k], ser.Low[k], ser.High[k], mean, se)
		}
	}
	if err := p.WriteFile(filepath.Join(t.TempDir(), "report.html")); err != nil {
		t.Errorf("the page does not render: %v", err)
	}
}

// TestSweepCarriesThePools: every run of a sweep runs on the base
// scenario's pools, whichever policy it runs, and an axis over them,
// written under policy or under policy.params, sets them for every policy,
// those without pools included.
func TestSweepCarriesThePools(t *testing.T) {
	base := "seed: 1\ncluster: {racks: 2, nodes_per_rack: 4}\nworkload: {trace: FB-2009, max_jobs: 40, users: 3}\n" +
		"policy:\n  name: fair\n  params:\n    pools: [{name: user0, weight: 3}]\n"
	for _, axis := range []string{"policy.pools", "policy.params.pools"} {
		t.Run(axis, func(t *testing.T) {
			dir := t.TempDir()
			testfile.Write(t, filepath.Join(dir, "base.yaml"), base)
			grid := filepath.Join(dir, "grid.yaml")
			testfile.Write(t, grid, "base: base.yaml\npolicies: [fair, delay, drf, td]\naxes:\n  "+axis+": [[{name: user0, weight: 3}], [{name: user1, weight: 2}]]\n")
			g, err := LoadGrid(grid)
			if err != nil {
				t.Fatalf("an axis over the pools across fair, delay, drf and td: %v", err)
			}
			if _, err := g.Write(filepath.Join(dir, "sweep")); err != nil {
				t.Fatalf("plan: %v", err)
			}
			s, err := Open(filepath.Join(dir, "sweep"))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range s.Plan.Runs {
				b, err := os.ReadFile(s.Spec(i))
				if err != nil {
					t.Fatal(err)
				}
				want, not := "user0", "user1"
				if r.Cell == 1 {
					want, not = "user1", "user0"
				}
				if !strings.Contains(string(b), "name: "+want) || strings.Contains(string(b), "name: "+not) {
					t.Errorf("run %d (%s, cell %d) does not run on the cell's pool %s alone:\n%s", i, r.Policy, r.Cell, want, b)
				}
			}
		})
	}
}

// TestSweepCopiesTheOperatorsFiles: a sweep over a scenario that reads a
// Rumen trace, a topology and an allocation file holds copies of all
// three, so that its runs read them wherever the directory is mounted.
func TestSweepCopiesTheOperatorsFiles(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	base, err := filepath.Abs("../examples/hadoop/mycluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testfile.Write(t, grid, "base: "+base+"\npolicies: [fair, fifo]\n")
	g, err := LoadGrid(grid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(filepath.Join(dir, "sweep")); err != nil {
		t.Fatalf("plan: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sweep", inputDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Errorf("inputs/ holds %v; want copies of the trace, the topology and the allocation file", names)
	}
	s, err := Open(filepath.Join(dir, "sweep"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunAll(2, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// traceGrid writes, in dir, the SWIM trace tr at the relative path
// tracePath, a base scenario b.yaml that runs it under fifo on one rack
// of 4 nodes, and a grid g.yaml over it with the lines more; it returns
// the grid as loaded.
func traceGrid(t *testing.T, dir, tracePath, tr, more string) *Grid {
	t.Helper()
	testfile.Write(t, filepath.Join(dir, tracePath), tr)
	testfile.Write(t, filepath.Join(dir, "b.yaml"), "policy: {name: fifo}\ncluster: {racks: 1, nodes_per_rack: 4}\nworkload: {trace: "+tracePath+", source_nodes: 4}\n")
	testfile.Write(t, filepath.Join(dir, "g.yaml"), "base: b.yaml\n"+more)
	g, err := LoadGrid(filepath.Join(dir, "g.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAbandonLeavesNoHiddenRuns interrupts a sweep at many points, from
// before its first run to after its last: once Abandon has returned,
// runs/ holds no hidden directory, even though the runs under way go on
// and try to keep their outputs, and every run directory there is whole.
func TestAbandonLeavesNoHiddenRuns(t *testing.T) {
	for _, after := range []time.Duration{0, time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond, 300 * time.Millisecond} {
		s := planSmall(t, t.TempDir())
		ended := make(chan error, 1)
		go func() { ended <- s.RunAll(2, nil) }()
		time.Sleep(after)
		s.Abandon()
		check := func(when string) {
			entries, err := os.ReadDir(filepath.Join(s.Dir, runsDir))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("abandoned after %v, %s: runs/ holds %s; want no run under way left", after, when, e.Name())
					continue
				}
				if _, err := os.Stat(filepath.Join(s.Dir, runsDir, e.Name(), recordFile)); err != nil {
					t.Errorf("abandoned after %v, %s: run %s has no %s; want only whole runs kept", after, when, e.Name(), recordFile)
				}
			}
		}
		check("at once")
		<-ended
		check("once the runs under way ended")
	}
}

// TestSpecsSayWhichRunTheyAre: a run's scenario file begins with a
// comment naming the run, its place in the plan, its cell, policy and
// seed, and the base it came from, read by whoever opens it on a batch
// node.
func TestSpecsSayWhichRunTheyAre(t *testing.T) {
	s := planSmall(t, t.TempDir())
	b, err := os.ReadFile(s.Spec(7))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(first, "# Run 7 of 8 of the sweep planned from ") || !strings.HasSuffix(first, "grid.yaml: cluster.rack_uplink_mbps=1000, delay, seed 2.") {
		t.Errorf("the spec begins %q; want \"# Run 7 of 8 of the sweep planned from .../grid.yaml: cluster.rack_uplink_mbps=1000, delay, seed 2.\"", first)
	}
}
