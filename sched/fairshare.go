package sched

import (
	"math"
	"slices"
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
// sum(min(demand, max(minShare, λ·weight))) equals capacity, found among
// the breakpoints where a term changes slope (see segment), so it costs
// O(n log n).
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
type shareScratch struct {
	mins, ws, his, bps []float64
	// How the last call found its level: by the segment between two
	// breakpoints lo < hi (seg), with alloc(hi) = b above capacity. A
	// shareMemo keeps them to tell when a demand's move cannot move any
	// share (see shareMemo.unmoved).
	seg   bool
	hi, b float64
}

// fairShares is FairShares writing into out (resized to len(reqs)).
func (sc *shareScratch) fairShares(out []float64, capacity float64, reqs []ShareRequest) []float64 {
	out = slices.Grow(out[:0], len(reqs))[:len(reqs)]
	clear(out)
	sc.seg = false
	if capacity <= 0 || len(reqs) == 0 {
		return out
	}
	mins := slices.Grow(sc.mins[:0], len(reqs))[:len(reqs)]
	sc.mins = mins
	sumMin := 0.0
	for i, r := range reqs {
		mins[i] = min(max(r.MinShare, 0), max(r.Demand, 0)) // the built-ins order NaN and signed zeros as math.Min and math.Max do
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
	finite := true
	for i, r := range reqs {
		ws[i], his[i] = weight(r), max(r.Demand, mins[i])
		finite = finite && isFinite(ws[i]) && isFinite(his[i]) // mins[i] <= his[i]
	}
	// alloc(λ) = sum over i of clamp(λ·w_i, mins_i, demand_i); non-decreasing in λ.
	alloc := func(l float64) float64 {
		s := 0.0
		if finite {
			// Every bound is a finite number >= +0 and so is every λ
			// asked (see below), so no product is NaN or -0 and a
			// plain compare clamps exactly as clampShare, which must
			// also order NaNs and signed zeros, does.
			for i := range ws {
				v := l * ws[i]
				if v < mins[i] {
					v = mins[i]
				}
				if v > his[i] {
					v = his[i]
				}
				s += v
			}
			return s
		}
		for i := range ws {
			s += clampShare(l*ws[i], mins[i], his[i])
		}
		return s
	}
	// Breakpoints: the λ where a request leaves its minimum or reaches its demand.
	// Zero breakpoints (no minimum share; no demand) are kept out of the
	// search, which treats "a zero breakpoint reaches capacity" on its
	// own; otherwise the segment it finds has the same ends.
	bps := sc.bps[:0]
	defer func() { sc.bps = bps }()
	zeros := false
	lambda := 0.0
	for i := range ws {
		for _, v := range [2]float64{mins[i] / ws[i], his[i] / ws[i]} {
			if v > 0 {
				bps = append(bps, v)
				lambda = max(lambda, v)
				finite = finite && isFinite(v) // a λ asked is 0, a breakpoint or between two
			} else {
				zeros = true
			}
		}
	}
	if alloc(lambda) > capacity {
		if zeros && alloc(0) >= capacity {
			lambda = 0
		} else {
			// alloc is non-decreasing and linear between breakpoints:
			// find the least breakpoint where it reaches capacity and
			// the greatest one below it, then interpolate between them.
			lo, hi := segment(bps, capacity, alloc)
			a, b := alloc(lo), alloc(hi)
			if b == a {
				lambda = hi
			} else {
				lambda = lo + (hi-lo)*(capacity-a)/(b-a)
			}
			sc.seg, sc.hi, sc.b = finite, hi, b
		}
	}
	for i := range ws {
		out[i] = clampShare(lambda*ws[i], mins[i], his[i])
	}
	return out
}

// segment returns hi, the least of the breakpoints bps at which alloc
// reaches capacity, and lo, the greatest one below hi (0 if none): the
// ends a binary search over the sorted breakpoints finds, since alloc is
// non-decreasing (in floats too: each term is, and rounding a sum is
// monotone). It selects instead of sorting: each step evaluates alloc at
// a pivot and keeps only the breakpoints on the side still in question,
// so a call costs about as many evaluations as the binary search and no
// sort, which was most of the cost with hundreds of pools. bps is
// reordered; the caller must ensure alloc(max(bps)) >= capacity.
func segment(bps []float64, capacity float64, alloc func(float64) float64) (lo, hi float64) {
	hi = math.Inf(1)
	for len(bps) > 0 {
		p := median3(bps[0], bps[len(bps)/2], bps[len(bps)-1])
		keep := bps[:0]
		if alloc(p) >= capacity {
			hi = p
			for _, v := range bps {
				if v < p {
					keep = append(keep, v)
				}
			}
		} else {
			lo = max(lo, p)
			for _, v := range bps {
				if v > p {
					keep = append(keep, v)
				}
			}
		}
		bps = keep
	}
	return lo, hi
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return v-v == 0 }

// median3 returns the middle of three values.
func median3(a, b, c float64) float64 {
	return max(min(a, b), min(max(a, b), c))
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
	// seg, hi and b are the last computation's segment (scratch's).
	seg   bool
	hi, b float64
	// gen counts the recomputations, so that what is derived from out
	// (a pool's job order) knows when out may have changed.
	gen uint64
}

// shares makes m.out fairShares(capacity, reqs), recomputing only when the
// inputs differ from the remembered ones. The memo keeps reqs when it
// recomputes; the caller must not use reqs afterwards and gets back an
// empty buffer (with capacity) to build the next request list in.
func (m *shareMemo) shares(sc *shareScratch, capacity float64, reqs []ShareRequest) (spare []ShareRequest) {
	if m.ok && math.Float64bits(m.capacity) == math.Float64bits(capacity) {
		if sameRequests(m.reqs, reqs) {
			return reqs[:0]
		}
		if m.unmoved(reqs) {
			spare = m.reqs[:0]
			m.reqs = reqs
			return spare
		}
	}
	m.out = sc.fairShares(m.out, capacity, reqs)
	m.seg, m.hi, m.b = sc.seg, sc.hi, sc.b
	m.gen++
	spare = m.reqs[:0]
	m.ok, m.capacity, m.reqs = true, capacity, reqs
	return spare
}

// unmoved reports whether reqs, which differ from the remembered requests,
// give the remembered shares bit for bit without a computation: when one
// request's demand moved and nothing else did, and the request stayed above
// the level's segment before and after. In a backlog that is most demand
// changes: a pool that wants more than its share still wants more after a
// task ends. Why it is exact: the last computation found its level between
// breakpoints lo < hi with alloc(hi) = b > capacity (every bound finite).
// The moved request's upper breakpoint lies above hi both times, and hi
// times its weight stays at or below its demand both times, so its term in
// alloc, at lo, at hi and at the level, is level x weight (or its minimum)
// either way; the breakpoints at or below hi, the sums a and b, the search's
// ends (unique, alloc being monotone), the level and every share are the
// same operations on the same numbers.
func (m *shareMemo) unmoved(reqs []ShareRequest) bool {
	if !m.seg || len(reqs) != len(m.reqs) {
		return false
	}
	moved := -1
	for i := range reqs {
		if sameRequest(m.reqs[i], reqs[i]) {
			continue
		}
		if moved >= 0 {
			return false
		}
		moved = i
	}
	return moved < 0 || m.unmovedAt(moved, reqs[moved])
}

// unmovedAt is unmoved for requests that are the remembered ones but for
// request i, which is n.
func (m *shareMemo) unmovedAt(i int, n ShareRequest) bool {
	if !m.seg {
		return false
	}
	o := m.reqs[i]
	if math.Float64bits(o.MinShare) != math.Float64bits(n.MinShare) ||
		math.Float64bits(o.Weight) != math.Float64bits(n.Weight) {
		return false
	}
	w := weight(n)
	for _, r := range [2]ShareRequest{o, n} {
		lo := min(max(r.MinShare, 0), max(r.Demand, 0))
		hi := max(r.Demand, lo)
		if !isFinite(hi) || !(hi/w > m.hi) || !(m.hi*w <= hi) {
			return false
		}
	}
	// The minimum (and so the minimums' sum) must not move either.
	mo := min(max(o.MinShare, 0), max(o.Demand, 0))
	mn := min(max(n.MinShare, 0), max(n.Demand, 0))
	return math.Float64bits(mo) == math.Float64bits(mn) && m.b > m.capacity
}

// patch makes request at[k] of the remembered ones reqs[k], for every k,
// and m.out their shares at the remembered capacity: what shares gives for
// the patched list, at the cost of the requests that moved rather than a
// pass over all of them. A caller that knows which requests an event can
// have moved (a fair order knows which jobs its events named) uses it
// instead of building the whole list. m must hold a computation (m.ok),
// and at must not repeat an index.
func (m *shareMemo) patch(sc *shareScratch, at []int32, reqs []ShareRequest) {
	if len(at) == 1 && m.unmovedAt(int(at[0]), reqs[0]) {
		m.reqs[at[0]] = reqs[0]
		return
	}
	for k, i := range at {
		m.reqs[i] = reqs[k]
	}
	m.out = sc.fairShares(m.out, m.capacity, m.reqs)
	m.seg, m.hi, m.b = sc.seg, sc.hi, sc.b
	m.gen++
}

// redivide makes m.out the shares of the remembered requests at a new
// capacity: what shares gives for the same requests and that capacity,
// without a copy of the requests to compare. m must hold a computation
// (m.ok).
func (m *shareMemo) redivide(sc *shareScratch, capacity float64) {
	m.out = sc.fairShares(m.out, capacity, m.reqs)
	m.seg, m.hi, m.b = sc.seg, sc.hi, sc.b
	m.gen++
	m.capacity = capacity
}

// forget makes the next shares call recompute whatever its inputs.
func (m *shareMemo) forget() { m.ok = false }

// sameRequests reports whether a and b are the same requests bit for bit.
func sameRequests(a, b []ShareRequest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameRequest(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameRequest reports whether a and b are the same request bit for bit.
func sameRequest(a, b ShareRequest) bool {
	return math.Float64bits(a.Demand) == math.Float64bits(b.Demand) &&
		math.Float64bits(a.MinShare) == math.Float64bits(b.MinShare) &&
		math.Float64bits(a.Weight) == math.Float64bits(b.Weight)
}
