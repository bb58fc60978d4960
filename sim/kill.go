package sim

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// preempt asks a preempting policy which attempts to kill and kills them.
func (e *Engine) preempt(p sched.Preempter) {
	for _, t := range p.Preempt(e) {
		if !e.kill(t) {
			e.fail("policy %s asked to kill %s %d of job %d, which is not running", e.pol.Name(), t.Kind, t.Index, jobID(t.Job))
			return
		}
	}
	if e.finished < len(e.specs) {
		e.events.push(event{t: e.now + e.p.PreemptionIntervalS, kind: evPreempt})
	}
}

func jobID(j *sched.Job) int {
	if j == nil {
		return -1
	}
	return j.Index
}

// kill ends a running attempt: its work is lost (Hadoop treats a killed task
// as if it never started), its flows are removed, its slot is freed and its
// task returns to pending. Bytes the attempt already moved stay counted as
// traffic; shuffle bytes it had fetched are uncounted from the shuffle
// ledger, since the next attempt fetches them again. It reports false for an
// attempt that is not running.
func (e *Engine) kill(t sched.TaskRef) bool {
	j := t.Job
	if j == nil || j.Index < 0 || j.Index >= len(e.jobs) || e.jobs[j.Index] == nil || e.jobs[j.Index].done {
		return false
	}
	jr := e.jobs[j.Index]
	if !jr.isRunning(t.Kind, t.Index) {
		return false
	}
	node, slot, start := e.endAttempt(jr, t.Kind, t.Index)
	e.afterKill(jr, t.Kind, node, slot, start)
	return true
}

// isRunning reports whether task i of kind k has an attempt launched and
// not ended.
func (jr *jobRun) isRunning(k sched.TaskKind, i int) bool {
	if k == sched.MapTask {
		if i < 0 || i >= len(jr.maps) {
			return false
		}
		st := jr.maps[i].state
		return st == tsStarting || st == tsRunning || st == tsMerging
	}
	if i < 0 || i >= len(jr.reduces) {
		return false
	}
	st := jr.reduces[i].state
	return st != tsPending && st != tsDone
}

// endAttempt takes task i's running attempt off the cluster, as killing or
// failing it does: its flows are removed, its pending phase event is made
// stale, its resources and place in the job's running list are released
// and the task is pending again (counted launchable). It returns where the
// attempt ran and when it started; the caller frees the slot and tells the
// policy. The task's failure count is kept.
func (e *Engine) endAttempt(jr *jobRun, k sched.TaskKind, i int) (node cluster.NodeID, slot sched.SlotKind, start float64) {
	sj := jr.sj
	if k == sched.MapTask {
		m := &jr.maps[i]
		if m.backup != nil {
			e.endBackup(jr, i) // a task that stops runs no attempt
		}
		e.cancelMapFlows(m)
		m.attempt++ // invalidates the attempt's pending phase event
		m.state = tsPending
		jr.ended(sched.MapTask, i)
		sj.RunningMaps--
		sj.Maps.Return(i)
		e.jt.AddLaunchable(1, 0)
		e.hold(m.node, jr.spec, true, -1)
		return m.node, m.slot, m.start
	}
	r := &jr.reduces[i]
	e.cancelReduceFlows(r)
	if r.state == tsStarting || r.state == tsRunning {
		if jr.copyingOn != nil {
			jr.copyingOn[r.node]--
		}
		if jr.sj.FinishedMaps < jr.sj.NumMaps {
			jr.addWait(e.now-r.start, e.p.CopyCompute.Enabled)
		}
	}
	if (r.state == tsComputing || r.state == tsMerging) && jr.copyingOn != nil {
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
	node, slot, start = r.node, r.slot, r.start
	*r = reduceTask{attempt: r.attempt + 1, failures: r.failures}
	jr.ended(sched.ReduceTask, i)
	jr.next = min(jr.next, i)
	sj.RunningReduces--
	e.jt.AddLaunchable(0, 1) // a launched reduce was enabled, and is again pending
	e.hold(node, jr.spec, false, -1)
	return node, slot, start
}

func (e *Engine) afterKill(jr *jobRun, k sched.TaskKind, n cluster.NodeID, slot sched.SlotKind, start float64) {
	e.jt.BumpEpoch()
	e.col.TaskKilled(e.now - start)
	e.freeSlot(n, slot)
	if e.tskObs != nil {
		e.tskObs.TaskEnded(e, jr.sj, k, n, true)
	}
}

// cancelMapFlows removes the flows of map attempt m: its read, spill or
// merge.
func (e *Engine) cancelMapFlows(m *mapTask) {
	switch m.state {
	case tsRunning:
		e.removeFlow(&m.flow)
		e.cancelDiskFlow(&m.spill, 1, metrics.Spill)
	case tsMerging:
		e.cancelDiskFlow(&m.flow, 2, metrics.Merge)
	}
}

// cancelReduceFlows removes the flows of reduce attempt r: its fetches,
// its merge or its output pipeline.
func (e *Engine) cancelReduceFlows(r *reduceTask) {
	for k := range r.from {
		if r.from[k].state == hostFetching {
			e.removeFlow(&r.from[k].flow)
			e.cancelFetch(r, int32(k))
		}
	}
	switch r.state {
	case tsMerging:
		e.cancelReduceMerge(r)
	case tsWriting:
		e.removeFlow(&r.write)
	}
}

// removeFlow removes the flow *id from the network, unless it is gone
// already (a transfer that broke when a node died), and clears *id.
func (e *Engine) removeFlow(id *network.FlowID) {
	if *id != 0 {
		e.net.Remove(e.now, *id)
		*id = 0
	}
}
