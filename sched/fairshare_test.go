package sched_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

func TestFairShares(t *testing.T) {
	type req = sched.ShareRequest
	tests := []struct {
		name     string
		capacity float64
		reqs     []req
		want     []float64
		why      string
	}{
		{
			name:     "paper's worked example (Appendix A)",
			capacity: 100,
			reqs:     []req{{Demand: 46, MinShare: 50}, {Demand: 18, MinShare: 10}, {Demand: 28, MinShare: 25}, {Demand: 16, MinShare: 15}},
			want:     []float64{46, 14, 25, 15},
			why: "phase 1: pool 1 wants 46 < its min 50 and gets 46; phase 2: the others get their mins (46+10+25+15=96); " +
				"phase 3: the 4 remaining slots go to the emptiest pool, pool 2 (10 -> 14), which stays the emptiest (14 < 15)",
		},
		{
			name:     "demand under capacity: everyone gets demand",
			capacity: 100,
			reqs:     []req{{Demand: 10}, {Demand: 20, MinShare: 5}, {Demand: 30, Weight: 3}},
			want:     []float64{10, 20, 30},
			why:      "total demand 60 fits in 100",
		},
		{
			name:     "equal weights, no mins: equal split",
			capacity: 12,
			reqs:     []req{{Demand: 100}, {Demand: 100}, {Demand: 100}},
			want:     []float64{4, 4, 4},
			why:      "12 slots over 3 equal, unsatisfiable claims",
		},
		{
			name:     "water-filling caps the small demand",
			capacity: 10,
			reqs:     []req{{Demand: 2}, {Demand: 10}, {Demand: 10}},
			want:     []float64{2, 4, 4},
			why:      "the first pool is full at 2; the other 8 slots split equally",
		},
		{
			name:     "weights 2:1 split 2/3 : 1/3",
			capacity: 9,
			reqs:     []req{{Demand: 100, Weight: 2}, {Demand: 100, Weight: 1}},
			want:     []float64{6, 3},
			why:      "share/weight is levelled: 6/2 = 3/1",
		},
		{
			name:     "heavy pool with small demand leaves the rest to the light one",
			capacity: 9,
			reqs:     []req{{Demand: 2, Weight: 2}, {Demand: 100, Weight: 1}},
			want:     []float64{2, 7},
			why:      "the weight-2 pool wants only 2",
		},
		{
			name:     "zero or negative weight counts as 1",
			capacity: 10,
			reqs:     []req{{Demand: 100, Weight: 0}, {Demand: 100, Weight: -3}},
			want:     []float64{5, 5},
			why:      "both weights default to 1",
		},
		{
			name:     "min share is guaranteed, the rest goes to the other pool",
			capacity: 20,
			reqs:     []req{{Demand: 100, MinShare: 12}, {Demand: 100}},
			want:     []float64{12, 8},
			why:      "pool 1's min 12 is above the fair level; pool 2 gets what is left",
		},
		{
			name:     "min share below the fair level does not cap",
			capacity: 20,
			reqs:     []req{{Demand: 100, MinShare: 4}, {Demand: 100, MinShare: 4}},
			want:     []float64{10, 10},
			why:      "mins are floors, not targets",
		},
		{
			name:     "zero demand gets nothing despite a min share",
			capacity: 10,
			reqs:     []req{{Demand: 0, MinShare: 5}, {Demand: 100}},
			want:     []float64{0, 10},
			why:      "phase 1: a pool gets min(min share, demand)",
		},
		{
			name:     "infeasible mins are scaled proportionally",
			capacity: 10,
			reqs:     []req{{Demand: 100, MinShare: 10}, {Demand: 100, MinShare: 30}},
			want:     []float64{2.5, 7.5},
			why:      "mins 10+30=40 exceed 10; scaled by 1/4 as Hadoop does",
		},
		{
			name:     "infeasible mins are capped by demand before scaling",
			capacity: 10,
			reqs:     []req{{Demand: 10, MinShare: 20}, {Demand: 30, MinShare: 20}},
			want:     []float64{10.0 / 3, 20.0 / 3},
			why:      "effective mins min(20,10)=10 and 20 sum to 30 > 10, scaled by 1/3",
		},
		{
			name:     "zero capacity",
			capacity: 0,
			reqs:     []req{{Demand: 5, MinShare: 5}, {Demand: 5}},
			want:     []float64{0, 0},
			why:      "nothing to divide",
		},
		{
			name:     "negative capacity",
			capacity: -4,
			reqs:     []req{{Demand: 5}},
			want:     []float64{0},
			why:      "nothing to divide",
		},
		{
			name:     "fractional shares",
			capacity: 10,
			reqs:     []req{{Demand: 100}, {Demand: 100}, {Demand: 100}},
			want:     []float64{10.0 / 3, 10.0 / 3, 10.0 / 3},
			why:      "shares are targets, not whole slots",
		},
		{
			name:     "negative demand gets nothing",
			capacity: 10,
			reqs:     []req{{Demand: -3, MinShare: 2}, {Demand: 4}},
			want:     []float64{0, 4},
			why:      "a negative demand is no demand",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sched.FairShares(tc.capacity, tc.reqs)
			if len(got) != len(tc.want) {
				t.Fatalf("FairShares returned %d shares, want %d (one per request)", len(got), len(tc.want))
			}
			for i := range got {
				if !near(got[i], tc.want[i]) {
					t.Errorf("share %d = %v, want %v: %s (all shares %v)", i, got[i], tc.want[i], tc.why, got)
				}
			}
		})
	}
}

func TestFairSharesEmptyInput(t *testing.T) {
	for _, reqs := range [][]sched.ShareRequest{nil, {}} {
		if got := sched.FairShares(10, reqs); len(got) != 0 {
			t.Errorf("FairShares(10, %v) = %v, want no shares", reqs, got)
		}
	}
}

// shareWeight is a request's weight as FairShares counts it: a zero or
// negative weight counts as 1 (see the "zero or negative weight" case).
func shareWeight(r sched.ShareRequest) float64 {
	if r.Weight > 0 {
		return r.Weight
	}
	return 1
}

// TestFairSharesProperties checks, over seeded random inputs, the properties
// that define max-min fairness with minimum guarantees.
func TestFairSharesProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 1))
	const tol = 1e-7
	for iter := 0; iter < 3000; iter++ {
		n := 1 + rng.IntN(8)
		capacity := float64(rng.IntN(120))
		if rng.IntN(4) == 0 {
			capacity += rng.Float64()
		}
		reqs := make([]sched.ShareRequest, n)
		for i := range reqs {
			reqs[i].Demand = float64(rng.IntN(50))
			if rng.IntN(2) == 0 {
				reqs[i].MinShare = float64(rng.IntN(30))
			}
			if rng.IntN(2) == 0 {
				reqs[i].Weight = float64(1 + rng.IntN(4))
			}
		}
		got := sched.FairShares(capacity, reqs)
		if len(got) != n {
			t.Fatalf("case %d: %d shares for %d requests", iter, len(got), n)
		}
		sum, demand, sumMin := 0.0, 0.0, 0.0
		effMin := make([]float64, n)
		for i, r := range reqs {
			sum += got[i]
			demand += r.Demand
			effMin[i] = math.Min(r.MinShare, r.Demand)
			sumMin += effMin[i]
		}
		scale := 1.0
		if sumMin > capacity && sumMin > 0 {
			scale = capacity / sumMin
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("case %d: capacity %v, requests %+v, shares %v: "+format, append([]any{iter, capacity, reqs, got}, args...)...)
		}
		if sum > capacity+tol {
			fail("sum %v exceeds capacity", sum)
		}
		if sum > demand+tol {
			fail("sum %v exceeds total demand %v", sum, demand)
		}
		if want := math.Min(capacity, demand); math.Abs(sum-want) > tol {
			fail("sum %v, want min(capacity, demand) = %v: no slot may be left idle while someone wants it", sum, want)
		}
		for i, r := range reqs {
			if got[i] > r.Demand+tol {
				fail("share %d = %v exceeds its demand %v", i, got[i], r.Demand)
			}
			if lo := effMin[i] * scale; got[i] < lo-tol {
				fail("share %d = %v below its guaranteed min(min share, demand) %v (scaled by %v when mins exceed capacity)", i, got[i], lo, scale)
			}
		}
		// Max-min: if i is below j in share/weight, i is at its demand
		// (cannot use more) or j is held at its guaranteed minimum.
		w := shareWeight
		for i := range reqs {
			for j := range reqs {
				if got[i]/w(reqs[i]) < got[j]/w(reqs[j])-tol &&
					got[i] < reqs[i].Demand-tol && got[j] > effMin[j]*scale+tol {
					fail("share %d (%v, weight %v) is below share %d (%v, weight %v) though %d wants more and %d is above its minimum",
						i, got[i], w(reqs[i]), j, got[j], w(reqs[j]), i, j)
				}
			}
		}
	}
}

// sortedBreakpointShares is FairShares as first written: every breakpoint,
// zeros included, sorted and searched. It is the oracle for the faster
// search, which must give bit-identical shares (runs are compared byte for
// byte across versions).
func sortedBreakpointShares(capacity float64, reqs []sched.ShareRequest) []float64 {
	out := make([]float64, len(reqs))
	if capacity <= 0 || len(reqs) == 0 {
		return out
	}
	w := shareWeight
	clampv := func(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }
	mins := make([]float64, len(reqs))
	sumMin := 0.0
	for i, r := range reqs {
		mins[i] = math.Min(math.Max(r.MinShare, 0), math.Max(r.Demand, 0))
		sumMin += mins[i]
	}
	if sumMin > capacity {
		f := capacity / sumMin
		for i := range mins {
			mins[i] *= f
		}
	}
	alloc := func(l float64) float64 {
		s := 0.0
		for i, r := range reqs {
			s += clampv(l*w(r), mins[i], math.Max(r.Demand, mins[i]))
		}
		return s
	}
	var bps []float64
	for i, r := range reqs {
		bps = append(bps, mins[i]/w(r), math.Max(r.Demand, mins[i])/w(r))
	}
	sort.Float64s(bps)
	lambda := bps[len(bps)-1]
	if alloc(lambda) > capacity {
		k := sort.Search(len(bps), func(k int) bool { return alloc(bps[k]) >= capacity })
		hi, lo := bps[k], 0.0
		if k > 0 {
			lo = bps[k-1]
		}
		a, b := alloc(lo), alloc(hi)
		if b == a {
			lambda = hi
		} else {
			lambda = lo + (hi-lo)*(capacity-a)/(b-a)
		}
	}
	for i, r := range reqs {
		out[i] = clampv(lambda*w(r), mins[i], math.Max(r.Demand, mins[i]))
	}
	return out
}

// TestFairSharesMatchesSortedBreakpoints checks, on random requests with
// many zero demands and minimum shares (the case the faster search treats
// apart), that FairShares is bit-identical to the full sorted search.
func TestFairSharesMatchesSortedBreakpoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	pick := func(vals ...float64) float64 { return vals[rng.IntN(len(vals))] }
	for trial := range 5000 {
		n := 1 + rng.IntN(40)
		if trial%50 == 0 {
			n = 100 + rng.IntN(300) // a pool per user, as on the FB-2010 day
		}
		reqs := make([]sched.ShareRequest, n)
		for i := range reqs {
			reqs[i] = sched.ShareRequest{
				Demand:   pick(0, 0, 1, 3, 7.5, 40*rng.Float64(), 1000),
				MinShare: pick(0, 0, 0, 2, 10*rng.Float64()),
				Weight:   pick(0, 1, 1, 2, 0.5+rng.Float64()),
			}
		}
		capacity := pick(0, 1, 10, 60, 100*rng.Float64(), 3600)
		got, want := sched.FairShares(capacity, reqs), sortedBreakpointShares(capacity, reqs)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d: share %d is %v, the full sorted search gives %v; want bit-identical (capacity %v, requests %+v)", trial, i, got[i], want[i], capacity, reqs)
			}
		}
	}
}
