package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIncrementalMatchesFullSolves drives the same random churn (adds,
// removals, completions) through a network that takes the incremental fast
// path and one that re-solves from scratch on every change, and checks that
// every rate, completion time and link byte count agrees to 1e-9 relative:
// the fast path is an exact shortcut, not an approximation.
func TestIncrementalMatchesFullSolves(t *testing.T) {
	var fast, total int
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		caps, flows := randomScenario(rng)
		// Roomy links so that many capped flows leave them unsaturated.
		for i := range caps {
			caps[i] *= 1 + 20*rng.Float64()
		}
		inc, _ := New[any](caps)
		full, _ := New[any](caps)
		full.fullOnly = true
		var ids []FlowID
		now := 0.0
		for step := range 300 {
			f := flows[step%len(flows)]
			bytes := 1 + 100*rng.Float64()
			a, errA := inc.AddFlow(now, f.path, bytes, f.cap, step)
			b, errB := full.AddFlow(now, f.path, bytes, f.cap, step)
			if (errA == nil) != (errB == nil) || a != b {
				t.Fatalf("seed %d step %d: AddFlow gave (%d, %v) and (%d, %v)", seed, step, a, errA, b, errB)
			}
			ids = append(ids, a)
			if rng.IntN(6) == 0 {
				id := ids[rng.IntN(len(ids))]
				ta, _ := inc.Remove(now, id)
				tb, _ := full.Remove(now, id)
				near(t, seed, step, "transferred", ta, tb)
			}
			for _, id := range ids {
				near(t, seed, step, "rate", inc.Rate(id), full.Rate(id))
			}
			ta, oka := inc.NextCompletion()
			tb, okb := full.NextCompletion()
			if oka != okb {
				t.Fatalf("seed %d step %d: NextCompletion ok %v vs %v", seed, step, oka, okb)
			}
			if oka && rng.IntN(2) == 0 {
				near(t, seed, step, "next completion", ta, tb)
				now = math.Max(now, ta)
				ca, cb := inc.PopCompleted(now), full.PopCompleted(now)
				if len(ca) != len(cb) {
					t.Fatalf("seed %d step %d: %d vs %d completions at %v", seed, step, len(ca), len(cb), now)
				}
				for i := range ca {
					if ca[i].ID != cb[i].ID {
						t.Fatalf("seed %d step %d: completion %d is flow %d vs %d", seed, step, i, ca[i].ID, cb[i].ID)
					}
					near(t, seed, step, "finish", ca[i].Finish, cb[i].Finish)
				}
			}
			now += rng.Float64()
			inc.Advance(now)
			full.Advance(now)
			if t.Failed() {
				t.FailNow()
			}
		}
		for l := range caps {
			near(t, seed, -1, "link bytes", inc.LinkBytes(LinkID(l)), full.LinkBytes(LinkID(l)))
		}
		fast += inc.fastAdds + inc.fastDrops
		total += inc.solves + inc.fastAdds + inc.fastDrops
	}
	if fast == 0 {
		t.Fatal("the fast path never ran: the test does not exercise it")
	}
	t.Logf("%d of %d changes took the fast path", fast, total)
}

func near(t *testing.T, seed uint64, step int, what string, a, b float64) {
	t.Helper()
	if math.Abs(a-b) > 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) {
		t.Errorf("seed %d step %d: %s %v (incremental) vs %v (full solves); want equal to 1e-9", seed, step, what, a, b)
	}
}
