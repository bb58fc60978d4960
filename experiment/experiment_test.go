package experiment

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

func TestRegistryListsEveryExperiment(t *testing.T) {
	want := []string{"fair-delay/fifo-vs-fair", "fair-delay/zipf", "fair-delay/bm",
		"fair-delay/small-jobs", "fair-delay/sticky-slots", "fair-delay/io-rate-biasing",
		"fair-delay/small-jobs-hdd", "fair-delay/sticky-slots-hdd", "fair-delay/io-rate-biasing-hdd", "fair-delay/map"}
	for _, e := range slices.Concat(swExperiments, nasExperiments, tdExperiments) {
		want = append(want, e.Name)
	}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v: the Fair Scheduler paper's six and their hdd re-runs, then ShuffleWatcher's, NAS's, TD's", got, want)
	}
	for _, e := range All() {
		if e.Measure == nil || e.Summary == "" || e.Source == "" || e.DefaultSeeds < 1 {
			t.Errorf("%s: incomplete entry %+v", e.Name, e)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"fair-delay/zipf", "zipf"} {
		e, err := Lookup(name)
		if err != nil || e.Name != "fair-delay/zipf" {
			t.Errorf("Lookup(%q) = %q, %v; want fair-delay/zipf", name, e.Name, err)
		}
	}
	_, err := Lookup("fair-delay/nope")
	if err == nil {
		t.Fatal("Lookup accepted an unknown experiment")
	}
	for _, n := range Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %s", err, n)
		}
	}
	for group, n := range map[string]int{"fair-delay": len(fairDelayExperiments), "shufflewatcher": len(swExperiments), "td": len(tdExperiments)} {
		got, err := Select([]string{group})
		if err != nil || len(got) != n {
			t.Errorf("Select(%s) = %d experiments, %v; want the group's %d", group, len(got), err, n)
		}
	}
	if _, err := Select([]string{"zipf", "bogus"}); err == nil {
		t.Error("Select accepted an unknown name")
	}
}

// TestFIFOvsFairIsThePapersExample: section 5.3 (Fig. 7). FIFO runs job 1's
// maps 0-100 s and its reduces 100-200 s while job 2 maps, then job 2's
// reduces 200-300 s: batch 300 s. Fair gives each job half the slots: both
// map phases end at 200 s and both reduce phases at 400 s: batch 400 s.
// Copy-compute splitting changes neither batch time.
func TestFIFOvsFairIsThePapersExample(t *testing.T) {
	e, _ := Lookup("fifo-vs-fair")
	out, err := e.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// batch and each job's finish (-1: the paper gives none for CCS).
	want := map[string][3]float64{
		"FIFO":       {300, 200, 300},
		"fair":       {400, 400, 400},
		"FIFO + CCS": {300, -1, -1},
		"fair + CCS": {400, -1, -1},
	}
	const tol = 0.01 // the tiny shuffle takes microseconds
	if len(out.CSV.Rows) != len(want) {
		t.Fatalf("%d rows, want one a scheduler (%d)", len(out.CSV.Rows), len(want))
	}
	for _, row := range out.CSV.Rows {
		w := want[row[0]]
		for k, col := range []int{1, 3, 5} { // batch_s, job1_finish_s, job2_finish_s
			got, err := strconv.ParseFloat(row[col], 64)
			if w[k] >= 0 && (err != nil || math.Abs(got-w[k]) > tol) {
				t.Errorf("%s %s = %s, want %.0f s", row[0], out.CSV.Headers[col], row[col], w[k])
			}
		}
	}
	if out.Table.Rows[0][1] != "300.0" || out.Table.Rows[1][1] != "400.0" {
		t.Errorf("table rows %v, want FIFO 300.0 and fair 400.0 first", out.Table.Rows)
	}
}

// mapJob is a job of 10 maps of 100 s on one block each and one reduce
// that does nearly nothing: all its time is in its maps.
func mapJob(id int, block int64) workload.Job {
	return harness.NewJob(id, "solo-"+string(rune('a'+id)), "fair-delay", id, 0, block, harness.Shape{
		Maps: 10, MapS: 100, Reduces: 1, ShuffleRatio: 1e-6, ReduceS: 1e-3, OutputRatio: 0})
}

// slowdowns is zipf's slowdown of each job: its turnaround over its
// turnaround alone on s.
func slowdowns(s harness.Setup, jobs []workload.Job, turnaround []float64) ([]float64, error) {
	out, err := harness.RunAll(Options{}.WithDefaults(1), soloRuns(s, jobs))
	if err != nil {
		return nil, err
	}
	solo, err := soloTimes(out)
	if err != nil {
		return nil, err
	}
	return divide(turnaround, solo)
}

func TestSlowdowns(t *testing.T) {
	s := harness.Setup{Cluster: pairCluster(), Engine: sim.Params{CopyCompute: sim.CopyCompute{Enabled: true}}, Seed: 1}
	block := s.Cluster.WithDefaults().BlockBytes()
	const tol = 0.001
	t.Run("alone", func(t *testing.T) {
		// A job alone: turnaround = its time alone, slowdown 1.
		jobs := []workload.Job{mapJob(0, block)}
		outs, err := harness.RunAll(Options{Parallel: 1}, []harness.Run{{Setup: s, Jobs: jobs, Policy: polFIFO}})
		if err != nil {
			t.Fatal(err)
		}
		sd, err := slowdowns(s, jobs, []float64{outs[0].Turnaround(0)})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sd[0]-1) > tol {
			t.Errorf("slowdown alone = %v, want 1", sd[0])
		}
	})
	t.Run("two under FIFO", func(t *testing.T) {
		// Two identical jobs submitted together on one node with 10 map
		// slots: alone, each maps in one wave, 0-100 s. Under FIFO job 1
		// maps 0-100 s and job 2 waits for its slots, mapping 100-200 s:
		// slowdowns 100/100 = 1 and 200/100 = 2.
		jobs := []workload.Job{mapJob(0, block), mapJob(1, block)}
		outs, err := harness.RunAll(Options{Parallel: 1}, []harness.Run{{Setup: s, Jobs: jobs, Policy: polFIFO}})
		if err != nil {
			t.Fatal(err)
		}
		ta := []float64{outs[0].Turnaround(0), outs[0].Turnaround(1)}
		sd, err := slowdowns(s, jobs, ta)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sd[0]-1) > tol || math.Abs(sd[1]-2) > tol {
			t.Errorf("slowdowns = %v, want [1 2] (turnarounds %v)", sd, ta)
		}
	})
}

// The Fair Scheduler paper's schedulers with parameters build: their
// parameters are decoded strictly (harness.PolicySpec).
func TestFairDelayPoliciesBuild(t *testing.T) {
	if _, err := zipfPreemption.Build(); err != nil {
		t.Errorf("zipf preemption: %v", err)
	}
	for _, p := range append(slices.Clone(hotPolicies), smallJobsPolicies...) {
		if _, err := p.Build(); err != nil {
			t.Errorf("%s: %v", p.Label, err)
		}
	}
}
