package jobtracker

import (
	"cmp"
	"slices"

	"github.com/mrsched/mrsched/sched"
)

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
	var running [2]int
	for _, j := range t.active {
		running[sched.MapTask] += j.RunningMaps
		running[sched.ReduceTask] += j.RunningReduces
	}
	if running != t.runningKind {
		t.fail("invariant: %d maps and %d reduces are running, but the engine counts %d and %d", running[0], running[1], t.runningKind[0], t.runningKind[1])
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
