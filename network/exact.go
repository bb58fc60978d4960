package network

import (
	"math"
	"slices"
)

// exactInit sets up the exact mode's structures, at the first flow.
func (n *Network[T]) exactInit() {
	s := &exactState{}
	s.xl = make([]xlink, len(n.links))
	for l := range s.xl {
		s.xl[l] = xlink{minCap: math.Inf(1), lim: math.Inf(1), gpos: -1}
		n.links[l].level = 0
		n.links[l].cold = n.links[l].counting
	}
	s.sv.ls = make([]lscratch, len(n.links))
	n.x = s
}

// slotOf returns the ID slot of flow f.
func slotOf[T any](f *flow[T]) int32 { return int32(uint32(f.id)) - 1 }

// xflowOf returns f's exact-mode state, growing the slot table if needed.
func (n *Network[T]) xflowOf(f *flow[T]) *xflow {
	s := n.x
	slot := slotOf(f)
	for int(slot) >= len(s.xs) {
		s.xs = append(s.xs, xflow{pos: -1})
	}
	return &s.xs[slot]
}

// exactAdd starts active flow f in the exact mode: at its cap at once when
// every link has room for it (no saturated link changes, so the solution
// stays exact), else placed by the next solve.
func (n *Network[T]) exactAdd(f *flow[T]) {
	x := n.xflowOf(f)
	*x = xflow{bn: bnNone, pos: -1, capVer: x.capVer}
	if !n.dirty && n.fitsUnsaturated(f) {
		n.joinCap(f, f.bytes)
		for _, l := range f.path {
			n.xload(l, f.cap)
		}
		n.fastAdds++
		return
	}
	n.x.newFlows = append(n.x.newFlows, slotOf(f))
	n.markDirty()
}

// exactDrop takes active flow f out of the exact solution. A flow at its
// cap on unsaturated links leaves every other rate as it was; any other
// change is solved before the next query.
func (n *Network[T]) exactDrop(f *flow[T]) {
	n.nActive--
	for _, l := range f.path {
		n.links[l].flows--
	}
	s := n.x
	x := &s.xs[slotOf(f)]
	switch b := x.bn; b {
	case bnNone:
		i := slices.Index(s.newFlows, slotOf(f))
		s.newFlows = slices.Delete(s.newFlows, i, i+1)
		return
	case bnCap:
		saturated := n.crossesSaturated(f)
		n.leaveCap(f)
		for _, l := range f.path {
			n.xload(l, -f.cap)
		}
		if !saturated {
			n.fastDrops++
			return
		}
	default:
		lv := n.links[b].level
		n.leaveGroup(f)
		for _, l := range f.path {
			n.xload(l, -lv)
		}
		s.refreshLink(b, lv)
	}
	for _, l := range f.path {
		if !n.links[l].cold {
			s.touched = append(s.touched, int32(l))
			n.listDemote(l)
		}
	}
	n.markDirty()
}

// joinGroup makes f a member of link b's group with rem bytes left. The
// caller moves the link loads, and has turned the links f crosses hot
// (promotePath) before its rate or group changed.
func (n *Network[T]) joinGroup(f *flow[T], b int32, rem float64) {
	s := n.x
	slot := slotOf(f)
	x := &s.xs[slot]
	x.bn = b
	xb := &s.xl[b]
	ents := x.entries(len(f.path))
	vb := xb.clock(n.links[b].level, n.now)
	for i, l := range f.path {
		ents[i] = s.countUp(int32(l), b, vb, n.links[l].cold)
		if int32(l) == b {
			n.links[b].nb++
		}
	}
	x.tag = xb.clock(n.links[b].level, n.now) + rem
	xb.minCap = min(xb.minCap, f.cap)
	s.memPush(b, member{tag: x.tag, seq: f.seq, slot: slot})
}

// leaveGroup takes f out of its bottleneck's group and returns the bytes
// it has left. The caller moves the link loads.
func (n *Network[T]) leaveGroup(f *flow[T]) float64 {
	s := n.x
	x := &s.xs[slotOf(f)]
	b := x.bn
	xb := &s.xl[b]
	vb := xb.clock(n.links[b].level, n.now)
	rem := max(x.tag-vb, 0)
	for i, l := range f.path {
		s.countDown(x.entries(len(f.path))[i], vb)
		if int32(l) == b {
			n.links[b].nb--
		}
	}
	s.memRemove(b, int(x.pos))
	x.pos = -1
	x.bn = bnNone
	if len(xb.mem) == 0 {
		// An empty group restarts its clock, so that tags stay small, and
		// crosses no cold link.
		xb.minCap, xb.lim = math.Inf(1), math.Inf(1)
		xb.v0, xb.t0 = 0, n.now
		n.listDemote(LinkID(b))
	}
	return rem
}

// joinCap runs f at its rate cap with rem bytes left. The caller moves the
// link loads, and has turned the links f crosses hot unless f is new.
func (n *Network[T]) joinCap(f *flow[T], rem float64) {
	s := n.x
	slot := slotOf(f)
	x := &s.xs[slot]
	x.bn = bnCap
	x.capVer++
	x.pos = -1
	f.rate, f.rem0, f.t0 = f.cap, rem, n.now
	f.finish = n.now + rem/f.cap
	for _, l := range f.path {
		n.promote(l) // its load changes
		xl := &s.xl[l]
		n.bankCaps(l)
		xl.capSum += f.cap
		xl.capCnt++
		if n.links[l].counting {
			continue
		}
		xl.capMax = max(xl.capMax, f.cap)
		xl.caps = append(xl.caps, capItem{slot, x.capVer})
		xl.capLiv++
	}
	s.setDone(&x.pos, doneItem{t: f.finish, seq: f.seq, id: -1 - slot})
}

// leaveCap takes capped flow f off its cap and returns the bytes it has
// left. The caller moves the link loads.
func (n *Network[T]) leaveCap(f *flow[T]) float64 {
	s := n.x
	x := &s.xs[slotOf(f)]
	rem := f.remaining(n.now)
	x.bn = bnNone
	for _, l := range f.path {
		xl := &s.xl[l]
		n.bankCaps(l)
		xl.capCnt--
		if xl.capCnt == 0 {
			xl.capSum, xl.capMax = 0, 0
			xl.caps = xl.caps[:0]
			xl.capLiv = 0
			continue
		}
		xl.capSum -= f.cap
		if n.links[l].counting {
			continue
		}
		xl.capLiv--
		if len(xl.caps) > 2*int(xl.capLiv)+8 {
			n.compactCaps(l)
		}
	}
	s.setDone(&x.pos, doneItem{t: math.Inf(1)})
	return rem
}

// promotePath turns hot the cold links f crosses, ahead of a change of
// its rate or group: their loads, summed now, still hold f's old rate.
func (n *Network[T]) promotePath(f *flow[T]) {
	for _, l := range f.path {
		n.promote(l)
	}
}

// bankCaps moves the bytes link l carried for capped flows up to now
// into its bank, ahead of a change of their rates' sum.
func (n *Network[T]) bankCaps(l LinkID) {
	xl := &n.x.xl[l]
	if dt := n.now - xl.capT; dt > 0 {
		xl.capBank += xl.capSum * dt
	}
	xl.capT = n.now
}

// xload moves link l's load by d in the exact mode, where loads serve the
// solve only: a link's bytes come from its counts and the groups' clocks
// (exactBytes), and a counting link's load is summed when asked for.
func (n *Network[T]) xload(l LinkID, d float64) {
	if k := &n.links[l]; !k.cold {
		k.load += d
		if k.flows == 0 || k.load < 0 {
			k.load = 0
		}
	}
}

// exactBytes returns the bytes link l has carried up to now: its bank,
// each count times its group's clock since the count last changed, and
// its capped flows' rates over time.
func (n *Network[T]) exactBytes(l LinkID) float64 {
	s := n.x
	xl := &s.xl[l]
	b := xl.bank + xl.capBank + xl.capSum*(n.now-xl.capT)
	for _, it := range xl.row {
		vb := s.xl[it.b].clock(n.links[it.b].level, n.now)
		b += float64(it.n) * (vb - s.entries[it.e].snap)
	}
	return b
}

// exactLoad returns link l's load: its counts times their groups' levels
// plus its capped flows' caps.
func (n *Network[T]) exactLoad(l LinkID) float64 {
	xl := &n.x.xl[l]
	load := xl.capSum
	for _, it := range xl.row {
		load += float64(it.n) * n.links[it.b].level
	}
	return load
}

// capValid reports whether cap-list entry c still stands for a capped flow.
func (s *exactState) capValid(c capItem) bool {
	x := &s.xs[c.slot]
	return x.bn == bnCap && x.capVer == c.ver
}

// compactCaps drops link l's stale cap-list entries and tightens capMax,
// an upper bound of the caps listed, to their greatest.
func (n *Network[T]) compactCaps(l LinkID) {
	s := n.x
	xl := &s.xl[l]
	live := xl.caps[:0]
	xl.capMax = 0
	for _, c := range xl.caps {
		if s.capValid(c) {
			live = append(live, c)
			xl.capMax = max(xl.capMax, n.slots[c.slot].f.cap)
		}
	}
	clear(xl.caps[len(live):])
	xl.caps = live
	xl.capLiv = int32(len(live))
}

// exactRemaining returns the bytes f has left at time t.
func (n *Network[T]) exactRemaining(f *flow[T], t float64) float64 {
	x := &n.x.xs[slotOf(f)]
	switch x.bn {
	case bnNone:
		return f.rem0
	case bnCap:
		return f.remaining(t)
	}
	return max(x.tag-n.x.xl[x.bn].clock(n.links[x.bn].level, t), 0)
}

// exactFinish returns when f completes at the current rates (+Inf if it
// never does).
func (n *Network[T]) exactFinish(f *flow[T]) float64 {
	x := &n.x.xs[slotOf(f)]
	switch x.bn {
	case bnNone:
		return math.Inf(1)
	case bnCap:
		return f.finish
	}
	xl := &n.x.xl[x.bn]
	lv := n.links[x.bn].level
	if !(lv > 0) {
		return math.Inf(1)
	}
	return xl.t0 + (x.tag-xl.v0)/lv
}

// exactRate returns f's current rate.
func (n *Network[T]) exactRate(f *flow[T]) float64 {
	x := &n.x.xs[slotOf(f)]
	switch x.bn {
	case bnNone:
		return 0
	case bnCap:
		return f.cap
	}
	return n.links[x.bn].level
}

// exactFirst returns the active flow that completes first, by (finish,
// the order flows were added in), and its completion time; nil if none
// completes at the current rates.
func (n *Network[T]) exactFirst() (*flow[T], float64) {
	s := n.x
	if len(s.done) == 0 {
		return nil, math.Inf(1)
	}
	it := s.done[0]
	if it.id >= 0 {
		return n.slots[s.xl[it.id].mem[0].slot].f, it.t
	}
	f := n.slots[-1-it.id].f
	return f, f.finish
}

// exactCollect moves every flow complete at time t (see the package doc
// for the tolerance) to the done queue, earliest first.
func (n *Network[T]) exactCollect(t float64) {
	for {
		f, fin := n.exactFirst()
		if f == nil || !(fin <= t || n.exactRemaining(f, t) <= CompletionTolerance*f.bytes) {
			return
		}
		f.finish = min(fin, t)
		f.state = stateFinished
		n.done = append(n.done, f)
		n.exactDrop(f)
		if n.streams != nil {
			n.restream(f.path)
		}
	}
}
