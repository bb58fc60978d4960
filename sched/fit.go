package sched

import (
	"iter"

	"github.com/mrsched/mrsched/cluster"
)

// ResourceFit is a Placer stage for resource-aware orders (DRF): it hands
// its Placer only the candidate jobs whose next task (the kind job.KindFor
// picks for the slot) fits the offered node's free CPU and memory
// (Cluster.FreeResources). The engine accounts demands but does not enforce
// them, so this is where they bind; slots (or containers) still bound the
// number of tasks. Two rules keep runs from hanging:
//
//   - A task demanding more than a whole node is treated as demanding the
//     whole node: it runs alone on an idle node instead of never.
//   - A reduce of a job that still has pending maps fits only if one of the
//     job's maps would still fit beside it: its CPU and memory and, in the
//     container model, a free container. Without this, reduces waiting
//     for map output could take every core (or container) and leave the
//     maps they wait for no room (YARN's MapReduce master avoids the same
//     deadlock by ramping reduces against its headroom and preempting
//     them). When a container finds no taker and such a job's map fits,
//     the job runs the map instead (see Place).
//
// It forwards job and task events to its Placer. Build it with
// NewResourceFit; Place is not reentrant.
type ResourceFit struct {
	inner Placer
	cur   fitCall
	seq   iter.Seq[*Job]  // f.filter, bound once
	check func(*Job) bool // f.checkJob, bound once
}

// fitCall is one Place call's state, kept in the stage so that filtering
// allocates nothing.
type fitCall struct {
	jobs             iter.Seq[*Job]
	yield            func(*Job) bool
	slot             SlotKind
	slots            int // free slots of the offered kind
	cpu, mem         float64
	nodeCPU, nodeMem float64
	blocked          bool // a job's reduce was held back while its map fits
	mapsOnly         bool // second pass: those jobs' maps
}

var (
	_ Placer       = (*ResourceFit)(nil)
	_ JobObserver  = (*ResourceFit)(nil)
	_ TaskObserver = (*ResourceFit)(nil)
)

// NewResourceFit wraps a placer with the fit check.
func NewResourceFit(p Placer) *ResourceFit {
	f := &ResourceFit{inner: p}
	f.seq, f.check = f.filter, f.checkJob
	return f
}

// fitSlack absorbs float rounding in sums of fractional demands.
const fitSlack = 1e-9

// Place asks the inner placer to choose among the candidates that fit. In
// a container, when none of them takes it and some job's reduce was held
// back by the rules above while one of its maps fits, it asks again, as
// for a map slot, among those jobs: job.KindFor would otherwise keep
// choosing the reduce that cannot run, and the maps it waits for would
// never launch. The order's sequence is then walked twice.
func (f *ResourceFit) Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool) {
	cpu, mem := c.FreeResources(o.Node)
	nodeCPU, nodeMem := c.Topology().Resources(o.Node)
	f.cur = fitCall{jobs: jobs, slot: o.Slot, slots: c.FreeSlots(o.Node, o.Slot),
		cpu: cpu, mem: mem, nodeCPU: nodeCPU, nodeMem: nodeMem}
	d, ok := f.inner.Place(c, o, f.seq)
	if !ok && f.cur.blocked {
		f.cur.mapsOnly = true
		d, ok = f.inner.Place(c, Offer{Node: o.Node, Slot: MapSlot}, f.seq)
	}
	f.cur = fitCall{}
	return d, ok
}

func (f *ResourceFit) filter(yield func(*Job) bool) {
	f.cur.yield = yield
	f.cur.jobs(f.check)
}

func (f *ResourceFit) checkJob(j *Job) bool {
	k := &f.cur
	blocked := f.reduceBlocked(j)
	switch {
	case k.mapsOnly:
		if !blocked {
			return true
		}
	case blocked:
		k.blocked = true
		return true
	case !Fits(j, k.slot, k.cpu, k.mem, k.nodeCPU, k.nodeMem):
		return true
	}
	return k.yield(j)
}

// reduceBlocked reports whether, in a container, job j's turn is a reduce
// that the rules hold back while one of its maps would fit.
func (f *ResourceFit) reduceBlocked(j *Job) bool {
	k := &f.cur
	if k.slot != AnySlot || j.PendingMaps() == 0 {
		return false
	}
	if kind, ok := j.KindFor(AnySlot); !ok || kind != ReduceTask {
		return false
	}
	if k.slots >= 2 && Fits(j, AnySlot, k.cpu, k.mem, k.nodeCPU, k.nodeMem) {
		return false
	}
	return Fits(j, MapSlot, k.cpu, k.mem, k.nodeCPU, k.nodeMem)
}

// Fits reports whether job j's next task for a slot of kind s fits in
// freeCPU cores and freeMem GB on a node of nodeCPU cores and nodeMem GB,
// by ResourceFit's rules on resources (the container rule needs the
// node's free containers, which ResourceFit checks besides).
func Fits(j *Job, s SlotKind, freeCPU, freeMem, nodeCPU, nodeMem float64) bool {
	kind, ok := j.KindFor(s)
	if !ok {
		return false
	}
	cpu, mem := taskDemand(j, kind)
	cpu, mem = min(cpu, nodeCPU), min(mem, nodeMem)
	if cpu > freeCPU+fitSlack || mem > freeMem+fitSlack {
		return false
	}
	if kind == ReduceTask && j.PendingMaps() > 0 {
		mc, mm := taskDemand(j, MapTask)
		mc, mm = min(mc, nodeCPU), min(mm, nodeMem)
		return cpu+mc <= freeCPU+fitSlack && mem+mm <= freeMem+fitSlack
	}
	return true
}

// JobAdded forwards to the inner placer.
func (f *ResourceFit) JobAdded(c Cluster, j *Job) {
	if ob, ok := f.inner.(JobObserver); ok {
		ob.JobAdded(c, j)
	}
}

// JobRemoved forwards to the inner placer.
func (f *ResourceFit) JobRemoved(c Cluster, j *Job) {
	if ob, ok := f.inner.(JobObserver); ok {
		ob.JobRemoved(c, j)
	}
}

// TaskLaunched forwards to the inner placer.
func (f *ResourceFit) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	if ob, ok := f.inner.(TaskObserver); ok {
		ob.TaskLaunched(c, j, k, n)
	}
}

// TaskEnded forwards to the inner placer.
func (f *ResourceFit) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	if ob, ok := f.inner.(TaskObserver); ok {
		ob.TaskEnded(c, j, k, n, killed)
	}
}
