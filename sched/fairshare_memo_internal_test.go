package sched

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestShareMemoSkipsOnlyWhatCannotMove moves one request's demand at a time
// in random pools (some above their share, some below, some with minimum
// shares and weights) and checks that the memo's shares, whether it
// recomputed or found the move could not change them, equal a computation
// from scratch bit for bit, and that it did skip some computations (or the
// case would check nothing).
func TestShareMemoSkipsOnlyWhatCannotMove(t *testing.T) {
	tests := []struct {
		name     string
		seed     uint64
		pools    int
		capacity float64
	}{
		{"a backlog: every pool above its share", 1, 40, 100},
		{"some pools capped", 2, 30, 300},
		{"few pools, tight", 3, 4, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 7))
			reqs := make([]ShareRequest, tc.pools)
			for i := range reqs {
				reqs[i] = ShareRequest{Demand: float64(rng.IntN(40)), Weight: []float64{1, 1, 2, 0.5}[rng.IntN(4)]}
				if rng.IntN(5) == 0 {
					reqs[i].MinShare = float64(rng.IntN(5))
				}
			}
			var m shareMemo
			var sc shareScratch
			skipped := 0
			for step := range 3000 {
				i := rng.IntN(len(reqs))
				old := reqs[i].Demand
				reqs[i].Demand = max(0, reqs[i].Demand+float64(rng.IntN(7)-3))
				gen := m.gen
				in := append([]ShareRequest(nil), reqs...)
				m.shares(&sc, tc.capacity, in)
				if m.gen == gen && step > 0 && reqs[i].Demand != old {
					skipped++
				}
				want := FairShares(tc.capacity, reqs)
				for k := range want {
					if math.Float64bits(m.out[k]) != math.Float64bits(want[k]) {
						t.Fatalf("step %d (request %d's demand now %v): share %d = %v, want %v from scratch, bit for bit",
							step, i, reqs[i].Demand, k, m.out[k], want[k])
					}
				}
			}
			t.Logf("%d of 3000 moves needed no computation", skipped)
			if tc.name == "a backlog: every pool above its share" && skipped == 0 {
				t.Error("no move was skipped in a backlog: the shortcut never ran, so this case checks nothing")
			}
		})
	}
}
