package network

import "math"

// The exact mode keeps the max-min solution in a form that a change can
// update without visiting every flow (see lpf.go for the solve):
//
//   - every active flow has a bottleneck: a link, whose fair share (its
//     level) is the flow's rate, or its own rate cap;
//   - the flows bottlenecked at link b form b's group; how many of them
//     cross each link is kept as sparse counts, so a change of b's level
//     moves every link's load by count*change without touching a flow;
//   - a group's progress is one clock per link: V_b(t) grows at b's level,
//     and a member finishes when V_b reaches its tag, the clock reading at
//     which its bytes run out. A level change re-bases one clock, not every
//     member's finish time. Capped flows keep their own finish time.
//
// Completions come from one heap over the links' earliest members and the
// capped flows.

// Bottleneck values of a flow that is not bottlenecked at a link.
const (
	bnCap  = -1 // at its rate cap
	bnNone = -2 // added since the last solve and not yet placed
)

// xflow is a flow's exact-mode state, kept by its ID's slot.
type xflow struct {
	tag    float64 // link-bound: the bottleneck's clock reading at which it completes
	bn     int32   // bottleneck link, bnCap or bnNone
	pos    int32   // index in its group's member heap, or in the completion heap when capped
	capVer uint32  // bumped each time the flow becomes capped, to retire cap-list entries
	// ent holds, while the flow is link-bound, the count entry of each of
	// its path links (entX for paths longer than inlinePath).
	ent  [inlinePath]int32
	entX []int32
}

// entries returns the flow's count entries, one per path link.
func (x *xflow) entries(n int) []int32 {
	if n <= inlinePath {
		return x.ent[:n]
	}
	if cap(x.entX) < n {
		x.entX = make([]int32, n)
	}
	return x.entX[:n]
}

// member is a group member in its bottleneck's heap, ordered by tag, then
// by the order flows were added in.
type member struct {
	tag  float64
	seq  int64
	slot int32
}

func (a *member) before(b *member) bool {
	return a.tag < b.tag || (a.tag == b.tag && a.seq < b.seq)
}

// colItem counts a group's members crossing link m; rowItem counts the
// members of group b crossing a link. Both sides of one count are kept, so
// that a level change walks the group's column and a fair share walks the
// link's row, each in contiguous memory. e names the shared entry.
type colItem struct{ m, n, e int32 }
type rowItem struct{ b, n, e int32 }

// countEntry places one (link, group) count in both lists. snap is the
// group's clock reading when the count last changed: the link has carried
// count*(clock now - snap) bytes for the group since (Network.exactBytes).
type countEntry struct {
	snap         float64
	m, b, ci, ri int32
	cold         bool // ci indexes the group's cold list
}

// capItem is a capped flow crossing a link, valid while the flow's slot
// still holds it capped at version ver.
type capItem struct {
	slot int32
	ver  uint32
}

// xlink is a link's exact-mode state.
type xlink struct {
	v0, t0 float64 // clock: V(t) = v0 + level*(t-t0), level being link.level
	minCap float64 // a lower bound of the members' rate caps (+Inf if none)
	capSum float64 // rate caps of the capped flows crossing it, per occurrence
	capMax float64 // an upper bound of those caps
	// bank is the bytes it carried for counts since changed or dropped,
	// capBank those of capped flows up to capT.
	bank, capBank, capT float64
	// lim is the level up to which the group may rise without a cold link
	// it crosses filling up (cool.go).
	lim float64
	mem []member
	// col counts the group's members on the hot links they cross, cold on
	// the cold ones: a level change walks col only.
	col, cold []colItem
	row       []rowItem
	caps      []capItem // capped flows crossing it; entries go stale as flows leave
	capCnt    int32     // occurrences of capped flows on it
	capLiv    int32     // valid entries in caps
	gpos      int32     // index in the completion heap, -1 if not there
	// near and rest guard the links an open group's members cross within
	// a solve (pushGroup): the links that may bind them soon, and the
	// least bound of the others.
	near   []int32
	rest   float64
	listed bool // in exactState.demote
}

// done is an entry of the completion heap: a link's earliest member (id >=
// 0) or a capped flow (id = -1-slot), due at t.
type doneItem struct {
	t   float64
	seq int64
	id  int32
}

func (a *doneItem) before(b *doneItem) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// exactState holds the exact mode's structures beside the links and flows.
type exactState struct {
	xs      []xflow // by slot
	xl      []xlink // by link
	entries []countEntry
	free    []int32
	entOf   entTable
	done    []doneItem
	// newFlows were added since the last solve and await placement;
	// touched are links whose flow set changed since then.
	newFlows []int32
	touched  []int32
	// demote lists hot links that may have room enough to turn cold
	// (cool.go); a link is listed while xlink.listed.
	demote []int32
	sv     lpf
}

func entKey(m, b int32) uint64 { return uint64(uint32(m))<<32 | uint64(uint32(b)) }

// countUp adds one occurrence of a member of group b on link m and returns
// the count's entry; vb is b's clock reading now, cold whether m is cold.
func (s *exactState) countUp(m, b int32, vb float64, cold bool) int32 {
	k := entKey(m, b)
	e, ok := s.entOf.get(k)
	if !ok {
		if f := len(s.free); f > 0 {
			e = s.free[f-1]
			s.free = s.free[:f-1]
		} else {
			e = int32(len(s.entries))
			s.entries = append(s.entries, countEntry{})
		}
		xb, xm := &s.xl[b], &s.xl[m]
		list := xb.colList(cold)
		s.entries[e] = countEntry{snap: vb, m: m, b: b, ci: int32(len(*list)), ri: int32(len(xm.row)), cold: cold}
		*list = append(*list, colItem{m: m, e: e})
		xm.row = append(xm.row, rowItem{b: b, e: e})
		s.entOf.put(k, e)
	}
	c := &s.entries[e]
	s.bankCount(c, vb)
	(*s.xl[b].colList(c.cold))[c.ci].n++
	s.xl[m].row[c.ri].n++
	return e
}

// colList returns the group's hot or cold list.
func (x *xlink) colList(cold bool) *[]colItem {
	if cold {
		return &x.cold
	}
	return &x.col
}

// moveEntry moves count entry e to its group's hot or cold list.
func (s *exactState) moveEntry(e int32, cold bool) {
	c := &s.entries[e]
	if c.cold == cold {
		return
	}
	xb := &s.xl[c.b]
	from := xb.colList(c.cold)
	it := (*from)[c.ci]
	last := len(*from) - 1
	if int(c.ci) != last {
		(*from)[c.ci] = (*from)[last]
		s.entries[(*from)[c.ci].e].ci = c.ci
	}
	*from = (*from)[:last]
	to := xb.colList(cold)
	c.ci, c.cold = int32(len(*to)), cold
	*to = append(*to, it)
}

// bankCount moves the bytes count entry c's link carried for its group
// since the count last changed into the link's bank, ahead of a change;
// vb is the group's clock reading now.
func (s *exactState) bankCount(c *countEntry, vb float64) {
	xm := &s.xl[c.m]
	if n := xm.row[c.ri].n; n > 0 {
		xm.bank += float64(n) * (vb - c.snap)
	}
	c.snap = vb
}

// countDown removes one occurrence counted by entry e, and the entry with
// its last one; vb is the group's clock reading now.
func (s *exactState) countDown(e int32, vb float64) {
	s.bankCount(&s.entries[e], vb)
	c := s.entries[e]
	xb, xm := &s.xl[c.b], &s.xl[c.m]
	col := xb.colList(c.cold)
	(*col)[c.ci].n--
	xm.row[c.ri].n--
	if (*col)[c.ci].n > 0 {
		return
	}
	last := len(*col) - 1
	if int(c.ci) != last {
		(*col)[c.ci] = (*col)[last]
		s.entries[(*col)[c.ci].e].ci = c.ci
	}
	*col = (*col)[:last]
	last = len(xm.row) - 1
	if int(c.ri) != last {
		xm.row[c.ri] = xm.row[last]
		s.entries[xm.row[c.ri].e].ri = c.ri
	}
	xm.row = xm.row[:last]
	s.entOf.del(entKey(c.m, c.b))
	s.free = append(s.free, e)
}

// clock returns the link's clock reading at t, its level being level.
func (x *xlink) clock(level, t float64) float64 { return x.v0 + level*(t-x.t0) }

// rebase moves the link's clock origin to t, ahead of a level change.
func (x *xlink) rebase(level, t float64) {
	if t != x.t0 {
		x.v0 += level * (t - x.t0)
		x.t0 = t
	}
}

// tagRebase is the clock reading past which a group's tags are shifted
// back to the clock's origin: a tag's rounding error is relative to its
// size, and a member's remaining bytes are a difference of two tags.
const tagRebase = 1 << 32

// nextDone is when the link's earliest member completes at level.
func (x *xlink) nextDone(level float64) float64 {
	if len(x.mem) == 0 || !(level > 0) {
		return math.Inf(1)
	}
	return x.t0 + (x.mem[0].tag-x.v0)/level
}

// memPush adds a member to link b's heap.
func (s *exactState) memPush(b int32, m member) {
	x := &s.xl[b]
	x.mem = append(x.mem, m)
	s.memUp(x, len(x.mem)-1)
}

// memRemove takes the member at index i out of link b's heap.
func (s *exactState) memRemove(b int32, i int) {
	x := &s.xl[b]
	last := len(x.mem) - 1
	if i != last {
		x.mem[i] = x.mem[last]
		s.xs[x.mem[i].slot].pos = int32(i)
	}
	x.mem = x.mem[:last]
	if i < last {
		if !s.memUp(x, i) {
			s.memDown(x, i)
		}
	}
}

func (s *exactState) memUp(x *xlink, i int) bool {
	h := x.mem
	e := h[i]
	moved := false
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		s.xs[h[i].slot].pos = int32(i)
		i = p
		moved = true
	}
	h[i] = e
	s.xs[e.slot].pos = int32(i)
	return moved
}

func (s *exactState) memDown(x *xlink, i int) {
	h := x.mem
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&e) {
			break
		}
		h[i] = h[c]
		s.xs[h[i].slot].pos = int32(i)
		i = c
	}
	h[i] = e
	s.xs[e.slot].pos = int32(i)
}

// setDone places item (a link's earliest member or a capped flow) in the
// completion heap at its current time, or takes it out when t is +Inf.
// pos is where the item records its index.
func (s *exactState) setDone(pos *int32, it doneItem) {
	i := int(*pos)
	if math.IsInf(it.t, 1) {
		if i >= 0 {
			s.doneRemove(i)
			*pos = -1
		}
		return
	}
	if i < 0 {
		s.done = append(s.done, it)
		i = len(s.done) - 1
	} else {
		s.done[i] = it
	}
	if !s.doneUp(i) {
		s.doneDown(i)
	}
}

func (s *exactState) donePos(id int32) *int32 {
	if id >= 0 {
		return &s.xl[id].gpos
	}
	return &s.xs[-1-id].pos
}

func (s *exactState) doneRemove(i int) {
	last := len(s.done) - 1
	if i != last {
		s.done[i] = s.done[last]
		*s.donePos(s.done[i].id) = int32(i)
	}
	s.done = s.done[:last]
	if i < last && !s.doneUp(i) {
		s.doneDown(i)
	}
}

func (s *exactState) doneUp(i int) bool {
	h := s.done
	e := h[i]
	moved := false
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		*s.donePos(h[i].id) = int32(i)
		i = p
		moved = true
	}
	h[i] = e
	*s.donePos(e.id) = int32(i)
	return moved
}

func (s *exactState) doneDown(i int) {
	h := s.done
	n := len(h)
	e := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&e) {
			break
		}
		h[i] = h[m]
		*s.donePos(h[i].id) = int32(i)
		i = m
	}
	h[i] = e
	*s.donePos(e.id) = int32(i)
}

// refreshLink re-places link b, at level, in the completion heap after
// its level or members changed.
func (s *exactState) refreshLink(b int32, level float64) {
	x := &s.xl[b]
	it := doneItem{t: x.nextDone(level), id: b}
	if len(x.mem) > 0 {
		it.seq = x.mem[0].seq
	}
	s.setDone(&x.gpos, it)
}
