package master

import (
	"cmp"
	"slices"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// The master is the policies' sched.Cluster on the testbed: the same
// read-only view the simulator gives, built from heartbeats and the
// kernel's link counters instead of a model.

var _ sched.Cluster = (*Master)(nil)

// Now is the scenario time: the first submission's time plus the wall
// time since the run started, over the time scale.
func (m *Master) Now() float64 { return m.scenarioTime(time.Now()) }

func (m *Master) scenarioTime(t time.Time) float64 {
	return m.t0 + t.Sub(m.wall0).Seconds()/m.cfg.TimeScale
}

// Topology is the cluster's shape.
func (m *Master) Topology() *cluster.Topology { return m.cfg.Topology }

// Jobs returns the active jobs in submit order.
func (m *Master) Jobs() []*sched.Job { return m.active }

// FreeSlots is node n's free slots of kind k.
func (m *Master) FreeSlots(n cluster.NodeID, k sched.SlotKind) int { return m.nodes[n].free[k] }

// TotalSlots is the cluster's slots of kind k.
func (m *Master) TotalSlots(k sched.SlotKind) int { return m.slotTotal[k] }

// Epoch changes whenever any job's demand may have changed.
func (m *Master) Epoch() uint64 { return m.epoch }

// UplinkUtilization is rack r's uplink use over the last monitor period,
// from the kernel's counters of the shaped uplinks.
func (m *Master) UplinkUtilization(r cluster.RackID) (up, down float64) {
	u := m.uplink[r]
	return u[0], u[1]
}

// FreeResources is node n's CPU and memory not held by running tasks.
func (m *Master) FreeResources(n cluster.NodeID) (cpu, memGB float64) {
	cfg := m.cfg.Topology.Config()
	return cfg.CPUCores - m.nodes[n].usedCPU, cfg.MemoryGB - m.nodes[n].usedMem
}

// ReduceAdmissible is always true: the testbed runs without copy-compute
// splitting, and refuses a scenario that asks for it.
func (m *Master) ReduceAdmissible(*sched.Job, cluster.NodeID) bool { return true }

// RunningTasks lists job j's running attempts, oldest launch first (ties
// by kind, then index).
func (m *Master) RunningTasks(j *sched.Job) []sched.TaskRef {
	if !m.isActive(j) {
		return nil
	}
	jr := m.jobs[j.Index]
	var out []sched.TaskRef
	for i := range jr.maps {
		if t := &jr.maps[i]; t.running() {
			out = append(out, sched.TaskRef{Job: j, Kind: sched.MapTask, Index: i, Node: t.node, Start: t.start})
		}
	}
	for i := range jr.reduces {
		if t := &jr.reduces[i]; t.running() {
			out = append(out, sched.TaskRef{Job: j, Kind: sched.ReduceTask, Index: i, Node: t.node, Start: t.start})
		}
	}
	slices.SortStableFunc(out, func(a, b sched.TaskRef) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Index, b.Index))
	})
	return out
}

func (m *Master) isActive(j *sched.Job) bool {
	return j != nil && j.Index >= 0 && j.Index < len(m.jobs) && m.jobs[j.Index] != nil && m.jobs[j.Index].sj == j && !m.jobs[j.Index].done
}
