package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// TestStarvationWindow (section 3.4): a job whose preferred racks are all
// busy still finishes once it has waited a window. On 2 racks of 3 nodes
// with one map slot each, rack 0 is held by another tenant throughout (its
// slots never free). User u submits job A at t = 1, with its input only on
// rack 0 (SAMP prefers rack 0), among jobs it submits every 20 s from t = 0
// to t = 1500, each with 10 maps on rack 1 (preferring rack 1): 0.5 maps/s
// against rack 1's 0.3, so a backlog of preferred maps (line 4) is always
// waiting and A's remote maps (line 6) never win a slot under NASS alone.
// With the window A is overdue at t = 601 and goes first: its 3 maps (10 s
// each) take rack 1's next free slots, done by 601 + 2 x 10 s plus a
// heartbeat. Without it A waits until the backlog drains, after the last
// arrival.
func TestStarvationWindow(t *testing.T) {
	cases := []struct {
		name     string
		window   float64
		min, max float64 // A's finish time
		why      string
	}{
		{"window 600 s", 600, 601, 630, "A is overdue at t = 601 and then served before every younger job of its user"},
		{"no window", 0, 1500, 1e9, "NASS always prefers the younger jobs' maps on their preferred rack: A starves while they keep coming"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topo := smallTopo(t)
			sw, err := sched.NewShuffleWatcher(sched.SWParams{StarvationWindowS: secs(tc.window)}, sched.SWOptions{SAMP: true, SARP: true})
			if err != nil {
				t.Fatal(err)
			}
			o, _ := sched.NewFairOrder(sched.FairParams{})
			s := newMiniSim(t, topo, sched.Compose("sw", o, sw), sched.MapSlot, 1)
			for n := range 3 {
				s.free[n] = 0 // rack 0 is busy throughout
			}
			s.add(swJob(t, topo, 1, "u", 1, on(10, 4, 5)...))
			s.run(1)
			s.now = 1
			s.add(swJob(t, topo, 0, "u", 1, on(3, 1, 2)...)) // A
			for i := 2; i <= 76; i++ {
				at := 20 * float64(i-1)
				s.run(at)
				s.now = max(s.now, at)
				s.add(swJob(t, topo, i, "u", 1, on(10, 4, 5)...))
			}
			s.run(1e5)
			got, done := s.finish[0]
			if !done || got < tc.min || got > tc.max {
				t.Errorf("job A finished at %v (done %v), want between %v and %v: %s", got, done, tc.min, tc.max, tc.why)
			}
			if len(s.jobs) > 0 {
				t.Errorf("%d jobs unfinished at t = %v", len(s.jobs), s.now)
			}
		})
	}
}
