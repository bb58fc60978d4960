package sim

import (
	"slices"
	"testing"
)

// TestReduceHostQueueStaysBounded pins that a reduce's host queue keeps
// its order and does not grow with every fetch ever started while the
// line never empties: a long reduce re-queues hosts thousands of times.
func TestReduceHostQueueStaysBounded(t *testing.T) {
	tests := []struct {
		name        string
		live        int // entries kept waiting while the line slides
		fetches     int
		wantMaxSize int
	}{
		{name: "a line of 3 that never empties", live: 3, fetches: 10000, wantMaxSize: 32},
		{name: "a line of 100", live: 100, fetches: 10000, wantMaxSize: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r reduceTask
			next := int32(0)
			for ; next < int32(tc.live); next++ {
				r.queue = append(r.queue, next)
			}
			want := int32(0)
			peak := 0
			for range tc.fetches {
				got := r.queue[r.qhead]
				if got != want {
					t.Fatalf("popped host %d, want %d: the queue must stay first in, first out", got, want)
				}
				want++
				r.qhead++
				r.compactQueue()
				r.queue = append(r.queue, next) // the line never empties
				next++
				peak = max(peak, len(r.queue))
			}
			if peak > tc.wantMaxSize {
				t.Errorf("queue grew to %d entries for %d waiting; want at most %d (consumed entries dropped)", peak, tc.live, tc.wantMaxSize)
			}
			if !slices.Equal(r.queue[r.qhead:], seq(want, next)) {
				t.Errorf("queue holds %v, want hosts %d..%d", r.queue[r.qhead:], want, next-1)
			}
		})
	}
}

func seq(from, to int32) []int32 {
	var s []int32
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}
