package jobtracker

import (
	"cmp"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// Speculative backups are still chosen and run by the simulator (its
// speculate.go); these calls keep the tracker's slots, resources, counts
// and policy callbacks right for them. A backup is not a task's attempt
// to the tracker until it wins its race (BackupWon).

// BackupLaunched records that a backup of a map of job j started on node
// n's free slot of kind k.
func (t *Tracker) BackupLaunched(j int, n cluster.NodeID, k sched.SlotKind) {
	jr := t.jobs[j]
	t.nodes[n].free[k]--
	t.running++
	t.hold(n, jr.spec, true, 1)
	t.col.BackupLaunched()
	if t.tskObs != nil {
		t.tskObs.TaskLaunched(t, jr.sj, sched.MapTask, n)
	}
}

// BackupEnded records that a map attempt of job j that is not the task's
// (a backup, or the attempt a backup beat) ended on node n's slot of
// kind k, started at start: it lost its task's race (race, told with
// whether the backup won), or its task stopped.
func (t *Tracker) BackupEnded(j int, n cluster.NodeID, k sched.SlotKind, start float64, race, backupWon bool) {
	jr := t.jobs[j]
	t.hold(n, jr.spec, true, -1)
	if race {
		t.col.BackupRaceEnded(backupWon, t.now-start)
	} else {
		t.col.TaskKilled(t.now - start)
	}
	t.freeSlot(n, k)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, jr.sj, sched.MapTask, n, true)
	}
}

// BackupWon makes the backup of map i of job j, attempt number a on node
// n's slot of kind k since start, the task's attempt, and returns where
// and since when the attempt it beat ran.
func (t *Tracker) BackupWon(j, i int, a uint32, n cluster.NodeID, k sched.SlotKind, start float64) (cluster.NodeID, sched.SlotKind, float64) {
	m := &t.jobs[j].maps[i]
	node, slot, was := m.node, m.slot, m.start
	m.node, m.slot, m.start, m.attempt = n, k, start, a
	return node, slot, was
}

// Check verifies the tracker's counts against a recount: the launchable
// tasks, and each job's running list against a scan of its tasks.
func (t *Tracker) Check() {
	maps, reduces := 0, 0
	for _, j := range t.active {
		maps += j.PendingMaps()
		if j.ReducesEnabled {
			reduces += j.PendingReduces()
		}
	}
	if maps != t.launchableMaps || reduces != t.launchableReduces {
		t.fail("invariant: %d maps and %d reduces are launchable, but the engine counts %d and %d", maps, reduces, t.launchableMaps, t.launchableReduces)
	}
	for _, j := range t.active {
		jr := t.jobs[j.Index]
		var want []sched.TaskRef
		for i := range jr.maps {
			if m := &jr.maps[i]; m.state != pending && m.state != done {
				want = append(want, sched.TaskRef{Job: j, Kind: sched.MapTask, Index: i, Node: m.node, Start: m.start})
			}
		}
		for i := range jr.reduces {
			if r := &jr.reduces[i]; r.state != pending && r.state != done {
				want = append(want, sched.TaskRef{Job: j, Kind: sched.ReduceTask, Index: i, Node: r.node, Start: r.start})
			}
		}
		slices.SortStableFunc(want, func(a, b sched.TaskRef) int { return cmp.Compare(a.Start, b.Start) })
		if got := t.RunningTasks(j); !slices.Equal(got, want) {
			t.fail("invariant: job %d's running tasks are %v, a scan finds %v", j.Index, got, want)
			return
		}
	}
}
