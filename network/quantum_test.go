package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuantizedHandExamples pins the quantized mode's rule on one 100 B/s
// link, where every number can be worked by hand.
func TestQuantizedHandExamples(t *testing.T) {
	type start struct {
		at, bytes, cap float64
	}
	cases := []struct {
		name    string
		quantum float64
		flows   []start
		want    []float64 // finish times, by flow
		why     string
	}{{
		name: "exact mode", quantum: 0,
		flows: []start{{0, 100, 0}, {0, 1000, 0}},
		want:  []float64{2, 11},
		why:   "both share 50 B/s until the small flow ends at 2 s; the large one then has 100 B/s for its last 900 B",
	}, {
		name: "departure within the quantum", quantum: 5,
		flows: []start{{0, 100, 0}, {0, 1000, 0}},
		want:  []float64{2, 12.5},
		why:   "the solve at 0 sees both flows and gives 50/50; the bandwidth freed at 2 s has no flow waiting for it and idles until the next solve at 5 s (one quantum after 0), so 750 B remain at 100 B/s",
	}, {
		name: "departure after the quantum", quantum: 1,
		flows: []start{{0, 100, 0}, {0, 1000, 0}},
		want:  []float64{2, 11},
		why:   "the departure at 2 s is more than a quantum after the last solve, so it is re-solved at once, as in the exact mode",
	}, {
		name: "arrival on a full link waits for the solve", quantum: 1,
		flows: []start{{0, 1000, 0}, {0.5, 1000, 0}},
		want:  []float64{19, 20},
		why:   "the second flow finds no residual bandwidth at 0.5 s and starts at the solve at 1 s: 900 B and 1000 B at 50 B/s each until 19 s, then the second flow's last 100 B at 100 B/s",
	}, {
		name: "arrival on a full link takes bandwidth freed before the solve", quantum: 5,
		flows: []start{{0, 100, 0}, {0, 1000, 0}, {1, 200, 0}},
		want:  []float64{2, 15, 6},
		why:   "the third flow finds the link full at 1 s and waits; the 50 B/s the first frees at 2 s go to it at once (up to the link's fair share at the last solve, 50 B/s), so it ends at 6 s; what it frees then idles until the solve at 10 s, after which the second has its last 500 B at 100 B/s",
	}, {
		name: "a waiting flow is raised only to the link's last fair share", quantum: 5,
		flows: []start{{0, 100, 0}, {0, 100, 0}, {0, 1000, 0}, {1, 1000, 0}},
		want:  []float64{3, 3, 65.0 / 3, 68.0 / 3},
		why:   "the solve at 0 gives each of three flows 100/3 B/s; the fourth waits from 1 s; the two small flows end at 3 s and free 200/3 B/s, of which the waiting flow takes the link's fair share, 100/3, while the rest idles until the solve at 5 s; from then on the two large flows share the link and the last one ends alone at 100 B/s",
	}, {
		name: "arrival takes spare bandwidth at once", quantum: 5,
		flows: []start{{0, 1000, 30}, {0, 10, 0}, {1, 100, 0}},
		want:  []float64{1000.0 / 30, 10.0 / 70, 1 + 100.0/70},
		why:   "the solve at 0 gives the capped flow 30 B/s and the small one 70; the 70 B/s it frees cannot go to the capped flow, so the flow starting at 1 s takes them at once, without waiting for the solve at 5 s",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := mustNew(t, 100)
			if err := n.SetQuantum(c.quantum); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(c.flows))
			ids := map[FlowID]int{}
			next := 0
			for next < len(c.flows) || n.ActiveFlows() > 0 {
				tc, ok := n.NextCompletion()
				if next < len(c.flows) && (!ok || c.flows[next].at < tc) {
					id := mustAdd(t, n, c.flows[next].at, []LinkID{0}, c.flows[next].bytes, c.flows[next].cap)
					ids[id] = next
					next++
					continue
				}
				for _, done := range n.PopCompleted(tc) {
					got[ids[done.ID]] = done.Finish
				}
			}
			for i := range got {
				if !approx(got[i], c.want[i]) {
					t.Errorf("flow %d finished at %v, want %v: %s", i, got[i], c.want[i], c.why)
				}
			}
		})
	}
}

// TestQuantizedKeepsLinksFeasibleAndSolvesExactly drives random churn
// through quantized networks and checks, at every step, that no link
// carries more than its capacity and no flow exceeds its cap (provisional
// rates only use spare bandwidth), that every solve yields the exact
// max-min rates of the flows then active, that solves are at least one
// quantum apart, and that every flow completes with all its bytes.
func TestQuantizedKeepsLinksFeasibleAndSolvesExactly(t *testing.T) {
	var provisional, handOffs int
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		caps, flows := randomScenario(rng)
		q := []float64{0.05, 0.5, 3}[seed%3]
		n := mustNew(t, caps...)
		if err := n.SetQuantum(q); err != nil {
			t.Fatal(err)
		}
		type live struct {
			f     randFlow
			bytes float64
		}
		active := map[FlowID]live{}
		lastSolves, lastSolveAt := 0, math.Inf(-1)
		now := 0.0
		for step := range 400 {
			f := flows[rng.IntN(len(flows))]
			bytes := 1 + 50*rng.Float64()
			id := mustAdd(t, n, now, f.path, bytes, f.cap)
			active[id] = live{f, bytes}
			if tc, ok := n.NextCompletion(); ok && rng.IntN(2) == 0 {
				now = math.Max(now, tc)
			} else {
				now += 0.3 * rng.Float64()
			}
			for _, c := range n.PopCompleted(now) {
				a, ok := active[c.ID]
				if !ok || c.Bytes != a.bytes {
					t.Fatalf("seed %d step %d: completion of flow %d (%v B) does not match a started flow", seed, step, c.ID, c.Bytes)
				}
				delete(active, c.ID)
			}
			load := make([]float64, len(caps))
			var cur []randFlow
			var rates []float64
			for id, a := range active {
				r := n.Rate(id)
				if r > a.f.cap*(1+relEps) {
					t.Fatalf("seed %d step %d: flow %d rate %v above its cap %v", seed, step, id, r, a.f.cap)
				}
				for _, l := range a.f.path {
					load[l] += r
				}
				cur, rates = append(cur, a.f), append(rates, r)
			}
			for l := range caps {
				if load[l] > caps[l]*(1+relEps) {
					t.Fatalf("seed %d step %d: link %d carries %v, above its capacity %v: provisional rates must use spare bandwidth only", seed, step, l, load[l], caps[l])
				}
			}
			if n.solves > lastSolves {
				if at := n.lastSolve; at != lastSolveAt && at < lastSolveAt+q*(1-relEps) {
					t.Fatalf("seed %d step %d: solves at %v and %v, closer than the quantum %v (only changes at a solve's own instant may be solved again at once)", seed, step, lastSolveAt, at, q)
				}
				lastSolves, lastSolveAt = n.solves, n.lastSolve
				if !n.dirty {
					want := referenceRates(caps, cur)
					for i := range rates {
						if math.Abs(rates[i]-want[i]) > 1e-9*math.Max(1, want[i]) {
							t.Fatalf("seed %d step %d: right after a solve a rate is %v, want the max-min rate %v", seed, step, rates[i], want[i])
						}
					}
				}
			}
		}
		n.Advance(math.Inf(1))
		for _, c := range n.PopCompleted(n.Now()) {
			delete(active, c.ID)
		}
		if len(active) != 0 {
			t.Fatalf("seed %d: %d flows never completed", seed, len(active))
		}
		provisional += n.provisional
		handOffs += n.handOffs
	}
	if provisional == 0 || handOffs == 0 {
		t.Fatalf("%d changes applied between solves, %d hand-offs: the test must exercise both quantized rules", provisional, handOffs)
	}
}

// TestQuantizedZeroIsExact checks that a zero quantum is the exact mode,
// bit for bit, on the churn trace the determinism test uses.
func TestQuantizedZeroIsExact(t *testing.T) {
	a := churnTrace(5)
	b := churnTraceWith(5, func(n *Network[any]) {
		if err := n.SetQuantum(0); err != nil {
			t.Fatal(err)
		}
	})
	if len(a) != len(b) {
		t.Fatalf("%d vs %d completions", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("completion %d at %v with quantum 0, %v in the exact mode; want identical", i, b[i], a[i])
		}
	}
}

func TestSetQuantumErrors(t *testing.T) {
	for _, q := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := mustNew(t, 1).SetQuantum(q); err == nil {
			t.Errorf("SetQuantum(%v) succeeded; want an error", q)
		}
	}
	n := mustNew(t, 1)
	mustAdd(t, n, 0, []LinkID{0}, 1, 0)
	if err := n.SetQuantum(1); err == nil {
		t.Error("SetQuantum after a flow was added succeeded; want an error (the mode cannot change mid-run)")
	}
}

// TestUnlimitedLinkOnlyCounts checks that an Unlimited link carries the
// bytes of the flows that cross it without limiting them.
func TestUnlimitedLinkOnlyCounts(t *testing.T) {
	// Links 0 and 2 carry 10 and 20 B/s; link 1 only counts. The counting
	// link stands first, in the middle and last in the flows' paths, as a
	// solve lists only a path's prefix up to its last bounded link. Max-min:
	// a and d split link 0 (5 each), c has the rest of link 2 (15), and b
	// runs at its cap.
	flows := []struct {
		name       string
		path       []LinkID
		bytes, cap float64
		rate       float64
	}{
		{"a", []LinkID{0, 1}, 10, 0, 5},
		{"b", []LinkID{1}, 30, 3, 3},
		{"c", []LinkID{1, 2}, 40, 0, 15},
		{"d", []LinkID{0, 1, 2}, 10, 0, 5},
	}
	for _, mode := range []struct {
		name string
		set  func(*Network[any]) error
	}{
		{"exact", func(*Network[any]) error { return nil }},
		{"quantized", func(n *Network[any]) error { return n.SetQuantum(1) }},
		{"full solves", func(n *Network[any]) error { n.fullOnly = true; return nil }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			n := mustNew(t, 10, Unlimited, 20)
			if err := mode.set(n); err != nil {
				t.Fatal(err)
			}
			ids := make([]FlowID, len(flows))
			for i, f := range flows {
				ids[i] = mustAdd(t, n, 0, f.path, f.bytes, f.cap)
			}
			for i, f := range flows {
				if r := n.Rate(ids[i]); !approx(r, f.rate) {
					t.Errorf("flow %s on %v runs at %v, want %v: the Unlimited link must not bind, wherever it stands in the path", f.name, f.path, r, f.rate)
				}
			}
			n.Advance(math.Inf(1))
			for l, want := range []float64{20, 90, 50} {
				if got := n.LinkBytes(LinkID(l)); !approx(got, want) {
					t.Errorf("link %d carried %v bytes, want %v (the bytes of every flow that crosses it)", l, got, want)
				}
			}
		})
	}
}

// TestRecycledFlowsKeepNoPastLife reuses flow structs through quantized
// churn and checks that a flow's old ID, its stale completion entries and
// its place in a waiting line never reach the flow that reuses its struct.
func TestRecycledFlowsKeepNoPastLife(t *testing.T) {
	n := mustNew(t, 100)
	if err := n.SetQuantum(1); err != nil {
		t.Fatal(err)
	}
	var old []FlowID
	seen := map[*flow[any]]bool{}
	reused := 0
	now := 0.0
	for round := range 50 {
		a := mustAdd(t, n, now, []LinkID{0}, 10, 0)
		b := mustAdd(t, n, now+0.1, []LinkID{0}, 1000, 0) // waits on the full link
		old = append(old, a, b)
		for _, id := range []FlowID{a, b} {
			if f := n.lookup(id); seen[f] {
				reused++
			} else {
				seen[f] = true
			}
		}
		if _, ok := n.Remove(now+0.2, b); !ok {
			t.Fatalf("round %d: removing flow %d failed", round, b)
		}
		tc, _ := n.NextCompletion()
		now = tc
		for _, c := range n.PopCompleted(now) {
			if c.ID != a {
				t.Fatalf("round %d: completion of flow %d, want only flow %d: a recycled struct must not complete under another ID", round, c.ID, a)
			}
		}
		now += 1.5 // past the quantum: the next change solves, compacting gone flows into the spare list
	}
	if reused == 0 {
		t.Fatal("no flow struct was reused: the test does not exercise recycling")
	}
	for _, id := range old {
		if r := n.Rate(id); r != 0 {
			t.Fatalf("old flow %d reports rate %v: an ID must stay dead after its struct is reused", id, r)
		}
		if _, ok := n.Remove(now, id); ok {
			t.Fatalf("old flow %d was removed again: an ID must stay dead after its struct is reused", id)
		}
	}
	c := mustAdd(t, n, now, []LinkID{0}, 100, 0)
	tc, ok := n.NextCompletion()
	if !ok || !approx(tc, now+1) {
		t.Fatalf("a fresh flow alone on the link completes at %v, want %v: stale state of a recycled struct must not slow it", tc, now+1)
	}
	if got := n.PopCompleted(tc); len(got) != 1 || got[0].ID != c {
		t.Fatalf("popped %v, want exactly the fresh flow %d", got, c)
	}
}

// TestUnpoppedFlowSurvivesItsArena pins the solve arenas' one hazard: a
// solve moves the active flows into the arena the solve before last
// filled, so a flow that finished in that arena and was not popped must
// move out first. On one 100 B/s link at quantum 1 s: the solve at 0
// gives a (50 B) and b (1,000 B) 50 B/s each, so a finishes at 1 s; the
// caller advances to 2.5 s without popping; b's lone rate is solved at
// 1 s, and a third flow starting at 2.5 s makes the solve at 2.5 s refill
// a's arena. a must then still pop as itself.
func TestUnpoppedFlowSurvivesItsArena(t *testing.T) {
	n := mustNew(t, 100)
	if err := n.SetQuantum(1); err != nil {
		t.Fatal(err)
	}
	a := mustAdd(t, n, 0, []LinkID{0}, 50, 0)
	b := mustAdd(t, n, 0, []LinkID{0}, 1000, 0)
	if r := n.Rate(a); r != 50 {
		t.Fatalf("a's rate after the first solve is %v, want 50: the link split between two flows", r)
	}
	n.Advance(2.5)
	c := mustAdd(t, n, 2.5, []LinkID{0}, 10, 0)
	if r := n.Rate(c); r != 50 {
		t.Fatalf("c's rate after the solve at 2.5 s is %v, want 50: the test needs that solve, which refills a's arena", r)
	}
	got := n.PopCompleted(2.5)
	if len(got) != 1 || got[0].ID != a || got[0].Bytes != 50 || got[0].Finish != 1 {
		t.Fatalf("popped %+v, want only flow %d (50 B, finished at 1 s): a finished flow must keep its own state when its arena is reused", got, a)
	}
	// b had 950 B left at 1 s, alone at 100 B/s until 2.5 s (800 B left),
	// then shares the link with c: c's 10 B end at 2.7 s, and the share c
	// frees idles until the solve at 3.5 s, by when b has 750 B left,
	// which it moves alone at 100 B/s.
	want := map[FlowID]float64{c: 2.7, b: 3.5 + 750/100.0}
	now := 2.5
	for len(want) > 0 {
		tc, ok := n.NextCompletion()
		if !ok {
			t.Fatalf("no completion pending, want flows %v: every flow must finish", want)
		}
		now = tc
		for _, done := range n.PopCompleted(now) {
			w, ok := want[done.ID]
			if !ok || !approx(done.Finish, w) {
				t.Fatalf("flow %d finished at %v; want %v (c = %d, b = %d): moving flows between arenas must not change their progress", done.ID, done.Finish, want, c, b)
			}
			delete(want, done.ID)
		}
	}
}
