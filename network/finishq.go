package network

import (
	"math"
	"math/bits"
)

// finishEntry is a flow's completion time as of one of its versions; an
// entry whose version no longer matches the flow's is stale and skipped.
type finishEntry[T any] struct {
	finish float64
	seq    int64
	ver    uint32
	f      *flow[T]
}

// before orders entries by (finish, seq).
func (a *finishEntry[T]) before(b *finishEntry[T]) bool {
	return a.finish < b.finish || (a.finish == b.finish && a.seq < b.seq)
}

// live reports whether e is its flow's current entry and the flow is still
// transferring.
func (e *finishEntry[T]) live() bool { return e.f.state == stateActive && e.ver == e.f.ver }

// finishBuckets is the number of buckets in a finish queue's window.
const finishBuckets = 256

// finishQueue orders active flows by (finish, seq), with lazy deletion: a
// flow whose rate changes gets a new entry and a new version, and the old
// entry is skipped when it comes up.
//
// It is a heap in front of a calendar. A window of time starting at base
// is cut into finishBuckets buckets of equal width; an entry's place is
// x = (finish-base)/width, bucket floor(x), and entries beyond the window
// wait in later. Every step of that is monotone in finish, so an entry in
// a lower bucket never finishes after one in a higher, nor one in a bucket
// after one in later. The heap holds every entry with x < cur+1: the
// buckets up to cur, and any entry before the window's start (a window
// that moved to later's least finish can see a start before it). The
// buckets after cur hold theirs unordered until the heap runs dry and the
// next one is heaped. So the heap's least entry is the
// least of all, and the queue yields exactly the (finish, seq) order of
// one heap over every entry: the window's placement and width decide
// only how much each entry is moved, never the order.
//
// The heap stays small (the entries of a bucket or two instead of every
// flow due before the next solve), and entries beyond the current bucket
// are only appended: a simulated day pops about sixty million entries,
// and a pop's cost is the heap's depth in comparisons that mispredict
// half the time. Every solve re-times every flow, so the network resets
// the queue at each solve with the window starting then and spanning one
// quantum in quantized mode. Most flows finish after the next solve, which
// re-times them anyway, so a flow whose finish is so far beyond the window
// that it cannot complete within it even by the completion tolerance gets
// no entry at all (add; unqueued records that some were left out). Flows a
// little beyond it wait in later, unordered. When heap and buckets run
// dry, either nothing can complete before safe (a margin past the
// window's end), which is all a caller with a solve due by then needs to
// know, or the network queues its flows afresh (Network.first); with none
// left out, the window moves to later's least finish and takes in only the
// entries it then covers (refill).
type finishQueue[T any] struct {
	// window is the span in seconds of virtual time the buckets cover
	// from a reset (defaultFinishWindow when 0); base and width place them.
	window      float64
	base, width float64
	h           []finishEntry[T]   // 4-ary min-heap by (finish, seq)
	cur         int                // buckets 0..cur are in the heap; -1 for none
	buckets     [][]finishEntry[T] // finishBuckets of them, made on first reset
	occupied    []uint64           // bit b set when buckets[b] holds entries
	later       []finishEntry[T]
	laterMin    float64 // least and greatest finish in later, when it is not empty
	laterMax    float64
	moves       int // windows moved since the last reset
	// safe is a time past the window's end: every entry in heap and
	// buckets finishes before it, and every flow left out finishes, and
	// completes by the tolerance, after it. unqueued is set when a flow
	// was left out since the queue was last filled from every flow.
	safe     float64
	unqueued bool
}

// defaultFinishWindow is the finish queue's window in seconds when the
// network sets none: in the exact mode solves come every few milliseconds
// of virtual time and reset the queue.
const defaultFinishWindow = 1.0

// reset empties the queue and starts its window at base.
//
// Dropped entries are not zeroed: they point only at flows, and the
// network keeps every flow it ever made (active, done, for reuse, or in
// one of its two solve arenas), so a stale pointer keeps nothing alive
// but, at most, an arena outgrown since, and zeroing every entry at every
// solve showed in profiles.
func (q *finishQueue[T]) reset(base float64) {
	if q.buckets == nil {
		q.buckets = make([][]finishEntry[T], finishBuckets)
		q.occupied = make([]uint64, finishBuckets/64)
	}
	q.h = q.h[:0]
	for w, word := range q.occupied {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			q.buckets[b] = q.buckets[b][:0]
		}
		q.occupied[w] = 0
	}
	q.later = q.later[:0]
	q.moves = 0
	q.unqueued = false
	q.place(base, q.span())
}

// refillFrom empties the queue and places a window at base, the least
// finish of the flows the caller is about to add: every active flow, as
// some had no entry. Successive refills between resets double the window,
// so that flows far apart cost a few refills, not one each.
func (q *finishQueue[T]) refillFrom(base float64) {
	moves := q.moves
	q.reset(base)
	q.moves = min(moves+1, 64)
	q.place(base, math.Ldexp(q.span(), q.moves))
}

// span is the window a reset places.
func (q *finishQueue[T]) span() float64 {
	if q.window > 0 {
		return q.window
	}
	return defaultFinishWindow
}

// place puts the (empty) window at [base, base+span), and safe a margin
// past its end that covers the rounding of bucket placement.
func (q *finishQueue[T]) place(base, span float64) {
	q.base = base
	q.width = span / finishBuckets
	q.cur = -1
	q.safe = base + span + max(span*1e-9, math.Abs(base)*1e-12)
}

// add queues f at its current finish and version. A flow that never
// finishes at its current rate (finish +Inf) needs no entry: it gets one
// when its rate changes. Nor does one that cannot complete by safe: it
// finishes after it by more than the completion tolerance can take off.
// A flow completes at t when its remaining bytes, rate*(finish-t) up to
// rounding, are at most CompletionTolerance*bytes; the test below asks
// for four times that, plus a relative 1e-12 of finish for the rounding
// of finish itself, both far beyond float error.
func (q *finishQueue[T]) add(f *flow[T]) {
	if math.IsInf(f.finish, 1) {
		return
	}
	if q.buckets == nil {
		q.reset(f.finish)
	}
	if f.finish >= q.safe && (f.finish-q.safe)*f.rate > 4*CompletionTolerance*f.bytes+1e-12*math.Abs(f.finish)*f.rate {
		q.unqueued = true
		return
	}
	q.insert(finishEntry[T]{f.finish, f.seq, f.ver, f})
}

func (q *finishQueue[T]) insert(e finishEntry[T]) {
	x := (e.finish - q.base) / q.width
	switch {
	case !(x < finishBuckets):
		if len(q.later) == 0 {
			q.laterMin, q.laterMax = e.finish, e.finish
		}
		q.laterMin = min(q.laterMin, e.finish)
		q.laterMax = max(q.laterMax, e.finish)
		q.later = append(q.later, e)
	case x < float64(q.cur+1):
		q.push(e)
	default:
		b := int(x)
		q.buckets[b] = append(q.buckets[b], e)
		q.occupied[b/64] |= 1 << (b % 64)
	}
}

// top returns the active flow that finishes first, dropping stale entries.
func (q *finishQueue[T]) top() *flow[T] {
	for {
		if len(q.h) == 0 && !q.refill() {
			return nil
		}
		if e := &q.h[0]; e.live() {
			return e.f
		}
		q.pop()
	}
}

// refill brings the next entries into the empty heap: the next occupied
// bucket's, or, with no bucket left, those of later's that a window moved
// to later's least finish covers. It reports false when the queue is empty.
func (q *finishQueue[T]) refill() bool {
	for {
		if b, ok := q.nextOccupied(); ok {
			for _, e := range q.buckets[b] {
				if e.live() {
					q.h = append(q.h, e)
				}
			}
			q.buckets[b] = q.buckets[b][:0]
			q.occupied[b/64] &^= 1 << (b % 64)
			q.cur = b
			if len(q.h) > 0 {
				q.heapify()
				return true
			}
			continue
		}
		if len(q.later) == 0 || q.unqueued {
			return false // empty, or the network must queue its flows afresh
		}
		// Move the window to later's least finish. It spans the reset's
		// window, doubled at each move since the last reset, and a little
		// beyond the greatest finish at most. Entries beyond it stay in
		// later: in quantized mode the window runs dry about when the next
		// solve is due, and that solve re-times every flow, so ordering
		// all of later here would be wasted. The doubling bounds the moves
		// between resets by the log of later's spread over the window.
		whole := (q.laterMax - q.laterMin) * (1 + 1.0/finishBuckets)
		span := min(whole, math.Ldexp(q.span(), q.moves))
		if !(span/finishBuckets > 0) || math.IsInf(span, 1) {
			span = q.span() // all at one time, or too close to tell apart
		}
		q.moves++
		q.place(q.laterMin, span)
		// Partition later in place: a stale entry beyond the window is
		// kept unread (its flow is not touched), the next reset drops it.
		keep := q.later[:0]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, e := range q.later {
			if x := (e.finish - q.base) / q.width; !(x < finishBuckets) {
				keep = append(keep, e)
				lo, hi = min(lo, e.finish), max(hi, e.finish)
			} else if e.live() {
				b := int(x) // x >= 0: nothing in later precedes the window
				q.buckets[b] = append(q.buckets[b], e)
				q.occupied[b/64] |= 1 << (b % 64)
			}
		}
		q.later = keep
		q.laterMin, q.laterMax = lo, hi
	}
}

// nextOccupied returns the first occupied bucket after cur.
func (q *finishQueue[T]) nextOccupied() (int, bool) {
	b := q.cur + 1
	for w := b / 64; w < len(q.occupied); w++ {
		word := q.occupied[w]
		if w == b/64 {
			word &^= 1<<(b%64) - 1
		}
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word), true
		}
	}
	return 0, false
}

// finishArity is the heap's fan-out: a 4-ary heap is half as deep as a
// binary one and its children sit side by side in memory.
const finishArity = 4

// heapify restores heap order in O(n) after a batch of appends.
func (q *finishQueue[T]) heapify() {
	for i := (len(q.h) - 2) / finishArity; i >= 0 && len(q.h) > 1; i-- {
		q.down(i)
	}
}

func (q *finishQueue[T]) push(e finishEntry[T]) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / finishArity
		if !q.h[i].before(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// pop removes the heap's least entry, the one top last looked at.
func (q *finishQueue[T]) pop() {
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	q.down(0)
}

func (q *finishQueue[T]) down(i int) {
	h := q.h
	n := len(h)
	if i >= n {
		return
	}
	x := h[i]
	for {
		c := finishArity*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+finishArity, n); j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
