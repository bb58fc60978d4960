package sched

import "iter"

// FIFOOrder is Hadoop's default job order (JobQueueTaskScheduler): jobs in
// submit order, ties by job index. Composed with LocalityFirst it is the
// `fifo` policy.
type FIFOOrder struct{}

var _ Order = FIFOOrder{}

// Candidates yields the active jobs with work for the slot, oldest first.
func (FIFOOrder) Candidates(c Cluster, slot SlotKind) iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		for _, j := range c.Jobs() {
			if j.Runnable(slot) > 0 && !yield(j) {
				return
			}
		}
	}
}

// NewFIFO returns the `fifo` policy: FIFO order, locality-first placement.
// It has no parameters.
func NewFIFO() Policy { return Compose("fifo", FIFOOrder{}, LocalityFirst{}) }
