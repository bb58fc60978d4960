package sched

import (
	"fmt"
	"slices"
	"strings"
)

// JobLimits are the Fair Scheduler's running-job limits: the most jobs of
// a pool, of the pools below a queue, or of a user, that run at once
// (Hadoop 1's <maxRunningJobs>, <poolMaxJobsDefault> and
// <userMaxJobsDefault>; YARN's <maxRunningApps>, <queueMaxAppsDefault> and
// <userMaxAppsDefault>). A job that arrives past a limit waits, holding no
// share and offered no slot, until a job under the same limit ends;
// waiting jobs are let in in the order they arrived, each as soon as every
// limit over it has room, and once in a job stays in: YARN's
// MaxRunningAppsEnforcer. Hadoop 1 recomputes which jobs may run at every
// update, in submit order, which differs only where two limits bind at
// once: an earlier job freed of one can then take the other's place from
// a later job already running. Zero values mean no limit.
type JobLimits struct {
	// Pools caps the running jobs of a pool by its name, or of every pool
	// below a queue by the queue's path: "prod" counts the jobs of
	// "prod.etl" and "prod.adhoc", "root" every job (a YARN queue tree).
	Pools map[string]int `yaml:"pools"`
	// PoolDefault caps each pool that Pools does not name.
	PoolDefault int `yaml:"pool_default" zero:"no limit"`
	// Users caps the running jobs of a user, by the name a trace records
	// (user0, user1, ... for SWIM traces and the generator).
	Users map[string]int `yaml:"users"`
	// UserDefault caps each user that Users does not name.
	UserDefault int `yaml:"user_default" zero:"no limit"`
}

// Empty reports whether l limits nothing.
func (l JobLimits) Empty() bool {
	return len(l.Pools) == 0 && l.PoolDefault == 0 && len(l.Users) == 0 && l.UserDefault == 0
}

// Validate reports the first limit below 1: a limit of 0 would keep its
// jobs out for ever.
func (l JobLimits) Validate() error {
	for _, m := range []struct {
		key    string
		limits map[string]int
	}{{"pools", l.Pools}, {"users", l.Users}} {
		names := make([]string, 0, len(m.limits))
		for name := range m.limits {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if n := m.limits[name]; n < 1 {
				return fmt.Errorf("job_limits.%s.%s: want at least 1 (leave it out for no limit), got %d", m.key, name, n)
			}
		}
	}
	for _, d := range []struct {
		key string
		n   int
	}{{"pool_default", l.PoolDefault}, {"user_default", l.UserDefault}} {
		if d.n < 0 {
			return fmt.Errorf("job_limits.%s: want at least 1 (leave it out for no limit), got %d", d.key, d.n)
		}
	}
	return nil
}

// jobUser is the user a job's running-job limits count it under: the
// name its trace records, else the user its source drew it for (user0,
// user1, ...).
func jobUser(j *Job) string {
	if j.Spec == nil {
		return ""
	}
	return j.Spec.Owner()
}

// admission keeps jobs out of the fair order past the running-job limits.
// The jobs of one pool and user share every limit over them (a class), so
// a class's waiting jobs are let in from the front; a departure reads only
// the classes under the limits it frees, whatever the backlog elsewhere.
type admission struct {
	limits JobLimits
	// running counts the admitted jobs under each limit, by its scope's
	// key (scopes); looked up, never iterated.
	running map[string]int
	// waiting are the jobs kept out, by class, in arrival order; classes
	// lists the classes with jobs waiting, sorted; held gives each
	// waiting job its arrival number.
	waiting map[class][]*Job
	classes []class
	held    map[*Job]int64
	next    int64
	keys    []scope // scratch: a class's limits
}

// class is the pool and user of a job.
type class struct{ pool, user string }

func compareClasses(a, b class) int {
	if c := strings.Compare(a.pool, b.pool); c != 0 {
		return c
	}
	return strings.Compare(a.user, b.user)
}

// scope is one limit over a class, with its key in running.
type scope struct {
	key   string
	limit int
}

func newAdmission(l JobLimits) *admission {
	if l.Empty() {
		return nil
	}
	return &admission{limits: l, running: map[string]int{}, waiting: map[class][]*Job{}, held: map[*Job]int64{}}
}

func classOf(j *Job) class { return class{j.Pool, jobUser(j)} }

// scopes lists the limits over class k: the pool's own, each queue above
// it ("prod.etl": "prod.etl", "prod", "root"), and the user's; only those
// with a limit. User keys start with a byte no pool name has.
func (a *admission) scopes(k class) []scope {
	s := a.keys[:0]
	add := func(key string, n int) {
		if n > 0 {
			s = append(s, scope{key, n})
		}
	}
	poolLimit := func(name string) int {
		if n, ok := a.limits.Pools[name]; ok {
			return n
		}
		if name == k.pool {
			return a.limits.PoolDefault
		}
		return 0
	}
	add(k.pool, poolLimit(k.pool))
	for i := strings.LastIndexByte(k.pool, '.'); i > 0; i = strings.LastIndexByte(k.pool[:i], '.') {
		add(k.pool[:i], poolLimit(k.pool[:i]))
	}
	if k.pool != "root" { // a pool named root (a user's, in Hadoop 1) counts once
		add("root", poolLimit("root"))
	}
	if n, ok := a.limits.Users[k.user]; ok {
		add("\x00"+k.user, n)
	} else {
		add("\x00"+k.user, a.limits.UserDefault)
	}
	a.keys = s
	return s
}

// fits reports whether every limit over class k has room for one more.
func (a *admission) fits(k class) bool {
	for _, s := range a.scopes(k) {
		if a.running[s.key] >= s.limit {
			return false
		}
	}
	return true
}

// count adds d to every limit over class k.
func (a *admission) count(k class, d int) {
	for _, s := range a.scopes(k) {
		a.running[s.key] += d
	}
}

// arrive admits j, or keeps it waiting; it reports whether j is in. A job
// that fits goes in even while others wait, as YARN's canAppBeRunnable
// asks only of the job's own limits: those waiting are under a limit with
// no room, which j is not.
func (a *admission) arrive(j *Job) bool {
	a.next++
	k := classOf(j)
	if a.fits(k) {
		a.count(k, 1)
		return true
	}
	if len(a.waiting[k]) == 0 {
		i, _ := slices.BinarySearchFunc(a.classes, k, compareClasses)
		a.classes = slices.Insert(a.classes, i, k)
	}
	a.waiting[k] = append(a.waiting[k], j)
	a.held[j] = a.next
	return false
}

// leave drops j, which ended, and returns the waiting jobs that now fit,
// counted in, in arrival order: of the classes under the limits j frees,
// the earliest front job that fits goes in, until none does. A waiting
// job that leaves (one that failed before it ran) is only dropped.
func (a *admission) leave(j *Job) []*Job {
	k := classOf(j)
	if _, ok := a.held[j]; ok {
		delete(a.held, j)
		a.drop(k, slices.Index(a.waiting[k], j))
		return nil
	}
	a.count(k, -1)
	if len(a.classes) == 0 {
		return nil
	}
	// The classes the freed limits are over: j's pool's and those below
	// a queue above it that has a limit, and j's user's.
	freed := slices.Clone(a.scopes(k))
	var cand []class
	for _, c := range a.classes {
		for _, s := range freed {
			user, isUser := strings.CutPrefix(s.key, "\x00")
			if isUser && c.user == user || !isUser && (c.pool == s.key || s.key == "root" || strings.HasPrefix(c.pool, s.key+".")) {
				cand = append(cand, c)
				break
			}
		}
	}
	var in []*Job
	for len(cand) > 0 {
		best := 0
		for i, c := range cand {
			if a.held[a.waiting[c][0]] < a.held[a.waiting[cand[best]][0]] {
				best = i
			}
		}
		c := cand[best]
		if !a.fits(c) {
			cand = slices.Delete(cand, best, best+1) // nothing frees room during the loop
			continue
		}
		w := a.waiting[c][0]
		a.count(c, 1)
		delete(a.held, w)
		in = append(in, w)
		if a.drop(c, 0) {
			cand = slices.Delete(cand, best, best+1)
		}
	}
	return in
}

// drop removes the i'th waiting job of class k, and reports whether the
// class has none left.
func (a *admission) drop(k class, i int) bool {
	w := slices.Delete(a.waiting[k], i, i+1)
	if len(w) > 0 {
		a.waiting[k] = w
		return false
	}
	delete(a.waiting, k)
	if at, ok := slices.BinarySearchFunc(a.classes, k, compareClasses); ok {
		a.classes = slices.Delete(a.classes, at, at+1)
	}
	return true
}

// isHeld reports whether j waits past a limit.
func (a *admission) isHeld(j *Job) bool {
	_, ok := a.held[j]
	return ok
}
