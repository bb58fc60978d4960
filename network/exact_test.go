package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sameTo1e9 reports whether a and b agree to 1e-9 relative (absolute
// below 1): the exact mode and full solves sum rates in different orders,
// so they agree to rounding, not bit for bit.
func sameTo1e9(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// churnPair drives the same random churn through a network in the exact
// mode and one that solves in full at every change (the reference), and
// fails at the first observable difference beyond 1e-9 relative: a rate,
// the next completion, a completion's flow or finish time, the bytes a
// removed flow moved, a link's byte count. After every solve the exact
// mode's bookkeeping is checked against its flows (exactStateErr). Some
// steps batch several changes at one instant, as a simulator does.
func churnPair(t *testing.T, seed uint64, caps []float64, steps int, dt float64, flow func(*rand.Rand) ([]LinkID, float64, float64)) Stats {
	t.Helper()
	return churnPairWith(t, seed, caps, steps, dt, func(*Network[int]) {}, flow)
}

// churnPairWith is churnPair on networks that setup prepares before the
// first flow.
func churnPairWith(t *testing.T, seed uint64, caps []float64, steps int, dt float64, setup func(*Network[int]), flow func(*rand.Rand) ([]LinkID, float64, float64)) Stats {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	exact, _ := New[int](caps)
	full, _ := New[int](caps)
	full.fullOnly = true
	setup(exact)
	setup(full)
	var solveErr error
	exact.onSolve = func() {
		if solveErr == nil {
			solveErr = exactStateErr(exact)
		}
	}
	var ids []FlowID
	now := 0.0
	for step := range steps {
		p, bytes, c := flow(rng)
		a, errA := exact.AddFlow(now, p, bytes, c, step)
		b, errB := full.AddFlow(now, p, bytes, c, step)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("seed %d step %d: AddFlow gave (%d, %v) and (%d, %v); want the same ID", seed, step, a, errA, b, errB)
		}
		ids = append(ids, a)
		for rng.IntN(4) == 0 {
			id := ids[rng.IntN(len(ids))]
			ta, oka := exact.Remove(now, id)
			tb, okb := full.Remove(now, id)
			if oka != okb || !sameTo1e9(ta, tb) {
				t.Fatalf("seed %d step %d: Remove(%d) = %v, %v in the exact mode, %v, %v with full solves", seed, step, id, ta, oka, tb, okb)
			}
		}
		if rng.IntN(3) == 0 {
			continue // more changes at this instant
		}
		if err := exactStateErr(exact); err != nil || solveErr != nil {
			t.Fatalf("seed %d step %d: %v (after a solve: %v)", seed, step, err, solveErr)
		}
		for _, id := range ids {
			if ra, rb := exact.Rate(id), full.Rate(id); !sameTo1e9(ra, rb) {
				t.Fatalf("seed %d step %d: flow %d rate %v in the exact mode, %v with full solves (the max-min rates are unique)", seed, step, id, ra, rb)
			}
		}
		ta, oka := exact.NextCompletion()
		tb, okb := full.NextCompletion()
		if oka != okb || (oka && !sameTo1e9(ta, tb)) {
			t.Fatalf("seed %d step %d: NextCompletion = %v, %v in the exact mode, %v, %v with full solves", seed, step, ta, oka, tb, okb)
		}
		if rng.IntN(2) == 0 {
			now += dt * rng.Float64()
		} else if oka {
			now = max(now, ta)
		}
		ca := append([]Completed[int](nil), exact.PopCompleted(now)...)
		cb := full.PopCompleted(now)
		if len(ca) != len(cb) {
			t.Fatalf("seed %d step %d: %d completions by %v in the exact mode, %d with full solves", seed, step, len(ca), now, len(cb))
		}
		for i := range ca {
			if ca[i].ID != cb[i].ID || !sameTo1e9(ca[i].Finish, cb[i].Finish) {
				t.Fatalf("seed %d step %d: completion %d is flow %d at %v in the exact mode, flow %d at %v with full solves",
					seed, step, i, ca[i].ID, ca[i].Finish, cb[i].ID, cb[i].Finish)
			}
		}
		for l := range caps {
			if ba, bb := exact.LinkBytes(LinkID(l)), full.LinkBytes(LinkID(l)); !sameTo1e9(ba, bb) {
				t.Fatalf("seed %d step %d: link %d carried %v bytes in the exact mode, %v with full solves", seed, step, l, ba, bb)
			}
		}
	}
	if solveErr != nil {
		t.Fatalf("seed %d: after a solve: %v", seed, solveErr)
	}
	return exact.Stats()
}

// TestExactMatchesFullSolvesOnSmallNetworks runs churn on networks of one
// to eight links whose capacities, caps and sizes are often small
// integers, so that fair shares tie between links, with paths that may
// list a link twice.
func TestExactMatchesFullSolvesOnSmallNetworks(t *testing.T) {
	for seed := uint64(1); seed <= 600; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		caps := make([]float64, 1+rng.IntN(8))
		for i := range caps {
			if rng.IntN(2) == 0 {
				caps[i] = float64(1 + rng.IntN(4))
			} else {
				caps[i] = 0.5 + 4*rng.Float64()
			}
		}
		if rng.IntN(4) == 0 {
			caps = append(caps, Unlimited)
		}
		churnPair(t, seed, caps, 200, 3, func(rng *rand.Rand) ([]LinkID, float64, float64) {
			p := randomPath(rng, len(caps), 4)
			c := 0.0
			if rng.IntN(3) == 0 || (len(p) == 1 && caps[p[0]] == Unlimited) {
				c = float64(1+rng.IntN(4)) / 2
			}
			return p, float64(1 + rng.IntN(20)), c
		})
	}
}

// TestExactMatchesFullSolvesOnACluster runs churn on a 200-node cluster
// with over-subscribed uplinks and a counting link, with thousands of
// flows at once: large groups whose level changes spread over many links.
func TestExactMatchesFullSolvesOnACluster(t *testing.T) {
	const nodes, racks = 200, 10
	caps, path := clusterTopology(nodes, racks)
	acct := LinkID(len(caps))
	caps = append(caps, Unlimited)
	for seed := uint64(1); seed <= 2; seed++ {
		st := churnPair(t, seed, caps, 2500, 0.01, func(rng *rand.Rand) ([]LinkID, float64, float64) {
			p, bytes, c := randomFlow(rng, nodes, path)
			if len(p) > 3 {
				p = append(p, acct)
			}
			return p, bytes, c
		})
		if st.PeakFlows < 1000 {
			t.Errorf("seed %d: at most %d flows at once; want over 1,000 for the test to exercise large groups", seed, st.PeakFlows)
		}
	}
}
