package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/workload"
)

func TestTDQueueJobsSizes(t *testing.T) {
	for _, qt := range TDQueueTypes {
		for _, gb := range []float64{100, 200, 300} {
			for seed := uint64(1); seed <= 5; seed++ {
				jobs, err := TDQueueJobs(TDQueueConfig{Type: qt, TotalGB: gb, BlockBytes: 64 << 20, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				want := int(gb * 16) // 64 MiB splits per GiB
				total := 0
				for i, j := range jobs {
					if j.NumMaps < qt.MinMaps || j.NumMaps > qt.MaxMaps {
						t.Errorf("%s %.0f GB seed %d job %d: %d splits outside [%d, %d]", qt.Name, gb, seed, i, j.NumMaps, qt.MinMaps, qt.MaxMaps)
					}
					if j.ID != i || j.Submit != 0 || j.NumReduces < 1 || j.InputBytes != int64(j.NumMaps)<<26 {
						t.Errorf("%s job %d: bad job %+v", qt.Name, i, j)
					}
					if !slices.ContainsFunc(TDKinds, func(k TDKind) bool { return k.Name == j.Kind }) {
						t.Errorf("%s job %d: unknown kind %q", qt.Name, i, j.Kind)
					}
					if err := j.Validate(); err != nil {
						t.Errorf("%s job %d: %v", qt.Name, i, err)
					}
					total += j.NumMaps
				}
				if total != want {
					t.Errorf("%s %.0f GB seed %d: %d splits, want %d", qt.Name, gb, seed, total, want)
				}
			}
		}
	}
}

func TestTDQueueJobsDeterministic(t *testing.T) {
	c := TDQueueConfig{Type: TDQueueTypes[1], TotalGB: 200, BlockBytes: 64 << 20, Seed: 7}
	a, _ := TDQueueJobs(c)
	b, _ := TDQueueJobs(c)
	if !slices.Equal(a, b) {
		t.Fatal("same config, different queues")
	}
	c.Seed = 8
	d, _ := TDQueueJobs(c)
	if slices.Equal(a, d) {
		t.Fatal("different seeds, same queue")
	}
}

func TestTDQueueJobsErrors(t *testing.T) {
	for _, c := range []TDQueueConfig{
		{Type: TDQueueType{"bad", 0, 10}, TotalGB: 1, BlockBytes: 64 << 20},
		{Type: TDQueueType{"narrow", 50, 60}, TotalGB: 10, BlockBytes: 64 << 20},
		{Type: TDQueueTypes[0], TotalGB: 0, BlockBytes: 64 << 20},
		{Type: TDQueueTypes[2], TotalGB: 1, BlockBytes: 64 << 20},
	} {
		if _, err := TDQueueJobs(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestTDExperimentNames(t *testing.T) {
	var names []string
	for _, e := range tdExperiments {
		names = append(names, e.Name)
		if e.Measure == nil || e.DefaultSeeds < 1 || e.Source == "" || e.Summary == "" {
			t.Errorf("%s: incomplete registration", e.Name)
		}
	}
	if want := []string{"td/queues", "td/data-size", "td/bounds", "td/bounds-costly", "td/diagnose", "td/regime", "td/map"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	for _, e := range registry {
		if slices.Contains(names, e.Name) && !slices.ContainsFunc(tdExperiments, func(x Experiment) bool { return x.Name == e.Name }) {
			t.Errorf("%s registered twice", e.Name)
		}
	}
}

// TestTDHotWatchAgreesWithTD runs a small queue under TD and checks that the
// wrapper's hotspot count, the measure used for FIFO and Fair, agrees with
// TD's own.
func TestTDHotWatchAgreesWithTD(t *testing.T) {
	jobs := smallTDQueue(t)
	for _, p := range tdPolicies {
		out, err := tdSim{jobs: jobs, policy: p, seed: 1}.run(p.Label, true, false)
		if err != nil {
			t.Fatal(err)
		}
		checkHotspots(t, out, "TD")
	}
}

// TestTDProbeAgreesWithEngine runs a small queue under each scheduler with
// td/diagnose's probe and checks its measures against what must hold: its
// node-local share is the engine's, no map beats its CPU time, and busy
// plus idle-while-waiting slot time fits in the map phase.
func TestTDProbeAgreesWithEngine(t *testing.T) {
	jobs := smallTDQueue(t)
	for _, v := range []tdRegime{tdVariants[0], tdVariants[3]} {
		for _, p := range tdPolicies {
			out, err := tdSim{jobs: jobs, policy: p, seed: 1, setup: v}.run(p.Label, false, true)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(out.probeLocal-out.localRatio) > 1e-9 {
				t.Errorf("%s, %s: probe counts %.4f node-local, the engine %.4f: they watch the same launches", p.Label, v.name, out.probeLocal, out.localRatio)
			}
			for k, st := range []float64{out.stretchL, out.stretchR} {
				if st < 1-1e-9 {
					t.Errorf("%s, %s: stretch %d = %.4f < 1: a map ran faster than its CPU time", p.Label, v.name, k, st)
				}
			}
			if out.util+out.idleShare > 1+1e-9 || out.util <= 0 {
				t.Errorf("%s, %s: busy %.4f + idle %.4f of the map phase: want a positive busy share and a sum <= 1", p.Label, v.name, out.util, out.idleShare)
			}
			if out.idleLastShare > out.idleShare+1e-12 {
				t.Errorf("%s, %s: idle after the last start %.4f exceeds all idle %.4f", p.Label, v.name, out.idleLastShare, out.idleShare)
			}
		}
	}
}

// smallTDQueue is the tests' queue: 20 GB of small jobs, seed 1. A test
// that simulates it is skipped in -short runs.
func smallTDQueue(t *testing.T) []workload.Job {
	t.Helper()
	if testing.Short() {
		t.Skip("simulation")
	}
	jobs, err := tdQueue(TDQueueTypes[0], 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// checkHotspots: for a TD run, probe.HotWatch's hotspot count must be TD's own
// (sched.TDStats), the same definition counted twice.
func checkHotspots(t *testing.T, out *tdOut, what string) {
	t.Helper()
	if out.td == nil {
		return
	}
	n := 0
	for _, v := range out.hot {
		n += v
	}
	if n != out.td.Hotspots {
		t.Errorf("%s: hotWatch counts %d hotspots, TD %d", what, n, out.td.Hotspots)
	}
}
