package sim

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// Speculative execution (Params.Speculative), by Hadoop 1's rule as Hadoop
// 1.2.1 codes it (TaskInProgress.hasSpeculativeTask, JobInProgress.
// findNewMapTask and findSpeculativeTask):
//
//   - a job hands out a backup only when it has no map left to start: a
//     new task goes before a backup;
//   - a running map gets a backup when its job's maps were set up at
//     least SPECULATIVE_LAG (60 s) ago, its progress is at least
//     SPECULATIVE_GAP (0.2) below the average progress of its job's maps
//     (finished ones count 1, pending ones 0), it has no backup yet
//     (MAX_TASK_EXECS: one attempt beside the first) and the node offered
//     is not the one it runs on. Hadoop measures the 60 s from when it
//     created the task, at the job's initialisation, not from the
//     attempt's launch: a job initialises as it is submitted here
//     (EagerTaskInitializationListener), so the lag runs from the submit.
//   - a map's progress is its input read (2/3) then its merge (1/3), as a
//     Hadoop map's with reduces is its map phase (0.667) then its sort
//     phase (0.333). Hadoop's JobTracker sees progress as of each
//     TaskTracker's last heartbeat; the model reads it when it looks, and
//     looks again at a job's maps once a heartbeat period has passed, or
//     once a map of the job has finished or started, reusing the
//     candidates it found in between (a day's run offers slots hundreds
//     of times a second).
//
// A slot the policy leaves free (it declines, or no task is pending) is
// offered to backups, the jobs in submit order; among a job's candidates a
// backup goes to the one with a replica nearest the node, then to the
// earliest launched, as Hadoop looks in its caches of running tasks by
// locality. The first attempt to finish wins: the other is killed (its
// flows stop, its slot is freed) and counted, with the task-seconds it
// ran, in the summary's speculation. A backup reads from the replica
// nearest its own node, holds a slot and the task's resources, and is
// told to the policy as a launch and an end on its node; it is not in its
// job's running count or RunningTasks, and it does not draw an attempt
// failure. A task that stops (killed, failed, its job failed) stops both
// attempts. Only maps are speculated; and speculation does not run with
// node faults (Engine.SetFaults refuses them together).

// Hadoop 1's speculation constants (TaskInProgress).
const (
	specLagS = 60.0 // SPECULATIVE_LAG, 60,000 ms in Hadoop
	specGap  = 0.2  // SPECULATIVE_GAP
)

// backupAttempt marks a backup's attempt number, so that its flows and
// phase events are told from the task's own attempt's.
const backupAttempt = 1 << 31

// attemptOf returns the attempt of a map a flow belongs to.
func (jr *jobRun) attemptOf(ref *flowRef) *mapTask {
	m := &jr.maps[ref.task]
	if ref.backup {
		return m.backup
	}
	return m
}

// finishMap ends map i with attempt a, which finished: the other attempt,
// if one runs, loses and is killed, and the task is done on a's node.
func (e *Engine) finishMap(jr *jobRun, i int, a *mapTask) {
	m := &jr.maps[i]
	b := m.backup
	if b == nil {
		e.mapDone(jr, i)
		return
	}
	m.backup = nil
	if a == b {
		loser := *m
		// The backup's attempt becomes the task's; its task-level
		// fields stay.
		loser.node, loser.slot, loser.start = e.jt.BackupWon(jr.id, i, b.attempt, b.node, b.slot, b.start)
		m.start, m.flow, m.spill, m.node, m.src, m.attempt = b.start, b.flow, b.spill, b.node, b.src, b.attempt
		m.failAt, m.state, m.slot, m.parts = b.failAt, b.state, b.slot, b.parts
		e.endLoser(jr, &loser, true)
	} else {
		e.endLoser(jr, b, false)
	}
	e.mapDone(jr, i)
}

// endLoser kills attempt l, whose task's other attempt finished first.
func (e *Engine) endLoser(jr *jobRun, l *mapTask, backupWon bool) {
	e.stopAttempt(l)
	e.jt.BackupEnded(jr.id, l.node, l.slot, l.start, true, backupWon)
}

// endBackup kills map i's backup because its task stops (it was killed,
// it failed, or its job failed): counted as a killed attempt.
func (e *Engine) endBackup(jr *jobRun, i int) {
	b := jr.maps[i].backup
	jr.maps[i].backup = nil
	e.stopAttempt(b)
	e.jt.BackupEnded(jr.id, b.node, b.slot, b.start, false, false)
}

// stopAttempt removes map attempt a's flows; the job tracker releases
// what it holds.
func (e *Engine) stopAttempt(a *mapTask) {
	e.cancelMapFlows(a)
	a.state = tsDone
}

// specCands are a job's maps found behind enough to take a backup, and
// when and on what they were found.
type specCands struct {
	at                float64
	finished, running int
	maps              []int32 // in launch order
}

// candidates returns jr's maps at least specGap behind their job's
// average progress, looking again when the last look is a heartbeat
// period old or a map has finished or started since.
func (e *Engine) candidates(jr *jobRun) []int32 {
	sj := jr.sj
	c := jr.cands
	if c == nil {
		c = &specCands{at: math.Inf(-1)}
		jr.cands = c
	}
	if e.now-c.at < e.p.HeartbeatS && c.finished == sj.FinishedMaps && c.running == sj.RunningMaps {
		return c.maps
	}
	c.at, c.finished, c.running, c.maps = e.now, sj.FinishedMaps, sj.RunningMaps, c.maps[:0]
	sum := float64(sj.FinishedMaps)
	running := e.jt.Attempts(jr.id)
	for _, t := range running {
		if t.Kind == sched.MapTask {
			sum += e.mapProgress(jr, &jr.maps[t.Index])
		}
	}
	limit := sum/float64(sj.NumMaps) - specGap
	for _, t := range running {
		if t.Kind == sched.MapTask && e.mapProgress(jr, &jr.maps[t.Index]) <= limit {
			c.maps = append(c.maps, t.Index)
		}
	}
	return c.maps
}

// speculate launches a backup map on node n's free slot of kind k, if a
// map qualifies (see above), and reports whether it did.
func (e *Engine) speculate(n cluster.NodeID, k sched.SlotKind) bool {
	var best *jobRun
	bestI, bestReach := -1, cluster.OffRack+1
	for _, sj := range e.jt.Jobs() {
		if sj.RunningMaps == 0 || sj.PendingMaps() > 0 || e.now-sj.Submit < specLagS {
			continue
		}
		jr := e.jobs[sj.Index]
		for _, i := range e.candidates(jr) {
			m := &jr.maps[i]
			if m.backup != nil || m.node == n || !e.jt.IsRunning(jr.id, sched.MapTask, int(i)) {
				continue
			}
			reach := cluster.OffRack
			for _, r := range sj.Input.BlockReplicas(int(i)) {
				reach = min(reach, e.topo.ReachOf(r, n))
			}
			if reach < bestReach {
				best, bestI, bestReach = jr, int(i), reach
			}
		}
		if best != nil {
			break // the first job in submit order with a candidate
		}
	}
	if best == nil {
		return false
	}
	e.launchBackup(best, bestI, n, k)
	return true
}

// mapProgress is attempt m's progress: its read (2/3), then its merge.
func (e *Engine) mapProgress(jr *jobRun, m *mapTask) float64 {
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

// launchBackup starts a backup attempt of map i of jr on node n's free
// slot of kind k.
func (e *Engine) launchBackup(jr *jobRun, i int, n cluster.NodeID, k sched.SlotKind) {
	m := &jr.maps[i]
	m.backups++
	b := &mapTask{state: tsStarting, node: n, slot: k, start: e.now, attempt: backupAttempt | uint32(m.backups)}
	b.src = e.readSource(jr.sj.Input.BlockReplicas(i), n)
	m.backup = b
	e.jt.BackupLaunched(jr.id, n, k)
	if e.p.TaskStartupS > 0 {
		e.phasePending++
		e.events.push(event{t: e.now + e.p.TaskStartupS, kind: evPhaseDone, a: int32(jr.spec.ID), b: int32(i), c: b.attempt})
		return
	}
	e.startMap(jr, i, b)
}
