package sched_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// fairEnv drives a FairOrder the way the engine does: job arrivals and
// departures bump the epoch, task launches do not.
type fairEnv struct {
	t    *testing.T
	topo *cluster.Topology
	c    *fakeCluster
	f    *sched.FairOrder
	next int // index of the next job
}

func newFairEnv(t *testing.T, params sched.FairParams, mapSlots, reduceSlots, containers int) *fairEnv {
	t.Helper()
	f, err := sched.NewFairOrder(params)
	if err != nil {
		t.Fatalf("NewFairOrder(%+v): %v", params, err)
	}
	topo := smallTopo(t)
	c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{
		sched.MapSlot: mapSlots, sched.ReduceSlot: reduceSlots, sched.AnySlot: containers,
	}}
	return &fairEnv{t: t, topo: topo, c: c, f: f}
}

// add submits a job with the next index to pool.
func (e *fairEnv) add(pool string, maps, reduces int) *sched.Job {
	e.t.Helper()
	j := newJob(e.t, e.topo, e.next, pool, maps, reduces)
	e.next++
	e.c.jobs = append(e.c.jobs, j)
	e.c.epoch++
	e.f.JobAdded(e.c, j)
	return j
}

func (e *fairEnv) remove(j *sched.Job) {
	i := slices.Index(e.c.jobs, j)
	e.c.jobs = slices.Delete(e.c.jobs, i, i+1)
	e.c.epoch++
	e.f.JobRemoved(e.c, j)
}

// launch starts n of j's maps and tells the order.
func (e *fairEnv) launch(j *sched.Job, n int) {
	e.t.Helper()
	startMaps(e.t, j, n)
	for range n {
		e.f.TaskLaunched(e.c, j, sched.MapTask, 0)
	}
}

// finish ends n of j's running maps (killed ones go back to pending).
func (e *fairEnv) finish(j *sched.Job, n int, killed bool) {
	e.t.Helper()
	for range n {
		j.RunningMaps--
		if killed {
			for i := 0; i < j.NumMaps; i++ {
				if !j.Maps.IsPending(i) {
					j.Maps.Return(i)
					break
				}
			}
		} else {
			j.FinishedMaps++
		}
		e.c.epoch++
		e.f.TaskEnded(e.c, j, sched.MapTask, 0, killed)
	}
}

func (e *fairEnv) order(s sched.SlotKind) []int { return collect(e.f.Candidates(e.c, s)) }

func TestFairOrderBetweenPools(t *testing.T) {
	type job struct {
		pool     string
		launched int
		maps     int
	}
	tests := []struct {
		name  string
		pools []sched.PoolConfig
		slots int
		jobs  []job
		want  []int
		why   string
	}{
		{
			name:  "pool running fewer tasks goes first",
			slots: 10,
			jobs:  []job{{"a", 3, 10}, {"b", 1, 10}},
			want:  []int{1, 0},
			why:   "shares 5 and 5: pool b at 1/5 is farther below its share than pool a at 3/5",
		},
		{
			name:  "tie goes to the pool name, not the job index",
			slots: 10,
			jobs:  []job{{"b", 2, 10}, {"a", 2, 10}},
			want:  []int{1, 0},
			why:   "equal running/share; pool a sorts before pool b",
		},
		{
			name:  "pool below its min share first even with a higher running/share",
			pools: []sched.PoolConfig{{Name: "a", MinMaps: 4}},
			slots: 10,
			jobs:  []job{{"a", 3, 10}, {"b", 1, 10}},
			want:  []int{0, 1},
			why:   "pool a runs 3 < min 4 so it is needy; b's lower ratio 1/5 < 3/5 does not matter",
		},
		{
			name:  "pool exactly at its min share is not needy",
			pools: []sched.PoolConfig{{Name: "a", MinMaps: 4}},
			slots: 10,
			jobs:  []job{{"a", 4, 10}, {"b", 3, 10}},
			want:  []int{1, 0},
			why:   "pool a runs 4 = min 4; by running/share b (3/5) is below a (4/5)",
		},
		{
			name:  "two needy pools: lower running/min first",
			pools: []sched.PoolConfig{{Name: "a", MinMaps: 4}, {Name: "b", MinMaps: 6}},
			slots: 20,
			jobs:  []job{{"a", 2, 10}, {"b", 2, 10}},
			want:  []int{1, 0},
			why:   "both below min; b at 2/6 is needier than a at 2/4",
		},
		{
			name:  "needy ratio divides by the min share capped at demand",
			pools: []sched.PoolConfig{{Name: "a", MinMaps: 10}, {Name: "b", MinMaps: 4}},
			slots: 20,
			jobs:  []job{{"a", 2, 4}, {"b", 1, 10}},
			want:  []int{1, 0},
			why: "both below min; a wants only 4 maps so its guarantee is 4 and it is at 2/4, " +
				"b is at 1/4 (Hadoop's minShareRatio: running / min(minShare, demand))",
		},
		{
			name:  "weight raises a pool's share",
			pools: []sched.PoolConfig{{Name: "a", Weight: 3}},
			slots: 8,
			jobs:  []job{{"a", 3, 10}, {"b", 2, 10}},
			want:  []int{0, 1},
			why:   "weights 3:1 give shares 6 and 2; a at 3/6 is below b at 2/2 though it runs more",
		},
		{
			name:  "jobs of one pool stay together",
			slots: 12,
			jobs:  []job{{"a", 3, 10}, {"b", 1, 10}, {"a", 0, 10}},
			want:  []int{1, 2, 0},
			why:   "pool b (1/6) before pool a (3/6); within a, job 2 (0 running) before job 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newFairEnv(t, sched.FairParams{Pools: tc.pools}, tc.slots, 0, 0)
			var jobs []*sched.Job
			for _, j := range tc.jobs {
				jobs = append(jobs, e.add(j.pool, j.maps, 1))
			}
			for i, j := range tc.jobs {
				e.launch(jobs[i], j.launched)
			}
			if got := e.order(sched.MapSlot); !slices.Equal(got, tc.want) {
				t.Errorf("candidates = %v, want %v: %s", got, tc.want, tc.why)
			}
		})
	}
}

func TestFairOrderWithinPool(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		launched []int     // per job, each job has 5 maps
		weights  []float64 // per job Spec.Weight; nil = all 1
		slots    int
		want     []int
		why      string
	}{
		{
			name: "fifo pool yields in submit order", mode: "fifo",
			launched: []int{3, 0, 1}, slots: 10,
			want: []int{0, 1, 2},
			why:  "a FIFO pool ignores how much each job runs",
		},
		{
			name: "fifo mode is case-insensitive", mode: "FIFO",
			launched: []int{3, 0, 1}, slots: 10,
			want: []int{0, 1, 2},
			why:  "FairParams.Validate accepts FIFO, so it must mean fifo",
		},
		{
			name: "fifo pool skips a job with nothing runnable", mode: "fifo",
			launched: []int{3, 5, 1}, slots: 10,
			want: []int{0, 2},
			why:  "job 1 has launched all its maps",
		},
		{
			name: "fair pool yields fewest running relative to share first", mode: "fair",
			launched: []int{3, 0, 1}, slots: 10,
			want: []int{1, 2, 0},
			why:  "job shares 10/3 each: running/share 0 < 0.3 < 0.9",
		},
		{
			name: "default mode is fair", mode: "",
			launched: []int{3, 0, 1}, slots: 10,
			want: []int{1, 2, 0},
			why:  "a pool with no mode shares fairly",
		},
		{
			name: "fair pool skips a job with nothing runnable", mode: "fair",
			launched: []int{3, 5, 1}, slots: 10,
			want: []int{2, 0},
			why:  "job 1 has launched all its maps",
		},
		{
			name: "fair pool ties go to the older job", mode: "fair",
			launched: []int{1, 1, 1}, slots: 10,
			want: []int{0, 1, 2},
			why:  "equal running/share, ordered by job index",
		},
		{
			name: "job weight raises its share in a fair pool", mode: "fair",
			launched: []int{1, 1}, weights: []float64{1, 3}, slots: 8,
			want: []int{1, 0},
			why:  "weights 1:3 give job shares 3 and 5; job 1 at 1/5 is below job 0 at 1/3",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newFairEnv(t, sched.FairParams{Pools: []sched.PoolConfig{{Name: "q", Mode: tc.mode}}}, tc.slots, 0, 0)
			var jobs []*sched.Job
			for i := range tc.launched {
				j := e.add("q", 5, 1)
				if tc.weights != nil {
					j.Spec.Weight = tc.weights[i]
				}
				jobs = append(jobs, j)
			}
			for i, n := range tc.launched {
				e.launch(jobs[i], n)
			}
			if got := e.order(sched.MapSlot); !slices.Equal(got, tc.want) {
				t.Errorf("candidates = %v, want %v: %s", got, tc.want, tc.why)
			}
		})
	}
}

func TestFairOrderPoolShare(t *testing.T) {
	params := sched.FairParams{Pools: []sched.PoolConfig{
		{Name: "a", MinMaps: 6, MinReduces: 3, MinShare: 5},
		{Name: "b", Weight: 2},
	}}
	e := newFairEnv(t, params, 10, 4, 10)
	ja := e.add("a", 8, 3)
	jb := e.add("b", 20, 5)
	e.add("c", 1, 1) // reduces not enabled
	ja.ReducesEnabled, jb.ReducesEnabled = true, true
	e.c.epoch++
	tests := []struct {
		slot sched.SlotKind
		want map[string]float64
		why  string
	}{
		{sched.MapSlot, map[string]float64{"a": 6, "b": 3, "c": 1},
			"10 map slots, demands 8/20/1: a holds its min 6; c is full at 1; b (weight 2) gets the other 3"},
		{sched.ReduceSlot, map[string]float64{"a": 3, "b": 1, "c": 0},
			"4 reduce slots, demands 3/5/0: a gets its min (= its demand) 3, b the remaining 1"},
		{sched.AnySlot, map[string]float64{"a": 5, "b": 4, "c": 1},
			"10 containers, demands 11/25/1: a holds its min_share 5, c is full at 1, b gets 4"},
	}
	for _, tc := range tests {
		t.Run(tc.slot.String(), func(t *testing.T) {
			for name, want := range tc.want {
				if got := e.f.PoolShare(e.c, name, tc.slot); !near(got, want) {
					t.Errorf("PoolShare(%q, %v) = %v, want %v: %s", name, tc.slot, got, want, tc.why)
				}
			}
			// The same numbers straight from FairShares.
			reqs := []sched.ShareRequest{
				{Demand: float64(ja.Demand(tc.slot)), MinShare: map[sched.SlotKind]float64{sched.MapSlot: 6, sched.ReduceSlot: 3, sched.AnySlot: 5}[tc.slot]},
				{Demand: float64(jb.Demand(tc.slot)), Weight: 2},
				{Demand: float64(e.c.jobs[2].Demand(tc.slot))},
			}
			direct := sched.FairShares(float64(e.c.TotalSlots(tc.slot)), reqs)
			for i, name := range []string{"a", "b", "c"} {
				if got := e.f.PoolShare(e.c, name, tc.slot); !near(got, direct[i]) {
					t.Errorf("PoolShare(%q, %v) = %v, want FairShares' %v for the same pools", name, tc.slot, got, direct[i])
				}
			}
		})
	}
	if got := e.f.PoolShare(e.c, "nobody", sched.MapSlot); got != 0 {
		t.Errorf("PoolShare of an unknown pool = %v, want 0", got)
	}
}

func TestFairOrderSharesFollowEpoch(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{}, 0, 0, 10)
	e.add("a", 10, 1)
	jb := e.add("b", 2, 6) // reduces not enabled: demand 2
	if got := e.f.PoolShare(e.c, "b", sched.AnySlot); !near(got, 2) {
		t.Fatalf("PoolShare(b) = %v, want 2: its demand is 2 maps", got)
	}
	jb.ReducesEnabled = true // demand 8, but the engine has not bumped the epoch
	if got := e.f.PoolShare(e.c, "b", sched.AnySlot); !near(got, 2) {
		t.Errorf("PoolShare(b) before the epoch moves = %v, want the cached 2: shares are recomputed only when Epoch changes", got)
	}
	e.c.epoch++
	e.f.ReducesEnabled(e.c, jb)
	if got := e.f.PoolShare(e.c, "b", sched.AnySlot); !near(got, 5) {
		t.Errorf("PoolShare(b) after the epoch moves = %v, want 5: demands 10 and 8 split 10 containers equally", got)
	}
}

func TestFairOrderJobRemoved(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{}, 10, 0, 0)
	a0 := e.add("a", 10, 1)
	e.add("b", 10, 1)
	a2 := e.add("a", 10, 1)
	if got := e.f.PoolShare(e.c, "b", sched.MapSlot); !near(got, 5) {
		t.Fatalf("PoolShare(b) = %v, want 5 with two busy pools on 10 slots", got)
	}

	e.remove(a0)
	if got := e.f.PoolShare(e.c, "a", sched.MapSlot); !near(got, 5) {
		t.Errorf("PoolShare(a) after removing one of its two jobs = %v, want 5: the pool still has job 2", got)
	}
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{2, 1}) {
		t.Errorf("candidates after removing job 0 = %v, want [2 1]: removed jobs are not yielded", got)
	}

	e.remove(a2)
	if got := e.f.PoolShare(e.c, "a", sched.MapSlot); got != 0 {
		t.Errorf("PoolShare(a) with no jobs = %v, want 0: an empty pool is inactive", got)
	}
	if got := e.f.PoolShare(e.c, "b", sched.MapSlot); !near(got, 10) {
		t.Errorf("PoolShare(b) as the only active pool = %v, want 10: an empty pool must not hold a share", got)
	}
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{1}) {
		t.Errorf("candidates = %v, want [1]", got)
	}

	e.add("a", 10, 1) // job 3 reactivates pool a
	if got := e.f.PoolShare(e.c, "a", sched.MapSlot); !near(got, 5) {
		t.Errorf("PoolShare(a) after a new job arrives = %v, want 5: the pool is active again", got)
	}
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("candidates = %v, want [3 1]: pools tie at 0 running, a before b", got)
	}

	// Removing a job twice, or one never added, changes nothing.
	e.f.JobRemoved(e.c, a0)
	e.f.JobRemoved(e.c, &sched.Job{Pool: "never", Index: 99})
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("candidates after removing unknown jobs = %v, want [3 1]", got)
	}
}

func TestFairOrderTaskBookkeeping(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{}, 10, 0, 0)
	ja := e.add("a", 10, 1)
	jb := e.add("b", 10, 1)
	steps := []struct {
		name string
		do   func()
		want []int
		why  string
	}{
		{"nothing running", func() {}, []int{0, 1}, "tie at 0 running: pool a first by name"},
		{"a launches one", func() { e.launch(ja, 1) }, []int{1, 0}, "a runs 1, b runs 0"},
		{"b launches two", func() { e.launch(jb, 2) }, []int{0, 1}, "a runs 1, b runs 2"},
		{"b's two end", func() { e.finish(jb, 2, false) }, []int{1, 0}, "b runs 0 again"},
		{"a's one is killed", func() { e.finish(ja, 1, true) }, []int{0, 1}, "both run 0: tie, a first"},
		{"reduce launch does not count for map slots", func() {
			e.f.TaskLaunched(e.c, ja, sched.ReduceTask, 0)
			ja.RunningReduces++
		}, []int{0, 1}, "a's reduce is not a map-slot task"},
	}
	for _, s := range steps {
		s.do()
		if got := e.order(sched.MapSlot); !slices.Equal(got, s.want) {
			t.Errorf("after %q: candidates = %v, want %v: %s", s.name, got, s.want, s.why)
		}
	}
	// In the container model the reduce counts.
	e.c.total[sched.AnySlot] = 10
	if got := e.order(sched.AnySlot); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("container candidates with a running one reduce = %v, want [1 0]: a container runs either kind", got)
	}
}

func TestFairOrderStopsWhenConsumerStops(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{Pools: []sched.PoolConfig{{Name: "f", Mode: "fifo"}}}, 10, 0, 0)
	e.add("a", 2, 1)
	e.add("a", 2, 1)
	e.add("f", 2, 1)
	e.add("f", 2, 1)
	for stop := 1; stop <= 4; stop++ {
		n := 0
		for range e.f.Candidates(e.c, sched.MapSlot) {
			n++
			if n == stop {
				break
			}
		}
		if n != stop {
			t.Errorf("consumer breaking after %d saw %d jobs", stop, n)
		}
	}
}

func TestFairParamsValidate(t *testing.T) {
	tests := []struct {
		name    string
		pools   []sched.PoolConfig
		wantErr string // substring; "" means valid
	}{
		{"no pools", nil, ""},
		{"full valid config", []sched.PoolConfig{
			{Name: "prod", MinMaps: 10, MinReduces: 5, MinShare: 8, Weight: 2, Mode: "fair"},
			{Name: "adhoc", Mode: "FIFO"},
			{Name: "default"},
		}, ""},
		{"empty name", []sched.PoolConfig{{Name: "a"}, {}}, "pools[1].name"},
		{"duplicate names", []sched.PoolConfig{{Name: "a"}, {Name: "b"}, {Name: "a"}}, `pools[2].name: pool "a" is listed twice`},
		{"negative min maps", []sched.PoolConfig{{Name: "a", MinMaps: -1}}, "pools[0] (a): minimum shares"},
		{"negative min reduces", []sched.PoolConfig{{Name: "a", MinReduces: -1}}, "pools[0] (a): minimum shares"},
		{"negative min share", []sched.PoolConfig{{Name: "a", MinShare: -1}}, "pools[0] (a): minimum shares"},
		{"negative weight", []sched.PoolConfig{{Name: "a", Weight: -0.5}}, "pools[0].weight (a)"},
		{"NaN weight (YAML .nan)", []sched.PoolConfig{{Name: "a", Weight: math.NaN()}}, "pools[0].weight (a): want a finite number > 0"},
		{"infinite weight (YAML .inf)", []sched.PoolConfig{{Name: "a", Weight: math.Inf(1)}}, "pools[0].weight (a): want a finite number > 0"},
		{"bad mode", []sched.PoolConfig{{Name: "a"}, {Name: "b", Mode: "lifo"}}, `pools[1].mode (b): want "fair" or "fifo", got "lifo"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := sched.FairParams{Pools: tc.pools}
			if !checkErr(t, "Validate()", p.Validate(), tc.wantErr, "it must point at the pool entry and field") {
				return
			}
			if _, err := sched.NewFairOrder(p); err == nil {
				t.Errorf("NewFairOrder accepted params Validate rejects")
			}
			if _, err := sched.NewFair(p); err == nil {
				t.Errorf("NewFair accepted params Validate rejects")
			}
		})
	}
}

func TestFairPolicyForwardsEvents(t *testing.T) {
	p, err := sched.NewFair(sched.FairParams{})
	if err != nil {
		t.Fatalf("NewFair: %v", err)
	}
	if p.Name() != "fair" {
		t.Errorf("Name() = %q, want \"fair\"", p.Name())
	}
	jo, ok1 := p.(sched.JobObserver)
	to, ok2 := p.(sched.TaskObserver)
	if !ok1 || !ok2 {
		t.Fatalf("the fair policy must observe jobs and tasks (JobObserver %v, TaskObserver %v)", ok1, ok2)
	}
	topo := smallTopo(t)
	c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.MapSlot: 10}}
	ja := newJob(t, topo, 0, "a", 10, 1)
	jb := newJob(t, topo, 1, "b", 10, 1)
	c.jobs = []*sched.Job{ja, jb}
	jo.JobAdded(c, ja)
	jo.JobAdded(c, jb)
	c.epoch++

	d, ok := p.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot})
	if !ok || d.Job != ja {
		t.Fatalf("first Assign = (job %v, %v), want job 0: pools tie, a first by name", jobIndex(d.Job), ok)
	}
	ja.Maps.Take(d.Map)
	ja.RunningMaps++
	to.TaskLaunched(c, ja, sched.MapTask, 0)
	d, ok = p.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot})
	if !ok || d.Job != jb {
		t.Errorf("Assign after job 0 launched a map = (job %v, %v), want job 1: TaskLaunched must reach the fair order", jobIndex(d.Job), ok)
	}
	jo.JobRemoved(c, jb)
	c.jobs = c.jobs[:1]
	c.epoch++
	d, ok = p.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot})
	if !ok || d.Job != ja {
		t.Errorf("Assign after job 1 left = (job %v, %v), want job 0: JobRemoved must reach the fair order", jobIndex(d.Job), ok)
	}
}

func TestFairOrderJobEventsTakeEffectBeforeEpochMoves(t *testing.T) {
	// The engine may tell the policy about a job before or after it bumps
	// the epoch; per-job shares cached for the old job list must not be
	// reused for the new one.
	e := newFairEnv(t, sched.FairParams{}, 10, 0, 0)
	e.add("a", 4, 1)
	e.add("a", 4, 1)
	e.launch(e.c.jobs[0], 1)
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("candidates = %v, want [1 0]", got)
	}
	j := newJob(t, e.topo, 2, "a", 4, 1)
	e.c.jobs = append(e.c.jobs, j)
	e.f.JobAdded(e.c, j) // epoch not bumped
	if got := e.order(sched.MapSlot); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("candidates after JobAdded with an unchanged epoch = %v, want [1 2 0]: the new job runs nothing and must be ordered with fresh shares", got)
	}

	// Likewise a departure: pool b's only job leaves, pool a gets everything.
	jb := e.add("b", 10, 1)
	if got := e.f.PoolShare(e.c, "a", sched.MapSlot); !near(got, 5) {
		t.Fatalf("PoolShare(a) = %v, want 5 with pools a and b busy", got)
	}
	e.c.jobs = slices.DeleteFunc(e.c.jobs, func(j *sched.Job) bool { return j == jb })
	e.f.JobRemoved(e.c, jb) // epoch not bumped
	if got := e.f.PoolShare(e.c, "a", sched.MapSlot); !near(got, 10) {
		t.Errorf("PoolShare(a) after JobRemoved with an unchanged epoch = %v, want 10: b's cached share must not outlive b", got)
	}
}

func TestFairOrderNestedCandidatesDoNotInterfere(t *testing.T) {
	// A placer may look at reduce candidates while walking map candidates
	// (ShuffleWatcher-style policies weigh both). Each sequence must still
	// yield its own order: every job once.
	e := newFairEnv(t, sched.FairParams{}, 10, 10, 0)
	ja := e.add("a", 10, 5)
	jb := e.add("b", 10, 5)
	ja.ReducesEnabled, jb.ReducesEnabled = true, true
	e.c.epoch++
	e.launch(ja, 2) // map slots: b (0 running) before a (2)
	e.f.TaskLaunched(e.c, jb, sched.ReduceTask, 0)
	jb.RunningReduces++ // reduce slots: a (0 running) before b (1)

	want := e.order(sched.MapSlot)
	if !slices.Equal(want, []int{1, 0}) {
		t.Fatalf("map candidates = %v, want [1 0]", want)
	}
	var got []int
	for j := range e.f.Candidates(e.c, sched.MapSlot) {
		got = append(got, j.Index)
		for range e.f.Candidates(e.c, sched.ReduceSlot) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("map candidates with a reduce-candidate lookup nested inside = %v, want %v: "+
			"the inner Candidates call must not reorder the outer sequence (FairOrder reuses one scratch slice, f.sorted)", got, want)
	}
}
