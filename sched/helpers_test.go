package sched_test

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// fakeCluster is a hand-driven sched.Cluster: tests set its jobs, slot
// totals and epoch directly.
type fakeCluster struct {
	topo  *cluster.Topology
	jobs  []*sched.Job
	total map[sched.SlotKind]int
	free  map[cluster.NodeID]int
	epoch uint64
	now   float64
	// limited is what ReducesLimited says: the reduces may be refused
	// (ReduceAdmissible never does here, but a placer must then ask).
	limited bool
}

var _ sched.Cluster = (*fakeCluster)(nil)

func (c *fakeCluster) ReducesLimited() bool { return c.limited }

func (c *fakeCluster) Now() float64                                     { return c.now }
func (c *fakeCluster) Topology() *cluster.Topology                      { return c.topo }
func (c *fakeCluster) Jobs() []*sched.Job                               { return c.jobs }
func (c *fakeCluster) TotalSlots(k sched.SlotKind) int                  { return c.total[k] }
func (c *fakeCluster) Epoch() uint64                                    { return c.epoch }
func (c *fakeCluster) FreeSlots(n cluster.NodeID, _ sched.SlotKind) int { return c.free[n] }
func (c *fakeCluster) ReduceAdmissible(*sched.Job, cluster.NodeID) bool { return true }

func (c *fakeCluster) FreeResources(cluster.NodeID) (cpu, memGB float64) { return 4, 16 }
func (c *fakeCluster) RunningTasks(*sched.Job) []sched.TaskRef           { return nil }
func (c *fakeCluster) UplinkUtilization(cluster.RackID) (up, down float64) {
	return 0, 0
}

func mustTopo(t *testing.T, cfg cluster.Config) *cluster.Topology {
	t.Helper()
	topo, err := cluster.New(cfg)
	if err != nil {
		t.Fatalf("cluster.New(%+v): %v", cfg, err)
	}
	return topo
}

// smallTopo is 2 racks of 3 nodes (rack 0: nodes 0-2, rack 1: nodes 3-5),
// replication 2.
func smallTopo(t *testing.T) *cluster.Topology {
	return mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Replication: 2})
}

// fileWith builds a file whose block i has exactly the replicas blocks[i]:
// File's replication is unexported, so place a file of the right size and
// overwrite its replicas.
func fileWith(t *testing.T, topo *cluster.Topology, blocks ...[]cluster.NodeID) *cluster.File {
	t.Helper()
	r := topo.Config().Replication
	f := cluster.NewPlacer(topo, 1).PlaceFile(len(blocks), cluster.NoWriter)
	for i, b := range blocks {
		if len(b) != r {
			t.Fatalf("fileWith: block %d has %d replicas, the topology's replication is %d", i, len(b), r)
		}
		copy(f.Replicas[i*r:], b)
	}
	return &f
}

// newJob builds a job of nMaps maps placed at random (seeded) and nReduces
// reduces, all pending.
func newJob(t *testing.T, topo *cluster.Topology, index int, pool string, nMaps, nReduces int) *sched.Job {
	t.Helper()
	f := cluster.NewPlacer(topo, uint64(index)+1).PlaceFile(nMaps, cluster.NoWriter)
	return &sched.Job{
		Spec:       &workload.Job{ID: index, Pool: pool, Submit: float64(index), NumMaps: nMaps, NumReduces: nReduces, Weight: 1},
		Index:      index,
		Pool:       pool,
		Submit:     float64(index),
		NumMaps:    nMaps,
		NumReduces: nReduces,
		Maps:       sched.NewMapIndex(topo, &f),
		Input:      &f,
	}
}

// startMaps launches n of j's pending maps, as the engine would: the map
// leaves the index and counts as running.
func startMaps(t *testing.T, j *sched.Job, n int) {
	t.Helper()
	for range n {
		i, ok := j.Maps.Any()
		if !ok {
			t.Fatalf("job %d has no pending map to start", j.Index)
		}
		j.Maps.Take(i)
		j.RunningMaps++
	}
}

// collect drains a candidate sequence into job indexes.
func collect(seq func(func(*sched.Job) bool)) []int {
	var out []int
	for j := range seq {
		out = append(out, j.Index)
	}
	return out
}

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= eps*math.Max(1, math.Abs(b)) }

// checkErr checks the error of call against a case's want: nil when want
// is "", else an error containing want, which must name what was wrong
// (as why says). It reports whether an error was wanted, for the checks
// that follow only a refusal.
func checkErr(t *testing.T, call string, err error, want, why string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s = %v, want nil", call, err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s = %v, want an error containing %q: %s", call, err, want, why)
	}
	return true
}
