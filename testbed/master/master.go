// Package master is the testbed's JobTracker: it receives the workers'
// heartbeats and drives, with them, the same job tracker the simulator
// drives (jobtracker.Tracker: jobs, tasks, slots, the scheduler contract's
// view, every policy call), giving it the rack-uplink utilisation read
// from the kernel's counters of the shaped links, and launches what it
// decides on the workers. It records what happened with the simulator's
// metrics collector, in the scenario's unscaled seconds and bytes, so a
// testbed run writes the same files as a simulated one.
//
// The master is one goroutine: heartbeats, arrivals and monitor samples are
// handled one at a time, so policies run exactly as in the simulator, single
// threaded, against a view that does not change under them.
package master

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/wire"
	"github.com/mrsched/mrsched/workload"
)

// Config is what a master runs.
type Config struct {
	Topology *cluster.Topology
	// Jobs are in submit order with dense IDs, as the simulator takes them.
	Jobs []workload.Job
	// Plans are the jobs' scaled byte counts, by job ID.
	Plans []content.Plan
	// Expected are the jobs' output checksums, by job ID, computed before
	// the run; a job whose output differs is reported.
	Expected []content.Digest
	Policy   sched.Policy
	// Engine holds the scenario's engine settings, defaults filled.
	Engine sim.Params
	// Seed drives replica choice and output placement, as in the simulator.
	Seed uint64
	// ByteScale multiplies every byte count; TimeScale is wall seconds per
	// scenario second (byte scale over bandwidth scale); BandwidthScale
	// multiplies every rate.
	ByteScale, TimeScale, BandwidthScale float64
	// UplinkBytesPerSec is each rack uplink's shaped rate, each direction,
	// in bytes a wall second on the wire.
	UplinkBytesPerSec float64
	// Uplinks reads the kernel's cumulative byte counters of every rack's
	// uplink, up and down; nil leaves utilisation at 0 (tests without a
	// shaped network).
	Uplinks func() (up, down []uint64, err error)
	// Workers are the workers' connections, by node, each already set up.
	Workers []*wire.Conn
	// Faults are the run's node losses and returns (faults.Resolve), in
	// time order; Kill stops node n's worker at once (SIGKILL), Restore
	// starts a new one with an empty store and returns its connection,
	// set up. Both are needed only with faults.
	Faults  []faults.Event
	Kill    func(n int) error
	Restore func(n int) (*wire.Conn, error)
	// Progress, if set, is called as jobs finish.
	Progress sim.Progress
	// HeartbeatWallS is the workers' heartbeat period, wall seconds; 0
	// for engine.heartbeat_s scaled. The heartbeat expiry is ten of them
	// at least.
	HeartbeatWallS float64
	// StallWall ends the run with a diagnosis when nothing has progressed
	// for this long while jobs wait (testbed.stall_s); 0 for no watch.
	StallWall time.Duration
	// Dump, when it delivers, has every live worker write its goroutines
	// to a file (wire.Dump) and calls DumpSelf, if set, for the master's;
	// the run goes on.
	Dump     <-chan struct{}
	DumpSelf func()
	// WorkerNote, if set, says where to read more of node n's worker
	// (its log), for the note of its exit.
	WorkerNote func(n int) string
}

// Result is what a master run did beyond the collector's metrics.
type Result struct {
	Collector *metrics.Collector
	// Checksums are the jobs' output checksums, by job ID (zero for a job
	// that did not finish).
	Checksums []content.Digest
	// Mismatched lists jobs whose output differs from the expected one
	// (jobs that completed; a failed job has no output).
	Mismatched []int
	// LostNodes are the nodes declared lost, in order.
	LostNodes []cluster.NodeID
	// FailedAttempts lists the task attempts that failed, with why.
	FailedAttempts []string
	// FetchFailures lists the failed fetches the reduces reported.
	FetchFailures []string
	// Reexecuted lists the maps run again because of fetch-failure
	// reports, with why.
	Reexecuted []string
	// Recoveries lists the attempts that went on without a peer they could
	// not reach (a block read from another replica, a pipeline without a
	// node), with why.
	Recoveries []string
	// Stall is the diagnosis of a run that stalled: every waiting task,
	// on what, since when.
	Stall []string
	// Losses say why each node in LostNodes was lost, for losses by
	// heartbeat expiry; Events are the workers' exits and returns.
	Losses, Events []string
	// Cost is the wall time of the policy's decisions.
	Cost *metrics.Latency
	// MonitorLateS is the largest delay of a monitor sample behind its
	// schedule, wall seconds: a master starved of CPU samples late.
	MonitorLateS float64
}

// Master runs one testbed job stream. Build it with New, run it once.
type Master struct {
	cfg    Config
	pol    sched.Policy
	jt     *jobtracker.Tracker
	col    *metrics.Collector
	rng    *rand.Rand
	placer *cluster.Placer
	// order is the replicas the map being launched tries, in order
	// (ReadSource, Start).
	order []cluster.NodeID
	// dirty marks the nodes a slot was freed on in the current handler
	// (SlotFreed), listed in dirtyList, to offer at its end.
	dirty     []bool
	dirtyList []cluster.NodeID

	t0        float64   // first submit, scenario seconds
	wall0     time.Time // the wall instant of t0
	epochWall time.Time // the wall instant of scenario time 0

	in             chan inbound
	runCtx         context.Context
	lives          []nodeLife  // by node: killed, declared lost, which worker
	out            []*outbox   // by node: the current worker's outgoing messages
	lastHeard      []time.Time // by node: the current worker's last message
	losses, events []string
	lastMove       time.Time // the last progress (stall.go)
	moved          []int64   // by node: the data-plane bytes its worker last reported
	stall          []string
	faultQ         []faultAction
	faultSeq       int
	lost           []cluster.NodeID

	jobs       []*jobRun
	nextSubmit int

	uplink       [][2]float64
	lastProgress float64

	crossAcc      [3]float64 // cross-rack bytes by cause, unscaled, cumulative
	lastCross     [3]float64
	lastSeries    float64
	lastCongested int
	lastUp        [][2]uint64
	lastSample    time.Time

	failed        []string
	fetchFailures []string
	recoveries    []string
	reexecuted    []string
	monLate       time.Duration
	err           error
}

// New checks cfg and prepares a run.
func New(cfg Config) (*Master, error) {
	t := cfg.Topology
	switch {
	case t == nil:
		return nil, errors.New("master: no topology")
	case len(cfg.Workers) != t.NumNodes():
		return nil, fmt.Errorf("master: %d workers for %d nodes", len(cfg.Workers), t.NumNodes())
	case len(cfg.Plans) != len(cfg.Jobs):
		return nil, fmt.Errorf("master: %d plans for %d jobs", len(cfg.Plans), len(cfg.Jobs))
	case len(cfg.Jobs) == 0:
		return nil, errors.New("master: no jobs")
	case !(cfg.TimeScale > 0) || !(cfg.ByteScale > 0) || !(cfg.BandwidthScale > 0):
		return nil, errors.New("master: scales must be positive")
	case cfg.Engine.CopyCompute.Enabled:
		return nil, errors.New("engine.copy_compute: the testbed does not run copy-compute splitting")
	case cfg.Engine.Speculative && len(cfg.Faults) > 0:
		// As in the simulator (sim.Engine.SetFaults).
		return nil, errors.New("engine.speculative: not run with faults; leave one of them out")
	}
	for i := range cfg.Jobs {
		if cfg.Jobs[i].ID != i || (i > 0 && cfg.Jobs[i].Submit < cfg.Jobs[i-1].Submit) {
			return nil, fmt.Errorf("master: jobs must be in submit order with dense IDs (job %d)", i)
		}
	}
	p := cfg.Policy
	m := &Master{cfg: cfg, pol: p,
		col:    metrics.New(metrics.Options{CongestionThreshold: cfg.Engine.CongestionThreshold, MonitorPeriodS: cfg.Engine.MonitorPeriodS}),
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x72656164)),
		placer: cluster.NewPlacer(t, cfg.Seed),
		jobs:   make([]*jobRun, len(cfg.Jobs)),
		dirty:  make([]bool, t.NumNodes()),
	}
	if len(cfg.Faults) > 0 && (cfg.Kill == nil || cfg.Restore == nil) {
		return nil, errors.New("master: faults need Kill and Restore")
	}
	m.lives = make([]nodeLife, t.NumNodes())
	m.lastHeard = make([]time.Time, t.NumNodes())
	m.out = make([]*outbox, t.NumNodes())
	m.moved = make([]int64, t.NumNodes())
	if len(cfg.Faults) > 0 {
		m.col.EnableFaults()
	}
	c := t.Config()
	e := &cfg.Engine
	var cp *critpath.Recorder
	if e.TimeBreakdown {
		cp = critpath.New(len(cfg.Jobs))
		m.col.EnableTimeBreakdown()
	}
	m.jt = jobtracker.New(jobtracker.Config{
		Topology: t, Seed: cfg.Seed, Slots: [3]int{c.MapSlots, c.ReduceSlots, c.Containers},
		SlowStart: *e.SlowStart, MaxAttempts: e.MaxAttempts, LaunchesPerHeartbeat: e.LaunchesPerHeartbeat, DynamicMaxAssign: e.DynamicMaxAssign, LoadCap: e.LoadCap,
		HeartbeatS: e.HeartbeatS, CheckInvariants: e.CheckInvariants, Critpath: cp, Speculative: e.Speculative,
	}, cfg.Jobs, p, m.col, (*driver)(m))
	m.uplink = make([][2]float64, t.NumRacks())
	m.jt.SetUplinks(m.uplink)
	m.lastUp = make([][2]uint64, t.NumRacks())
	return m, nil
}

type inbound struct {
	node int
	life int // the node's worker the message came from
	msg  wire.Msg
	err  error
}

// listen reads node n's worker c (of the node's life life) into m.in.
func (m *Master) listen(n int, c *wire.Conn, life int) {
	go func() {
		for {
			msg, err := c.Recv()
			select {
			case m.in <- inbound{n, life, msg, err}:
			case <-m.runCtx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

// Run replays the jobs in wall-clock time from start (the instant the
// first job is submitted) until every job has finished, the run fails
// (a policy's error, a stall), or ctx ends. A run that ends early returns
// its error with the result so far: the jobs finished, the failures seen.
func (m *Master) Run(ctx context.Context, start time.Time) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e := &m.cfg.Engine
	m.t0 = m.cfg.Jobs[0].Submit
	m.wall0 = start
	m.lastProgress, m.lastSeries = m.t0, m.t0
	for i := range m.cfg.Jobs {
		m.col.JobSubmitted(&m.cfg.Jobs[i])
	}
	// Scenario time 0 falls at start - t0 x time scale: the workers beat
	// on their phases from there, as the simulator's nodes do from 0.
	m.epochWall = start.Add(-time.Duration(m.t0 * m.cfg.TimeScale * float64(time.Second)))
	for n, c := range m.cfg.Workers {
		if err := c.Send(wire.Msg{Start: &wire.Start{EpochUnixNano: m.epochWall.UnixNano()}}); err != nil {
			return nil, fmt.Errorf("starting the worker of node %d: %w", n, err)
		}
	}
	m.in = make(chan inbound, 64)
	m.runCtx = ctx
	for n, c := range m.cfg.Workers {
		m.out[n] = newOutbox(c)
		m.heard(n)
		m.listen(n, c, 0)
	}
	defer func() {
		for _, o := range m.out {
			o.close()
		}
	}()
	m.scheduleFaults()
	faultTimer := time.NewTimer(time.Hour)
	faultTimer.Stop()
	defer faultTimer.Stop()
	armFaults := func() {
		if t, ok := m.nextFault(); ok {
			faultTimer.Reset(time.Until(m.wallOfScenario(t)))
		}
	}
	armFaults()
	wallOf := func(t float64) time.Time {
		return m.wall0.Add(time.Duration((t - m.t0) * m.cfg.TimeScale * float64(time.Second)))
	}
	arrival := time.NewTimer(time.Until(wallOf(m.cfg.Jobs[0].Submit)))
	defer arrival.Stop()
	monPeriod := time.Duration(e.MonitorPeriodS * m.cfg.TimeScale * float64(time.Second))
	monitor := time.NewTimer(time.Until(start.Add(monPeriod)))
	defer monitor.Stop()
	nextMon := start.Add(monPeriod)
	series := time.NewTicker(time.Duration(e.TimeseriesPeriodS * m.cfg.TimeScale * float64(time.Second)))
	defer series.Stop()
	var preempt <-chan time.Time
	preempter, _ := m.pol.(sched.Preempter)
	if preempter != nil {
		t := time.NewTicker(time.Duration(e.PreemptionIntervalS * m.cfg.TimeScale * float64(time.Second)))
		defer t.Stop()
		preempt = t.C
	}
	m.lastSample = start
	m.lastMove = start
	if m.cfg.Uplinks != nil {
		if err := m.sampleUplinks(start, false); err != nil {
			return nil, err
		}
	}
	for m.jt.Finished() < len(m.jobs) && m.err == nil {
		select {
		case <-faultTimer.C:
			m.tick()
			m.runFaults()
			armFaults()
		case <-ctx.Done():
			m.fail("testbed run interrupted with %d of %d jobs finished: %w", m.jt.Finished(), len(m.jobs), context.Cause(ctx))
		case <-arrival.C:
			now := m.tick()
			for m.nextSubmit < len(m.cfg.Jobs) && m.cfg.Jobs[m.nextSubmit].Submit <= now {
				m.submit(m.nextSubmit)
				m.nextSubmit++
			}
			if m.nextSubmit < len(m.cfg.Jobs) {
				arrival.Reset(time.Until(wallOf(m.cfg.Jobs[m.nextSubmit].Submit)))
			}
		case t := <-monitor.C:
			if late := t.Sub(nextMon); late > m.monLate {
				m.monLate = late
			}
			nextMon = nextMon.Add(monPeriod)
			for !nextMon.After(time.Now()) {
				nextMon = nextMon.Add(monPeriod)
			}
			monitor.Reset(time.Until(nextMon))
			m.tick()
			if m.cfg.Uplinks != nil {
				if err := m.sampleUplinks(time.Now(), true); err != nil {
					m.fail("monitor: %v", err)
				}
			}
			m.expireSilent(time.Now())
			if len(m.lost) > 0 {
				m.jt.StarvedMaps()
			}
			if m.cfg.Engine.CheckInvariants {
				m.jt.Check()
			}
			m.checkStall()
			m.watchStall(time.Now())
		case <-m.cfg.Dump:
			for n := range m.lives {
				m.send(cluster.NodeID(n), wire.Msg{Dump: &wire.Dump{Name: "goroutines"}})
			}
			if m.cfg.DumpSelf != nil {
				m.cfg.DumpSelf()
			}
		case <-series.C:
			m.tick()
			m.series()
		case <-preempt:
			m.tick()
			m.jt.Preempt(preempter)
		case r := <-m.in:
			m.handle(r)
			armFaults() // a restore queues nothing; kills queue expiries
		}
		m.flushOffers()
		if err := m.jt.Err(); err != nil && m.err == nil {
			m.err = err
		}
	}
	for n := range m.cfg.Workers {
		m.send(cluster.NodeID(n), wire.Msg{Shutdown: &wire.Shutdown{}})
	}
	if m.err == nil && m.cfg.Progress != nil {
		m.cfg.Progress(m.Now(), m.jt.Finished(), len(m.jobs))
	}
	res := &Result{Collector: m.col, Checksums: make([]content.Digest, len(m.jobs)), FailedAttempts: m.failed, FetchFailures: m.fetchFailures, Recoveries: m.recoveries,
		Reexecuted: m.reexecuted, Losses: m.losses, Events: m.events, Stall: m.stall, Cost: m.jt.DecisionCost(), MonitorLateS: m.monLate.Seconds(), LostNodes: m.lost}
	for i, jr := range m.jobs {
		if jr == nil || jr.failed || !jr.done {
			continue
		}
		res.Checksums[i] = jr.checksum
		if m.cfg.Expected != nil && jr.checksum != m.cfg.Expected[i] {
			res.Mismatched = append(res.Mismatched, i)
		}
	}
	return res, m.err
}

func (m *Master) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("t=%.3f s: "+format, append([]any{m.Now()}, args...)...)
	}
}

// tick sets the job tracker's clock to now, for the handler about to
// run, and returns it.
func (m *Master) tick() float64 {
	now := m.Now()
	m.jt.SetNow(now)
	return now
}

// flushOffers offers the live nodes slots were freed on in the handler
// just run, in the order they were freed, as the simulator's engine does
// at the end of an instant.
func (m *Master) flushOffers() {
	for len(m.dirtyList) > 0 && m.err == nil && m.jt.Err() == nil {
		d := m.dirtyList
		m.dirtyList = nil
		for _, n := range d {
			m.dirty[n] = false
			if !m.lives[n].down && !m.jt.Gone(n) {
				m.jt.Offer(n)
			}
		}
	}
}

// handle takes one message from a worker.
func (m *Master) handle(r inbound) {
	m.tick()
	l := &m.lives[r.node]
	if r.life != l.life {
		if l.expired && r.life == l.life-1 && r.err == nil {
			m.returned(cluster.NodeID(r.node)) // a frozen worker, resumed
		}
		return // from a worker the run killed, or that expired
	}
	if l.down {
		return
	}
	if r.err != nil {
		m.workerGone(r.node, r.err)
		return
	}
	m.heard(r.node)
	switch msg := r.msg; {
	case msg.Heartbeat != nil:
		m.beat(r.node, msg.Heartbeat)
		n := cluster.NodeID(r.node)
		m.mapProgress(n, msg.Heartbeat.Progress)
		for _, e := range msg.Heartbeat.Ended {
			m.ended(n, e)
		}
		if m.err == nil && m.jt.Err() == nil {
			// The heartbeat's offer is the one its freed slots wait for.
			m.dirty[n] = false
			m.jt.Offer(n)
		}
	case msg.Status != nil: // an answer come too late for a diagnosis
	case msg.Transfers != nil:
		m.progressed()
		for _, t := range msg.Transfers {
			m.transfer(t)
		}
	case msg.FetchFailed != nil:
		m.fetchFailed(cluster.NodeID(r.node), msg.FetchFailed)
	case msg.Copied != nil:
		m.copied(cluster.NodeID(r.node), *msg.Copied)
	case msg.Phase != nil:
		m.phase(cluster.NodeID(r.node), msg.Phase)
	case msg.Recovered != nil:
		rc := msg.Recovered
		m.recoveries = append(m.recoveries, fmt.Sprintf("t=%.3f s: %s on node %d: %s without node %d: %s",
			m.Now(), rc.Attempt, r.node, rc.What, rc.Node, rc.Err))
	case msg.Fatal != "":
		m.fail("worker of node %d: %s", r.node, msg.Fatal)
	default:
		m.fail("worker of node %d sent an unexpected message", r.node)
	}
}

func (m *Master) transfer(t wire.Transfer) {
	var c metrics.Cause
	switch t.Cause {
	case wire.RemoteMap:
		c = metrics.RemoteMap
	case wire.Shuffle:
		c = metrics.Shuffle
	case wire.Output:
		c = metrics.Output
	default:
		m.fail("unknown transfer cause %q", t.Cause)
		return
	}
	b := float64(t.Bytes) / m.cfg.ByteScale
	m.col.Transfer(c, t.CrossRack, b)
	if t.CrossRack {
		m.crossAcc[c] += b
	}
}

// checkStall ends the run when no task has launched or ended for the
// scenario's stall_s while jobs wait.
func (m *Master) checkStall() {
	if len(m.jt.Jobs()) == 0 {
		m.lastProgress = m.Now()
		return
	}
	if now := m.Now(); now-m.lastProgress > m.cfg.Engine.StallS {
		m.fail("stalled: no task has launched or ended for %.0f s while %d jobs wait; policy %s (engine.stall_s)",
			now-m.lastProgress, len(m.jt.Jobs()), m.pol.Name())
	}
}

// sampleUplinks reads the uplinks' counters and, when record is set, sets
// each rack's utilisation over the time since the last sample and counts
// congestion occurrences, as the simulator's network monitor does.
// Utilisation is bytes on the wire (headers included) over the shaped rate.
func (m *Master) sampleUplinks(now time.Time, record bool) error {
	up, down, err := m.cfg.Uplinks()
	if err != nil {
		return err
	}
	if len(up) != len(m.uplink) || len(down) != len(m.uplink) {
		return fmt.Errorf("uplink counters for %d and %d racks, the cluster has %d", len(up), len(down), len(m.uplink))
	}
	dt := now.Sub(m.lastSample).Seconds()
	congested := 0
	for r := range m.uplink {
		cur := [2]uint64{up[r], down[r]}
		for d := 0; d < 2; d++ {
			if record && dt > 0 {
				u := float64(cur[d]-m.lastUp[r][d]) / (dt * m.cfg.UplinkBytesPerSec)
				m.uplink[r][d] = u
				if u >= m.cfg.Engine.CongestionThreshold {
					congested++
				}
			}
		}
		m.lastUp[r] = cur
	}
	m.lastSample = now
	if record {
		m.col.MonitorSample(congested)
		m.col.UplinkMonitorSample(m.uplink)
		m.lastCongested = congested
	}
	return nil
}

// series appends a timeseries row, as the simulator's does: cross-rack
// byte rates by cause over the period (from transfers reported finished
// in it), and the cluster's load.
func (m *Master) series() {
	now := m.Now()
	dt := now - m.lastSeries
	active := m.jt.Jobs()
	row := metrics.TimeseriesRow{T: now, ActiveJobs: len(active), CongestedUplinks: m.lastCongested}
	for c := range m.crossAcc {
		if dt > 0 {
			row.CrossRackBps[c] = (m.crossAcc[c] - m.lastCross[c]) / dt
		}
		m.lastCross[c] = m.crossAcc[c]
		row.CrossRackTotalBytes += m.crossAcc[c]
	}
	sim.AddLoad(&row, active, m.uplink)
	m.col.AddTimeseries(row)
	m.col.EndUplinkPeriod(now, len(m.uplink))
	m.col.AddPoolSamples(sim.PoolSamples(now, active, m.jt.SlotTotals()))
	m.lastSeries = now
}
