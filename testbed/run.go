// Package testbed is mrsched's ground truth: an emulated cluster on one
// Linux host in which the unchanged scheduling policies place real tasks
// that move real bytes over real TCP across rate-limited rack links.
//
// A run builds one network namespace per node, per rack switch and for the
// core, joined by veth pairs whose every direction is shaped (package
// fabric); starts one worker process per node inside its namespace (package
// worker), each holding the input blocks the simulator's placement puts on
// its node; and runs a master in this process (package master) that
// replays the scenario's jobs at their trace times, scaled to wall time,
// and asks the policy what to run in each free slot a heartbeat offers. It
// writes the same files as a simulation, in the scenario's unscaled seconds
// and bytes, plus testbed.json: the kernel's counters of every shaped link,
// each job's output checksum beside the one its plan predicts, the scales,
// the wall time and how busy the host was.
//
// It emulates one host's worth of cluster: it is not a distributed engine.
// It needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), and leaves nothing
// behind: namespaces, links, qdiscs, processes and files are removed at
// the end, on error and on interruption; Clean removes what a killed run
// left.
package testbed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/master"
	"github.com/mrsched/mrsched/testbed/wire"
	"github.com/mrsched/mrsched/testbed/worker"
	"github.com/mrsched/mrsched/workload"
)

// Port is where every worker serves its data plane, on its node's address.
const Port = 50060 // a Hadoop 1 TaskTracker's HTTP port

// TimeoutFloorS is the least wall time a data-plane timeout is scaled
// down to (wire.Scaled): TCP's retransmission back-off, which does not
// scale, reaches 1.6 s after three losses of one segment, so a shorter
// timeout would fail live transfers on a congested link.
const TimeoutFloorS = 3.0

// Options are how a run is carried out, beside the scenario.
type Options struct {
	// WorkerCommand makes the command that runs one worker (reading its
	// setup on standard input). Default: this executable with the
	// arguments `testbed worker`.
	WorkerCommand func() (*exec.Cmd, error)
	// Progress, if set, is called as jobs finish.
	Progress sim.Progress
	// Log receives notes for the user (what was scaled, what the kernel
	// lacks); nil discards them.
	Log io.Writer
	// LogDir, if set, receives each worker's standard error
	// (workers/nodeN-K.log, K counting the node's workers) and goroutine
	// dumps; it must exist.
	LogDir string
	// Dump, when it delivers, has the master and every worker write their
	// goroutines' stacks to files in LogDir (or the system's temporary
	// directory), without ending the run.
	Dump <-chan struct{}
}

// Result is a finished testbed run.
type Result struct {
	*master.Result
	Report Report
}

// Report is testbed.json: what a run did on the host beyond the metrics a
// simulation also writes.
type Report struct {
	Scale struct {
		Bandwidth float64 `json:"bandwidth"`
		Byte      float64 `json:"byte"`
		// Time is wall seconds per scenario second: byte over bandwidth.
		Time float64 `json:"time"`
	} `json:"scale"`
	HeartbeatWallS float64 `json:"heartbeat_wall_s"`
	// TCPCongestionControl is the algorithm every transfer's socket used
	// (network.congestion_control is the namespaces' default, which the
	// workers override).
	TCPCongestionControl string  `json:"tcp_congestion_control"`
	WallS                float64 `json:"wall_s"`
	// SetupWallS is the time spent before the first job: computing the
	// expected checksums, writing the blocks, building the network and
	// starting the workers.
	SetupWallS float64       `json:"setup_wall_s"`
	Network    fabric.Report `json:"network"`
	// Links are the kernel's counters of every shaped link at the end.
	Links []fabric.LinkCounters `json:"links"`
	// CrossRack is what crossed the rack uplinks, as the kernel counted it
	// and as the workers accounted it.
	CrossRack CrossRack  `json:"cross_rack"`
	Jobs      []JobCheck `json:"jobs"`
	// ChecksumsOK says every job that completed wrote the output its plan
	// predicts.
	ChecksumsOK bool `json:"checksums_ok"`
	// LostNodes are the nodes the master declared lost (faults:, or by
	// heartbeat expiry); NodeLosses say why, for losses by expiry.
	LostNodes  []string `json:"lost_nodes,omitempty"`
	NodeLosses []string `json:"node_losses,omitempty"`
	// WorkerEvents are workers that exited, stopped reading, or came back
	// after their node expired.
	WorkerEvents []string `json:"worker_events,omitempty"`
	// Error is why the run ended early (a stall, an interruption, a
	// policy's error), and Stall the stall's diagnosis: every waiting
	// task, on what, since when. Teardown lists what could not be removed.
	Error    string   `json:"error,omitempty"`
	Stall    []string `json:"stall,omitempty"`
	Teardown []string `json:"teardown,omitempty"`
	// StallWallS is the stall watch's bound (testbed.stall_s).
	StallWallS     float64  `json:"stall_wall_s"`
	FailedAttempts []string `json:"failed_attempts"`
	// FetchFailures are the failed fetches the reduces reported (each
	// retried after a back-off).
	FetchFailures []string `json:"fetch_failures"`
	// FetchFailureReexecutions are the maps the master ran again because
	// reduces kept failing to fetch their output.
	FetchFailureReexecutions []string `json:"fetch_failure_reexecutions"`
	// Recoveries are the attempts that went on without a peer they could
	// not reach: a map's block read from another replica
	// (other_replica), a reduce's output written through a pipeline
	// without a node (pipeline_drop).
	Recoveries []string `json:"recoveries"`
	Host       HostUse  `json:"host"`
	// MonitorLateMaxS is the largest delay of the master's uplink sample
	// behind its schedule, wall seconds.
	MonitorLateMaxS float64 `json:"monitor_late_max_s"`
}

// CrossRack is the cross-rack traffic of a run, unscaled. Every byte that
// crosses racks leaves its rack by one uplink's up direction, so the
// uplinks' up counters count it once.
type CrossRack struct {
	// WireBytes is what the uplinks' up directions carried: Ethernet
	// frames, headers and TCP acknowledgements included.
	WireBytes float64 `json:"wire_bytes"`
	// PayloadBytes is WireBytes less the headers of every frame (Ethernet
	// 14, IPv4 20, TCP with timestamps 32: 66 bytes a frame), which
	// leaves the TCP payload: what the simulator counts, plus the data
	// plane's own HTTP and framing bytes (about 0.1%).
	PayloadBytes float64 `json:"payload_bytes"`
	// AccountedBytes is the testbed's own accounting: the bytes the
	// workers reported moving across racks, summed as the simulator's
	// collector sums them (a reduce's output once, if any pipeline hop
	// crossed racks).
	AccountedBytes float64 `json:"accounted_bytes"`
}

// FrameHeaderBytes is the header of every frame on the emulated links, as
// the kernel counts it: Ethernet (14), IPv4 (20) and TCP with the
// timestamp option Linux sends on every segment (32).
const FrameHeaderBytes = 66

// crossRackOf sums the uplinks' up counters, unscaled by byteScale.
func crossRackOf(links []fabric.LinkCounters, byteScale, accounted float64) CrossRack {
	var wire, payload float64
	for _, l := range links {
		if l.Link.Kind == fabric.UplinkUp {
			wire += float64(l.Bytes)
			payload += float64(l.Bytes) - FrameHeaderBytes*float64(l.Packets)
		}
	}
	return CrossRack{WireBytes: wire / byteScale, PayloadBytes: payload / byteScale, AccountedBytes: accounted}
}

// JobCheck is one job's output against its plan.
type JobCheck struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Status is "completed" or "failed" (a block lost every replica, or a
	// task failed every attempt), with the reason, as jobs.csv says.
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
	Checksum string `json:"checksum,omitempty"`
	Expected string `json:"expected"`
	// OK says a completed job's output is the one its plan predicts.
	OK bool `json:"ok"`
}

// Run runs the scenario c on an emulated cluster. It checks privileges
// before it changes anything, and removes everything it made before it
// returns, whatever happens; cancelling ctx (SIGINT, SIGTERM) ends the run
// that way too.
//
// A run that fails once its workers run (a stall, an interruption, a
// policy's error) returns its error with a Result whose Report says what
// happened and which jobs finished; an error in tearing down is returned
// too, joined to any other, and named in Report.Teardown.
func Run(ctx context.Context, c *scenario.Config, opt Options) (res *Result, err error) {
	if err := fabric.CheckPrivileges(); err != nil {
		return nil, err
	}
	spec, err := LoadSpec(c)
	if err != nil {
		return nil, err
	}
	if err := ccAvailable(spec.CongestionControl); err != nil {
		line := ""
		if l := c.LineOf("testbed.congestion_control"); l > 0 {
			line = fmt.Sprintf("line %d: ", l)
		}
		return nil, fmt.Errorf("%s: %stestbed.congestion_control: %w", c.Name(), line, err)
	}
	engine := c.Engine.WithDefaults()
	if err := engine.Validate(); err != nil {
		return nil, err
	}
	if engine.CopyCompute.Enabled {
		return nil, fmt.Errorf("%s: engine.copy_compute: the testbed does not run copy-compute splitting", c.Name())
	}
	if err := notEmulated(c, engine); err != nil {
		return nil, err
	}
	topo, jobs, pol, err := c.Build()
	if err != nil {
		return nil, err
	}
	c.NoteSiteCosts()
	// The stall bound's default follows the workload, as a simulation of
	// the scenario has it.
	engine.StallS = c.EngineFor(jobs).WithDefaults().StallS
	// Each job's time by part, as a simulation of the scenario records it
	// (metrics.time_breakdown): the workers report their attempts' phases.
	engine.TimeBreakdown = c.Metrics.Breakdown()
	if !topo.Uniform() {
		// The fabric builds racks x nodes_per_rack identical nodes; a
		// cluster of hosts would run on another cluster than the one
		// simulated.
		return nil, fmt.Errorf("%s: cluster: the testbed emulates racks of identical nodes; a cluster of hosts (cluster.topology, node_groups, rack_uplinks, or a trace's hosts) is not emulated", c.Name())
	}
	evs, err := c.FaultEvents(topo)
	if err != nil {
		return nil, err
	}
	if engine.Speculative && len(evs) > 0 {
		line := ""
		if l := c.LineOf("engine.speculative"); l > 0 {
			line = fmt.Sprintf("line %d: ", l)
		}
		return nil, fmt.Errorf("%s: %sengine.speculative: not run with faults, as in the simulator; leave one of them out", c.Name(), line)
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	if engine.Transport != "" && engine.Transport != sim.TransportMaxMin {
		// The testbed moves bytes over real TCP: the transport model is the
		// simulator's, and has nothing to set here.
		logf("warning: engine.transport: %s is the simulator's model of TCP; the testbed runs TCP itself and ignores it", engine.Transport)
	}
	setupStart := time.Now()
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	cfg := topo.Config()
	plans := make([]content.Plan, len(jobs))
	expected := make([]content.Digest, len(jobs))
	var in, sh, out int64
	for i := range jobs {
		if plans[i], err = content.PlanJob(&jobs[i], cfg.BlockBytes(), spec.ByteScale, seed); err != nil {
			return nil, err
		}
		a, b, d := plans[i].Bytes()
		in, sh, out = in+a, sh+b, out+d
	}
	logf("testbed: %d jobs, %.1f MB of input (%.1f MB with replicas), %.1f MB of shuffle, %.1f MB of output at byte scale %g; time scale %.3g (a scenario second is %.3g wall seconds)",
		len(jobs), float64(in)/1e6, float64(in)*float64(cfg.Replication)/1e6, float64(sh)/1e6, float64(out)/1e6, spec.ByteScale, spec.TimeScale(), spec.TimeScale())
	for i := range jobs {
		expected[i] = plans[i].Expected()
	}

	runID := newRunID()
	base := spec.WorkDir
	if base == "" {
		base = os.TempDir()
	}
	// The stores hold every replica of every input block, every map
	// output and every replica of every reduce output: refuse a run the
	// disk cannot hold rather than fill it.
	need := uint64(in+out)*uint64(cfg.Replication) + uint64(sh)
	var st syscall.Statfs_t
	if err := syscall.Statfs(base, &st); err == nil {
		if free := st.Bavail * uint64(st.Bsize); need+need/10 > free {
			return nil, fmt.Errorf("%s: testbed.work_dir: the run's block stores need about %.1f GB and %s has %.1f GB free; lower testbed.byte_scale or choose another work_dir",
				c.Name(), float64(need)/1e9, base, float64(free)/1e9)
		}
	}
	dir, err := os.MkdirTemp(base, "mrsched-testbed-"+runID+"-")
	if err != nil {
		return nil, fmt.Errorf("testbed.work_dir: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil {
			res, err = tornDown(res, err, fmt.Errorf("removing the work directory: %w", rerr))
		}
	}()
	unlock, err := lockWorkDir(dir)
	if err != nil {
		return nil, fmt.Errorf("locking the work directory %s: %w", dir, err)
	}
	defer unlock()
	nodeDir := func(n int) string { return filepath.Join(dir, "node"+strconv.Itoa(n)) }
	if err := worker.StoreInputs(nodeDir, topo, jobs, plans, seed); err != nil {
		return nil, fmt.Errorf("writing the input blocks: %w", err)
	}

	fab, err := fabric.Build(ctx, fabric.Spec{
		RunID: runID, Racks: cfg.Racks, NodesPerRack: cfg.NodesPerRack,
		NICBitsPerSec:    cfg.NICMbps * 1e6 * spec.BandwidthScale,
		UplinkBitsPerSec: cfg.RackUplinkMbps * 1e6 * spec.BandwidthScale,
		QueuePackets:     spec.QueuePackets,
		HopDelay:         time.Duration(spec.HopDelayMS * float64(time.Millisecond)),
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := fab.Close(); cerr != nil {
			res, err = tornDown(res, err, fmt.Errorf("removing the network: %w", cerr))
		}
	}()
	used := fab.Used()
	if used.DelayNote != "" && used.HopDelayApplied != used.HopDelayRequested {
		logf("testbed: %s", used.DelayNote)
	}

	ws, err := startWorkers(ctx, fab, topo, spec, nodeDir, opt)
	defer ws.stop()
	if err != nil {
		return nil, err
	}
	setupWall := time.Since(setupStart)
	host := startHostMonitor(ws.pids.list)

	stallWall := spec.StallS
	if stallWall == 0 {
		stallWall = DefaultStall(jobs, engine, spec)
	}
	m, err := master.New(master.Config{
		HeartbeatWallS: spec.HeartbeatS, StallWall: time.Duration(stallWall * float64(time.Second)),
		WorkerNote: ws.note, Dump: opt.Dump, DumpSelf: func() {
			if path, err := worker.WriteGoroutines(opt.LogDir, "goroutines-master"); err != nil {
				logf("testbed: goroutine dump: %v", err)
			} else {
				logf("testbed: the master's goroutines are in %s; each worker's beside it", path)
			}
		},
		Faults: evs, Kill: ws.kill, Restore: ws.restore,
		Topology: topo, Jobs: jobs, Plans: plans, Expected: expected, Policy: pol, Engine: engine, Seed: seed,
		ByteScale: spec.ByteScale, TimeScale: spec.TimeScale(), BandwidthScale: spec.BandwidthScale,
		UplinkBytesPerSec: cfg.RackUplinkMbps * 1e6 * spec.BandwidthScale / 8,
		Uplinks:           fab.UplinkBytes, Workers: ws.conns, Progress: opt.Progress,
	})
	if err != nil {
		host.Stop()
		return nil, err
	}
	start := time.Now()
	mres, err := m.Run(ctx, start)
	wall := time.Since(start)
	hostUse := host.Stop()
	if mres == nil {
		return nil, fmt.Errorf("policy %s on the testbed: %w%s", pol.Name(), err, ws.stderr())
	}
	if err != nil {
		err = fmt.Errorf("policy %s on the testbed: %w%s", pol.Name(), err, ws.stderr())
	}
	counters, cerr := fab.Counters()
	if cerr != nil && err == nil {
		return nil, fmt.Errorf("reading the links' counters: %w", cerr)
	}
	rep := Report{HeartbeatWallS: spec.HeartbeatS, StallWallS: stallWall, TCPCongestionControl: spec.CongestionControl, WallS: wall.Seconds(), SetupWallS: setupWall.Seconds(),
		Network: used, Links: counters, ChecksumsOK: len(mres.Mismatched) == 0, FailedAttempts: mres.FailedAttempts,
		Host: hostUse, MonitorLateMaxS: mres.MonitorLateS}
	if rep.FailedAttempts == nil {
		rep.FailedAttempts = []string{}
	}
	rep.FetchFailures = mres.FetchFailures
	if rep.FetchFailures == nil {
		rep.FetchFailures = []string{}
	}
	rep.FetchFailureReexecutions = mres.Reexecuted
	rep.Recoveries = mres.Recoveries
	if rep.Recoveries == nil {
		rep.Recoveries = []string{}
	}
	if rep.FetchFailureReexecutions == nil {
		rep.FetchFailureReexecutions = []string{}
	}
	rep.Scale.Bandwidth, rep.Scale.Byte, rep.Scale.Time = spec.BandwidthScale, spec.ByteScale, spec.TimeScale()
	rep.CrossRack = crossRackOf(counters, spec.ByteScale, mres.Collector.Summarize(pol.Name()).Bytes.CrossRackTotal)
	recs := mres.Collector.Jobs()
	for i := range jobs {
		jc := JobCheck{ID: i, Name: jobs[i].Name, Status: recs[i].Status(), Reason: recs[i].Reason, Expected: expected[i].String()}
		if jc.Status == "completed" {
			jc.Checksum = mres.Checksums[i].String()
			jc.OK = mres.Checksums[i] == expected[i]
		}
		rep.Jobs = append(rep.Jobs, jc)
	}
	for _, n := range mres.LostNodes {
		rep.LostNodes = append(rep.LostNodes, faults.NodeName(topo, n))
	}
	rep.NodeLosses, rep.WorkerEvents, rep.Stall = mres.Losses, mres.Events, mres.Stall
	if err != nil {
		rep.Error = err.Error()
	}
	return &Result{Result: mres, Report: rep}, err
}

// tornDown joins a teardown error to a run's outcome and its report.
func tornDown(res *Result, err, terr error) (*Result, error) {
	if res != nil {
		res.Report.Teardown = append(res.Report.Teardown, terr.Error())
	}
	return res, errors.Join(err, terr)
}

// DefaultStall is the stall watch's default bound, wall seconds: the
// workload's span of submissions in wall time, at least a minute and at
// most five (a few minutes, never much longer than the run is expected to
// last), and never under twice the heartbeat expiry or twice the
// shuffle's connect timeout, so that a wait the run survives by design
// (a node expiring, a dial timing out) is not taken for a stall.
func DefaultStall(jobs []workload.Job, engine sim.Params, spec Spec) float64 {
	ts := spec.TimeScale()
	span := 0.0
	if len(jobs) > 0 {
		span = (jobs[len(jobs)-1].Submit - jobs[0].Submit) * ts
	}
	expiry := max(engine.NodeExpiryS*ts, 10*spec.HeartbeatS, 3)
	connect := wire.Scaled(ts, TimeoutFloorS).ShuffleConnectS
	return max(min(300, max(60, span)), 2*expiry, 2*connect)
}

// ccAvailable reports whether the kernel has TCP congestion control cc.
func ccAvailable(cc string) error {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return err
	}
	have := strings.Fields(string(b))
	if !slices.Contains(have, cc) {
		return fmt.Errorf("the kernel has no %q (it has %s)", cc, strings.Join(have, ", "))
	}
	return nil
}

func newRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// workers are the running worker processes.
type workers struct {
	ctx     context.Context
	fab     *fabric.Fabric
	mk      func() (*exec.Cmd, error)
	setup   func(node int) wire.Setup
	nodeDir func(int) string
	conns   []*wire.Conn
	cmds    []*exec.Cmd // every worker started, restored ones too
	nodes   []int       // the node of each of cmds
	logs    []*tail
	files   []*os.File // the workers' log files, with logDir
	paths   []string
	logDir  string
	pids    mutexPids
	once    sync.Once
}

// stop kills the workers still running and waits for them.
func (w *workers) stop() {
	w.once.Do(func() {
		for _, c := range w.cmds {
			if c.Process != nil {
				c.Process.Kill()
			}
		}
		for _, c := range w.cmds {
			c.Wait()
		}
		for _, f := range w.files {
			f.Close()
		}
	})
}

// note says where to read more of node n's latest worker: its log file,
// or the tail of its standard error.
func (w *workers) note(n int) string {
	for i := len(w.cmds) - 1; i >= 0; i-- {
		if w.nodes[i] != n {
			continue
		}
		if w.paths[i] != "" {
			return "; its log: " + w.paths[i]
		}
		if x := w.logs[i].String(); x != "" {
			return "; its standard error ended: " + x
		}
		return ""
	}
	return ""
}

// stderr is what the workers wrote to their standard error, for an error
// message; empty when they wrote nothing.
func (w *workers) stderr() string {
	s := ""
	for i, t := range w.logs {
		if x := t.String(); x != "" {
			s += fmt.Sprintf("\nworker of node %d: %s", w.nodes[i], x)
		}
	}
	return s
}

// startWorkers starts one worker a node in its namespace, sends each its
// setup and waits until all are ready. The caller stops them, whatever
// startWorkers returned.
func startWorkers(ctx context.Context, fab *fabric.Fabric, topo *cluster.Topology, spec Spec,
	nodeDir func(int) string, opt Options) (*workers, error) {
	n := topo.NumNodes()
	addrs := make([]string, n)
	racks := make([]int, n)
	for i := range addrs {
		addrs[i] = net.JoinHostPort(fab.NodeAddr(i).String(), strconv.Itoa(Port))
		racks[i] = int(topo.Rack(cluster.NodeID(i)))
	}
	mk := opt.WorkerCommand
	if mk == nil {
		mk = func() (*exec.Cmd, error) {
			exe, err := os.Executable()
			if err != nil {
				return nil, err
			}
			return exec.Command(exe, "testbed", "worker"), nil
		}
	}
	logDir := ""
	if opt.LogDir != "" {
		logDir = filepath.Join(opt.LogDir, "workers")
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return &workers{}, fmt.Errorf("the workers' log directory: %w", err)
		}
	}
	w := &workers{ctx: ctx, fab: fab, mk: mk, nodeDir: nodeDir, conns: make([]*wire.Conn, n), logDir: logDir,
		setup: func(i int) wire.Setup {
			return wire.Setup{Node: i, Addrs: addrs, Racks: racks, Dir: nodeDir(i),
				DiskBytesPerSec: topo.Config().DiskMBps * 1e6 * spec.BandwidthScale,
				HeartbeatS:      spec.HeartbeatS, PhaseS: spec.HeartbeatS * float64(i) / float64(n),
				CongestionControl: spec.CongestionControl, Timeouts: wire.Scaled(spec.TimeScale(), TimeoutFloorS), LogDir: logDir}
		}}
	for i := range n {
		c, err := w.start(i)
		if err != nil {
			return w, err
		}
		w.conns[i] = c
	}
	for i, c := range w.conns {
		if err := w.ready(i, c); err != nil {
			return w, err
		}
	}
	return w, nil
}

// start starts node i's worker and sends it its setup.
func (w *workers) start(i int) (*wire.Conn, error) {
	cmd, err := w.mk()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t := &tail{}
	cmd.Stderr = t
	path := ""
	if w.logDir != "" {
		k := 0
		for _, x := range w.nodes {
			if x == i {
				k++
			}
		}
		path = filepath.Join(w.logDir, fmt.Sprintf("node%d-%d.log", i, k))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		w.files = append(w.files, f)
		cmd.Stderr = io.MultiWriter(f, t)
	}
	if err := w.fab.Start(i, cmd); err != nil {
		return nil, err
	}
	w.cmds, w.nodes, w.logs, w.paths = append(w.cmds, cmd), append(w.nodes, i), append(w.logs, t), append(w.paths, path)
	w.pids.add(cmd.Process.Pid)
	c := wire.NewConn(stdout, stdin, "worker of node "+strconv.Itoa(i))
	s := w.setup(i)
	if err := c.Send(wire.Msg{Setup: &s}); err != nil {
		return nil, err
	}
	return c, nil
}

// ready waits for node i's worker to say it is ready.
func (w *workers) ready(i int, c *wire.Conn) error {
	type got struct {
		m   wire.Msg
		err error
	}
	ch := make(chan got, 1)
	go func() { m, err := c.Recv(); ch <- got{m, err} }()
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-time.After(30 * time.Second):
		return fmt.Errorf("worker of node %d did not start within 30 s%s", i, w.stderr())
	case g := <-ch:
		if g.err != nil || g.m.Ready == nil {
			return fmt.Errorf("worker of node %d did not start: %v%s", i, g.err, w.stderr())
		}
	}
	return nil
}

// kill kills node n's worker at once, as a machine dies (node loss).
func (w *workers) kill(n int) error {
	for i := len(w.cmds) - 1; i >= 0; i-- {
		if w.nodes[i] == n {
			if err := w.cmds[i].Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				return err
			}
			return nil
		}
	}
	return fmt.Errorf("no worker of node %d", n)
}

// restore starts a new worker on node n with an empty store (a node
// returns empty: docs/faults.md).
func (w *workers) restore(n int) (*wire.Conn, error) {
	dir := w.nodeDir(n)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	c, err := w.start(n)
	if err != nil {
		return nil, err
	}
	if err := w.ready(n, c); err != nil {
		return nil, err
	}
	w.conns[n] = c
	return c, nil
}

// tail keeps the last few KB a worker wrote to its standard error, for
// the error that reports its death.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4<<10 {
		t.b = t.b[len(t.b)-4<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// notEmulated refuses the costs of the cost model (docs/model.md, Costs
// beyond bandwidth) that the testbed does not emulate, rather than run a
// scenario that silently means something else: its disks are a shared
// bandwidth limiter without seeks, its maps write their output once
// without spills or merges, and its reduces keep what they fetch. Nor
// does it draw random task failures: its attempts
// fail only as real ones do, so a scenario that sets
// workload.task_failure_rate would run as if it were 0. Start-up costs
// and launch limits it does emulate.
func notEmulated(c *scenario.Config, engine sim.Params) error {
	var what []string
	if c.Cluster.Disk != nil {
		what = append(what, "cluster.disk (disks that seek)")
	}
	if engine.SortBufferMB > 0 {
		what = append(what, "engine.sort_buffer_mb (map spills and merges)")
	}
	if engine.HeartbeatOffersOnly {
		what = append(what, "engine.heartbeat_offers_only (a worker reports an attempt's end at once)")
	}
	if engine.ReduceBufferMB > 0 {
		what = append(what, "engine.reduce_buffer_mb (reduce merges)")
	}
	if c.Workload.TaskFailureRate > 0 {
		what = append(what, "workload.task_failure_rate (random task failures)")
	}
	if len(what) == 0 {
		return nil
	}
	field, line := what[0], c.LineOf(strings.Fields(what[0])[0])
	if p := c.Cluster.Profile; p != "" && p != scenario.FluidProfile {
		field, line = "cluster.profile: "+p, c.LineOf("cluster.profile")
	} else {
		field = strings.Fields(field)[0]
	}
	at := c.Name() + ": "
	if line > 0 {
		at = fmt.Sprintf("%s: line %d: ", c.Name(), line)
	}
	return fmt.Errorf("%s%s: the testbed does not emulate %s; run those in the simulator, or hold the simulator with them against the testbed without them (mrsched validate -sim-set)",
		at, field, strings.Join(what, ", "))
}
