package sched

import (
	"fmt"
	"slices"
	"strings"
)

// JobLimits are the Fair Scheduler's running-job limits: the most jobs of
// a pool, or of the pools below a queue, that run at once (Hadoop 1's
// <maxRunningJobs> and <poolMaxJobsDefault>; YARN's <maxRunningApps> and
// <queueMaxAppsDefault>). A job that arrives past a limit waits, holding
// no share and offered no slot, until a job under the same limit ends;
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
}

// Empty reports whether l limits nothing.
func (l JobLimits) Empty() bool { return len(l.Pools) == 0 && l.PoolDefault == 0 }

// Validate reports the first limit below 1: a limit of 0 would keep its
// jobs out for ever.
func (l JobLimits) Validate() error {
	names := make([]string, 0, len(l.Pools))
	for name := range l.Pools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if n := l.Pools[name]; n < 1 {
			return fmt.Errorf("job_limits.pools.%s: want at least 1 (leave the pool out for no limit), got %d", name, n)
		}
	}
	if l.PoolDefault < 0 {
		return fmt.Errorf("job_limits.pool_default: want at least 1 (leave it out for no limit), got %d", l.PoolDefault)
	}
	return nil
}

// admission keeps jobs out of the fair order past the running-job limits.
// A pool's jobs share every limit over them, so a pool's waiting jobs are
// let in from the front; a departure reads only the pools under the
// limits it frees, whatever the backlog elsewhere.
type admission struct {
	limits JobLimits
	// running counts the admitted jobs under each limit, by pool name or
	// queue path; looked up, never iterated.
	running map[string]int
	// waiting are the jobs kept out, by pool, in arrival order; pools
	// names the pools with jobs waiting, sorted; held gives each waiting
	// job its arrival number, next's value when it came.
	waiting map[string][]*Job
	pools   []string
	held    map[*Job]int64
	next    int64
	scopes  []string // scratch: a job's limit names
}

func newAdmission(l JobLimits) *admission {
	if l.Empty() {
		return nil
	}
	return &admission{limits: l, running: map[string]int{}, waiting: map[string][]*Job{}, held: map[*Job]int64{}}
}

// scopesOf lists the limits over pool: the pool's own, then each queue
// above it ("prod.etl": "prod.etl", "prod", "root").
func (a *admission) scopesOf(pool string) []string {
	s := append(a.scopes[:0], pool)
	for i := strings.LastIndexByte(pool, '.'); i > 0; i = strings.LastIndexByte(pool[:i], '.') {
		s = append(s, pool[:i])
	}
	a.scopes = append(s, "root")
	return a.scopes
}

// limit is the cap of scope over a job of pool; 0 for none.
func (a *admission) limit(scope, pool string) int {
	if n, ok := a.limits.Pools[scope]; ok {
		return n
	}
	if scope == pool {
		return a.limits.PoolDefault
	}
	return 0
}

// fits reports whether every limit over a job of pool has room for one
// more.
func (a *admission) fits(pool string) bool {
	for _, s := range a.scopesOf(pool) {
		if n := a.limit(s, pool); n > 0 && a.running[s] >= n {
			return false
		}
	}
	return true
}

// count adds d to every limit over a job of pool.
func (a *admission) count(pool string, d int) {
	for _, s := range a.scopesOf(pool) {
		if a.limit(s, pool) > 0 {
			a.running[s] += d
		}
	}
}

// arrive admits j, or keeps it waiting; it reports whether j is in. A job
// that fits goes in even while others wait, as YARN's canAppBeRunnable
// asks only of the job's own limits: those waiting are under a limit with
// no room, which j is not.
func (a *admission) arrive(j *Job) bool {
	a.next++
	if a.fits(j.Pool) {
		a.count(j.Pool, 1)
		return true
	}
	if len(a.waiting[j.Pool]) == 0 {
		i, _ := slices.BinarySearch(a.pools, j.Pool)
		a.pools = slices.Insert(a.pools, i, j.Pool)
	}
	a.waiting[j.Pool] = append(a.waiting[j.Pool], j)
	a.held[j] = a.next
	return false
}

// leave drops j, which ended, and returns the waiting jobs that now fit,
// counted in, in arrival order: of the pools under the limits j frees,
// the earliest front job that fits goes in, until none does. A waiting
// job that leaves (one that failed before it ran) is only dropped.
func (a *admission) leave(j *Job) []*Job {
	if _, ok := a.held[j]; ok {
		delete(a.held, j)
		a.drop(j.Pool, slices.Index(a.waiting[j.Pool], j))
		return nil
	}
	a.count(j.Pool, -1)
	if len(a.pools) == 0 {
		return nil
	}
	// The pools whose jobs the freed limits are over: j's own, and those
	// below a queue above it that has a limit.
	var cand []string
	freed := slices.Clone(a.scopesOf(j.Pool))
	for _, p := range a.pools {
		for _, s := range freed {
			if a.limit(s, j.Pool) > 0 && (p == s || s == "root" || strings.HasPrefix(p, s+".")) {
				cand = append(cand, p)
				break
			}
		}
	}
	var in []*Job
	for len(cand) > 0 {
		best := -1
		for i, p := range cand {
			if best < 0 || a.held[a.waiting[p][0]] < a.held[a.waiting[cand[best]][0]] {
				best = i
			}
		}
		p := cand[best]
		if !a.fits(p) {
			cand = slices.Delete(cand, best, best+1) // nothing frees room during the loop
			continue
		}
		w := a.waiting[p][0]
		a.count(p, 1)
		delete(a.held, w)
		in = append(in, w)
		if a.drop(p, 0) {
			cand = slices.Delete(cand, best, best+1)
		}
	}
	return in
}

// drop removes the i'th waiting job of pool, and reports whether the pool
// has none left.
func (a *admission) drop(pool string, i int) bool {
	w := slices.Delete(a.waiting[pool], i, i+1)
	if len(w) > 0 {
		a.waiting[pool] = w
		return false
	}
	delete(a.waiting, pool)
	if k, ok := slices.BinarySearch(a.pools, pool); ok {
		a.pools = slices.Delete(a.pools, k, k+1)
	}
	return true
}

// isHeld reports whether j waits past a limit.
func (a *admission) isHeld(j *Job) bool {
	_, ok := a.held[j]
	return ok
}
