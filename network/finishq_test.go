package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveNext is the flow a finish queue must yield next: the active flow
// least by (finish, seq), by a scan over every flow; nil if none can
// finish.
func naiveNext(flows []*flow[any]) *flow[any] {
	var best *flow[any]
	for _, f := range flows {
		if f.state != stateActive || math.IsInf(f.finish, 1) {
			continue
		}
		if best == nil || f.finish < best.finish || (f.finish == best.finish && f.seq < best.seq) {
			best = f
		}
	}
	return best
}

// TestFinishQueueYieldsExactOrder checks that the calendar queue yields
// flows in exactly (finish, seq) order whatever its window: with ties,
// entries made stale by re-timing or ending, flows that never finish,
// pushes between pops (some before the window's start, some after its
// end), resets mid-run and windows far narrower or wider than the spread
// of finish times. The bucket arithmetic must decide only how much each
// bucket sorts, never which flow comes first.
func TestFinishQueueYieldsExactOrder(t *testing.T) {
	windows := []struct {
		name   string
		window float64
	}{
		{"default window", 0},
		{"window far narrower than the finishes' spread", 0.01},
		{"window about the spread", 40},
		{"window far wider than the spread", 1e6},
	}
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 30; seed++ {
				checkFinishOrder(t, seed, w.window)
			}
		})
	}
}

func checkFinishOrder(t *testing.T, seed uint64, window float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	// Finish times on a coarse grid make ties common.
	finishAt := func(now float64) float64 {
		if rng.IntN(20) == 0 {
			return math.Inf(1) // rate 0: never finishes until re-timed
		}
		return now + float64(rng.IntN(50))/4
	}
	flows := make([]*flow[any], 300)
	q := finishQueue[any]{window: window}
	now := float64(rng.IntN(10))
	q.reset(now)
	for i := range flows {
		flows[i] = &flow[any]{seq: int64(i + 1), state: stateActive, finish: finishAt(now)}
		q.add(flows[i])
	}
	popped, moves := 0, 0
	for step := 0; ; step++ {
		switch rng.IntN(8) {
		case 0: // re-time a flow: its old entry goes stale
			f := flows[rng.IntN(len(flows))]
			if f.state == stateActive {
				f.finish = finishAt(now)
				f.ver++
				q.add(f)
			}
		case 1: // a flow ends elsewhere (removed)
			flows[rng.IntN(len(flows))].state = stateGone
		case 2: // a new flow starts now
			f := &flow[any]{seq: int64(len(flows) + 1), state: stateActive, finish: finishAt(now)}
			flows = append(flows, f)
			q.add(f)
		case 3: // a solve re-times every active flow
			if rng.IntN(10) == 0 {
				q.reset(now)
				for _, f := range flows {
					if f.state == stateActive {
						f.ver++
						q.add(f)
					}
				}
			}
		}
		base := q.base
		got, want := q.top(), naiveNext(flows)
		if q.base != base {
			moves++
		}
		if got != want {
			t.Fatalf("seed %d window %v step %d: next flow %+v, want %+v, the least active flow by (finish, seq): the buckets must not reorder completions", seed, window, step, got, want)
		}
		if got == nil {
			break
		}
		popped++
		now = max(now, got.finish)
		q.pop()
		got.state = stateFinished
	}
	if popped < len(flows)/2 {
		t.Fatalf("seed %d window %v: %d of %d flows popped; the test exercises too little", seed, window, popped, len(flows))
	}
	if window == 0.01 && moves == 0 {
		t.Fatalf("seed %d: a window far narrower than the finishes never moved; the later entries were never brought in", seed)
	}
}
