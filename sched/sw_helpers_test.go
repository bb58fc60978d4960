package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// swCluster is a fakeCluster whose racks' uplink utilisation a test sets,
// for NetSat.
type swCluster struct {
	*fakeCluster
	util map[cluster.RackID]float64 // uplink utilisation, up direction
	down map[cluster.RackID]float64 // and down
}

func (c *swCluster) UplinkUtilization(r cluster.RackID) (up, down float64) {
	return c.util[r], c.down[r]
}

// newSWCluster is a fake cluster over topo with 4 free slots on every node.
func newSWCluster(topo *cluster.Topology) *swCluster {
	c := &swCluster{fakeCluster: &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.MapSlot: 24, sched.ReduceSlot: 12, sched.AnySlot: 24},
		free: map[cluster.NodeID]int{}}, util: map[cluster.RackID]float64{}, down: map[cluster.RackID]float64{}}
	for n := range topo.NumNodes() {
		c.free[cluster.NodeID(n)] = 4
	}
	return c
}

// swTopo is 2 racks of 3 nodes (rack 0: nodes 0-2, rack 1: nodes 3-5),
// replication 2, in the container model, so every line of Fig. 3 can fire
// on one offer.
func swTopo(t *testing.T) *cluster.Topology {
	return mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Containers: 4, Replication: 2})
}

// swJob builds job index of pool, submitted at index seconds, whose block i
// has replicas blocks[i], each a full block, with 2 reduces and a shuffle
// of ratio times its input (the ratio a known_ratios policy reads).
func swJob(t *testing.T, topo *cluster.Topology, index int, pool string, ratio float64, blocks ...[]cluster.NodeID) *sched.Job {
	t.Helper()
	f := fileWith(t, topo, blocks...)
	in := int64(len(blocks)) * topo.Config().BlockBytes()
	spec := &workload.Job{ID: index, Pool: pool, Submit: float64(index), NumMaps: len(blocks), NumReduces: 2,
		InputBytes: in, ShuffleBytes: int64(ratio * float64(in)), Weight: 1}
	return &sched.Job{Spec: spec, Index: index, Pool: pool, Submit: float64(index), NumMaps: len(blocks), NumReduces: 2,
		Maps: sched.NewMapIndex(topo, f), Input: f, MapOutputByRack: make([]float64, topo.NumRacks())}
}

// finishMaps marks every map of j finished, with output bytes out[r] on rack
// r, and reduces enabled by slow-start, as the engine would leave it.
func finishMaps(j *sched.Job, out ...float64) {
	for i := range j.NumMaps {
		j.Maps.Take(i)
	}
	j.FinishedMaps = j.NumMaps
	copy(j.MapOutputByRack, out)
	j.ReducesEnabled = true
}

// swPolicy composes a FIFO order with a ShuffleWatcher placer.
func swPolicy(t *testing.T, p sched.SWParams, o sched.SWOptions) (sched.Policy, *sched.ShuffleWatcher) {
	t.Helper()
	sw, err := sched.NewShuffleWatcher(p, o)
	if err != nil {
		t.Fatalf("NewShuffleWatcher: %v", err)
	}
	return sched.Compose("sw-test", sched.FIFOOrder{}, sw), sw
}

// addJobs submits jobs to c and to the policy, then reports each job's
// finished maps, as the engine does when they end.
func addJobs(t *testing.T, c sched.Cluster, fc *fakeCluster, pol sched.Policy, jobs ...*sched.Job) {
	t.Helper()
	jo, to := observers(t, pol)
	for _, j := range jobs {
		fc.jobs = append(fc.jobs, j)
		fc.epoch++
		jo.JobAdded(c, j)
		if j.FinishedMaps > 0 {
			to.TaskEnded(c, j, sched.MapTask, 0, false)
		}
	}
}

// launch applies a decision as the engine would and tells the policy.
func launch(t *testing.T, c sched.Cluster, pol sched.Policy, d sched.Decision, n cluster.NodeID) {
	t.Helper()
	_, to := observers(t, pol)
	if d.Kind == sched.MapTask {
		d.Job.Maps.Take(d.Map)
		d.Job.RunningMaps++
	} else {
		d.Job.RunningReduces++
	}
	to.TaskLaunched(c, d.Job, d.Kind, n)
}

func jobIdx(d sched.Decision, ok bool) int {
	if !ok || d.Job == nil {
		return -1
	}
	return d.Job.Index
}
