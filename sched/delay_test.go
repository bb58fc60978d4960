package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

func secs(v float64) *float64 { return &v }

// delayStep is one event of a hand-timed delay-scheduling scenario: an
// offer (want is the rule that must fire, "" for a decline), or a kill of
// one of the job's running maps.
type delayStep struct {
	at   float64
	node cluster.NodeID
	slot sched.SlotKind
	kill bool
	job  int // index into the scenario's jobs of the job expected to launch
	want string
	why  string
}

// runDelaySteps drives a FIFO + delay policy over jobs on c, applying each
// launch as the engine would.
func runDelaySteps(t *testing.T, c *fakeCluster, p sched.DelayParams, steps []delayStep) {
	t.Helper()
	d, err := sched.NewDelayPlacer(p)
	if err != nil {
		t.Fatalf("NewDelayPlacer: %v", err)
	}
	pol := sched.Compose("t", sched.FIFOOrder{}, d)
	jo, to := observers(t, pol)
	for _, j := range c.jobs {
		jo.JobAdded(c, j)
	}
	for k, st := range steps {
		c.now = st.at
		if st.kill {
			j := c.jobs[st.job]
			for i := 0; i < j.NumMaps; i++ {
				if !j.Maps.IsPending(i) {
					j.Maps.Return(i)
					break
				}
			}
			j.RunningMaps--
			to.TaskEnded(c, j, sched.MapTask, st.node, true)
			continue
		}
		got, ok := pol.Assign(c, sched.Offer{Node: st.node, Slot: st.slot})
		switch {
		case st.want == "" && ok:
			t.Fatalf("step %d (t=%v, node %d): launched %s of job %d, want a decline: %s", k, st.at, st.node, got.Rule, got.Job.Index, st.why)
		case st.want != "" && !ok:
			t.Fatalf("step %d (t=%v, node %d): declined, want %s: %s", k, st.at, st.node, st.want, st.why)
		case ok && (got.Rule != st.want || got.Job != c.jobs[st.job]):
			t.Fatalf("step %d (t=%v, node %d): launched %s of job %d, want %s of job %d: %s", k, st.at, st.node, got.Rule, got.Job.Index, st.want, c.jobs[st.job].Index, st.why)
		}
		if !ok {
			continue
		}
		if got.Kind == sched.ReduceTask {
			got.Job.RunningReduces++
			to.TaskLaunched(c, got.Job, sched.ReduceTask, st.node)
			continue
		}
		got.Job.Maps.Take(got.Map)
		got.Job.RunningMaps++
		to.TaskLaunched(c, got.Job, sched.MapTask, st.node)
	}
}

func TestDelaySchedulingLevels(t *testing.T) {
	// smallTopo: rack 0 = nodes 0-2, rack 1 = nodes 3-5, replication 2.
	// Job A's blocks are all on nodes 0 and 1: node 2 is rack-local to
	// them, nodes 3-5 off-rack. Job B's blocks are on nodes 3 and 4.
	const (
		node = sched.RuleNodeLocal
		rack = sched.RuleRackLocal
		off  = sched.RuleOffRack
		red  = sched.RuleReduce
		M    = sched.MapSlot
	)
	jobA := func(t *testing.T, topo *cluster.Topology, n int) *sched.Job {
		return mapJob(t, topo, 0, "a", nil, on(n, 0, 1)...)
	}
	// onlyA is the jobs of a scenario with job A alone, of n maps.
	onlyA := func(n int) func(t *testing.T, topo *cluster.Topology) []*sched.Job {
		return func(t *testing.T, topo *cluster.Topology) []*sched.Job { return []*sched.Job{jobA(t, topo, n)} }
	}
	tests := []struct {
		name   string
		params sched.DelayParams
		free   map[cluster.NodeID]int // free containers; none unless listed
		jobs   func(t *testing.T, topo *cluster.Topology) []*sched.Job
		steps  []delayStep
	}{
		{
			name: "skipped, then rack-local after T1, off-rack after T1+T2, back to node-local after two local launches",
			jobs: onlyA(20),
			steps: []delayStep{
				{at: 0, node: 3, slot: M, why: "no local data on node 3: the job is skipped and its spell starts"},
				{at: 10, node: 2, slot: M, why: "waited 10 s < T1 = 15 s: rack-local not yet allowed"},
				{at: 15, node: 3, slot: M, why: "waited 15 s >= T1 allows rack-local, but node 3 is off-rack"},
				{at: 15, node: 2, slot: M, want: rack, why: "waited 15 s >= T1: rack-local allowed"},
				{at: 29, node: 3, slot: M, why: "the rack-local launch followed skips that left slots idle, so the wait runs on from t=0: 29 s < T1+T2"},
				{at: 30, node: 3, slot: M, want: off, why: "waited 30 s >= T1+T2: off-rack allowed"},
				{at: 31, node: 0, slot: M, want: node, why: "node-local data is always taken"},
				{at: 32, node: 4, slot: M, want: off, why: "one node-local launch after an off-rack one does not bring the level back"},
				{at: 33, node: 0, slot: M, want: node, why: "node-local"},
				{at: 34, node: 1, slot: M, want: node, why: "a second node-local launch in a row with no idle skip between: level back to 0"},
				{at: 35, node: 3, slot: M, why: "level 0 again: off-rack is not allowed, a new spell starts at 35"},
				{at: 49, node: 2, slot: M, why: "waited 14 s in the new spell < T1"},
				{at: 50, node: 2, slot: M, want: rack, why: "waited 15 s in the new spell"},
			},
		},
		{
			name: "a skipped slot that another job takes does not keep the wait running (Algorithm 1 in its own setting)",
			jobs: func(t *testing.T, topo *cluster.Topology) []*sched.Job {
				return []*sched.Job{jobA(t, topo, 20), mapJob(t, topo, 1, "b", nil, on(20, 3, 4)...)}
			},
			steps: []delayStep{
				{at: 0, node: 3, slot: M, job: 1, want: node, why: "A is skipped (its spell starts), B runs locally on node 3"},
				{at: 10, node: 0, slot: M, want: node, why: "A launches locally; its skip was cheap (B took the slot), so its spell ends"},
				{at: 20, node: 4, slot: M, job: 1, want: node, why: "A is skipped again: a new spell starts at 20"},
				{at: 34, node: 2, slot: M, why: "A waited 14 s since 20 (not 34 s since 0) < T1; B has no data in rack 0"},
				{at: 35, node: 2, slot: M, want: rack, why: "A waited 15 s in the spell that began at 20"},
			},
		},
		{
			name: "node-local launches after idle skips do not reset the wait (SPARK-18886)",
			jobs: onlyA(20),
			steps: []delayStep{
				{at: 0, node: 3, slot: M, why: "skipped; slot idle"},
				{at: 5, node: 0, slot: M, want: node, why: "local launch"},
				{at: 10, node: 4, slot: M, why: "skipped; slot idle"},
				{at: 14, node: 1, slot: M, want: node, why: "local launch"},
				{at: 15, node: 2, slot: M, want: rack, why: "the wait counts from the first idle skip at 0, through the local launches: 15 s >= T1"},
			},
		},
		{
			name:   "reset_on_launch is Algorithm 1 literally: every launch resets the wait",
			params: sched.DelayParams{ResetOnLaunch: true},
			jobs:   onlyA(20),
			steps: []delayStep{
				{at: 0, node: 3, slot: M, why: "skipped"},
				{at: 5, node: 0, slot: M, want: node, why: "local launch: wait reset to 0"},
				{at: 10, node: 4, slot: M, why: "skipped: new spell at 10"},
				{at: 14, node: 1, slot: M, want: node, why: "local launch: wait reset"},
				{at: 15, node: 2, slot: M, why: "spell started at 15: 0 s waited"},
				{at: 30, node: 2, slot: M, want: rack, why: "15 s since the last reset: level 1, wait reset"},
				{at: 31, node: 3, slot: M, why: "at level 1 off-rack needs T2 = 15 s more"},
				{at: 46, node: 3, slot: M, want: off, why: "level 1 and 15 s waited >= T2"},
			},
		},
		{
			name:   "T1 = 0 allows rack-local at once; T2 still holds off-rack",
			params: sched.DelayParams{T1S: secs(0)},
			jobs:   onlyA(20),
			steps: []delayStep{
				{at: 0, node: 2, slot: M, want: rack, why: "T1 = 0: no wait for rack-local"},
				{at: 0, node: 3, slot: M, why: "off-rack still needs T1+T2 = 15 s"},
				{at: 15, node: 3, slot: M, want: off, why: "15 s >= T1+T2"},
			},
		},
		{
			name:   "T1 = T2 = 0 is locality-first",
			params: sched.DelayParams{T1S: secs(0), T2S: secs(0)},
			jobs:   onlyA(20),
			steps: []delayStep{
				{at: 0, node: 3, slot: M, want: off, why: "no waits: the first offer is taken"},
				{at: 0, node: 2, slot: M, want: rack, why: "no waits"},
			},
		},
		{
			name: "a job with no pending map ends its spell; a killed map returning starts afresh",
			jobs: onlyA(2),
			steps: []delayStep{
				{at: 0, node: 3, slot: M, why: "skipped"},
				{at: 30, node: 3, slot: M, want: off, why: "T1+T2 waited"},
				{at: 31, node: 4, slot: M, want: off, why: "still relaxed; this was the last pending map"},
				{at: 40, node: 4, kill: true},
				{at: 40, node: 4, slot: M, why: "the returned map starts a fresh spell at level 0"},
			},
		},
		{
			name: "reduces never wait, in reduce slots and in containers",
			jobs: func(t *testing.T, topo *cluster.Topology) []*sched.Job {
				j := jobA(t, topo, 1)
				j.Maps.Take(0)
				j.FinishedMaps = 1
				j.NumReduces, j.ReducesEnabled = 2, true
				return []*sched.Job{j}
			},
			steps: []delayStep{
				{at: 0, node: 5, slot: sched.ReduceSlot, want: red, why: "reduces have no locality"},
				{at: 0, node: 5, slot: sched.AnySlot, want: red, why: "KindFor says reduce: launched without waiting"},
			},
		},
		{
			name: "a reduce whose maps are pending does not take a node's last container",
			free: map[cluster.NodeID]int{5: 2},
			jobs: func(t *testing.T, topo *cluster.Topology) []*sched.Job {
				j := jobA(t, topo, 4)
				j.Maps.Take(0)
				j.Maps.Take(1)
				j.FinishedMaps = 2
				j.NumReduces, j.ReducesEnabled = 2, true // KindFor: a reduce (0/2 launched < 2/4 done)
				return []*sched.Job{j}
			},
			steps: []delayStep{
				{at: 0, node: 0, slot: sched.AnySlot, want: node, why: "node 0's last container: the job runs a local map instead of the reduce"},
				{at: 0, node: 3, slot: sched.AnySlot, why: "node 3's last container: no reduce, and a map here would be off-rack"},
				{at: 0, node: 5, slot: sched.AnySlot, want: red, why: "node 5 has 2 free containers: the reduce leaves one for a map"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := smallTopo(t)
			c := &fakeCluster{topo: topo, jobs: tc.jobs(t, topo), free: tc.free}
			runDelaySteps(t, c, tc.params, tc.steps)
		})
	}
}

func TestDelayPlacerReportsWaitAndLevel(t *testing.T) {
	topo := smallTopo(t)
	j := mapJob(t, topo, 0, "a", nil, on(5, 0, 1)...)
	c := &fakeCluster{topo: topo, jobs: []*sched.Job{j}}
	d, err := sched.NewDelayPlacer(sched.DelayParams{T1S: secs(10), T2S: secs(20)})
	if err != nil {
		t.Fatal(err)
	}
	d.JobAdded(c, j)
	seq := func(yield func(*sched.Job) bool) { yield(j) }
	if _, ok := d.Place(c, sched.Offer{Node: 4, Slot: sched.MapSlot}, seq); ok {
		t.Fatal("Place launched off-rack at t=0, want a skip")
	}
	for _, tc := range []struct {
		at        float64
		wantLevel int
	}{{5, 0}, {10, 1}, {29.9, 1}, {30, 2}} {
		c.now = tc.at
		if got := d.Wait(c, j); !near(got, tc.at) {
			t.Errorf("Wait at t=%v = %v, want %v: the spell began with the skip at 0", tc.at, got, tc.at)
		}
		if got := d.Level(c, j); got != tc.wantLevel {
			t.Errorf("Level at t=%v = %d, want %d (T1 = 10, T2 = 20)", tc.at, got, tc.wantLevel)
		}
	}
	if d.Skips() != 1 {
		t.Errorf("Skips() = %d, want 1", d.Skips())
	}
	if t1, t2 := d.Waits(j); t1 != 10 || t2 != 20 {
		t.Errorf("Waits = (%v, %v), want the configured (10, 20)", t1, t2)
	}
}

func TestDelayParamsValidate(t *testing.T) {
	tests := []struct {
		name    string
		p       sched.DelayParams
		wantErr string
	}{
		{"defaults", sched.DelayParams{}, ""},
		{"zeros disable waits", sched.DelayParams{T1S: secs(0), T2S: secs(0)}, ""},
		{"negative t1", sched.DelayParams{T1S: secs(-1)}, "t1_s"},
		{"infinite t2", sched.DelayParams{T2S: secs(1 / zero())}, "t2_s"},
		{"biasing options without biasing", sched.DelayParams{CPUBoundT1S: secs(1)}, "cpu_bound_t1_s: has no effect"},
		{"min maps without biasing", sched.DelayParams{IOMinMaps: 2}, "io_min_maps"},
		{"NaN cpu-bound wait", sched.DelayParams{IORateBiasing: true, CPUBoundT2S: secs(0 / zero())}, "cpu_bound_t2_s: want a finite number >= 0"},
		{"zero threshold", sched.DelayParams{IORateBiasing: true, IOBoundMBPerS: secs(0)}, "io_bound_mb_per_s: want a finite number > 0"},
		{"negative threshold", sched.DelayParams{IORateBiasing: true, IOBoundMBPerS: secs(-1)}, "io_bound_mb_per_s: want a finite number > 0"},
		{"infinite threshold", sched.DelayParams{IORateBiasing: true, IOBoundMBPerS: secs(1 / zero())}, "io_bound_mb_per_s: want a finite number > 0"},
		{"NaN threshold", sched.DelayParams{IORateBiasing: true, IOBoundMBPerS: secs(0 / zero())}, "io_bound_mb_per_s: want a finite number > 0"},
		{"negative min maps", sched.DelayParams{IORateBiasing: true, IOMinMaps: -1}, "io_min_maps"},
		{"biasing with options", sched.DelayParams{IORateBiasing: true, CPUBoundT1S: secs(2), IOBoundMBPerS: secs(10), IOMinMaps: 3}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sched.NewDelayPlacer(tc.p)
			checkErr(t, "NewDelayPlacer", err, tc.wantErr, "it must name the setting")
		})
	}
}

func zero() float64 { return 0 }

// observers returns a policy's job and task observers, failing the test if
// it lacks either.
func observers(t *testing.T, p sched.Policy) (sched.JobObserver, sched.TaskObserver) {
	t.Helper()
	jo, ok1 := p.(sched.JobObserver)
	to, ok2 := p.(sched.TaskObserver)
	if !ok1 || !ok2 {
		t.Fatalf("policy %s must observe jobs and tasks (JobObserver %v, TaskObserver %v)", p.Name(), ok1, ok2)
	}
	return jo, to
}
