package sched_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// TestJobLimitsAdmit pins which jobs the fair order offers slots to under
// running-job limits, step by step, as YARN's MaxRunningAppsEnforcer lets
// them in: a job past a limit over its pool waits, and the jobs waiting
// under a limit a departure frees come in by arrival, each as soon as
// every limit over it has room.
func TestJobLimitsAdmit(t *testing.T) {
	type step struct {
		add    string // a pool: submit a job there; "" with remove
		user   string // the job's user; "" for user0
		remove int    // with add "": the job (by index) that ends
		offer  []int  // the jobs the order then offers a map slot to
	}
	for _, tc := range []struct {
		name   string
		limits sched.JobLimits
		steps  []step
		why    string
	}{
		{"a pool's limit", sched.JobLimits{Pools: map[string]int{"p": 1}}, []step{
			{add: "p", offer: []int{0}}, {add: "p", offer: []int{0}}, {add: "q", offer: []int{0, 2}}, {remove: 0, offer: []int{1, 2}},
		}, "the second job of p waits for the first; q has no limit"},
		{"the default and a pool's own", sched.JobLimits{Pools: map[string]int{"p": 2}, PoolDefault: 1}, []step{
			{add: "p"}, {add: "p"}, {add: "p"}, {add: "q"}, {add: "q", offer: []int{0, 1, 3}},
		}, "p takes 2, its own limit; q takes 1, the default"},
		{"a parent queue's limit", sched.JobLimits{Pools: map[string]int{"prod": 2}}, []step{
			{add: "prod.etl"}, {add: "prod.adhoc"}, {add: "prod.etl"}, {add: "dev", offer: []int{0, 1, 3}}, {remove: 1, offer: []int{0, 2, 3}},
		}, "prod's limit counts the jobs of every queue below it"},
		{"root's limit", sched.JobLimits{Pools: map[string]int{"root": 2}}, []step{
			{add: "a"}, {add: "b"}, {add: "c", offer: []int{0, 1}}, {remove: 0, offer: []int{1, 2}},
		}, "root counts every job"},
		{"arrival order under a shared limit", sched.JobLimits{Pools: map[string]int{"prod": 1}}, []step{
			{add: "prod.b"}, {add: "prod.a"}, {add: "prod.b", offer: []int{0}}, {remove: 0, offer: []int{1}}, {remove: 1, offer: []int{2}},
		}, "the earliest waiting job goes in first, whatever its pool's name"},
		{"a job that fits passes those waiting", sched.JobLimits{Pools: map[string]int{"p": 1}}, []step{
			{add: "p"}, {add: "p"}, {add: "q", offer: []int{0, 2}},
		}, "no limit over q is full: it need not wait behind p's job"},
		{"a waiting job that leaves", sched.JobLimits{Pools: map[string]int{"p": 1}}, []step{
			{add: "p"}, {add: "p"}, {remove: 1, offer: []int{0}}, {remove: 0, offer: []int{}}, {add: "p", offer: []int{2}},
		}, "a job that ends while waiting frees nothing, and is not let in"},
		{"a user's limit across pools", sched.JobLimits{Users: map[string]int{"alice": 1}}, []step{
			{add: "p", user: "alice"}, {add: "p", user: "alice"}, {add: "q", user: "alice"}, {add: "p", user: "bob", offer: []int{0, 3}},
			{remove: 0, offer: []int{1, 3}}, {remove: 1, offer: []int{2, 3}},
		}, "alice runs one job at a time, in whatever pool; bob has no limit"},
		{"user and pool limits at once", sched.JobLimits{Pools: map[string]int{"p": 2}, UserDefault: 1}, []step{
			{add: "p", user: "alice"}, {add: "p", user: "bob"}, {add: "p", user: "carol"}, {add: "p", user: "alice", offer: []int{0, 1}},
			{remove: 1, offer: []int{0, 2}},
		}, "bob's end frees a place in p: carol (earlier) takes it; alice's second job still waits on her own limit"},
		{"a pool named root", sched.JobLimits{PoolDefault: 2}, []step{
			{add: "root"}, {add: "root"}, {add: "root", offer: []int{0, 1}},
		}, "a user's pool named root (Hadoop 1 pools by user) takes its default once, not also as the queue tree's root"},
		{"the default for users", sched.JobLimits{UserDefault: 1}, []step{
			{add: "p"}, {add: "q"}, {add: "q", user: "dave", offer: []int{0, 2}},
		}, "jobs without a traced user count as their drawn user, user0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFairEnv(t, sched.FairParams{Limits: tc.limits}, 100, 100, 0)
			var jobs []*sched.Job
			for i, s := range tc.steps {
				if s.add != "" {
					jobs = append(jobs, e.addAs(s.add, s.user))
				} else {
					e.remove(jobs[s.remove])
				}
				if s.offer == nil {
					continue
				}
				got := collect(e.f.Candidates(e.c, sched.MapSlot))
				slices.Sort(got)
				if !slices.Equal(got, s.offer) {
					t.Errorf("after step %d: offers to jobs %v; want %v: %s", i, got, s.offer, tc.why)
				}
			}
		})
	}
}

// addAs submits a job of 4 maps and a reduce to pool for user (its
// drawn user, user0, when "").
func (e *fairEnv) addAs(pool, user string) *sched.Job {
	e.t.Helper()
	j := newJob(e.t, e.topo, e.next, pool, 4, 1)
	j.Spec.UserName = user
	e.next++
	e.c.jobs = append(e.c.jobs, j)
	e.c.epoch++
	e.f.JobAdded(e.c, j)
	return j
}

// TestJobLimitsNameTheHold: while jobs wait past a limit, the fair order
// names the limit as the rule that holds free slots.
func TestJobLimitsNameTheHold(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{Limits: sched.JobLimits{PoolDefault: 1}}, 100, 100, 0)
	a := e.add("p", 4, 1)
	if r := e.f.HoldRule(sched.Offer{}, sched.MapTask); r != "" {
		t.Errorf("rule %q with nothing waiting; want none", r)
	}
	e.add("p", 4, 1)
	if r := e.f.HoldRule(sched.Offer{}, sched.MapTask); r != sched.HoldJobLimit {
		t.Errorf("rule %q with a job waiting; want %q", r, sched.HoldJobLimit)
	}
	e.remove(a)
	if r := e.f.HoldRule(sched.Offer{}, sched.MapTask); r != "" {
		t.Errorf("rule %q once the waiting job is in; want none", r)
	}
}

func TestJobLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		limits sched.JobLimits
		want   string
	}{
		{sched.JobLimits{Pools: map[string]int{"b": 1, "a": 0}}, "job_limits.pools.a: want at least 1"},
		{sched.JobLimits{PoolDefault: -1}, "job_limits.pool_default: want at least 1"},
		{sched.JobLimits{Users: map[string]int{"alice": 0}}, "job_limits.users.alice: want at least 1"},
		{sched.JobLimits{UserDefault: -2}, "job_limits.user_default: want at least 1"},
	} {
		_, err := sched.NewFairOrder(sched.FairParams{Limits: tc.limits})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("limits %+v: error %v; want one saying %q (a limit of 0 would keep jobs out for ever)", tc.limits, err, tc.want)
		}
	}
}

// TestPoolCaps: a pool's cap on running tasks (Hadoop 1's maxMaps, YARN's
// maxResources) bounds its demand in the shares and keeps it from offers
// while it runs that many, and only for the slot kind capped.
func TestPoolCaps(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{Pools: []sched.PoolConfig{{Name: "p", MaxMaps: 2}}}, 10, 10, 0)
	a := e.add("p", 10, 1)
	b := e.add("q", 10, 1)
	if got := e.f.PoolShare(e.c, "p", sched.MapSlot); !near(got, 2) {
		t.Errorf("p's map share %v; want 2: its demand of 10 counts up to its cap", got)
	}
	if got := e.f.PoolShare(e.c, "q", sched.MapSlot); !near(got, 8) {
		t.Errorf("q's map share %v; want 8, what p's cap leaves", got)
	}
	e.launch(a, 2)
	if got := collect(e.f.Candidates(e.c, sched.MapSlot)); !slices.Equal(got, []int{b.Index}) {
		t.Errorf("map offers go to jobs %v at p's cap; want only q's job %d", got, b.Index)
	}
	a.ReducesEnabled = true
	e.c.epoch++
	e.f.ReducesEnabled(e.c, a)
	if got := collect(e.f.Candidates(e.c, sched.ReduceSlot)); !slices.Contains(got, a.Index) {
		t.Errorf("reduce offers go to jobs %v; want p's job %d among them: the cap is on maps", got, a.Index)
	}
	e.finish(a, 1, false)
	if got := collect(e.f.Candidates(e.c, sched.MapSlot)); !slices.Contains(got, a.Index) {
		t.Errorf("map offers go to jobs %v once a map of p ended; want p's job %d back", got, a.Index)
	}
}

// TestQueueCaps: a queue's cap (YARN's maxResources on a parent queue)
// bounds the running tasks of every pool below it together: at the cap
// none of them is offered a slot of that kind, and a task ending below it
// opens them all again; pools elsewhere are not held.
func TestQueueCaps(t *testing.T) {
	e := newFairEnv(t, sched.FairParams{QueueCaps: []sched.QueueCap{{Path: "prod", MaxMaps: 2}}}, 10, 10, 0)
	a := e.add("prod.a", 10, 1)
	b := e.add("prod.b", 10, 1)
	d := e.add("dev", 10, 1)
	if got := collect(e.f.Candidates(e.c, sched.MapSlot)); len(got) != 3 {
		t.Fatalf("map offers go to jobs %v; want all 3 below the cap", got)
	}
	e.launch(a, 1)
	e.launch(b, 1)
	if got := collect(e.f.Candidates(e.c, sched.MapSlot)); !slices.Equal(got, []int{d.Index}) {
		t.Errorf("map offers go to jobs %v with prod at its cap of 2; want only dev's job %d", got, d.Index)
	}
	e.finish(a, 1, false)
	got := collect(e.f.Candidates(e.c, sched.MapSlot))
	slices.Sort(got)
	if !slices.Equal(got, []int{a.Index, b.Index, d.Index}) {
		t.Errorf("map offers go to jobs %v once a task of prod ended; want all 3 again", got)
	}
}

// TestSizeBasedWeight: with the Fair Scheduler's sizebasedweight a pool's
// share goes to its jobs by the log of their demand. Jobs of 5 and 15
// maps in one pool on 8 map slots: equal weights give 4 and 4; Hadoop 1's
// log2(1 + tasks) gives weights log2(6) and 4; YARN's log2(1 + MB) gives
// log2(5121) and log2(15361), nearly equal.
func TestSizeBasedWeight(t *testing.T) {
	split := func(a, b float64) (float64, float64) { return 8 * a / (a + b), 8 * b / (a + b) }
	for _, tc := range []struct {
		mode string
		a, b float64 // the weights
	}{
		{"", 1, 1},
		{"tasks", math.Log2(6), math.Log2(16)},
		{"memory", math.Log2(1 + 5*1024), math.Log2(1 + 15*1024)},
	} {
		e := newFairEnv(t, sched.FairParams{SizeBasedWeight: tc.mode}, 8, 8, 0)
		small := e.add("p", 5, 1)
		large := e.add("p", 15, 1)
		ws, wl := split(tc.a, tc.b)
		if s, l := e.f.JobShare(e.c, small, sched.MapSlot), e.f.JobShare(e.c, large, sched.MapSlot); !near(s, ws) || !near(l, wl) {
			t.Errorf("size_based_weight %q: shares %v and %v; want %v and %v, 8 slots by weights %v and %v", tc.mode, s, l, ws, wl, tc.a, tc.b)
		}
	}
}

// TestPoolDefaults: a pool the pools list does not name takes the
// defaults (an allocation file's for the pools placement makes): here
// FIFO, whose jobs hold no shares of their own.
func TestPoolDefaults(t *testing.T) {
	for _, tc := range []struct {
		defaults sched.PoolConfig
		fifo     bool
	}{{sched.PoolConfig{}, false}, {sched.PoolConfig{Mode: "fifo"}, true}} {
		e := newFairEnv(t, sched.FairParams{PoolDefaults: tc.defaults}, 8, 8, 0)
		j := e.add("made-by-placement", 4, 1)
		if share := e.f.JobShare(e.c, j, sched.MapSlot); (share == 0) != tc.fifo {
			t.Errorf("defaults %+v: the job's share %v; want none only in a FIFO pool", tc.defaults, share)
		}
	}
}
