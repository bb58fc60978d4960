package master_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/master"
	"github.com/mrsched/mrsched/testbed/wire"
	"github.com/mrsched/mrsched/testbed/worker"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

// loopback runs one in-process worker a node on 127.0.0.(10+n), without
// namespaces or shaping: the protocol, the data plane and the master's
// bookkeeping, exercised over real TCP on loopback.
type loopback struct {
	conns []*wire.Conn
	// stop ends node n's worker alone, as a machine that dies.
	stop []context.CancelFunc
	errs chan error
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.10:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.10: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startLoopback starts a worker a node, node n's disk moving diskRate(n)
// bytes a second.
func startLoopback(t *testing.T, topo *cluster.Topology, jobs []workload.Job, plans []content.Plan, seed uint64, diskRate func(n int) float64, heartbeatS float64) *loopback {
	t.Helper()
	port := freePort(t)
	n := topo.NumNodes()
	root := t.TempDir()
	dir := func(node int) string { return filepath.Join(root, fmt.Sprintf("node%d", node)) }
	if err := worker.StoreInputs(dir, topo, jobs, plans, seed); err != nil {
		t.Fatal(err)
	}
	addrs := make([]string, n)
	racks := make([]int, n)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("127.0.0.%d:%d", 10+i, port)
		racks[i] = int(topo.Rack(cluster.NodeID(i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	lb := &loopback{errs: make(chan error, n)}
	for i := range n {
		toWorker, fromMaster := io.Pipe()
		toMaster, fromWorker := io.Pipe()
		ctx, stop := context.WithCancel(ctx)
		lb.stop = append(lb.stop, stop)
		go func() {
			err := worker.Run(ctx, toWorker, fromWorker)
			fromWorker.CloseWithError(io.EOF)
			lb.errs <- err
		}()
		c := wire.NewConn(toMaster, fromMaster, fmt.Sprintf("node %d", i))
		if err := c.Send(wire.Msg{Setup: &wire.Setup{Node: i, Addrs: addrs, Racks: racks, Dir: dir(i),
			DiskBytesPerSec: diskRate(i), HeartbeatS: heartbeatS, PhaseS: heartbeatS * float64(i) / float64(n)}}); err != nil {
			t.Fatal(err)
		}
		m, err := c.Recv()
		if err != nil || m.Ready == nil {
			t.Fatalf("node %d: want Ready, got %+v, %v", i, m, err)
		}
		lb.conns = append(lb.conns, c)
	}
	t.Cleanup(cancel)
	return lb
}

func fb2009(t *testing.T, topo *cluster.Topology, n int) []workload.Job {
	t.Helper()
	data, src, _ := traces.Embedded("FB-2009")
	jobs, err := workload.ParseSWIM(strings.NewReader(string(data)), "FB-2009", workload.SWIMOptions{
		SourceNodes: src, TargetNodes: topo.NumNodes(), BlockBytes: topo.Config().BlockBytes(), Users: 3, Seed: 1, MaxJobs: n,
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestLoopbackRunCompletesEveryJobWithItsChecksum runs a few FB-2009 jobs
// through the master and in-process workers on loopback under fair
// (runLoopbackFair).
func TestLoopbackRunCompletesEveryJobWithItsChecksum(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 2, NodesPerRack: 2, MapSlots: 2, ReduceSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	runLoopbackFair(t, topo, fb2009(t, topo, 6))
}

// TestLoopbackRunReadsSharedWriterPlacedDataSetsUnderHadoop020: jobs
// reading two data sets written inside the cluster, read with 0.20's
// replica choice, complete with their checksums: the workers hold each
// block where the master sends its readers (both place through
// sched.InputFile and order reads through cluster.ReadOrder), or reads
// would fail.
func TestLoopbackRunReadsSharedWriterPlacedDataSetsUnderHadoop020(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 2, NodesPerRack: 2, MapSlots: 2, ReduceSlots: 1, ReplicaChoice: cluster.Hadoop020})
	if err != nil {
		t.Fatal(err)
	}
	jobs := fb2009(t, topo, 6)
	for i := range jobs {
		jobs[i].DataSet = []string{"inputPath1", "inputPath2"}[i%2]
		jobs[i].Placement = workload.PlaceWriter
	}
	a, b := sched.InputFile(topo, 1, &jobs[0]), sched.InputFile(topo, 1, &jobs[2])
	if n := min(len(a.Replicas), len(b.Replicas)); !slices.Equal(a.Replicas[:n], b.Replicas[:n]) {
		t.Fatalf("jobs 0 and 2 read inputPath1 from different blocks: %v and %v", a.Replicas[:n], b.Replicas[:n])
	}
	runLoopbackFair(t, topo, jobs)
}

// runLoopbackFair runs jobs through the master and in-process workers on
// loopback under fair, and checks that every job completes with the
// output checksum its plan predicts: bytes read, shuffled and written are
// the right ones.
func runLoopbackFair(t *testing.T, topo *cluster.Topology, jobs []workload.Job) {
	t.Helper()
	runLoopback(t, topo, jobs, loopbackRun{})
}

// loopbackRun is what a loopback run changes from the defaults.
type loopbackRun struct {
	// engine, when set, changes the engine's parameters.
	engine func(*sim.Params)
	// slowNode's disk runs slowBy times slower than the others' (when
	// slowBy > 1): a straggler.
	slowNode int
	slowBy   float64
	// pol is the policy, fair with its defaults when nil.
	pol sched.Policy
	// faults are node kills; a killed node's worker stops at once.
	faults []faults.Event
}

// runLoopback is runLoopbackFair with the changes of r; it returns the
// run's result.
func runLoopback(t *testing.T, topo *cluster.Topology, jobs []workload.Job, r loopbackRun) *master.Result {
	t.Helper()
	var err error
	// Time runs 200 times faster than the scenario: the first six jobs
	// arrive over about 6 minutes, so the run takes a couple of seconds.
	const timeScale, byteScale = 0.005, 0.01
	const seed = 1
	plans := make([]content.Plan, len(jobs))
	expected := make([]content.Digest, len(jobs))
	for i := range jobs {
		if plans[i], err = content.PlanJob(&jobs[i], topo.Config().BlockBytes(), byteScale, seed); err != nil {
			t.Fatal(err)
		}
		expected[i] = plans[i].Expected()
	}
	params := sim.Params{}.WithDefaults()
	params.TimeBreakdown, params.CheckInvariants = true, true
	if r.engine != nil {
		r.engine(&params)
	}
	disk := func(n int) float64 {
		rate := topo.Config().DiskMBps * 1e6 * byteScale / timeScale
		if n == r.slowNode && r.slowBy > 1 {
			rate /= r.slowBy
		}
		return rate
	}
	lb := startLoopback(t, topo, jobs, plans, seed, disk, params.HeartbeatS*timeScale)
	pol := r.pol
	if pol == nil {
		if pol, err = sched.NewPolicy("fair", nil); err != nil {
			t.Fatal(err)
		}
	}
	name := pol.Name()
	cfg := master.Config{Topology: topo, Jobs: jobs, Plans: plans, Expected: expected, Policy: pol,
		Engine: params, Seed: seed, ByteScale: byteScale, TimeScale: timeScale, BandwidthScale: byteScale / timeScale,
		UplinkBytesPerSec: 1, Workers: lb.conns}
	if len(r.faults) > 0 {
		cfg.Faults = r.faults
		cfg.Kill = func(n int) error { lb.stop[n](); return nil }
		cfg.Restore = func(n int) (*wire.Conn, error) { return nil, fmt.Errorf("node %d: this run restores no node", n) }
	}
	m, err := master.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.Run(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Collector.Summarize(name)
	if s.JobsCompleted != len(jobs) {
		t.Errorf("%d of %d jobs completed, want all", s.JobsCompleted, len(jobs))
	}
	if len(res.Mismatched) > 0 {
		t.Errorf("jobs %v wrote outputs other than their plans predict", res.Mismatched)
	}
	for i, d := range res.Checksums {
		if d != expected[i] {
			t.Errorf("job %d: checksum %s, want %s", i, d, expected[i])
		}
	}
	if len(res.FailedAttempts) > 0 && len(r.faults) == 0 {
		t.Errorf("attempts failed on a healthy loopback cluster: %v", res.FailedAttempts)
	}
	// The workers report their attempts' phases, so each job's time splits
	// along its critical path as in the simulator: the parts add up to the
	// turnaround, the maps' start-up, read and compute are there, and a
	// job with reduces spends time writing its output.
	faulted := len(r.faults) > 0
	for _, r := range res.Collector.Jobs() {
		if r.Time == nil {
			t.Errorf("job %d: no time by part; the run records it", r.ID)
			continue
		}
		ta := r.Finish - r.Submit
		if sum := r.Time.Sum(); math.Abs(sum-ta) > 1e-3 {
			t.Errorf("job %d: parts sum to %.6f s, turnaround %.6f s; they must add up", r.ID, sum, ta)
		}
		p := r.Time.Parts
		if p[critpath.Startup] <= 0 || p[critpath.MapCompute] <= 0 {
			t.Errorf("job %d: start-up %.3f s, map compute %.3f s; every map starts up (engine.task_startup_s) and computes", r.ID, p[critpath.Startup], p[critpath.MapCompute])
		}
		// (A job that a map run again ends has that map on its
		// critical path, not its reduces' output.)
		if jobs[r.ID].NumReduces > 0 && jobs[r.ID].OutputBytes > 0 && p[critpath.OutputWrite] <= 0 && !faulted {
			t.Errorf("job %d writes %d bytes of output but no time went to it: the worker's write_start was not recorded", r.ID, jobs[r.ID].OutputBytes)
		}
	}
	if s.Bytes.ShuffleTotal <= 0 {
		t.Errorf("no shuffle bytes recorded; the jobs shuffle %d bytes", jobs[0].ShuffleBytes)
	}
	return res
}

// TestLoopbackSpeculationBacksUpAStraggler runs one job of 8 maps on 4
// nodes, one of whose disks is 2,000 times slower than the others': the
// maps reading from it fall behind, and once Hadoop's 60 s lag has
// passed the free slots elsewhere take backups of them (the testbed runs speculation through the
// same job tracker as the simulator). Each race ends with its loser
// killed, and the job completes with its checksum whichever attempt won
// (a backup may read from the slow disk too, when it is the nearest
// replica).
func TestLoopbackSpeculationBacksUpAStraggler(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 2, NodesPerRack: 2, MapSlots: 2, ReduceSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	block := topo.Config().BlockBytes()
	// 50 MB/s of compute: a map of a 128 MB block takes 2.6 s where its
	// disk keeps up (400 MB/s), 640 s where it reads from the slow one.
	jobs := []workload.Job{{ID: 0, Name: "straggled", Kind: "swim", Pool: "user0", InputBytes: 8 * block, NumMaps: 8, NumReduces: 1,
		ShuffleBytes: 8 << 20, OutputBytes: 1 << 20, Profile: workload.Profile{MapSecPerByte: 1 / 50e6, ReduceSecPerByte: 1 / 50e6}}}
	res := runLoopback(t, topo, jobs, loopbackRun{engine: func(p *sim.Params) { p.Speculative = true }, slowNode: 3, slowBy: 2000})
	sp := res.Collector.Summarize("fair").Speculation
	if sp == nil || sp.Backups == 0 {
		t.Fatalf("speculation %+v; want backups of the slow node's maps, which fall 0.2 behind their job's average after 60 s", sp)
	}
	if sp.Killed != sp.Backups {
		t.Errorf("%d attempts killed for %d races; each race ends with its loser killed", sp.Killed, sp.Backups)
	}
}

// TestLoopbackKillFreedSlotIsOfferedAtOnce: a slot that a master-side kill
// frees is offered at the end of the master's handler, as the simulator
// offers it at the end of the instant, not at the node's next heartbeat
// (a worker neither reports a killed attempt nor heartbeats early). One
// node of 2 map slots heartbeats every 100 s; job A's two 400 s maps take
// both slots at the first heartbeat (100 s); job B arrives at 110 s, and
// once it has been starved for fair sharing's 30 s timeout the preemption
// check (every 0.5 s) kills one of A's maps. B's map must start then,
// about 140 s, not at the next heartbeat (200 s).
func TestLoopbackKillFreedSlotIsOfferedAtOnce(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 2, ReduceSlots: 1, Replication: 1})
	if err != nil {
		t.Fatal(err)
	}
	block := topo.Config().BlockBytes()
	job := func(id, maps int, submit, mapS float64) workload.Job {
		return workload.Job{ID: id, Name: fmt.Sprintf("job%d", id), Kind: "swim", Pool: workload.PoolOf(id), Submit: submit,
			InputBytes: int64(maps) * block, NumMaps: maps, NumReduces: 1, ShuffleBytes: 1 << 20, OutputBytes: 1 << 20,
			Weight: workload.DefaultWeight, Profile: workload.Profile{MapSecPerByte: mapS / float64(block), ReduceSecPerByte: 1 / 50e6}}
	}
	jobs := []workload.Job{job(0, 2, 0, 400), job(1, 1, 110, 100)}
	pol, err := sched.NewFair(sched.FairParams{Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 15, FairShareTimeoutS: 30}})
	if err != nil {
		t.Fatal(err)
	}
	res := runLoopback(t, topo, jobs, loopbackRun{engine: func(p *sim.Params) { p.HeartbeatS = 100 }, pol: pol})
	if k := res.Collector.Summarize("fair").TasksKilled; k < 1 {
		t.Fatalf("%d tasks killed; want one of job A's maps preempted for job B, starved past fair_share_timeout_s", k)
	}
	b := res.Collector.Jobs()[1]
	// The kill comes at about 140 s; a launch that waited for the
	// heartbeat would come at 200 s.
	if b.FirstLaunch < 140 || b.FirstLaunch > 170 {
		t.Errorf("job B's first task started at %.1f s; want it at the preemption (about 140 s), in the handler that killed A's map, not at the next heartbeat (200 s)", b.FirstLaunch)
	}
}

// TestLoopbackJobCompletesWhenItsLastMapRunsAgainAfterItsReduces: a job
// whose reduces all finished while a map lost with its node ran again
// completes when that map ends. Node r0n1 has no reduce slot, so the
// reduce runs beside the other map on r0n0; both maps (300 s) end near
// 303 s, the reduce has copied both outputs and computes for 200 s; r0n1
// dies at 350 s and expires at 380 s, its map's output is lost and the
// map runs again on r0n0 until about 683 s, well after the reduce ended
// (about 505 s). The job is done when the map is: without that, the job
// would never complete and the run would end in the stall error.
func TestLoopbackJobCompletesWhenItsLastMapRunsAgainAfterItsReduces(t *testing.T) {
	topo, err := cluster.NewHosts(cluster.Config{Replication: 2}, []cluster.NodeSpec{
		{Name: "r0n0", Rack: "/rack0", MapSlots: 1, ReduceSlots: 1},
		{Name: "r0n1", Rack: "/rack0", MapSlots: 1, ReduceSlots: 0},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{{ID: 0, Name: "rerun", Kind: "swim", Pool: "user0", InputBytes: 2 * block, NumMaps: 2, NumReduces: 1,
		ShuffleBytes: 1 << 20, OutputBytes: 1 << 20, Weight: workload.DefaultWeight,
		Profile: workload.Profile{MapSecPerByte: 300 / float64(block), ReduceSecPerByte: 200 / float64(1<<20)}}}
	res := runLoopback(t, topo, jobs, loopbackRun{
		engine: func(p *sim.Params) { p.NodeExpiryS = 30 },
		faults: []faults.Event{{At: 350, Kind: faults.KillNode, Nodes: []cluster.NodeID{1}}},
	})
	s := res.Collector.Summarize("fair")
	if s.Faults == nil || s.Faults.ReexecutedMaps != 1 {
		t.Fatalf("faults %+v; want the lost node's one map run again", s.Faults)
	}
	if f := res.Collector.Jobs()[0].Finish; f < 600 {
		t.Errorf("the job finished at %.1f s; want it done when its map run again ends (about 683 s), after its reduce (about 505 s)", f)
	}
}
