package sched

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFairShares200Pools measures one division of 3,600 slots among
// 200 pools with demands of 0 to 39 tasks, as the FB-2010 day with a pool
// per user asks of the fair order whenever the pools' demands change.
func BenchmarkFairShares200Pools(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]ShareRequest, 200)
	for i := range reqs {
		reqs[i] = ShareRequest{Demand: float64(rng.IntN(40)), Weight: 1}
	}
	var sc shareScratch
	var out []float64
	b.ReportAllocs()
	for b.Loop() {
		out = sc.fairShares(out, 3600, reqs)
	}
}
