package network

import "math"

// Cold links. Most links a group's members cross have room to spare: on
// a busy cluster the flows through a receiving NIC are held to a fraction
// of its speed by the rack uplinks they also cross. Such a link cannot
// bind while the groups crossing it stay near their levels, so a level
// change need not visit it. A link with room (at least coolRoom of its
// capacity free) and no group of its own turns cold: its counts move to
// the groups' cold lists, its load is no longer kept (it is summed from
// its counts when asked for), and each group crossing it gets a limit,
// lim, below which the link keeps room whatever the others do:
//
//	lim_g <= level_g + room/occurrences
//
// for every group g crossing it, taken when it turned cold. While every
// group stays below its limit, the link's load stays below capacity. A
// group about to rise past its limit re-measures its cold links first
// (recertify): those that would fill up turn hot again and take part in
// the solve. A flow that starts on a cold link, or joins a group across
// one, turns it hot as well, since its count and load change.

// coolRoom is the share of its capacity a link must have free to turn
// cold; coolMargin the share kept free below the limits.
const (
	coolRoom   = 0.25
	coolMargin = 1e-6
)

// promote turns cold link m hot: its load is summed from its counts,
// its counts move to the groups' hot lists, and within a solve it learns
// which of its occurrences are rising and is marked.
func (n *Network[T]) promote(m LinkID) {
	k := &n.links[m]
	if !k.cold || k.counting {
		return
	}
	s := n.x
	k.cold = false
	k.load = n.exactLoad(m)
	for _, it := range s.xl[m].row {
		s.moveEntry(it.e, false)
	}
	n.listDemote(m)
	if v := &s.sv; v.solving {
		c := v.sc(int32(m))
		for _, it := range s.xl[m].row {
			if it.b != int32(m) && v.sc(it.b).gstate == gOpen {
				c.openCnt += it.n
				c.openOld += float64(it.n) * n.links[it.b].level
			}
		}
		n.mark(int32(m))
	}
}

// listDemote lists hot link m to be looked at for turning cold after the
// solve.
func (n *Network[T]) listDemote(m LinkID) {
	if x := &n.x.xl[m]; !x.listed {
		x.listed = true
		n.x.demote = append(n.x.demote, int32(m))
	}
}

// coolListed turns cold the listed links that have room and no group of
// their own, and limits the groups crossing them.
func (n *Network[T]) coolListed() {
	s := n.x
	for _, m := range s.demote {
		s.xl[m].listed = false
		k := &n.links[m]
		if k.cold || k.counting || k.nb > 0 {
			continue
		}
		load := n.exactLoad(LinkID(m))
		room := k.cap - load
		if room < coolRoom*k.cap {
			continue
		}
		k.cold = true
		x := &s.xl[m]
		occ := int32(0)
		for _, it := range x.row {
			occ += it.n
		}
		per := room * (1 - coolMargin) / float64(max(occ, 1))
		for _, it := range x.row {
			s.moveEntry(it.e, true)
			n.limit(it.b, n.links[it.b].level+per)
		}
	}
	s.demote = s.demote[:0]
}

// recertify re-measures the cold links group b crosses, as b is about to
// rise to need: those on which it could not reach need turn hot, the
// others limit every group crossing them afresh, and b's limit becomes
// the least of theirs. Within a solve an open group counts at the water
// level, which its members have reached, and an open group whose limit
// falls is queued to be looked at when the water reaches it. It reports
// whether any link turned hot.
func (n *Network[T]) recertify(b int32, need float64) bool {
	s := n.x
	x := &s.xl[b]
	lim := math.Inf(1)
	promoted := false
	for i := 0; i < len(x.cold); {
		m := x.cold[i].m
		k := &n.links[m]
		if k.counting {
			i++
			continue
		}
		xm := &s.xl[m]
		load, occ := xm.capSum, int32(0)
		for _, it := range xm.row {
			load += float64(it.n) * n.riseFrom(it.b)
			occ += it.n
		}
		per := (k.cap - load) * (1 - coolMargin) / float64(max(occ, 1))
		if n.riseFrom(b)+per <= need || k.cap-load < coolRoom*k.cap {
			n.promote(LinkID(m)) // moves x.cold[i] away
			promoted = true
			continue
		}
		for _, it := range xm.row {
			if it.b != b {
				n.limit(it.b, n.riseFrom(it.b)+per)
			}
		}
		lim = min(lim, n.riseFrom(b)+per)
		i++
	}
	x.lim = lim
	return promoted
}

// riseFrom is the rate group g's members have now: its level, or within a
// solve, if it is open, the water level they have risen to.
func (n *Network[T]) riseFrom(g int32) float64 {
	lv := n.links[g].level
	if v := &n.x.sv; v.solving && v.sc(g).gstate == gOpen {
		return max(lv, v.water)
	}
	return lv
}

// limit lowers group g's limit to lim. An open group must look at its
// cold links again before the water passes it.
func (n *Network[T]) limit(g int32, lim float64) {
	x := &n.x.xl[g]
	if lim >= x.lim {
		return
	}
	x.lim = lim
	if v := &n.x.sv; v.solving && v.sc(g).gstate == gOpen && lim < x.rest {
		x.rest = lim
		v.push(event(max(lim, v.water), evGroup, g))
	}
}
