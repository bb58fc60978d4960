package network

import (
	"fmt"
	"math"
)

// Links whose capacity depends on how many flows cross them.
//
// A hard disk serves one sequential stream at its sequential rate, but two
// or more interleaved streams cost it a seek each time it moves from one
// to the next, so its aggregate rate with several streams is lower. Such a
// link (SetStreamCapacity) has two capacities: single while at most one
// flow occurrence crosses it, multi once two or more do. Every active flow
// counts, capped or not, and a path that lists the link twice counts
// twice (a merge that reads and writes the same disk is two streams).
// A flow held below its share by a cap still counts: each of its requests
// moves the head away from the other streams and back, however rarely it
// asks; and a capacity that depends only on which flows are active, not on
// their rates, keeps max-min sharing well defined. Were only flows "at
// their share" counted, the capacity would depend on the rates the solve
// is computing from it.
//
// The capacity is thus a function of the flow set, and a change of the set
// that moves a link across the one-to-two boundary changes its capacity
// at the same instant. The modes handle that change as they handle any
// change of the flow set:
//
//   - the exact mode (groups.go, lpf.go) needs nothing more than the new
//     capacity in place before it handles the flow that moved the count.
//     A start that lowers the capacity puts the new flow on the link: it
//     starts at its cap without a solve only if the link keeps room for it
//     at the new capacity (fitsUnsaturated, which turns a cold link hot),
//     else the solve re-runs the filling over every link of its path. An
//     end that raises the capacity leaves the link's rates feasible; if
//     the link was full, the ending flow crossed a saturated link and the
//     solve re-runs the filling over its path, else the link had room and
//     binds no one, with more room now. A flow added and removed between
//     two solves moves the count back where it was. The exact mode's churn
//     test against full solves covers these cases with stream-dependent
//     links;
//   - full solves read the capacity afresh at every solve;
//   - the quantized mode (SetQuantum) keeps its promise that links are
//     never over-subscribed: a fall that leaves the link's flows over the
//     new capacity makes the next solve due at once rather than a quantum
//     after the last (a second stream on a busy disk costs a solve), and a
//     rise serves the link's waiting line, as bandwidth a finished flow
//     frees does, and re-shares at the next due solve.

// streamCap is a link's capacity with at most one stream and with several.
type streamCap struct{ single, multi float64 }

// SetStreamCapacity makes link l's capacity depend on the flows crossing
// it: its capacity as given to New while at most one flow occurrence
// crosses it, multi once two or more do. multi must be positive and at
// most the link's capacity (several streams never go faster than one).
// It must be called before the first flow is added.
func (n *Network[T]) SetStreamCapacity(l LinkID, multi float64) error {
	if n.lastSeq != 0 {
		return fmt.Errorf("network: stream capacities must be set before the first flow")
	}
	if l < 0 || int(l) >= len(n.links) {
		return fmt.Errorf("network: link %d; want a link in [0,%d)", l, len(n.links))
	}
	k := &n.links[l]
	if k.counting {
		return fmt.Errorf("network: link %d only counts bytes; it has no capacity to vary", l)
	}
	if !(multi > 0) || math.IsInf(multi, 0) || multi > k.cap {
		return fmt.Errorf("network: link %d: capacity with several streams %v; want a positive rate at most its one-stream capacity %v", l, multi, k.cap)
	}
	if multi == k.cap {
		return nil // the same either way
	}
	if n.streams == nil {
		n.streams = make([]streamCap, len(n.links))
	}
	n.streams[l] = streamCap{single: k.cap, multi: multi}
	k.multi = true
	return nil
}

// restream brings the capacity of each stream-dependent link on path in
// line with the number of flow occurrences now crossing it, after a flow
// started or ended there.
func (n *Network[T]) restream(path []LinkID) {
	for _, l := range path {
		k := &n.links[l]
		if !k.multi {
			continue
		}
		want := n.streams[l].single
		if k.flows >= 2 {
			want = n.streams[l].multi
		}
		if want != k.cap {
			n.setCap(l, want)
		}
	}
}

// setCap changes link l's capacity to c, as the mode needs (see above).
func (n *Network[T]) setCap(l LinkID, c float64) {
	k := &n.links[l]
	old := k.cap
	switch {
	case n.x != nil:
		// The flow whose start or end moved the count is itself a change
		// the exact mode handles on this link (see above), so the new
		// capacity only has to be in place before it is.
		k.cap = c
	case n.quantum > 0 && !n.fullOnly:
		k.cap = c
		switch {
		case c < old && k.load > c*(1-saturationSlack):
			n.markDirty()
			n.due = n.now // its flows over-subscribe it: re-share now
		case c > old:
			if k.served < k.queued {
				n.serveWaiting(l)
			}
			if k.load > old*(1-saturationSlack) {
				n.markDirty()
			}
		}
	default:
		k.cap = c
		n.markDirty()
	}
}
