package master

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/wire"
	"github.com/mrsched/mrsched/workload"
)

type taskState uint8

const (
	pending taskState = iota
	running
	done
)

type task struct {
	state    taskState
	node     cluster.NodeID
	slot     sched.SlotKind
	start    float64
	attempt  int
	failures int
	ran      float64        // a finished map's run time, for the work its lost output wastes
	digest   content.Digest // a reduce's output
}

func (t *task) running() bool { return t.state == running }

type jobRun struct {
	spec    *workload.Job
	sj      *sched.Job
	plan    *content.Plan
	maps    []task
	reduces []task
	// mapNode is the node holding each finished map's output, -1 before.
	mapNode []cluster.NodeID
	// reduceNodes counts the job's running reduce attempts by node, so
	// that finished map outputs are announced where they are fetched.
	reduceNodes map[cluster.NodeID]int
	next        int // lowest reduce index that may be pending
	// waitS is reducer-seconds spent holding a slot while the job's maps
	// ran (all of it hoarding: the testbed runs no copy-compute split).
	waitS      float64
	mapsDoneAt float64 // when the maps were last all done
	done       bool
	failed     bool
	checksum   content.Digest
	// mapsBack is set once a loss sent maps back to pending (at
	// mapsBackAt); lastMapLaunch is its last map launch: the rule for
	// maps that starve (freeForMaps) reads them.
	mapsBack                  bool
	mapsBackAt, lastMapLaunch float64
	// fetchFails counts the fetch-failure reports about each finished
	// map's current output (Hadoop's JobInProgress keeps the same count
	// per map attempt).
	fetchFails []int
}

func (m *Master) submit(i int) {
	spec := &m.cfg.Jobs[i]
	t := m.cfg.Topology
	f := sched.InputFile(t, m.cfg.Seed, spec)
	if len(m.lost) > 0 {
		// Its input was written before the run: the replicas of nodes
		// lost since are gone (a restored node comes back empty).
		f = f.Without(func(n cluster.NodeID) bool { return slices.Contains(m.lost, n) })
	}
	sj := &sched.Job{
		Spec: spec, Index: i, Pool: spec.Pool, Submit: spec.Submit,
		NumMaps: spec.NumMaps, NumReduces: spec.NumReduces,
		Input: &f, MapOutputByRack: make([]float64, t.NumRacks()),
	}
	sj.Maps = sched.NewMapIndex(t, sj.Input)
	jr := &jobRun{spec: spec, sj: sj, plan: &m.cfg.Plans[i], maps: make([]task, spec.NumMaps),
		reduces: make([]task, spec.NumReduces), mapNode: make([]cluster.NodeID, spec.NumMaps),
		reduceNodes: map[cluster.NodeID]int{}, fetchFails: make([]int, spec.NumMaps)}
	for k := range jr.mapNode {
		jr.mapNode[k] = -1
	}
	m.jobs[i] = jr
	m.active = append(m.active, sj)
	m.progressed()
	m.launchableMaps += sj.NumMaps
	m.enableReduces(jr)
	m.epoch++
	if m.jobObs != nil {
		m.jobObs.JobAdded(m, sj)
	}
	if len(m.lost) > 0 {
		m.failIfInputLost(jr)
	}
}

func (m *Master) enableReduces(jr *jobRun) {
	sj := jr.sj
	if !sj.ReducesEnabled && float64(sj.FinishedMaps) >= *m.cfg.Engine.SlowStart*float64(sj.NumMaps) {
		sj.ReducesEnabled = true
		m.launchableReduces += sj.PendingReduces()
		m.epoch++
		if m.demObs != nil {
			m.demObs.ReducesEnabled(m, sj)
		}
	}
}

func (m *Master) apply(n cluster.NodeID, k sched.SlotKind, d sched.Decision) {
	m.nodes[n].free[k]--
	m.lastProgress = m.Now()
	m.progressed()
	m.col.Decision(d.Rule)
	jr := m.jobs[d.Job.Index]
	if d.Kind == sched.MapTask {
		src := cluster.NodeID(-1)
		if d.SourceSet {
			src = d.Source
		}
		m.launchMap(jr, d.Map, n, k, src)
	} else {
		m.launchReduce(jr, n, k)
	}
}

func (m *Master) hold(n cluster.NodeID, spec *workload.Job, isMap bool, sign float64) {
	cpu, mem := spec.Profile.TaskDemand(isMap)
	m.nodes[n].usedCPU += sign * cpu
	m.nodes[n].usedMem += sign * mem
}

// rate is a task's compute rate on the testbed: the job's processing rate
// (bytes per CPU second) times the bandwidth scale, so that its scaled
// bytes take the scaled time.
func (m *Master) rate(secPerByte float64) float64 {
	if !(secPerByte > 0) {
		return 0
	}
	return m.cfg.BandwidthScale / secPerByte
}

func (m *Master) launchMap(jr *jobRun, i int, n cluster.NodeID, slot sched.SlotKind, src cluster.NodeID) {
	sj := jr.sj
	sj.Maps.Take(i)
	sj.RunningMaps++
	m.launchableMaps--
	now := m.Now()
	t := &jr.maps[i]
	t.state, t.node, t.slot, t.start = running, n, slot, now
	t.attempt++
	jr.lastMapLaunch = now
	m.hold(n, jr.spec, true, 1)
	// The replicas in the order the map tries them, as the simulator
	// orders them (cluster.ReadOrder): it reads from the first, and from
	// the next should that one's node die.
	order := cluster.ReadOrder(nil, m.cfg.Topology, sj.Input.BlockReplicas(i), n, src, m.rng)
	src = order[0]
	m.col.TaskLaunched(jr.spec.ID, now, true, m.cfg.Topology.ReachOf(src, n), 0)
	if m.tskObs != nil {
		m.tskObs.TaskLaunched(m, sj, sched.MapTask, n)
	}
	parts := make([]int64, sj.NumReduces)
	for r := range parts {
		parts[r] = jr.plan.PartitionBytes(i, r)
	}
	var others []int
	for _, rep := range order[1:] {
		others = append(others, int(rep))
	}
	m.send(n, wire.Msg{Launch: &wire.Launch{
		Attempt: wire.Attempt{Job: jr.spec.ID, Kind: wire.Map, Task: i, Attempt: t.attempt},
		Seed:    m.cfg.Seed, JobName: jr.spec.Name, BytesPerSec: m.rate(jr.spec.Profile.MapSecPerByte),
		StartupS: m.cfg.Engine.TaskStartupS * m.cfg.TimeScale,
		Map:      &wire.MapTask{Source: int(src), Others: others, InputBytes: jr.plan.Input[i], Partitions: parts},
	}})
}

func (m *Master) launchReduce(jr *jobRun, n cluster.NodeID, slot sched.SlotKind) {
	sj := jr.sj
	for jr.next < len(jr.reduces) && jr.reduces[jr.next].state != pending {
		jr.next++
	}
	i := jr.next
	now := m.Now()
	t := &jr.reduces[i]
	t.state, t.node, t.slot, t.start = running, n, slot, now
	t.attempt++
	m.hold(n, jr.spec, false, 1)
	sj.RunningReduces++
	m.launchableReduces--
	jr.reduceNodes[n]++
	m.col.TaskLaunched(jr.spec.ID, now, false, 0, float64(sj.FinishedMaps)/float64(sj.NumMaps))
	if m.tskObs != nil {
		m.tskObs.TaskLaunched(m, sj, sched.ReduceTask, n)
	}
	reps := m.placer.PlaceBlock(nil, n)
	pipeline := make([]int, 0, len(reps)-1)
	for _, r := range reps[1:] {
		pipeline = append(pipeline, int(r))
	}
	var ready []wire.MapOutput
	for k, at := range jr.mapNode {
		if at >= 0 {
			ready = append(ready, wire.MapOutput{Map: k, Node: int(at), RunS: jr.maps[k].ran * m.cfg.TimeScale})
		}
	}
	m.send(n, wire.Msg{Launch: &wire.Launch{
		Attempt: wire.Attempt{Job: jr.spec.ID, Kind: wire.Reduce, Task: i, Attempt: t.attempt},
		Seed:    m.cfg.Seed, JobName: jr.spec.Name, BytesPerSec: m.rate(jr.spec.Profile.ReduceSecPerByte),
		StartupS: m.cfg.Engine.TaskStartupS * m.cfg.TimeScale,
		Reduce: &wire.ReduceTask{Maps: sj.NumMaps, ParallelCopies: m.cfg.Engine.ParallelCopies,
			OutputBytes: jr.plan.Output[i], Pipeline: pipeline, Ready: ready},
	}})
}

// send queues msg to node n's worker; a worker that is down (killed,
// exited, expired) is not written to.
func (m *Master) send(n cluster.NodeID, msg wire.Msg) {
	if m.lives[n].down {
		return
	}
	if o := m.out[n]; !o.put(msg) && !o.full {
		o.full = true
		m.events = append(m.events, fmt.Sprintf("t=%.3f s: node %d's worker stopped reading its messages (%d queued)", m.Now(), n, outboxDepth))
	}
}

// taskOf finds the live attempt a worker reports on, or nil for a stale
// one (killed, or of a finished job).
func (m *Master) taskOf(n cluster.NodeID, a wire.Attempt) (*jobRun, *task) {
	if a.Job < 0 || a.Job >= len(m.jobs) || m.jobs[a.Job] == nil || m.jobs[a.Job].done {
		return nil, nil
	}
	jr := m.jobs[a.Job]
	ts := jr.maps
	if a.Kind == wire.Reduce {
		ts = jr.reduces
	}
	if a.Task < 0 || a.Task >= len(ts) {
		return nil, nil
	}
	t := &ts[a.Task]
	if t.state != running || t.attempt != a.Attempt || t.node != n {
		return nil, nil
	}
	return jr, t
}

// ended takes an attempt's end reported by node n.
func (m *Master) ended(n cluster.NodeID, e wire.Ended) {
	jr, t := m.taskOf(n, e.Attempt)
	if t == nil {
		return
	}
	m.lastProgress = m.Now()
	m.progressed()
	if e.Err != "" {
		m.attemptFailed(jr, e.Attempt, e.Err, e.NoReplica)
		return
	}
	if e.Attempt.Kind == wire.Map {
		m.mapDone(jr, e.Attempt.Task)
		return
	}
	d, err := content.ParseDigest(e.Digest)
	if err != nil {
		m.attemptFailed(jr, e.Attempt, "its output digest: "+err.Error(), false)
		return
	}
	t.digest = d
	m.reduceDone(jr, e.Attempt.Task)
}

func (m *Master) freeSlot(n cluster.NodeID, k sched.SlotKind) {
	m.nodes[n].free[k]++
	m.nodes[n].freed[k]++
}

func (m *Master) mapDone(jr *jobRun, i int) {
	t := &jr.maps[i]
	t.state = done
	t.ran = m.Now() - t.start
	m.hold(t.node, jr.spec, true, -1)
	sj := jr.sj
	sj.RunningMaps--
	sj.FinishedMaps++
	jr.mapNode[i] = t.node
	sj.MapOutputByRack[m.cfg.Topology.Rack(t.node)] += jr.spec.MapOutputBytes(i, m.cfg.Topology.Config().BlockBytes())
	m.epoch++
	m.freeSlot(t.node, t.slot)
	if m.tskObs != nil {
		m.tskObs.TaskEnded(m, sj, sched.MapTask, t.node, false)
	}
	m.enableReduces(jr)
	now := m.Now()
	if sj.FinishedMaps == sj.NumMaps {
		jr.mapsDoneAt = now
		for k := range jr.reduces {
			if r := &jr.reduces[k]; r.state == running {
				jr.waitS += now - r.start
			}
		}
	}
	m.announce(jr, wire.MapOutput{Map: i, Node: int(t.node), RunS: t.ran * m.cfg.TimeScale})
}

// announce tells the nodes running jr's reduces where map outputs are, or
// that they are obsolete (node -1).
func (m *Master) announce(jr *jobRun, outs ...wire.MapOutput) {
	out := &wire.MapOutputs{Job: jr.spec.ID, Outputs: outs}
	nodes := make([]cluster.NodeID, 0, len(jr.reduceNodes))
	for n := range jr.reduceNodes {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		m.send(n, wire.Msg{MapOutputs: out})
	}
}

func (m *Master) reduceDone(jr *jobRun, i int) {
	t := &jr.reduces[i]
	t.state = done
	m.releaseReduce(jr, t)
	sj := jr.sj
	sj.RunningReduces--
	sj.FinishedReduces++
	m.epoch++
	m.freeSlot(t.node, t.slot)
	if m.tskObs != nil {
		m.tskObs.TaskEnded(m, sj, sched.ReduceTask, t.node, false)
	}
	if sj.FinishedReduces == sj.NumReduces && sj.FinishedMaps == sj.NumMaps {
		m.jobDone(jr)
	}
}

func (m *Master) releaseReduce(jr *jobRun, t *task) {
	m.hold(t.node, jr.spec, false, -1)
	if jr.reduceNodes[t.node]--; jr.reduceNodes[t.node] <= 0 {
		delete(jr.reduceNodes, t.node)
	}
}

func (m *Master) jobDone(jr *jobRun) {
	jr.done = true
	m.finished++
	m.col.JobFinished(jr.spec.ID, m.Now())
	m.col.ReduceWaiting(jr.waitS, jr.waitS)
	outs := make([]content.Digest, len(jr.reduces))
	for r := range jr.reduces {
		outs[r] = jr.reduces[r].digest
	}
	jr.checksum = content.JobChecksum(outs)
	if k := slices.Index(m.active, jr.sj); k >= 0 {
		m.active = slices.Delete(m.active, k, k+1)
	}
	m.epoch++
	if m.jobObs != nil {
		m.jobObs.JobRemoved(m, jr.sj)
	}
	if m.cfg.Progress != nil {
		m.cfg.Progress(m.Now(), m.finished, len(m.jobs))
	}
}

// attemptFailed returns a failed attempt's task to pending, as a kill
// does, and fails the job once the task has failed engine.max_attempts
// times (Hadoop's mapred.map.max.attempts, 4): a task that keeps failing
// on the testbed is a broken transfer or store, or a block with no replica
// left, and its job fails with the reason, as in the simulator.
//
// An attempt that could reach no replica of its block (noReplica) in a
// run that has lost nodes counts among the faults' killed attempts too,
// and a job it fails among the faults' failed jobs, as in the simulator.
func (m *Master) attemptFailed(jr *jobRun, a wire.Attempt, why string, noReplica bool) {
	kind, ts := sched.MapTask, jr.maps
	if a.Kind == wire.Reduce {
		kind, ts = sched.ReduceTask, jr.reduces
	}
	t := &ts[a.Task]
	m.failed = append(m.failed, a.String()+" on node "+strconv.Itoa(int(t.node))+": "+why)
	t.failures++
	start := m.stop(jr, kind, a.Task)
	m.col.TaskFailed(m.Now() - start)
	// A block out of reach is a fault's doing when nodes were lost; else
	// the network's (a reset, a timeout), an ordinary failure.
	noReplica = noReplica && m.faultsOn()
	if noReplica {
		m.col.FaultKilled(m.Now() - start)
	}
	if t.failures >= m.cfg.Engine.MaxAttempts {
		if noReplica {
			m.col.FaultFailedJob()
		}
		m.failJob(jr, fmt.Sprintf("%s %d failed %d attempts (engine.max_attempts %d) at t=%.3f s: %s",
			kind, a.Task, t.failures, m.cfg.Engine.MaxAttempts, m.Now(), why))
	}
}

// failJob ends jr as failed: its running attempts are killed, its pending
// tasks dropped, and it leaves the cluster with reason in jobs.csv.
func (m *Master) failJob(jr *jobRun, reason string) {
	sj := jr.sj
	now := m.Now()
	for _, ts := range []struct {
		kind sched.TaskKind
		wk   wire.TaskKind
		list []task
	}{{sched.MapTask, wire.Map, jr.maps}, {sched.ReduceTask, wire.Reduce, jr.reduces}} {
		for i := range ts.list {
			if t := &ts.list[i]; t.state == running {
				m.send(t.node, wire.Msg{Kill: &wire.Attempt{Job: jr.spec.ID, Kind: ts.wk, Task: i, Attempt: t.attempt}})
				start := m.stop(jr, ts.kind, i)
				m.col.TaskKilled(now - start)
			}
		}
	}
	m.launchableMaps -= sj.PendingMaps()
	if sj.ReducesEnabled {
		m.launchableReduces -= sj.PendingReduces()
	}
	jr.done, jr.failed = true, true
	m.finished++
	m.col.JobFailed(jr.spec.ID, now, reason)
	if k := slices.Index(m.active, sj); k >= 0 {
		m.active = slices.Delete(m.active, k, k+1)
	}
	m.epoch++
	if m.jobObs != nil {
		m.jobObs.JobRemoved(m, sj)
	}
	if m.cfg.Progress != nil {
		m.cfg.Progress(now, m.finished, len(m.jobs))
	}
}

// kill ends a running attempt at a policy's request (preemption): the
// worker drops it, and its task returns to pending.
func (m *Master) kill(ref sched.TaskRef) bool {
	if !m.isActive(ref.Job) {
		return false
	}
	jr := m.jobs[ref.Job.Index]
	ts := jr.maps
	kind := wire.Map
	if ref.Kind == sched.ReduceTask {
		ts, kind = jr.reduces, wire.Reduce
	}
	if ref.Index < 0 || ref.Index >= len(ts) || ts[ref.Index].state != running {
		return false
	}
	t := &ts[ref.Index]
	m.send(t.node, wire.Msg{Kill: &wire.Attempt{Job: jr.spec.ID, Kind: kind, Task: ref.Index, Attempt: t.attempt}})
	start := m.stop(jr, ref.Kind, ref.Index)
	m.col.TaskKilled(m.Now() - start)
	return true
}

// stop returns a running task to pending, losing its attempt's work, as
// the simulator's kill does, and returns when the attempt started; the
// caller counts it (killed, failed).
func (m *Master) stop(jr *jobRun, k sched.TaskKind, i int) float64 {
	sj := jr.sj
	now := m.Now()
	var t *task
	if k == sched.MapTask {
		t = &jr.maps[i]
		m.hold(t.node, jr.spec, true, -1)
		sj.RunningMaps--
		sj.Maps.Return(i)
		m.launchableMaps++
	} else {
		t = &jr.reduces[i]
		m.releaseReduce(jr, t)
		if sj.FinishedMaps < sj.NumMaps {
			jr.waitS += now - t.start
		}
		sj.RunningReduces--
		jr.next = min(jr.next, i)
		m.launchableReduces++
	}
	t.state = pending
	m.epoch++
	if !m.lives[t.node].gone {
		m.freeSlot(t.node, t.slot)
	}
	if m.tskObs != nil {
		m.tskObs.TaskEnded(m, sj, k, t.node, true)
	}
	return t.start
}
