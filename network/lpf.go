package network

import (
	"math"
	"slices"
)

// The exact mode's solve is progressive filling that visits only what the
// changes since the last solve can move.
//
// Progressive filling raises every unfrozen flow's rate together (the
// water level) and freezes the flows of a link when its fair share binds,
// in increasing order of level. The previous solution recorded, for every
// link, the level at which it froze and which flows it froze (its group).
// A link whose flows and whose lower-frozen neighbours' rates are
// unchanged freezes at the same level with the same group again, so the
// solve keeps it as it was ("clean") and works through the others in
// level order, as the full filling would:
//
//   - A link is dirty once something on it changed: a flow started or
//     ended on it, or a flow crossing it got a new rate. Its event in the
//     queue is keyed by a lower bound of the level where it binds (bound),
//     and popping it computes its exact fair share (fairShare); if that is
//     above the key it is queued again, else its group freezes there
//     (commit), every flow that would still rise on it joins the group,
//     and the links the group's flows cross are told of the new rate.
//   - A dirty link's group is presumed frozen at its old level until the
//     water reaches that level (its deadline, queued once its fair share
//     is known to lie above). If the link has not bound by then, its
//     group's flows rise past their old rate. Most often the group rises
//     alone and is frozen at its new level at once (riseAtOnce); else it
//     opens, and every link its flows cross sees them as unfrozen from
//     then on. Those links are not queued one by one: one group event
//     holds the least level at which any of them could bind, and only
//     when the water reaches it are they looked at closely.
//   - A flow with a rate cap freezes at the cap when the water reaches it
//     first, as in the full filling.
//   - Links with room to spare (cold, cool.go) are left out altogether
//     while the groups crossing them stay below their limits.
//
// Every event is keyed by a lower bound of the level it stands for, and
// whatever lowers a link's bound queues the link again, so the events come
// out in the full filling's order and the result is its max-min solution;
// tests check it against full solves on random churn. A solve costs in
// proportion to the links whose level moves, their groups' hot counts and
// the flows that change bottleneck, not to the flows that are active.

// lpfKind is what an event of the solve stands for; at equal levels kinds
// are taken in this order, so that a link whose level is unchanged binds
// before its group would open.
type lpfKind uint8

const (
	evLink     lpfKind = iota // a link's fair share (a lower bound until refreshed)
	evCapFlow                 // a new flow's rate cap
	evCapGroup                // the least rate cap among an open group's members
	evGroup                   // the least level at which an open group's links could bind
	evDeadline                // a dirty link's old level, where its group opens
)

// lpfEvent is an event of the solve, ordered by key, then kind, then id
// (a link, or a new flow's slot: never negative), which ord holds as one
// number, kind above id, so that the heap compares two numbers.
type lpfEvent struct {
	key float64
	ord uint64
}

func event(key float64, kind lpfKind, id int32) lpfEvent {
	return lpfEvent{key, uint64(kind)<<32 | uint64(uint32(id))}
}

func (e *lpfEvent) kind() lpfKind { return lpfKind(e.ord >> 32) }
func (e *lpfEvent) id() int32     { return int32(uint32(e.ord)) }

func (a *lpfEvent) before(b *lpfEvent) bool {
	return a.key < b.key || (a.key == b.key && a.ord < b.ord)
}

// Link states within a solve, and group states.
const (
	lClean uint8 = iota
	lDirty
	lDone
)

const (
	gOld  uint8 = iota // frozen at the old level, as far as known
	gOpen              // rising past its old level
	gDone              // frozen at its new level
)

// lscratch is one link's state within a solve; entries from an older solve
// (epoch) read as clean.
type lscratch struct {
	openOld  float64 // the old rates of its open occurrences
	cover    float64 // key of its pending link event (+Inf if none)
	openCnt  int32   // occurrences of open groups' members and new flows
	newLo    int32   // its new flows are lpf.newOn[newLo:newHi]
	newHi    int32
	epoch    uint32
	state    uint8
	gstate   uint8
	changed  bool // to be re-placed in the completion heap
	deadline bool // its group's deadline is queued
}

// overload is the relative excess of a link's load over its capacity
// beyond which flows presumed at their rates cannot all keep them: sums of
// rates that fill a link exactly land a few ulps either side of it.
const overload = 1e-12

// tieTol is how close below a link's share a flow presumed at its rate
// counts as at the share: such a flow is taken into the link's group at
// the share, since the group it was presumed in may rise at that level,
// and sums of rates taken in different orders differ by a few ulps.
const tieTol = 1e-12

// cand is a group or a capped flow whose rate may exceed a link's share.
type cand struct {
	v  float64 // its rate
	n  int32   // its occurrences on the link
	id int32   // group link, or -1-slot for a capped flow
}

// lpf holds the solve's buffers, reused across solves.
type lpf struct {
	ls      []lscratch
	epoch   uint32
	h       []lpfEvent
	water   float64
	solving bool
	cand    []cand
	absorb  []int32
	moved   []int32
	// newOn holds the new flows' slots by link (lscratch.newLo),
	// newLinks the links that have any, order the new flows by slot.
	newOn    []int32
	newLinks []int32
	order    []int32
	changed  []int32
}

func (v *lpf) sc(l int32) *lscratch {
	c := &v.ls[l]
	if c.epoch != v.epoch {
		*c = lscratch{epoch: v.epoch, cover: math.Inf(1)}
	}
	return c
}

// push and pop keep v.h a 4-ary heap, moving entries into a hole rather
// than swapping them: a solve pushes and pops a hundred events, and a
// wider heap is shallower.
func (v *lpf) push(e lpfEvent) {
	v.h = append(v.h, e)
	h := v.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (v *lpf) pop() lpfEvent {
	h := v.h
	top := h[0]
	n := len(h) - 1
	e := h[n]
	h = h[:n]
	v.h = h
	if n == 0 {
		return top
	}
	i := 0
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
		i = m
	}
	h[i] = e
	return top
}

// exactSolve brings the exact mode's solution up to date with the flows
// added and removed since the last solve.
func (n *Network[T]) exactSolve() {
	s := n.x
	v := &s.sv
	v.epoch++
	if v.epoch == 0 {
		clear(v.ls)
		v.epoch = 1
	}
	v.h = v.h[:0]
	v.water = 0
	v.changed = v.changed[:0]
	v.solving = true
	for _, slot := range s.newFlows {
		for _, l := range n.slots[slot].f.path {
			n.promote(l) // the new flow rises on it
		}
	}
	// The new flows rise from 0 on every link they cross; each link
	// keeps the range of v.newOn that lists them, in slot order, once per
	// occurrence. The ranges are laid out by counting: a start of many
	// reduces adds hundreds of flows at once, and sorting their (link,
	// slot) pairs cost more than the rest of the solve.
	v.newLinks = v.newLinks[:0]
	total := 0
	for _, slot := range s.newFlows {
		f := n.slots[slot].f
		for _, l := range f.path {
			if !n.links[l].cold {
				c := v.sc(int32(l))
				c.openCnt++
				if c.newHi++; c.newHi == 1 {
					v.newLinks = append(v.newLinks, int32(l))
				}
				total++
			}
		}
		if !math.IsInf(f.cap, 1) {
			v.push(event(f.cap, evCapFlow, slot))
		}
	}
	at := int32(0)
	for _, l := range v.newLinks {
		c := &v.ls[l]
		c.newLo = at
		at += c.newHi
		c.newHi = c.newLo // filled up to here
	}
	v.newOn = slices.Grow(v.newOn[:0], total)[:total]
	order := s.newFlows
	if len(order) > 1 {
		v.order = append(v.order[:0], s.newFlows...)
		slices.Sort(v.order)
		order = v.order
	}
	for _, slot := range order {
		for _, l := range n.slots[slot].f.path {
			if !n.links[l].cold {
				c := &v.ls[l]
				v.newOn[c.newHi] = slot
				c.newHi++
			}
		}
	}
	for _, slot := range s.newFlows {
		for _, l := range n.slots[slot].f.path {
			n.mark(int32(l))
		}
	}
	for _, l := range s.touched {
		n.mark(l)
	}
	s.touched = s.touched[:0]
	for len(v.h) > 0 {
		e := v.pop()
		switch e.kind() {
		case evLink:
			n.popLink(e)
		case evDeadline:
			c := v.sc(e.id())
			if c.state == lDone || c.gstate != gOld || n.links[e.id()].nb == 0 {
				continue
			}
			v.water = max(v.water, e.key)
			if !n.riseAtOnce(e.id(), c) {
				n.open(e.id(), c)
			}
		case evGroup:
			n.popGroup(e)
		case evCapFlow:
			f := n.slots[e.id()].f
			if s.xs[e.id()].bn != bnNone {
				continue
			}
			v.water = max(v.water, e.key)
			for _, l := range f.path {
				if !n.links[l].cold {
					v.sc(int32(l)).openCnt--
				}
			}
			n.joinCap(f, f.bytes)
			for _, l := range f.path {
				n.xload(l, f.cap)
			}
			for _, l := range f.path {
				n.mark(int32(l))
			}
		case evCapGroup:
			n.popCapGroup(e)
		}
	}
	s.newFlows = s.newFlows[:0]
	v.solving = false
	n.coolListed()
	for _, l := range v.changed {
		x := &s.xl[l]
		if x.v0 > tagRebase && len(x.mem) > 0 {
			for i := range x.mem {
				x.mem[i].tag -= x.v0
				s.xs[x.mem[i].slot].tag = x.mem[i].tag
			}
			for _, it := range x.col {
				s.entries[it.e].snap -= x.v0
			}
			for _, it := range x.cold {
				s.entries[it.e].snap -= x.v0
			}
			x.v0 = 0
		}
		s.refreshLink(l, n.links[l].level)
	}
}

// mark records that something on link l changed and queues it if its
// bound fell below its pending event.
func (n *Network[T]) mark(l int32) {
	k := &n.links[l]
	if k.cold {
		return // it has room: see cool.go
	}
	v := &n.x.sv
	c := &v.ls[l]
	if c.epoch != v.epoch && k.nb == 0 && !(k.load > k.cap*(1+overload)) {
		return // untouched so far, no group, no open flow and room to spare: it cannot bind
	}
	c = v.sc(l)
	if c.state == lDone {
		return
	}
	c.state = lDirty
	if b := max(n.bound(l, c), v.water); b < c.cover {
		n.pushLink(l, c, b)
	}
}

// pushLink queues link l's event at key, the least level at which it may
// bind. A group presumed at its old level below key will rise past it, so
// it opens when the water reaches that level (its deadline).
func (n *Network[T]) pushLink(l int32, c *lscratch, key float64) {
	v := &n.x.sv
	c.cover = key
	v.push(event(key, evLink, l))
	if k := &n.links[l]; !c.deadline && c.gstate == gOld && k.nb > 0 && key > k.level {
		c.deadline = true
		v.push(event(max(k.level, v.water), evDeadline, l))
	}
}

// bound returns a lower bound of the level at which link l binds: the
// level at which its load would reach capacity if its open occurrences
// (and, on a dirty link, its own group) rose together and every other flow
// kept its rate. +Inf if nothing on it can rise.
func (n *Network[T]) bound(l int32, c *lscratch) float64 {
	k := &n.links[l]
	cnt := c.openCnt
	a := k.load - c.openOld
	if c.state == lDirty && c.gstate == gOld {
		cnt += k.nb
		a -= float64(k.nb) * k.level
	}
	if cnt <= 0 {
		if k.load > k.cap*(1+overload) {
			return 0 // flows presumed at their rates overfill it: it binds some of them
		}
		return math.Inf(1)
	}
	return max((k.cap-a)/float64(cnt), 0)
}

// popLink handles a link's event: it refreshes the link's fair share and
// freezes its group there unless the share has risen past the key.
func (n *Network[T]) popLink(e lpfEvent) {
	v := &n.x.sv
	l := e.id()
	c := v.sc(l)
	if c.state == lDone || e.key < c.cover {
		return // done, or a later event stands for it
	}
	c.cover = math.Inf(1)
	w, k := n.fairShare(l, c)
	if k == 0 {
		return // nothing on it rises: it binds no flow
	}
	if w > e.key {
		n.pushLink(l, c, w)
		return
	}
	w = max(v.water, w)
	lk := &n.links[l]
	if lk.nb > 0 && math.Abs(w-lk.level) <= levelSnap*lk.level {
		// The same level up to rounding: the sums behind it are taken in
		// another order than last time. Keeping it spares every link the
		// group crosses a change of a few ulps.
		w = max(lk.level, v.water)
	}
	if lk.nb > 0 && w > n.x.xl[l].lim {
		// Links it crosses may turn hot, and open groups crossing them
		// may have to look at them first: either way, let those events go
		// before.
		if n.recertify(l, w) || (len(v.h) > 0 && v.h[0].key < w) {
			n.pushLink(l, c, w)
			return
		}
	}
	v.water = w
	n.commit(l, c, w)
}

// levelSnap is the relative change of a group's level below which a solve
// keeps the old level: rounding noise, far below CompletionTolerance.
const levelSnap = 1e-14

// fairShare returns link l's exact fair share given what the solve knows:
// its open occurrences and own group rise together; every other flow
// keeps its rate unless that rate is at or above the share, in which case
// it rises with them (a flow frozen elsewhere above this link's level
// would be frozen here first; at the level itself, it is taken too, since
// the group it was presumed in may yet rise at that very level, and the
// rate is the same either way). k is the number of occurrences that rise.
// It leaves in v.cand the groups and capped flows that rise.
func (n *Network[T]) fairShare(l int32, c *lscratch) (w float64, k int32) {
	s := n.x
	v := &s.sv
	x := &s.xl[l]
	k = c.openCnt
	if c.gstate == gOld {
		k += n.links[l].nb
	}
	b := x.capSum
	v.cand = v.cand[:0]
	// top is the highest level among the old groups: one in sixty calls
	// finds a group at or above the share, so they are listed only then.
	top := math.Inf(-1)
	for _, it := range x.row {
		if it.b == l {
			continue
		}
		cb := v.sc(it.b)
		if cb.gstate == gOpen {
			continue
		}
		lv := n.links[it.b].level
		b += float64(it.n) * lv
		if cb.gstate == gOld && lv > top {
			top = lv
		}
	}
	capv := n.links[l].cap
	if k == 0 {
		if b <= capv*(1+overload) {
			return math.Inf(1), 0
		}
		w = 0 // the flows presumed at their rates overfill it: fill it from the bottom
	} else {
		w = (capv - b) / float64(k)
	}
	above := v.cand[:0]
	tie := w * (1 - tieTol)
	if top >= tie {
		for _, it := range x.row {
			if it.b == l || v.sc(it.b).gstate != gOld {
				continue
			}
			if lv := n.links[it.b].level; lv >= tie {
				above = append(above, cand{lv, it.n, it.b})
			}
		}
	}
	if x.capMax >= tie {
		for _, ci := range x.caps {
			if s.capValid(ci) {
				if fc := n.slots[ci.slot].f.cap; fc >= tie {
					above = append(above, cand{fc, 1, -1 - ci.slot})
				}
			}
		}
	}
	v.cand = above
	if len(above) == 0 {
		return max(w, 0), k
	}
	slices.SortFunc(above, func(p, q cand) int {
		if p.v != q.v {
			if p.v < q.v {
				return -1
			}
			return 1
		}
		return int(p.id - q.id)
	})
	for _, cd := range above {
		b -= float64(cd.n) * cd.v
		k += cd.n
	}
	w = (capv - b) / float64(k)
	i := 0
	for ; i < len(above) && above[i].v < w*(1-tieTol); i++ {
		b += float64(above[i].n) * above[i].v
		k -= above[i].n
		w = (capv - b) / float64(k)
	}
	v.cand = above[i:]
	return max(w, 0), k
}

// commit freezes link l's group at level w, with every flow that rises on
// it (the open groups' members crossing it, new flows, and the groups and
// capped flows fairShare left in v.cand), and tells the links whose loads
// moved.
func (n *Network[T]) commit(l int32, c *lscratch, w float64) {
	s := n.x
	v := &s.sv
	x := &s.xl[l]
	old := n.links[l].level
	x.rebase(old, n.now)
	open := c.gstate == gOpen
	c.state, c.gstate = lDone, gDone
	if len(x.mem) > 0 {
		d := w - old
		for _, it := range x.col {
			m := it.m
			if open && !n.links[m].cold {
				cm := v.sc(m)
				cm.openCnt -= it.n
				cm.openOld -= float64(it.n) * old
			}
			// The links the group crosses see its rate move. Those it
			// fills (nb > 0) change level. A fall lowers every other
			// load and can bind nothing new; a rise can fill a link.
			// Each link is listed once and mark reads only its own, so
			// it is marked as soon as its load has moved.
			if d != 0 {
				n.xload(LinkID(m), float64(it.n)*d)
			}
			if d > 0 || (d < 0 && n.links[m].nb > 0) {
				n.mark(m)
			}
		}
	}
	n.links[l].level = w
	n.changed(l)

	// Groups whose members crossing l rise on it: the open ones, and the
	// old ones fairShare found above the share.
	v.absorb = v.absorb[:0]
	for _, it := range x.row {
		if it.b != l && v.sc(it.b).gstate == gOpen {
			v.absorb = append(v.absorb, it.b)
		}
	}
	caps := false
	for _, cd := range v.cand {
		if cd.id >= 0 {
			v.absorb = append(v.absorb, cd.id)
		} else {
			caps = true
		}
	}
	for _, b := range v.absorb {
		n.absorbGroup(l, w, b)
	}
	if caps {
		for _, cd := range v.cand {
			if cd.id >= 0 {
				continue
			}
			slot := -1 - cd.id
			f := n.slots[slot].f
			if s.xs[slot].bn != bnCap {
				continue // listed twice: its path crosses l twice
			}
			n.promotePath(f)
			rem := n.leaveCap(f)
			for _, m := range f.path {
				n.xload(m, w-f.cap)
			}
			n.joinGroup(f, l, rem)
			for _, m := range f.path {
				n.mark(int32(m))
			}
		}
	}
	// New flows crossing l (listed once per occurrence).
	for _, slot := range v.newOn[c.newLo:c.newHi] {
		if s.xs[slot].bn != bnNone {
			continue
		}
		f := n.slots[slot].f
		for _, m := range f.path {
			if !n.links[m].cold {
				v.sc(int32(m)).openCnt--
			}
			n.xload(m, w)
		}
		n.joinGroup(f, l, f.bytes)
		for _, m := range f.path {
			n.mark(int32(m))
		}
	}
}

// absorbGroup moves the members of group b that cross link l into l's
// group at level w.
func (n *Network[T]) absorbGroup(l int32, w float64, b int32) {
	s := n.x
	v := &s.sv
	xb := &s.xl[b]
	cb := v.sc(b)
	open := cb.gstate == gOpen
	old := n.links[b].level
	v.moved = v.moved[:0]
	for _, m := range xb.mem {
		if slices.Contains(n.slots[m.slot].f.path, LinkID(l)) {
			v.moved = append(v.moved, m.slot)
		}
	}
	for _, slot := range v.moved {
		f := n.slots[slot].f
		n.promotePath(f)
		rem := n.leaveGroup(f)
		for _, m := range f.path {
			if open && !n.links[m].cold {
				cm := v.sc(int32(m))
				cm.openCnt--
				cm.openOld -= old
			}
			n.xload(m, w-old)
		}
		n.joinGroup(f, l, rem)
		for _, m := range f.path {
			n.mark(int32(m))
		}
	}
	n.changed(b)
	if !open {
		n.mark(b) // it lost members: its level rises
	}
}

// riseAtOnce commits link l's group, whose deadline has come, at its new
// level at once when nothing else can come first: no other flow rises on
// l, no event is queued below the new level, no member's cap is below it,
// and no link the group crosses could bind its members below it. That is
// the common case of a group rising alone, and it spares opening the
// group and guarding its links. It reports whether it committed.
func (n *Network[T]) riseAtOnce(l int32, c *lscratch) bool {
	s := n.x
	v := &s.sv
	k := &n.links[l]
	if c.openCnt != 0 || c.newLo != c.newHi {
		return false
	}
	w, cnt := n.fairShare(l, c)
	if cnt == 0 || len(v.cand) != 0 || s.xl[l].minCap < w {
		return false
	}
	w = max(w, v.water)
	if w > s.xl[l].lim && n.recertify(l, w) {
		return false // links it crosses turned hot: open it
	}
	// The group's own link events are superseded by this commit; any
	// other event below w must be taken first.
	for len(v.h) > 0 && v.h[0].kind() == evLink && v.h[0].id() == l {
		v.pop()
	}
	if len(v.h) > 0 && v.h[0].key < w {
		n.pushLink(l, c, w)
		return false
	}
	old := k.level
	for _, it := range s.xl[l].col {
		m := it.m
		if m == l || n.links[m].cold {
			continue
		}
		km := &n.links[m]
		cnt, a := it.n, km.load-float64(it.n)*old
		if cm := &v.ls[m]; cm.epoch == v.epoch {
			if cm.state == lDone {
				continue
			}
			cnt += cm.openCnt
			a -= cm.openOld
			if cm.state == lDirty && cm.gstate == gOld {
				cnt += km.nb
				a -= float64(km.nb) * km.level
			}
		}
		if (km.cap-a)/float64(cnt) < w*(1-tieTol) {
			n.pushLink(l, c, w)
			return false
		}
	}
	v.water = w
	v.cand = v.cand[:0]
	n.commit(l, c, w)
	return true
}

// open lets link l's group rise past its old level: its members count as
// rising on every link they cross, and one event holds the least level at
// which any of those links could bind.
func (n *Network[T]) open(l int32, c *lscratch) {
	s := n.x
	v := &s.sv
	x := &s.xl[l]
	c.gstate = gOpen
	old := n.links[l].level
	for _, it := range x.col {
		if m := it.m; !n.links[m].cold {
			cm := v.sc(m)
			cm.openCnt += it.n
			cm.openOld += float64(it.n) * old
		}
	}
	n.pushGroup(l)
	if !math.IsInf(x.minCap, 1) {
		v.push(event(max(x.minCap, v.water), evCapGroup, l))
	}
}

// pushGroup queues open group l's event at the least bound of the links
// its members cross, looking closely (mark) at those already reached.
// The links whose bound is below the level the group itself would reach
// now (its fair share) are kept in a short list, so that later events
// revisit them rather than the whole column; the rest are looked at again
// only if the water reaches the least of their bounds (x.rest).
func (n *Network[T]) pushGroup(l int32) {
	s := n.x
	v := &s.sv
	x := &s.xl[l]
	est, _ := n.fairShare(l, v.sc(l))
	x.near = x.near[:0]
	x.rest = math.Inf(1)
	for _, it := range x.col {
		m := it.m
		if m == l || n.links[m].cold {
			continue
		}
		cm := v.sc(m)
		if cm.state == lDone {
			continue
		}
		switch b := n.bound(m, cm); {
		case b <= v.water:
			n.mark(m)
		case b < est:
			x.near = append(x.near, m)
		default:
			x.rest = min(x.rest, b)
		}
	}
	x.rest = min(x.rest, x.lim) // the cold links it crosses
	n.pushNear(l)
}

// pushNear queues open group l's event at the least bound among its short
// list and the rest, marking the listed links the water has reached.
func (n *Network[T]) pushNear(l int32) {
	s := n.x
	v := &s.sv
	x := &s.xl[l]
	h := x.rest
	keep := x.near[:0]
	for _, m := range x.near {
		cm := v.sc(m)
		if cm.state == lDone {
			continue
		}
		if b := n.bound(m, cm); b <= v.water {
			n.mark(m)
		} else {
			keep = append(keep, m)
			h = min(h, b)
		}
	}
	x.near = keep
	if !math.IsInf(h, 1) {
		v.push(event(h, evGroup, l))
	}
}

func (n *Network[T]) popGroup(e lpfEvent) {
	v := &n.x.sv
	c := v.sc(e.id())
	if c.gstate != gOpen || n.links[e.id()].nb == 0 {
		return
	}
	v.water = max(v.water, e.key)
	if x := &n.x.xl[e.id()]; v.water >= x.rest {
		if v.water >= x.lim {
			n.recertify(e.id(), v.water)
		}
		n.pushGroup(e.id())
	} else {
		n.pushNear(e.id())
	}
}

// popCapGroup freezes at their caps the members of an open group whose
// cap the water has reached.
func (n *Network[T]) popCapGroup(e lpfEvent) {
	s := n.x
	v := &s.sv
	l := e.id()
	c := v.sc(l)
	x := &s.xl[l]
	if c.gstate != gOpen || len(x.mem) == 0 {
		return
	}
	v.water = max(v.water, e.key)
	old := n.links[l].level
	v.moved = v.moved[:0]
	minCap := math.Inf(1)
	for _, m := range x.mem {
		if f := n.slots[m.slot].f; f.cap <= v.water {
			v.moved = append(v.moved, m.slot)
		} else {
			minCap = min(minCap, f.cap)
		}
	}
	for _, slot := range v.moved {
		f := n.slots[slot].f
		n.promotePath(f)
		rem := n.leaveGroup(f)
		for _, m := range f.path {
			if !n.links[m].cold {
				cm := v.sc(int32(m))
				cm.openCnt--
				cm.openOld -= old
			}
			n.xload(m, f.cap-old)
		}
		n.joinCap(f, rem)
		for _, m := range f.path {
			n.mark(int32(m))
		}
	}
	x.minCap = minCap
	n.changed(l)
	if !math.IsInf(minCap, 1) {
		v.push(event(minCap, evCapGroup, l))
	}
}

// changed records that link l's group needs re-placing in the completion
// heap at the end of the solve.
func (n *Network[T]) changed(l int32) {
	v := &n.x.sv
	c := v.sc(l)
	if !c.changed {
		c.changed = true
		v.changed = append(v.changed, l)
	}
}
