package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// Progress is called now and then during a run with the virtual time and
// the number of jobs finished, for a progress line.
type Progress func(now float64, finished, total int)

// Engine runs one simulation. Build it with New, run it once with Run.
type Engine struct {
	p      Params
	topo   *cluster.Topology
	net    *network.Network[flowRef]
	pol    sched.Policy
	placer *cluster.Placer // reduce output replicas
	seed   uint64
	rng    *rand.Rand // replica choice among equally near ones
	col    *metrics.Collector

	now    float64
	events eventQueue
	// jt is the run's job tracker: the jobs' and nodes' bookkeeping and
	// the policies' view of the cluster.
	jt *jobtracker.Tracker

	specs []workload.Job
	jobs  []*jobRun

	nodes []nodeState
	dirty []cluster.NodeID

	// acct are accounting links of unbounded capacity that every
	// cross-rack flow of a cause also crosses, so the network's per-link
	// byte counters give cross-rack bytes by cause over time.
	acct    [3]network.LinkID
	pathBuf []network.LinkID
	// spareFrom and spareQueue hold the fetch state of reduces that
	// finished copying (releaseFetchState), zeroed, for the next reduce
	// to copy: a day on 600 nodes copies with hundreds of thousands of
	// reduces, and making each its own was a tenth of the engine's time.
	spareFrom  [][]hostFetch
	spareQueue [][]int32
	scratch    []int
	uplink     [][2]float64 // last monitor sample per rack
	// linkCaps are the links' rates as the network shares them: the
	// topology's, or their payload part under transport tcp, so that a
	// link is fully used when its payload reaches it.
	linkCaps      []float64
	lastUp        [][2]float64 // link byte counters at the last sample
	lastAcct      [3]float64
	lastSer       float64
	lastCongested int

	phasePending int // evPhaseDone events queued: tasks in a timed phase
	lastProgress float64
	progress     Progress
	startAt      float64 // see StartAt
	startSet     bool

	// instantMark is handled when the current instant began, and
	// instantLimit the most events an instant may take (guard.go).
	instantMark, instantLimit int64
	// lastDone and doneEvents are the time and the event count when a
	// task last finished or a job arrived (guard.go).
	lastDone   float64
	doneEvents int64

	// Node loss (nodeloss.go); all zero in a run without faults.
	faults       []faults.Event
	faultPending int // evFault events queued: faults to come and expiries
	downCount    int // nodes dead (killed and not restored)

	shuffleProduced, shuffleFetched float64
	ledger                          diskLedger // spill and merge bytes (costs.go)
	handled, flowsDone              int64

	// Parked heartbeats (park.go): the nodes whose beats are virtual,
	// the time of each one's next and the least of those, whether this
	// run may park them, and whether the beats of the current instant
	// have happened.
	parked      []cluster.NodeID
	parkNext    []float64
	parkMin     float64
	canPark     bool
	beatsDone   bool
	parkedBeats int64
}

// Stats is what a run did, for performance reports: the work a run's cost
// grows with.
type Stats struct {
	Events int64 // engine events handled (submissions, heartbeats, phases, samples)
	// ParkedBeats counts the heartbeats among Events that found nothing
	// to offer while their node was parked, and so were never queued
	// (park.go).
	ParkedBeats int64
	Flows       int64 // network flows completed
	Network     network.Stats
}

// Stats returns the run's counters so far.
func (e *Engine) Stats() Stats {
	e.settle()
	return Stats{Events: e.handled, ParkedBeats: e.parkedBeats, Flows: e.flowsDone, Network: e.net.Stats()}
}

// nodeState is what the engine keeps of a node beside the tracker's
// bookkeeping.
type nodeState struct {
	// computing and computeWait implement copy-compute splitting: reducers
	// computing now, and those waiting to (job index, reduce index).
	computing   int
	computeWait [][2]int32
	hb          bool // a heartbeat is scheduled (or parked: park.go)
	isDirty     bool
	// life counts the node's kills and restores, so that an expiry
	// scheduled before a restore is known to be stale.
	life uint32
}

// referenceSolves makes every engine's network re-solve from scratch at
// every change (network.SetFullSolves). Only tests set it, to check the
// exact mode against its reference on whole runs of shipped scenarios.
var referenceSolves bool

// New prepares a run of jobs (sorted by submit time, IDs dense from 0) on
// topo under policy pol. seed drives block placement.
func New(p Params, topo *cluster.Topology, jobs []workload.Job, pol sched.Policy, seed uint64) (*Engine, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	for i := range jobs {
		if jobs[i].ID != i {
			return nil, fmt.Errorf("job %d (%s): IDs must be dense and in order, got %d", i, jobs[i].Name, jobs[i].ID)
		}
		if i > 0 && jobs[i].Submit < jobs[i-1].Submit {
			return nil, fmt.Errorf("job %d (%s): submit time %v is before the previous job's %v", i, jobs[i].Name, jobs[i].Submit, jobs[i-1].Submit)
		}
		if jobs[i].NumMaps < 1 || jobs[i].NumReduces < 1 {
			return nil, fmt.Errorf("job %d (%s): needs at least one map and one reduce", i, jobs[i].Name)
		}
	}
	caps := append([]float64(nil), topo.LinkCapacities()...)
	if p.Transport == TransportTCP {
		payloadOnly(caps, topo, p.TCPPayloadFraction)
	}
	e := &Engine{p: p, topo: topo, pol: pol, specs: jobs, seed: seed,
		rng:    rand.New(rand.NewPCG(seed, 0x72656164)),
		placer: cluster.NewPlacer(topo, seed),
		col: metrics.New(metrics.Options{
			CongestionThreshold: p.CongestionThreshold, MonitorPeriodS: p.MonitorPeriodS,
		}),
	}
	for c := range e.acct {
		e.acct[c] = network.LinkID(len(caps))
		caps = append(caps, network.Unlimited)
	}
	e.linkCaps = caps
	net, err := network.New[flowRef](caps)
	if err != nil {
		return nil, err
	}
	if err := net.SetQuantum(p.NetworkQuantumS); err != nil {
		return nil, fmt.Errorf("engine.network_quantum_s: %v", err)
	}
	net.SetFullSolves(referenceSolves)
	if multi, ok := topo.DiskStreamBps(); ok {
		for n := range topo.NumNodes() {
			if err := net.SetStreamCapacity(topo.DiskLink(cluster.NodeID(n)), multi); err != nil {
				return nil, fmt.Errorf("cluster.disk: %v", err)
			}
		}
	}
	e.net = net
	if p.SortBufferMB > 0 || p.ReduceBufferMB > 0 {
		e.col.EnableDiskCosts()
	}
	cfg := topo.Config()
	if cc := &e.p.CopyCompute; cc.Enabled {
		if topo.ContainerModel() {
			return nil, fmt.Errorf("engine.copy_compute: copy-compute splitting needs the slot model (map_slots, reduce_slots)")
		}
		if cc.MaxComputing == 0 {
			cc.MaxComputing = cfg.ReduceSlots
		}
		if cc.MaxReducers == 0 {
			cc.MaxReducers = 3 * cc.MaxComputing
		}
		if cc.MaxComputing < 1 || cc.MaxReducers < cc.MaxComputing {
			return nil, fmt.Errorf("engine.copy_compute: want 1 <= max_computing <= max_reducers, got %d and %d", cc.MaxComputing, cc.MaxReducers)
		}
	}
	slots := [3]int{cfg.MapSlots, cfg.ReduceSlots, cfg.Containers}
	if e.p.CopyCompute.Enabled {
		slots[sched.ReduceSlot] = e.p.CopyCompute.MaxReducers
	}
	if !topo.Uniform() && e.p.CopyCompute.Enabled {
		return nil, fmt.Errorf("engine.copy_compute: copy-compute splitting needs nodes of one size, and the cluster's differ")
	}
	maxComputing := 0
	if e.p.CopyCompute.Enabled {
		maxComputing = e.p.CopyCompute.MaxComputing
	}
	var cp *critpath.Recorder
	if p.TimeBreakdown {
		cp = critpath.New(len(jobs))
		e.col.EnableTimeBreakdown()
	}
	e.jt = jobtracker.New(jobtracker.Config{
		Topology: topo, Seed: seed, Slots: slots, SlowStart: *e.p.SlowStart, MaxAttempts: e.p.MaxAttempts,
		MaxComputing: maxComputing, LaunchesPerHeartbeat: e.p.LaunchesPerHeartbeat, DynamicMaxAssign: e.p.DynamicMaxAssign, LoadCap: e.p.LoadCap,
		Speculative: e.p.Speculative, HeartbeatS: e.p.HeartbeatS, CheckInvariants: e.p.CheckInvariants,
		Critpath: cp,
	}, jobs, pol, e.col, (*driver)(e))
	e.nodes = make([]nodeState, topo.NumNodes())
	e.uplink = make([][2]float64, topo.NumRacks())
	e.jt.SetUplinks(e.uplink)
	e.lastUp = make([][2]float64, topo.NumRacks())
	e.jobs = make([]*jobRun, len(jobs))
	var tasks int64
	for i := range jobs {
		tasks += int64(jobs[i].NumMaps) + int64(jobs[i].NumReduces)
	}
	e.instantLimit = instantBound(len(e.nodes), e.p, tasks, len(jobs))
	return e, nil
}

// SetDecisionLog has the run tell l of every launch its policy decides
// (jobtracker.Tracker.SetDecisionLog).
func (e *Engine) SetDecisionLog(l jobtracker.DecisionLog) { e.jt.SetDecisionLog(l) }

// SetProgress installs a progress callback.
func (e *Engine) SetProgress(f Progress) { e.progress = f }

// StartAt starts the run's clock at t instead of at the first submit time
// (t must be before it): the nodes' heartbeats are laid out from t, so a
// job submitted later finds them as it would on a cluster that has been
// idle since, waiting for the next heartbeat rather than meeting one at
// its submission. A job's run alone (metrics.slowdown) uses it.
func (e *Engine) StartAt(t float64) { e.startAt, e.startSet = t, true }

// DecisionCost is the wall time of the policy's Assign calls (every offer,
// including those it declined): what Hadoop's Scheduler Load Simulator
// reports, so a user can see whether a policy keeps up with a real
// heartbeat stream. It depends on the machine, so it is kept apart from
// the run's results.
func (e *Engine) DecisionCost() *metrics.Latency { return e.jt.DecisionCost() }

// Collector returns the run's metrics.
func (e *Engine) Collector() *metrics.Collector { return e.col }

// Run executes the simulation until every job has finished.
func (e *Engine) Run() error {
	submits := make([]float64, len(e.specs))
	for i := range e.specs {
		submits[i] = e.specs[i].Submit
		e.col.JobSubmitted(&e.specs[i])
	}
	e.events.setArrivals(submits)
	if len(e.specs) == 0 {
		return nil
	}
	start := e.specs[0].Submit
	if e.startSet && e.startAt < start {
		start = e.startAt
	}
	e.now, e.lastProgress, e.lastSer, e.lastDone = start, start, start, start
	e.jt.SetNow(start)
	n := len(e.nodes)
	for i := range e.nodes {
		e.scheduleHeartbeatAfter(cluster.NodeID(i), start-e.p.HeartbeatS*float64(n-i)/float64(n))
	}
	e.events.push(event{t: start + e.p.MonitorPeriodS, kind: evMonitor})
	e.events.push(event{t: start + e.p.TimeseriesPeriodS, kind: evSeries})
	if _, ok := e.pol.(sched.Preempter); ok {
		e.events.push(event{t: start + e.p.PreemptionIntervalS, kind: evPreempt})
	}
	for i := range e.faults {
		e.faultPending++
		e.events.push(event{t: e.faults[i].At, kind: evFault, a: int32(i)})
	}
	e.canPark = e.parkingAllowed()
	nextReport := 0
	for e.jt.Finished() < len(e.specs) && e.jt.Err() == nil {
		tNet, okNet := e.net.NextCompletion()
		if e.events.len() == 0 && !okNet {
			return fmt.Errorf("simulation stalled at t=%.3f s with %d of %d jobs unfinished and nothing scheduled", e.now, len(e.specs)-e.jt.Finished(), len(e.specs))
		}
		next := math.Inf(1)
		if e.events.len() > 0 {
			next = e.events.peek().t
		}
		if okNet && tNet <= next {
			next = tNet
		}
		if next > e.now {
			// Everything at the current instant is done: offer the slots it freed.
			e.beatsDone = true
			e.flushOffers()
			if e.jt.Err() != nil {
				break
			}
			e.wakeIfNeeded()
			// Offers may have launched zero-length work at this instant.
			if t, ok := e.net.NextCompletion(); ok && t < next {
				next, tNet, okNet = t, t, true
			}
			if e.events.len() > 0 && e.events.peek().t < next {
				continue
			}
			if next > e.now {
				e.beatsDone = false
			}
			e.now = math.Max(e.now, next)
			e.jt.SetNow(e.now)
			e.instantMark = e.handled
		}
		if okNet && tNet <= e.now {
			cs := e.net.PopCompleted(e.now)
			for i := range cs {
				e.flowsDone++
				e.completeFlow(&cs[i])
			}
			e.wakeIfNeeded()
			continue
		}
		ev := e.events.pop()
		if ev.kind >= evHeartbeat {
			e.beatsDone = true
		}
		e.handled++
		// Virtual heartbeats of this instant count too: at most one a
		// parked node.
		if e.handled-e.instantMark+int64(len(e.parked)) > e.instantLimit {
			if e.settle(); e.handled-e.instantMark > e.instantLimit {
				e.spinError(ev.kind)
				break
			}
		}
		e.handle(ev)
		e.wakeIfNeeded()
		if e.progress != nil && e.jt.Finished() >= nextReport {
			e.progress(e.now, e.jt.Finished(), len(e.specs))
			nextReport = e.jt.Finished() + max(1, len(e.specs)/100)
		}
	}
	// The run ends with its last job, but what else happens at that
	// instant still happens: faults and expiries queued for it (a whole
	// rack expires at one instant, and the expiry that fails the last job
	// may not be its last). Nothing later does.
	for e.jt.Err() == nil && e.events.len() > 0 && e.events.peek().t <= e.now {
		ev := e.events.pop()
		if ev.kind == evFault {
			e.handle(ev)
		}
	}
	if e.jt.Err() != nil {
		return e.jt.Err()
	}
	if e.progress != nil {
		e.progress(e.now, e.jt.Finished(), len(e.specs))
	}
	return e.checkEnd()
}

func (e *Engine) handle(ev event) {
	switch ev.kind {
	case evSubmit:
		e.submit(int(ev.a))
	case evPhaseDone:
		e.phasePending--
		e.lastProgress = e.now
		e.phaseDone(int(ev.a), int(ev.b), ev.c)
	case evHeartbeat:
		e.heartbeat(cluster.NodeID(ev.a))
	case evFault:
		e.faultPending--
		e.fault(ev)
	case evPreempt:
		e.preempt(e.pol.(sched.Preempter))
	case evMonitor:
		e.monitor()
	case evSeries:
		e.series()
	}
}

func (e *Engine) fail(format string, args ...any) {
	e.jt.Fail(fmt.Errorf("t=%.3f s: "+format, append([]any{e.now}, args...)...))
}

// markDirty queues node n to be offered its free slots at the end of the
// current instant, or, with Params.HeartbeatOffersOnly, at its next
// heartbeat.
func (e *Engine) markDirty(n cluster.NodeID) {
	ns := &e.nodes[n]
	if e.jt.Down(n) {
		return // a dead node offers nothing
	}
	if e.p.HeartbeatOffersOnly {
		if !ns.hb {
			e.scheduleHeartbeatAfter(n, e.now)
		}
		return
	}
	if !ns.isDirty {
		ns.isDirty = true
		e.dirty = append(e.dirty, n)
	}
	if !ns.hb {
		e.scheduleHeartbeatAfter(n, e.now)
	}
}

// scheduleHeartbeatAfter schedules node n's next heartbeat on its own phase,
// strictly after t. Phases are spread evenly over the period so that nodes
// do not all ask at once.
func (e *Engine) scheduleHeartbeatAfter(n cluster.NodeID, t float64) {
	e.nodes[n].hb = true
	e.events.push(event{t: e.beatAfter(n, t), kind: evHeartbeat, a: int32(n)})
}

// beatAfter is the time of node n's first heartbeat strictly after t.
func (e *Engine) beatAfter(n cluster.NodeID, t float64) float64 {
	h := e.p.HeartbeatS
	phase := h * float64(n) / float64(len(e.nodes))
	k := math.Floor((t-phase)/h) + 1
	next := phase + k*h
	if next <= t {
		next += h
	}
	return next
}

func (e *Engine) heartbeat(n cluster.NodeID) {
	ns := &e.nodes[n]
	ns.hb = false
	if e.p.CheckInvariants {
		e.jt.Check()
	}
	if e.jt.Down(n) {
		return // the heartbeat of a node that has died since it was scheduled
	}
	if !e.jt.HasFree(n) {
		return // a full node waits for a task to end
	}
	e.offer(n)
	if e.jt.Err() == nil && !ns.hb && e.jt.HasFree(n) && len(e.jt.Jobs()) > 0 {
		if next := e.beatAfter(n, e.now); e.canPark && next > e.now && e.idle() {
			e.park(n, next)
		} else {
			e.scheduleHeartbeatAfter(n, e.now)
		}
	}
	e.checkStall()
}

func (e *Engine) flushOffers() {
	for len(e.dirty) > 0 && e.jt.Err() == nil {
		d := e.dirty
		e.dirty = nil
		for _, n := range d {
			e.nodes[n].isDirty = false
			if !e.jt.Down(n) {
				e.offer(n)
			}
		}
	}
}

// offer has the job tracker offer node n's free slots to the policy
// (jobtracker.Tracker.Offer).
func (e *Engine) offer(n cluster.NodeID) { e.jt.Offer(n) }

// checkStall ends the run when nothing can happen any more: no bytes are
// moving, no task is in a timed phase, and no task has launched or ended
// for StallS while jobs wait. That is a policy that declines every offer,
// or tasks that hold every slot waiting for work that has nowhere to run.
func (e *Engine) checkStall() {
	if e.net.ActiveFlows() > 0 || e.phasePending > 0 || len(e.jt.Jobs()) == 0 || e.faultPending > 0 {
		e.lastProgress = e.now
		return
	}
	if e.now-e.lastProgress > e.p.StallS {
		e.fail("stalled: no task has launched or ended for %.0f s while %d jobs wait and %d tasks hold slots; policy %s (engine.stall_s)",
			e.now-e.lastProgress, len(e.jt.Jobs()), e.jt.RunningAttempts(), e.pol.Name())
	}
}

// payloadOnly gives the payload of transfers fraction of every NIC's and
// uplink's rate (transport tcp): the rest carries the frames' headers.
// Disks move bytes without them.
func payloadOnly(caps []float64, topo *cluster.Topology, fraction float64) {
	for n := range topo.NumNodes() {
		caps[topo.NICUp(cluster.NodeID(n))] *= fraction
		caps[topo.NICDown(cluster.NodeID(n))] *= fraction
	}
	for r := range topo.NumRacks() {
		caps[topo.UplinkUp(cluster.RackID(r))] *= fraction
		caps[topo.UplinkDown(cluster.RackID(r))] *= fraction
	}
}
