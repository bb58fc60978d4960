package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// TestNASMeterShares drives a meter through a hand-built run and checks the
// share of nodes over TrafficThreshold at each sample, as the predictor
// sees it and with true outputs (swTopo: 6 nodes, 4 containers each).
//
// Job a reads 2 blocks with shuffle 0.25 x input, b 3 blocks with 2 x
// input. At t = 0 both are added and b runs 3 maps on node 0, a one on
// node 2. At t = 10 a's map ends with 0.25 B of output; at t = 16 an event
// closes the run. Samples fall at 0, 3, 6, 9, 12, 15.
func TestNASMeterShares(t *testing.T) {
	topo := swTopo(t)
	B := float64(topo.Config().BlockBytes())
	n := []cluster.NodeID{0, 3}
	a := swJob(t, topo, 0, "a", 0.25, n, n)
	b := swJob(t, topo, 1, "b", 2, n, n, n)
	fc := &fakeCluster{topo: topo, jobs: []*sched.Job{a, b}}
	m := sched.NewNASMeter(3)
	m.JobAdded(fc, a)
	m.JobAdded(fc, b)
	for range 3 {
		m.TaskLaunched(fc, b, sched.MapTask, 0)
	}
	m.TaskLaunched(fc, a, sched.MapTask, 2)
	fc.now = 10
	a.FinishedMaps, a.MapOutputByRack[0] = 1, 0.25*B
	m.TaskEnded(fc, a, sched.MapTask, 2, false)
	fc.now = 16
	m.TaskLaunched(fc, a, sched.MapTask, 1)
	got := m.NASLoad()

	// Predicted: at 0 nothing runs; at 3-9 both jobs are unpredicted (ratio
	// 1), TrafficThreshold = 4 x 5B / 5 = 4B and node 0 holds 3B: none
	// over; at 12-15 a is predicted at 0.25B a map, TrafficThreshold =
	// 4 x (0.5B + 3B) / 5 = 2.8B < 3B: node 0 over, 1 node in 6.
	// True: TrafficThreshold = 4 x (0.5B + 6B) / 5 = 5.2B, node 0 holds 6B
	// from t = 3 on: 1 node in 6 in five samples of six.
	tests := []struct {
		name      string
		got, want float64
		why       string
	}{
		{"samples", float64(got.Samples), 6, "one sample every 3 s from 0 to 15"},
		{"nodes", float64(got.Nodes), 6, "swTopo has 6 nodes"},
		{"mean predicted", got.MeanShare, 2.0 / 6 / 6, "node 0 over in the two samples after a became predicted"},
		{"max predicted", got.MaxShare, 1.0 / 6, "one node of six at most"},
		{"mean true", got.MeanShareTrue, 5.0 / 6 / 6, "node 0 over in every sample after the launches"},
		{"max true", got.MaxShareTrue, 1.0 / 6, "one node of six at most"},
	}
	for _, tc := range tests {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v: %s", tc.name, tc.got, tc.want, tc.why)
		}
	}
}

// TestNASMeterIdleCluster checks that no sample is taken while no job is in
// the cluster, so a run's idle stretches do not dilute the share.
func TestNASMeterIdleCluster(t *testing.T) {
	topo := swTopo(t)
	a := swJob(t, topo, 0, "a", 1, []cluster.NodeID{0, 3})
	fc := &fakeCluster{topo: topo, jobs: []*sched.Job{a}, now: 100}
	m := sched.NewNASMeter(3)
	m.JobAdded(fc, a)
	fc.now = 104
	m.JobRemoved(fc, a)
	fc.now = 1000
	m.TaskLaunched(fc, a, sched.MapTask, 0) // a stray event long after
	if got := m.NASLoad().Samples; got != 1 {
		t.Errorf("samples = %d, want 1 (at 102, the one multiple of 3 while a was in the cluster; none after it left)", got)
	}
}

// TestWithNASMeterForwards checks that a metered policy preempts exactly
// when the policy it wraps does, and reports the meter's statistics.
func TestWithNASMeterForwards(t *testing.T) {
	tests := []struct {
		name    string
		params  sched.FairParams
		preempt bool
	}{
		{"fair without preemption", sched.FairParams{}, false},
		{"fair with preemption", sched.FairParams{Preemption: sched.PreemptionParams{Enabled: true}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := sched.NewFair(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			w := sched.WithNASMeter(p, 0)
			if _, ok := w.(sched.Preempter); ok != tc.preempt {
				t.Errorf("metered policy is a Preempter: %v, want %v (as the wrapped policy)", ok, tc.preempt)
			}
			if w.Name() != p.Name() {
				t.Errorf("Name() = %q, want the wrapped policy's %q", w.Name(), p.Name())
			}
			r, ok := w.(sched.NASLoadReporter)
			if !ok {
				t.Fatal("metered policy does not report NASLoad")
			}
			if got := r.NASLoad().PeriodS; got != sched.DefaultNASLoadPeriodS {
				t.Errorf("PeriodS = %v, want the default %v for period 0", got, sched.DefaultNASLoadPeriodS)
			}
		})
	}
}
