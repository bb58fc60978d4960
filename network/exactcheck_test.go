package network

import (
	"fmt"
	"math"
)

// exactStateErr checks the exact mode's bookkeeping against the flows it
// describes, after a solve: every link's load is the sum of its flows'
// rates, the rates are feasible and max-min fair, each group's counts,
// members and completion time match its flows, and the capped flows' sums
// match theirs. It returns the first inconsistency found, or nil.
func exactStateErr[T any](n *Network[T]) error {
	n.ensureSolved()
	s := n.x
	if s == nil {
		return nil
	}
	if len(s.newFlows) != 0 {
		return fmt.Errorf("%d new flows left unplaced after a solve", len(s.newFlows))
	}
	flows := activeFlows(n)
	load := make([]float64, len(n.links))
	maxRate := make([]float64, len(n.links))
	counts := map[uint64]int32{}
	nb := make([]int32, len(n.links))
	members := make([]int, len(n.links))
	capSum := make([]float64, len(n.links))
	capCnt := make([]int32, len(n.links))
	for _, f := range flows {
		x := &s.xs[slotOf(f)]
		r := n.exactRate(f)
		for _, l := range f.path {
			load[l] += r
			maxRate[l] = max(maxRate[l], r)
		}
		switch {
		case x.bn == bnCap:
			for _, l := range f.path {
				if !n.links[l].counting {
					capSum[l] += f.cap
					capCnt[l]++
				}
			}
		case x.bn >= 0:
			members[x.bn]++
			for _, l := range f.path {
				counts[entKey(int32(l), x.bn)]++
				if int32(l) == x.bn {
					nb[x.bn]++
				}
			}
			if got := s.xl[x.bn].mem[x.pos].slot; got != slotOf(f) {
				return fmt.Errorf("flow %d: its heap position in group %d holds slot %d", f.seq, x.bn, got)
			}
		default:
			return fmt.Errorf("flow %d has no bottleneck after a solve", f.seq)
		}
		if r > f.cap*(1+1e-9) {
			return fmt.Errorf("flow %d: rate %v above its cap %v", f.seq, r, f.cap)
		}
	}
	for l := range n.links {
		k := &n.links[l]
		tol, got := 1e-9*max(k.cap, load[l], 1e-300), k.load
		if k.cold {
			tol, got = 1e-9*max(load[l], 1), n.exactLoad(LinkID(l))
		}
		if math.Abs(got-load[l]) > tol {
			return fmt.Errorf("link %d: load %v, its flows' rates sum to %v", l, got, load[l])
		}
		if !k.counting && load[l] > k.cap*(1+1e-9) {
			return fmt.Errorf("link %d: load %v above capacity %v", l, load[l], k.cap)
		}
		x := &s.xl[l]
		if nb[l] != k.nb || members[l] != len(x.mem) {
			return fmt.Errorf("link %d: %d members, %d occurrences; its flows give %d and %d", l, len(x.mem), k.nb, members[l], nb[l])
		}
		for _, it := range x.col {
			if counts[entKey(it.m, int32(l))] != it.n || it.n <= 0 {
				return fmt.Errorf("group %d: count %d on link %d, its flows give %d", l, it.n, it.m, counts[entKey(it.m, int32(l))])
			}
		}
		for _, it := range x.row {
			if counts[entKey(int32(l), it.b)] != it.n {
				return fmt.Errorf("link %d: row count %d for group %d, its flows give %d", l, it.n, it.b, counts[entKey(int32(l), it.b)])
			}
		}
		if !k.counting {
			if capCnt[l] != x.capCnt || math.Abs(capSum[l]-x.capSum) > 1e-9*max(capSum[l], 1) {
				return fmt.Errorf("link %d: capped flows %d summing to %v; its flows give %d and %v", l, x.capCnt, x.capSum, capCnt[l], capSum[l])
			}
		}
		if len(x.mem) > 0 {
			if x.gpos < 0 || s.done[x.gpos].t != x.nextDone(k.level) {
				return fmt.Errorf("group %d: completion heap entry %d does not hold its next completion %v", l, x.gpos, x.nextDone(k.level))
			}
		}
	}
	// Max-min: every flow is at its cap or crosses a saturated link on
	// which no flow is faster.
	for _, f := range flows {
		r := n.exactRate(f)
		if r >= f.cap*(1-1e-9) {
			continue
		}
		ok := false
		for _, l := range f.path {
			k := &n.links[l]
			if !k.counting && load[l] >= k.cap*(1-1e-9) && r >= maxRate[l]*(1-1e-9) {
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("flow %d (rate %v, cap %v, path %v) has no bottleneck: not max-min fair", f.seq, r, f.cap, f.path)
		}
	}
	return nil
}
