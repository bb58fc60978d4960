package sched_test

import (
	"fmt"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// BenchmarkAssign measures one decision of every registered policy on a
// 600-node cluster (30 racks of 20, 6 containers a node) holding 200 jobs
// over 200 pools, as the NAS set-up does, at three numbers of pending maps
// (1,000, 10,000 and 100,000 in all). Every map is pending and every job's
// reduces are enabled, so each policy has its widest choice. A policy
// whose cost grows tenfold with each step scans pending tasks where an
// index would do; docs/performance.md lists the figures.
//
//	go test ./sched -run '^$' -bench 'Assign/' -benchtime 1000x
func BenchmarkAssign(b *testing.B) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6})
	if err != nil {
		b.Fatal(err)
	}
	for _, pending := range []int{1000, 10000, 100000} {
		for _, name := range sched.PolicyNames() {
			b.Run(fmt.Sprintf("%s/pending=%d", name, pending), func(b *testing.B) {
				c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.AnySlot: 3600},
					free: map[cluster.NodeID]int{}}
				for n := range topo.NumNodes() {
					c.free[cluster.NodeID(n)] = 1
				}
				const jobs = 200
				for i := range jobs {
					f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(pending/jobs, cluster.NoWriter)
					c.jobs = append(c.jobs, &sched.Job{Index: i, Pool: fmt.Sprint("user", i), Submit: float64(i),
						NumMaps: pending / jobs, NumReduces: 10, ReducesEnabled: true,
						Maps: sched.NewMapIndex(topo, &f), Input: &f,
						MapOutputByRack: make([]float64, topo.NumRacks())})
				}
				p, err := sched.NewPolicy(name, nil)
				if err != nil {
					b.Fatal(err)
				}
				if jo, ok := p.(sched.JobObserver); ok {
					for _, j := range c.jobs {
						jo.JobAdded(c, j)
					}
				}
				b.ReportAllocs()
				n := cluster.NodeID(0)
				cpu0 := processCPU()
				for b.Loop() {
					p.Assign(c, sched.Offer{Node: n, Slot: sched.AnySlot})
					n = (n + 7) % cluster.NodeID(topo.NumNodes())
				}
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
