package sim

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// script is a policy that puts tasks where a test says: map i of job j on
// a node of maps[j][i] (any node when that is empty), reading from
// src[j][i] when it is set (>= 0), and job j's reduces on a node of
// reduces[j]; node n takes nothing before notBefore[n]. It records the
// offers it gets and the tasks' launches and ends.
type script struct {
	maps      [][][]cluster.NodeID
	src       [][]cluster.NodeID
	reduces   [][]cluster.NodeID
	notBefore map[cluster.NodeID]float64
	offers    []offerAt
	events    []taskAt
}

type offerAt struct {
	t     float64
	n     cluster.NodeID
	kind  sched.SlotKind
	total int // the cluster's slots of the offer's kind
}

type taskAt struct {
	t        float64
	job      int
	kind     sched.TaskKind
	n        cluster.NodeID
	launched bool
	killed   bool
}

func (s *script) Name() string { return "script" }

func allows(ns []cluster.NodeID, n cluster.NodeID) bool {
	return len(ns) == 0 || slices.Contains(ns, n)
}

func (s *script) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	s.offers = append(s.offers, offerAt{c.Now(), o.Node, o.Slot, c.TotalSlots(o.Slot)})
	if c.Now() < s.notBefore[o.Node] {
		return sched.Decision{}, false
	}
	for _, j := range c.Jobs() {
		if o.Slot != sched.ReduceSlot {
			for i := 0; i < j.NumMaps; i++ {
				if !j.Maps.IsPending(i) || j.Index < len(s.maps) && i < len(s.maps[j.Index]) && !allows(s.maps[j.Index][i], o.Node) {
					continue
				}
				d := sched.Decision{Job: j, Kind: sched.MapTask, Map: i, Rule: "script"}
				if j.Index < len(s.src) && i < len(s.src[j.Index]) && s.src[j.Index][i] >= 0 {
					d.Source, d.SourceSet = s.src[j.Index][i], true
				}
				return d, true
			}
		}
		if o.Slot != sched.MapSlot && j.ReducesEnabled && j.PendingReduces() > 0 && c.ReduceAdmissible(j, o.Node) &&
			(j.Index >= len(s.reduces) || allows(s.reduces[j.Index], o.Node)) {
			return sched.Decision{Job: j, Kind: sched.ReduceTask, Rule: "script"}, true
		}
	}
	return sched.Decision{}, false
}

func (s *script) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	s.events = append(s.events, taskAt{t: c.Now(), job: j.Index, kind: k, n: n, launched: true})
}

func (s *script) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	s.events = append(s.events, taskAt{t: c.Now(), job: j.Index, kind: k, n: n, killed: killed})
}

// ends returns the task ends of kind k on node n, killed or finished.
func (s *script) ends(k sched.TaskKind, n cluster.NodeID, killed bool) []float64 {
	var out []float64
	for _, e := range s.events {
		if !e.launched && e.kind == k && e.n == n && e.killed == killed {
			out = append(out, e.t)
		}
	}
	return out
}

// runFaults runs jobs with the faults specs, invariants on.
func runFaults(t *testing.T, topo *cluster.Topology, jobs []workload.Job, pol sched.Policy, p Params, specs []faults.Spec) *Engine {
	t.Helper()
	evs, err := faults.Resolve(specs, topo)
	if err != nil {
		t.Fatal(err)
	}
	p.CheckInvariants, p.TimeBreakdown = true, true
	e, err := New(p, topo, jobs, pol, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetFaults(evs); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatalf("%s: %v", pol.Name(), err)
	}
	return e
}

func kill(node string, at float64) faults.Spec    { return faults.Spec{KillNode: node, AtS: at} }
func restore(node string, at float64) faults.Spec { return faults.Spec{RestoreNode: node, AtS: at} }
func killRack(r int, at float64) faults.Spec      { return faults.Spec{KillRack: &r, AtS: at} }

func faultsOf(t *testing.T, e *Engine) metrics.Faults {
	t.Helper()
	s := e.Collector().Summarize("x")
	if s.Faults == nil {
		t.Fatal("a run with faults has no faults object in its summary")
	}
	return *s.Faults
}

// replicasOf is where job name's input blocks are, as the engine places
// them with seed 1.
func replicasOf(topo *cluster.Topology, name string, blocks int) *cluster.File {
	f := cluster.PlaceInput(topo, 1, name, blocks)
	return &f
}

// others returns the nodes of topo not in ns.
func others(topo *cluster.Topology, ns ...cluster.NodeID) []cluster.NodeID {
	var out []cluster.NodeID
	for n := cluster.NodeID(0); int(n) < topo.NumNodes(); n++ {
		if !slices.Contains(ns, n) {
			out = append(out, n)
		}
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestMapReadFromDeadNode: a map on node c reading its block from node a,
// which dies 4 s into the 10 s read, reads the whole block again from the
// other replica and ends 10 s after the kill; with both replicas' nodes
// dead, the read fails, and every retry fails at once, until the job
// fails with the reason. When c itself dies, the map makes no progress:
// it fails at c's expiry, 10 s later, and runs again on a.
func TestMapReadFromDeadNode(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 1, Replication: 2})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{newJob(0, 0).maps(1, block, 10).reduces(1, 1000, 0.1).build()}
	reps := replicasOf(topo, "job0", 1).BlockReplicas(0)
	a, b := reps[0], reps[1]
	c := others(topo, a, b)[0]
	// Node n's first heartbeat is at n s (3 s period over 3 nodes).
	launch := float64(c)
	name := func(n cluster.NodeID) string { return faults.NodeName(topo, n) }
	for _, tc := range []struct {
		name       string
		specs      []faults.Spec
		wantEnd    float64 // the map's end; 0: it never ends
		wantFailed bool
	}{
		{"one replica left: read again", []faults.Spec{kill(name(a), launch+4)}, launch + 14, false},
		{"no replica left: the job fails", []faults.Spec{kill(name(a), launch+4), kill(name(b), launch+4)}, 0, true},
		{"the map's own node dies", []faults.Spec{kill(name(c), launch+4)}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := &script{maps: [][][]cluster.NodeID{{{c, a}}}, src: [][]cluster.NodeID{{a}}, reduces: [][]cluster.NodeID{{c, a}},
				notBefore: map[cluster.NodeID]float64{a: launch + 5}}
			e := runFaults(t, topo, jobs, pol, Params{NodeExpiryS: 10}, tc.specs)
			if l := pol.events[0]; !l.launched || l.t != launch || l.n != c {
				t.Fatalf("first event %+v, want map 0 launched on node %d at %v s", l, c, launch)
			}
			f := faultsOf(t, e)
			rec := e.Collector().Jobs()[0]
			if !tc.wantFailed && tc.wantEnd == 0 {
				if ends := pol.ends(sched.MapTask, c, false); len(ends) != 0 {
					t.Errorf("the map finished on c at %v, after c died at %v", ends, launch+4)
				}
				if k := pol.ends(sched.MapTask, c, true); len(k) != 1 || k[0] != launch+14 {
					t.Errorf("the map on c was killed at %v, want once, at c's expiry %v", k, launch+14)
				}
				if ends := pol.ends(sched.MapTask, a, false); len(ends) != 1 || rec.Status() != "completed" {
					t.Errorf("the map finished %d times on a and the job %s; want once, and completed", len(ends), rec.Status())
				}
				if f.KilledAttempts != 1 || !near(f.WastedTaskS, 14, 1e-6) || f.LostNodes != 1 {
					t.Errorf("faults %+v; want c lost, its one attempt killed after 14 s", f)
				}
				return
			}
			if !tc.wantFailed {
				ends := pol.ends(sched.MapTask, c, false)
				if len(ends) != 1 || !near(ends[0], tc.wantEnd, 1e-6) {
					t.Errorf("map ended at %v, want once at %v: the read starts again from the beginning at the kill", ends, tc.wantEnd)
				}
				if rec.Status() != "completed" || f.KilledAttempts != 0 {
					t.Errorf("job %s with %d attempts failed by the loss; want completed with none: a live replica was left", rec.Status(), f.KilledAttempts)
				}
				return
			}
			if rec.Status() != "failed" || !strings.Contains(rec.Reason, "failed 4 attempts") || !strings.Contains(rec.Reason, "block 0 of its input has no live replica") {
				t.Errorf("job %s, reason %q; want failed, after 4 attempts, for block 0's lost replicas", rec.Status(), rec.Reason)
			}
			if f.KilledAttempts != 4 || f.FailedJobs != 1 || !near(f.WastedTaskS, 4, 1e-6) {
				t.Errorf("faults %+v; want 4 attempts failed by the loss (the first after 4 s of work, the retries at once) and 1 job failed", f)
			}
		})
	}
}

// TestReduceWaitsForLostOutput: node A runs map 0 and dies after it
// finished, while the job's reduce on node C still copies (it waits for
// map 2 on node B). Until A expires the reduce waits for map 0's output;
// then map 0 runs again on B. A reduce that had fetched map 0's output
// before the kill keeps it and computes as soon as the re-execution ends;
// one whose fetch from A broke fetches the new output first. Bytes are
// conserved (invariants) and counted once; A's slots are not offered after
// the kill and leave the cluster at expiry.
func TestReduceWaitsForLostOutput(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 1, Replication: 3})
	block := topo.Config().BlockBytes()
	const A, B, C = 0, 1, 2
	nic := topo.LinkCapacities()[topo.NICUp(0)]
	for _, tc := range []struct {
		name    string
		share   float64 // bytes of each map's output for the reduce
		p       Params
		wantEnd float64 // the reduce's end
	}{
		// Maps: 0 on A 0-10, 1 on B 1-11, 2 on B 11-21; A dies at 15 and
		// expires at 17; map 0 runs again on B 21-31. The reduce launches
		// on C at 11.
		{"fetched before the kill: kept", 1e5, Params{}, 31 + 1},
		{"fetch broken by the kill: fetched again", 5 * nic, Params{}, 31 + 5 + 1},
		{"copy-compute splitting", 1e5, Params{CopyCompute: CopyCompute{Enabled: true, MaxReducers: 2, MaxComputing: 1}}, 31 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := []workload.Job{newJob(0, 0).maps(3, block, 10).reduces(1, int64(3*tc.share), 1).build()}
			pol := &script{maps: [][][]cluster.NodeID{{{A, B}, {B}, {B}}}, reduces: [][]cluster.NodeID{{C}}}
			tc.p.NodeExpiryS = 2
			e := runFaults(t, topo, jobs, pol, tc.p, []faults.Spec{kill("r0n0", 15)})
			f := faultsOf(t, e)
			if f.LostNodes != 1 || f.ReexecutedMaps != 1 || f.KilledAttempts != 0 || !near(f.WastedTaskS, 10, 1e-4) {
				t.Errorf("faults %+v; want node A lost, its one finished map (10 s) run again, no attempt killed", f)
			}
			rec := e.Collector().Jobs()[0]
			if rec.Status() != "completed" {
				t.Fatalf("job %s (%s), want completed", rec.Status(), rec.Reason)
			}
			launches, endsOf := 0, 0
			for _, ev := range pol.events {
				if ev.launched {
					launches++
				} else {
					endsOf++
				}
			}
			if launches != endsOf {
				t.Errorf("%d launches and %d ends told to the policy; want one end an attempt (a map run again gets no second end)", launches, endsOf)
			}
			if ends := pol.ends(sched.MapTask, B, false); len(ends) != 3 || !near(ends[2], 31, 1e-6) {
				t.Errorf("maps ended on B at %v, want 3, the last (map 0 again) at 31", ends)
			}
			if ends := pol.ends(sched.ReduceTask, C, false); len(ends) != 1 || !near(ends[0], tc.wantEnd, 1e-3) {
				t.Errorf("the reduce ended at %v, want %.3f", ends, tc.wantEnd)
			}
			s := e.Collector().Summarize("script")
			if !near(s.Bytes.ShuffleTotal, float64(jobs[0].ShuffleBytes), 1) {
				t.Errorf("shuffle moved %.0f bytes in completed fetches, want the job's %d: each map's part fetched once", s.Bytes.ShuffleTotal, jobs[0].ShuffleBytes)
			}
			perNode := map[sched.SlotKind]int{}
			for _, o := range pol.offers {
				if _, ok := perNode[o.kind]; !ok {
					perNode[o.kind] = o.total / 3
				}
			}
			for _, o := range pol.offers {
				if o.n == A && o.t >= 15 {
					t.Errorf("node A was offered at %v s, after it died at 15 s", o.t)
				}
				if want := map[bool]int{true: 2, false: 3}[o.t >= 17] * perNode[o.kind]; o.total != want {
					t.Errorf("at %v s the cluster had %d slots of the offer's kind, want %d (A's leave at its expiry, 17 s)", o.t, o.total, want)
				}
			}
		})
	}
}

// TestPipelineThroughDeadNode: a reduce on C writes 10 s of output through
// a pipeline of all three nodes; A, in the pipeline, dies 4 s into the
// write, which starts again through the other two and ends 10 s after the
// kill (map 0's output on A is lost at A's expiry, so map 0 runs again on
// B, as Hadoop 1 re-runs a running job's maps). When the writer's own node
// dies, its reduce freezes, fails at the node's expiry and runs again on B.
func TestPipelineThroughDeadNode(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 1, Replication: 3})
	block := topo.Config().BlockBytes()
	nic := topo.LinkCapacities()[topo.NICUp(0)]
	const A, B, C = 0, 1, 2
	// Map 0 on A 0-1; the reduce on C from 2 (C's first heartbeat):
	// fetch (1 kB), 1 s of compute, then writes from about 3.
	jobs := []workload.Job{newJob(0, 0).maps(1, block, 1).reduces(1, 1000, 1).output(int64(10 * nic)).build()}
	writeStart := 3 + 1000/nic
	for _, tc := range []struct {
		name       string
		kill       string
		wantEnd    float64
		wantKilled int64
	}{
		{"a node of the pipeline", "r0n0", writeStart + 4 + 10, 0},
		// C dies at write+4 and expires 5 s later; the reduce runs again
		// on B from its next heartbeat (B's phase: 1 s a 3 s period).
		{"the writer's node", "r0n2", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := &script{maps: [][][]cluster.NodeID{{{A, B}}}, reduces: [][]cluster.NodeID{{C, B}}, notBefore: map[cluster.NodeID]float64{B: 10}}
			e := runFaults(t, topo, jobs, pol, Params{NodeExpiryS: 5}, []faults.Spec{kill(tc.kill, writeStart+4)})
			rec := e.Collector().Jobs()[0]
			if rec.Status() != "completed" {
				t.Fatalf("job %s (%s), want completed", rec.Status(), rec.Reason)
			}
			f := faultsOf(t, e)
			if f.KilledAttempts != tc.wantKilled {
				t.Errorf("%d attempts killed by the loss, want %d", f.KilledAttempts, tc.wantKilled)
			}
			if tc.wantEnd > 0 {
				if ends := pol.ends(sched.ReduceTask, C, false); len(ends) != 1 || !near(ends[0], tc.wantEnd, 1e-3) {
					t.Errorf("the reduce ended at %v, want %.3f: the write starts again at the kill", ends, tc.wantEnd)
				}
				return
			}
			if k := pol.ends(sched.ReduceTask, C, true); len(k) != 1 || !near(k[0], writeStart+9, 1e-6) {
				t.Errorf("the reduce on C was killed at %v, want once at its node's expiry, %.3f", k, writeStart+9)
			}
			if ends := pol.ends(sched.ReduceTask, B, false); len(ends) != 1 {
				t.Errorf("the reduce ended %d times on B, want once, run again there", len(ends))
			}
		})
	}
}

// TestKillRackAndRestore: a rack kill kills each of its nodes; they
// expire together; a node restored after its expiry comes back empty
// (offered again, its slots counted again, but no replica of the inputs
// placed before); a node restored before its expiry is lost at the
// restore, its running attempt failing then, and its expiry never comes.
func TestKillRackAndRestore(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 2, MapSlots: 1, ReduceSlots: 1})
	block := topo.Config().BlockBytes()
	var jobs []workload.Job
	for i := 0; i < 6; i++ {
		jobs = append(jobs, newJob(i, float64(20*i)).maps(4, block, 20).reduces(2, 1<<20, 5).build())
	}
	const r1n0 = 2
	cases := []struct {
		name      string
		specs     []faults.Spec
		lost      int
		killedAt  float64 // when r1n0's attempts were killed
		restoreAt float64
	}{
		{"rack killed, a node restored after expiry", []faults.Spec{killRack(1, 10), restore("r1n0", 100)}, 2, 70, 100},
		{"a node restored before expiry", []faults.Spec{kill("r1n0", 10), restore("r1n0", 30)}, 1, 30, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := &restoreWatch{observing: observing{mustPolicy(t, "fair")}, node: r1n0, from: tc.restoreAt}
			e := runFaults(t, topo, jobs, obs, Params{NodeExpiryS: 60}, tc.specs)
			f := faultsOf(t, e)
			s := e.Collector().Summarize("fair")
			if f.LostNodes != tc.lost || s.JobsCompleted != len(jobs) {
				t.Errorf("%d nodes lost, %d of %d jobs completed; want %d lost, all completed", f.LostNodes, s.JobsCompleted, len(jobs), tc.lost)
			}
			if len(obs.killedOn) == 0 {
				t.Error("no attempt on r1n0 was killed; the case wants one running at the kill")
			}
			for _, k := range obs.killedOn {
				if k != tc.killedAt {
					t.Errorf("an attempt on r1n0 was killed at %v s, want at %v s", k, tc.killedAt)
				}
			}
			if obs.offered == 0 {
				t.Error("r1n0 was never offered after its restore")
			}
			if obs.bad != "" {
				t.Error(obs.bad)
			}
		})
	}
}

// restoreWatch wraps a policy and checks, at each offer on node after
// from, that no active job's input lists the node and that the cluster
// counts its slots again.
type restoreWatch struct {
	observing
	node     cluster.NodeID
	from     float64
	offered  int
	killedOn []float64
	bad      string
}

func (w *restoreWatch) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	if o.Node == w.node && c.Now() >= w.from {
		w.offered++
		for _, j := range c.Jobs() {
			if slices.Contains(j.Input.Replicas, w.node) && j.Submit < w.from && w.bad == "" {
				w.bad = "a job submitted before the restore still lists a replica on the restored node"
			}
		}
	}
	if w.offered > 0 && c.TotalSlots(o.Slot) < 3 && w.bad == "" {
		w.bad = "after the restore the cluster counts fewer than 3 nodes' slots"
	}
	return w.Policy.Assign(c, o)
}

func (w *restoreWatch) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if killed && n == w.node {
		w.killedOn = append(w.killedOn, c.Now())
	}
	w.observing.TaskEnded(c, j, k, n, killed)
}

// TestLostLastReplicaFailsJob: a job left needing a block whose every
// replica was lost fails, with the reason in jobs.csv, whether it was
// submitted after the loss, had its maps fail on the dead nodes before
// the loss, or lost the output of a map whose block is gone; the other
// job, whose blocks all have a replica left, completes.
func TestLostLastReplicaFailsJob(t *testing.T) {
	for _, tc := range []struct {
		name        string
		replication int
		submit      float64
		at          float64 // the kills' time
		expiry      float64
		want        string // also in job 0's reason: how it failed, when only one way can
	}{
		{"replication 1, lost before the job arrives", 1, 100, 0, 10, "no live replica (lost with nodes"},
		{"replication 1, dead while the job runs", 1, 0, 5, 20, ""},
		{"three replicas' nodes, lost before the job arrives", 3, 100, 0, 10, "no live replica (lost with nodes"},
		{"three replicas' nodes, dead while the job runs", 3, 0, 5, 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, MapSlots: 2, ReduceSlots: 1, Replication: tc.replication})
			block := topo.Config().BlockBytes()
			// Kill the nodes of job 0's block 3 (a map launched after the
			// kill), choosing job 1's name so that it keeps a replica of
			// every block.
			dead := replicasOf(topo, "job0", 8).BlockReplicas(3)
			name1 := ""
			for k := 0; name1 == ""; k++ {
				name := "other" + strconv.Itoa(k)
				f := replicasOf(topo, name, 8)
				ok := true
				for i := 0; i < 8; i++ {
					if !slices.ContainsFunc(f.BlockReplicas(i), func(n cluster.NodeID) bool { return !slices.Contains(dead, n) }) {
						ok = false
					}
				}
				if ok {
					name1 = name
				}
			}
			j1 := newJob(1, tc.submit).maps(8, block, 10).reduces(2, 1<<20, 2).build()
			j1.Name = name1
			jobs := []workload.Job{newJob(0, tc.submit).maps(8, block, 10).reduces(2, 1<<20, 2).build(), j1}
			var specs []faults.Spec
			for _, n := range dead {
				specs = append(specs, kill(faults.NodeName(topo, n), tc.at))
			}
			e := runFaults(t, topo, jobs, mustPolicy(t, "fifo"), Params{NodeExpiryS: tc.expiry}, specs)
			recs := e.Collector().Jobs()
			if recs[0].Status() != "failed" || !strings.Contains(recs[0].Reason, "block 3 of its input has no live replica") || !strings.Contains(recs[0].Reason, tc.want) {
				t.Errorf("job 0: %s, reason %q; want failed for block 3, %q", recs[0].Status(), recs[0].Reason, tc.want)
			}
			if recs[1].Status() != "completed" {
				t.Errorf("job 1: %s (%s), want completed: each of its blocks keeps a replica", recs[1].Status(), recs[1].Reason)
			}
			if f := faultsOf(t, e); f.FailedJobs != 1 {
				t.Errorf("faults.failed_jobs = %d, want 1", f.FailedJobs)
			}
		})
	}
}

// TestStarvingMapsPreemptReduces: in the container model, when a lost
// node's output sends a job's only map back to pending while the job's two
// copying reduces (their fetches from the dead node broken) hold every
// live container, the job kills its most recently launched reduce at the
// next monitor sample, its map runs in the freed container, and the job
// completes.
func TestStarvingMapsPreemptReduces(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, Containers: 1, Replication: 3})
	block := topo.Config().BlockBytes()
	const A, B, C = 0, 1, 2
	nic := topo.LinkCapacities()[topo.NICUp(0)]
	// The map runs on A 0-10; the reduces launch on B at 10 and C at 11
	// and fetch from A for 20 s; A dies at 15 and expires at 20; the
	// monitor samples every 3 s.
	jobs := []workload.Job{newJob(0, 0).maps(1, block, 10).reduces(2, int64(10*nic), 1).build()}
	pol := &script{maps: [][][]cluster.NodeID{{{A, C}}}, reduces: [][]cluster.NodeID{{B, C}}}
	e := runFaults(t, topo, jobs, pol, Params{NodeExpiryS: 5}, []faults.Spec{kill("r0n0", 15)})
	if k := pol.ends(sched.ReduceTask, C, true); len(k) != 1 || k[0] != 21 {
		t.Errorf("reduces killed on C at %v, want one, the latest launched, at the first sample after the expiry, 21", k)
	}
	if k := pol.ends(sched.ReduceTask, B, true); len(k) != 0 {
		t.Errorf("reduces killed on B at %v, want none: once the map runs, no map starves", k)
	}
	if ends := pol.ends(sched.MapTask, C, false); len(ends) != 1 || ends[0] != 31 {
		t.Errorf("the map ended on C at %v, want once, at 31, run in the freed container", ends)
	}
	s := e.Collector().Summarize("script")
	if s.JobsCompleted != 1 || s.TasksKilled != 1 || s.Faults.KilledAttempts != 0 {
		t.Errorf("%d jobs completed, %d attempts killed (%d by the loss); want 1, 1 (the reduce), 0", s.JobsCompleted, s.TasksKilled, s.Faults.KilledAttempts)
	}
}

// TestSetFaultsRefusesNonsense: the engine checks the events it is given,
// whoever resolved them.
func TestSetFaultsRefusesNonsense(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	jobs := failureJobs(topo.Config().BlockBytes())
	at := func(t float64, k faults.Kind, ns ...cluster.NodeID) faults.Event {
		return faults.Event{At: t, Kind: k, Nodes: ns}
	}
	for _, c := range []struct {
		name string
		evs  []faults.Event
		want string
	}{
		{"out of order", []faults.Event{at(5, faults.KillNode, 0), at(4, faults.KillNode, 1)}, "in order"},
		{"no node", []faults.Event{at(5, faults.KillNode)}, "names no node"},
		{"a node past the cluster", []faults.Event{at(5, faults.KillNode, 3)}, "not in the cluster"},
		{"a dead node killed", []faults.Event{at(5, faults.KillNode, 1), at(6, faults.KillRack, 0, 1)}, "already dead"},
		{"a live node restored", []faults.Event{at(5, faults.RestoreNode, 1)}, "alive"},
		{"a time past the bound", []faults.Event{at(math.Inf(1), faults.KillNode, 1)}, "at_s"},
	} {
		e, err := New(Params{}, topo, jobs, mustPolicy(t, "fifo"), 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetFaults(c.evs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: SetFaults = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestEveryExpiryOfAnInstantCounts: nodes lost at one instant expire at
// one instant; when an expiry there ends the run (the last job fails, its
// blocks' every replica lost), the expiries after it at the same instant
// still happen and count: the whole cluster lost is every node lost.
func TestEveryExpiryOfAnInstantCounts(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 1})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{newJob(0, 0).maps(6, block, 50).reduces(1, 1<<20, 5).build()}
	e := runFaults(t, topo, jobs, mustPolicy(t, "fair"), Params{NodeExpiryS: 60}, []faults.Spec{killRack(0, 10), killRack(1, 10)})
	f := faultsOf(t, e)
	if f.LostNodes != 6 {
		t.Errorf("%d nodes lost, want all 6: every node of the cluster died at 10 s and expired at 70 s", f.LostNodes)
	}
	if f.FailedJobs != 1 {
		t.Errorf("%d jobs failed, want the one job, its blocks lost", f.FailedJobs)
	}
}
