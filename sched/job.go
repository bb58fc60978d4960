package sched

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
	"slices"
)

// Job is a job's scheduling state: what it asked for and how far it has got.
// The engine maintains it (the fields are exported so that any engine, the
// simulator or a live runtime, can); policies only read it.
type Job struct {
	Spec *workload.Job
	// Index is the job's position among all jobs of the run (dense from 0),
	// for policies that keep per-job arrays.
	Index      int
	Pool       string
	Submit     float64
	NumMaps    int
	NumReduces int

	RunningMaps, FinishedMaps       int
	RunningReduces, FinishedReduces int
	// ReducesEnabled is set once the slow-start fraction of maps is done
	// (Hadoop's mapred.reduce.slowstart.completed.maps). Policies may still
	// hold reduces back (ShuffleWatcher does).
	ReducesEnabled bool

	// Maps indexes the pending map tasks by where their input lives.
	Maps *MapIndex
	// Input is the job's input file: map i reads block i.
	Input *cluster.File
	// MapOutputByRack is the map output produced so far on each rack, bytes.
	MapOutputByRack []float64
}

// PendingMaps is the number of maps not yet launched (or killed and back).
func (j *Job) PendingMaps() int { return j.Maps.Pending() }

// PendingReduces is the number of reduces not yet launched.
func (j *Job) PendingReduces() int {
	return j.NumReduces - j.RunningReduces - j.FinishedReduces
}

// Running is the number of running tasks of the kinds a slot can take.
func (j *Job) Running(s SlotKind) int {
	switch s {
	case MapSlot:
		return j.RunningMaps
	case ReduceSlot:
		return j.RunningReduces
	}
	return j.RunningMaps + j.RunningReduces
}

// Runnable is the number of tasks a slot of kind s could start now: pending
// maps, and pending reduces once they are enabled.
func (j *Job) Runnable(s SlotKind) int {
	r := 0
	if s != ReduceSlot {
		r += j.PendingMaps()
	}
	if s != MapSlot && j.ReducesEnabled {
		r += j.PendingReduces()
	}
	return r
}

// Demand is running plus runnable tasks for a slot kind: what the Fair
// Scheduler allocates shares against.
func (j *Job) Demand(s SlotKind) int { return j.Running(s) + j.Runnable(s) }

// KindFor says which task kind a job should start in a slot of kind s.
//
// In the container model a job chooses: it starts a reduce when reduces are
// enabled and pending and either no map is pending or the fraction of its
// reduces launched is below the fraction of its maps finished. This ramps
// reduces up with map progress, as YARN's MapReduce application master does
// (RMContainerAllocator), instead of letting early reduces take every
// container while they wait for map output.
func (j *Job) KindFor(s SlotKind) (TaskKind, bool) {
	switch s {
	case MapSlot:
		return MapTask, j.PendingMaps() > 0
	case ReduceSlot:
		return ReduceTask, j.ReducesEnabled && j.PendingReduces() > 0
	}
	pm := j.PendingMaps() > 0
	pr := j.ReducesEnabled && j.PendingReduces() > 0
	switch {
	case pr && !pm:
		return ReduceTask, true
	case pr && pm:
		launched := float64(j.RunningReduces+j.FinishedReduces) / float64(j.NumReduces)
		done := float64(j.FinishedMaps) / float64(j.NumMaps)
		if launched < done {
			return ReduceTask, true
		}
		return MapTask, true
	case pm:
		return MapTask, true
	}
	return MapTask, false
}

// KindAt is KindFor for a concrete offer: it also keeps the rules that
// depend on the node. A reduce is not started where copy-compute splitting
// forbids it (Cluster.ReduceAdmissible). In the container model a reduce
// whose job still has pending maps never takes a node's last free
// container: the job runs a map there instead. Without that rule every
// container can end up holding a reduce that waits for maps which have
// nowhere to run (YARN's application master avoids the same deadlock by
// preempting reduces).
func (j *Job) KindAt(c Cluster, o Offer) (TaskKind, bool) {
	kind, ok := j.KindFor(o.Slot)
	if !ok || kind != ReduceTask {
		return kind, ok
	}
	if !c.ReduceAdmissible(j, o.Node) {
		if o.Slot == AnySlot && j.PendingMaps() > 0 {
			return MapTask, true
		}
		return ReduceTask, false
	}
	if o.Slot == AnySlot && j.PendingMaps() > 0 && c.FreeSlots(o.Node, AnySlot) < 2 {
		return MapTask, true
	}
	return ReduceTask, true
}

// InputFile is the input file of job spec as every engine places it for
// the run with this seed: its data set's file (spec.DataSet) or a file of
// its own, written from outside the cluster or by one of its nodes as
// spec.Placement says (cluster.Input.Place); map i reads block i. The
// simulator, the testbed's master and its workers all place inputs here,
// so that they agree on every replica.
func InputFile(t *cluster.Topology, seed uint64, spec *workload.Job) cluster.File {
	in := cluster.Input{Job: spec.Name, DataSet: spec.DataSet, Writer: spec.Placement == workload.PlaceWriter}
	f := in.Place(t, seed, spec.NumMaps)
	if m := spec.Measured; m != nil && m.MapHosts != nil {
		f = onHosts(t, f, m.MapHosts)
	}
	return f
}

// onHosts puts each block's replicas on the hosts a trace names for its
// map (its preferred locations) that the cluster has, the first
// replication of them, and fills the rest from the block's placed
// replicas, so every block keeps as many replicas as placement gave it.
func onHosts(t *cluster.Topology, f cluster.File, hosts [][]string) cluster.File {
	out := cluster.File{Blocks: f.Blocks, Replicas: make([]cluster.NodeID, 0, len(f.Replicas))}
	var ends []int32
	for i := 0; i < f.Blocks; i++ {
		placed := f.BlockReplicas(i)
		start := len(out.Replicas)
		if i < len(hosts) {
			for _, h := range hosts[i] {
				n, ok := t.NodeByName(h)
				if ok && len(out.Replicas)-start < len(placed) && !slices.Contains(out.Replicas[start:], n) {
					out.Replicas = append(out.Replicas, n)
				}
			}
		}
		for _, n := range placed {
			if len(out.Replicas)-start >= len(placed) {
				break
			}
			if !slices.Contains(out.Replicas[start:], n) {
				out.Replicas = append(out.Replicas, n)
			}
		}
		ends = append(ends, int32(len(out.Replicas)))
	}
	if f.Ends != nil {
		out.Ends = ends
	}
	return out
}
