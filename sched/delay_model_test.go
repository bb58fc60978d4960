package sched_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// TestDelayDoesNotIdleTheClusterOnAHotNode is SPARK-18886's case: every
// block of a job is on one node, whose tasks (5 s) end more often than the
// wait (T1 = 15 s). Other nodes must get the job's tasks once it has waited.
// The contrast, the paper's Algorithm 1 (reset_on_launch), resets the wait
// at each local launch and leaves the other five nodes idle for the whole
// job.
func TestDelayDoesNotIdleTheClusterOnAHotNode(t *testing.T) {
	// One rack of 6 nodes with one map slot each; replication 1, all 60
	// blocks on node 0; maps take 5 s anywhere.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 6, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	tests := []struct {
		name          string
		params        sched.DelayParams
		wantNodes     int
		finishAtLeast float64
		finishAtMost  float64
		why           string
	}{
		{
			name: "skip-spell wait", wantNodes: 6, finishAtLeast: 60, finishAtMost: 75,
			why: "after 15 s of idle skips the job goes rack-local on all 6 nodes and stays there: about 15 s + 3 s to the next " +
				"heartbeat + 57 maps x 5 s / 6 nodes = 65.5 s (falling back to node-local on every lone local launch takes 141 s)",
		},
		{
			name: "wait reset at every launch", params: sched.DelayParams{ResetOnLaunch: true}, wantNodes: 1, finishAtLeast: 300, finishAtMost: 301,
			why: "node 0 launches every 5 s, each launch resets the wait before it reaches 15 s: 60 maps x 5 s on node 0 alone",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := sched.NewDelayPlacer(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			s := newMiniSim(t, topo, sched.Compose("t", sched.FIFOOrder{}, d), sched.MapSlot, 1)
			s.dur = func(*sched.Job, cluster.Reach) float64 { return 5 }
			s.add(mapJob(t, topo, 0, "a", nil, on(60, 0)...))
			s.run(1000)
			fin, ok := s.finish[0]
			if !ok {
				t.Fatalf("job unfinished at t=%v: %s", s.now, tc.why)
			}
			if got := s.nodesUsed(0); got != tc.wantNodes {
				t.Errorf("job ran on %d distinct nodes, want %d: %s", got, tc.wantNodes, tc.why)
			}
			if fin < tc.finishAtLeast || fin > tc.finishAtMost {
				t.Errorf("job finished at %.1f s, want in [%v, %v]: %s", fin, tc.finishAtLeast, tc.finishAtMost, tc.why)
			}
		})
	}
}

// TestDelayGainMatchesPoissonModel checks the placer against the response-
// time model of section 4.3.1: requests from nodes with local data arrive as
// a Poisson process, one every t seconds on average; a non-local map runs D
// seconds longer; with wait w, the expected gain over launching on the first
// request is E(gain) = (1 - e^(-w/t)) (D - t) (equation 1). Each trial
// offers the placer (T1 = w) a rack-local slot at 0, then the local slot at
// an exponential time X, or the rack-local slot again at w if X >= w, and
// charges what the placer actually launched: X if local, w + D if not.
func TestDelayGainMatchesPoissonModel(t *testing.T) {
	// Two nodes of one rack; the job's only block is on node 0.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, Replication: 1})
	j := mapJob(t, topo, 0, "a", nil, on(1, 0)...)
	seq := func(yield func(*sched.Job) bool) { yield(j) }
	const trials = 20000
	tests := []struct {
		w, mean, D float64
		why        string
	}{
		{15, 5, 20, "D > t: waiting pays; 1 - e^-3 of trials find a local slot"},
		{15, 5, 2, "D < t: waiting loses (CPU-bound jobs should not wait)"},
		{30, 10, 10, "D = t: no gain either way"},
		{5, 10, 30, "w < t: a short wait still gains (1 - e^-0.5)(D - t)"},
	}
	rng := rand.New(rand.NewPCG(18886, 1))
	for _, tc := range tests {
		want := (1 - math.Exp(-tc.w/tc.mean)) * (tc.D - tc.mean)
		var sum, sumSq float64
		for range trials {
			d, err := sched.NewDelayPlacer(sched.DelayParams{T1S: secs(tc.w), T2S: secs(1e9)})
			if err != nil {
				t.Fatal(err)
			}
			c := &fakeCluster{topo: topo, jobs: []*sched.Job{j}}
			if _, ok := d.Place(c, sched.Offer{Node: 1, Slot: sched.MapSlot}, seq); ok {
				t.Fatalf("w=%v: the first, non-local request was taken, want a skip", tc.w)
			}
			x := rng.ExpFloat64() * tc.mean
			c.now = math.Min(x, tc.w)
			node := cluster.NodeID(1)
			if x < tc.w {
				node = 0
			}
			got, ok := d.Place(c, sched.Offer{Node: node, Slot: sched.MapSlot}, seq)
			if !ok {
				t.Fatalf("w=%v: at t=%v node %d was declined, want a launch (local if X < w, else the wait is over)", tc.w, c.now, node)
			}
			cost := c.now
			if got.Rule != sched.RuleNodeLocal {
				cost += tc.D
			}
			gain := tc.D - cost
			sum += gain
			sumSq += gain * gain
		}
		mean := sum / trials
		se := math.Sqrt((sumSq/trials - mean*mean) / trials)
		if math.Abs(mean-want) > 4*se+1e-9 {
			t.Errorf("w=%v t=%v D=%v: simulated gain %.3f s, model (1-e^(-w/t))(D-t) = %.3f s, beyond 4 standard errors (%.3f): %s",
				tc.w, tc.mean, tc.D, mean, want, 4*se, tc.why)
		}
	}
	// "expected gain grows with w and levels out fast (for example, if
	// w = 2t then 1 - e^(-w/t) = 0.86)".
	if got := 1 - math.Exp(-2.0); math.Abs(got-0.86) > 0.01 {
		t.Errorf("1 - e^-2 = %.4f, the paper says 0.86", got)
	}
}

// TestLocalSlotWithin15Seconds checks section 4.2's estimate: with 60 s
// maps ending uniformly over time, a slot frees within 15 s with chance
// 1/4; 5 slots on each of 3 replica nodes give 15 chances, so a local slot
// frees within T1 = 15 s with probability 1 - (3/4)^15 = 98.6%. The
// simulation draws each busy slot's remaining time uniformly in [0, 60) and
// lets the placer decide, at the first local free slot or at 15 s.
func TestLocalSlotWithin15Seconds(t *testing.T) {
	closed := 1 - math.Pow(0.75, 15)
	if closed < 0.986 || closed >= 0.987 {
		t.Fatalf("1 - (3/4)^15 = %.5f, the paper says 98.6%%", closed)
	}
	// One rack: the block's replicas on nodes 0-2, node 3 has none.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, Replication: 3})
	j := mapJob(t, topo, 0, "a", nil, on(1, 0, 1, 2)...)
	seq := func(yield func(*sched.Job) bool) { yield(j) }
	rng := rand.New(rand.NewPCG(986, 2))
	const trials = 20000
	local := 0
	for range trials {
		d, err := sched.NewDelayPlacer(sched.DelayParams{})
		if err != nil {
			t.Fatal(err)
		}
		c := &fakeCluster{topo: topo, jobs: []*sched.Job{j}}
		if _, ok := d.Place(c, sched.Offer{Node: 3, Slot: sched.MapSlot}, seq); ok {
			t.Fatal("a non-local slot was taken at 0, want a skip")
		}
		first, node := math.Inf(1), cluster.NodeID(0)
		for n := range 3 {
			for range 5 {
				if r := rng.Float64() * 60; r < first {
					first, node = r, cluster.NodeID(n)
				}
			}
		}
		if first >= 15 {
			first, node = 15, 3
		}
		c.now = first
		got, ok := d.Place(c, sched.Offer{Node: node, Slot: sched.MapSlot}, seq)
		if !ok {
			t.Fatalf("at t=%v node %d was declined, want a launch", first, node)
		}
		if got.Rule == sched.RuleNodeLocal {
			local++
		}
	}
	p := float64(local) / trials
	se := math.Sqrt(closed * (1 - closed) / trials)
	if math.Abs(p-closed) > 4*se {
		t.Errorf("simulated chance of a node-local launch within 15 s = %.4f, want 1 - (3/4)^15 = %.4f within 4 standard errors (%.4f)", p, closed, 4*se)
	}
}
