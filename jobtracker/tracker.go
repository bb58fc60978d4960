// Package jobtracker is the master's bookkeeping of a MapReduce run, as
// Hadoop 1's JobTracker keeps it in its JobInProgress and TaskInProgress
// objects: the active jobs and the sched.Job each policy reads, every
// task's attempts, where they run and how they ended, the slots, cores and
// memory each node has free, and the rules that connect them (slow start,
// retries, failing a job, kills for preemption).
//
// A Tracker is a single-threaded, deterministic state machine: what it
// does depends only on the sequence of calls it is given, never on a
// clock, a goroutine or a random draw, and it keeps per-node data in
// slices and orders everything it walks (jobs by submit, attempts by
// launch). Both the simulator (sim) and the testbed's master drive it;
// what differs between them, time, transfers, disks, random draws and
// wire messages, stays with the driver, which must:
//
//   - call SetNow before each event it feeds the tracker, so that the
//     clock does not move inside a call;
//   - hand it the uplink sample the policies read (SetUplinks) and the
//     nodes that die and come back;
//   - carry out what the tracker asks of it, in the order it asks.
//
// The Tracker is also the policies' view of the cluster: it implements
// sched.Cluster from its own state.
package jobtracker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/decisions"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// Config is what a Tracker needs to know of the run besides its jobs.
type Config struct {
	// Topology is the cluster's shape: its nodes, racks and their slots.
	Topology *cluster.Topology
	// Seed is the run's seed, which placed the jobs' input
	// (sched.InputFile): a job that fails for want of a replica names
	// where its block was.
	Seed uint64
	// Slots is what every node of a uniform cluster owns, by slot kind
	// (map, reduce, container): the topology's, or more reduce places
	// under copy-compute splitting. A cluster whose nodes differ takes
	// each node's own from the topology.
	Slots [3]int
	// SlowStart is the fraction of a job's maps that must be done
	// before its reduces may launch (mapred.reduce.slowstart.
	// completed.maps).
	SlowStart float64
	// MaxAttempts is how many failed attempts of one task fail its job
	// (mapred.map.max.attempts, mapred.reduce.max.attempts).
	MaxAttempts int
	// MaxComputing, when above 0, turns on copy-compute splitting's
	// per-job limit: at most that many reduces of a job copy on a node
	// (ReduceAdmissible), and reduce wait is not slot hoarding.
	MaxComputing int
	// LaunchesPerHeartbeat, when above 0, is the most tasks an offer
	// launches on a node (Offer).
	LaunchesPerHeartbeat int
	// LoadCap caps the tasks of each kind a node runs by Hadoop 1's
	// CapBasedLoadManager (loadCaps); slots only.
	LoadCap bool
	// DynamicMaxAssign, in place of LaunchesPerHeartbeat, lets an offer
	// launch floor(free/2) + 1 tasks of the node's free slots at its
	// start, YARN's dynamic max assign (Offer).
	DynamicMaxAssign bool
	// Speculative turns on speculative backups of slow maps
	// (speculate.go); HeartbeatS is how long the progress speculation
	// reads stays current.
	Speculative bool
	HeartbeatS  float64
	// CheckInvariants makes the tracker check its counts as it goes.
	CheckInvariants bool
	// Critpath, when not nil, records where each job's time goes; the
	// driver reports its attempts' phases to it too.
	Critpath *critpath.Recorder
}

// DecisionLog takes the decisions log's records (decisions.Writer).
type DecisionLog interface {
	Write(r *decisions.Record)
}

// node is the tracker's view of one node: its slots, and what its
// running attempts hold.
type node struct {
	free [3]int
	// freed counts the slots, by kind, that attempts ending on the node
	// have freed since its last offer (sched.Offer.Freed).
	freed            [3]int32
	usedCPU, usedMem float64
	// down: the node is dead (killed, not restored); gone: it has been
	// declared lost, so its slots left the cluster; wiped: it was
	// declared lost at some time, so it holds no replica of the files
	// placed before.
	down, gone, wiped bool
}

// Tracker is one run's job tracker. Build it with New.
type Tracker struct {
	cfg  Config
	topo *cluster.Topology
	// misses is the node-local misses every job's map index shares.
	misses *sched.LocalMisses
	specs  []workload.Job
	pol    sched.Policy
	jobObs sched.JobObserver
	tskObs sched.TaskObserver
	// lossObs is told of finished maps pending again (loss.go), demObs
	// of reduces enabled (events.go).
	lossObs sched.OutputLossObserver
	demObs  sched.DemandObserver
	col     *metrics.Collector
	d       Driver
	// idleOffers is told of offers no task could take; nil unless the
	// policy wants them.
	idleOffers sched.IdleOffers
	// cost is the wall time of the policy's Assign calls, measured from
	// clock, for the decision-cost report.
	cost  metrics.Latency
	clock time.Time
	now   float64
	err   error
	// epoch changes whenever a job's demand may have changed
	// (sched.Cluster.Epoch).
	epoch  uint64
	jobs   []*job // by index; nil until submitted
	active []*sched.Job
	nodes  []node
	// slotTotal is the cluster's slots by kind, without the lost nodes'.
	slotTotal [3]int
	// running counts the attempts that hold a slot; runningKind the
	// tasks running, by kind (a task's backup not counted).
	running     int
	runningKind [2]int
	// cp records where each job's time goes (nil when not asked);
	// usable counts the free slots of live nodes a map (0) or a reduce
	// (1) could take, for it.
	cp     *critpath.Recorder
	usable [2]int
	// dlog takes the decisions log; considered are the jobs the policy
	// considered for the offer being decided, and reach the last map
	// launch's reach, for it.
	dlog           DecisionLog
	considered     []*sched.Job
	moreConsidered int
	considers      bool // the policy reports the jobs it considers
	reach          cluster.Reach
	// launchableMaps and launchableReduces count the tasks a policy could
	// launch now, over every active job: pending maps, and pending reduces
	// of jobs whose reduces are enabled.
	launchableMaps, launchableReduces int
	uplink                            [][2]float64
	finished, failed                  int // jobs that left the run; those that failed
	wipedCount                        int // nodes ever declared lost
}

// New returns a tracker for a run of jobs (indexed by ID, in submit
// order) on cfg.Topology under policy pol, with every node alive and
// idle; it counts into col and has d carry out its decisions.
func New(cfg Config, jobs []workload.Job, pol sched.Policy, col *metrics.Collector, d Driver) *Tracker {
	t := &Tracker{cfg: cfg, topo: cfg.Topology, specs: jobs, pol: pol, col: col, d: d, clock: time.Now(), cp: cfg.Critpath, misses: sched.NewLocalMisses(cfg.Topology.NumNodes())}
	t.idleOffers = sched.IdleOffersOf(pol)
	t.jobObs, _ = pol.(sched.JobObserver)
	t.tskObs, _ = pol.(sched.TaskObserver)
	t.lossObs, _ = pol.(sched.OutputLossObserver)
	t.demObs, _ = pol.(sched.DemandObserver)
	if cfg.Speculative {
		col.EnableSpeculation() // the backups' counters, which the tracker keeps
	}

	t.jobs = make([]*job, len(jobs))
	t.nodes = make([]node, t.topo.NumNodes())
	for i := range t.nodes {
		t.nodes[i].free = t.SlotsOf(cluster.NodeID(i))
		for k := range t.slotTotal {
			t.slotTotal[k] += t.nodes[i].free[k]
		}
		t.countFree(cluster.NodeID(i), t.nodes[i].free, 1)
	}
	return t
}

// SetNow sets the time the tracker's next calls happen at.
func (t *Tracker) SetNow(now float64) { t.now = now }

// SetUplinks gives the tracker the uplink sample policies read, one entry
// a rack (up, down). The tracker reads u as the driver rewrites it, so
// that it is given once.
func (t *Tracker) SetUplinks(u [][2]float64) { t.uplink = u }

// SlotsOf is the slots node n owns, by kind.
func (t *Tracker) SlotsOf(n cluster.NodeID) [3]int {
	if t.topo.Uniform() {
		return t.cfg.Slots
	}
	return t.topo.Slots(n)
}

// Err is the first error the run met: a policy's impossible decision, a
// broken invariant (the tracker's, or its driver's given to Fail).
func (t *Tracker) Err() error { return t.err }

// Fail records err as the run's error, unless it has one already.
func (t *Tracker) Fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

func (t *Tracker) fail(format string, args ...any) {
	t.Fail(fmt.Errorf("t=%.3f s: "+format, append([]any{t.now}, args...)...))
}

// DecisionCost is the wall time of the policy's Assign calls (every
// offer, including those it declined). It depends on the machine, so it
// is kept apart from the run's results, and never reaches a decision.
func (t *Tracker) DecisionCost() *metrics.Latency { return &t.cost }

// Finished is the number of jobs that left the run, completed or failed.
func (t *Tracker) Finished() int { return t.finished }

// HasFree reports whether node n has a free slot of any kind.
func (t *Tracker) HasFree(n cluster.NodeID) bool { return t.nodes[n].free != [3]int{} }

// RunningAttempts is the number of attempts holding a slot.
func (t *Tracker) RunningAttempts() int { return t.running }

// Used is the CPU and memory node n's attempts hold.
func (t *Tracker) Used(n cluster.NodeID) (cpu, mem float64) {
	return t.nodes[n].usedCPU, t.nodes[n].usedMem
}

// Down reports whether node n is dead: killed and not restored.
func (t *Tracker) Down(n cluster.NodeID) bool { return t.nodes[n].down }

// Gone reports whether node n has been declared lost since its last kill.
func (t *Tracker) Gone(n cluster.NodeID) bool { return t.nodes[n].gone }

// Launchable returns the launchable maps and reduces.
func (t *Tracker) Launchable() (maps, reduces int) { return t.launchableMaps, t.launchableReduces }

// TellsIdleOffers reports whether the policy is told of offers no pending
// task could take (sched.IdleOffers): its state then changes on offers
// that launch nothing.
func (t *Tracker) TellsIdleOffers() bool { return t.idleOffers != nil }

// launchableFor reports whether some active job has a task a slot of
// kind k could take: an offer for a slot no task could take is not made.
func (t *Tracker) launchableFor(k sched.SlotKind) bool {
	switch k {
	case sched.MapSlot:
		return t.launchableMaps > 0
	case sched.ReduceSlot:
		return t.launchableReduces > 0
	}
	return t.launchableMaps > 0 || t.launchableReduces > 0
}

// SlotTotals is the cluster's slots by kind, as TotalSlots gives them.
func (t *Tracker) SlotTotals() [3]int { return t.slotTotal }

// Job returns job i's sched.Job; nil before its submission.
func (t *Tracker) Job(i int) *sched.Job {
	if j := t.jobs[i]; j != nil {
		return j.sj
	}
	return nil
}

// Done reports whether job i has left the run, completed or failed. A
// failing job is done from the start of its failure, while its attempts
// are stopped.
func (t *Tracker) Done(i int) bool { return t.jobs[i].done }

// Attempts lists job i's running tasks in launch order. The slice is the
// tracker's: it changes as attempts start and end.
func (t *Tracker) Attempts(i int) []TaskID { return t.jobs[i].running }

// Live reports whether attempt a runs: a driver drops a report of an
// attempt that does not (it was killed or failed, lost its race, or its
// job left), whose task's attempt number has moved on.
func (t *Tracker) Live(a Attempt) bool {
	if a.Job < 0 || int(a.Job) >= len(t.jobs) || t.jobs[a.Job] == nil || t.jobs[a.Job].done {
		return false
	}
	jr := t.jobs[a.Job]
	if !jr.isRunning(a.Kind, int(a.Task)) {
		return false
	}
	if a.N&BackupAttempt != 0 {
		for _, b := range jr.backups {
			if b.task == a.Task {
				return a.Kind == sched.MapTask && b.n == a.N
			}
		}
		return false
	}
	return jr.task(a.Kind, int(a.Task)).attempt == a.N
}

// Log returns job i's map output log, in the order outputs appeared. The
// slice is the tracker's: it grows as maps finish.
func (t *Tracker) Log(i int) []MapOutput { return t.jobs[i].log }

// Hosts returns the nodes holding job i's map outputs, in the order
// their first output appeared: MapOutput.Host indexes it.
func (t *Tracker) Hosts(i int) []cluster.NodeID { return t.jobs[i].hosts }

// Rerun reports whether map m of job i runs again because its output
// was lost with its node.
func (t *Tracker) Rerun(i, m int) bool {
	r := t.jobs[i].rerun
	return r != nil && r[m]
}

// The policies' view (sched.Cluster), from the tracker's state.

// Now is the time of the tracker's current call (SetNow).
func (t *Tracker) Now() float64 { return t.now }

// Topology is the cluster's shape.
func (t *Tracker) Topology() *cluster.Topology { return t.topo }

// Jobs returns the active jobs in submit order.
func (t *Tracker) Jobs() []*sched.Job { return t.active }

// FreeSlots returns node n's free slots of kind k.
func (t *Tracker) FreeSlots(n cluster.NodeID, k sched.SlotKind) int { return t.nodes[n].free[k] }

// TotalSlots returns the cluster's slots of kind k.
func (t *Tracker) TotalSlots(k sched.SlotKind) int { return t.slotTotal[k] }

// Epoch changes whenever demand may have changed.
func (t *Tracker) Epoch() uint64 { return t.epoch }

// UplinkUtilization is rack r's uplink use over the last monitor period,
// as the driver's last sample (SetUplinks) gives it.
func (t *Tracker) UplinkUtilization(r cluster.RackID) (up, down float64) {
	u := t.uplink[r]
	return u[0], u[1]
}

// FreeResources is node n's CPU and memory not held by running attempts.
func (t *Tracker) FreeResources(n cluster.NodeID) (cpu, memGB float64) {
	c, m := t.topo.Resources(n)
	return c - t.nodes[n].usedCPU, m - t.nodes[n].usedMem
}

// ReduceAdmissible reports whether a reduce of job j may launch on node n:
// always, unless copy-compute splitting limits the job's copying reducers
// there.
func (t *Tracker) ReduceAdmissible(j *sched.Job, n cluster.NodeID) bool {
	if t.cfg.MaxComputing == 0 {
		return true
	}
	return t.jobs[j.Index].copyingOn[n] < t.cfg.MaxComputing
}

// ReducesLimited reports whether ReduceAdmissible may ever refuse a
// reduce: only under copy-compute splitting's limit. A placer that knows
// no reduce is refused decides some offers without asking job by job.
func (t *Tracker) ReducesLimited() bool { return t.cfg.MaxComputing != 0 }

// RunningTasks lists job j's running attempts, oldest first.
func (t *Tracker) RunningTasks(j *sched.Job) []sched.TaskRef {
	if j == nil || j.Index < 0 || j.Index >= len(t.jobs) || t.jobs[j.Index] == nil {
		return nil
	}
	jr := t.jobs[j.Index]
	out := make([]sched.TaskRef, 0, len(jr.running))
	for _, id := range jr.running {
		ts := jr.task(id.Kind, int(id.Index))
		out = append(out, sched.TaskRef{Job: j, Kind: id.Kind, Index: int(id.Index), Node: ts.node, Start: ts.start})
	}
	// Launch order is start order; tasks started at one instant go maps
	// first, then by index.
	for lo := 0; lo < len(out); {
		hi := lo + 1
		for hi < len(out) && out[hi].Start == out[lo].Start {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(out[lo:hi], func(a, b sched.TaskRef) int {
				return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Index, b.Index))
			})
		}
		lo = hi
	}
	return out
}

// isActive reports whether j is one of this run's unfinished jobs.
func (t *Tracker) isActive(j *sched.Job) bool {
	return j.Index >= 0 && j.Index < len(t.jobs) && t.jobs[j.Index] != nil && t.jobs[j.Index].sj == j && !t.jobs[j.Index].done
}

var _ sched.Cluster = (*Tracker)(nil)
