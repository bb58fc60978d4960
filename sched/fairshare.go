package sched

import (
	"math"
	"slices"
	"sort"
)

// ShareRequest is one pool's (or job's) claim on slots: what it could use,
// what it is guaranteed, and its weight.
type ShareRequest struct {
	Demand   float64
	MinShare float64
	Weight   float64
}

// FairShares divides capacity among requests by max-min fairness with
// minimum guarantees: Algorithm 2 of the Fair Scheduler paper (Appendix A),
// generalised to weights as Hadoop's Fair Scheduler does.
//
// The three phases of the paper: (1) a request whose demand is below its
// minimum share gets its demand; (2) every other request gets its minimum
// share; (3) what is left is poured into the unfilled requests, the emptiest
// (by share/weight) first, until demands are met or slots run out. Phase 3
// is computed in closed form: the level λ at which
// sum(min(demand, max(minShare, λ·weight))) equals capacity, found over the
// sorted breakpoints, so it costs O(n log n).
//
// Where minimum shares exceed capacity the paper calls the allocation
// infeasible; as Hadoop does, minimum shares are then scaled down in
// proportion so that they fit. A weight of zero or less counts as 1. Shares
// are fractional: they are targets, compared against running task counts.
func FairShares(capacity float64, reqs []ShareRequest) []float64 {
	var sc shareScratch
	return sc.fairShares(nil, capacity, reqs)
}

// shareScratch holds FairShares' working buffers, so that a caller that
// recomputes shares on every change does not allocate each time.
type shareScratch struct{ mins, ws, his, bps []float64 }

// fairShares is FairShares writing into out (resized to len(reqs)).
func (sc *shareScratch) fairShares(out []float64, capacity float64, reqs []ShareRequest) []float64 {
	out = slices.Grow(out[:0], len(reqs))[:len(reqs)]
	clear(out)
	if capacity <= 0 || len(reqs) == 0 {
		return out
	}
	mins := slices.Grow(sc.mins[:0], len(reqs))[:len(reqs)]
	sc.mins = mins
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
	// Each request's weight and upper bound, once: alloc runs a dozen
	// times per call and a fair order calls this on every demand change.
	ws := slices.Grow(sc.ws[:0], len(reqs))[:len(reqs)]
	his := slices.Grow(sc.his[:0], len(reqs))[:len(reqs)]
	sc.ws, sc.his = ws, his
	for i, r := range reqs {
		ws[i], his[i] = weight(r), max(r.Demand, mins[i])
	}
	// alloc(λ) = sum over i of clamp(λ·w_i, mins_i, demand_i); non-decreasing in λ.
	alloc := func(l float64) float64 {
		s := 0.0
		for i := range ws {
			s += clampShare(l*ws[i], mins[i], his[i])
		}
		return s
	}
	// Breakpoints: the λ where a request leaves its minimum or reaches its demand.
	// Zero breakpoints (no minimum share; no demand) are kept out of the
	// sort, which is most of the cost with hundreds of pools: the search
	// below treats "a zero breakpoint reaches capacity" on its own, and
	// otherwise the segment it finds has the same ends.
	bps := sc.bps[:0]
	defer func() { sc.bps = bps }()
	zeros := false
	for i := range ws {
		for _, v := range [2]float64{mins[i] / ws[i], his[i] / ws[i]} {
			if v > 0 {
				bps = append(bps, v)
			} else {
				zeros = true
			}
		}
	}
	slices.Sort(bps)
	lambda := 0.0
	if len(bps) > 0 {
		lambda = bps[len(bps)-1]
	}
	if alloc(lambda) > capacity {
		if zeros && alloc(0) >= capacity {
			lambda = 0
		} else {
			// alloc is non-decreasing and linear between breakpoints:
			// find by binary search the first breakpoint where it
			// reaches capacity, then interpolate inside the segment
			// before it.
			k := sort.Search(len(bps), func(k int) bool { return alloc(bps[k]) >= capacity })
			hi := bps[k]
			lo := 0.0
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
	}
	for i := range ws {
		out[i] = clampShare(lambda*ws[i], mins[i], his[i])
	}
	return out
}

func weight(r ShareRequest) float64 {
	if r.Weight > 0 {
		return r.Weight
	}
	return 1
}

// clampShare is min(max(v, lo), hi). The built-ins treat NaN and signed
// zeros as math.Min and math.Max do, and are inlined.
func clampShare(v, lo, hi float64) float64 {
	return min(max(v, lo), hi)
}

// shareMemo remembers one fairShares computation, its inputs and its result,
// so that a caller asking again with the same inputs gets the stored result
// instead of a recomputation. The fair order recomputes on every demand
// change, and a profile of a day-long run showed most of those
// recomputations receive exactly the inputs of the previous one: a finished
// map changes no reduce demand, and a pool holding its whole demand keeps
// its share when another pool's demand moves. Since fairShares is a
// deterministic function of (capacity, reqs), a result reused only when
// every input matches bit for bit is the result a recomputation would give.
type shareMemo struct {
	ok       bool
	capacity float64
	reqs     []ShareRequest // owned by the memo
	out      []float64      // fairShares(capacity, reqs) while ok
}

// shares makes m.out fairShares(capacity, reqs), recomputing only when the
// inputs differ from the remembered ones. The memo keeps reqs when it
// recomputes; the caller must not use reqs afterwards and gets back an
// empty buffer (with capacity) to build the next request list in.
func (m *shareMemo) shares(sc *shareScratch, capacity float64, reqs []ShareRequest) (spare []ShareRequest) {
	if m.ok && math.Float64bits(m.capacity) == math.Float64bits(capacity) && sameRequests(m.reqs, reqs) {
		return reqs[:0]
	}
	m.out = sc.fairShares(m.out, capacity, reqs)
	spare = m.reqs[:0]
	m.ok, m.capacity, m.reqs = true, capacity, reqs
	return spare
}

// forget makes the next shares call recompute whatever its inputs.
func (m *shareMemo) forget() { m.ok = false }

// sameRequests reports whether a and b are the same requests bit for bit.
func sameRequests(a, b []ShareRequest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i].Demand) != math.Float64bits(b[i].Demand) ||
			math.Float64bits(a[i].MinShare) != math.Float64bits(b[i].MinShare) ||
			math.Float64bits(a[i].Weight) != math.Float64bits(b[i].Weight) {
			return false
		}
	}
	return true
}
