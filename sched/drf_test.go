package sched_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// demandJob is a map-only job of pool whose maps need cpu cores and mem GB,
// its blocks on the first nodes.
func demandJob(t *testing.T, topo *cluster.Topology, index int, pool string, maps int, cpu, mem float64) *sched.Job {
	t.Helper()
	spec := &workload.Job{Profile: workload.Profile{MapCPU: cpu, MapMemGB: mem}}
	nodes := make([]cluster.NodeID, topo.Config().Replication)
	for i := range nodes {
		nodes[i] = cluster.NodeID(i)
	}
	return mapJob(t, topo, index, pool, spec, on(maps, nodes...)...)
}

// TestDRFWorkedExample is Ghodsi et al.'s example (section 4.1): 9 CPUs and
// 18 GB; user A's tasks need <1 CPU, 4 GB>, user B's <3 CPUs, 1 GB>. DRF
// gives A three tasks (3 CPUs, 12 GB: dominant share 12/18 = 2/3, memory)
// and B two (6 CPUs, 2 GB: dominant share 6/9 = 2/3, CPU); then neither's
// next task fits (0 CPUs left).
func TestDRFWorkedExample(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, Containers: 10, CPUCores: 9, MemoryGB: 18, Replication: 1})
	build := map[string]func() (sched.Policy, *sched.DRFOrder){
		"composed by hand": func() (sched.Policy, *sched.DRFOrder) {
			o, err := sched.NewDRFOrder(sched.DRFParams{})
			if err != nil {
				t.Fatal(err)
			}
			return sched.Compose("drf", o, sched.NewResourceFit(sched.LocalityFirst{})), o
		},
		"registry": func() (sched.Policy, *sched.DRFOrder) {
			p, err := sched.NewPolicy("drf", nil)
			if err != nil {
				t.Fatal(err)
			}
			return p, nil
		},
	}
	for _, name := range []string{"composed by hand", "registry"} {
		t.Run(name, func(t *testing.T) {
			pol, o := build[name]()
			s := newMiniSim(t, topo, pol, sched.AnySlot, 10)
			s.dur = func(*sched.Job, cluster.Reach) float64 { return 1000 }
			s.add(demandJob(t, topo, 0, "A", 20, 1, 4))
			s.add(demandJob(t, topo, 1, "B", 20, 3, 1))
			s.offer(0)
			var order []int
			for _, l := range s.launches {
				order = append(order, l.job)
			}
			// Shares after each launch: A 4/18, B 3/9, A 8/18, B 6/9, A 12/18.
			if want := []int{0, 1, 0, 1, 0}; !slices.Equal(order, want) {
				t.Errorf("launch order (job per launch) = %v, want %v: the lowest dominant share goes next", order, want)
			}
			if a, b := s.runningOf("A"), s.runningOf("B"); a != 3 || b != 2 {
				t.Errorf("running tasks A = %d, B = %d; want 3 and 2 (dominant shares 2/3 each)", a, b)
			}
			if o != nil {
				for _, u := range []string{"A", "B"} {
					if got := o.DominantShare(s, u); !near(got, 2.0/3) {
						t.Errorf("DominantShare(%s) = %v, want 2/3", u, got)
					}
				}
			}
			// B's task ends: B (1/3) is now below A (2/3) and its task fits
			// the 3 freed CPUs, so it gets them back.
			s.end(s.running[1])
			s.running = slices.Delete(s.running, 1, 2)
			s.offer(0)
			if last := s.launches[len(s.launches)-1]; len(s.launches) != 6 || last.job != 1 {
				t.Errorf("after a B task ended, launches = %d (last job %d), want a 6th launch, of B", len(s.launches), last.job)
			}
		})
	}
}

func TestDRFOrderCandidates(t *testing.T) {
	// smallTopo: 6 nodes of 4 cores and 15 GB: 24 cores, 90 GB in all.
	// a: job 0 <2 CPU, 1 GB> runs 3 tasks (6/24 = 0.25 CPU, 3/90 memory)
	//    and job 3 submitted later; b: job 1 <1 CPU, 9 GB> runs 1 task
	//    (9/90 = 0.1 memory); c: job 2 runs nothing (0); d: job 4 has no
	//    pending map.
	type setup struct {
		topo *cluster.Topology
		c    *fakeCluster
		jobs []*sched.Job
	}
	mk := func(t *testing.T) setup {
		topo := smallTopo(t)
		jobs := []*sched.Job{
			demandJob(t, topo, 0, "a", 5, 2, 1),
			demandJob(t, topo, 1, "b", 5, 1, 9),
			demandJob(t, topo, 2, "c", 5, 1, 1),
			demandJob(t, topo, 3, "a", 5, 1, 1),
			demandJob(t, topo, 4, "d", 1, 1, 1),
		}
		for i, j := range jobs {
			j.Submit = float64(i)
		}
		jobs[4].Maps.Take(0)
		return setup{topo, &fakeCluster{topo: topo, jobs: jobs}, jobs}
	}
	tests := []struct {
		name   string
		params sched.DRFParams
		ended  int // a-tasks that end before the check
		want   []int
		why    string
	}{
		{name: "lowest dominant share first", want: []int{2, 1, 0, 3},
			why: "c 0 < b 9/90 = 0.1 (memory) < a 6/24 = 0.25 (CPU); a's jobs in submit order; d has nothing runnable"},
		{name: "weights divide shares", params: sched.DRFParams{Weights: map[string]float64{"a": 4}}, want: []int{2, 0, 3, 1},
			why: "a's 0.25 / weight 4 = 0.0625 < b's 0.1"},
		{name: "ended tasks leave the allocation", ended: 3, want: []int{0, 3, 2, 1},
			why: "a runs nothing again: a and c tie at 0 and a goes first by name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mk(t)
			o, err := sched.NewDRFOrder(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range s.jobs {
				o.JobAdded(s.c, j)
			}
			for range 3 {
				o.TaskLaunched(s.c, s.jobs[0], sched.MapTask, 0)
			}
			o.TaskLaunched(s.c, s.jobs[1], sched.MapTask, 0)
			for range tc.ended {
				o.TaskEnded(s.c, s.jobs[0], sched.MapTask, 0, false)
			}
			if got := collect(o.Candidates(s.c, sched.MapSlot)); !slices.Equal(got, tc.want) {
				t.Errorf("candidates = %v, want %v: %s", got, tc.want, tc.why)
			}
		})
	}

	t.Run("a removed job leaves its user", func(t *testing.T) {
		s := mk(t)
		o, _ := sched.NewDRFOrder(sched.DRFParams{})
		for _, j := range s.jobs {
			o.JobAdded(s.c, j)
		}
		o.JobRemoved(s.c, s.jobs[2])
		if got := collect(o.Candidates(s.c, sched.MapSlot)); !slices.Equal(got, []int{0, 3, 1}) {
			t.Errorf("candidates after c's only job left = %v, want [0 3 1]: users tie at 0, by name", got)
		}
	})
}

func TestFits(t *testing.T) {
	// A node of 4 cores and 15 GB. Maps need <1, 2>, reduces <2, 4>.
	topo := smallTopo(t)
	mk := func(pendingMaps bool) *sched.Job {
		j := mapJob(t, topo, 0, "p", &workload.Job{Profile: workload.Profile{MapCPU: 1, MapMemGB: 2, ReduceCPU: 2, ReduceMemGB: 4}}, on(2, 0, 1)...)
		j.NumReduces, j.ReducesEnabled = 1, true
		if !pendingMaps {
			j.Maps.Take(0)
			j.Maps.Take(1)
			j.FinishedMaps = 2
		}
		return j
	}
	huge := mapJob(t, topo, 1, "p", &workload.Job{Profile: workload.Profile{MapCPU: 64, MapMemGB: 2}}, on(1, 0, 1)...)
	tests := []struct {
		name     string
		job      *sched.Job
		slot     sched.SlotKind
		cpu, mem float64
		want     bool
		why      string
	}{
		{"map fits", mk(true), sched.MapSlot, 1, 2, true, "exactly its demand is free"},
		{"map lacks cpu", mk(true), sched.MapSlot, 0.5, 15, false, "needs 1 core"},
		{"map lacks memory", mk(true), sched.MapSlot, 4, 1.5, false, "needs 2 GB"},
		{"reduce with maps pending leaves room for a map", mk(true), sched.ReduceSlot, 3, 6, true, "2+1 cores, 4+2 GB free"},
		{"reduce with maps pending must leave room for a map", mk(true), sched.ReduceSlot, 2, 15, false, "a reduce taking the last cores could starve the maps it waits for"},
		{"reduce after the maps needs only its own demand", mk(false), sched.ReduceSlot, 2, 4, true, "no pending map to starve"},
		{"task larger than a node runs on an idle node", huge, sched.MapSlot, 4, 15, true, "64 cores is clamped to the node's 4"},
		{"task larger than a node waits for an idle node", huge, sched.MapSlot, 3, 15, false, "one core is taken"},
		{"nothing runnable", mk(false), sched.MapSlot, 4, 15, false, "no pending map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sched.Fits(tc.job, tc.slot, tc.cpu, tc.mem, 4, 15); got != tc.want {
				t.Errorf("Fits(%v slot, free %v CPU %v GB) = %v, want %v: %s", tc.slot, tc.cpu, tc.mem, got, tc.want, tc.why)
			}
		})
	}
}

func TestDRFPassesOverUsersWhoseTaskDoesNotFit(t *testing.T) {
	// One node of 4 cores and 16 GB with 10 containers. Big (pool "a",
	// lowest share) needs 4 cores; small (pool "b") 1. With 3 cores free
	// the slot goes to b, though a is first in DRF order.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, Containers: 10, CPUCores: 4, MemoryGB: 16, Replication: 1})
	pol, err := sched.NewPolicy("drf", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newMiniSim(t, topo, pol, sched.AnySlot, 10)
	s.dur = func(*sched.Job, cluster.Reach) float64 { return 100 }
	s.add(demandJob(t, topo, 0, "b", 5, 1, 1))
	d, ok := pol.Assign(s, sched.Offer{Node: 0, Slot: sched.AnySlot})
	if !ok {
		t.Fatal("b alone was declined")
	}
	s.apply(0, d) // b: 1 task, 1 core
	s.add(demandJob(t, topo, 1, "a", 5, 4, 1))
	s.offer(0)
	if a, b := s.runningOf("a"), s.runningOf("b"); a != 0 || b != 4 {
		t.Errorf("running a = %d, b = %d; want 0 and 4: a's 4-core task never fits beside b's, so b takes every core", a, b)
	}
}

func TestDRFParamsValidate(t *testing.T) {
	for _, w := range []float64{0, -1} {
		_, err := sched.NewDRFOrder(sched.DRFParams{Weights: map[string]float64{"ok": 1, "bad": w}})
		if err == nil || !strings.Contains(err.Error(), "weights.bad") {
			t.Errorf("weight %v: error %v, want one naming weights.bad", w, err)
		}
	}
}

// resCluster is a fakeCluster with chosen free resources.
type resCluster struct {
	*fakeCluster
	cpu, mem float64
}

func (c resCluster) FreeResources(cluster.NodeID) (cpu, memGB float64) { return c.cpu, c.mem }

func TestResourceFitHoldsReducesThatWouldStarveMaps(t *testing.T) {
	// A job with 2 of 4 maps done, 2 pending, and 2 reduces enabled: in a
	// container KindFor picks a reduce (0 of 2 launched < 2 of 4 done).
	// Maps need <1 CPU, 1 GB>, reduces <2 CPUs, 1 GB>.
	topo := smallTopo(t)
	tests := []struct {
		name        string
		free        int
		cpu         float64
		pendingMaps bool
		want        sched.TaskKind
		why         string
	}{
		{"room for both", 2, 4, true, sched.ReduceTask, "a second container and a core remain for a map"},
		{"last container", 1, 4, true, sched.MapTask,
			"a reduce in the last container could wait forever on maps with nowhere to run: the map takes it instead"},
		{"last cores", 2, 2, true, sched.MapTask,
			"2 cores fit the reduce but not the reduce and a map: the map takes them instead"},
		{"no map left to starve", 1, 2, false, sched.ReduceTask, "all maps are done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := &workload.Job{Profile: workload.Profile{MapCPU: 1, MapMemGB: 1, ReduceCPU: 2, ReduceMemGB: 1}}
			j := mapJob(t, topo, 0, "p", spec, on(4, 0, 1)...)
			j.Maps.Take(0)
			j.Maps.Take(1)
			j.FinishedMaps = 2
			if !tc.pendingMaps {
				j.Maps.Take(2)
				j.Maps.Take(3)
				j.FinishedMaps = 4
			}
			j.NumReduces, j.ReducesEnabled = 2, true
			c := resCluster{&fakeCluster{topo: topo, jobs: []*sched.Job{j}, free: map[cluster.NodeID]int{0: tc.free}}, tc.cpu, 15}
			f := sched.NewResourceFit(sched.LocalityFirst{})
			d, ok := f.Place(c, sched.Offer{Node: 0, Slot: sched.AnySlot}, func(yield func(*sched.Job) bool) { yield(j) })
			if !ok || d.Kind != tc.want {
				t.Errorf("%d free containers, %v free cores: launched %v (%v), want a %v: %s", tc.free, tc.cpu, ok, d.Kind, tc.want, tc.why)
			}
		})
	}
}
