package probe

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// probeCluster is the clock and topology Traffic reads.
type probeCluster struct {
	sched.Cluster
	now  float64
	topo *cluster.Topology
}

func (c *probeCluster) Now() float64                { return c.now }
func (c *probeCluster) Topology() *cluster.Topology { return c.topo }

// Fig. 9's concurrency is each job's running maps (reduces) over its
// user's running tasks, time-averaged over thirds of the job's life: a job
// alone with 3 maps (1.0), then beside its user's other map (3 of 4), then
// with 1 reduce beside that map (reduce 1 of 2).
func TestSWProbeConcurrencyThirds(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 10, NodesPerRack: 10, MapSlots: 4, ReduceSlots: 2, NICMbps: 250, RackUplinkMbps: 500, BlockMB: 64, Replication: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := &probeCluster{topo: topo}
	p := NewTraffic(nil, topo, 2, 0, -1)
	a := &sched.Job{Index: 0, Pool: "u", Submit: 0}
	b := &sched.Job{Index: 1, Pool: "u", Submit: 0}
	p.jobAdded(c, a)
	p.jobAdded(c, b)
	for range 3 {
		p.launched(c, a, sched.MapTask, 0)
	}
	c.now = 10
	p.launched(c, b, sched.MapTask, 1)
	c.now = 20
	for range 3 {
		p.ended(c, a, sched.MapTask)
	}
	p.launched(c, a, sched.ReduceTask, 0)
	c.now = 30
	p.ended(c, a, sched.ReduceTask)
	p.jobRemoved(c, a)
	want := [2][3]float64{{1, 0.75, 0}, {0, 0, 0.5}}
	got := p.Jobs[0]
	for k := range 3 {
		if !got.ConcOK[k] {
			t.Fatalf("third %d not measured, want measured: the user ran tasks throughout", k)
		}
		for kind := range 2 {
			if math.Abs(got.Conc[kind][k]-want[kind][k]) > 1e-9 {
				t.Errorf("third %d, %s: concurrency %v, want %v", k, sched.TaskKind(kind), got.Conc[kind][k], want[kind][k])
			}
		}
	}
}
