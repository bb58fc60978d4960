package sched

import (
	"fmt"
	"strings"
)

// QueueCap caps the running tasks of every pool below a queue together
// (YARN's maxResources on a parent queue: FSQueue.fitsInMaxShare lets a
// container in only while it fits within the maximum of its queue and of
// each queue above it). Path is the queue's dotted path ("prod"; "root"
// for every pool); the caps are as PoolConfig's, 0 for none.
type QueueCap struct {
	Path                          string
	MaxMaps, MaxReduces, MaxShare int
}

func (q QueueCap) capFor(s SlotKind) int {
	return PoolConfig{MaxMaps: q.MaxMaps, MaxReduces: q.MaxReduces, MaxShare: q.MaxShare}.capFor(s)
}

// covers reports whether the queue is above pool.
func (q QueueCap) covers(pool string) bool {
	return q.Path == "root" || strings.HasPrefix(pool, q.Path+".")
}

func validateQueueCaps(caps []QueueCap) error {
	for i, q := range caps {
		if q.Path == "" || q.MaxMaps < 0 || q.MaxReduces < 0 || q.MaxShare < 0 {
			return fmt.Errorf("queue caps[%d] (%q): want a queue's path and caps of 0 or more", i, q.Path)
		}
	}
	return nil
}

// queueCap is a QueueCap as the fair order keeps it: the tasks running
// below the queue, and the pools below it made so far.
type queueCap struct {
	QueueCap
	running taskCounts
	pools   []*pool
}

// full reports whether the queue runs as many tasks of kind s as its cap.
func (q *queueCap) full(s SlotKind) bool {
	c := q.capFor(s)
	return c > 0 && q.running.of(s) >= c
}

// capsFor lists the queue caps over pool p, and registers p with them.
func (f *FairOrder) capsFor(p *pool) []*queueCap {
	var out []*queueCap
	for _, q := range f.queueCaps {
		if q.covers(p.name) {
			q.pools = append(q.pools, p)
			out = append(out, q)
		}
	}
	return out
}

// countCapped moves pool p's queues' running counts by d tasks of kind k.
// A queue that reaches its cap, or drops below it, opens or closes every
// pool below it at once, so those pools are out of place in the kept
// orders.
func (f *FairOrder) countCapped(p *pool, k TaskKind, d int) {
	for _, q := range p.capped {
		var was [3]bool
		for s := range was {
			was[s] = q.full(SlotKind(s))
		}
		q.running[k] += d
		for s := range was {
			if was[s] == q.full(SlotKind(s)) || !f.keeping {
				continue
			}
			for _, o := range q.pools {
				f.move(o, SlotKind(s))
			}
		}
	}
}
