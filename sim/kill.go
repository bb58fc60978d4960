package sim

import (
	"github.com/mrsched/mrsched/cluster"
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
	sj := jr.sj
	if t.Kind == sched.MapTask {
		if t.Index < 0 || t.Index >= len(jr.maps) {
			return false
		}
		m := &jr.maps[t.Index]
		if m.state != tsStarting && m.state != tsRunning {
			return false
		}
		if m.state == tsRunning {
			e.net.Remove(e.now, m.flow)
		}
		m.attempt++ // invalidates the attempt's pending phase event
		m.state = tsPending
		jr.ended(sched.MapTask, t.Index)
		sj.RunningMaps--
		sj.Maps.Return(t.Index)
		e.launchableMaps++
		e.hold(m.node, jr.spec, true, -1)
		e.afterKill(jr, sched.MapTask, m.node, m.slot, m.start)
		return true
	}
	if t.Index < 0 || t.Index >= len(jr.reduces) {
		return false
	}
	r := &jr.reduces[t.Index]
	if r.state == tsPending || r.state == tsDone {
		return false
	}
	for _, hf := range r.from {
		if hf.state == hostFetching {
			e.net.Remove(e.now, hf.flow)
		}
	}
	if r.state == tsWriting {
		e.net.Remove(e.now, r.write)
	}
	if r.state == tsStarting || r.state == tsRunning {
		if jr.copyingOn != nil {
			jr.copyingOn[r.node]--
		}
		if jr.sj.FinishedMaps < jr.sj.NumMaps {
			jr.addWait(e.now-r.start, e.p.CopyCompute.Enabled)
		}
	}
	if r.state == tsComputing && jr.copyingOn != nil {
		e.releaseCompute(r.node)
	}
	if r.state == tsRunning {
		for k, c := range jr.copying {
			if c == t.Index {
				jr.copying = append(jr.copying[:k], jr.copying[k+1:]...)
				break
			}
		}
	}
	e.shuffleFetched -= r.fetched
	node, slot, start := r.node, r.slot, r.start
	*r = reduceTask{attempt: r.attempt + 1}
	jr.ended(sched.ReduceTask, t.Index)
	jr.next = min(jr.next, t.Index)
	sj.RunningReduces--
	e.launchableReduces++ // a launched reduce was enabled, and is again pending
	e.hold(node, jr.spec, false, -1)
	e.afterKill(jr, sched.ReduceTask, node, slot, start)
	return true
}

func (e *Engine) afterKill(jr *jobRun, k sched.TaskKind, n cluster.NodeID, slot sched.SlotKind, start float64) {
	e.epoch++
	e.col.TaskKilled(e.now - start)
	e.freeSlot(n, slot)
	if e.tskObs != nil {
		e.tskObs.TaskEnded(e, jr.sj, k, n, true)
	}
}
