package sim

import (
	"hash/fnv"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/sched"
)

// The engine drives the run's job tracker (e.jt), which keeps the jobs'
// and tasks' bookkeeping and tells the engine, through driver, what to
// start and stop; the engine keeps the physics: time, flows, disks,
// fetches, compute slots and the random draws.

// driver is the engine as the job tracker's jobtracker.Driver: a type of
// its own, so that the engine's API does not carry the driver's methods.
type driver Engine

var _ jobtracker.Driver = (*driver)(nil)

func (e *Engine) submit(i int) {
	spec := &e.specs[i]
	e.markDone()
	f := sched.InputFile(e.topo, e.seed, spec)
	h := fnv.New64a()
	h.Write([]byte(spec.Name))
	jr := &jobRun{spec: spec, id: i, maps: make([]mapTask, spec.NumMaps), reduces: make([]reduceTask, spec.NumReduces), nameHash: h.Sum64()}
	e.jobs[i] = jr
	e.jt.Submit(i, f)
	jr.sj = e.jt.Job(i)
	for n := range e.nodes {
		if id := cluster.NodeID(n); e.jt.HasFree(id) && !e.nodes[n].hb && !e.jt.Down(id) {
			e.scheduleHeartbeatAfter(id, e.now)
		}
	}
}

// mapAttempt names map i's running attempt (its own, not a backup's).
func (jr *jobRun) mapAttempt(i int) jobtracker.Attempt {
	return jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.MapTask, N: jr.maps[i].attempt}
}

// reduceAttempt names reduce i's running attempt.
func (jr *jobRun) reduceAttempt(i int) jobtracker.Attempt {
	return jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.ReduceTask, N: jr.reduces[i].attempt}
}

// reduceDone ends reduce i, whose output is written.
func (e *Engine) reduceDone(jr *jobRun, i int) {
	r := &jr.reduces[i]
	if r.state != tsWriting {
		e.fail("invariant: reduce %d of job %d finished in state %d", i, jr.spec.ID, r.state)
		return
	}
	r.state = tsDone
	e.markDone()
	e.jt.ReduceDone(jr.reduceAttempt(i))
}

// failAttempt ends task i's running attempt as failed (failure.go).
func (e *Engine) failAttempt(jr *jobRun, k sched.TaskKind, i int) { e.failAttemptFor(jr, k, i, "") }

// failAttemptFor is failAttempt for an attempt that failed because of a
// node loss (nodeloss.go), why.
func (e *Engine) failAttemptFor(jr *jobRun, k sched.TaskKind, i int, why string) {
	a := jr.mapAttempt
	if k == sched.ReduceTask {
		a = jr.reduceAttempt
	}
	e.jt.AttemptFailed(a(i), why, why != "")
}

// current reports whether a flow belongs to its task's live attempt.
func (e *Engine) current(jr *jobRun, ref *flowRef) bool {
	if ref.kind == flowMapRead || ref.kind == flowSpill || ref.kind == flowMapMerge {
		if ref.backup {
			b := jr.maps[ref.task].backup
			return b != nil && b.attempt == ref.attempt
		}
		return jr.maps[ref.task].attempt == ref.attempt
	}
	return jr.reduces[ref.task].attempt == ref.attempt
}

// ReadSource picks the replica a map reads: the policy's choice unless
// it is dead or absent, else the cluster's replica choice (readSource).
func (d *driver) ReadSource(job, m int, n, chosen cluster.NodeID) cluster.NodeID {
	e := (*Engine)(d)
	if chosen < 0 || e.downCount > 0 && e.jt.Down(chosen) {
		return e.readSource(e.jobs[job].sj.Input.BlockReplicas(m), n)
	}
	return chosen
}

// Start draws whether the attempt fails, and starts it after its
// startup. A backup draws no failure.
func (d *driver) Start(a jobtracker.Attempt, n, src cluster.NodeID) {
	e := (*Engine)(d)
	jr := e.jobs[a.Job]
	i := int(a.Task)
	if a.N&jobtracker.BackupAttempt != 0 {
		b := &mapTask{state: tsStarting, node: n, src: src, attempt: a.N}
		jr.maps[i].backup = b
		if e.p.TaskStartupS > 0 {
			e.phasePending++
			e.events.push(event{t: e.now + e.p.TaskStartupS, kind: evPhaseDone, a: a.Job, b: a.Task, c: a.N})
			return
		}
		e.startMap(jr, i, b)
		return
	}
	e.lastProgress = e.now
	if a.Kind == sched.MapTask {
		m := &jr.maps[i]
		m.state, m.node, m.src, m.attempt = tsStarting, n, src, a.N
		if e.p.TaskFailureRate > 0 {
			m.failAt = e.drawFailure(jr, sched.MapTask, i, a.N)
		}
		e.afterStartup(jr, a.Task, a.N)
		return
	}
	r := &jr.reduces[i]
	r.state, r.node, r.attempt = tsStarting, n, a.N
	if e.p.TaskFailureRate > 0 {
		r.failAt = e.drawFailure(jr, sched.ReduceTask, i, a.N)
	}
	if e.faults != nil {
		r.fx = &reduceFaults{}
	}
	if e.p.ReduceBufferMB > 0 {
		r.dk = &reduceDisk{}
	}
	e.afterStartup(jr, -1-a.Task, a.N)
}

// Stop ends an attempt's physics: its flows stop, a reduce's compute
// slot and fetched bytes are given back; its later events are stale. A
// map attempt that lost its race to its backup hands the task's place to
// the backup's flows.
func (d *driver) Stop(a jobtracker.Attempt, why jobtracker.StopReason) {
	e := (*Engine)(d)
	jr := e.jobs[a.Job]
	i := int(a.Task)
	if a.Kind == sched.MapTask {
		m := &jr.maps[i]
		if a.N&jobtracker.BackupAttempt != 0 {
			b := m.backup
			m.backup = nil
			e.stopAttempt(b)
			return
		}
		if why == jobtracker.LostRace {
			// The backup's attempt becomes the task's.
			loser, b := *m, m.backup
			m.flow, m.spill, m.node, m.src, m.attempt = b.flow, b.spill, b.node, b.src, b.attempt
			m.failAt, m.state, m.parts, m.backup = b.failAt, b.state, b.parts, nil
			e.stopAttempt(&loser)
			return
		}
		e.cancelMapFlows(m)
		m.state, m.attempt, m.failAt = tsPending, 0, 0
		return
	}
	r := &jr.reduces[i]
	e.cancelReduceFlows(r)
	if (r.state == tsComputing || r.state == tsMerging) && e.p.CopyCompute.Enabled {
		e.releaseCompute(r.node)
	}
	if r.state == tsRunning {
		for x, c := range jr.copying {
			if c == i {
				jr.copying = append(jr.copying[:x], jr.copying[x+1:]...)
				break
			}
		}
	}
	e.shuffleFetched -= r.fetched
	jr.fetched -= r.fetched
	e.releaseFetchState(r)
	*r = reduceTask{}
}

// MapOutput counts a map's output in the shuffle ledger (once: a map run
// again replaces a lost output the ledger counts), and has the job's
// copying reduces take it.
func (d *driver) MapOutput(a jobtracker.Attempt, _ cluster.NodeID, rerun bool) {
	e := (*Engine)(d)
	jr := e.jobs[a.Job]
	sj := jr.sj
	if !rerun {
		out := jr.spec.MapOutputBytes(int(a.Task), e.topo.Config().BlockBytes())
		e.shuffleProduced += out
		jr.produced += out
	}
	// pump may move a reduce to compute, which edits jr.copying: walk a copy.
	e.scratch = append(e.scratch[:0], jr.copying...)
	for _, r := range e.scratch {
		if jr.reduces[r].state == tsRunning && (jr.reduces[r].fetches < e.p.ParallelCopies || sj.FinishedMaps == sj.NumMaps) {
			e.pump(jr, r)
		}
	}
}

// Progress is a map attempt's progress (speculate.go).
func (d *driver) Progress(a jobtracker.Attempt) float64 {
	e := (*Engine)(d)
	m := &e.jobs[a.Job].maps[a.Task]
	if a.N&jobtracker.BackupAttempt != 0 {
		m = m.backup
	}
	return e.mapProgress(m)
}

// SlotFreed offers node n's free slots at the end of the instant.
func (d *driver) SlotFreed(n cluster.NodeID) { (*Engine)(d).markDirty(n) }

// JobLeft drops a failed job's part of the shuffle ledger, and what only
// a running job needs.
func (d *driver) JobLeft(job int, failed bool) {
	e := (*Engine)(d)
	jr := e.jobs[job]
	if failed {
		e.shuffleProduced -= jr.produced
		e.shuffleFetched -= jr.fetched
	}
	jr.maps, jr.reduces = nil, nil
}
