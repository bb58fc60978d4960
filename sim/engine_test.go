package sim

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

// jobBuilder makes workload jobs for hand-built scenarios.
type jobBuilder struct{ j workload.Job }

func newJob(id int, submit float64) *jobBuilder {
	return &jobBuilder{workload.Job{ID: id, Name: fmt.Sprintf("job%d", id), Kind: "test", User: id,
		Pool: workload.PoolOf(id), Submit: submit, Weight: 1}}
}

// maps gives the job n maps of one full block each, each taking secs of CPU.
func (b *jobBuilder) maps(n int, block int64, secs float64) *jobBuilder {
	b.j.NumMaps = n
	b.j.InputBytes = int64(n) * block
	b.j.Profile.MapSecPerByte = secs / float64(block)
	return b
}

// reduces gives the job n reduces that each fetch perReduce bytes and
// compute on them for secs.
func (b *jobBuilder) reduces(n int, perReduce int64, secs float64) *jobBuilder {
	b.j.NumReduces = n
	b.j.ShuffleBytes = int64(n) * perReduce
	b.j.Profile.ReduceSecPerByte = secs / float64(perReduce)
	return b
}

// emptyReduce gives the job one reduce with nothing to fetch or compute,
// so that the job's time is its maps' (reduces(1, 0, 0) would divide
// nothing by nothing).
func (b *jobBuilder) emptyReduce() *jobBuilder {
	b.j.NumReduces = 1
	b.j.ShuffleBytes = 0
	b.j.Profile.ReduceSecPerByte = 0
	return b
}

func (b *jobBuilder) output(bytes int64) *jobBuilder { b.j.OutputBytes = bytes; return b }

func (b *jobBuilder) build() workload.Job { return b.j }

// runAlone runs job alone under fifo, as runJobs does, and returns the
// engine and the job's record.
func runAlone(t *testing.T, topo *cluster.Topology, job workload.Job, p Params) (*Engine, metrics.JobRecord) {
	t.Helper()
	e := runJobs(t, topo, []workload.Job{job}, mustPolicy(t, "fifo"), p)
	return e, e.Collector().Jobs()[0]
}

func mustTopo(t *testing.T, c cluster.Config) *cluster.Topology {
	t.Helper()
	topo, err := cluster.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func mustPolicy(t testing.TB, name string) sched.Policy {
	t.Helper()
	p, err := sched.NewPolicy(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runJobs(t *testing.T, topo *cluster.Topology, jobs []workload.Job, pol sched.Policy, p Params) *Engine {
	t.Helper()
	// Every hand-built run also checks that each job's time by part sums
	// to its turnaround (jobtracker's invariant).
	p.CheckInvariants, p.TimeBreakdown = true, true
	e, err := New(p, topo, jobs, pol, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatalf("%s: %v", pol.Name(), err)
	}
	return e
}

// runErr runs jobs for a test of a run that must fail: it returns Run's
// error (New's stops the test).
func runErr(t *testing.T, topo *cluster.Topology, jobs []workload.Job, pol sched.Policy, p Params) error {
	t.Helper()
	e, err := New(p, topo, jobs, pol, 1)
	if err != nil {
		t.Fatal(err)
	}
	return e.Run()
}

// TestFIFOBeatsFairOnDependentPhases is the Fair Scheduler paper's section
// 5.3 example (Fig. 7): two jobs, each 100 s of maps and 100 s of CPU-bound
// reduces when alone on the cluster. FIFO pipelines job 2's maps under job
// 1's reduces and finishes the batch at 300 s; fair sharing runs both jobs'
// maps together (200 s) and then both jobs' reduces together (200 s): 400 s.
func TestFIFOBeatsFairOnDependentPhases(t *testing.T) {
	// One node with 10 map and 10 reduce slots: each job has 10 maps and
	// 10 reduces of 100 s, so a job alone fills the cluster for 100 s per
	// phase. Shuffle is tiny so that reduces are CPU-bound.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 10, ReduceSlots: 10, Replication: 1})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{
		newJob(0, 0).maps(10, block, 100).reduces(10, 1000, 100).build(),
		newJob(1, 0).maps(10, block, 100).reduces(10, 1000, 100).build(),
	}
	cases := []struct {
		policy       string
		wantMakespan float64
		wantFinish   [2]float64
		why          string
	}{
		{"fifo", 300, [2]float64{200, 300}, "job 1 maps 0-100 and reduces 100-200 while job 2 maps 100-200, job 2 reduces 200-300"},
		{"fair", 400, [2]float64{400, 400}, "each job gets half the slots: both map phases end at 200, both reduce phases at 400"},
	}
	const tol = 0.01 // the tiny shuffle takes microseconds
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			e := runJobs(t, topo, jobs, mustPolicy(t, c.policy), Params{})
			s := e.Collector().Summarize(c.policy)
			if math.Abs(s.MakespanS-c.wantMakespan) > tol {
				t.Errorf("makespan = %.3f s, want %.0f s: %s", s.MakespanS, c.wantMakespan, c.why)
			}
			for i, r := range e.Collector().Jobs() {
				if math.Abs(r.Finish-c.wantFinish[i]) > tol {
					t.Errorf("job %d finished at %.3f s, want %.0f s: %s", i, r.Finish, c.wantFinish[i], c.why)
				}
			}
		})
	}
}

// TestMapReadsAtCPURateOrNetwork pins the map model: a map reads its block
// as one flow capped at its CPU rate, so a node-local map takes its CPU
// time, and an off-rack map whose rate cap exceeds the uplink takes the
// uplink's time instead.
func TestMapReadsAtCPURateOrNetwork(t *testing.T) {
	// Two racks of one node each; uplinks of 8 Mbps = 1e6 B/s; NIC faster.
	cfg := cluster.Config{Racks: 2, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1,
		NICMbps: 1000, RackUplinkMbps: 8, BlockMB: 1}
	topo := mustTopo(t, cfg)
	block := topo.Config().BlockBytes() // 1 MiB
	cases := []struct {
		name     string
		cpuSecs  float64
		wantMaps float64 // duration of the single map
		why      string
	}{
		{"cpu-bound", 10, 10, "a 1 MiB map capped at 1 MiB / 10 s needs 0.1 MB/s, less than any link: its CPU time"},
		{"io-bound", 0.01, float64(block) / 1e6, "a 1 MiB map capped at 100 MiB/s is held to the 1e6 B/s uplink if off-rack, or its CPU time if local"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, r := runAlone(t, topo, newJob(0, 0).maps(1, block, c.cpuSecs).emptyReduce().build(), Params{HeartbeatS: 1})
			// The map launches at the first heartbeat that offers a node;
			// whether it was local decides its length.
			local := r.Locality[cluster.NodeLocal] == 1
			want := c.wantMaps
			if local || c.cpuSecs >= float64(block)/1e6 {
				want = c.cpuSecs
			}
			got := r.Finish - r.FirstLaunch
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("job took %.6f s after launch (local=%v), want %.6f s: %s", got, local, want, c.why)
			}
		})
	}
}

// fb2009Slice is a small real workload: the first n jobs of FB-2009 scaled
// to the default 100-node cluster.
func fb2009Slice(t testing.TB, n int, topo *cluster.Topology) []workload.Job {
	t.Helper()
	jobs, err := workload.ParseSWIM(bytes.NewReader(traces.FB2009()), traces.FB2009Name, workload.SWIMOptions{
		SourceNodes: traces.FB2009SourceNodes, TargetNodes: topo.NumNodes(),
		BlockBytes: topo.Config().BlockBytes(), Users: 10, Seed: 3, MaxJobs: n,
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// costDisk and costParams turn on every cost beyond bandwidth, with small
// buffers so that a trace slice spills, merges and overflows.
var (
	costDisk   = cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 120, SeekMs: 12, ChunkKB: 4096}
	costParams = Params{SortBufferMB: 2, MergeFactor: 3, ReduceBufferMB: 4, TaskStartupS: 1, LaunchesPerHeartbeat: 2, Speculative: true}
)

// TestEveryPolicyCompletesEveryJob runs a real trace slice under each
// registered policy, in both slot and container models, with the engine's
// invariants on (slots never over-committed, tasks finish once, every
// shuffle byte produced is fetched exactly once).
func TestEveryPolicyCompletesEveryJob(t *testing.T) {
	models := []struct {
		name string
		cfg  cluster.Config
		p    Params
	}{
		{"slots", cluster.Config{Racks: 4, NodesPerRack: 5}, Params{}},
		{"containers", cluster.Config{Racks: 4, NodesPerRack: 5, Containers: 6}, Params{}},
		{"containers-quantized", cluster.Config{Racks: 4, NodesPerRack: 5, Containers: 6}, Params{NetworkQuantumS: 0.5}},
		// Every cost beyond bandwidth at once (costs.go, speculate.go).
		{"slots-costs", cluster.Config{Racks: 4, NodesPerRack: 5, Disk: &costDisk}, costParams},
		{"containers-costs-quantized", cluster.Config{Racks: 4, NodesPerRack: 5, Containers: 6, Disk: &costDisk}, func() Params {
			p := costParams
			p.NetworkQuantumS = 0.5
			return p
		}()},
	}
	for _, m := range models {
		topo := mustTopo(t, m.cfg)
		jobs := fb2009Slice(t, 150, topo)
		for _, name := range sched.PolicyNames() {
			t.Run(m.name+"/"+name, func(t *testing.T) {
				e := runJobs(t, topo, jobs, mustPolicy(t, name), m.p)
				s := e.Collector().Summarize(name)
				if s.JobsCompleted != len(jobs) {
					t.Fatalf("%d of %d jobs completed, want all", s.JobsCompleted, len(jobs))
				}
				prod, fetched := e.ShuffleBytes()
				if prod <= 0 || math.Abs(prod-fetched) > 1e-6*prod {
					t.Errorf("shuffle produced %.0f, fetched %.0f: every byte must be fetched exactly once", prod, fetched)
				}
				if s.Locality.Node+s.Locality.Rack+s.Locality.Off < 0.999 {
					t.Errorf("locality fractions %+v do not sum to 1", s.Locality)
				}
			})
		}
	}
}

// TestReducesWaitForSlowStart checks that no reduce launches before the
// slow-start fraction of maps is done.
func TestReducesWaitForSlowStart(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 2})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{newJob(0, 0).maps(40, block, 10).reduces(4, 1<<20, 1).build()}
	for _, ss := range []float64{0, 0.05, 0.5, 1} {
		t.Run(fmt.Sprint(ss), func(t *testing.T) {
			e := runJobs(t, topo, jobs, mustPolicy(t, "fifo"), Params{SlowStart: &ss})
			got := e.Collector().Jobs()[0].MapProgressAtFirstReduce
			if got < ss {
				t.Errorf("first reduce launched at map progress %.3f, want >= slow start %.2f", got, ss)
			}
			if ss == 0 && got != 0 {
				t.Errorf("first reduce launched at map progress %.3f, want 0: slow_start 0 lets reduces launch with the job, not at the default 0.05", got)
			}
		})
	}
}

// TestStalledPolicyIsAnError: a policy that declines every offer must end
// the run with an error that says so, not hang.
func TestStalledPolicyIsAnError(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	jobs := []workload.Job{newJob(0, 0).maps(1, 1, 1).reduces(1, 1, 1).build()}
	if err := runErr(t, topo, jobs, decliner{}, Params{StallS: 100}); err == nil {
		t.Fatal("Run returned nil for a policy that never assigns: want a stall error")
	}
}

type decliner struct{}

func (decliner) Name() string { return "decliner" }
func (decliner) Assign(sched.Cluster, sched.Offer) (sched.Decision, bool) {
	return sched.Decision{}, false
}

// TestBadDecisionIsAnError: a policy bug (a map that is not pending) stops
// the run with an error naming the policy.
func TestBadDecisionIsAnError(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	jobs := []workload.Job{newJob(0, 0).maps(2, 1, 1).reduces(1, 1, 1).build()}
	if err := runErr(t, topo, jobs, sameMap{}, Params{}); err == nil {
		t.Fatal("Run accepted a decision launching the same map twice")
	}
}

type sameMap struct{}

func (sameMap) Name() string { return "same-map" }
func (sameMap) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	if o.Slot != sched.MapSlot || len(c.Jobs()) == 0 {
		return sched.Decision{}, false
	}
	return sched.Decision{Job: c.Jobs()[0], Kind: sched.MapTask, Map: 0}, true
}

func TestNewRejectsBadJobs(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	good := newJob(0, 10).maps(1, 1, 1).reduces(1, 1, 1).build()
	cases := []struct {
		name string
		jobs []workload.Job
	}{
		{"ids not dense", []workload.Job{func() workload.Job { j := good; j.ID = 3; return j }()}},
		{"no reduces", []workload.Job{func() workload.Job { j := good; j.NumReduces = 0; return j }()}},
		{"submits out of order", []workload.Job{good, func() workload.Job { j := good; j.ID = 1; j.Submit = 5; return j }()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := New(Params{}, topo, c.jobs, mustPolicy(t, "fifo"), 1); err == nil {
				t.Errorf("New accepted %s", c.name)
			}
		})
	}
}

// reduceHog fills containers with reduces whenever it can, ignoring the
// rule that keeps a node's last container for maps: it deadlocks a job
// whose reduces wait for maps that have nowhere to run.
type reduceHog struct{}

func (reduceHog) Name() string { return "reduce-hog" }
func (reduceHog) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	for _, j := range c.Jobs() {
		if j.ReducesEnabled && j.PendingReduces() > 0 {
			return sched.Decision{Job: j, Kind: sched.ReduceTask}, true
		}
		if i, ok := j.Maps.Any(); ok {
			return sched.Decision{Job: j, Kind: sched.MapTask, Map: i}, true
		}
	}
	return sched.Decision{}, false
}

// TestDeadlockIsAnError: when every container holds a reduce waiting for
// maps that cannot launch, the run must end with a stall error rather
// than loop on monitor events forever.
func TestDeadlockIsAnError(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, Containers: 2})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{newJob(0, 0).maps(20, block, 10).reduces(6, 1<<20, 1).build()}
	err := runErr(t, topo, jobs, reduceHog{}, Params{StallS: 600})
	if err == nil || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("Run = %v, want a stall error: 6 containers hold reduces and 19 maps can never launch", err)
	}
}

// observing wraps a policy for a test that records what the engine tells
// it: it passes every job and task event on to the policy, where the
// policy observes them, so that a recorder embeds it and overrides only
// the events it records.
type observing struct{ sched.Policy }

func (o observing) JobAdded(c sched.Cluster, j *sched.Job) {
	if p, ok := o.Policy.(sched.JobObserver); ok {
		p.JobAdded(c, j)
	}
}

func (o observing) JobRemoved(c sched.Cluster, j *sched.Job) {
	if p, ok := o.Policy.(sched.JobObserver); ok {
		p.JobRemoved(c, j)
	}
}

func (o observing) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	if p, ok := o.Policy.(sched.TaskObserver); ok {
		p.TaskLaunched(c, j, k, n)
	}
}

func (o observing) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if p, ok := o.Policy.(sched.TaskObserver); ok {
		p.TaskEnded(c, j, k, n, killed)
	}
}

// idleOfferCounter wraps a policy and counts offers made while no active
// job had a task to launch.
type idleOfferCounter struct {
	sched.Policy
	idle, total int
}

func (c *idleOfferCounter) JobAdded(cl sched.Cluster, j *sched.Job) {
	c.Policy.(sched.JobObserver).JobAdded(cl, j)
}

func (c *idleOfferCounter) JobRemoved(cl sched.Cluster, j *sched.Job) {
	c.Policy.(sched.JobObserver).JobRemoved(cl, j)
}

func (c *idleOfferCounter) Assign(cl sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	c.total++
	if !c.launchable(cl) {
		c.idle++
	}
	return c.Policy.Assign(cl, o)
}

// launchable reports whether some active job has a pending map or an
// enabled pending reduce.
func (c *idleOfferCounter) launchable(cl sched.Cluster) bool {
	for _, j := range cl.Jobs() {
		if j.PendingMaps() > 0 || j.ReducesEnabled && j.PendingReduces() > 0 {
			return true
		}
	}
	return false
}

// TestNoOfferWithoutLaunchableTasks checks that the engine does not ask the
// policy to fill a slot when no pending task could take it (every policy
// would decline), while still offering every slot that one could.
func TestNoOfferWithoutLaunchableTasks(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 5, Containers: 4})
	pol := &idleOfferCounter{Policy: mustPolicy(t, "fair")}
	e := runJobs(t, topo, fb2009Slice(t, 60, topo), pol, Params{})
	if pol.idle != 0 {
		t.Errorf("%d of %d offers were made with nothing launchable; want none", pol.idle, pol.total)
	}
	if s := e.Collector().Summarize("fair"); s.JobsCompleted != 60 {
		t.Errorf("%d of 60 jobs completed; skipping idle offers must not lose launches", s.JobsCompleted)
	}
}

// TestQuantizedRunIsDeterministic runs the same quantized simulation twice
// and wants identical per-job results.
func TestQuantizedRunIsDeterministic(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 3, NodesPerRack: 4, Containers: 4})
	jobs := fb2009Slice(t, 80, topo)
	var out [2]bytes.Buffer
	for i := range out {
		e := runJobs(t, topo, jobs, mustPolicy(t, "fair"), Params{NetworkQuantumS: 1})
		if err := e.Collector().WriteJobsCSV(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Error("two quantized runs with the same inputs and seed differ; want byte-identical jobs.csv")
	}
}

// idleOfferObserver is idleOfferCounter for a policy that wants idle
// offers (sched.IdleOffers); it counts those it is told of, and those that
// had a free slot and nothing launchable.
type idleOfferObserver struct {
	idleOfferCounter
	told, wrong int
}

func (*idleOfferObserver) WantsIdleOffers() bool { return true }

func (c *idleOfferObserver) OfferIdle(cl sched.Cluster, o sched.Offer) {
	c.told++
	if c.launchable(cl) || cl.FreeSlots(o.Node, o.Slot) == 0 {
		c.wrong++
	}
}

// TestIdleOffersPolicyIsToldOfIdleOffers checks that a policy implementing
// sched.IdleOffers is told of free slots nothing could take, never through
// Assign, as NAS needs to lift its CR-RTS hold when a rack's congestion
// clears.
func TestIdleOffersPolicyIsToldOfIdleOffers(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 5, Containers: 4})
	pol := &idleOfferObserver{idleOfferCounter: idleOfferCounter{Policy: mustPolicy(t, "fair")}}
	e := runJobs(t, topo, fb2009Slice(t, 60, topo), pol, Params{})
	if pol.told == 0 {
		t.Errorf("told of no idle offer (Assign was asked %d times); a policy that wants idle offers must be told of them", pol.total)
	}
	if pol.wrong != 0 {
		t.Errorf("%d of %d idle offers had a launchable task or no free slot; want none", pol.wrong, pol.told)
	}
	if pol.idle != 0 {
		t.Errorf("Assign was asked %d times with nothing launchable; idle offers go to OfferIdle only", pol.idle)
	}
	if s := e.Collector().Summarize("fair"); s.JobsCompleted != 60 {
		t.Errorf("%d of 60 jobs completed; want all", s.JobsCompleted)
	}
}
