package jobtracker

import (
	"fmt"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// Attempt names one attempt of a task: the job's index, the task's index
// among the job's maps or reduces, and the attempt's number. A task's
// attempt numbers grow by one at each launch and at each end short of
// success, so that an ended attempt's late reports never match its
// task's current number.
type Attempt struct {
	Job, Task int32
	Kind      sched.TaskKind
	N         uint32
}

// TaskID names a task of a job: its kind and index.
type TaskID struct {
	Kind  sched.TaskKind
	Index int32
}

// StopReason says why the tracker stops an attempt (Driver.Stop).
type StopReason uint8

// Why an attempt stops.
const (
	// Killed: a policy preempted it, or a job's maps starve for the slot
	// or resources it holds (StarvedMaps).
	Killed StopReason = iota
	// Failed: its driver reported it failed (AttemptFailed).
	Failed
	// NodeLost: its node was declared lost.
	NodeLost
	// JobFailed: its job failed.
	JobFailed
	// LostRace: the task's other attempt (a speculative backup, or the
	// attempt it backs up) finished first.
	LostRace
)

// Driver carries out what the tracker decides: the physics of a run. The
// tracker calls it synchronously, in the order of its decisions, and a
// Driver call does not call back into the tracker.
type Driver interface {
	// ReadSource is the replica node a map of job launched on node n
	// reads its block m from: chosen, the policy's choice, when it is a
	// live replica, else the driver's replica choice (chosen is -1 when
	// the policy chose none).
	ReadSource(job, m int, n, chosen cluster.NodeID) cluster.NodeID
	// Start starts attempt a on node n (a map reading from src; src is
	// -1 for a reduce).
	Start(a Attempt, n, src cluster.NodeID)
	// Stop ends running attempt a at once: its transfers stop and what
	// it made is dropped. The tracker releases the attempt's slot and
	// tells the policy after Stop returns.
	Stop(a Attempt, why StopReason)
	// MapOutput announces that map attempt a finished and its output is
	// on host; rerun says it makes again an output lost with a node.
	MapOutput(a Attempt, host cluster.NodeID, rerun bool)
	// OutputsLost tells that the outputs of job's maps held by host are
	// lost, before the tracker marks them obsolete in its log: they will
	// be made again.
	OutputsLost(job int, host cluster.NodeID, maps []int)
	// SlotFreed tells that a slot of node n was freed: the driver may
	// offer it.
	SlotFreed(n cluster.NodeID)
	// JobLeft tells that job left the run, completed or failed; what the
	// driver keeps for it can go.
	JobLeft(job int, failed bool)
	// Progress is running map attempt a's progress, from 0 to 1, for
	// speculation (Config.Speculative); Hadoop's map counts its map
	// phase for 2/3 and its sort for 1/3.
	Progress(a Attempt) float64
}

// String names the reason.
func (r StopReason) String() string {
	switch r {
	case Killed:
		return "killed"
	case Failed:
		return "failed"
	case NodeLost:
		return "node lost"
	case JobFailed:
		return "job failed"
	case LostRace:
		return "lost race"
	}
	return fmt.Sprintf("StopReason(%d)", uint8(r))
}

// Task phases, as far as the tracker needs to know them.
const (
	pending uint8 = iota
	// copying: a map runs; a reduce runs and has not copied all its
	// input yet (it waits for maps, and holds its slot while it waits).
	copying
	// copied: a reduce copied its input and computes or writes.
	copied
	done
)

// task is one map's or reduce's bookkeeping.
type task struct {
	start   float64
	node    cluster.NodeID
	attempt uint32
	// ran is how long the finished attempt of a map ran: the
	// task-seconds lost if its output is lost with its node.
	ran      float32
	failures uint16
	// backups counts a map's speculative backups, to number them;
	// hasBackup is set while one runs (its job's backups hold it).
	backups   uint16
	state     uint8
	slot      sched.SlotKind
	hasBackup bool
}

// MapOutput is an entry of a job's map output log, Hadoop's
// TaskCompletionEvent: map Map's output, on host Host (an index in the
// job's Hosts). PerReduce is each reduce's part of its bytes; it is 0
// for an output with no bytes for the reduces, or one lost with its node
// (Hadoop's OBSOLETE).
type MapOutput struct {
	Host      int32
	Map       int32
	PerReduce float64
}

// job is one job's JobInProgress.
type job struct {
	spec    *workload.Job
	sj      *sched.Job
	maps    []task
	reduces []task
	// log is the job's map output log, in the order outputs appeared;
	// hosts are the nodes holding its outputs in the order their first
	// output appeared, hostIndex its inverse.
	log       []MapOutput
	hosts     []cluster.NodeID
	hostIndex map[cluster.NodeID]int32
	// running lists the tasks launched and not yet ended, in launch
	// order, which is start-time order.
	running []TaskID
	// copyingOn counts the job's reduces copying per node, for
	// copy-compute splitting's per-job limit; nil when it is off.
	copyingOn map[cluster.NodeID]int
	// waitS is reducer-seconds spent holding a reduce slot (or, under
	// copy-compute splitting, a reducer place) while the job's maps ran;
	// hoardS is the part of it that held a compute-capable slot.
	waitS, hoardS float64
	next          int // lowest reduce index that may be pending
	done          bool
	// mapsDoneAt is when the job's maps were last all finished (reduces
	// waiting then were charged their wait; a loss takes it back).
	mapsDoneAt float64
	// rerun marks the maps that run again because their output was
	// lost; nil until one does. mapsBack is set once a loss returned a
	// map of the job to pending, last at mapsBackAt; lastMapLaunch is
	// when a map of the job last launched (StarvedMaps).
	rerun                     []bool
	mapsBack                  bool
	mapsBackAt, lastMapLaunch float64
	// backups are the speculative attempts running, and cands the last
	// look for maps to back up (speculate.go); nil until speculation
	// looks at the job.
	backups []backup
	cands   *specCands
}

func (j *job) task(k sched.TaskKind, i int) *task {
	if k == sched.MapTask {
		return &j.maps[i]
	}
	return &j.reduces[i]
}

func (j *job) started(k sched.TaskKind, i int) {
	j.running = append(j.running, TaskID{k, int32(i)})
}

func (j *job) ended(k sched.TaskKind, i int) {
	if x := slices.Index(j.running, TaskID{k, int32(i)}); x >= 0 {
		j.running = slices.Delete(j.running, x, x+1)
	}
}

// isRunning reports whether task i of kind k has an attempt launched and
// not ended.
func (j *job) isRunning(k sched.TaskKind, i int) bool {
	ts := j.maps
	if k == sched.ReduceTask {
		ts = j.reduces
	}
	if i < 0 || i >= len(ts) {
		return false
	}
	st := ts[i].state
	return st != pending && st != done
}

// addWait charges reducer-seconds spent waiting for the job's maps.
func (j *job) addWait(s float64, copyCompute bool) {
	j.waitS += s
	if !copyCompute {
		j.hoardS += s
	}
}

// attempt names task i's current attempt.
func (j *job) attempt(k sched.TaskKind, i int) Attempt {
	return Attempt{Job: int32(j.sj.Index), Task: int32(i), Kind: k, N: j.task(k, i).attempt}
}
