package master

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/wire"
)

// The master drives the run's job tracker (m.jt), which keeps the jobs'
// and tasks' bookkeeping as the simulator's engine has it kept; the
// master is its jobtracker.Driver, carrying out its decisions with wire
// messages, and keeps what only the testbed needs: where each attempt
// runs, where the maps' outputs are, the reduces' digests.

// driver is the master as the job tracker's jobtracker.Driver: a type of
// its own, so that the master's API does not carry the driver's methods.
type driver Master

var _ jobtracker.Driver = (*driver)(nil)

// placed is where a task's current attempt runs, and which it is.
type placed struct {
	node cluster.NodeID
	n    uint32
	live bool
	// progress is a map attempt's progress as of its node's last
	// heartbeat, which speculation reads as Hadoop's JobTracker does.
	progress float64
}

// jobRun is what the master keeps of a job beyond the tracker's
// bookkeeping.
type jobRun struct {
	plan *content.Plan
	// mapAt and reduceAt are the tasks' running attempts; backupAt the
	// maps' speculative backups (engine.speculative), which run beside
	// them, and backupStart when each launched.
	mapAt, reduceAt, backupAt []placed
	backupStart               []float64
	// mapStart is when each map's current attempt launched, mapRunS how
	// long its finished attempt ran (announced to the reduces, which
	// count the work a lost output wastes).
	mapStart, mapRunS []float64
	// mapNode is the node holding each finished map's output, -1 before.
	mapNode []cluster.NodeID
	// reduceNodes counts the job's running reduce attempts by node, so
	// that finished map outputs are announced where they are fetched.
	reduceNodes map[cluster.NodeID]int
	digests     []content.Digest // the reduces' outputs
	done        bool
	failed      bool
	checksum    content.Digest
	// fetchFails counts the fetch-failure reports about each finished
	// map's current output (Hadoop's JobInProgress keeps the same count
	// per map attempt).
	fetchFails []int
}

func (jr *jobRun) at(k sched.TaskKind, i int) *placed {
	if k == sched.MapTask {
		return &jr.mapAt[i]
	}
	return &jr.reduceAt[i]
}

// attempt is where attempt n of task i of kind k runs: a map's backup
// (jobtracker.BackupAttempt) or the task's own attempt.
func (jr *jobRun) attempt(k sched.TaskKind, i int, n uint32) *placed {
	if k == sched.MapTask && n&jobtracker.BackupAttempt != 0 {
		if jr.backupAt == nil {
			jr.backupAt, jr.backupStart = make([]placed, len(jr.mapAt)), make([]float64, len(jr.mapAt))
		}
		return &jr.backupAt[i]
	}
	return jr.at(k, i)
}

func (m *Master) submit(i int) {
	spec := &m.cfg.Jobs[i]
	jr := &jobRun{plan: &m.cfg.Plans[i],
		mapAt: make([]placed, spec.NumMaps), reduceAt: make([]placed, spec.NumReduces),
		mapStart: make([]float64, spec.NumMaps), mapRunS: make([]float64, spec.NumMaps),
		mapNode: make([]cluster.NodeID, spec.NumMaps), reduceNodes: map[cluster.NodeID]int{},
		digests: make([]content.Digest, spec.NumReduces), fetchFails: make([]int, spec.NumMaps)}
	for k := range jr.mapNode {
		jr.mapNode[k] = -1
	}
	m.jobs[i] = jr
	m.progressed()
	// Its input was written before the run; the tracker drops the
	// replicas of nodes lost since (a restored node comes back empty).
	m.jt.Submit(i, sched.InputFile(m.cfg.Topology, m.cfg.Seed, spec))
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

// ReadSource orders the replicas of block i as the map launched on node n
// tries them, as the simulator orders them (cluster.ReadOrder): it reads
// from the first, and from the next should that one's node die. Start
// sends the rest.
func (d *driver) ReadSource(job, i int, n, chosen cluster.NodeID) cluster.NodeID {
	m := (*Master)(d)
	m.order = cluster.ReadOrder(m.order[:0], m.cfg.Topology, m.jt.Job(job).Input.BlockReplicas(i), n, chosen, m.rng)
	return m.order[0]
}

// Start launches attempt a on node n's worker: a map reading from src
// (then the replicas ReadSource ordered), a reduce with the outputs
// already made and its output's replica pipeline.
func (d *driver) Start(a jobtracker.Attempt, n, src cluster.NodeID) {
	m := (*Master)(d)
	jr := m.jobs[a.Job]
	spec := &m.cfg.Jobs[a.Job]
	i := int(a.Task)
	now := m.Now()
	m.lastProgress = now
	m.progressed()
	*jr.attempt(a.Kind, i, a.N) = placed{node: n, n: a.N, live: true}
	wa := wireAttempt(a)
	if a.Kind == sched.MapTask {
		if a.N&jobtracker.BackupAttempt != 0 {
			jr.backupStart[i] = now
		} else {
			jr.mapStart[i] = now
		}
		parts := make([]int64, spec.NumReduces)
		for r := range parts {
			parts[r] = jr.plan.PartitionBytes(i, r)
		}
		var others []int
		for _, rep := range m.order[1:] {
			others = append(others, int(rep))
		}
		m.send(n, wire.Msg{Launch: &wire.Launch{
			Attempt: wa, Seed: m.cfg.Seed, JobName: spec.Name, BytesPerSec: m.rate(spec.Profile.MapSecPerByte),
			StartupS: m.cfg.Engine.TaskStartupS * m.cfg.TimeScale,
			Map:      &wire.MapTask{Source: int(src), Others: others, InputBytes: jr.plan.Input[i], Partitions: parts},
		}})
		return
	}
	jr.reduceNodes[n]++
	reps := m.placer.PlaceBlock(nil, n)
	pipeline := make([]int, 0, len(reps)-1)
	for _, r := range reps[1:] {
		pipeline = append(pipeline, int(r))
	}
	var ready []wire.MapOutput
	for k, at := range jr.mapNode {
		if at >= 0 {
			ready = append(ready, wire.MapOutput{Map: k, Node: int(at), RunS: jr.mapRunS[k] * m.cfg.TimeScale})
		}
	}
	m.send(n, wire.Msg{Launch: &wire.Launch{
		Attempt: wa, Seed: m.cfg.Seed, JobName: spec.Name, BytesPerSec: m.rate(spec.Profile.ReduceSecPerByte),
		StartupS: m.cfg.Engine.TaskStartupS * m.cfg.TimeScale,
		Reduce: &wire.ReduceTask{Maps: spec.NumMaps, ParallelCopies: m.cfg.Engine.ParallelCopies,
			OutputBytes: jr.plan.Output[i], Pipeline: pipeline, Ready: ready},
	}})
}

// Stop has the worker drop attempt a, unless it ended already (it
// failed) or its node is lost.
func (d *driver) Stop(a jobtracker.Attempt, why jobtracker.StopReason) {
	m := (*Master)(d)
	jr := m.jobs[a.Job]
	at := jr.attempt(a.Kind, int(a.Task), a.N)
	if why != jobtracker.Failed && why != jobtracker.NodeLost {
		wa := wireAttempt(a)
		m.send(at.node, wire.Msg{Kill: &wa})
	}
	at.live = false
	if a.Kind == sched.ReduceTask {
		m.releaseReduce(jr, at.node)
	}
}

// MapOutput announces map attempt a's output on host to the nodes running
// the job's reduces.
func (d *driver) MapOutput(a jobtracker.Attempt, host cluster.NodeID, _ bool) {
	m := (*Master)(d)
	jr := m.jobs[a.Job]
	i := int(a.Task)
	start := jr.mapStart[i]
	if a.N&jobtracker.BackupAttempt != 0 { // the backup won its race
		start = jr.backupStart[i]
	}
	jr.attempt(sched.MapTask, i, a.N).live = false
	jr.mapNode[i] = host
	jr.mapRunS[i] = m.Now() - start
	jr.fetchFails[i] = 0
	m.announce(jr, int(a.Job), wire.MapOutput{Map: i, Node: int(host), RunS: jr.mapRunS[i] * m.cfg.TimeScale})
}

// OutputsLost tells the job's reduces that the outputs of maps on host
// are obsolete (node -1): the maps run again.
func (d *driver) OutputsLost(job int, _ cluster.NodeID, maps []int) {
	m := (*Master)(d)
	jr := m.jobs[job]
	obsolete := make([]wire.MapOutput, 0, len(maps))
	for _, i := range maps {
		jr.mapNode[i] = -1
		jr.fetchFails[i] = 0
		obsolete = append(obsolete, wire.MapOutput{Map: i, Node: -1})
	}
	m.announce(jr, job, obsolete...)
}

// SlotFreed queues node n for an offer at the end of the handler: a slot
// a master-side kill freed is offered at once, as in the simulator, not
// at the node's next heartbeat.
func (d *driver) SlotFreed(n cluster.NodeID) {
	m := (*Master)(d)
	if !m.dirty[n] {
		m.dirty[n] = true
		m.dirtyList = append(m.dirtyList, n)
	}
}

// JobLeft notes a job's end: a completed job's checksum is its reduces'.
func (d *driver) JobLeft(job int, failed bool) {
	m := (*Master)(d)
	jr := m.jobs[job]
	jr.done, jr.failed = true, failed
	if !failed {
		jr.checksum = content.JobChecksum(jr.digests)
	}
	if m.cfg.Progress != nil {
		m.cfg.Progress(m.Now(), m.jt.Finished(), len(m.jobs))
	}
}

// Progress is running map attempt a's progress as its node's last
// heartbeat reported it (0 before any).
func (d *driver) Progress(a jobtracker.Attempt) float64 {
	m := (*Master)(d)
	return m.jobs[a.Job].attempt(a.Kind, int(a.Task), a.N).progress
}

// mapProgress records the map attempts' progress node n's heartbeat
// reports.
func (m *Master) mapProgress(n cluster.NodeID, ps []wire.MapProgress) {
	for _, p := range ps {
		if a, ok := m.live(n, p.Attempt); ok && a.Kind == sched.MapTask {
			m.jobs[a.Job].attempt(a.Kind, int(a.Task), a.N).progress = min(max(p.Done, 0), 1)
		}
	}
}

func wireAttempt(a jobtracker.Attempt) wire.Attempt {
	k := wire.Map
	if a.Kind == sched.ReduceTask {
		k = wire.Reduce
	}
	return wire.Attempt{Job: int(a.Job), Kind: k, Task: int(a.Task), Attempt: int(a.N)}
}

// announce tells the nodes running the job's reduces where map outputs
// are, or that they are obsolete (node -1).
func (m *Master) announce(jr *jobRun, job int, outs ...wire.MapOutput) {
	out := &wire.MapOutputs{Job: job, Outputs: outs}
	nodes := make([]cluster.NodeID, 0, len(jr.reduceNodes))
	for n := range jr.reduceNodes {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		m.send(n, wire.Msg{MapOutputs: out})
	}
}

func (m *Master) releaseReduce(jr *jobRun, n cluster.NodeID) {
	if jr.reduceNodes[n]--; jr.reduceNodes[n] <= 0 {
		delete(jr.reduceNodes, n)
	}
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

// live finds the running attempt node n's worker reports on; false for a
// stale one (killed, failed, of a finished job, or of another node).
func (m *Master) live(n cluster.NodeID, wa wire.Attempt) (jobtracker.Attempt, bool) {
	k := sched.MapTask
	if wa.Kind == wire.Reduce {
		k = sched.ReduceTask
	}
	a := jobtracker.Attempt{Job: int32(wa.Job), Task: int32(wa.Task), Kind: k, N: uint32(wa.Attempt)}
	if wa.Attempt < 0 || int(a.Job) != wa.Job || int(a.Task) != wa.Task || !m.jt.Live(a) {
		return a, false
	}
	at := m.jobs[a.Job].attempt(k, wa.Task, a.N)
	return a, at.live && at.node == n && at.n == a.N
}

// ended takes an attempt's end reported by node n.
func (m *Master) ended(n cluster.NodeID, e wire.Ended) {
	a, ok := m.live(n, e.Attempt)
	if !ok {
		return
	}
	m.lastProgress = m.Now()
	m.progressed()
	if e.Err != "" {
		m.attemptFailed(a, n, e.Attempt, e.Err, e.NoReplica)
		return
	}
	if a.Kind == sched.MapTask {
		m.jt.MapDone(a)
		return
	}
	d, err := content.ParseDigest(e.Digest)
	if err != nil {
		m.attemptFailed(a, n, e.Attempt, "its output digest: "+err.Error(), false)
		return
	}
	jr := m.jobs[a.Job]
	jr.digests[a.Task] = d
	jr.reduceAt[a.Task].live = false
	m.releaseReduce(jr, n)
	m.jt.ReduceDone(a)
}

// copied takes a reduce's report that it has fetched all its input.
func (m *Master) copied(n cluster.NodeID, wa wire.Attempt) {
	if a, ok := m.live(n, wa); ok && a.Kind == sched.ReduceTask {
		m.jt.ReduceCopied(a)
	}
}

// phaseMarks are the phase boundaries a worker reports, as the job
// tracker's recorder names them.
var phaseMarks = map[wire.PhaseMark]critpath.Mark{
	wire.PhaseReady: critpath.Ready, wire.PhaseReadDone: critpath.ReadDone, wire.PhaseWriteStart: critpath.WriteStart,
}

// phase records that a live attempt on node n crossed a phase boundary,
// at the instant its worker's report arrives, as Copied is.
func (m *Master) phase(n cluster.NodeID, p *wire.Phase) {
	mk, known := phaseMarks[p.Mark]
	if a, ok := m.live(n, p.Attempt); ok && known {
		m.jt.Phase(a, mk)
	}
}

// attemptFailed has the tracker end a failed attempt: its task is
// pending again, or its job fails once the task has failed
// engine.max_attempts times (Hadoop's mapred.map.max.attempts, 4): a task
// that keeps failing on the testbed is a broken transfer or store, or a
// block with no replica left, and its job fails with the reason, as in
// the simulator.
//
// An attempt that could reach no replica of its block (noReplica) in a
// run that has lost nodes counts among the faults' killed attempts too,
// and a job it fails among the faults' failed jobs, as in the simulator;
// else the network's (a reset, a timeout) is an ordinary failure.
func (m *Master) attemptFailed(a jobtracker.Attempt, n cluster.NodeID, wa wire.Attempt, why string, noReplica bool) {
	m.failed = append(m.failed, wa.String()+" on node "+strconv.Itoa(int(n))+": "+why)
	m.jt.AttemptFailed(a, why, noReplica && m.faultsOn())
}
