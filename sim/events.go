package sim

// eventKind orders events that share a time: work that frees slots first,
// then node faults (work that ends at the instant a node dies is done), then
// arrivals, then offers, then sampling, so that a heartbeat sees every slot
// freed and every job submitted at its instant.
type eventKind uint8

const (
	evPhaseDone eventKind = iota // a task's startup or reduce compute ended
	evFault                      // a node dies, returns, or is declared lost (nodeloss.go)
	evSubmit
	evPreempt
	evHeartbeat
	evMonitor
	evSeries
)

// event is one entry of the queue. a and b carry the payload: job index and
// task index for evPhaseDone (with attempt in c), job index for evSubmit,
// node for evHeartbeat; for evFault the fault's index, or -1-node for a
// node's expiry (with the node's life in c).
type event struct {
	t float64
	// order is the kind in the top byte and the sequence number below
	// it, set by the queue: one comparison orders events of one instant.
	order uint64
	a, b  int32
	c     uint32
	kind  eventKind
}

func (e *event) before(o *event) bool {
	return e.t < o.t || (e.t == o.t && e.order < o.order)
}

// orderOf packs kind and seq into an event's order.
func orderOf(kind eventKind, seq uint64) uint64 { return uint64(kind)<<56 | seq }

// eventQueue is a binary min-heap ordered by (time, kind, sequence): the
// sequence number makes the order total, so runs are deterministic.
//
// Job arrivals enter the heap one at a time: a day's tens of thousands
// of them are known, in order, from the start, and held there at once
// they would make the heap ten times larger than the heartbeats and
// phases it orders while the day runs. Each carries the sequence number
// it would have had pushed first, so the order is the same.
type eventQueue struct {
	h        []event
	seq      uint64
	arrivals []float64 // job i's submit time, in job order (sorted)
	seq0     uint64    // the sequence number before job 0's
}

// setArrivals queues an evSubmit event for job i at times[i], for every
// i; times must be sorted. Call it before any push.
func (q *eventQueue) setArrivals(times []float64) {
	q.arrivals = times
	q.seq0 = q.seq
	q.seq += uint64(len(times))
	q.arrive(0)
}

// arrive puts job i's arrival, if there is such a job, in the heap.
func (q *eventQueue) arrive(i int) {
	if i < len(q.arrivals) {
		q.insert(event{t: q.arrivals[i], kind: evSubmit, order: orderOf(evSubmit, q.seq0+uint64(i)+1), a: int32(i)})
	}
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.order = orderOf(e.kind, q.seq)
	q.insert(e)
}

func (q *eventQueue) insert(e event) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].before(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) len() int { return len(q.h) }

func (q *eventQueue) peek() *event { return &q.h[0] }

func (q *eventQueue) pop() event {
	top := q.h[0]
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.h[r].before(&q.h[l]) {
			m = r
		}
		if !q.h[m].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	if top.kind == evSubmit {
		q.arrive(int(top.a) + 1)
	}
	return top
}
