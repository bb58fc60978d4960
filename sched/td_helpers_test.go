package sched

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
)

// tdEnv drives a TD policy by hand, as an engine would: a fake cluster
// whose clock and map-slot total the test sets, jobs whose blocks sit on
// nodes the test names, and launch/end helpers that update the jobs and
// notify the policy.
type tdEnv struct {
	t       *testing.T
	topo    *cluster.Topology
	p       *TD
	now     float64
	T       int
	jobs    []*Job
	running []TaskRef // maps launched by launch, not yet ended
}

var _ Cluster = (*tdEnv)(nil)

func (e *tdEnv) Now() float64                { return e.now }
func (e *tdEnv) Topology() *cluster.Topology { return e.topo }
func (e *tdEnv) Jobs() []*Job                { return e.jobs }
func (e *tdEnv) Epoch() uint64               { return 0 }
func (e *tdEnv) FreeSlots(cluster.NodeID, SlotKind) int {
	return 1
}
func (e *tdEnv) TotalSlots(k SlotKind) int {
	if k == MapSlot {
		return e.T
	}
	return 0
}
func (e *tdEnv) ReduceAdmissible(*Job, cluster.NodeID) bool        { return true }
func (e *tdEnv) FreeResources(cluster.NodeID) (cpu, memGB float64) { return 4, 16 }
func (e *tdEnv) RunningTasks(j *Job) []TaskRef {
	var out []TaskRef
	for _, r := range e.running {
		if r.Job == j {
			out = append(out, r)
		}
	}
	return out
}
func (e *tdEnv) UplinkUtilization(cluster.RackID) (up, down float64) { return 0, 0 }

// newTDEnv is one rack of 6 nodes (0-5), 2 map slots each, replication 1
// (a block lives on exactly the node a test names), 64 MiB blocks and
// 250 Mbit/s NICs, with T map slots as the test says.
func newTDEnv(t *testing.T, T int, params TDParams) *tdEnv {
	t.Helper()
	return newTDEnvOn(t, cluster.Config{Racks: 1, NodesPerRack: 6, MapSlots: 2, ReduceSlots: 1, Replication: 1}, T, params)
}

func newTDEnvOn(t *testing.T, cfg cluster.Config, T int, params TDParams) *tdEnv {
	t.Helper()
	topo, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewTDPolicy(params)
	if err != nil {
		t.Fatal(err)
	}
	return &tdEnv{t: t, topo: topo, p: p, T: T}
}

// job submits a job of the given kind and demand whose map i reads a block
// on node blocks[i] (replication 1).
func (e *tdEnv) job(kind string, demand int, blocks ...cluster.NodeID) *Job {
	e.t.Helper()
	f := cluster.NewPlacer(e.topo, 1).PlaceFile(len(blocks), cluster.NoWriter)
	copy(f.Replicas, blocks)
	idx := len(e.jobs)
	spec := &workload.Job{ID: idx, Kind: kind, Demand: demand, NumMaps: len(blocks), NumReduces: 1, Weight: 1}
	j := &Job{Spec: spec, Index: idx, Submit: e.now, NumMaps: len(blocks), NumReduces: 1,
		Maps: NewMapIndex(e.topo, &f), Input: &f}
	e.jobs = append(e.jobs, j)
	e.p.JobAdded(e, j)
	return j
}

// tdNodes repeats node n k times: k blocks on n.
func tdNodes(k int, n cluster.NodeID) []cluster.NodeID {
	out := make([]cluster.NodeID, k)
	for i := range out {
		out[i] = n
	}
	return out
}

// put sets job j to status st holding occ running maps, as if it had got
// there. Its blocks all stay untreated, except for senile and finished
// jobs, which have none left; the occ running maps are extra.
func (e *tdEnv) put(j *Job, st TDStatus, occ int) {
	e.t.Helper()
	s := e.p.jobs[j.Index]
	if s.st != TDWaiting {
		e.t.Fatalf("put: job %d is %v already", j.Index, s.st)
	}
	e.p.wait = slices.DeleteFunc(e.p.wait, func(x *tdJob) bool { return x == s })
	if st >= TDSenile {
		for j.PendingMaps() > 0 {
			i, _ := j.Maps.Any()
			j.Maps.Take(i)
		}
	}
	j.RunningMaps = occ
	s.occ = occ
	e.p.setStatus(s, st, e.now)
}

func (e *tdEnv) status(j *Job) TDStatus { return e.p.Status(j) }

// assign offers a map slot on node n.
func (e *tdEnv) assign(n cluster.NodeID) (Decision, bool) {
	return e.p.Assign(e, Offer{Node: n, Slot: MapSlot})
}

// launch carries out decision d on node n, as the engine does.
func (e *tdEnv) launch(n cluster.NodeID, d Decision) {
	e.t.Helper()
	if d.Kind != MapTask || !d.Job.Maps.IsPending(d.Map) {
		e.t.Fatalf("launch: %+v is not a pending map", d)
	}
	d.Job.Maps.Take(d.Map)
	d.Job.RunningMaps++
	e.running = append(e.running, TaskRef{Job: d.Job, Kind: MapTask, Index: d.Map, Node: n, Start: e.now})
	e.p.TaskLaunched(e, d.Job, MapTask, n)
}

// assignAndLaunch offers node n and launches what TD decides.
func (e *tdEnv) assignAndLaunch(n cluster.NodeID) Decision {
	e.t.Helper()
	d, ok := e.assign(n)
	if !ok {
		e.t.Fatalf("t=%v: TD declined node %d", e.now, n)
	}
	e.launch(n, d)
	return d
}

// end finishes the oldest running map of j on node n (or, if launch did
// not start one there, one the test declared with put).
func (e *tdEnv) end(n cluster.NodeID, j *Job) {
	e.endMap(n, j, -1)
}

// endMap finishes map m of j on node n; m < 0 means the oldest there.
func (e *tdEnv) endMap(n cluster.NodeID, j *Job, m int) {
	for k, r := range e.running {
		if r.Job == j && r.Node == n && (m < 0 || r.Index == m) {
			e.running = slices.Delete(e.running, k, k+1)
			break
		}
	}
	j.RunningMaps--
	j.FinishedMaps++
	e.p.TaskEnded(e, j, MapTask, n, false)
}
