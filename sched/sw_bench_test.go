package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// swFixture is placeFixture's 600 nodes and 200 jobs in 10 pools, added to
// a ShuffleWatcher placer with opt (SAMP runs for each).
func swFixture(tb testing.TB, opt sched.SWOptions) (*fakeCluster, func(func(*sched.Job) bool), *sched.ShuffleWatcher) {
	c, seq := placeFixture(tb)
	sw, err := sched.NewShuffleWatcher(sched.SWParams{}, opt)
	if err != nil {
		tb.Fatal(err)
	}
	for _, j := range c.jobs {
		j.MapOutputByRack = make([]float64, c.topo.NumRacks())
		sw.JobAdded(c, j)
	}
	return c, seq, sw
}

func TestSWPlaceDoesNotAllocate(t *testing.T) {
	d, err := sched.NewDelayPlacer(sched.DelayParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  sched.SWOptions
		fit  bool
	}{
		{"sw", sched.SWOptions{SAMP: true, SARP: true}, false},
		{"sw-relaxed", sched.SWOptions{SAMP: true, SARP: true, RelaxedFairnessS: 5}, false},
		{"sw-delay", sched.SWOptions{SAMP: true, SARP: true, Delay: d}, false},
		{"fit(sw)", sched.SWOptions{SAMP: true, SARP: true, ResourceFit: true}, true},
	} {
		c, seq, sw := swFixture(t, tc.opt)
		var p sched.Placer = sw
		if tc.fit {
			p = sched.NewResourceFit(sw)
		}
		allocs := placeAllocs(c, p, seq)
		if allocs != 0 {
			t.Errorf("%s: Place allocates %.1f times a call, want 0 once its tables have grown: it runs on every offer", tc.name, allocs)
		}
	}
}

// BenchmarkSWPlace offers nodes round-robin to the ShuffleWatcher placer
// over 200 candidate jobs of 10 users, without launching.
func BenchmarkSWPlace(b *testing.B) {
	c, seq, sw := swFixture(b, sched.SWOptions{SAMP: true, SARP: true})
	b.ReportAllocs()
	n := cluster.NodeID(0)
	for b.Loop() {
		sw.Place(c, sched.Offer{Node: n, Slot: sched.MapSlot}, seq)
		n = (n + 7) % 600
	}
}
