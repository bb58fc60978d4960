package network

import (
	"math/rand/v2"
	"testing"
)

// clusterTopology returns link capacities (bytes/s) for nodes in racks and
// a path builder. Per node: disk, NIC-up, NIC-down; per rack: uplink-up,
// uplink-down, sized 4:1 over-subscribed against the rack's NICs.
func clusterTopology(nodes, racks int) ([]float64, func(src, dst int) []LinkID) {
	const disk, nic = 150e6, 125e6
	perRack := nodes / racks
	caps := make([]float64, 0, 3*nodes+2*racks)
	for range nodes {
		caps = append(caps, disk, nic, nic)
	}
	for range racks {
		caps = append(caps, float64(perRack)*nic/4, float64(perRack)*nic/4)
	}
	path := func(src, dst int) []LinkID {
		p := []LinkID{LinkID(3 * src)}
		if src == dst {
			return p // local read: disk only
		}
		p = append(p, LinkID(3*src+1))
		if rs, rd := src/perRack, dst/perRack; rs != rd {
			p = append(p, LinkID(3*nodes+2*rs), LinkID(3*nodes+2*rd+1))
		}
		return append(p, LinkID(3*dst+2))
	}
	return caps, path
}

// randomPath returns a path of one to most of links distinct links, in
// random order; one path in eight lists its first link again at the end,
// which the solver must count twice.
func randomPath(rng *rand.Rand, links, most int) []LinkID {
	k := 1 + rng.IntN(min(links, most))
	p := make([]LinkID, k)
	for j, l := range rng.Perm(links)[:k] {
		p[j] = LinkID(l)
	}
	if rng.IntN(8) == 0 {
		p = append(p, p[0])
	}
	return p
}

// busyCluster is the benchmarks' network: a 600-node, 30-rack cluster
// solved as mode says, carrying 10,000 random flows from rng added at
// time 0 and solved once. next draws another flow from the same rng.
func busyCluster(b *testing.B, full bool, rng *rand.Rand) (n *Network[any], next func() ([]LinkID, float64, float64)) {
	b.Helper()
	const nodes, racks, flows = 600, 30, 10000
	caps, path := clusterTopology(nodes, racks)
	n, err := New[any](caps)
	if err != nil {
		b.Fatal(err)
	}
	n.fullOnly = full
	next = func() ([]LinkID, float64, float64) { return randomFlow(rng, nodes, path) }
	for range flows {
		p, bytes, c := next()
		if _, err := n.AddFlow(0, p, bytes, c, nil); err != nil {
			b.Fatal(err)
		}
	}
	n.NextCompletion()
	return n, next
}

func randomFlow(rng *rand.Rand, nodes int, path func(int, int) []LinkID) ([]LinkID, float64, float64) {
	src, dst := rng.IntN(nodes), rng.IntN(nodes)
	c := 0.0
	if rng.IntN(10) == 0 {
		c = 20e6 // some rate-limited transfers
	}
	return path(src, dst), 64e6 + 64e6*rng.Float64(), c
}

// solveModes are the two ways of solving the exact model that the
// benchmarks compare: the incremental solve (exact) and a full progressive
// filling at every change (full), which the exact mode used to do and
// which tests keep as the reference.
var solveModes = []struct {
	name string
	full bool
}{{"exact", false}, {"full", true}}

// BenchmarkSolve10kFlows600Nodes measures a change on a 600-node, 30-rack
// cluster (1,860 links) carrying 10,000 flows: a flow is added and the
// rates brought up to date, then it is removed (solved with the next
// addition).
func BenchmarkSolve10kFlows600Nodes(b *testing.B) {
	for _, m := range solveModes {
		b.Run(m.name, func(b *testing.B) {
			n, next := busyCluster(b, m.full, rand.New(rand.NewPCG(1, 2)))
			p, bytes, c := next()
			b.ReportAllocs()
			for b.Loop() {
				id, _ := n.AddFlow(0, p, bytes, c, nil)
				n.NextCompletion() // forces the solve
				n.Remove(0, id)    // dirty again; folded into the next iteration's solve
			}
		})
	}
}

// BenchmarkSolveBatch measures a wave of starts, as when a job's reduces
// begin fetching: 200 flows added at one instant on the busy cluster and
// placed by one solve, then removed together and solved again. The solve
// lists each link's new flows (lpf.newOn) and joins them to groups.
func BenchmarkSolveBatch(b *testing.B) {
	for _, m := range solveModes {
		b.Run(m.name, func(b *testing.B) {
			n, next := busyCluster(b, m.full, rand.New(rand.NewPCG(5, 6)))
			type start struct {
				path     []LinkID
				bytes, c float64
			}
			batch := make([]start, 200)
			for i := range batch {
				p, bytes, c := next()
				batch[i] = start{p, bytes, c}
			}
			ids := make([]FlowID, len(batch))
			b.ReportAllocs()
			for b.Loop() {
				for i, f := range batch {
					ids[i], _ = n.AddFlow(0, f.path, f.bytes, f.c, nil)
				}
				n.NextCompletion() // forces the solve
				for _, id := range ids {
					n.Remove(0, id)
				}
				n.NextCompletion()
			}
		})
	}
}

// BenchmarkChurn measures one step of a steady-state event loop with about
// 10,000 active flows on the same cluster: jump to the next completion,
// pop it, start as many new flows as completed. A step is two changes (an
// end and a start) and their solves.
func BenchmarkChurn(b *testing.B) {
	for _, m := range solveModes {
		b.Run(m.name, func(b *testing.B) {
			n, next := busyCluster(b, m.full, rand.New(rand.NewPCG(3, 4)))
			b.ReportAllocs()
			for b.Loop() {
				t, _ := n.NextCompletion()
				for range n.PopCompleted(t) {
					p, bytes, c := next()
					n.AddFlow(t, p, bytes, c, nil)
				}
			}
		})
	}
}

// BenchmarkQuantizedStep measures one quantum of the simulator's day at
// quantum 1 s: about 10,000 active flows on the same cluster, each
// crossing a rack also crossing a counting link, as the engine's cross-rack
// flows cross their cause's accounting link; a step moves the clock one
// quantum, pops the flows done by then and starts as many new ones, and
// solves once. Flow structs are reused as flows come and go, so after the
// first steps the active flows lie scattered in memory, as in a long run.
func BenchmarkQuantizedStep(b *testing.B) {
	const nodes, racks, flows = 600, 30, 10000
	caps, path := clusterTopology(nodes, racks)
	acct := LinkID(len(caps))
	caps = append(caps, Unlimited)
	n, err := New[any](caps)
	if err != nil {
		b.Fatal(err)
	}
	if err := n.SetQuantum(1); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	start := func(now float64) {
		p, bytes, c := randomFlow(rng, nodes, path)
		if src, dst := p[0]/3, p[len(p)-1]/3; int(src)/(nodes/racks) != int(dst)/(nodes/racks) {
			p = append(p, acct)
		}
		if _, err := n.AddFlow(now, p, bytes, c, nil); err != nil {
			b.Fatal(err)
		}
	}
	for range flows {
		start(0)
	}
	now := 0.0
	step := func() {
		now++
		for range n.PopCompleted(now) {
			start(now)
		}
		n.NextCompletion() // forces the due solve
	}
	for range 100 {
		step() // scatter the structs, as a run does
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}
