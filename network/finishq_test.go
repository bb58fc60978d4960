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

// TestCompletionsMatchAScanOfEveryFlow drives a network whose flows'
// finishes spread over six orders of magnitude, so that the finish queue
// leaves most flows out of its window and must queue them afresh, and
// checks each answer against a scan of every active flow: NextCompletion
// is the least finish (or the due solve, if sooner), and after
// PopCompleted(t) no active flow is complete at t. A flow the queue left
// out and then missed would finish late, after another flow or never.
func TestCompletionsMatchAScanOfEveryFlow(t *testing.T) {
	for _, quantum := range []float64{0, 0.5, 3} {
		for seed := uint64(1); seed <= 20; seed++ {
			rng := rand.New(rand.NewPCG(seed, 13))
			caps := []float64{1e6, 2e6, 5e5, 1e7}
			n, err := New[int](caps)
			if err != nil {
				t.Fatal(err)
			}
			if err := n.SetQuantum(quantum); err != nil {
				t.Fatal(err)
			}
			now, popped := 0.0, 0
			for step := range 400 {
				switch rng.IntN(4) {
				case 0, 1:
					path := []LinkID{LinkID(rng.IntN(len(caps)))}
					if rng.IntN(2) == 0 {
						path = append(path, LinkID(rng.IntN(len(caps))))
					}
					bytes := math.Pow(10, 2+6*rng.Float64())
					rateCap := 0.0
					if rng.IntN(3) == 0 {
						rateCap = math.Pow(10, 3+3*rng.Float64())
					}
					if _, err := n.AddFlow(now, path, bytes, rateCap, step); err != nil {
						t.Fatal(err)
					}
				case 2:
					if next, ok := n.NextCompletion(); ok {
						now = max(now, next)
					}
				case 3:
					now += math.Pow(10, -3+5*rng.Float64())
				}
				next, ok := n.NextCompletion()
				if want, wantOK := scanNext(n); ok != wantOK || (ok && next != want) {
					t.Fatalf("quantum %v seed %d step %d: NextCompletion = %v, %v; a scan of every flow gives %v, %v",
						quantum, seed, step, next, ok, want, wantOK)
				}
				popped += len(n.PopCompleted(now))
				for _, f := range activeFlows(n) {
					if fin := finishOf(n, f); fin <= now || n.remainingOf(f, now) <= CompletionTolerance*f.bytes {
						t.Fatalf("quantum %v seed %d step %d: flow %d (finish %v) is complete at %v but was not popped",
							quantum, seed, step, f.seq, fin, now)
					}
				}
			}
			if popped == 0 {
				t.Fatalf("quantum %v seed %d: no flow completed; the test exercises nothing", quantum, seed)
			}
		}
	}
}

// scanNext is what NextCompletion must return, from every active flow.
func scanNext(n *Network[int]) (float64, bool) {
	if len(n.done) > 0 {
		return n.now, true
	}
	if n.nActive == 0 {
		return 0, false
	}
	t := math.Inf(1)
	for _, f := range activeFlows(n) {
		t = min(t, finishOf(n, f))
	}
	if n.dirty {
		t = min(t, n.due)
	}
	return t, true
}

// activeFlows returns the network's active flows, from its ID slots.
func activeFlows[T any](n *Network[T]) []*flow[T] {
	var out []*flow[T]
	for _, e := range n.slots {
		if e.f != nil && e.f.state == stateActive {
			out = append(out, e.f)
		}
	}
	return out
}

// finishOf returns when active flow f completes at the current rates.
func finishOf[T any](n *Network[T], f *flow[T]) float64 {
	if n.x != nil {
		return n.exactFinish(f)
	}
	return f.finish
}
