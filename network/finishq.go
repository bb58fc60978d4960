package network

// finishEntry is a flow's completion time as of one of its versions; an
// entry whose version no longer matches the flow's is stale and skipped.
type finishEntry struct {
	finish float64
	seq    int64
	ver    uint32
	f      *flow
}

// finishHeap is a min-heap of active flows by (finish, seq) with lazy
// deletion: a flow whose rate changes gets a new entry and a new version.
//
// Entries may also be set aside (setAside) when they finish after a
// horizon by which the caller expects to re-time them: in quantized mode a
// solve re-times every flow, and most flows are still running at the next
// one. Set-aside entries join the heap, all at once, as soon as the heap's
// least entry is not before the least of them, so entries leave in
// exactly the order one heap over all of them would give.
type finishHeap struct {
	h        []finishEntry
	later    []finishEntry
	laterMin float64 // least finish in later, when later is not empty
}

func (q *finishHeap) reset() {
	clear(q.h)
	q.h = q.h[:0]
	clear(q.later)
	q.later = q.later[:0]
}

// setAside keeps f out of the heap until the heap reaches its finish.
func (q *finishHeap) setAside(f *flow) {
	if len(q.later) == 0 || f.finish < q.laterMin {
		q.laterMin = f.finish
	}
	q.later = append(q.later, finishEntry{f.finish, f.seq, f.ver, f})
}

// promote moves the set-aside entries that are still live into the heap.
func (q *finishHeap) promote() {
	for _, e := range q.later {
		if e.f.state == stateActive && e.ver == e.f.ver {
			q.h = append(q.h, e)
		}
	}
	clear(q.later)
	q.later = q.later[:0]
	q.heapify()
}

func (q *finishHeap) less(i, j int) bool { return q.h[i].before(&q.h[j]) }

// add appends f without restoring heap order; call heapify after a batch.
func (q *finishHeap) add(f *flow) { q.h = append(q.h, finishEntry{f.finish, f.seq, f.ver, f}) }

// finishArity is the finish heap's fan-out: a 4-ary heap is half as deep
// as a binary one and its children sit side by side in memory, which
// matters because every solve rebuilds the heap.
const finishArity = 4

// heapify restores heap order in O(n) after a batch of adds.
func (q *finishHeap) heapify() {
	for i := (len(q.h) - 2) / finishArity; i >= 0 && len(q.h) > 1; i-- {
		q.down(i)
	}
}

func (q *finishHeap) push(f *flow) {
	q.h = append(q.h, finishEntry{f.finish, f.seq, f.ver, f})
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / finishArity
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

// top returns the active flow that finishes first, dropping stale entries.
func (q *finishHeap) top() *flow {
	for {
		if len(q.later) > 0 && (len(q.h) == 0 || q.laterMin <= q.h[0].finish) {
			q.promote()
		}
		if len(q.h) == 0 {
			return nil
		}
		e := &q.h[0]
		if e.f.state == stateActive && e.ver == e.f.ver {
			return e.f
		}
		q.pop()
	}
}

func (q *finishHeap) pop() {
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h[n] = finishEntry{}
	q.h = q.h[:n]
	q.down(0)
}

func (q *finishHeap) down(i int) {
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

// before orders entries by (finish, seq).
func (a *finishEntry) before(b *finishEntry) bool {
	return a.finish < b.finish || (a.finish == b.finish && a.seq < b.seq)
}
