// Package sched is the scheduler contract of mrsched and the policies that
// implement it.
//
// Scheduling is heartbeat-driven, as in Hadoop: when a node has a free slot,
// the engine (the simulator, or later a live runtime) offers it to the
// policy, which answers with a task to run there or declines. A policy reads
// a read-only view of the cluster (Cluster) and keeps its own state; it never
// mutates jobs or the cluster, and it never imports the engine.
//
// Most policies are composed of two parts, as the papers compose them: an
// Order (FIFO, Fair with pools, DRF) that decides whose turn it is, and a
// Placer (locality-first, delay scheduling, ...) that picks the task.
package sched

import (
	"iter"

	"github.com/mrsched/mrsched/cluster"
)

// TaskKind is the kind of a MapReduce task.
type TaskKind uint8

// The two task kinds.
const (
	MapTask TaskKind = iota
	ReduceTask
)

func (k TaskKind) String() string {
	if k == MapTask {
		return "map"
	}
	return "reduce"
}

// SlotKind is the kind of a free slot offered to a policy. In the slot
// model a slot runs one task kind; in the container model (YARN) a container
// runs either.
type SlotKind uint8

// The slot kinds an offer can carry.
const (
	MapSlot SlotKind = iota
	ReduceSlot
	AnySlot
)

func (s SlotKind) String() string {
	switch s {
	case MapSlot:
		return "map"
	case ReduceSlot:
		return "reduce"
	}
	return "container"
}

// Offer is a free slot on a node.
type Offer struct {
	Node cluster.NodeID
	Slot SlotKind
	// Freed says a task that ended on the node since its last offers freed
	// this slot: the offer is a request for work, as a YARN NodeManager's
	// heartbeat reporting a completed container is, rather than a periodic
	// heartbeat offering again a slot that was already idle. The first
	// offers of a kind after tasks end carry it, as many as slots freed;
	// the rest of that round's offers do not, and slots not offered in it
	// are idle by the next. Policies that count requests (NAS's skip
	// counts, section III-C) count these.
	Freed bool
}

// Decision is a policy's answer to an offer: run a task of Job there. For a
// map, Map is the index of the map task; reduces of a job are
// interchangeable, so the engine picks which one. Rule names the rule that
// fired (e.g. "node-local"), so runs can report why tasks went where they did.
type Decision struct {
	Job  *Job
	Kind TaskKind
	Map  int
	Rule string
	// Source, when SourceSet, is the replica a map reads its block from
	// (it must hold one); otherwise the engine reads the replica the
	// cluster's replica choice picks (cluster.ReadReplica): by default
	// the nearest, a random one among equally near ones. TD steers
	// non-local reads away from hot spots with it.
	Source    cluster.NodeID
	SourceSet bool
}

// Cluster is the read-only view a policy decides on. The simulator's job
// tracker (package jobtracker) and the testbed's master implement it;
// policies must not modify anything reachable from it.
type Cluster interface {
	// Now is the virtual time in seconds.
	Now() float64
	// Topology is the cluster's static shape.
	Topology() *cluster.Topology
	// Jobs returns the submitted, unfinished jobs in submit order.
	Jobs() []*Job
	// FreeSlots is the number of free slots of kind k on node n
	// (AnySlot in the container model).
	FreeSlots(n cluster.NodeID, k SlotKind) int
	// TotalSlots is the cluster's number of slots of kind k.
	TotalSlots(k SlotKind) int
	// Epoch changes whenever any job's demand may have changed: a job
	// arrived or left, a task finished or was killed, reduces were
	// enabled, finished maps' outputs were lost. Launches do not change
	// demand. Policies cache derived state (fair shares) keyed on it; which
	// job changed, each such change reports to the observers (JobObserver,
	// TaskObserver, OutputLossObserver, DemandObserver) before the next
	// offer.
	Epoch() uint64
	// UplinkUtilization is rack r's uplink use (up, down) over the
	// network monitor's last sampling period, as a fraction of capacity.
	UplinkUtilization(r cluster.RackID) (up, down float64)
	// FreeResources is node n's CPU cores and memory (GB) not held by
	// running tasks. The engine accounts tasks' demands
	// (workload.Profile.TaskDemand) but does not enforce them: policies
	// that care (DRF) check that a task fits.
	FreeResources(n cluster.NodeID) (cpu, memGB float64)
	// ReduceAdmissible reports whether a reduce of job j may launch on
	// node n now; false only when copy-compute splitting's per-job limit
	// of copying reducers on n is reached (Fair Scheduler paper 5.2).
	ReduceAdmissible(j *Job, n cluster.NodeID) bool
	// RunningTasks returns job j's running task attempts, oldest launch
	// first (ties by kind, then index). It allocates: for policies that
	// need it rarely (preemption), not on every offer.
	RunningTasks(j *Job) []TaskRef
}

// TaskRef names a running task attempt.
type TaskRef struct {
	Job   *Job
	Kind  TaskKind
	Index int
	Node  cluster.NodeID
	Start float64 // launch time
}

// IdleOffers is implemented by policies whose state changes on offers that
// no pending task could take. The engine does not ask Assign about such an
// offer (no active job has a pending map, nor a pending reduce that may
// launch, for the slot's kind), since every policy must decline it; it
// tells a policy that wants idle offers with OfferIdle instead. NAS clears
// CR-RTS's hold on a rack's maps when an offer finds the rack uncongested,
// whether or not anything could launch there.
//
// Idle offers are a third of the offers `nas` makes on the FB-2010 day (6
// of 16 million): answering them through Assign (the order's candidates,
// every active job asked what it wants) cost 2-3% of the run's CPU for
// nothing but the hold.
type IdleOffers interface {
	// WantsIdleOffers reports whether OfferIdle should be called; the
	// engine asks once, before the run.
	WantsIdleOffers() bool
	// OfferIdle tells the policy of a free slot no pending task could
	// take, where Assign would be asked if one could.
	OfferIdle(c Cluster, o Offer)
}

// IdleOffersOf returns p as IdleOffers if it implements it and wants idle
// offers, and nil otherwise.
func IdleOffersOf(p any) IdleOffers {
	if i, ok := p.(IdleOffers); ok && i.WantsIdleOffers() {
		return i
	}
	return nil
}

// Preempter is implemented by policies that kill running tasks to restore
// shares (the Fair Scheduler paper, section 3.2). The engine calls Preempt
// periodically; killed attempts lose their work and their tasks return to
// pending.
type Preempter interface {
	Preempt(c Cluster) []TaskRef
}

// Policy decides what runs on an offered slot.
type Policy interface {
	// Name is the policy's registry name.
	Name() string
	// Assign answers an offer with a task or declines (ok false).
	Assign(c Cluster, o Offer) (d Decision, ok bool)
}

// JobObserver is implemented by policies that track jobs.
type JobObserver interface {
	JobAdded(c Cluster, j *Job)
	JobRemoved(c Cluster, j *Job)
}

// TaskObserver is implemented by policies that track running tasks.
type TaskObserver interface {
	TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID)
	// TaskEnded reports a task that finished, or an attempt that was
	// killed or failed (killed true): its task returns to pending, unless
	// its job failed, which JobRemoved then reports.
	TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool)
}

// OutputLossObserver is implemented by policies that must know when a
// job's finished maps return to pending because the node that held their
// output was lost (docs/faults.md): TaskEnded reports attempts, and those
// maps' attempts had ended. Other policies see such a loss in the job's
// counts (FinishedMaps, PendingMaps, MapOutputByRack) and the epoch.
type OutputLossObserver interface {
	// MapOutputsLost reports that maps of j's finished maps, whose output
	// was on node n, are pending again.
	MapOutputsLost(c Cluster, j *Job, n cluster.NodeID, maps int)
}

// DemandObserver is implemented by policies that keep each job's demand
// (Job.Demand) up to date from events instead of summing it over every
// job whenever the epoch moves: with JobObserver, TaskObserver and
// OutputLossObserver it hears of every change of a job's demand. A cluster
// must call it, and wrappers must forward it.
type DemandObserver interface {
	// ReducesEnabled reports that j's reduces became runnable: its
	// finished maps reached the slow-start fraction.
	ReducesEnabled(c Cluster, j *Job)
}

// Order decides whose turn it is: it yields the jobs that have work for a
// slot of the given kind, most deserving first. Consumers stop early, so an
// Order should produce lazily.
type Order interface {
	Candidates(c Cluster, slot SlotKind) iter.Seq[*Job]
}

// Placer picks, from the jobs an Order yields, the task to run on the
// offered node, or declines.
type Placer interface {
	Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool)
}
