package sched_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// memoParams mixes the pool settings that reach FairShares: minimum shares
// for every slot kind, weights, and a FIFO pool (which has no job shares).
var memoParams = sched.FairParams{Pools: []sched.PoolConfig{
	{Name: "a", MinMaps: 2, MinReduces: 1, MinShare: 3, Weight: 2},
	{Name: "b", Mode: "fifo"},
	{Name: "c", Weight: 0.5},
	{Name: "d", MinMaps: 5, MinShare: 1},
}}

// sizedParams are memoParams with weights by demand (Hadoop 1's
// sizebasedweight) and a cap on pool c's running maps.
var sizedParams = sched.FairParams{SizeBasedWeight: "tasks", Pools: []sched.PoolConfig{
	{Name: "a", MinMaps: 2, MinReduces: 1, MinShare: 3, Weight: 2},
	{Name: "b", Mode: "fifo"},
	{Name: "c", Weight: 0.5, MaxMaps: 3},
	{Name: "d", MinMaps: 5, MinShare: 1},
}}

var memoPools = []string{"a", "b", "c", "d", "e"}

var allSlots = []sched.SlotKind{sched.MapSlot, sched.ReduceSlot, sched.AnySlot}

// launchReduce starts one of j's reduces and tells the order (no epoch
// bump: a launch does not change demand).
func (e *fairEnv) launchReduce(j *sched.Job) {
	j.RunningReduces++
	e.f.TaskLaunched(e.c, j, sched.ReduceTask, 0)
}

// finishReduce ends one of j's running reduces.
func (e *fairEnv) finishReduce(j *sched.Job) {
	j.RunningReduces--
	j.FinishedReduces++
	e.c.epoch++
	e.f.TaskEnded(e.c, j, sched.ReduceTask, 0, false)
}

// query asks the order for shares and candidates of every slot kind, as
// offers do between events, so that the next change meets remembered
// shares rather than an empty memo.
func (e *fairEnv) query() {
	for _, s := range allSlots {
		collect(e.f.Candidates(e.c, s))
	}
}

// checkFresh compares e's order, which has lived through every event,
// against a FairOrder that sees only the current state (the same jobs
// added in the same order, the same running tasks) and against FairShares
// called directly: every pool share and job share must be equal bit for
// bit, and the candidate orders equal.
func checkFresh(t *testing.T, e *fairEnv, params sched.FairParams, why string) {
	t.Helper()
	fresh, err := sched.NewFairOrder(params)
	if err != nil {
		t.Fatalf("NewFairOrder: %v", err)
	}
	var pools []string
	byPool := map[string][]*sched.Job{}
	for _, j := range e.c.jobs {
		fresh.JobAdded(e.c, j)
		for range j.RunningMaps {
			fresh.TaskLaunched(e.c, j, sched.MapTask, 0)
		}
		for range j.RunningReduces {
			fresh.TaskLaunched(e.c, j, sched.ReduceTask, 0)
		}
		if byPool[j.Pool] == nil {
			pools = append(pools, j.Pool)
		}
		byPool[j.Pool] = append(byPool[j.Pool], j)
	}
	slices.Sort(pools)
	cfg := map[string]sched.PoolConfig{}
	for _, pc := range params.Pools {
		cfg[pc.Name] = pc
	}
	for _, s := range allSlots {
		// The readers first: reading a share may bring the division of a
		// pool's share up to date, which each reader must do alone. A
		// pool read in part (yieldSome, NAS's reduce requests) first.
		for _, name := range pools {
			if got, want := sched.PoolJobs(e.f, e.c, name, s, true), sched.PoolJobs(fresh, e.c, name, s, false); !slices.Equal(got, want) {
				t.Fatalf("%s: pool %q read in part for %v = %v, want %v as a fresh order reads it whole: a part must come in the pool's order", why, name, s, got, want)
			}
		}
		if got, want := collect(e.f.Candidates(e.c, s)), collect(fresh.Candidates(e.c, s)); !slices.Equal(got, want) {
			t.Fatalf("%s: Candidates(%v) = %v, want %v as a fresh order gives: remembering shares must not change the order", why, s, got, want)
		}
		// Pool shares straight from FairShares, pools in name order as
		// the order keeps them.
		var reqs []sched.ShareRequest
		for _, name := range pools {
			d := 0
			for _, j := range byPool[name] {
				d += j.Demand(s)
			}
			m := map[sched.SlotKind]int{sched.MapSlot: cfg[name].MinMaps, sched.ReduceSlot: cfg[name].MinReduces, sched.AnySlot: cfg[name].MinShare}[s]
			if c := map[sched.SlotKind]int{sched.MapSlot: cfg[name].MaxMaps, sched.ReduceSlot: cfg[name].MaxReduces, sched.AnySlot: cfg[name].MaxShare}[s]; c > 0 {
				d = min(d, c) // a capped pool's demand counts up to its cap
			}
			reqs = append(reqs, sched.ShareRequest{Demand: float64(d), MinShare: float64(m), Weight: cfg[name].Weight})
		}
		direct := sched.FairShares(float64(e.c.TotalSlots(s)), reqs)
		for i, name := range pools {
			got, scratch := e.f.PoolShare(e.c, name, s), fresh.PoolShare(e.c, name, s)
			if math.Float64bits(got) != math.Float64bits(scratch) || math.Float64bits(got) != math.Float64bits(direct[i]) {
				t.Fatalf("%s: PoolShare(%q, %v) = %v (bits %x), want %v from a fresh order and %v from FairShares, bit for bit: remembered shares must equal recomputed ones",
					why, name, s, got, math.Float64bits(got), scratch, direct[i])
			}
			if cfg[name].Mode == "fifo" {
				continue
			}
			var jr []sched.ShareRequest
			for _, j := range byPool[name] {
				w := j.Spec.Weight
				if params.SizeBasedWeight == "tasks" {
					w = max(w, 0)
					if w == 0 {
						w = 1 // a job's weight of 0 counts as 1 before the size scales it
					}
					w *= math.Log1p(float64(j.Demand(s))) / math.Ln2 // Hadoop 1's weight by demand
				}
				jr = append(jr, sched.ShareRequest{Demand: float64(j.Demand(s)), Weight: w})
			}
			jdirect := sched.FairShares(got, jr)
			for k, j := range byPool[name] {
				got, scratch := e.f.JobShare(e.c, j, s), fresh.JobShare(e.c, j, s)
				if math.Float64bits(got) != math.Float64bits(scratch) || math.Float64bits(got) != math.Float64bits(jdirect[k]) {
					t.Fatalf("%s: JobShare(job %d in %q, %v) = %v, want %v from a fresh order and %v from FairShares, bit for bit: a job share must never be a stale one",
						why, j.Index, name, s, got, scratch, jdirect[k])
				}
			}
		}
	}
}

// TestFairOrderRememberedSharesMatchRecomputed drives orders through seeded
// random sequences of arrivals, departures, launches, finishes, reduces
// being enabled, outputs lost and slot counts changing, with offers in
// between, and checks after every event that the shares the order kept equal a
// computation from scratch bit for bit, and that its candidate sequence,
// which it replays while nothing it observes has changed, equals a fresh
// order's (query reads every sequence in full, so each check meets one).
func TestFairOrderRememberedSharesMatchRecomputed(t *testing.T) {
	tests := []struct {
		name   string
		seed   uint64
		pools  int // how many of memoPools jobs go to
		events int
		jobs   int               // at most this many jobs at once
		every  int               // check after every this many events (offers read in between at random)
		params *sched.FairParams // nil: memoParams
	}{
		{"two pools, many jobs each", 1, 2, 400, 14, 1, nil},
		{"five pools", 2, 5, 400, 14, 1, nil},
		{"five pools, another seed", 3, 5, 400, 14, 1, nil},
		// Events pile up between checks: updates and sorts meet several
		// named jobs at once, and lists past namedMax.
		{"two pools of a backlog, checked every 5 events", 4, 2, 1500, 60, 5, nil},
		{"five pools of a backlog, checked every 40 events", 5, 5, 3000, 80, 40, nil},
		// Weights that move with demand, and a pool at its cap.
		{"size-based weights and a capped pool", 6, 5, 1500, 40, 3, &sizedParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 99))
			params := memoParams
			if tc.params != nil {
				params = *tc.params
			}
			e := newFairEnv(t, params, 12, 5, 14)
			queryOdds := 2 // one event in queryOdds is followed by offers
			if tc.every > 1 {
				queryOdds = 4 * tc.every
			}
			for ev := range tc.events {
				var what string
				anyJob := func() *sched.Job { return e.c.jobs[rng.IntN(len(e.c.jobs))] }
				// runningJob picks one of the jobs running a task of
				// kind k, nil when none is.
				runningJob := func(k sched.TaskKind) *sched.Job {
					var js []*sched.Job
					for _, j := range e.c.jobs {
						if (k == sched.MapTask && j.RunningMaps > 0) || (k == sched.ReduceTask && j.RunningReduces > 0) {
							js = append(js, j)
						}
					}
					if len(js) == 0 {
						return nil
					}
					return js[rng.IntN(len(js))]
				}
				switch op := rng.IntN(10); {
				case op == 0 && len(e.c.jobs) < tc.jobs || len(e.c.jobs) == 0:
					pool := memoPools[rng.IntN(tc.pools)]
					j := e.add(pool, rng.IntN(7), rng.IntN(4))
					j.Spec.Weight = []float64{1, 2, 0.5, 0}[rng.IntN(4)]
					e.c.epoch++ // the weight is part of the arrival
					what = fmt.Sprintf("job %d (maps %d, reduces %d, weight %v) added to %q", j.Index, j.NumMaps, j.NumReduces, j.Spec.Weight, pool)
				case op == 1:
					// The engine removes a job once its tasks have
					// ended; the order's running counts assume so.
					j := anyJob()
					if j.RunningMaps+j.RunningReduces > 0 {
						continue
					}
					e.remove(j)
					what = fmt.Sprintf("job %d removed from %q", j.Index, j.Pool)
				case op == 2:
					j := anyJob()
					if j.PendingMaps() == 0 {
						continue
					}
					e.launch(j, 1)
					what = fmt.Sprintf("a map of job %d launched", j.Index)
				case op == 3:
					j := runningJob(sched.MapTask)
					if j == nil {
						continue
					}
					killed := rng.IntN(4) == 0
					e.finish(j, 1, killed)
					what = fmt.Sprintf("a map of job %d ended (killed %v)", j.Index, killed)
				case op == 4:
					j := anyJob()
					j.ReducesEnabled = true
					e.c.epoch++
					e.f.ReducesEnabled(e.c, j)
					what = fmt.Sprintf("reduces of job %d enabled", j.Index)
				case op == 5:
					j := anyJob()
					if !j.ReducesEnabled || j.PendingReduces() == 0 {
						continue
					}
					e.launchReduce(j)
					what = fmt.Sprintf("a reduce of job %d launched", j.Index)
				case op == 6:
					j := runningJob(sched.ReduceTask)
					if j == nil {
						continue
					}
					e.finishReduce(j)
					what = fmt.Sprintf("a reduce of job %d ended", j.Index)
				case op == 7:
					s := allSlots[rng.IntN(len(allSlots))]
					e.c.total[s] = rng.IntN(20)
					e.c.epoch++
					what = fmt.Sprintf("%v slots set to %d", s, e.c.total[s])
				case op == 8:
					// A lost node took a finished map's output: the map is
					// pending again, with no task event.
					j := anyJob()
					if j.FinishedMaps == 0 {
						continue
					}
					j.FinishedMaps--
					for i := range j.NumMaps {
						if !j.Maps.IsPending(i) {
							j.Maps.Return(i)
							break
						}
					}
					e.c.epoch++
					e.f.MapOutputsLost(e.c, j, 0, 1)
					what = fmt.Sprintf("a finished map of job %d lost its output", j.Index)
				default:
					e.query()
					what = "offers of every slot kind"
				}
				if rng.IntN(queryOdds) == 0 {
					e.query()
				}
				if ev%tc.every == 0 {
					checkFresh(t, e, params, fmt.Sprintf("seed %d, event %d (%s)", tc.seed, ev, what))
				}
			}
		})
	}
}

// recreatePool empties pool a of its one job of old maps, beside a job
// of 10 maps in pool b2, with offers before and after, then adds jobs of
// again maps to it.
func recreatePool(old int, again ...int) func(e *fairEnv) {
	return func(e *fairEnv) {
		e.add("b2", 10, 0)
		j := e.add("a", old, 0)
		e.query()
		e.remove(j)
		e.query()
		for _, maps := range again {
			e.add("a", maps, 0)
		}
	}
}

// TestFairOrderJobSharesNotStale pins the cases where remembered job shares
// would be wrong if reused: the pool's job list changed while the pool's
// share, or its total demand, did not.
func TestFairOrderJobSharesNotStale(t *testing.T) {
	tests := []struct {
		name string
		run  func(e *fairEnv)
		why  string
	}{
		{"pool emptied and re-created", recreatePool(4, 2, 6),
			"the re-created pool's jobs share its slots afresh; the old job's share (all of it) must not carry over"},
		{"pool emptied and re-created with an equal demand", recreatePool(3, 1, 2),
			"two jobs with demands 1 and 2 divide the pool's share between them, though the pool's demand is the old job's 3"},
		{"job removed from a multi-job pool", func(e *fairEnv) {
			e.add("b2", 10, 0)
			j := e.add("a", 6, 0)
			e.add("a", 2, 0)
			e.add("a", 3, 0)
			e.query()
			e.remove(j)
		}, "the remaining jobs' shares are parallel to the shortened job list, computed from their own demands"},
		{"job replaced by one of the same demand, pool demand unchanged", func(e *fairEnv) {
			e.add("b2", 10, 0)
			j := e.add("a", 3, 0)
			e.add("a", 1, 0)
			e.query()
			e.remove(j)
			e.add("a", 3, 0)
		}, "pool a's share is unchanged, but its jobs' demands are now 1 then 3, not 3 then 1"},
		{"demand moves between jobs of a pool whose share holds", func(e *fairEnv) {
			e.add("b2", 20, 0)
			j1 := e.add("a", 5, 0)
			j2 := e.add("a", 8, 0)
			e.launch(j1, 4)
			e.launch(j2, 4)
			e.query()
			e.finish(j1, 4, false)
			e.query()
		}, "pool a's demand (13, then 9) stays above its share of 4 map slots, which holds, but job 1's demand fell to 1: it gets 1 and job 2 the other 3"},
		{"demand moves between jobs of a pool whose demand holds", func(e *fairEnv) {
			j1 := e.add("a", 2, 0)
			j2 := e.add("a", 7, 0)
			e.launch(j1, 2)
			e.finish(j1, 1, false)
			e.launch(j2, 3)
			e.query()
			e.finish(j2, 1, false)
			j1.FinishedMaps--
			j1.Maps.Return(0)
			e.c.epoch++
			e.f.MapOutputsLost(e.c, j1, 0, 1)
		}, "pool a's demand is 8 both times (1 + 7, then 2 + 6), so its share holds, but its 6 map slots divide 1 and 5 before and 2 and 4 after: the jobs' division must follow their own demands"},
		{"map finishes leave reduce shares and reduce finishes leave map shares", func(e *fairEnv) {
			j1 := e.add("a", 6, 4)
			j2 := e.add("c", 6, 4)
			j1.ReducesEnabled, j2.ReducesEnabled = true, true
			e.c.epoch++
			e.launch(j1, 3)
			e.launchReduce(j2)
			e.query()
			e.finish(j1, 2, false)
			e.query()
			e.finishReduce(j2)
		}, "each slot kind's shares follow its own demands only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newFairEnv(t, memoParams, 6, 3, 8)
			tc.run(e)
			checkFresh(t, e, memoParams, tc.name+": "+tc.why)
		})
	}
}

// TestFairOrderSequenceNotKeptAcrossChangeMidRead pins that a candidate
// sequence read while the order's state changed under it (a consumer that
// launches a task before it has read every candidate) is not replayed
// later: it was computed from the state before the change.
func TestFairOrderSequenceNotKeptAcrossChangeMidRead(t *testing.T) {
	e := newFairEnv(t, memoParams, 6, 3, 8)
	e.add("c", 8, 0)
	e.add("e", 8, 0) // a change since any read: the next read computes and keeps its sequence
	launched := false
	for j := range e.f.Candidates(e.c, sched.MapSlot) {
		if !launched {
			// Four maps on the first pool's job put that pool behind the
			// other, so the sequence read so far is no longer the order.
			e.launch(j, 4)
			launched = true
		}
	}
	if !launched {
		t.Fatal("no candidate was read; the test exercises nothing")
	}
	checkFresh(t, e, memoParams, "after a full read during which a job launched four maps")
}
