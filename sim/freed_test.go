package sim

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// freedLog wraps a policy and records the offers it is asked and the
// tasks that end, per node and time.
type freedLog struct {
	observing
	offers []freedOffer
	ended  map[nodeTime]int // map attempts ended, by node and time
}

type freedOffer struct {
	t float64
	o sched.Offer
}

type nodeTime struct {
	n cluster.NodeID
	t float64
}

func (l *freedLog) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	l.offers = append(l.offers, freedOffer{c.Now(), o})
	return l.Policy.Assign(c, o)
}

func (l *freedLog) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	l.observing.TaskEnded(c, j, k, n, killed)
	if k == sched.MapTask {
		l.ended[nodeTime{n, c.Now()}]++
	}
}

// TestFreedOffersAreTheSlotsTasksFreed pins sched.Offer.Freed: one node with
// two map slots runs a job of six maps of different lengths. The first
// map-slot offer after a map ends carries Freed, once per slot freed; the
// periodic heartbeat's offers of a slot that stayed idle never do.
func TestFreedOffersAreTheSlotsTasksFreed(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 2, ReduceSlots: 1, Replication: 1})
	block := topo.Config().BlockBytes()
	// Six maps: a job the fifo order drains two at a time.
	jobs := []workload.Job{newJob(0, 0).maps(6, block, 10).reduces(1, 1, 1).build()}
	l := &freedLog{observing: observing{mustPolicy(t, "fifo")}, ended: map[nodeTime]int{}}
	e, err := New(Params{CheckInvariants: true}, topo, jobs, l, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	freed := map[nodeTime]int{}
	for _, a := range l.offers {
		if a.o.Slot != sched.MapSlot {
			if a.o.Freed {
				t.Errorf("t=%v: a %s slot offer carries Freed; only map tasks ended on this node's map slots", a.t, a.o.Slot)
			}
			continue
		}
		k := nodeTime{a.o.Node, a.t}
		if a.o.Freed {
			freed[k]++
			if freed[k] > l.ended[k] {
				t.Errorf("t=%v: %d freed map-slot offers, but %d maps ended on node %d then; a re-offer of an idle slot is not freed", a.t, freed[k], l.ended[k], a.o.Node)
			}
		}
	}
	// Every map that ended while maps were still to run freed a slot that
	// was offered as freed at once: the first four of six.
	total := 0
	for _, n := range freed {
		total += n
	}
	if total != 4 {
		t.Errorf("%d freed map-slot offers; want 4 (the first four maps to end free a slot a pending map takes)", total)
	}
}

// TestHeartbeatOffersOnly: with Params.HeartbeatOffersOnly a slot a task
// frees waits for its node's next heartbeat, as Hadoop 1's TaskTrackers
// without the out-of-band heartbeat report a task's end; by default it is
// offered when the task ends. One node (its heartbeats at 0, 3, 6, ...
// s) runs maps of 7 s, which end between heartbeats.
func TestHeartbeatOffersOnly(t *testing.T) {
	for _, tc := range []struct {
		only    bool
		offBeat bool // some launch falls between heartbeats
	}{{false, true}, {true, false}} {
		topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 2, ReduceSlots: 1, Replication: 1})
		block := topo.Config().BlockBytes()
		jobs := []workload.Job{newJob(0, 0).maps(6, block, 7).reduces(1, 1, 1).build()}
		l := &freedLog{observing: observing{mustPolicy(t, "fifo")}, ended: map[nodeTime]int{}}
		e, err := New(Params{CheckInvariants: true, HeartbeatS: 3, HeartbeatOffersOnly: tc.only}, topo, jobs, l, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		offBeat := false
		for _, a := range l.offers {
			if r := math.Mod(a.t, 3); r > 1e-9 && 3-r > 1e-9 {
				offBeat = true
			}
		}
		if offBeat != tc.offBeat {
			t.Errorf("heartbeat offers only %v: an offer between heartbeats %v; want %v", tc.only, offBeat, tc.offBeat)
		}
		if s := e.Collector().Summarize("fifo"); s.JobsCompleted != 1 {
			t.Errorf("heartbeat offers only %v: %d jobs completed; want the one", tc.only, s.JobsCompleted)
		}
	}
}
