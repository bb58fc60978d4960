package sim

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// recorder wraps a policy and records launches and kills as they happen.
type recorder struct {
	observing
	launches []event3
	kills    []event3
	running  map[string]int // pool -> running maps; lookup only
	// firstAt is when each pool first ran at least goal maps.
	goal    int
	firstAt map[string]float64
}

type event3 struct {
	t    float64
	job  int
	pool string
}

func (r *recorder) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	r.observing.TaskLaunched(c, j, k, n)
	if k != sched.MapTask {
		return
	}
	r.launches = append(r.launches, event3{c.Now(), j.Index, j.Pool})
	r.running[j.Pool]++
	if _, ok := r.firstAt[j.Pool]; !ok && r.running[j.Pool] >= r.goal {
		r.firstAt[j.Pool] = c.Now()
	}
}

func (r *recorder) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	r.observing.TaskEnded(c, j, k, n, killed)
	if k != sched.MapTask {
		return
	}
	r.running[j.Pool]--
	if killed {
		r.kills = append(r.kills, event3{c.Now(), j.Index, j.Pool})
	}
}

func (r *recorder) Preempt(c sched.Cluster) []sched.TaskRef {
	return r.Policy.(sched.Preempter).Preempt(c)
}

// TestMinSharePreemption: pool "a" fills all 8 map slots with long maps
// (job 0 at t=0, job 1 at t=5); pool "b" (min share 4 map slots) submits at
// t=10. After Tmin the Fair Scheduler kills a's most recently launched
// tasks (job 1's) so that b gets its minimum share; b must run 4 maps by
// 10 + Tmin + one heartbeat (+ the 0.5 s preemption interval), a is never
// taken below its fair share (4 of 8), and exactly 4 tasks die. Tmin is
// the preemption section's, or b's own where it sets one (Hadoop's
// per-pool minSharePreemptionTimeout).
func TestMinSharePreemption(t *testing.T) {
	for _, tc := range []struct {
		name       string
		orderTmin  float64
		poolTmin   float64
		effectiveS float64
	}{
		{"the order's timeout", 30, 0, 30},
		{"the pool's own timeout", 600, 12, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
			mk := longMaps(topo)
			jobs := []workload.Job{mk(0, 0, "a", 4), mk(1, 5, "a", 4), mk(2, 10, "b", 8)}
			rec := fairRecorder(t, sched.FairParams{
				Pools:      []sched.PoolConfig{{Name: "b", MinMaps: 4, MinShareTimeoutS: tc.poolTmin}},
				Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: tc.orderTmin, FairShareTimeoutS: 600},
			}, 4)
			p := Params{}.WithDefaults()
			e := runJobs(t, topo, jobs, rec, p)
			if got := e.Collector().Summarize("fair").JobsCompleted; got != 3 {
				t.Fatalf("%d jobs completed, want 3", got)
			}
			deadline := 10 + tc.effectiveS + p.HeartbeatS + p.PreemptionIntervalS
			if at, ok := rec.firstAt["b"]; !ok || at > deadline {
				t.Errorf("pool b first ran 4 maps at %v (ok=%v), want by %.1f s: submit 10 + Tmin %v + one heartbeat + the preemption interval", at, ok, deadline, tc.effectiveS)
			}
			if len(rec.kills) != 4 {
				t.Errorf("%d tasks killed, want 4: b's deficit below its minimum share", len(rec.kills))
			}
			for _, k := range rec.kills {
				if k.job != 1 {
					t.Errorf("killed a task of job %d at %.1f s, want job 1's: the most recently launched tasks go first", k.job, k.t)
				}
				if k.t < 10+tc.effectiveS {
					t.Errorf("killed at %.1f s, before b had waited Tmin = %v s since t=10", k.t, tc.effectiveS)
				}
			}
			if s := e.Collector().Summarize("fair"); s.TasksKilled != 4 || s.WastedTaskS <= 0 {
				t.Errorf("summary counts %d kills and %.0f wasted task-seconds, want 4 and > 0", s.TasksKilled, s.WastedTaskS)
			}
		})
	}
}

// fairRecorder is the fair order with params, recording launches and
// kills, and when each pool first ran goal maps.
func fairRecorder(t *testing.T, params sched.FairParams, goal int) *recorder {
	t.Helper()
	inner, err := sched.NewFair(params)
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{observing: observing{inner}, running: map[string]int{}, firstAt: map[string]float64{}, goal: goal}
}

// longMaps makes jobs on topo of maps that each take 1000 s of compute a
// block, and one small reduce: a pool's tasks hold their slots until
// preemption takes them.
func longMaps(topo *cluster.Topology) func(id int, submit float64, pool string, maps int) workload.Job {
	block := topo.Config().BlockBytes()
	return func(id int, submit float64, pool string, maps int) workload.Job {
		j := newJob(id, submit).maps(maps, block, 1000).reduces(1, 1, 1).build()
		j.Pool = pool
		return j
	}
}

// TestNoPreemptionByDefault: the same workload without preemption kills
// nothing and b waits for a's tasks to end.
func TestNoPreemptionByDefault(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{
		newJob(0, 0).maps(8, block, 100).reduces(1, 1, 1).build(),
		newJob(1, 10).maps(8, block, 100).reduces(1, 1, 1).build(),
	}
	pol, err := sched.NewFair(sched.FairParams{Pools: []sched.PoolConfig{{Name: "user1", MinMaps: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pol.(sched.Preempter); ok {
		t.Error("fair without preemption enabled implements Preempter: the engine would poll it for nothing")
	}
	e := runJobs(t, topo, jobs, pol, Params{})
	if k := e.Collector().Summarize("fair").TasksKilled; k != 0 {
		t.Errorf("%d tasks killed with preemption off, want 0", k)
	}
}

// TestKilledReduceRefetches: killing reduces mid-shuffle loses their copied
// bytes, and the shuffle ledger still balances at the end: every byte a
// map produced is fetched exactly once by a surviving attempt.
func TestKilledReduceRefetches(t *testing.T) {
	// Three reduce slots: job 0's three long reduces hold them all when
	// job 1, whose pool is guaranteed all three, arrives.
	topo := mustTopo(t, cluster.Config{Racks: 3, NodesPerRack: 1, MapSlots: 4, ReduceSlots: 1})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{
		newJob(0, 0).maps(12, block, 5).reduces(3, 50<<20, 200).output(30 << 20).build(),
		newJob(1, 20).maps(12, block, 5).reduces(3, 50<<20, 20).build(),
	}
	inner, err := sched.NewFair(sched.FairParams{
		Pools:      []sched.PoolConfig{{Name: "user1", MinReduces: 3, MinMaps: 6}},
		Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 1, FairShareTimeoutS: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := runJobs(t, topo, jobs, inner, Params{}) // invariants on: the ledger is checked
	s := e.Collector().Summarize("fair")
	if s.JobsCompleted != 2 {
		t.Fatalf("%d jobs completed, want 2", s.JobsCompleted)
	}
	if s.TasksKilled == 0 {
		t.Error("no task was killed: the test no longer exercises killing")
	}
}

// TestFairShareThreshold: pool "a" runs 6 long maps of the 8 map slots;
// pool "b" (no minimum share) arrives at t=10 with 8 and takes the 2 free
// slots. Both pools' fair share is 4. Under the paper's rule (threshold 1)
// b, running 2 < 4, is starved and after Tfair = 30 s reclaims 2 slots
// from a; under Hadoop's (threshold 0.5) it runs floor(0.5 x 4) = 2, is
// not starved, and nothing is killed.
func TestFairShareThreshold(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold float64
		kills     int
	}{
		{"the paper's whole share", 0, 2},
		{"half the share, as Hadoop", 0.5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
			mk := longMaps(topo)
			jobs := []workload.Job{mk(0, 0, "a", 6), mk(1, 10, "b", 8)}
			rec := fairRecorder(t, sched.FairParams{
				Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 20, FairShareTimeoutS: 30, FairShareThreshold: tc.threshold},
			}, 4)
			e := runJobs(t, topo, jobs, rec, Params{}.WithDefaults())
			if got := e.Collector().Summarize("fair").JobsCompleted; got != 2 {
				t.Fatalf("%d jobs completed, want 2", got)
			}
			if len(rec.kills) != tc.kills {
				t.Errorf("%d tasks killed, want %d: b runs 2 of its fair share of 4", len(rec.kills), tc.kills)
			}
			for _, k := range rec.kills {
				if k.pool != "a" || k.t < 40 {
					t.Errorf("killed a task of pool %s at %.1f s; want a's, after b's 30 s below its share from t=10", k.pool, k.t)
				}
			}
		})
	}
}

// TestPreemptionUtilizationGate: YARN kills tasks only while the
// cluster's use is above its cluster-utilization threshold. Pool "a" runs
// long maps on all 8 map slots and pool "b" (min share 4) waits: the use
// is 1, above 0.8, so b takes its share back after Tmin; at a threshold of
// 1 the use is never above it and nothing is killed, though b starves.
func TestPreemptionUtilizationGate(t *testing.T) {
	for _, tc := range []struct {
		threshold float64
		kills     int
	}{{0, 4}, {0.8, 4}, {1, 0}} {
		topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
		mk := longMaps(topo)
		jobs := []workload.Job{mk(0, 0, "a", 8), mk(1, 10, "b", 8)}
		rec := fairRecorder(t, sched.FairParams{
			Pools:      []sched.PoolConfig{{Name: "b", MinMaps: 4}},
			Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 30, FairShareTimeoutS: 600, ClusterUtilizationThreshold: tc.threshold},
		}, 4)
		runJobs(t, topo, jobs, rec, Params{}.WithDefaults())
		if len(rec.kills) != tc.kills {
			t.Errorf("threshold %v: %d tasks killed, want %d (the cluster's use is 1)", tc.threshold, len(rec.kills), tc.kills)
		}
	}
}

// TestAllowPreemptionFrom: a pool that allows no preemption from it
// (YARN's allowPreemptionFrom false) keeps its tasks though another pool
// starves below its minimum share.
func TestAllowPreemptionFrom(t *testing.T) {
	no := false
	for _, tc := range []struct {
		allow *bool
		kills int
	}{{nil, 4}, {&no, 0}} {
		topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
		mk := longMaps(topo)
		jobs := []workload.Job{mk(0, 0, "a", 8), mk(1, 10, "b", 8)}
		rec := fairRecorder(t, sched.FairParams{
			Pools:      []sched.PoolConfig{{Name: "a", AllowPreemptionFrom: tc.allow}, {Name: "b", MinMaps: 4}},
			Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 30, FairShareTimeoutS: 600},
		}, 4)
		runJobs(t, topo, jobs, rec, Params{}.WithDefaults())
		if len(rec.kills) != tc.kills {
			t.Errorf("a's allow_preemption_from %v: %d tasks killed, want %d", tc.allow, len(rec.kills), tc.kills)
		}
	}
}
