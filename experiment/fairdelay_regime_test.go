package experiment

import (
	"fmt"
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

// TestHDDReRunSetUps pins the re-runs' two cost models on each old
// experiment's cluster: fluid leaves the set-up as the old experiment has
// it; hadoop1-hdd gives one hdd a node and the profile's engine costs, with
// speculation as each experiment's rule says.
func TestHDDReRunSetUps(t *testing.T) {
	hdd := cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 138, SeekMs: 12.4, ChunkKB: 4096}
	cases := []struct {
		name        string
		cluster     cluster.Config
		speculative bool
	}{
		{"small-jobs-hdd", privateCluster(), true},
		{"sticky-slots-hdd", ec2Cluster(), true},
		{"io-rate-biasing-hdd", ec2Cluster(), false},
	}
	for _, tc := range cases {
		costs := fdCosts(mustHDD(t), tc.speculative)
		fluid := costs[0].apply(harness.Setup{Cluster: tc.cluster, Seed: 7})
		if len(costs) != 4 || costs[0].name != "fluid" || fluid.Cluster != tc.cluster || fluid.Engine != (sim.Params{}) || costs[1].name != "hadoop1-hdd" ||
			costs[2].name != "hdd, no start-up" || costs[3].name != "fluid + start-up" {
			t.Fatalf("%s: cost models %+v; want fluid (unchanged), hadoop1-hdd and its two halves", tc.name, costs)
		}
		// The halves: the profile without its start-up, and the start-up
		// alone on the old set-up.
		noStart := costs[2].apply(harness.Setup{Cluster: tc.cluster, Seed: 7})
		if noStart.Engine.TaskStartupS != 0 || noStart.Cluster.Disk == nil || noStart.Engine.SortBufferMB != 100 || noStart.Engine.Speculative != tc.speculative {
			t.Errorf("%s: hdd, no start-up: %+v, disk %+v", tc.name, noStart.Engine, noStart.Cluster.Disk)
		}
		onlyStart := costs[3].apply(harness.Setup{Cluster: tc.cluster, Seed: 7})
		if onlyStart.Engine.TaskStartupS != 4 || onlyStart.Cluster != tc.cluster || onlyStart.Engine.SortBufferMB != 0 || onlyStart.Engine.Speculative {
			t.Errorf("%s: fluid + start-up: %+v on %+v", tc.name, onlyStart.Engine, onlyStart.Cluster)
		}
		s := costs[1].apply(harness.Setup{Cluster: tc.cluster, Seed: 7})
		c, e := s.Cluster, s.Engine.WithDefaults()
		if c.Disk == nil || *c.Disk != hdd || c.DiskMBps != 138 {
			t.Errorf("%s: disk %+v at %v MB/s; want %+v", tc.name, c.Disk, c.DiskMBps, hdd)
		}
		if e.TaskStartupS != 4 || e.SortBufferMB != 100 || e.MergeFactor != 10 || e.ReduceBufferMB != 140 ||
			e.ReduceInputBufferMB != 0 || e.LaunchesPerHeartbeat != 0 || e.HeartbeatS != 3 || e.Speculative != tc.speculative {
			t.Errorf("%s: engine %+v; want 4 s start-up, 100 MiB sort buffer, merge factor 10, 140 MiB reduce buffer, 3 s heartbeats, no launch limit, speculative %v",
				tc.name, e, tc.speculative)
		}
		want := tc.cluster
		c.Disk, c.DiskMBps = nil, want.DiskMBps
		if c != want || s.Seed != 7 {
			t.Errorf("%s: the profile changed more than the disk: %+v, want %+v", tc.name, c, want)
		}
		if _, err := cluster.New(s.Cluster); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if tc := privateCluster(); tc.Disk != nil || tc.DiskMBps != 200 {
		t.Errorf("withHDDProfile changed the old experiments' cluster: %+v", tc)
	}
}

// TestMapTimerChangesNothing: the re-runs' fluid rows are the old
// experiments' runs, so timing maps must not change a run, open or
// closed-loop, under either cost model.
func TestMapTimerChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	cl := privateCluster()
	block := cl.WithDefaults().BlockBytes()
	open := make([]workload.Job, 60)
	for i := range open {
		open[i] = scanJob(i, fmt.Sprintf("t-j%d", i), i, 0, 3, block, ScanMapS)
	}
	per := []int{3, 3, 4, 4}
	closed, plan := harness.ClosedLoopJobs(per, func(id, w, k int) workload.Job {
		return scanJob(id, "t-hot", w, 0, hotFileBlocks, block, []float64{ComputeMapS, ScanMapS}[w%2])
	})
	plan.HorizonS = 60
	for _, cost := range fdCosts(mustHDD(t), true) {
		for _, p := range []harness.PolicySpec{smallJobsPolicies[1], hotPolicies[2]} {
			for _, r := range []harness.Run{{Jobs: open, Policy: p}, {Jobs: closed, Policy: p, Workers: plan}} {
				r.Setup = harness.Setup{Cluster: cl, Seed: 3}
				if r.Setup = cost.apply(r.Setup); cost.name != "fluid" {
					r.Setup.Engine.Speculative = r.Workers == nil
				}
				a, err := r.Exec()
				if err != nil {
					t.Fatal(err)
				}
				b, err := probe.TimedRun{Run: r}.Exec()
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s, %s, closed loop %v", cost.name, p.Label, r.Workers != nil)
				if a.Summary.MakespanS != b.Summary.MakespanS || a.Summary.Locality != b.Summary.Locality {
					t.Errorf("%s: makespan %v, locality %+v without the timer; %v, %+v with it", what,
						a.Summary.MakespanS, a.Summary.Locality, b.Summary.MakespanS, b.Summary.Locality)
				}
				for j := range a.Jobs {
					if a.Jobs[j].Finish != b.Jobs[j].Finish || a.Released[j] != b.Released[j] {
						t.Errorf("%s: job %d finishes %v (released %v) without the timer, %v (%v) with it", what, j,
							a.Jobs[j].Finish, a.Released[j], b.Jobs[j].Finish, b.Released[j])
						break
					}
				}
				timed := b.Dur[0][0].N + b.Dur[0][1].N + b.Dur[0][2].N
				if timed == 0 {
					t.Errorf("%s: no map timed", what)
				}
			}
		}
	}
}

// TestMapTimerDurations: on one node every map is node-local; ten maps of
// 100 s in ten slots each take 100 s, and 104 s with the profile's 4 s
// start-up, under every cost model.
func TestMapTimerDurations(t *testing.T) {
	cl := pairCluster()
	block := cl.WithDefaults().BlockBytes()
	for _, cost := range fdCosts(mustHDD(t), false) {
		s := cost.apply(harness.Setup{Cluster: cl, Seed: 1})
		want := 100 + s.Engine.TaskStartupS
		out, err := probe.TimedRun{Run: harness.Run{Setup: s, Jobs: []workload.Job{mapJob(0, block)}, Policy: polFIFO}}.Exec()
		if err != nil {
			t.Fatal(err)
		}
		d := out.Dur[0]
		if d[cluster.NodeLocal].N != 10 || d[cluster.RackLocal].N != 0 || d[cluster.OffRack].N != 0 {
			t.Fatalf("%s: timed %d node-local, %d rack-local, %d off-rack maps; want 10, 0, 0", cost.name,
				d[0].N, d[1].N, d[2].N)
		}
		// The hdd's ten streams read at 98 MB/s together, above the maps'
		// 6.7 MB/s: the CPU sets the pace.
		if m := d[cluster.NodeLocal].Mean(); math.Abs(m-want) > 0.01 {
			t.Errorf("%s: maps took %.3f s on average, want %.0f s", cost.name, m, want)
		}
	}
	// io-rate-biasing times its maps by class: compute workers come
	// first, then the scans.
	if classes := []int{hotClass(0), hotClass(hotWorkersClass)}; classes[0] != 1 || classes[1] != 0 {
		t.Errorf("classes %v: want compute workers' jobs in class 1, scans' in 0", classes)
	}
}

// TestFairDelayMapGrid: fair-delay/map's axes, its batches sized by
// small-jobs' rule, its marks on small-jobs-hdd's cells, and its figure.
func TestFairDelayMapGrid(t *testing.T) {
	m, err := fdMap()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Xs) != 4 || len(m.Ys) != 4 || m.Policy.Name != "fifo-delay" || m.Baseline.Name != "fifo" {
		t.Fatalf("map %v x %v, %s over %s", m.Xs, m.Ys, m.Policy.Name, m.Baseline.Name)
	}
	for _, wl := range SmallJobsWorkloads(600) {
		if n := smallJobsCount(wl.Maps, 600); n != wl.Jobs {
			t.Errorf("%d maps: %d jobs, small-jobs runs %d", wl.Maps, n, wl.Jobs)
		}
	}
	want := map[[2]int]string{{0, 3}: "small-jobs-hdd", {1, 3}: "small-jobs-hdd", {3, 3}: "small-jobs-hdd"}
	if len(m.Marks) != len(want) {
		t.Errorf("marks %v, want %v", m.Marks, want)
	}
	for k, v := range want {
		if m.Marks[k] != v {
			t.Errorf("mark at %v = %q, want %q", k, m.Marks[k], v)
		}
	}
	if f := fdMapFigure(); f == nil || f.Heat == nil || f.Heat.Value != "throughput_ratio" {
		t.Errorf("fair-delay/map's figure %+v: want a heat figure of the throughput ratio", f)
	}
}
