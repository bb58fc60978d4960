package network

import (
	"math/rand/v2"
	"testing"
)

// TestIncrementalMatchesFullSolves drives, through churnPair, the same
// random churn (adds, removals, completions) through a network that takes
// the incremental fast path and one that re-solves from scratch on every
// change, and checks that every rate, completion time and link byte count
// agrees to 1e-9 relative: the fast path is an exact shortcut, not an
// approximation.
func TestIncrementalMatchesFullSolves(t *testing.T) {
	var fast, total int
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		caps, flows := randomScenario(rng)
		// Roomy links so that many capped flows leave them unsaturated.
		for i := range caps {
			caps[i] *= 1 + 20*rng.Float64()
		}
		step := 0
		st := churnPair(t, seed, caps, 300, 1, func(rng *rand.Rand) ([]LinkID, float64, float64) {
			f := flows[step%len(flows)]
			step++
			return f.path, 1 + 100*rng.Float64(), f.cap
		})
		fast += st.FastAdds + st.FastDrops
		total += st.Solves + st.FastAdds + st.FastDrops
	}
	if fast == 0 {
		t.Fatal("the fast path never ran: the test does not exercise it")
	}
	t.Logf("%d of %d changes took the fast path", fast, total)
}
