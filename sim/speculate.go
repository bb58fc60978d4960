package sim

import (
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// Speculative execution (Params.Speculative): the job tracker picks the
// maps to back up and settles their races (jobtracker/speculate.go, Hadoop
// 1's rule); the engine runs a backup as an attempt of its own beside the
// task's (mapTask.backup), reading from the replica nearest its own node
// and drawing no attempt failure, and reports the progress the tracker
// reads: a map's input read counts 2/3, its merge 1/3, as a Hadoop map's
// with reduces is its map phase (0.667) then its sort phase (0.333).
// Speculation does not run with node faults (Engine.SetFaults refuses them
// together).

// attemptOf returns the attempt of a map a flow belongs to.
func (jr *jobRun) attemptOf(ref *flowRef) *mapTask {
	m := &jr.maps[ref.task]
	if ref.backup {
		return m.backup
	}
	return m
}

// finishMap ends map i with attempt a (the task's own or its backup),
// which finished its work: the job tracker stops the other attempt, if
// one runs, and the task is done on a's node.
func (e *Engine) finishMap(jr *jobRun, i int, a *mapTask) {
	if a.state != tsRunning && a.state != tsMerging {
		e.fail("invariant: map %d of job %d finished in state %d", i, jr.spec.ID, a.state)
		return
	}
	a.state = tsDone
	e.markDone()
	e.jt.MapDone(jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.MapTask, N: a.attempt})
}

// stopAttempt removes map attempt a's flows.
func (e *Engine) stopAttempt(a *mapTask) {
	e.cancelMapFlows(a)
	a.state = tsDone
}

// mapProgress is attempt m's progress: its read (2/3), then its merge.
func (e *Engine) mapProgress(m *mapTask) float64 {
	switch m.state {
	case tsRunning:
		if m.flow == 0 {
			return 2.0 / 3 // read, its spill still writing
		}
		return 2.0 / 3 * e.flowDone(m.flow)
	case tsMerging:
		return 2.0/3 + e.flowDone(m.flow)/3
	}
	return 0
}

// flowDone is the fraction of flow id's bytes moved by now.
func (e *Engine) flowDone(id network.FlowID) float64 {
	size, moved, ok := e.net.Progress(e.now, id)
	if !ok || size <= 0 {
		return 1
	}
	return moved / size
}
