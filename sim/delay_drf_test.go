package sim

import (
	"bytes"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

// TestDelaySchedulingRaisesLocality is the Fair Scheduler paper's
// small-jobs experiment (section 6.2.1, Table 3) in miniature: 3-map jobs
// arriving faster than they finish on 4 racks of 5 nodes. Without delay
// scheduling the head-of-line job takes whatever slot frees, so few maps
// are node-local (the paper saw 2%); with T1 = T2 = 15 s they nearly all
// are (the paper: 75%), and the batch takes no longer.
func TestDelaySchedulingRaisesLocality(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 4, NodesPerRack: 5})
	block := topo.Config().BlockBytes()
	var jobs []workload.Job
	for i := range 150 {
		jobs = append(jobs, newJob(i, float64(i)*0.4).maps(3, block, 10).reduces(1, 1<<10, 0.1).build())
	}
	type res struct{ node, makespan float64 }
	run := func(name string) res {
		e := runJobs(t, topo, jobs, mustPolicy(t, name), Params{})
		s := e.Collector().Summarize(name)
		return res{s.Locality.Node, s.MakespanS}
	}
	for _, pair := range [][2]string{{"fair", "delay"}, {"fifo", "fifo-delay"}} {
		base, delay := run(pair[0]), run(pair[1])
		if base.node > 0.5 {
			t.Errorf("%s: node locality %.2f, want below 0.5: head-of-line scheduling of small jobs loses locality (section 4.1)", pair[0], base.node)
		}
		if delay.node < 0.9 {
			t.Errorf("%s: node locality %.2f, want at least 0.9 (%s had %.2f)", pair[1], delay.node, pair[0], base.node)
		}
		if delay.makespan > 1.1*base.makespan {
			t.Errorf("%s: makespan %.1f s, want within 10%% of %s's %.1f s: 10 s maps find a local slot well within the wait", pair[1], delay.makespan, pair[0], base.makespan)
		}
	}
}

// runningRecorder wraps a policy and snapshots each pool's running tasks
// when the first task ends.
type runningRecorder struct {
	observing
	running  map[string]int
	snapshot map[string]int
}

func (r *runningRecorder) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	r.observing.TaskLaunched(c, j, k, n)
	r.running[j.Pool]++
}

func (r *runningRecorder) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if r.snapshot == nil {
		r.snapshot = map[string]int{}
		for p, v := range r.running {
			r.snapshot[p] = v
		}
	}
	r.observing.TaskEnded(c, j, k, n, killed)
	r.running[j.Pool]--
}

// TestDRFWorkedExampleOnEngine runs Ghodsi et al.'s example (9 CPUs, 18 GB;
// A's tasks <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>) on the engine, one node of
// ten containers: DRF runs 3 tasks of A and 2 of B, both at dominant share
// 2/3, until the first task ends. The engine's resource accounting
// (FreeResources) is what stops a sixth task.
func TestDRFWorkedExampleOnEngine(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, Containers: 10, CPUCores: 9, MemoryGB: 18, Replication: 1})
	block := topo.Config().BlockBytes()
	a := newJob(0, 0).maps(10, block, 100).reduces(1, 1<<10, 1).build()
	a.Profile.MapCPU, a.Profile.MapMemGB = 1, 4
	b := newJob(1, 0).maps(10, block, 100).reduces(1, 1<<10, 1).build()
	b.Profile.MapCPU, b.Profile.MapMemGB = 3, 1
	rec := &runningRecorder{observing: observing{mustPolicy(t, "drf")}, running: map[string]int{}}
	runJobs(t, topo, []workload.Job{a, b}, rec, Params{})
	if got, want := rec.snapshot, map[string]int{a.Pool: 3, b.Pool: 2}; got[a.Pool] != want[a.Pool] || got[b.Pool] != want[b.Pool] || len(got) != 2 {
		t.Errorf("running tasks before the first ended = %v, want %v: DRF equalises dominant shares at 2/3 (A: 12/18 GB, B: 6/9 CPUs)", got, want)
	}
}

// TestContainerReducesLeaveRoomForMaps: in the container model, reduces
// launched while their job still has maps pending wait for map output while
// holding their containers. On a busy cluster they can hold every container,
// and then the maps they wait for never run. The delay and DRF placers keep
// a node's last container (and, for DRF, a map's worth of CPU and memory)
// from such reduces. This workload (the first 300 FB-2010 jobs, submitted
// five times faster, on 12 nodes of 6 containers) deadlocks locality-first
// placement under the fair order: all 72 containers end up holding reduces.
func TestContainerReducesLeaveRoomForMaps(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 3, NodesPerRack: 4, Containers: 6})
	jobs, err := workload.ParseSWIM(bytes.NewReader(traces.FB2010()), traces.FB2010Name, workload.SWIMOptions{
		SourceNodes: traces.FB2010SourceNodes, TargetNodes: 60,
		BlockBytes: topo.Config().BlockBytes(), Users: 10, Seed: 3, MaxJobs: 300,
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		jobs[i].Submit *= 0.2
	}
	for _, name := range []string{"delay", "fifo-delay", "drf"} {
		t.Run(name, func(t *testing.T) {
			e := runJobs(t, topo, jobs, mustPolicy(t, name), Params{})
			if s := e.Collector().Summarize(name); s.JobsCompleted != len(jobs) {
				t.Errorf("%d of %d jobs completed, want all", s.JobsCompleted, len(jobs))
			}
		})
	}
}
