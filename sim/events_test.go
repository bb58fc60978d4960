package sim

import (
	"math/rand/v2"
	"testing"
)

// TestArrivalsMergeAsIfPushed checks that job arrivals, which enter the
// heap one at a time, come out exactly where they would if every one had
// been pushed first: interleaved by time with heartbeats and phases pushed while the
// queue drains, after phase ends and before heartbeats at the same
// instant, and in job order among themselves.
func TestArrivalsMergeAsIfPushed(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		submits := make([]float64, 200)
		for i := range submits {
			submits[i] = float64(rng.IntN(40)) // ties are common
		}
		for i := 1; i < len(submits); i++ {
			submits[i] = max(submits[i], submits[i-1])
		}
		var merged, pushed eventQueue
		merged.setArrivals(submits)
		for i, s := range submits {
			pushed.push(event{t: s, kind: evSubmit, a: int32(i)})
		}
		kinds := []eventKind{evPhaseDone, evPreempt, evHeartbeat, evMonitor, evSeries}
		now, n := 0.0, 0
		for merged.len() > 0 || pushed.len() > 0 {
			if (merged.len() == 0) != (pushed.len() == 0) {
				t.Fatalf("seed %d: queue empty is %v, want %v as with every arrival pushed", seed, merged.len() == 0, pushed.len() == 0)
			}
			if p, q := merged.peek(), pushed.peek(); *p != *q {
				t.Fatalf("seed %d event %d: peek gives %+v, want %+v", seed, n, *p, *q)
			}
			a, b := merged.pop(), pushed.pop()
			if a != b {
				t.Fatalf("seed %d event %d: popped %+v, want %+v: arrivals must leave in the order one heap of all events gives", seed, n, a, b)
			}
			now = a.t
			n++
			// The handler schedules more work, some at the same instant.
			if n < 400 {
				for range rng.IntN(3) {
					ev := event{t: now + float64(rng.IntN(3)), kind: kinds[rng.IntN(len(kinds))], a: int32(rng.IntN(10))}
					merged.push(ev)
					pushed.push(ev)
				}
			}
		}
		if n < len(submits) {
			t.Fatalf("seed %d: %d events popped, fewer than the %d arrivals", seed, n, len(submits))
		}
	}
}
