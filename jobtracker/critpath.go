package jobtracker

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/sched"
)

// The tracker tells its critpath.Recorder (Config.Critpath) what it
// knows of a job's time: submissions, launches, ends, lost outputs, the
// free slots of live nodes and the policy's declines. The driver reports
// the attempts' phases (Phase).

// key is attempt a's name in the recorder.
func key(a Attempt) critpath.Key {
	k := critpath.Key{Job: a.Job, Task: a.Task, N: a.N}
	if a.Kind == sched.ReduceTask {
		k.Task = -1 - a.Task
	}
	return k
}

// Phase records that attempt a reached phase boundary m, when the run
// records where its jobs' time goes.
func (t *Tracker) Phase(a Attempt, m critpath.Mark) {
	if t.cp != nil {
		t.cp.Phase(t.now, key(a), m)
	}
}

// Fetched records that a fetch of reduce attempt a, bounded by b, ended.
func (t *Tracker) Fetched(a Attempt, b critpath.Bound) {
	if t.cp != nil {
		t.cp.Fetched(t.now, key(a), b)
	}
}

// Recording reports whether the run records where its jobs' time goes.
func (t *Tracker) Recording() bool { return t.cp != nil }

// countFree adds sign times free (a node's free slots by kind) to the
// slots a map or a reduce could take, for a live node.
func (t *Tracker) countFree(n cluster.NodeID, free [3]int, sign int) {
	if t.cp == nil || t.nodes[n].down {
		return
	}
	t.usable[0] += sign * (free[sched.MapSlot] + free[sched.AnySlot])
	t.usable[1] += sign * (free[sched.ReduceSlot] + free[sched.AnySlot])
	t.cp.SlotsFree(t.now, 0, t.usable[0] > 0)
	t.cp.SlotsFree(t.now, 1, t.usable[1] > 0)
}

// slotTaken and slotGiven count one slot of kind k of node n taken or
// given back.
func (t *Tracker) slotTaken(n cluster.NodeID, k sched.SlotKind) {
	var f [3]int
	f[k] = 1
	t.countFree(n, f, -1)
}

func (t *Tracker) slotGiven(n cluster.NodeID, k sched.SlotKind) {
	var f [3]int
	f[k] = 1
	t.countFree(n, f, 1)
}

// capped records that the load cap left free slots of kind k unoffered
// while tasks waited: held by the load manager.
func (t *Tracker) capped(k sched.SlotKind) {
	if t.cp == nil {
		return
	}
	if k != sched.ReduceSlot {
		t.cp.Declined(t.now, 0, sched.HoldLoadCap)
	}
	if k != sched.MapSlot {
		t.cp.Declined(t.now, 1, sched.HoldLoadCap)
	}
}

// declined records that the policy declined offer o.
func (t *Tracker) declined(o sched.Offer) {
	if t.cp == nil {
		return
	}
	if o.Slot != sched.ReduceSlot {
		t.cp.Declined(t.now, 0, sched.HoldRule(t.pol, o, sched.MapTask))
	}
	if o.Slot != sched.MapSlot {
		t.cp.Declined(t.now, 1, sched.HoldRule(t.pol, o, sched.ReduceTask))
	}
}

// launched records attempt a's launch on node n, a map reading from src.
func (t *Tracker) launched(jr *job, a Attempt, n, src cluster.NodeID) {
	if t.cp == nil {
		return
	}
	var reach uint8
	var floor float64
	if a.Kind == sched.MapTask {
		reach = uint8(t.topo.ReachOf(src, n))
		floor = float64(jr.spec.MapInputBytes(int(a.Task), t.topo.Config().BlockBytes())) * jr.spec.Profile.MapSecPerByte
	}
	t.cp.Launched(t.now, key(a), reach, floor)
}

// attemptEnded records attempt a's end; ok says it succeeded.
func (t *Tracker) attemptEnded(jr *job, a Attempt, ok bool) {
	if t.cp == nil {
		return
	}
	o := critpath.Ended
	if ok {
		o = critpath.Succeeded
	}
	t.cp.AttemptEnded(t.now, key(a), o, jr.sj.FinishedMaps == jr.sj.NumMaps)
}

// jobEnded hands a completed job's breakdown to the collector.
func (t *Tracker) jobEnded(jr *job, completed bool) {
	if t.cp == nil {
		return
	}
	b, ok := t.cp.JobEnded(t.now, jr.sj.Index, completed)
	if !ok {
		return
	}
	if t.cfg.CheckInvariants {
		ta := t.now - jr.spec.Submit
		if s := b.Sum(); math.Abs(s-ta) > 1e-3 {
			t.fail("invariant: job %d's time by part sums to %.6f s, its turnaround is %.6f s", jr.spec.ID, s, ta)
		}
		for p, v := range b.Parts {
			if v < -1e-6 {
				t.fail("invariant: job %d spent %.6f s in part %s", jr.spec.ID, v, critpath.Part(p))
			}
		}
	}
	t.col.JobTime(jr.spec.ID, b)
}
