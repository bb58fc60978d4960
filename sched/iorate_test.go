package sched_test

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

const block = 64 << 20

// ioEvent is one step of an IO-rate scenario: a launch of job's map on
// node through the placer (want is the rule, "" for a decline), or the end
// (or kill) of one of its maps there.
type ioEvent struct {
	at   float64
	job  int
	node cluster.NodeID
	op   string // "offer", "end", "kill"
	want string
}

func TestIORateBiasing(t *testing.T) {
	// smallTopo: rack 0 = nodes 0-2, rack 1 = nodes 3-5. Both jobs have 4
	// maps of 64 MiB on nodes 0 and 1. Node 4 is off-rack for both.
	type jobWant struct {
		cpuBound bool
		rateMiB  float64 // measured MiB per task-second; 0: none yet
		t1, t2   float64
	}
	tests := []struct {
		name   string
		params sched.DelayParams
		events []ioEvent
		want   [2]jobWant
		why    string
	}{
		{
			name:   "CPU-bound job gets the shorter waits once a local map finished",
			params: sched.DelayParams{IORateBiasing: true},
			events: []ioEvent{
				{at: 0, job: 0, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 0, job: 1, node: 1, op: "offer", want: sched.RuleNodeLocal},
				{at: 5, job: 1, node: 1, op: "end"},
				{at: 36, job: 0, node: 0, op: "end"},
				{at: 36, job: 0, node: 4, op: "offer", want: sched.RuleOffRack},
				{at: 36, job: 1, node: 4, op: "offer"},
			},
			want: [2]jobWant{{true, 64.0 / 36, 0, 0}, {false, 64.0 / 5, 15, 15}},
			why:  "64 MiB in 36 s = 1.8 MiB/s is below 6.4 (CPU-bound: T1 = T2 = 0, section 6.2.4); 64 MiB in 5 s = 12.8 MiB/s is IO-bound (T1 = T2 = 15)",
		},
		{
			name:   "before any map finishes every job waits the full time",
			params: sched.DelayParams{IORateBiasing: true},
			events: []ioEvent{
				{at: 0, job: 0, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 1, job: 0, node: 4, op: "offer"},
			},
			want: [2]jobWant{{false, 0, 15, 15}, {false, 0, 15, 15}},
			why:  "an unmeasured job is treated as IO-bound, the paper's default",
		},
		{
			name:   "remote and killed maps are not measured",
			params: sched.DelayParams{IORateBiasing: true, T1S: secs(0), T2S: secs(0)},
			events: []ioEvent{
				{at: 0, job: 0, node: 4, op: "offer", want: sched.RuleOffRack},
				{at: 0, job: 0, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 10, job: 0, node: 0, op: "kill"},
				{at: 100, job: 0, node: 4, op: "end"},
			},
			want: [2]jobWant{{false, 0, 0, 0}, {false, 0, 0, 0}},
			why:  "a remote map's 100 s include the network's throttling and would make an IO-bound job look CPU-bound; a killed map did no full read",
		},
		{
			name:   "io_min_maps waits for enough samples",
			params: sched.DelayParams{IORateBiasing: true, IOMinMaps: 2},
			events: []ioEvent{
				{at: 0, job: 0, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 0, job: 0, node: 1, op: "offer", want: sched.RuleNodeLocal},
				{at: 0, job: 1, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 40, job: 0, node: 0, op: "end"},
				{at: 40, job: 1, node: 0, op: "end"},
			},
			want: [2]jobWant{{false, 64.0 / 40, 15, 15}, {false, 64.0 / 40, 15, 15}},
			why:  "one finished map each, two required: not yet classified",
		},
		{
			name:   "threshold and CPU-bound waits are configurable",
			params: sched.DelayParams{IORateBiasing: true, IOBoundMBPerS: secs(20), CPUBoundT1S: secs(3), CPUBoundT2S: secs(4)},
			events: []ioEvent{
				{at: 0, job: 1, node: 1, op: "offer", want: sched.RuleNodeLocal},
				{at: 5, job: 1, node: 1, op: "end"},
			},
			want: [2]jobWant{{false, 0, 15, 15}, {true, 64.0 / 5, 3, 4}},
			why:  "12.8 MiB/s is below a 20 MiB/s threshold: CPU-bound, with waits (3, 4)",
		},
		{
			name: "without io_rate_biasing nothing is measured",
			events: []ioEvent{
				{at: 0, job: 0, node: 0, op: "offer", want: sched.RuleNodeLocal},
				{at: 36, job: 0, node: 0, op: "end"},
			},
			want: [2]jobWant{{false, 0, 15, 15}, {false, 0, 15, 15}},
			why:  "biasing is off by default",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := smallTopo(t)
			jobs := []*sched.Job{
				mapJob(t, topo, 0, "a", &workload.Job{InputBytes: 4 * block}, on(4, 0, 1)...),
				mapJob(t, topo, 1, "b", &workload.Job{InputBytes: 4 * block}, on(4, 0, 1)...),
			}
			c := &fakeCluster{topo: topo, jobs: jobs}
			d, err := sched.NewDelayPlacer(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				d.JobAdded(c, j)
			}
			for k, ev := range tc.events {
				c.now = ev.at
				j := jobs[ev.job]
				switch ev.op {
				case "offer":
					got, ok := d.Place(c, sched.Offer{Node: ev.node, Slot: sched.MapSlot}, func(yield func(*sched.Job) bool) { yield(j) })
					if ok != (ev.want != "") || got.Rule != ev.want {
						t.Fatalf("event %d: job %d offered node %d at t=%v: got (%q, %v), want %q: %s", k, ev.job, ev.node, ev.at, got.Rule, ok, ev.want, tc.why)
					}
					if ok {
						j.Maps.Take(got.Map)
						j.RunningMaps++
						d.TaskLaunched(c, j, sched.MapTask, ev.node)
					}
				case "end", "kill":
					j.RunningMaps--
					if ev.op == "end" {
						j.FinishedMaps++
					}
					d.TaskEnded(c, j, sched.MapTask, ev.node, ev.op == "kill")
				}
			}
			for i, w := range tc.want {
				j := jobs[i]
				if got := d.CPUBound(j); got != w.cpuBound {
					t.Errorf("job %d: CPUBound = %v, want %v: %s", i, got, w.cpuBound, tc.why)
				}
				rate, ok := d.IORate(j)
				if ok != (w.rateMiB > 0) || math.Abs(rate/(1<<20)-w.rateMiB) > 1e-9 {
					t.Errorf("job %d: IORate = %.3f MiB/s (measured %v), want %.3f: %s", i, rate/(1<<20), ok, w.rateMiB, tc.why)
				}
				if t1, t2 := d.Waits(j); t1 != w.t1 || t2 != w.t2 {
					t.Errorf("job %d: Waits = (%v, %v), want (%v, %v): %s", i, t1, t2, w.t1, w.t2, tc.why)
				}
			}
		})
	}
}

// TestIORateBiasingOnAHotSpot is section 6.2.4's situation in miniature,
// under fair sharing: a scan job (9 s maps, IO-bound) and a compute job
// (36 s maps, CPU-bound) both read a hot file on node 0, one slot a node.
// A remote scan map is held to the network (27 s); a remote compute map is
// not (36 s). The wait is 40 s so that the compute job's first local map
// (36 s) is measured before it ends: from then on the compute job runs off
// the hot node at once, and the scans, waiting, get it. Untuned, both jobs
// wait, relax together, and the compute job holds the hot node (the
// paper's "half the time a compute job would take the slot and hold it for
// 36s"). Both jobs finish sooner with biasing, as in Figure 15.
func TestIORateBiasingOnAHotSpot(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	dur := func(j *sched.Job, r cluster.Reach) float64 {
		switch {
		case j.Pool == "compute":
			return 36
		case r == cluster.NodeLocal:
			return 9
		}
		return 27
	}
	type result struct {
		scanLocal int
		finish    [2]float64 // compute, scan
	}
	run := func(biasing bool) result {
		d, err := sched.NewDelayPlacer(sched.DelayParams{IORateBiasing: biasing, T1S: secs(40)})
		if err != nil {
			t.Fatal(err)
		}
		fair, err := sched.NewFairOrder(sched.FairParams{})
		if err != nil {
			t.Fatal(err)
		}
		s := newMiniSim(t, topo, sched.Compose("t", fair, d), sched.MapSlot, 1)
		s.dur = dur
		s.add(mapJob(t, topo, 0, "compute", &workload.Job{InputBytes: 24 * block}, on(24, 0)...))
		s.add(mapJob(t, topo, 1, "scan", &workload.Job{InputBytes: 24 * block}, on(24, 0)...))
		s.run(5000)
		if len(s.jobs) > 0 {
			t.Fatalf("biasing=%v: jobs unfinished at t=%v", biasing, s.now)
		}
		var r result
		for _, l := range s.launches {
			if l.job == 1 && l.reach == cluster.NodeLocal {
				r.scanLocal++
			}
		}
		r.finish = [2]float64{s.finish[0], s.finish[1]}
		return r
	}
	with, without := run(true), run(false)
	if with.scanLocal <= without.scanLocal {
		t.Errorf("scan maps run node-local: %d of 24 with biasing, %d without; want more with biasing: the compute job should leave the hot node to the scans",
			with.scanLocal, without.scanLocal)
	}
	for i, name := range []string{"compute", "scan"} {
		if with.finish[i] >= without.finish[i] {
			t.Errorf("%s job finished at %.1f s with biasing, %.1f s without; want sooner with biasing", name, with.finish[i], without.finish[i])
		}
	}
}

func TestIORateBiasingPoolPrior(t *testing.T) {
	// Jobs 0 and 1 are in pool "p", job 2 in pool "q". Job 0 is measured
	// CPU-bound; job 1, unmeasured, takes its pool's class; job 2 has no
	// measured pool-mate and waits the full time. When job 1 is measured
	// IO-bound its own class wins, and becomes the pool's.
	topo := smallTopo(t)
	mk := func(i int, pool string) *sched.Job {
		return mapJob(t, topo, i, pool, &workload.Job{InputBytes: 4 * block}, on(4, 0, 1)...)
	}
	jobs := []*sched.Job{mk(0, "p"), mk(1, "p"), mk(2, "q")}
	c := &fakeCluster{topo: topo, jobs: jobs}
	d, err := sched.NewDelayPlacer(sched.DelayParams{IORateBiasing: true})
	if err != nil {
		t.Fatal(err)
	}
	runLocal := func(j *sched.Job, from, to float64) {
		t.Helper()
		c.now = from
		got, ok := d.Place(c, sched.Offer{Node: 0, Slot: sched.MapSlot}, func(yield func(*sched.Job) bool) { yield(j) })
		if !ok || got.Rule != sched.RuleNodeLocal {
			t.Fatalf("job %d on node 0: (%q, %v), want a node-local launch", j.Index, got.Rule, ok)
		}
		j.Maps.Take(got.Map)
		d.TaskLaunched(c, j, sched.MapTask, 0)
		c.now = to
		d.TaskEnded(c, j, sched.MapTask, 0, false)
	}
	check := func(when string, want [3]bool) {
		t.Helper()
		for i, j := range jobs {
			if got := d.CPUBound(j); got != want[i] {
				t.Errorf("%s: job %d (pool %s) CPUBound = %v, want %v", when, i, j.Pool, got, want[i])
			}
		}
	}
	for _, j := range jobs {
		d.JobAdded(c, j)
	}
	check("before any measurement", [3]bool{false, false, false})
	runLocal(jobs[0], 0, 36)
	check("after job 0 read 64 MiB in 36 s", [3]bool{true, true, false})
	runLocal(jobs[1], 40, 45)
	check("after job 1 read 64 MiB in 5 s", [3]bool{true, false, false})
	late := mk(3, "p")
	d.JobAdded(c, late)
	if d.CPUBound(late) {
		t.Errorf("a new job of pool p is CPU-bound, want IO-bound: its pool's last measured job (1) was IO-bound")
	}
}
