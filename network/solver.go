package network

import (
	"math"
	"slices"
)

// solver holds buffers reused across solves so that a solve allocates
// nothing once the network has reached its peak size.
type solver struct {
	start   []int32   // CSR offsets: link l's flows are members[start[l]:start[l+1]]
	members []int32   // flow indices, one entry per path occurrence
	fill    []fill    // per link: what the filling has left of it
	key     []float64 // per link: fair share when last refreshed (a lower bound, see minShare), +Inf once out
	queue   shareQueue
	top     int32   // the link minShare found
	cursor  []int32 // CSR fill cursor
	capped  []int32 // indices of capped flows, sorted by (cap, index)
	frozen  []bool

	// The filling's per-flow data, laid out densely by flow index: the
	// filling visits flows in link order, not in the order they sit in
	// memory, and reading each one's path and writing its rate through its
	// pointer made every freeze a cache miss.
	pstart []int32   // flow i's listed path (flow.nb) is paths[pstart[i]:pstart[i+1]]
	paths  []LinkID  // the listed paths of the solve's flows, in flow order
	rate   []float64 // flow i's rate once frozen
	caps   []float64 // flow i's cap (only read for capped flows)
}

// fill is one link's state during a filling, kept together because
// freezing a flow updates both for every link of its path and a share
// reads both.
type fill struct {
	rem float64 // capacity not yet given to frozen flows
	cnt int32   // unfrozen path occurrences
}

// solve computes exact max-min fair rates by progressive filling.
//
// All unfrozen flows rise together; the next constraint to bind is either
// the link with the smallest fair share rem/cnt (found with a shareQueue)
// or the smallest cap among unfrozen flows (found by walking flows sorted
// by cap). Binding flows are frozen and their rate is subtracted from every
// link on their path, which only raises those links' shares. Each path
// occurrence is touched a constant number of times; queue keys are
// refreshed lazily (see minShare), at most once per share increase, so a
// solve costs O(L + P + C log C) for P path entries and C capped flows,
// plus the queue's moves, at most 64 per key.
func (n *Network[T]) solve() {
	s := &n.sv
	L := len(n.links)

	// Per-link membership in CSR form, flows in the order added. Counting
	// links (Unlimited) never bind: their share is beyond any other link's
	// or cap, so the filling leaves them out (count 0), which changes no
	// rate. A flow lists only its path's prefix up to its last bounded
	// link (flow.nb), which leaves out the accounting links a caller puts
	// last without a test per path entry; a counting link before that is
	// listed, and its range is sized for all its flows, so a listing
	// never overruns it. Ranges of counting links are never read.
	s.fill = resize(s.fill, L)
	for l := range n.links {
		s.fill[l] = fill{rem: n.links[l].cap, cnt: n.links[l].flows}
		if n.links[l].counting {
			s.fill[l].cnt = 0
		}
	}
	s.start = resize(s.start, L+1)
	s.start[0] = 0
	for l := range L {
		s.start[l+1] = s.start[l] + n.links[l].flows
	}
	s.members = resize(s.members, int(s.start[L]))
	s.cursor = resize(s.cursor, L)
	copy(s.cursor, s.start[:L])

	// One pass over the flows, each read once: drop the ended ones
	// (keeping the order the rest were added in), re-base each active
	// flow's progress at now, since its rate is about to change, and list
	// it under its links and, if capped, for the cap order. The link
	// counts above are kept as flows start and end, so the lists can be
	// laid out before the pass.
	s.capped = s.capped[:0]
	s.pstart = resize(s.pstart, len(n.flows)+1)
	s.caps = resize(s.caps, len(n.flows))
	s.rate = resize(s.rate, len(n.flows))
	// Every active flow's listed path entries are listed under their
	// links, so the paths fit in the members' length.
	s.paths = resize(s.paths, len(s.members))
	p := int32(0)
	live := n.flows[:0]
	ar := n.nextArena()
	for _, f := range n.flows {
		if f.state != stateActive {
			n.recycle(f)
			continue
		}
		f = n.relocate(f, &ar[len(live)])
		f.rem0 = f.remaining(n.now)
		f.t0 = n.now
		i := int32(len(live))
		live = append(live, f)
		s.pstart[i] = p
		s.rate[i] = f.rate // kept by a flow the filling never reaches
		// Each link's count was kept exact as flows started and ended, so
		// its cursor stays inside its own range.
		for _, l := range f.path[:f.nb] {
			s.members[s.cursor[l]] = i
			s.cursor[l]++
			s.paths[p] = l
			p++
		}
		if !math.IsInf(f.cap, 1) {
			s.capped = append(s.capped, i)
			s.caps[i] = f.cap
		}
	}
	s.pstart[len(live)] = p
	clear(n.flows[len(live):])
	n.flows = live
	n.gone = 0
	flows := n.flows

	// Queue the links that carry flows by fair share.
	s.key = resize(s.key, L)
	s.queue.reset()
	for l := range n.links {
		s.key[l] = math.Inf(1)
		if k := &s.fill[l]; k.cnt > 0 {
			s.key[l] = k.rem / float64(k.cnt)
			s.queue.push(int32(l), s.key[l])
		}
	}
	if n.waiting != nil {
		for l := range n.links {
			k := &n.links[l]
			k.level = math.Inf(1)
			clear(n.waiting[l][:k.queued])
			n.waiting[l] = n.waiting[l][:0]
			k.queued, k.served = 0, 0
		}
	}

	// Capped flows in increasing cap order.
	slices.SortFunc(s.capped, func(a, b int32) int {
		ca, cb := s.caps[a], s.caps[b]
		switch {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
		return int(a - b)
	})
	s.frozen = resize(s.frozen, len(flows))
	clear(s.frozen)

	// Progressive filling. level is the water level reached by links; it is
	// non-decreasing in exact arithmetic and is kept so in floats, so that
	// flows frozen together at tied links get bit-identical rates.
	level := 0.0
	ci := 0
	unfrozen := len(flows)
	for unfrozen > 0 {
		for ci < len(s.capped) && s.frozen[s.capped[ci]] {
			ci++
		}
		share := s.minShare()
		if ci < len(s.capped) && s.caps[s.capped[ci]] < share {
			s.freeze(s.capped[ci], s.caps[s.capped[ci]])
			unfrozen--
			ci++
			continue
		}
		if math.IsInf(share, 1) {
			break // unreachable: uncapped flows always have a link
		}
		l := s.top
		s.key[l] = math.Inf(1) // out of the queue
		level = max(level, share)
		if n.waiting != nil {
			n.links[l].level = level
		}
		for _, fi := range s.members[s.start[l]:s.start[l+1]] {
			if !s.frozen[fi] {
				s.freeze(fi, level)
				unfrozen--
			}
		}
	}

	// Publish loads and completion times. Link byte counters are banked at
	// the old loads first.
	for l := range n.links {
		n.setLoad(LinkID(l), 0)
	}
	// The finish queue's window starts now. In quantized mode it spans
	// one quantum (SetQuantum): the next solve, a quantum from now at the
	// earliest, re-times every flow, so those finishing after it are only
	// set aside, not ordered.
	n.finishQ.reset(n.now)
	for i, f := range flows {
		f.rate = s.rate[i]
		for _, l := range f.path {
			n.links[l].load += f.rate
		}
		f.finish = math.Inf(1)
		if f.rate > 0 {
			f.finish = f.t0 + f.rem0/f.rate
		}
		f.ver++
		n.finishQ.add(f)
	}
}

// nextArena returns the arena this solve moves the active flows into,
// sized for them: the one the solve before last filled. A finished flow
// still there, waiting to be popped, moves out to a struct of its own
// first; nothing else still points into it, since the flows active then
// all moved at the last solve, and the finish queue and waiting lines
// that held them were emptied by it.
func (n *Network[T]) nextArena() []flow[T] {
	w := 1 - n.arena
	for i, f := range n.done {
		if int(f.home) == w+1 {
			g := n.newFlow()
			ver := g.ver
			*g = *f
			g.home, g.ver = 0, ver
			g.path = ownPath(g)
			n.slots[int32(uint32(g.id))-1].f = g
			n.done[i] = g
		}
	}
	if cap(n.arenas[w]) < n.nActive {
		n.arenas[w] = make([]flow[T], n.nActive+n.nActive/4)
	}
	n.arena = w
	return n.arenas[w][:cap(n.arenas[w])]
}

// relocate moves active flow f into dst, an arena's struct, and returns
// dst. The ID's slot follows it; f, if a struct of its own, is kept for
// reuse: the solve empties the finish queue and waiting lines that may
// still point at it.
func (n *Network[T]) relocate(f, dst *flow[T]) *flow[T] {
	*dst = *f
	dst.home = uint8(n.arena + 1)
	dst.path = ownPath(dst)
	n.slots[int32(uint32(f.id))-1].f = dst
	if f.home == 0 {
		f.state = stateGone
		n.reusable = append(n.reusable, f)
	}
	return dst
}

// ownPath returns f's path in f's own inline storage when it lives
// there (AddFlow keeps every short path inline): a struct copied from
// another still points at the other's.
func ownPath[T any](f *flow[T]) []LinkID {
	if k := len(f.path); k <= inlinePath {
		return f.inl[:k:k]
	}
	return f.path
}

// freeze fixes flow fi at rate r and charges r to every link on its path.
// Queue keys are not touched: a link's share only grows as flows freeze, so
// its stored key stays a lower bound until minShare refreshes it.
func (s *solver) freeze(fi int32, r float64) {
	s.frozen[fi] = true
	s.rate[fi] = r
	for _, l := range s.paths[s.pstart[fi]:s.pstart[fi+1]] {
		k := &s.fill[l]
		k.rem = max(k.rem-r, 0)
		k.cnt--
	}
}

// minShare returns the smallest current fair share among links that still
// carry unfrozen flows (+Inf if none) and leaves that link in s.top, still
// queued. Stored keys are lower bounds of the true shares, so the least
// link is the true minimum once its own key is refreshed and it stays
// least.
//
// The link found is the least by (true share, index) however the queue
// was updated: any link ordered before it would have a stored key, hence a
// true share, no greater. So the queue's mechanics cannot change a rate.
func (s *solver) minShare() float64 {
	for {
		l := s.queue.least(s.key)
		if l < 0 {
			return math.Inf(1) // no link left
		}
		k := &s.fill[l]
		if k.cnt == 0 {
			s.key[l] = math.Inf(1) // all its flows froze elsewhere
			continue
		}
		share := k.rem / float64(k.cnt)
		if share > s.key[l] {
			s.key[l] = share
			s.queue.push(l, share)
			continue
		}
		s.top = l
		return share
	}
}

// resize returns a slice of length n, reusing b's storage when it fits and
// growing it geometrically otherwise, so slowly growing flow counts do not
// reallocate on every solve. Contents are unspecified.
func resize[T any](b []T, n int) []T {
	return slices.Grow(b[:0], n)[:n]
}
