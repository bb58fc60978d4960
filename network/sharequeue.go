package network

import (
	"math"
	"math/bits"
	"slices"
)

// shareQueue is the solver's queue of links by stored fair share: it
// yields the link least by (key, index) among those whose key is finite,
// where key is the solver's per-link slice of stored shares.
//
// A solve only ever raises a link's key (a refresh, see minShare) or takes
// the least link out (+Inf), and it takes links out in non-decreasing key
// order, so the queue is monotone: no key below the last one yielded is
// ever added. That makes it a radix heap over the keys' bits (non-negative
// floats order as their bit patterns do): bucket b > 0 holds the entries
// whose key first differs from the last minimum at bit b-1, bucket 0 those
// equal to it. Adding is an append; raising or removing a key only changes
// key[l], and the entry left behind is dropped when it comes up, as its
// key no longer matches. When bucket 0 runs dry, the least non-empty
// bucket's least key becomes the minimum and its entries move to lower
// buckets, each move to a lower one, so at most 64 per entry. A tournament
// tree over the links replays log2(links) matches at every refresh and
// removal instead: most links a solve takes out are emptied by flows
// frozen elsewhere, so removals are most of the queue's work, and here a
// removal only edits a key.
//
// Ties: bucket 0 holds every entry equal to the minimum and is kept sorted
// by descending link index, so the least index comes first, as the
// progressive filling's (share, index) order requires.
type shareQueue struct {
	buckets [65][]queued
	full    uint64 // bit b-1 set when bucket b > 0 may hold entries
	last    uint64 // bits of the last minimum
}

// queued is a link's entry: the bits of its key when added.
type queued struct {
	key  uint64
	link int32
}

// reset empties the queue.
func (q *shareQueue) reset() {
	q.buckets[0] = q.buckets[0][:0]
	for m := q.full; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m) + 1
		q.buckets[b] = q.buckets[b][:0]
	}
	q.full, q.last = 0, 0
}

// push adds link l with key k, finite and >= the last minimum.
func (q *shareQueue) push(l int32, k float64) {
	kb := math.Float64bits(k)
	b := bits.Len64(kb ^ q.last)
	q.buckets[b] = append(q.buckets[b], queued{kb, l})
	if b == 0 {
		q.sortTies()
	} else {
		q.full |= 1 << (b - 1)
	}
}

// sortTies orders bucket 0 by descending link index.
func (q *shareQueue) sortTies() {
	if len(q.buckets[0]) < 2 {
		return
	}
	slices.SortFunc(q.buckets[0], func(a, b queued) int { return int(b.link - a.link) })
}

// least returns the link least by (key, index) whose entry is current,
// that is whose key bits match key, or -1 if none is left. It leaves that
// link queued.
func (q *shareQueue) least(key []float64) int32 {
	for {
		b0 := q.buckets[0]
		for len(b0) > 0 {
			e := b0[len(b0)-1]
			if math.Float64bits(key[e.link]) == e.key {
				q.buckets[0] = b0
				return e.link
			}
			b0 = b0[:len(b0)-1]
		}
		q.buckets[0] = b0
		if q.full == 0 {
			return -1
		}
		b := bits.TrailingZeros64(q.full) + 1
		// The bucket's least current key is the new minimum; its current
		// entries all move to lower buckets, as they share every bit above
		// b-1 with it. Stale entries are dropped on the way.
		from := q.buckets[b]
		m := uint64(math.MaxUint64)
		for _, e := range from {
			if math.Float64bits(key[e.link]) == e.key {
				m = min(m, e.key)
			}
		}
		if m != math.MaxUint64 {
			q.last = m
			for _, e := range from {
				if math.Float64bits(key[e.link]) == e.key {
					nb := bits.Len64(e.key ^ m)
					q.buckets[nb] = append(q.buckets[nb], e)
					if nb > 0 {
						q.full |= 1 << (nb - 1)
					}
				}
			}
			q.sortTies()
		}
		q.buckets[b] = from[:0]
		q.full &^= 1 << (b - 1)
	}
}
