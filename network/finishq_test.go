package network

import (
	"math/rand/v2"
	"testing"
)

// TestFinishHeapSetAsideKeepsOrder checks that setting entries aside
// changes nothing a caller sees: with random finish times, ties, entries
// made stale by re-timing or ending, and pushes between pops, a queue that
// sets aside everything beyond a horizon yields flows in exactly the order
// of one that holds them all in its heap.
func TestFinishHeapSetAsideKeepsOrder(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		flows := make([]*flow, 200)
		for i := range flows {
			flows[i] = &flow{seq: int64(i + 1), state: stateActive, finish: float64(rng.IntN(50))}
		}
		horizon := float64(rng.IntN(50))
		var all, split finishHeap
		all.reset()
		split.reset()
		for _, f := range flows {
			all.add(f)
			if f.finish <= horizon {
				split.add(f)
			} else {
				split.setAside(f)
			}
		}
		all.heapify()
		split.heapify()
		popped := 0
		for step := 0; ; step++ {
			switch rng.IntN(6) {
			case 0: // re-time a flow: its old entries go stale in both queues
				f := flows[rng.IntN(len(flows))]
				if f.state == stateActive {
					f.finish = float64(rng.IntN(60))
					f.ver++
					all.push(f)
					split.push(f)
				}
			case 1: // a flow ends elsewhere (removed)
				flows[rng.IntN(len(flows))].state = stateGone
			}
			a, b := all.top(), split.top()
			if a != b {
				t.Fatalf("seed %d step %d: next flow %v with set-aside entries, want %v as one heap gives: setting aside must not reorder completions", seed, step, b, a)
			}
			if a == nil {
				break
			}
			popped++
			all.pop()
			split.pop()
			a.state = stateFinished
		}
		if popped == 0 {
			t.Fatalf("seed %d: nothing popped; the test exercises nothing", seed)
		}
	}
}
