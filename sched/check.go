package sched

import (
	"fmt"
	"slices"
)

// CheckDecision reports why an engine cannot carry out decision d for offer
// o, or nil when it can: the job must be active (active reports whether it
// is one of this engine's), a map must go to a map or any slot and be
// pending, a reduce must go to a reduce or any slot and be runnable, a
// chosen source must hold a replica of the map's block, and a reduce must
// be admissible on the node. An impossible decision is a policy bug; the
// simulator and the testbed stop the run with this error, naming the
// policy.
func CheckDecision(c Cluster, o Offer, d Decision, active func(*Job) bool) error {
	if d.Job == nil || !active(d.Job) {
		return fmt.Errorf("chose a job that is not active")
	}
	j := d.Job
	id := j.Spec.ID
	switch {
	case d.Kind == MapTask && o.Slot == ReduceSlot, d.Kind == ReduceTask && o.Slot == MapSlot:
		return fmt.Errorf("put a %s task of job %d in a %s slot", d.Kind, id, o.Slot)
	case d.Kind == MapTask && (d.Map < 0 || d.Map >= j.NumMaps || !j.Maps.IsPending(d.Map)):
		return fmt.Errorf("chose map %d of job %d, which is not pending", d.Map, id)
	case d.Kind == ReduceTask && (!j.ReducesEnabled || j.PendingReduces() == 0):
		return fmt.Errorf("chose a reduce of job %d, which has none runnable", id)
	case d.Kind == MapTask && d.SourceSet && !slices.Contains(j.Input.BlockReplicas(d.Map), d.Source):
		return fmt.Errorf("chose node %d as the source of map %d of job %d, which holds no replica of its block", d.Source, d.Map, id)
	case d.Kind == ReduceTask && !c.ReduceAdmissible(j, o.Node):
		return fmt.Errorf("launched a reduce of job %d on node %d past copy-compute splitting's per-job copy limit", id, o.Node)
	}
	return nil
}
