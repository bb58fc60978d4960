package sim

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/decisions"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// partsOf is job id's time by part in a run that recorded it.
func partsOf(t *testing.T, e *Engine, id int) *critpath.Breakdown {
	t.Helper()
	r := e.Collector().Jobs()[id]
	if r.Time == nil {
		t.Fatalf("job %d (%s) has no time breakdown", id, r.Status())
	}
	return r.Time
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(b)) }

// TestTimeBreakdownHandCases pins the critical path on runs whose timing
// is known by construction.
func TestTimeBreakdownHandCases(t *testing.T) {
	t.Run("a policy holds a map while its slot is free", func(t *testing.T) {
		// One node, free from the start; the policy declines it until
		// 10 s, so the job's only map waits with a free slot in front of
		// it: all of its wait is held, by the policy's name.
		topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1})
		jobs := []workload.Job{newJob(0, 0).maps(1, topo.Config().BlockBytes(), 2).reduces(1, 1000, 0.1).build()}
		pol := &script{notBefore: map[cluster.NodeID]float64{0: 10}}
		e := runJobs(t, topo, jobs, pol, Params{})
		launch := e.Collector().Jobs()[0].FirstLaunch
		b := partsOf(t, e, 0)
		if launch < 10 || !closeTo(b.Parts[critpath.Held], launch) || b.Parts[critpath.Queued] != 0 || b.HeldBy != "script" {
			t.Errorf("launch at %.3f s, held %.3f s by %q, queued %.3f s: want the whole wait from 0 held by script, nothing queued",
				launch, b.Parts[critpath.Held], b.HeldBy, b.Parts[critpath.Queued])
		}
		if !closeTo(b.Parts[critpath.MapCompute], 2) {
			t.Errorf("map compute %.3f s, want the map's 2 s", b.Parts[critpath.MapCompute])
		}
	})
	t.Run("delay scheduling waits for a local slot", func(t *testing.T) {
		// Two nodes of one rack, one map slot each; both jobs read one
		// block of the same data set, so from the same node. Job 0 takes
		// that node for 100 s; job 1, submitted at 5 s, is skipped at the
		// other node's free slot for T1 = 15 s (section 4.2), then runs
		// rack-local there: its wait, from 5 s to its launch, is all held
		// by delay scheduling's wait.
		topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 1, ReduceSlots: 1, Replication: 1})
		block := topo.Config().BlockBytes()
		j0 := newJob(0, 0).maps(1, block, 100).reduces(1, 1000, 0.1).build()
		j1 := newJob(1, 5).maps(1, block, 1).reduces(1, 1000, 0.1).build()
		j0.DataSet, j1.DataSet = "shared", "shared"
		e := runJobs(t, topo, []workload.Job{j0, j1}, mustPolicy(t, "delay"), Params{})
		r := e.Collector().Jobs()[1]
		b := partsOf(t, e, 1)
		wait := r.FirstLaunch - 5
		if r.Locality[cluster.RackLocal] != 1 || wait < 15 || wait > 15+DefaultHeartbeatS {
			t.Fatalf("job 1 launched at %.3f s with locality %v: want one rack-local map within a heartbeat after T1 = 15 s from 5 s", r.FirstLaunch, r.Locality)
		}
		if !closeTo(b.Parts[critpath.Held], wait) || b.Parts[critpath.Queued] > 1e-9 || b.HeldBy != sched.HoldDelay {
			t.Errorf("held %.3f s by %q, queued %.3f s: want the whole %.3f s wait held by %s", b.Parts[critpath.Held], b.HeldBy, b.Parts[critpath.Queued], wait, sched.HoldDelay)
		}
	})
	t.Run("a shuffle bounded by its rack uplink", func(t *testing.T) {
		// A map on rack 0's node, the reduce on rack 1's: 125 MB of map
		// output cross 100 Mb/s uplinks, slower than the 1 Gb/s NICs and
		// the disks, in 10 s after the map ends.
		topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1,
			NICMbps: 1000, RackUplinkMbps: 100})
		const shuffle = 125e6
		j := newJob(0, 0).maps(1, topo.Config().BlockBytes(), 1).reduces(1, shuffle, 1).build()
		pol := &script{maps: [][][]cluster.NodeID{{{0}}}, reduces: [][]cluster.NodeID{{1}}}
		e := runJobs(t, topo, []workload.Job{j}, pol, Params{})
		b := partsOf(t, e, 0)
		want := shuffle / (100e6 / 8)
		if !closeTo(b.Parts[critpath.ShuffleUplink], want) || b.Parts[critpath.ShuffleNIC] != 0 || b.Parts[critpath.ShuffleDisk] != 0 {
			t.Errorf("shuffle by bound: uplink %.3f s, NIC %.3f s, disk %.3f s; want %.3f s all on the uplink (125 MB at 100 Mb/s)",
				b.Parts[critpath.ShuffleUplink], b.Parts[critpath.ShuffleNIC], b.Parts[critpath.ShuffleDisk], want)
		}
		if !closeTo(b.Parts[critpath.ReduceCompute], 1) {
			t.Errorf("reduce compute %.3f s, want the reduce's 1 s", b.Parts[critpath.ReduceCompute])
		}
	})
}

// TestTimeBreakdownEveryPolicy runs a real trace slice under every
// registered policy with every cost, speculation and task failures: each
// job's parts add up to its turnaround (the run checks it as an
// invariant, and so does the test), none is negative, and a policy's
// holds are named by its own rules.
func TestTimeBreakdownEveryPolicy(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 4, NodesPerRack: 5, Disk: &costDisk})
	jobs := fb2009Slice(t, 150, topo)
	p := costParams
	p.TaskFailureRate = 0.02
	for _, name := range sched.PolicyNames() {
		t.Run(name, func(t *testing.T) {
			e := runJobs(t, topo, jobs, mustPolicy(t, name), p)
			var held float64
			for _, r := range e.Collector().Jobs() {
				if r.Status() != "completed" {
					continue
				}
				if r.Time == nil {
					t.Fatalf("job %d completed with no breakdown", r.ID)
				}
				if s := r.Time.Sum(); math.Abs(s-r.Turnaround()) > 1e-3 {
					t.Errorf("job %d: parts sum to %.6f s, turnaround %.6f s", r.ID, s, r.Turnaround())
				}
				held += r.Time.Parts[critpath.Held]
			}
			s := e.Collector().Summarize(name)
			if s.TimeBreakdown == nil || s.TimeBreakdown.Jobs != s.JobsCompleted {
				t.Fatalf("summary's time_breakdown %+v, want one covering the %d completed jobs", s.TimeBreakdown, s.JobsCompleted)
			}
			if got := sumHeld(s.TimeBreakdown); !closeTo(got, held) {
				t.Errorf("summary's held_by_s sums to %.3f s, the jobs' held time is %.3f s", got, held)
			}
		})
	}
}

func sumHeld(tb *metrics.TimeBreakdown) float64 {
	s := 0.0
	for _, v := range tb.HeldByS {
		s += v
	}
	return s
}

// recordLog keeps a decisions log in memory.
type recordLog struct{ recs []decisions.Record }

func (l *recordLog) Write(r *decisions.Record) { l.recs = append(l.recs, *r) }

// onNode returns a data set whose one block the placement puts on node n.
func onNode(t *testing.T, topo *cluster.Topology, n cluster.NodeID) string {
	t.Helper()
	return placedOn(t, n, func(k int) string { return fmt.Sprintf("set%d", k) }, func(ds string) cluster.File {
		j := newJob(0, 0).maps(1, topo.Config().BlockBytes(), 1).build()
		j.DataSet = ds
		return sched.InputFile(topo, 1, &j)
	})
}

// TestDecisionsLogMatchesHandTrace checks a small run's log against the
// policy traced by hand. Two nodes, X and Y, of one rack, a map slot
// each, one replica a block. Job 0 holds X for 100 s. Jobs 1 and 2, of
// one pool, arrive at 10 and 10.5 s: job 1's block is on X, job 2's on Y.
// At Y's first offer after both came, delay scheduling's fair order
// yields job 1 first (the earlier); it has no map local to Y and is
// skipped (section 4.2), and job 2 launches its node-local map: the
// record names both, in that order, and why job 1 was passed over.
func TestDecisionsLogMatchesHandTrace(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	block := topo.Config().BlockBytes()
	onX, onY := onNode(t, topo, 0), onNode(t, topo, 1)
	jobs := []workload.Job{
		newJob(0, 0).maps(1, block, 100).reduces(1, 1000, 0.1).build(),
		newJob(1, 10).maps(1, block, 1).reduces(1, 1000, 0.1).build(),
		newJob(2, 10.5).maps(1, block, 1).reduces(1, 1000, 0.1).build(),
	}
	jobs[0].DataSet, jobs[1].DataSet, jobs[2].DataSet = onX, onX, onY
	jobs[2].User, jobs[2].Pool = jobs[1].User, jobs[1].Pool
	e, err := New(Params{CheckInvariants: true}, topo, jobs, mustPolicy(t, "delay"), 1)
	if err != nil {
		t.Fatal(err)
	}
	log := &recordLog{}
	e.SetDecisionLog(log)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(log.recs, func(r decisions.Record) bool { return r.Job == 2 && r.Task == "map" })
	if i < 0 {
		t.Fatalf("no launch of job 2's map among %d records", len(log.recs))
	}
	got := log.recs[i]
	want := decisions.Record{T: got.T, Node: "r0n1", Slot: "map", Job: 2, Task: "map", Map: 0, Rule: sched.RuleNodeLocal, Reach: "node",
		Considered: []int{1, 2}, Passed: []decisions.Pass{{Job: 1}}}
	if len(got.Passed) == 1 {
		want.Passed[0].Why = got.Passed[0].Why
	}
	if !reflect.DeepEqual(got, want) || got.T < 10.5 {
		t.Errorf("job 2's launch:\n got %+v\nwant %+v (after 10.5 s)", got, want)
	}
	if len(got.Passed) == 1 && !strings.HasPrefix(got.Passed[0].Why, "delay: no map local to the node; node-local only, skipped ") {
		t.Errorf("job 1 passed over because %q, want delay scheduling's node-local wait", got.Passed[0].Why)
	}
	if j1 := slices.IndexFunc(log.recs, func(r decisions.Record) bool { return r.Job == 1 && r.Task == "map" }); j1 < 0 || log.recs[j1].Rule != sched.RuleRackLocal {
		t.Errorf("job 1's map: want it launched rack-local after its wait, records %+v", log.recs)
	}
}
