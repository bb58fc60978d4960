package sched_test

import (
	"fmt"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// placeFixture is a 600-node cluster (30 racks of 20) with 200 jobs of 40
// maps each placed at random, and a fixed candidate sequence over them.
func placeFixture(tb testing.TB) (*fakeCluster, func(func(*sched.Job) bool)) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20})
	if err != nil {
		tb.Fatal(err)
	}
	c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.MapSlot: 2400}}
	for i := range 200 {
		f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(40, cluster.NoWriter)
		c.jobs = append(c.jobs, &sched.Job{Index: i, Pool: fmt.Sprint("p", i%10), NumMaps: 40, NumReduces: 1,
			Maps: sched.NewMapIndex(topo, &f), Input: &f})
	}
	seq := func(yield func(*sched.Job) bool) {
		for _, j := range c.jobs {
			if !yield(j) {
				return
			}
		}
	}
	return c, seq
}

func TestDelayPlaceDoesNotAllocate(t *testing.T) {
	c, seq := placeFixture(t)
	d, err := sched.NewDelayPlacer(sched.DelayParams{IORateBiasing: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]sched.Placer{"delay": d, "fit(delay)": sched.NewResourceFit(d)} {
		allocs := placeAllocs(c, p, seq)
		if allocs != 0 {
			t.Errorf("%s: Place allocates %.1f times a call, want 0 once its per-job table has grown: it runs on every offer", name, allocs)
		}
	}
}

// placeAllocs is how many times a call p.Place allocates when offered
// placeFixture's nodes in turn, a map slot at a time, as time moves on.
func placeAllocs(c *fakeCluster, p sched.Placer, seq func(func(*sched.Job) bool)) float64 {
	n := cluster.NodeID(0)
	return testing.AllocsPerRun(200, func() {
		c.now += 0.01
		p.Place(c, sched.Offer{Node: n, Slot: sched.MapSlot}, seq)
		n = (n + 7) % 600
	})
}

// BenchmarkDelayPlace offers nodes round-robin to the delay placer over
// 200 candidate jobs, without launching: most offers skip most jobs, the
// placer's worst case.
func BenchmarkDelayPlace(b *testing.B) {
	c, seq := placeFixture(b)
	d, err := sched.NewDelayPlacer(sched.DelayParams{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := cluster.NodeID(0)
	for b.Loop() {
		c.now += 0.001
		d.Place(c, sched.Offer{Node: n, Slot: sched.MapSlot}, seq)
		n = (n + 7) % 600
	}
}
