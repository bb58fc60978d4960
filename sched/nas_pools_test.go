package sched_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// nasTwin is one of two identical worlds driven in lockstep: the same jobs,
// tasks and events, each with its own NAS-on-Fair policy.
type nasTwin struct {
	c       *swCluster
	pol     sched.Policy
	order   *sched.FairOrder
	nas     *sched.NAS
	running []nasTask
}

type nasTask struct {
	j    *sched.Job
	kind sched.TaskKind
	i    int
	n    cluster.NodeID
}

func newNASTwin(t *testing.T, topo *cluster.Topology, slots map[sched.SlotKind]int, free int, opt sched.NASOptions, byJob, limited bool) *nasTwin {
	t.Helper()
	c := newSWCluster(topo)
	c.total = slots
	c.limited = limited
	for n := range topo.NumNodes() {
		c.free[cluster.NodeID(n)] = free
	}
	o, err := sched.NewFairOrder(sched.FairParams{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := sched.NewNAS(sched.NASParams{MapSkips: iptr(4), ReduceSkips: iptr(3)}, opt)
	if err != nil {
		t.Fatal(err)
	}
	pol := sched.Compose("nas-twin", o, n)
	if byJob {
		// Reporting considered jobs makes Assign hand the placer every
		// candidate, as the decisions log does.
		if !pol.(sched.Considerer).Consider(func(*sched.Job) {}) {
			t.Fatal("composed policy does not report considered jobs")
		}
	}
	return &nasTwin{c: c, pol: pol, order: o, nas: n}
}

// TestNASByPoolDecidesAsByJob pins placePools to Place: a NAS-on-Fair
// policy reading the fair order pool by pool (passing over users whose
// tallies say MTS would skip them) and one handed every candidate (as when
// the decisions log asks for considered jobs) make the same decision on
// every offer of a random run with arrivals, launches, ends, kills, lost
// outputs, enabled reduces and congestion coming and going, and keep the
// same skip counters, under every NAS variant and in both slot models.
// The pool order NAS reads in place is, at every step, the one the twin's
// Candidates yields (its own kept copy, read through another path; that
// a kept order is the one a sort gives is pinned against a fresh order by
// TestFairOrderRememberedSharesMatchRecomputed).
func TestNASByPoolDecidesAsByJob(t *testing.T) {
	for _, model := range []struct {
		name  string
		cfg   cluster.Config
		slots map[sched.SlotKind]int
		free  int
		kinds []sched.SlotKind
	}{
		{"containers", cluster.Config{Racks: 3, NodesPerRack: 4, Containers: 4, Replication: 2},
			map[sched.SlotKind]int{sched.AnySlot: 48}, 4, []sched.SlotKind{sched.AnySlot}},
		{"slots", cluster.Config{Racks: 3, NodesPerRack: 4, MapSlots: 3, ReduceSlots: 2, Replication: 2},
			map[sched.SlotKind]int{sched.MapSlot: 36, sched.ReduceSlot: 24}, 3, []sched.SlotKind{sched.MapSlot, sched.ReduceSlot}},
	} {
		for _, v := range []struct {
			name string
			opt  sched.NASOptions
		}{
			{"nas", sched.NASOptions{CARTS: true, CRRTS: true}},
			{"nas-mts", sched.NASOptions{}},
			{"nas-mts-carts", sched.NASOptions{CARTS: true}},
			{"nas-no-tt", sched.NASOptions{CARTS: true, CRRTS: true, NoTrafficThreshold: true}},
		} {
			// With reduces that may be refused, every ramped reduce's
			// job is read; without, the offer decides them all at once.
			for _, limited := range []bool{false, true} {
				for seed := range uint64(8) {
					t.Run(fmt.Sprintf("%s/%s/limited=%v/seed=%d", model.name, v.name, limited, seed), func(t *testing.T) {
						topo := mustTopo(t, model.cfg)
						a := newNASTwin(t, topo, model.slots, model.free, v.opt, false, limited)
						b := newNASTwin(t, topo, model.slots, model.free, v.opt, true, limited)
						runNASTwins(t, topo, model.kinds, seed, a, b)
					})
				}
			}
		}
	}
}

// runNASTwins drives a and b through the same random run, failing at the
// first offer they decide differently.
func runNASTwins(t *testing.T, topo *cluster.Topology, kinds []sched.SlotKind, seed uint64, a, b *nasTwin) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const users, steps = 12, 3000
	next := 0
	ratios := []float64{lightRatio, mediumRatio, heavyRatio}
	addJob := func() {
		maps := 1 + rng.IntN(12)
		ratio := ratios[rng.IntN(len(ratios))]
		pool := fmt.Sprint("u", rng.IntN(users))
		pseed := rng.Uint64()
		for _, w := range []*nasTwin{a, b} {
			f := cluster.NewPlacer(topo, pseed).PlaceFile(maps, cluster.NoWriter)
			in := int64(maps) * topo.Config().BlockBytes()
			spec := &workload.Job{ID: next, Pool: pool, Submit: w.c.now, NumMaps: maps, NumReduces: 3,
				InputBytes: in, ShuffleBytes: int64(ratio * float64(in)), Weight: 1}
			j := &sched.Job{Spec: spec, Index: next, Pool: pool, Submit: w.c.now, NumMaps: maps, NumReduces: 3,
				Maps: sched.NewMapIndex(topo, &f), Input: &f, MapOutputByRack: make([]float64, topo.NumRacks())}
			w.c.jobs = append(w.c.jobs, j)
			w.c.epoch++
			w.pol.(sched.JobObserver).JobAdded(w.c, j)
		}
		next++
	}
	for range 30 {
		addJob()
	}
	for step := range steps {
		for _, w := range []*nasTwin{a, b} {
			w.c.now += 0.05
		}
		switch x := rng.IntN(100); {
		case x < 4:
			addJob()
		case x < 8: // congestion comes and goes
			r := cluster.RackID(rng.IntN(topo.NumRacks()))
			u := rng.Float64()
			for _, w := range []*nasTwin{a, b} {
				w.c.util[r] = u
			}
		case x < 40 && len(a.running) > 0: // a task ends, or is killed
			k := rng.IntN(len(a.running))
			killed := rng.IntN(10) == 0
			for _, w := range []*nasTwin{a, b} {
				w.end(k, killed)
			}
		case x < 46: // a node's finished maps' outputs are lost
			ji := rng.IntN(len(a.c.jobs))
			for _, w := range []*nasTwin{a, b} {
				w.loseOutputs(w.c.jobs[ji])
			}
		case x < 52: // slow start enables a job's reduces
			ji := rng.IntN(len(a.c.jobs))
			for _, w := range []*nasTwin{a, b} {
				w.enableReduces(w.c.jobs[ji])
			}
		default:
			n := cluster.NodeID(rng.IntN(topo.NumNodes()))
			o := sched.Offer{Node: n, Slot: kinds[rng.IntN(len(kinds))], Freed: rng.IntN(2) == 0}
			if a.c.free[n] == 0 {
				continue
			}
			da, oka := a.pol.Assign(a.c, o)
			db, okb := b.pol.Assign(b.c, o)
			if oka != okb || jobIdx(da, oka) != jobIdx(db, okb) || da.Kind != db.Kind || da.Map != db.Map || da.Rule != db.Rule {
				t.Fatalf("step %d, offer %+v: by pool %d %v map %d %q (ok %v), by job %d %v map %d %q (ok %v); both must decide alike",
					step, o, jobIdx(da, oka), da.Kind, da.Map, da.Rule, oka, jobIdx(db, okb), db.Kind, db.Map, db.Rule, okb)
			}
			if oka {
				a.launch(da, n)
				b.launch(db, n)
			}
		}
		for _, s := range kinds {
			if got, want := sched.PoolOrder(a.order, a.c, s), candidatePools(b.order.Candidates(b.c, s)); !slices.Equal(got, want) {
				t.Fatalf("step %d, %v slots: pools kept in order %v, Candidates yields their jobs in order %v; the kept order must be the one a sort gives", step, s, got, want)
			}
		}
		for u := range users {
			pool := fmt.Sprint("u", u)
			if a.nas.MapSkips(pool) != b.nas.MapSkips(pool) || a.nas.ReduceSkips(pool) != b.nas.ReduceSkips(pool) {
				t.Fatalf("step %d: user %s's skips by pool %d/%d, by job %d/%d; both must count alike", step, pool,
					a.nas.MapSkips(pool), a.nas.ReduceSkips(pool), b.nas.MapSkips(pool), b.nas.ReduceSkips(pool))
			}
		}
	}
}

// candidatePools is the pools of seq's jobs, each once, in order.
func candidatePools(seq func(func(*sched.Job) bool)) []string {
	var pools []string
	for j := range seq {
		if len(pools) == 0 || pools[len(pools)-1] != j.Pool {
			pools = append(pools, j.Pool)
		}
	}
	return pools
}

// launch applies decision d on node n as the engine does.
func (w *nasTwin) launch(d sched.Decision, n cluster.NodeID) {
	j := d.Job
	if d.Kind == sched.MapTask {
		j.Maps.Take(d.Map)
		j.RunningMaps++
	} else {
		j.RunningReduces++
	}
	w.c.free[n]--
	w.running = append(w.running, nasTask{j, d.Kind, d.Map, n})
	w.pol.(sched.TaskObserver).TaskLaunched(w.c, j, d.Kind, n)
}

// end finishes (or kills) running task k and removes a job with nothing
// left.
func (w *nasTwin) end(k int, killed bool) {
	tk := w.running[k]
	w.running = append(w.running[:k], w.running[k+1:]...)
	j := tk.j
	w.c.free[tk.n]++
	w.c.epoch++
	if tk.kind == sched.MapTask {
		j.RunningMaps--
		if killed {
			j.Maps.Return(tk.i)
		} else {
			j.FinishedMaps++
			j.MapOutputByRack[w.c.topo.Rack(tk.n)] += float64(j.Spec.ShuffleBytes) / float64(j.NumMaps)
		}
	} else {
		j.RunningReduces--
		if !killed {
			j.FinishedReduces++
		}
	}
	w.pol.(sched.TaskObserver).TaskEnded(w.c, j, tk.kind, tk.n, killed)
	if j.FinishedMaps == j.NumMaps && j.FinishedReduces == j.NumReduces {
		for i, x := range w.c.jobs {
			if x == j {
				w.c.jobs = append(w.c.jobs[:i], w.c.jobs[i+1:]...)
				break
			}
		}
		w.c.epoch++
		w.pol.(sched.JobObserver).JobRemoved(w.c, j)
	}
}

// enableReduces enables j's reduces once a fifth of its maps are done, as
// slow start does, an event of its own.
func (w *nasTwin) enableReduces(j *sched.Job) {
	if j.ReducesEnabled || 5*j.FinishedMaps < j.NumMaps {
		return
	}
	j.ReducesEnabled = true
	w.c.epoch++
	w.pol.(sched.DemandObserver).ReducesEnabled(w.c, j)
}

// loseOutputs returns j's finished maps, all of them, to pending, as a lost
// node's would be (the outputs are taken to have been there).
func (w *nasTwin) loseOutputs(j *sched.Job) {
	if j.FinishedMaps == 0 || j.FinishedReduces > 0 {
		return
	}
	running := map[int]bool{}
	for _, tk := range w.running {
		if tk.j == j && tk.kind == sched.MapTask {
			running[tk.i] = true
		}
	}
	lost := 0
	for i := range j.NumMaps {
		if !j.Maps.IsPending(i) && !running[i] {
			j.Maps.Return(i)
			lost++
		}
	}
	j.FinishedMaps -= lost
	clear(j.MapOutputByRack)
	w.c.epoch++
	w.pol.(sched.OutputLossObserver).MapOutputsLost(w.c, j, 0, lost)
}
