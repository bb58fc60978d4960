package sched_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// indexFixture is smallTopo (rack 0: nodes 0-2, rack 1: nodes 3-5) with a
// four-block file:
//
//	block 0: nodes 0, 3   (both racks)
//	block 1: nodes 1, 4   (both racks)
//	block 2: nodes 2, 1   (rack 0 only)
//	block 3: nodes 4, 5   (rack 1 only)
func indexFixture(t *testing.T) (*cluster.Topology, *sched.MapIndex) {
	t.Helper()
	topo := smallTopo(t)
	f := fileWith(t, topo, []cluster.NodeID{0, 3}, []cluster.NodeID{1, 4}, []cluster.NodeID{2, 1}, []cluster.NodeID{4, 5})
	return topo, sched.NewMapIndex(topo, f)
}

func TestMapIndexLookups(t *testing.T) {
	type lookup func(x *sched.MapIndex) (int, bool)
	node := func(n cluster.NodeID) lookup { return func(x *sched.MapIndex) (int, bool) { return x.NodeLocal(n) } }
	rack := func(r cluster.RackID) lookup { return func(x *sched.MapIndex) (int, bool) { return x.RackLocal(r) } }
	anyMap := func(x *sched.MapIndex) (int, bool) { return x.Any() }
	tests := []struct {
		name   string
		take   []int
		lookup lookup
		want   int // -1: none
		why    string
	}{
		{"node-local: only replica on node 0 is block 0", nil, node(0), 0, "block 0 has a replica on node 0"},
		{"node-local: lowest index first", nil, node(1), 1, "blocks 1 and 2 both have a replica on node 1"},
		{"node-local: second replica counts", nil, node(5), 3, "block 3's second replica is on node 5"},
		{"node-local skips a taken map", []int{1}, node(1), 2, "block 1 is taken, block 2 is next on node 1"},
		{"node-local skips a taken map on another list", []int{1}, node(4), 3, "block 1 is taken, block 3 is next on node 4"},
		{"node-local: none when the node's maps are taken", []int{0}, node(3), -1, "node 3 only holds block 0"},
		{"rack-local: rack 0 lowest index", nil, rack(0), 0, "blocks 0, 1, 2 have a replica in rack 0"},
		{"rack-local: rack 1 skips taken maps", []int{0, 1}, rack(1), 3, "rack 1 holds blocks 0, 1, 3"},
		{"rack-local: none when the rack's maps are taken", []int{0, 1, 3}, rack(1), -1, "block 2 lives only in rack 0"},
		{"any: lowest index", nil, anyMap, 0, "all pending"},
		{"any: skips taken maps", []int{0, 1}, anyMap, 2, "blocks 0 and 1 are taken"},
		{"any: none when all are taken", []int{0, 1, 2, 3}, anyMap, -1, "nothing pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, x := indexFixture(t)
			for _, i := range tc.take {
				x.Take(i)
			}
			got, ok := tc.lookup(x)
			switch {
			case tc.want < 0 && ok:
				t.Errorf("got map %d, want none: %s", got, tc.why)
			case tc.want >= 0 && (!ok || got != tc.want):
				t.Errorf("got (%d, %v), want (%d, true): %s", got, ok, tc.want, tc.why)
			}
			if ok && !x.IsPending(got) {
				t.Errorf("lookup returned map %d, which is not pending: stale entries must be skipped", got)
			}
		})
	}
}

func TestMapIndexClosest(t *testing.T) {
	tests := []struct {
		name      string
		take      []int
		node      cluster.NodeID
		wantMap   int
		wantReach cluster.Reach
		wantOK    bool
	}{
		{"node-local first", nil, 5, 3, cluster.NodeLocal, true},
		{"node-local beats a lower-indexed rack-local map", nil, 4, 1, cluster.NodeLocal, true},
		{"rack-local when no replica on the node", []int{3}, 5, 0, cluster.RackLocal, true},
		{"off-rack when nothing in the rack", []int{0, 1, 3}, 5, 2, cluster.OffRack, true},
		{"none when nothing is pending", []int{0, 1, 2, 3}, 5, 0, cluster.OffRack, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, x := indexFixture(t)
			for _, i := range tc.take {
				x.Take(i)
			}
			i, reach, ok := x.Closest(tc.node)
			if ok != tc.wantOK || (ok && (i != tc.wantMap || reach != tc.wantReach)) {
				t.Errorf("Closest(%d) after taking %v = (%d, %v, %v), want (%d, %v, %v)",
					tc.node, tc.take, i, reach, ok, tc.wantMap, tc.wantReach, tc.wantOK)
			}
		})
	}
}

func TestMapIndexReach(t *testing.T) {
	_, x := indexFixture(t)
	tests := []struct {
		block int
		node  cluster.NodeID
		want  cluster.Reach
	}{
		{0, 0, cluster.NodeLocal},
		{0, 3, cluster.NodeLocal},
		{0, 1, cluster.RackLocal}, // replica on node 0, same rack
		{0, 5, cluster.RackLocal}, // replica on node 3, same rack
		{2, 0, cluster.RackLocal},
		{2, 4, cluster.OffRack}, // both replicas in rack 0
		{3, 2, cluster.OffRack}, // both replicas in rack 1
		{3, 3, cluster.RackLocal},
	}
	for _, tc := range tests {
		if got := x.Reach(tc.block, tc.node); got != tc.want {
			t.Errorf("Reach(block %d, node %d) = %v, want %v: the nearest replica decides", tc.block, tc.node, got, tc.want)
		}
	}
	// Reach does not depend on whether the map is pending.
	x.Take(0)
	if got := x.Reach(0, 0); got != cluster.NodeLocal {
		t.Errorf("Reach(0, 0) after Take(0) = %v, want node: reach is about the input, not the pending state", got)
	}
}

func TestMapIndexTakeReturnPending(t *testing.T) {
	_, x := indexFixture(t)
	steps := []struct {
		name        string
		op          func()
		wantPending int
		pending     []bool // IsPending for maps 0..3
	}{
		{"fresh index has every map pending", func() {}, 4, []bool{true, true, true, true}},
		{"take 2", func() { x.Take(2) }, 3, []bool{true, true, false, true}},
		{"taking 2 again is a no-op", func() { x.Take(2) }, 3, []bool{true, true, false, true}},
		{"take 0", func() { x.Take(0) }, 2, []bool{false, true, false, true}},
		{"return 2", func() { x.Return(2) }, 3, []bool{false, true, true, true}},
		{"returning a pending map is a no-op", func() { x.Return(1) }, 3, []bool{false, true, true, true}},
	}
	for _, s := range steps {
		s.op()
		if got := x.Pending(); got != s.wantPending {
			t.Errorf("after %q: Pending() = %d, want %d", s.name, got, s.wantPending)
		}
		for i, want := range s.pending {
			if got := x.IsPending(i); got != want {
				t.Errorf("after %q: IsPending(%d) = %v, want %v", s.name, i, got, want)
			}
		}
	}
}

func TestMapIndexReturnReaddsToEveryList(t *testing.T) {
	_, x := indexFixture(t)
	x.Take(0)
	// Drain block 0's lists so its entries are gone, not merely stale.
	if i, ok := x.NodeLocal(0); ok {
		t.Fatalf("NodeLocal(0) after Take(0) = %d, want none", i)
	}
	if i, ok := x.NodeLocal(3); ok {
		t.Fatalf("NodeLocal(3) after Take(0) = %d, want none", i)
	}
	x.Return(0)
	checks := []struct {
		name string
		got  func() (int, bool)
	}{
		{"NodeLocal(0)", func() (int, bool) { return x.NodeLocal(0) }},
		{"NodeLocal(3)", func() (int, bool) { return x.NodeLocal(3) }},
		{"RackLocal(0)", func() (int, bool) { return x.RackLocal(0) }},
		{"RackLocal(1)", func() (int, bool) { return x.RackLocal(1) }},
		{"Any()", func() (int, bool) { return x.Any() }},
	}
	for _, c := range checks {
		if i, ok := c.got(); !ok || i != 0 {
			t.Errorf("%s after Return(0) = (%d, %v), want (0, true): a returned map is findable wherever its replicas are", c.name, i, ok)
		}
	}
}

func TestMapIndexRetakenMapIsNotOfferedFromDuplicateEntries(t *testing.T) {
	_, x := indexFixture(t)
	// Take and Return without any lookup in between leave two entries for
	// block 0 in each of its lists; both must go stale when it is retaken.
	x.Take(0)
	x.Return(0)
	x.Take(0)
	if got := x.Pending(); got != 3 {
		t.Errorf("Pending() = %d, want 3 after take, return, take of block 0", got)
	}
	if i, ok := x.NodeLocal(0); ok {
		t.Errorf("NodeLocal(0) = %d, want none: block 0 is taken", i)
	}
	if i, ok := x.Any(); !ok || i != 1 {
		t.Errorf("Any() = (%d, %v), want (1, true): block 0 is taken", i, ok)
	}
	x.Take(1)
	x.Take(2)
	x.Take(3)
	if i, ok := x.Any(); ok {
		t.Errorf("Any() = %d with every block taken, want none", i)
	}
}

// A returned (killed) map goes to the front of its lists, as Hadoop's
// failMap puts a failed map first, so it is retried before fresh ones.
func TestMapIndexReturnedMapComesFirst(t *testing.T) {
	_, x := indexFixture(t)
	x.Take(0)
	if i, _ := x.Any(); i != 1 {
		t.Fatalf("Any() after Take(0) = %d, want 1", i)
	}
	x.Return(0)
	if i, ok := x.Any(); !ok || i != 0 {
		t.Errorf("Any() after Return(0) = (%d, %v), want (0, true): a returned map is offered first", i, ok)
	}
	x.Take(1)
	if i, _ := x.NodeLocal(1); i != 2 {
		t.Fatalf("NodeLocal(1) after Take(1) = %d, want 2", i)
	}
	x.Return(1)
	if i, ok := x.NodeLocal(1); !ok || i != 1 {
		t.Errorf("NodeLocal(1) after Return(1) = (%d, %v), want (1, true): a returned map is offered first", i, ok)
	}
}

// TestMapIndexDropNode (indexFixture's file): once the engine gives the
// job's file replicas without a lost node and drops the node, the node is offered for none of
// the job's maps, and its rack only for maps with another replica there;
// a map returned later is indexed by the new replicas.
func TestMapIndexDropNode(t *testing.T) {
	topo := smallTopo(t)
	f := fileWith(t, topo, []cluster.NodeID{0, 3}, []cluster.NodeID{1, 4}, []cluster.NodeID{2, 1}, []cluster.NodeID{4, 5})
	x := sched.NewMapIndex(topo, f)
	*f = f.Without(func(n cluster.NodeID) bool { return n == 4 })
	x.DropNode(4)
	if i, ok := x.NodeLocal(4); ok {
		t.Errorf("node 4 was lost, yet NodeLocal(4) offers map %d", i)
	}
	x.Take(0)
	if i, ok := x.RackLocal(1); !ok || i != 3 {
		t.Errorf("RackLocal(1) = %d, %v; want map 3, whose replica on node 5 is still in rack 1 (map 1's only rack-1 replica was on node 4)", i, ok)
	}
	x.Take(3)
	if i, ok := x.RackLocal(1); ok {
		t.Errorf("RackLocal(1) = %d, want none: map 1 has no replica left in rack 1", i)
	}
	x.Take(1)
	x.Return(1)
	if i, ok := x.NodeLocal(1); !ok || i != 1 {
		t.Errorf("after map 1 returned, NodeLocal(1) = %d, %v; want map 1, listed first", i, ok)
	}
	if _, ok := x.NodeLocal(4); ok {
		t.Error("a returned map was indexed under the lost node 4")
	}
	if r := x.Reach(1, 4); r == cluster.NodeLocal {
		t.Error("Reach(map 1, node 4) is node-local, but its replica there was lost")
	}
}

// TestLocalMissesAnswerAsTheIndexAlone drives jobs whose map indexes share
// one LocalMisses beside copies that do not, through random launches,
// returns, lost nodes, departures and arrivals (which reuse the departed
// jobs' slots), asking every node after each step: a remembered miss must
// never hide a map the index alone would offer, nor a slot's old misses
// reach the job that takes it next.
func TestLocalMissesAnswerAsTheIndexAlone(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			topo := smallTopo(t)
			nodes := topo.NumNodes()
			misses := sched.NewLocalMisses(nodes)
			type pair struct {
				file       *cluster.File
				with, bare *sched.MapIndex
				blocks     int
			}
			newJob := func() *pair {
				var reps [][]cluster.NodeID
				blocks := 1 + rng.IntN(6)
				for range blocks {
					a := cluster.NodeID(rng.IntN(nodes))
					b := cluster.NodeID((int(a) + 1 + rng.IntN(nodes-1)) % nodes)
					reps = append(reps, []cluster.NodeID{a, b})
				}
				f := fileWith(t, topo, reps...)
				p := &pair{file: f, with: sched.NewMapIndex(topo, f), bare: sched.NewMapIndex(topo, f), blocks: blocks}
				p.with.UseMisses(misses)
				return p
			}
			jobs := []*pair{newJob(), newJob(), newJob()}
			for step := range 400 {
				p := jobs[rng.IntN(len(jobs))]
				var what string
				switch op := rng.IntN(6); op {
				case 0, 1:
					i := rng.IntN(p.blocks)
					p.with.Take(i)
					p.bare.Take(i)
					what = fmt.Sprintf("map %d taken", i)
				case 2:
					i := rng.IntN(p.blocks)
					p.with.Return(i)
					p.bare.Return(i)
					what = fmt.Sprintf("map %d returned", i)
				case 3:
					n := cluster.NodeID(rng.IntN(nodes))
					*p.file = p.file.Without(func(m cluster.NodeID) bool { return m == n })
					p.with.DropNode(n)
					p.bare.DropNode(n)
					what = fmt.Sprintf("node %d lost", n)
				case 4:
					k := rng.IntN(len(jobs))
					jobs[k].with.Release()
					jobs[k] = newJob()
					what = fmt.Sprintf("job %d left, another came", k)
				default:
					jobs = append(jobs, newJob())
					what = "a job came"
				}
				for k, q := range jobs {
					for n := range nodes {
						gi, gok := q.with.NodeLocal(cluster.NodeID(n))
						wi, wok := q.bare.NodeLocal(cluster.NodeID(n))
						if gi != wi || gok != wok {
							t.Fatalf("step %d (%s): job %d's NodeLocal(%d) = (%d, %v) with misses, (%d, %v) without: a remembered miss must answer as the index does",
								step, what, k, n, gi, gok, wi, wok)
						}
					}
				}
			}
		})
	}
}

// BenchmarkNodeLocalBacklog asks every job of a backlog, in turn, for a
// map on one node, as an offer's walk does (Delay's, MTS's first pass):
// 2,000 jobs of 5 maps on the 600-node cluster, most with nothing on the
// node asked. With misses, the jobs' indexes share a LocalMisses, as the
// job tracker gives them; without, each answer searches the job's own
// lists. An operation is one node asked of every job.
//
//	go test ./sched -run '^$' -bench NodeLocalBacklog
func BenchmarkNodeLocalBacklog(b *testing.B) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6})
	if err != nil {
		b.Fatal(err)
	}
	for _, shared := range []bool{false, true} {
		b.Run(fmt.Sprintf("misses=%v", shared), func(b *testing.B) {
			misses := sched.NewLocalMisses(topo.NumNodes())
			var xs []*sched.MapIndex
			for i := range 2000 {
				f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(5, cluster.NoWriter)
				x := sched.NewMapIndex(topo, &f)
				if shared {
					x.UseMisses(misses)
				}
				xs = append(xs, x)
			}
			found := 0
			b.ResetTimer()
			for op := range b.N {
				n := cluster.NodeID(op * 7919 % topo.NumNodes())
				for _, x := range xs {
					if _, ok := x.NodeLocal(n); ok {
						found++
					}
				}
			}
			b.ReportMetric(float64(found)/float64(b.N), "found/op")
		})
	}
}
