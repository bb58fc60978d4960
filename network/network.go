// Package network is a flow-level bandwidth model: flows cross paths of
// full-duplex links and share link capacity with exact max-min fairness,
// subject to per-flow rate caps.
//
// Rates are piecewise constant. They are re-solved exactly when the set of
// active flows changes: on AddFlow, Remove, and whenever a flow completes.
// Solves are lazy, so any number of changes at one instant cost a single
// solve before the next query. The exact mode keeps the solution between
// changes and re-runs progressive filling only where a change can move a
// rate (groups.go, lpf.go, cool.go); the quantized mode, and tests as the
// reference, re-solve every flow (solver.go).
//
// Time is virtual (seconds as float64) and starts at 0. It only moves
// forward: a call with a time earlier than the network's current time is
// clamped to the current time (treated as "now"), never a panic, so that a
// caller's rounding noise cannot crash a long simulation.
//
// Completion tolerance: a flow is complete at time t when its computed
// completion time is <= t, or when its remaining bytes at t are at most
// CompletionTolerance times its size. The second rule absorbs float error, so
// that PopCompleted(t) with t taken from NextCompletion (or recomputed by the
// caller with slightly different rounding) always returns the flow.
//
// Determinism: flows are kept and iterated in the order they were added,
// links in index order, and the exact mode's counts in the order they were
// made (its one hash table is only looked up, never iterated), so
// identical call sequences give bit-identical results.
//
// Quantized mode (SetQuantum) trades exactness for speed on large, busy
// networks: see SetQuantum. The default is exact.
package network

import (
	"fmt"
	"math"
	"slices"
)

// CompletionTolerance is the fraction of a flow's size that may remain when
// it is declared complete; it absorbs float rounding in rate*time products.
const CompletionTolerance = 1e-9

// Unlimited is a link capacity that never binds: such a link only counts
// the bytes of the flows that cross it (LinkBytes), for accounting. The
// solver leaves it out of max-min filling, which cannot change any rate.
const Unlimited = math.MaxFloat64 / 4

// LinkID indexes a link in the capacities slice given to New.
type LinkID int32

// FlowID identifies a flow within one Network. IDs are never reused and
// never zero, so the zero value can mean "no flow". An ID is a handle (a
// slot and its generation), so looking a flow up costs no hashing; it says
// nothing about the order flows were added in.
type FlowID int64

func makeID(slot int32, gen uint32) FlowID { return FlowID(uint64(gen)<<32 | uint64(slot+1)) }

// Completed describes a finished flow, as returned by PopCompleted.
type Completed[T any] struct {
	ID    FlowID
	Data  T       // the value passed to AddFlow, for the caller's bookkeeping
	Bytes float64 // the flow's size
	Start float64 // time the flow was added
	// Finish is the exact completion time computed by the model; it may be
	// earlier than the time passed to PopCompleted.
	Finish float64
}

type flowState uint8

const (
	stateActive   flowState = iota // transferring, takes part in solves
	stateFinished                  // complete, waiting in the done queue
	stateGone                      // popped or removed; awaiting compaction
)

// maxPath is the longest path a flow may have, so that its prefix of
// links a solve lists (flow.nb) fits in 16 bits.
const maxPath = math.MaxUint16

// inlinePath is the longest path stored inside its flow; a datacenter
// path (disk, NIC, two uplinks, NIC, disk, an accounting link) fits.
const inlinePath = 8

// flow is one transfer. Its progress is stored lazily as (rem0 at t0) plus a
// constant rate, so advancing time costs nothing per flow.
//
// A flow is 128 bytes, two cache lines, and holds only what the network
// reads while the flow is active; the caller's value and the start time
// are kept by its ID's slot (slotEntry), as is the exact mode's state
// (xflow). A quantized solve visits every active flow three times
// (listing it, freezing it, publishing its rate) and a day runs ninety
// thousand solves over thousands of flows, so every line more is a cache
// miss per visit; and the allocator puts 128-byte objects on 128-byte
// boundaries, so a flow never straddles a third line. Each quantized
// solve also moves the active flows into an arena in the order it lists
// them (relocate), so that the next one reads them in memory order: the
// structs AddFlow hands out are reused last-in first-out and lie
// scattered, and the first visit of a solve missed the cache on each
// (the arena's 128-byte elements sit on 128-byte boundaries too). In the
// exact mode, rate, rem0, t0 and finish hold only while the flow runs at
// its cap; otherwise its group's clock gives its progress (groups.go).
type flow[T any] struct {
	state flowState
	// home is where the struct lives: 0 on its own (from newFlow), else
	// 1 + the index of the solve's arena that holds it (relocate).
	home uint8
	// nb is the length of the path's prefix that holds all its links
	// but counting ones (Unlimited): a solve lists and charges only
	// those, and a caller that puts its accounting links last spares it
	// a visit of each.
	nb     uint16
	ver    uint32 // bumped whenever finish changes or the struct is reused, to retire finish-queue entries
	path   []LinkID
	inl    [inlinePath]LinkID // storage for short paths, saving an allocation per flow
	rate   float64
	rem0   float64 // remaining bytes at time t0
	t0     float64 // time of the last solve that set rate
	cap    float64 // +Inf when uncapped
	finish float64 // t0 + rem0/rate; exact completion time once finished
	seq    int64   // the order flows were added in: ties break on it
	bytes  float64
	id     FlowID
}

// slotEntry is one ID slot: the flow holding it, if any, the slot's
// generation, and what a completion reports beside the flow's own fields.
// The caller's value is held here rather than behind an interface: a
// simulator starts tens of millions of flows, and a separate object per
// flow would cost an allocation or a recycled object's cache miss at each
// start and end, while slots are reused last-in first-out and stay warm.
type slotEntry[T any] struct {
	f     *flow[T]
	gen   uint32
	start float64 // time the flow was added
	data  T
}

// remaining returns the bytes left at time t (t >= f.t0) at the current rate.
func (f *flow[T]) remaining(t float64) float64 {
	r := f.rem0 - f.rate*(t-f.t0)
	if r < 0 {
		return 0
	}
	return r
}

// Network holds links and active flows. T is the caller's value carried by
// each flow (AddFlow's data, returned in Completed.Data): what the flow
// belongs to. It is held inside the flow, so a small value type costs no
// allocation. It is not safe for concurrent use.
type Network[T any] struct {
	links []link
	now   float64
	// finishQ orders active flows by completion time, so that the next
	// completion and the flows done by a time are found without a scan.
	finishQ finishQueue[T]
	// gone counts dropped entries still in flows, compacted when they
	// outnumber live ones.
	gone int
	// fullOnly makes the exact mode re-solve every flow at every change,
	// without fast paths: the reference tests compare the exact mode with.
	fullOnly bool
	// onSolve, when set (by tests), runs after every solve.
	onSolve func()
	lastSeq int64
	flows   []*flow[T] // in the order added; may hold non-active entries until the next solve compacts them
	// slots holds the flows not yet popped or removed, by their ID's
	// slot, and free the unused slots, reused last-in first-out.
	slots       []slotEntry[T]
	free        []int32
	out         []Completed[T] // PopCompleted's result, reused
	done        []*flow[T]     // finished but not yet popped
	nActive     int
	dirty       bool
	solves      int // number of solves run, for tests of laziness
	fastAdds    int // flows added without a solve
	fastDrops   int // flows dropped without a solve
	provisional int // quantized-mode changes applied between solves
	handOffs    int // flows raised between solves with bandwidth an ending flow freed
	peak        int // most flows active at once
	sv          solver

	// quantum > 0 selects quantized mode (SetQuantum): loads always equal
	// the sum of current rates, and a dirty solution is re-solved at due,
	// no sooner than quantum after the previous solve.
	quantum   float64
	lastSolve float64
	due       float64
	// waiting[l] holds the flows that started on link l, while it was
	// full, below its fair share at the last solve (link.level): they are
	// first in line for bandwidth freed on the link (serveWaiting).
	// Quantized mode only. Its first link.served entries have been dealt
	// with; they stay in place until the next solve empties the line, so
	// that its storage is reused rather than re-grown.
	waiting [][]waiter[T]
	// reusable holds flows that ended and left every list, for AddFlow to
	// reuse: a day on 600 nodes starts tens of millions of flows.
	reusable []*flow[T]
	// arenas hold the active flows of the last two solves, in list order
	// (relocate): each solve moves the active flows into the arena the
	// solve before last filled, so that the next solve reads them in
	// memory order.
	arenas [2][]flow[T]
	arena  int // the arena the last solve filled
	// x is the exact mode's incremental solution (groups.go, lpf.go); nil
	// in quantized mode and for full solves (fullOnly). modeSet records
	// that the first flow chose it.
	x       *exactState
	modeSet bool
	// streams holds, by link, the capacities of links whose capacity
	// depends on how many flows cross them (streams.go); nil when no link
	// has, so that the other networks pay one nil check a change.
	streams []streamCap
}

// link is one link's state. A flow's start or end reads and writes most
// of it for every link of its path, so it is kept together, one cache
// line per link, rather than in a slice per field.
type link struct {
	cap   float64
	load  float64 // sum of flow rates: valid when !dirty, always in quantized mode
	bytes float64 // bytes carried up to t
	t     float64 // when bytes was last brought up to date
	// level is the link's fair share at the last solve: the rate of the
	// flows it bottlenecked. In quantized mode it is +Inf if it
	// bottlenecked none; in the exact mode it is its group's rate (nb > 0).
	level float64
	// flows counts active flows' path occurrences, kept as flows start
	// and end so that a solve need not count them.
	flows int32
	// queued and served are len(Network.waiting[l]) and how many of its
	// entries have been dealt with.
	queued, served int32
	// nb counts, in the exact mode, the path occurrences of the flows it
	// bottlenecks (its group, groups.go) on it. It sits here rather than
	// with the group because a solve reads it with the load for every
	// link it visits.
	nb int32
	// counting marks an Unlimited link, which only counts bytes and is
	// left out of solves.
	counting bool
	// cold marks, in the exact mode, a link certified to have room
	// (cool.go): its load is not kept, and counting links are cold.
	cold bool
	// multi marks a link whose capacity depends on how many flows cross
	// it (streams.go).
	multi bool
	_     [5]byte // pads the struct to a 64-byte cache line
}

// waiter is a flow in a link's waiting line, with its seq to tell it from
// a later flow recycled into the same struct.
type waiter[T any] struct {
	f   *flow[T]
	seq int64
}

// newFlow returns a recycled flow struct, or a new one. A recycled one
// goes on counting versions from its past life, so that finish-queue
// entries of that life stay stale.
func (n *Network[T]) newFlow() *flow[T] {
	if k := len(n.reusable); k > 0 {
		f := n.reusable[k-1]
		n.reusable[k-1] = nil
		n.reusable = n.reusable[:k-1]
		f.ver++
		return f
	}
	return &flow[T]{}
}

// Stats counts what a network did, for performance reports.
type Stats struct {
	Solves      int // exact max-min solves run (incremental in the exact mode)
	FastAdds    int // flows started without a solve (exact fast path)
	FastDrops   int // flows ended without a solve (exact fast path)
	Provisional int // flows started or ended between solves in quantized mode
	HandOffs    int // flows raised between solves with bandwidth an ending flow freed
	PeakFlows   int // most flows active at once
}

// Stats returns the network's counters so far.
func (n *Network[T]) Stats() Stats {
	return Stats{Solves: n.solves, FastAdds: n.fastAdds, FastDrops: n.fastDrops,
		Provisional: n.provisional, HandOffs: n.handOffs, PeakFlows: n.peak}
}

// SetFullSolves makes the exact mode re-solve every flow from scratch at
// every change, with none of its kept solution or fast paths: the
// reference the exact mode is checked against, on whole runs as in the
// network's own tests (TestExactMatchesFullSolvesOnACluster). It is many
// times slower. Call it before the first flow.
func (n *Network[T]) SetFullSolves(on bool) { n.fullOnly = on }

// SetQuantum selects quantized re-solving with period q seconds of virtual
// time (q = 0, the default, is the exact mode). It must be called before
// the first flow is added.
//
// In the exact mode every change to the flow set that can move a rate is
// followed by a max-min solve; on a 600-node cluster under a Facebook trace
// that is tens of solves per simulated second, each visiting the few
// links and groups the change moves (lpf.go). In quantized mode a change
// never triggers more than one full solve per q:
//
//   - a flow that starts between solves gets, at once, the bandwidth left
//     unused on its path (its cap if every link has room, else the least
//     residual capacity of its links, possibly 0), so a start costs
//     O(path) and links are never over-subscribed;
//   - a flow that starts on a full link below that link's fair share at the
//     last solve joins the link's waiting line, and bandwidth freed on the
//     link between solves goes first to that line, first come first
//     served, each flow up to the link's last fair share and as far as its
//     cap and other links allow; freed bandwidth nobody waits for idles
//     until a later start takes it or the next solve re-shares it;
//   - the next full (exact) solve runs at the first moment at least q after
//     the previous one (changes at the instant of a solve are solved at
//     that instant), and every solve yields the exact max-min rates of the
//     flows then active.
//
// Changes that the exact mode handles without a solve (a capped flow on
// links with room for it, see AddFlow) are exact here too. The error is
// bounded by q per change on saturated links: a flow may run up to q below
// its fair share, and freed bandwidth may idle up to q. Completion times
// stay exact for the rates in force, and bytes are conserved.
//
// The waiting line is what keeps a quantum of seconds accurate on a
// cluster whose uplinks are full: a reduce fetches from its map hosts in a
// chain of short flows, and without it each of them would wait for the
// next solve. Other rules were measured (docs/performance.md, Network modes and their
// error): starting flows at their fair share of full links removes the
// wait but over-subscribes links between solves; handing freed bandwidth to
// a few flows of the link in turn needs per-link flow lists and helps
// flows that were not short; moving a waiter that another full link holds
// back to that link's line narrows the per-job bias by a third for 6% more
// CPU; giving a starting flow the link's last fair share at once, taken
// from flows the link held to it at the last solve, removes the typical
// short job's delay but moves cross-rack bytes by 1% for 6-11% more CPU.
func (n *Network[T]) SetQuantum(q float64) error {
	if math.IsNaN(q) || math.IsInf(q, 0) || q < 0 {
		return fmt.Errorf("network: quantum %v s; want a finite value >= 0", q)
	}
	if n.lastSeq != 0 {
		return fmt.Errorf("network: the quantum must be set before the first flow")
	}
	n.quantum = q
	n.finishQ.window = q
	n.lastSolve = math.Inf(-1)
	if q > 0 {
		n.waiting = make([][]waiter[T], len(n.links))
	}
	return nil
}

// markDirty records that the rates are no longer max-min fair, and when the
// next solve is due: now in the exact mode, one quantum after the previous
// solve in quantized mode. Changes at the very instant of the last solve
// are due at once, so that a solve sees every change of its instant, as
// the exact mode's lazy solve does.
func (n *Network[T]) markDirty() {
	if n.dirty {
		return
	}
	n.dirty = true
	n.due = n.now
	if n.now != n.lastSolve {
		n.due = max(n.now, n.lastSolve+n.quantum)
	}
}

// New creates a network whose link i has capacity capacities[i] in
// bytes/second and whose flows carry values of type T. Every capacity must
// be positive and finite; Unlimited (or more) makes a link that only counts
// bytes.
func New[T any](capacities []float64) (*Network[T], error) {
	links := make([]link, len(capacities))
	for i, c := range capacities {
		if !(c > 0) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("network: link %d has capacity %v; want a positive finite bytes/second", i, c)
		}
		links[i] = link{cap: c, level: math.Inf(1), counting: c >= Unlimited}
	}
	return &Network[T]{links: links}, nil
}

// Now returns the network's current virtual time.
func (n *Network[T]) Now() float64 { return n.now }

// AddFlow starts a transfer of bytes over path at time now and returns its ID.
//
// rateCap <= 0 or +Inf means uncapped. A flow with an empty path (e.g. one
// limited only by an application rate) must have a finite positive cap, as
// must one whose links are all Unlimited: nothing else bounds its rate.
// A 0-byte flow completes immediately and is returned by the next
// PopCompleted with Finish == now. A link listed k times in a path carries k
// times the flow's rate (paths are not expected to repeat links).
// Invalid input returns an error and changes nothing.
func (n *Network[T]) AddFlow(now float64, path []LinkID, bytes float64, rateCap float64, data T) (FlowID, error) {
	if math.IsNaN(bytes) || math.IsInf(bytes, 0) || bytes < 0 {
		return 0, fmt.Errorf("network: flow size %v bytes; want a finite value >= 0", bytes)
	}
	if math.IsNaN(rateCap) {
		return 0, fmt.Errorf("network: rate cap is NaN; use 0 or +Inf for uncapped")
	}
	if rateCap <= 0 {
		rateCap = math.Inf(1)
	}
	if len(path) == 0 && math.IsInf(rateCap, 1) {
		return 0, fmt.Errorf("network: flow with an empty path needs a finite positive rate cap, else its rate is unbounded")
	}
	bounded := !math.IsInf(rateCap, 1)
	if len(path) > maxPath {
		return 0, fmt.Errorf("network: path of %d links; want at most %d", len(path), maxPath)
	}
	nb := 0
	for i, l := range path {
		if l < 0 || int(l) >= len(n.links) {
			return 0, fmt.Errorf("network: path[%d] is link %d; want a link in [0,%d)", i, l, len(n.links))
		}
		if !n.links[l].counting {
			bounded, nb = true, i+1
		}
	}
	if !bounded {
		return 0, fmt.Errorf("network: flow over Unlimited links only needs a finite positive rate cap, else its rate is unbounded")
	}
	n.advanceTo(now)
	if !n.modeSet {
		n.modeSet = true
		if n.quantum == 0 && !n.fullOnly {
			n.exactInit()
		}
	}
	n.lastSeq++
	f := n.newFlow()
	*f = flow[T]{
		ver: f.ver, nb: uint16(nb), seq: n.lastSeq, bytes: bytes, cap: rateCap,
		rem0: bytes, t0: n.now, finish: math.Inf(1),
	}
	if len(path) <= inlinePath {
		f.path = f.inl[:len(path):len(path)]
		copy(f.path, path)
	} else {
		f.path = slices.Clone(path)
	}
	n.register(f, data)
	if bytes == 0 {
		f.state, f.finish = stateFinished, n.now
		n.done = append(n.done, f)
		return f.id, nil
	}
	n.nActive++
	for _, l := range f.path {
		n.links[l].flows++
	}
	if n.streams != nil {
		n.restream(f.path)
	}
	n.peak = max(n.peak, n.nActive)
	if n.x != nil {
		n.exactAdd(f)
		return f.id, nil
	}
	n.flows = append(n.flows, f)
	if n.quantum > 0 && !n.fullOnly {
		n.addQuantized(f)
		return f.id, nil
	}
	if !n.dirty && !n.fullOnly && n.fitsUnsaturated(f) {
		// Every link keeps slack with the flow at its cap: no saturated
		// link changes, so every other rate stays max-min fair and the
		// new flow's own bottleneck is its cap. The solution stays exact.
		f.rate = f.cap
		f.finish = f.t0 + f.rem0/f.rate
		for _, l := range f.path {
			n.addLoad(l, f.rate)
		}
		n.finishQ.add(f)
		n.fastAdds++
		return f.id, nil
	}
	n.markDirty()
	return f.id, nil
}

// addQuantized starts f in quantized mode: at its cap when every link has
// room for it (exact when the solution was exact), else at the residual
// capacity of its tightest link until the next solve.
func (n *Network[T]) addQuantized(f *flow[T]) {
	if n.fitsUnsaturated(f) {
		f.rate = f.cap
		n.fastAdds++
	} else {
		r := f.cap
		for _, l := range f.path {
			k := &n.links[l]
			r = min(r, max(k.cap-k.load, 0))
		}
		f.rate = r
		n.provisional++
		n.markDirty()
		for _, l := range f.path {
			if k := &n.links[l]; r < k.level && k.load+r > k.cap*(1-saturationSlack) {
				n.waiting[l] = append(n.waiting[l], waiter[T]{f, f.seq})
				k.queued++
			}
		}
	}
	if f.rate <= 0 {
		f.rate = 0
		return // waits for the next solve
	}
	f.finish = f.t0 + f.rem0/f.rate
	for _, l := range f.path {
		n.addLoad(l, f.rate)
	}
	n.finishQ.add(f)
}

// saturationSlack is the relative headroom below which a link counts as
// saturated: max-min fairness treats a link at capacity as a bottleneck,
// and float sums of rates land a few ulps either side of it.
const saturationSlack = 1e-9

// fitsUnsaturated reports whether capped flow f can run at its cap with
// every link on its path still below capacity.
func (n *Network[T]) fitsUnsaturated(f *flow[T]) bool {
	if math.IsInf(f.cap, 1) {
		return false
	}
	for i, l := range f.path {
		times := 1.0 // a link listed k times carries k times the rate
		for _, m := range f.path[:i] {
			if m == l {
				times++
			}
		}
		k := &n.links[l]
		load := k.load
		if k.cold {
			load = n.exactLoad(l)
		}
		if load+times*f.cap > k.cap*(1-saturationSlack) {
			return false
		}
	}
	return true
}

// crossesSaturated reports whether any link on f's path is at capacity.
func (n *Network[T]) crossesSaturated(f *flow[T]) bool {
	if math.IsInf(f.cap, 1) || f.rate < f.cap {
		return true // an uncapped flow, or one below its cap, has a bottleneck link
	}
	for _, l := range f.path {
		// A cold link is certified to have room.
		if k := &n.links[l]; !k.cold && k.load > k.cap*(1-saturationSlack) {
			return true
		}
	}
	return false
}

// drop takes active flow f out of the solution: without a re-solve when it
// ran at its cap on unsaturated links only (nobody else was limited by
// those links, so no other rate changes), else by marking the solution
// dirty.
func (n *Network[T]) drop(f *flow[T]) {
	if n.x != nil {
		n.exactDrop(f)
		if n.streams != nil {
			n.restream(f.path)
		}
		return
	}
	n.nActive--
	for _, l := range f.path {
		n.links[l].flows--
	}
	quantized := n.quantum > 0 && !n.fullOnly
	if !quantized && (n.dirty || n.fullOnly || n.crossesSaturated(f)) {
		n.markDirty()
		if n.streams != nil {
			n.restream(f.path)
		}
		return
	}
	// In quantized mode loads always match the rates: the bandwidth f
	// frees goes at once to flows that started on its links while they
	// were full (serveWaiting), and the rest waits for a start or the next
	// solve.
	if quantized && n.crossesSaturated(f) {
		n.provisional++
		n.markDirty()
	} else {
		n.fastDrops++
	}
	for _, l := range f.path {
		n.setLoad(l, max(n.links[l].load-f.rate, 0))
	}
	if quantized && f.rate > 0 {
		for _, l := range f.path {
			if k := &n.links[l]; k.served < k.queued {
				n.serveWaiting(l)
			}
		}
	}
	f.rate = 0
	if n.streams != nil {
		n.restream(f.path)
	}
	if n.gone++; n.gone > 64 && n.gone > len(n.flows)/2 {
		n.sweep()
	}
}

// serveWaiting gives link l's spare bandwidth to the flows that started
// on it while it was full, first come first served, each up to the link's
// fair share at the last solve and as far as its cap and its other links
// allow. A flow left short of that share by a lack of spare on l stays
// first in line.
func (n *Network[T]) serveWaiting(l LinkID) {
	k := &n.links[l]
	spare := k.cap - k.load
	q := n.waiting[l]
	i := int(k.served)
	for ; i < len(q) && spare > 0; i++ {
		g := q[i].f
		if g.state != stateActive || g.seq != q[i].seq {
			continue // ended, and perhaps recycled for a newer flow
		}
		give := min(spare, k.level-g.rate, g.cap-g.rate)
		for _, o := range g.path {
			if o != l {
				give = min(give, n.links[o].cap-n.links[o].load)
			}
		}
		if give > 0 {
			n.raise(g, give)
			spare -= give
			if spare <= 0 && g.rate < k.level {
				break
			}
		}
	}
	k.served = int32(i)
}

// raise adds d to active flow g's rate between solves.
func (n *Network[T]) raise(g *flow[T], d float64) {
	g.rem0 = g.remaining(n.now)
	g.t0 = n.now
	g.rate += d
	for _, l := range g.path {
		n.addLoad(l, d)
	}
	g.finish = g.t0 + g.rem0/g.rate
	g.ver++
	n.finishQ.add(g)
	n.handOffs++
}

// sweep drops finished and removed flows from n.flows without touching
// active ones, so a long run of fast-path changes keeps the list short.
func (n *Network[T]) sweep() {
	live := n.flows[:0]
	for _, f := range n.flows {
		if f.state == stateActive {
			live = append(live, f)
		} else {
			n.recycle(f)
		}
	}
	clear(n.flows[len(live):])
	n.flows = live
	n.gone = 0
}

// setLoad changes link l's load, first banking the bytes it carried at the
// old load.
func (n *Network[T]) setLoad(l LinkID, v float64) {
	k := &n.links[l]
	if dt := n.now - k.t; dt > 0 {
		k.bytes += k.load * dt
	}
	k.t = n.now
	k.load = v
}

// addLoad adds d to link l's load.
func (n *Network[T]) addLoad(l LinkID, d float64) { n.setLoad(l, n.links[l].load+d) }

// Remove cancels a flow (e.g. its task was killed) at time now and returns
// the bytes it had transferred. A flow that already completed but was not
// yet popped is dropped from the pending completions and reports its full
// size. ok is false for an unknown or already popped/removed flow.
func (n *Network[T]) Remove(now float64, id FlowID) (transferred float64, ok bool) {
	n.advanceTo(now)
	f := n.lookup(id)
	if f == nil {
		return 0, false
	}
	n.release(f)
	if f.state == stateFinished {
		n.done = slices.DeleteFunc(n.done, func(g *flow[T]) bool { return g == f })
		f.state = stateGone
		n.recycleNow(f)
		return f.bytes, true
	}
	transferred = f.bytes - n.remainingOf(f, n.now)
	f.state = stateGone
	f.ver++
	n.drop(f)
	n.recycleNow(f)
	return transferred, true
}

// NextCompletion returns the earliest completion time among active flows at
// the current rates. If completions are already pending (a flow finished
// during an earlier Advance and was not popped), it returns the current time
// so that the caller pops them promptly; their exact times are in
// Completed.Finish. ok is false when nothing is active or pending.
func (n *Network[T]) NextCompletion() (t float64, ok bool) {
	if len(n.done) > 0 {
		return n.now, true
	}
	n.ensureSolved()
	if n.nActive == 0 {
		return 0, false
	}
	return n.nextStop(), true
}

// nextStop is the next moment the flow set changes by itself: the earliest
// completion or, in quantized mode, a due re-solve.
func (n *Network[T]) nextStop() float64 {
	t := n.nextFinish()
	if n.dirty {
		t = min(t, n.due)
	}
	return t
}

// nextFinish is the earliest completion among active flows, from the
// finish queue, or +Inf if none. With a solve due, a finish after it is
// not needed: nextStop is the solve then, and +Inf may stand for it.
func (n *Network[T]) nextFinish() float64 {
	if n.x != nil {
		_, t := n.exactFirst()
		return t
	}
	by := math.Inf(1)
	if n.dirty {
		by = n.due
	}
	if f := n.first(by); f != nil {
		return f.finish
	}
	return math.Inf(1)
}

// first returns the active flow first by (finish, seq), dropping stale
// queue entries; nil if none finishes, or if none can complete (even by the
// tolerance) by time by. Flows the queue left out (finishQueue.add) are
// queued afresh only when one of them could be needed.
func (n *Network[T]) first(by float64) *flow[T] {
	q := &n.finishQ
	for {
		if f := q.top(); f != nil || !q.unqueued {
			return f
		}
		if len(q.later) == 0 && by <= q.safe {
			return nil
		}
		base := math.Inf(1)
		for _, f := range n.flows {
			if f.state == stateActive {
				base = min(base, f.finish)
			}
		}
		if math.IsInf(base, 1) {
			q.reset(n.now) // nothing finishes at the current rates
			return nil
		}
		q.refillFrom(base)
		for _, f := range n.flows {
			if f.state == stateActive {
				q.add(f)
			}
		}
	}
}

// PopCompleted advances to now and removes and returns every flow finished
// by now, ordered by finish time, then the order the flows were added in.
// Flows that finish before now release their bandwidth at their exact
// finish time, so the result does not depend on how finely the caller steps
// time. The returned slice is reused by the next call: a simulation pops
// completions millions of times.
func (n *Network[T]) PopCompleted(now float64) []Completed[T] {
	n.advanceTo(now)
	// No solve needed here: the last solved rates held up to n.now, and
	// flows added since have rate 0, so collect sees exact progress.
	n.collect(n.now)
	if len(n.done) == 0 {
		return nil
	}
	slices.SortFunc(n.done, func(a, b *flow[T]) int {
		if a.finish != b.finish {
			if a.finish < b.finish {
				return -1
			}
			return 1
		}
		return int(a.seq - b.seq)
	})
	out := n.out[:0]
	for i, f := range n.done {
		e := &n.slots[int32(uint32(f.id))-1]
		out = append(out, Completed[T]{ID: f.id, Data: e.data, Bytes: f.bytes, Start: e.start, Finish: f.finish})
		f.state = stateGone
		n.release(f)
		n.recycleNow(f)
		n.done[i] = nil
	}
	n.done = n.done[:0]
	if old := len(n.out); old > len(out) && cap(out) >= old {
		clear(out[len(out):old]) // drop the previous results' Data
	}
	n.out = out
	return out
}

// Advance progresses all flows up to now. Flows finishing on the way are
// completed at their exact times (their bandwidth is re-shared from then on)
// and queued for PopCompleted. A now earlier than the current time (or NaN)
// is clamped: nothing happens. Advance(+Inf) runs every flow to completion
// and leaves the clock at the last completion time.
func (n *Network[T]) Advance(now float64) { n.advanceTo(now) }

// Rate returns the current rate of an active flow in bytes/second, or 0 for
// a flow that is unknown, finished or removed.
func (n *Network[T]) Rate(id FlowID) float64 {
	n.ensureSolved()
	if f := n.lookup(id); f != nil && f.state == stateActive {
		if n.x != nil {
			return n.exactRate(f)
		}
		return f.rate
	}
	return 0
}

// Progress returns a flow's size and the bytes it has moved by time now,
// which must not be past the next change of rates (NextCompletion); a
// flow finished but not yet popped has moved them all. ok is false for a
// flow that is unknown, popped or removed. It changes nothing: the
// network's clock stays where it was, and no solve runs, so that asking
// does not move when solves happen.
func (n *Network[T]) Progress(now float64, id FlowID) (size, moved float64, ok bool) {
	f := n.lookup(id)
	if f == nil {
		return 0, 0, false
	}
	if f.state != stateActive {
		return f.bytes, f.bytes, true
	}
	return f.bytes, f.bytes - n.remainingOf(f, max(now, n.now)), true
}

// LinkLoad returns the current sum of flow rates on link l (0 for an
// out-of-range l).
func (n *Network[T]) LinkLoad(l LinkID) float64 {
	n.ensureSolved()
	if l < 0 || int(l) >= len(n.links) {
		return 0
	}
	if n.x != nil && n.links[l].cold {
		return n.exactLoad(l)
	}
	return n.links[l].load
}

// LinkBytes returns the cumulative bytes carried by link l up to the current
// time (0 for an out-of-range l).
func (n *Network[T]) LinkBytes(l LinkID) float64 {
	if l < 0 || int(l) >= len(n.links) {
		return 0
	}
	n.ensureSolved()
	if n.x != nil {
		return n.exactBytes(l)
	}
	k := &n.links[l]
	return k.bytes + k.load*(n.now-k.t)
}

// Tightest returns the link of path with the least capacity per active
// flow, the share an equal split would give, leaving out counting links;
// ok is false when path has none. It reads the counts kept as flows start
// and end, and runs no solve.
func (n *Network[T]) Tightest(path []LinkID) (l LinkID, ok bool) {
	best := math.Inf(1)
	for _, id := range path {
		if id < 0 || int(id) >= len(n.links) {
			continue
		}
		k := &n.links[id]
		if k.counting {
			continue
		}
		if s := k.cap / float64(max(k.flows, 1)); s < best {
			best, l, ok = s, id, true
		}
	}
	return l, ok
}

// ActiveFlows returns the number of flows still transferring.
func (n *Network[T]) ActiveFlows() int { return n.nActive }

// advanceTo moves time to t, completing flows at their exact finish times on
// the way. Each completion re-solves before time moves further.
func (n *Network[T]) advanceTo(t float64) {
	for t > n.now { // false for NaN and for t <= now: the clamp
		n.ensureSolved()
		next := n.nextStop()
		if math.IsInf(t, 1) && math.IsInf(next, 1) {
			return // drained: keep a finite clock rather than jump to +Inf
		}
		step := min(max(next, n.now), t)
		n.progress(step)
		if next > t {
			return
		}
		n.collect(step)
	}
}

// progress moves the clock to t at the current (solved) rates. Link byte
// counters catch up lazily (LinkBytes, setLoad).
func (n *Network[T]) progress(t float64) { n.now = max(n.now, t) }

// collect moves every active flow that is complete at time t (see the
// package doc for the tolerance) to the done queue, taking them from the
// front of the finish queue.
func (n *Network[T]) collect(t float64) {
	if n.x != nil {
		n.exactCollect(t)
		return
	}
	for {
		f := n.first(t)
		if f == nil || !(f.finish <= t || f.remaining(t) <= CompletionTolerance*f.bytes) {
			return
		}
		n.finishQ.pop()
		f.finish = min(f.finish, t)
		f.state = stateFinished
		n.done = append(n.done, f)
		n.drop(f)
	}
}

// ensureSolved re-solves rates if the flow set changed since the last solve
// and the solve is due (always, in the exact mode).
func (n *Network[T]) ensureSolved() {
	if n.dirty && n.due <= n.now {
		if n.x != nil {
			n.exactSolve()
		} else {
			n.solve()
		}
		n.solves++
		n.dirty = false
		n.lastSolve = n.now
		if n.onSolve != nil {
			n.onSolve()
		}
	}
}

// register gives f an ID, in a free slot if there is one, and keeps its
// start time and the caller's value in that slot.
func (n *Network[T]) register(f *flow[T], data T) {
	var slot int32
	if k := len(n.free); k > 0 {
		slot = n.free[k-1]
		n.free = n.free[:k-1]
	} else {
		slot = int32(len(n.slots))
		n.slots = append(n.slots, slotEntry[T]{})
	}
	e := &n.slots[slot]
	e.f, e.start, e.data = f, n.now, data
	f.id = makeID(slot, e.gen)
}

// lookup returns the flow with ID id, or nil if it was popped, removed or
// never existed.
func (n *Network[T]) lookup(id FlowID) *flow[T] {
	slot := int64(uint32(id)) - 1
	if id <= 0 || slot < 0 || slot >= int64(len(n.slots)) {
		return nil
	}
	if e := &n.slots[slot]; e.f != nil && e.gen == uint32(uint64(id)>>32) {
		return e.f
	}
	return nil
}

// release frees f's slot; its ID is never valid again.
func (n *Network[T]) release(f *flow[T]) {
	slot := int32(uint32(f.id)) - 1
	e := &n.slots[slot]
	*e = slotEntry[T]{gen: e.gen + 1} // drops what the caller's value refers to, if anything
	n.free = append(n.free, slot)
}

// recycle keeps f for reuse if it has been popped or removed: it has then
// left the ID slots and the done queue, and the caller has just taken it
// out of the flow list, so only stale finish-queue entries (told apart by
// version) and waiting lines (by seq) still point at it. A flow still in
// the done queue is left to the collector.
// remainingOf returns the bytes active flow f has left at time t.
func (n *Network[T]) remainingOf(f *flow[T], t float64) float64 {
	if n.x != nil {
		return n.exactRemaining(f, t)
	}
	return f.remaining(t)
}

// recycleNow keeps popped or removed flow f for reuse at once in the
// exact mode, which holds flows by slot only; the other modes recycle
// flows as they compact their flow list.
func (n *Network[T]) recycleNow(f *flow[T]) {
	if n.x != nil {
		n.recycle(f)
	}
}

func (n *Network[T]) recycle(f *flow[T]) {
	if f.state != stateGone || f.home != 0 {
		return // an arena's struct is rewritten by a later solve, not reused
	}
	n.reusable = append(n.reusable, f)
}
