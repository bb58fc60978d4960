package jobtracker

import (
	"fmt"
	"math"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// Submit adds job i, reading input (its placed file; the replicas of
// nodes lost since are dropped here): JobInProgress.initTasks. A job that
// needs a block no replica is left of fails at once.
func (t *Tracker) Submit(i int, input cluster.File) {
	spec := &t.specs[i]
	if t.wipedCount > 0 {
		input = input.Without(func(n cluster.NodeID) bool { return t.nodes[n].wiped })
	}
	sj := &sched.Job{
		Spec: spec, Index: i, Pool: spec.Pool, Submit: spec.Submit,
		NumMaps: spec.NumMaps, NumReduces: spec.NumReduces,
		Input: &input, MapOutputByRack: make([]float64, t.topo.NumRacks()),
	}
	sj.Maps = sched.NewMapIndex(t.topo, sj.Input)
	sj.Maps.UseMisses(t.misses)
	ts := make([]task, spec.NumMaps+spec.NumReduces) // one allocation: neither list grows
	jr := &job{spec: spec, sj: sj, maps: ts[:spec.NumMaps:spec.NumMaps], reduces: ts[spec.NumMaps:]}
	if t.cfg.MaxComputing > 0 {
		jr.copyingOn = map[cluster.NodeID]int{}
	}
	t.jobs[i] = jr
	t.active = append(t.active, sj)
	t.launchableMaps += sj.NumMaps
	if t.cp != nil {
		t.cp.Submitted(t.now, spec.Submit, i, spec.NumMaps, spec.NumReduces)
	}
	t.enableReduces(jr)
	t.epoch++
	if t.jobObs != nil {
		t.jobObs.JobAdded(t, sj)
	}
	if t.wipedCount > 0 {
		t.failIfInputLost(jr)
	}
}

// enableReduces lets jr's reduces launch once the slow-start fraction of
// its maps is done (JobInProgress.scheduleReduces; the model latches it).
func (t *Tracker) enableReduces(jr *job) {
	sj := jr.sj
	if !sj.ReducesEnabled && float64(sj.FinishedMaps) >= t.cfg.SlowStart*float64(sj.NumMaps) {
		sj.ReducesEnabled = true
		t.launchableReduces += sj.PendingReduces()
		t.epoch++
		if t.demObs != nil {
			t.demObs.ReducesEnabled(t, sj)
		}
	}
}

// Offer asks the policy to fill node n's free slots, kind by kind, until
// it declines, or until it has launched Config.LaunchesPerHeartbeat tasks
// there when that is set (JobTracker.assignTasks), or, with
// Config.DynamicMaxAssign, until it has launched more than half the slots
// free when it began (YARN's FairScheduler.attemptScheduling stops once
// the containers it gave no longer fit in half the node's unallocated
// resources: floor(free/2) + 1 of them). Hadoop 1.2.1's Fair
// Scheduler assigns as many tasks a heartbeat as the node has free slots
// (mapred.fairscheduler.assignmultiple, true, with no cap by default);
// its 0.20 version, with assignmultiple false by default, and YARN's Fair
// Scheduler (yarn.scheduler.fair.assignmultiple, false) one. Maps are
// offered first, as those schedulers try maps before reduces, so a node
// limited to one launch starts a reduce only when no map takes its slot.
// A map slot the policy leaves free may take a speculative backup
// (speculate.go).
//
// An offer for a slot kind no pending task could take (no job has a
// pending map, nor an enabled pending reduce) is not made: every policy
// would have to decline it, and on a large cluster such offers are most
// heartbeats. A policy that keeps state on such offers says so with
// sched.IdleOffers and is told of them instead.
func (t *Tracker) Offer(n cluster.NodeID) {
	if len(t.active) == 0 {
		return
	}
	launched := 0
	ns := &t.nodes[n]
	most := t.cfg.LaunchesPerHeartbeat
	if t.cfg.DynamicMaxAssign {
		most = (ns.free[sched.MapSlot]+ns.free[sched.ReduceSlot]+ns.free[sched.AnySlot])/2 + 1
	}
	var capped [3]int
	if t.cfg.LoadCap {
		capped = t.loadCaps(n)
	}
	freed := ns.freed
	ns.freed = [3]int32{}
	for _, k := range [...]sched.SlotKind{sched.MapSlot, sched.ReduceSlot, sched.AnySlot} {
		for ns.free[k] > 0 && t.err == nil && (!t.cfg.LoadCap || t.SlotsOf(n)[k]-ns.free[k] < capped[k]) {
			o := sched.Offer{Node: n, Slot: k, Freed: freed[k] > 0}
			freed[k]--
			if !t.launchableFor(k) {
				if t.idleOffers != nil {
					t.idleOffers.OfferIdle(t, o)
				}
				break
			}
			// Wall time is measured to report what a decision costs; it
			// never reaches a decision or the run's results.
			// Both clock reads are monotonic-only: time.Now would also
			// read the wall clock, a third of the timing's cost.
			t.considered, t.moreConsidered = t.considered[:0], 0
			t0 := time.Since(t.clock)
			d, ok := t.pol.Assign(t, o)
			t.cost.Add(time.Since(t.clock) - t0)
			if !ok {
				t.declined(o)
				break
			}
			t.apply(n, k, d)
			if t.dlog != nil && t.err == nil {
				t.logLaunch(o, d)
			}
			if launched++; launched == most {
				return // the heartbeat's launches are used up
			}
		}
		if t.cfg.LoadCap && ns.free[k] > 0 && t.SlotsOf(n)[k]-ns.free[k] >= capped[k] && t.launchableFor(k) {
			t.capped(k)
		}
		for t.cfg.Speculative && k != sched.ReduceSlot && ns.free[k] > 0 && t.err == nil && (!t.cfg.LoadCap || t.SlotsOf(n)[k]-ns.free[k] < capped[k]) && t.speculate(n, k) {
			if launched++; launched == most {
				return
			}
		}
	}
}

// loadCaps are how many tasks of each slot kind node n may run at this
// offer with Config.LoadCap: Hadoop 1's CapBasedLoadManager's share of
// its slots, ceil(slots x min(1, runnable /
// the cluster's slots)), runnable being the tasks of that kind running
// and waiting to launch when the offer begins (FairScheduler.assignTasks
// reads the pools' demand once a heartbeat), so that a cluster used below
// capacity spreads its tasks over the nodes rather than filling the first
// to heartbeat.
func (t *Tracker) loadCaps(n cluster.NodeID) [3]int {
	slots := t.SlotsOf(n)
	capOf := func(k sched.SlotKind, runnable int) int {
		if t.slotTotal[k] == 0 {
			return slots[k]
		}
		load := min(1, float64(runnable)/float64(t.slotTotal[k]))
		return int(math.Ceil(float64(slots[k]) * load))
	}
	return [3]int{
		sched.MapSlot:    capOf(sched.MapSlot, t.runningKind[sched.MapTask]+t.launchableMaps),
		sched.ReduceSlot: capOf(sched.ReduceSlot, t.runningKind[sched.ReduceTask]+t.launchableReduces),
		sched.AnySlot:    slots[sched.AnySlot],
	}
}

// apply carries out a policy's decision d for node n's free slot of kind
// k: the task launches there (JobInProgress.obtainNewMapTask,
// obtainNewReduceTask). A decision that cannot be carried out is the
// policy's bug: the run's error (Err) names it.
func (t *Tracker) apply(n cluster.NodeID, k sched.SlotKind, d sched.Decision) {
	if err := sched.CheckDecision(t, sched.Offer{Node: n, Slot: k}, d, t.isActive); err != nil {
		t.fail("policy %s %v", t.pol.Name(), err)
		return
	}
	jr := t.jobs[d.Job.Index]
	t.nodes[n].free[k]--
	t.slotTaken(n, k)
	t.running++
	t.col.Decision(d.Rule)
	if d.Kind == sched.MapTask {
		src := cluster.NodeID(-1)
		if d.SourceSet {
			src = d.Source
		}
		t.launchMap(jr, d.Map, n, k, src)
	} else {
		t.launchReduce(jr, n, k)
	}
}

// launchMap starts map i of jr on node n, reading from src, or from the
// replica the driver picks when src is negative or dead.
func (t *Tracker) launchMap(jr *job, i int, n cluster.NodeID, slot sched.SlotKind, src cluster.NodeID) {
	sj := jr.sj
	sj.Maps.Take(i)
	sj.RunningMaps++
	t.runningKind[sched.MapTask]++
	jr.lastMapLaunch = t.now
	jr.started(sched.MapTask, i)
	t.launchableMaps--
	m := &jr.maps[i]
	m.state, m.node, m.slot, m.start = copying, n, slot, t.now
	m.attempt++
	t.hold(n, jr.spec, true, 1)
	src = t.d.ReadSource(sj.Index, i, n, src)
	t.reach = t.topo.ReachOf(src, n)
	t.launched(jr, jr.attempt(sched.MapTask, i), n, src)
	t.col.TaskLaunched(jr.spec.ID, t.now, true, t.topo.ReachOf(src, n), 0)
	if t.tskObs != nil {
		t.tskObs.TaskLaunched(t, sj, sched.MapTask, n)
	}
	t.d.Start(jr.attempt(sched.MapTask, i), n, src)
}

// launchReduce starts jr's lowest pending reduce on node n.
func (t *Tracker) launchReduce(jr *job, n cluster.NodeID, slot sched.SlotKind) {
	sj := jr.sj
	for jr.next < len(jr.reduces) && jr.reduces[jr.next].state != pending {
		jr.next++
	}
	i := jr.next
	r := &jr.reduces[i]
	r.state, r.node, r.slot, r.start = copying, n, slot, t.now
	r.attempt++
	jr.started(sched.ReduceTask, i)
	if jr.copyingOn != nil {
		jr.copyingOn[n]++
		if t.cfg.CheckInvariants && jr.copyingOn[n] > t.cfg.MaxComputing {
			t.fail("invariant: job %d has %d reducers copying on node %d, above max_computing %d", jr.spec.ID, jr.copyingOn[n], n, t.cfg.MaxComputing)
		}
	}
	t.hold(n, jr.spec, false, 1)
	sj.RunningReduces++
	t.runningKind[sched.ReduceTask]++
	t.launchableReduces--
	t.launched(jr, jr.attempt(sched.ReduceTask, i), n, -1)
	t.col.TaskLaunched(jr.spec.ID, t.now, false, 0, float64(sj.FinishedMaps)/float64(sj.NumMaps))
	if t.tskObs != nil {
		t.tskObs.TaskLaunched(t, sj, sched.ReduceTask, n)
	}
	t.d.Start(jr.attempt(sched.ReduceTask, i), n, -1)
}

// hold adds (sign 1) or releases (sign -1) a task's resource demand on n.
func (t *Tracker) hold(n cluster.NodeID, spec *workload.Job, isMap bool, sign float64) {
	cpu, mem := spec.Profile.TaskDemand(isMap)
	t.nodes[n].usedCPU += sign * cpu
	t.nodes[n].usedMem += sign * mem
}

// freeSlot gives back node n's slot of kind k and tells the driver.
func (t *Tracker) freeSlot(n cluster.NodeID, k sched.SlotKind) {
	ns := &t.nodes[n]
	ns.free[k]++
	ns.freed[k]++
	t.slotGiven(n, k)
	t.running--
	if t.cfg.CheckInvariants && ns.free[k] > t.SlotsOf(n)[k] {
		t.fail("invariant: node %d has more free %s slots than it owns", n, k)
	}
	t.d.SlotFreed(n)
}

// MapDone records that map attempt a finished (JobInProgress.
// completedTask): the task's other attempt, if one runs, lost the race
// and is stopped; the output joins the job's log on a's node, its slot
// is freed, the job's reduces may be enabled, and the driver is told of
// the output (MapOutput). A job whose reduces had all finished (its map
// ran again after a loss) completes.
func (t *Tracker) MapDone(a Attempt) {
	jr := t.jobs[a.Job]
	i := int(a.Task)
	m := &jr.maps[i]
	if m.hasBackup {
		t.raceEnded(jr, i, a)
	}
	m.state = done
	m.ran = float32(t.now - m.start)
	jr.ended(sched.MapTask, i)
	t.hold(m.node, jr.spec, true, -1)
	sj := jr.sj
	sj.RunningMaps--
	t.runningKind[sched.MapTask]--
	sj.FinishedMaps++
	t.attemptEnded(jr, a, true)
	out := jr.spec.MapOutputBytes(i, t.topo.Config().BlockBytes())
	rerun := jr.rerun != nil && jr.rerun[i]
	h, ok := jr.hostIndex[m.node]
	if !ok {
		if jr.hostIndex == nil {
			jr.hostIndex = map[cluster.NodeID]int32{}
		}
		h = int32(len(jr.hosts))
		jr.hostIndex[m.node] = h
		jr.hosts = append(jr.hosts, m.node)
	}
	mo := MapOutput{Host: h, Map: int32(i)}
	if sj.NumReduces > 0 {
		mo.PerReduce = out / float64(sj.NumReduces)
	}
	jr.log = append(jr.log, mo)
	sj.MapOutputByRack[t.topo.Rack(m.node)] += out
	t.epoch++
	t.freeSlot(m.node, m.slot)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, sj, sched.MapTask, m.node, false)
	}
	t.enableReduces(jr)
	if sj.FinishedMaps == sj.NumMaps {
		jr.mapsDoneAt = t.now
		for k := range jr.reduces {
			if r := &jr.reduces[k]; r.state == copying {
				jr.addWait(t.now-r.start, t.cfg.MaxComputing > 0)
			}
		}
	}
	t.d.MapOutput(a, m.node, rerun)
	if sj.FinishedReduces == sj.NumReduces && sj.FinishedMaps == sj.NumMaps {
		t.jobDone(jr) // a map run again after its output was lost, which every reduce held
	}
}

// ReduceCopied records that reduce attempt a copied all its input: it
// no longer waits for maps, nor counts among its job's copying reduces.
func (t *Tracker) ReduceCopied(a Attempt) {
	jr := t.jobs[a.Job]
	r := &jr.reduces[a.Task]
	r.state = copied
	t.Phase(a, critpath.Copied)
	if jr.copyingOn != nil {
		jr.copyingOn[r.node]--
	}
}

// ReduceDone records that reduce attempt a wrote its output: its slot is
// freed, and its job completes if it was the last task.
func (t *Tracker) ReduceDone(a Attempt) {
	jr := t.jobs[a.Job]
	i := int(a.Task)
	r := &jr.reduces[i]
	r.state = done
	jr.ended(sched.ReduceTask, i)
	t.hold(r.node, jr.spec, false, -1)
	sj := jr.sj
	sj.RunningReduces--
	t.runningKind[sched.ReduceTask]--
	sj.FinishedReduces++
	t.attemptEnded(jr, a, true)
	t.epoch++
	t.freeSlot(r.node, r.slot)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, sj, sched.ReduceTask, r.node, false)
	}
	if sj.FinishedReduces == sj.NumReduces && sj.FinishedMaps == sj.NumMaps {
		t.jobDone(jr)
	}
}

func (t *Tracker) jobDone(jr *job) {
	jr.done = true
	t.col.JobFinished(jr.spec.ID, t.now)
	t.jobEnded(jr, true)
	t.leave(jr, false)
}

// leave takes a job that completed or failed out of the run.
func (t *Tracker) leave(jr *job, failed bool) {
	t.finished++
	t.col.ReduceWaiting(jr.waitS, jr.hoardS)
	for k, a := range t.active {
		if a == jr.sj {
			t.active = append(t.active[:k], t.active[k+1:]...)
			break
		}
	}
	t.epoch++
	if t.jobObs != nil {
		t.jobObs.JobRemoved(t, jr.sj)
	}
	// Free what only a running job needs, its map index and block
	// placement too: otherwise a run's live memory grows with every job
	// it has seen, not with its backlog.
	jr.maps, jr.reduces, jr.log, jr.hosts, jr.hostIndex = nil, nil, nil, nil, nil
	jr.sj.Maps.Release()
	jr.sj.Maps, jr.sj.Input = nil, nil
	t.d.JobLeft(jr.sj.Index, failed)
}

// Preempt asks preempting policy p which attempts to kill and kills them
// (Kill). It reports false, and the run's error names the policy, when p
// asks to kill an attempt that is not running.
func (t *Tracker) Preempt(p sched.Preempter) bool {
	for _, ref := range p.Preempt(t) {
		if !t.Kill(ref) {
			t.fail("policy %s asked to kill %s %d of job %d, which is not running", t.pol.Name(), ref.Kind, ref.Index, jobID(ref.Job))
			return false
		}
	}
	return true
}

func jobID(j *sched.Job) int {
	if j == nil {
		return -1
	}
	return j.Index
}

// Kill ends a running attempt (TaskInProgress.killTask): its work is lost
// (Hadoop treats a killed task as if it never started), the driver stops
// it, its slot is freed and its task returns to pending; kills do not
// count toward a task's failed attempts. It reports false for an attempt
// that is not running.
func (t *Tracker) Kill(ref sched.TaskRef) bool {
	j := ref.Job
	if j == nil || j.Index < 0 || j.Index >= len(t.jobs) || t.jobs[j.Index] == nil || t.jobs[j.Index].done {
		return false
	}
	jr := t.jobs[j.Index]
	if !jr.isRunning(ref.Kind, ref.Index) {
		return false
	}
	node, slot, start := t.endAttempt(jr, ref.Kind, ref.Index, Killed)
	t.afterKill(jr, ref.Kind, node, slot, start)
	return true
}

// endAttempt takes task i's running attempt off the cluster, as killing
// or failing it does: the driver stops it, its resources and place in
// the job's running list are released and the task is pending again
// (counted launchable), its attempt number moved on so that the ended
// attempt's reports are stale. It returns where the attempt ran and when
// it started; the caller frees the slot and tells the policy. The task's
// failure count is kept.
func (t *Tracker) endAttempt(jr *job, k sched.TaskKind, i int, why StopReason) (node cluster.NodeID, slot sched.SlotKind, start float64) {
	sj := jr.sj
	if k == sched.MapTask {
		m := &jr.maps[i]
		if m.hasBackup {
			t.endBackup(jr, i, why) // a task that stops runs no attempt
		}
		t.d.Stop(jr.attempt(k, i), why)
		t.attemptEnded(jr, jr.attempt(k, i), false)
		m.attempt++
		m.state = pending
		jr.ended(sched.MapTask, i)
		sj.RunningMaps--
		t.runningKind[sched.MapTask]--
		sj.Maps.Return(i)
		t.launchableMaps++
		t.hold(m.node, jr.spec, true, -1)
		return m.node, m.slot, m.start
	}
	t.d.Stop(jr.attempt(k, i), why)
	t.attemptEnded(jr, jr.attempt(k, i), false)
	r := &jr.reduces[i]
	if r.state == copying {
		if jr.copyingOn != nil {
			jr.copyingOn[r.node]--
		}
		if sj.FinishedMaps < sj.NumMaps {
			jr.addWait(t.now-r.start, t.cfg.MaxComputing > 0)
		}
	}
	node, slot, start = r.node, r.slot, r.start
	r.attempt++
	r.state = pending
	jr.ended(sched.ReduceTask, i)
	jr.next = min(jr.next, i)
	sj.RunningReduces--
	t.runningKind[sched.ReduceTask]--
	t.launchableReduces++ // a launched reduce was enabled, and is again pending
	t.hold(node, jr.spec, false, -1)
	return node, slot, start
}

func (t *Tracker) afterKill(jr *job, k sched.TaskKind, n cluster.NodeID, slot sched.SlotKind, start float64) {
	t.epoch++
	t.col.TaskKilled(t.now - start)
	t.freeSlot(n, slot)
	if t.tskObs != nil {
		t.tskObs.TaskEnded(t, jr.sj, k, n, true)
	}
}

// AttemptFailed ends attempt a as failed (JobInProgress.failedTask): its
// work is lost as a killed attempt's is, it is counted with the
// task-seconds it ran, the policy is told, and the task is pending again,
// or, after Config.MaxAttempts failures, its job fails. why, when not
// empty, says why it failed, and a job it fails says so too; fault says
// it is a node loss's doing (a block with no live replica): the attempt
// counts among the faults' too, and so does a job it fails.
func (t *Tracker) AttemptFailed(a Attempt, why string, fault bool) {
	jr := t.jobs[a.Job]
	k, i := a.Kind, int(a.Task)
	ts := jr.task(k, i)
	if a.N&BackupAttempt != 0 {
		// A backup's failure ends the backup alone, the task's own
		// attempt runs on; it counts among the task's failures, as every
		// attempt's does in Hadoop's TaskInProgress.
		ts.failures++
		t.epoch++
		if start, ok := t.stopBackup(jr, i, Failed); ok {
			t.col.TaskFailed(t.now - start)
		}
	} else {
		node, slot, start := t.endAttempt(jr, k, i, Failed)
		ts.failures++
		t.epoch++
		t.col.TaskFailed(t.now - start)
		if fault {
			t.col.FaultKilled(t.now - start)
		}
		t.freeSlot(node, slot)
		if t.tskObs != nil {
			t.tskObs.TaskEnded(t, jr.sj, k, node, true)
		}
	}
	failures := ts.failures
	if int(failures) >= t.cfg.MaxAttempts {
		reason := fmt.Sprintf("%s %d failed %d attempts (engine.max_attempts %d) at t=%.3f s", k, i, failures, t.cfg.MaxAttempts, t.now)
		if why != "" {
			reason += ": " + why
		}
		if fault {
			t.col.FaultFailedJob()
		}
		t.failJob(jr, reason)
	}
}

// failJob ends a job that cannot complete (JobInProgress.fail): its
// running attempts are killed, latest launched first (counted as killed,
// and told to the policy), its pending tasks are no longer offered, and
// it leaves the run with reason in jobs.csv.
func (t *Tracker) failJob(jr *job, reason string) {
	sj := jr.sj
	jr.done = true // the driver passes over its attempts' late events
	for len(jr.running) > 0 {
		id := jr.running[len(jr.running)-1]
		node, slot, start := t.endAttempt(jr, id.Kind, int(id.Index), JobFailed)
		t.col.TaskKilled(t.now - start)
		t.freeSlot(node, slot)
		if t.tskObs != nil {
			t.tskObs.TaskEnded(t, sj, id.Kind, node, true)
		}
	}
	t.launchableMaps -= sj.PendingMaps()
	if sj.ReducesEnabled {
		t.launchableReduces -= sj.PendingReduces()
	}
	t.failed++
	t.col.JobFailed(jr.spec.ID, t.now, reason)
	t.jobEnded(jr, false)
	t.leave(jr, true)
}
