package jobtracker

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// Speculative execution (Config.Speculative), by Hadoop 1's rule as Hadoop
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
//   - a map's progress is the driver's (Driver.Progress). Hadoop's
//     JobTracker sees progress as of each TaskTracker's last heartbeat;
//     the tracker asks when it looks, and looks again at a job's maps
//     once a heartbeat period has passed, or once a map of the job has
//     finished or started, reusing the candidates it found in between (a
//     day's run offers slots hundreds of times a second).
//
// A slot the policy leaves free (it declines, or no task is pending) is
// offered to backups, the jobs in submit order; among a job's candidates a
// backup goes to the one with a replica nearest the node, then to the
// earliest launched, as Hadoop looks in its caches of running tasks by
// locality. The first attempt to finish wins: the other is stopped
// (LostRace), and counted, with the task-seconds it ran, in the
// speculation counters. A backup reads from the replica the driver picks
// for its own node, holds a slot and the task's resources, and is told to
// the policy as a launch and an end on its node; it is not in its job's
// running count or RunningTasks. A task that stops (killed, failed, its
// job failed) stops both attempts. Only maps are speculated.

// Hadoop 1's speculation constants (TaskInProgress).
const (
	specLagS = 60.0 // SPECULATIVE_LAG, 60,000 ms in Hadoop
	specGap  = 0.2  // SPECULATIVE_GAP
)

// BackupAttempt marks a backup's attempt number (Attempt.N), so that its
// reports are told from the task's own attempt's. The rest of the number
// counts the task's backups.
const BackupAttempt = 1 << 31

// backup is a map's speculative attempt, beside the task's own.
type backup struct {
	task  int32
	n     uint32
	node  cluster.NodeID
	slot  sched.SlotKind
	start float64
}

// specCands are a job's maps found behind enough to take a backup, and
// when and on what they were found.
type specCands struct {
	at                float64
	finished, running int
	maps              []int32 // in launch order
}

// takeBackup removes map i's backup from jr's and returns it; false if
// the map has none, which is a bookkeeping error the caller reports.
func (jr *job) takeBackup(i int) (backup, bool) {
	jr.maps[i].hasBackup = false
	for k := range jr.backups {
		if b := jr.backups[k]; b.task == int32(i) {
			jr.backups = append(jr.backups[:k], jr.backups[k+1:]...)
			return b, true
		}
	}
	return backup{}, false
}

// backupOf takes map i's backup, or ends the run with the invariant's
// error (never a panic: a run reports what went wrong and exits).
func (t *Tracker) backupOf(jr *job, i int) (backup, bool) {
	b, ok := jr.takeBackup(i)
	if !ok {
		t.fail("invariant: map %d of job %d is marked as backed up but has no backup", i, jr.spec.ID)
	}
	return b, ok
}

// candidates returns jr's maps at least specGap behind their job's
// average progress, looking again when the last look is a heartbeat
// period old or a map has finished or started since.
func (t *Tracker) candidates(jr *job) []int32 {
	sj := jr.sj
	c := jr.cands
	if c == nil {
		c = &specCands{at: math.Inf(-1)}
		jr.cands = c
	}
	if t.now-c.at < t.cfg.HeartbeatS && c.finished == sj.FinishedMaps && c.running == sj.RunningMaps {
		return c.maps
	}
	c.at, c.finished, c.running, c.maps = t.now, sj.FinishedMaps, sj.RunningMaps, c.maps[:0]
	sum := float64(sj.FinishedMaps)
	for _, id := range jr.running {
		if id.Kind == sched.MapTask {
			sum += t.d.Progress(jr.attempt(sched.MapTask, int(id.Index)))
		}
	}
	limit := sum/float64(sj.NumMaps) - specGap
	for _, id := range jr.running {
		if id.Kind == sched.MapTask && t.d.Progress(jr.attempt(sched.MapTask, int(id.Index))) <= limit {
			c.maps = append(c.maps, id.Index)
		}
	}
	return c.maps
}

// speculate launches a backup map on node n's free slot of kind k, if a
// map qualifies (see above), and reports whether it did.
func (t *Tracker) speculate(n cluster.NodeID, k sched.SlotKind) bool {
	var best *job
	bestI, bestReach := -1, cluster.OffRack+1
	for _, sj := range t.active {
		if sj.RunningMaps == 0 || sj.PendingMaps() > 0 || t.now-sj.Submit < specLagS {
			continue
		}
		jr := t.jobs[sj.Index]
		for _, i := range t.candidates(jr) {
			m := &jr.maps[i]
			if m.hasBackup || m.node == n || !jr.isRunning(sched.MapTask, int(i)) {
				continue
			}
			reach := cluster.OffRack
			for _, r := range sj.Input.BlockReplicas(int(i)) {
				reach = min(reach, t.topo.ReachOf(r, n))
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
	t.launchBackup(best, bestI, n, k)
	return true
}

// launchBackup starts a backup attempt of map i of jr on node n's free
// slot of kind k.
func (t *Tracker) launchBackup(jr *job, i int, n cluster.NodeID, k sched.SlotKind) {
	m := &jr.maps[i]
	m.backups++
	a := Attempt{Job: int32(jr.sj.Index), Task: int32(i), Kind: sched.MapTask, N: BackupAttempt | uint32(m.backups)}
	src := t.d.ReadSource(jr.sj.Index, i, n, -1)
	jr.backups = append(jr.backups, backup{task: int32(i), n: a.N, node: n, slot: k, start: t.now})
	m.hasBackup = true
	t.nodes[n].free[k]--
	t.slotTaken(n, k)
	t.running++
	t.hold(n, jr.spec, true, 1)
	t.launched(jr, a, n, src)
	t.col.BackupLaunched()
	if t.tskObs != nil {
		t.tskObs.TaskLaunched(t, jr.sj, sched.MapTask, n)
	}
	t.d.Start(a, n, src)
}

// raceEnded ends map i's race, which attempt a won: the other attempt is
// stopped and counted, and a becomes the task's attempt.
func (t *Tracker) raceEnded(jr *job, i int, a Attempt) {
	m := &jr.maps[i]
	b, ok := t.backupOf(jr, i)
	if !ok {
		return
	}
	if a.N == b.n {
		t.d.Stop(jr.attempt(sched.MapTask, i), LostRace)
		t.attemptEnded(jr, jr.attempt(sched.MapTask, i), false)
		node, slot, start := m.node, m.slot, m.start
		m.node, m.slot, m.start, m.attempt = b.node, b.slot, b.start, b.n
		t.endLoser(jr, node, slot, start, true)
		return
	}
	t.d.Stop(Attempt{Job: a.Job, Task: a.Task, Kind: sched.MapTask, N: b.n}, LostRace)
	t.attemptEnded(jr, Attempt{Job: a.Job, Task: a.Task, Kind: sched.MapTask, N: b.n}, false)
	t.endLoser(jr, b.node, b.slot, b.start, false)
}

// endLoser releases what a map attempt that lost its race held on node n.
func (t *Tracker) endLoser(jr *job, n cluster.NodeID, slot sched.SlotKind, start float64, backupWon bool) {
	t.hold(n, jr.spec, true, -1)
	t.col.BackupRaceEnded(backupWon, t.now-start)
	t.freeSlot(n, slot)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, jr.sj, sched.MapTask, n, true)
	}
}

// endBackup stops map i's backup, and counts it as killed: its task
// stopped (it was killed, its own attempt failed, or its job failed).
func (t *Tracker) endBackup(jr *job, i int, why StopReason) {
	if start, ok := t.stopBackup(jr, i, why); ok {
		t.col.TaskKilled(t.now - start)
	}
}

// stopBackup stops map i's backup for why and releases what it held; it
// returns when the backup launched, for the caller to count it.
func (t *Tracker) stopBackup(jr *job, i int, why StopReason) (float64, bool) {
	b, ok := t.backupOf(jr, i)
	if !ok {
		return 0, false
	}
	t.d.Stop(Attempt{Job: int32(jr.sj.Index), Task: int32(i), Kind: sched.MapTask, N: b.n}, why)
	t.attemptEnded(jr, Attempt{Job: int32(jr.sj.Index), Task: int32(i), Kind: sched.MapTask, N: b.n}, false)
	t.hold(b.node, jr.spec, true, -1)
	t.freeSlot(b.node, b.slot)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, jr.sj, sched.MapTask, b.node, true)
	}
	return b.start, true
}
