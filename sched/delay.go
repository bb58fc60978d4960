package sched

import (
	"iter"

	"github.com/mrsched/mrsched/cluster"
)

// DelayPlacer is delay scheduling (Fair Scheduler paper, section 4.2,
// Algorithm 1) as a Placer: it works under any Order (fair: the `delay`
// policy; FIFO: `fifo-delay`). For each candidate job in the order's
// sequence it launches a node-local map if the job has one for the offered
// node; else a rack-local map if the job's locality level allows it; else
// an off-rack map if the level allows that; else it skips the job and looks
// at the next. Reduces have no locality: a job whose turn is a reduce
// (job.KindFor) launches it at once. Parameters: DelayParams (T1 = T2 = 15
// s by default).
//
// Each job has a level, as in Algorithm 1 (0 node-local only, 1 also
// rack-local, 2 anything), and a wait. The job's allowed level is its level
// raised by its wait: level 0 allows rack-local once wait >= T1 and
// off-rack once wait >= T1 + T2; level 1 allows off-rack once wait >= T2.
//
// The wait is the length of the job's current skip spell, not the time
// since its last launch. A spell starts when the job is skipped (it had a
// pending map and declined the slot) while not already in one; the wait is
// now minus the spell's start. A map launch at locality L is "clean" when
// (a) since the job's previous map launch no slot it skipped went unused
// (the placer declined the whole offer), and (b) that previous launch was
// at L or more local. A clean launch does what Algorithm 1 does at every
// launch: the level becomes L and the spell ends (wait 0). A launch that is
// not clean changes neither: the wait keeps counting. The spell also ends,
// with the level back to 0, when the job has no pending map.
//
// Why: Algorithm 1 resets the wait at every launch. When a job's maps all
// prefer one node whose tasks end more often than every T1 (SPARK-18886:
// tasks shorter than the wait), each local launch resets the wait before
// it reaches T1, so the job never relaxes and every other node stays idle.
// Here, skips that leave a slot idle make the next launches unclean, so
// the wait of a job that keeps idling slots runs on and reaches T1 while
// it still launches locally. Rule (a) keeps Algorithm 1's behaviour in its
// own setting, many jobs, where a skipped slot goes to the next job and a
// local launch rightly resets the wait. Rule (b) keeps a relaxed job from
// falling back to level 0 on one lucky local launch while most of its
// launches are remote (the hot-spot oscillation that Spark's fix still
// has): it returns to a more local level, as the paper says, once two
// launches in a row are at that level. ResetOnLaunch treats every launch
// as clean, which is Algorithm 1 (and Spark before 3.0) exactly.
//
// In the container model one guard is added: a job whose turn
// (job.KindFor) is a reduce while it still has pending maps does not get a
// node's last free container; it may run a map there instead, by the
// rules above. Without it, reduces waiting for map output can take every
// container of the cluster and leave their maps nowhere to run, a deadlock
// (YARN's MapReduce master ramps reduces against its headroom and preempts
// them for the same reason).
//
// Algorithm 1 adds to a skipped job's wait the time between heartbeats;
// here the wait is wall time since the spell began, including time in
// which no slot was offered at all (a full cluster): the job's maps waited
// through it too, and the paper's wait exists to bound that delay.
//
// The placer assumes the engine launches what it decides, and reads a
// launch's locality from its own decision when TaskLaunched arrives. Its
// per-job state lives in a slice indexed by Job.Index; Place allocates
// nothing once that slice and its scratch list have grown. Place is not
// reentrant: one placer serves one policy, one call at a time.
type DelayPlacer struct {
	t1, t2       float64
	cpuT1, cpuT2 float64
	ioBound      float64 // bytes per task-second
	minMaps      int
	biasing      bool
	legacy       bool
	poolCPU      map[string]bool // last measured class per pool; lookup only

	jobs    []delayJob
	skipped []int32 // jobs skipped in the current Place call
	skips   uint64

	call  placeCall
	visit func(*Job) bool // p.visitJob, bound once
	last  lastDecision
}

// delayJob is one job's delay-scheduling state.
type delayJob struct {
	level     int8
	inSpell   bool
	idleSkip  bool          // a slot it skipped went unused since its last map launch
	lastReach cluster.Reach // locality of its last map launch
	start     float64       // spell start
	io        ioState
}

// lastDecision is the map the placer last decided, read back in
// TaskLaunched.
type lastDecision struct {
	job   int
	node  cluster.NodeID
	reach cluster.Reach
	set   bool
}

var (
	_ Placer       = (*DelayPlacer)(nil)
	_ JobObserver  = (*DelayPlacer)(nil)
	_ TaskObserver = (*DelayPlacer)(nil)
)

// NewDelayPlacer returns a delay-scheduling placer.
func NewDelayPlacer(p DelayParams) (*DelayPlacer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	d := &DelayPlacer{
		t1: orDefault(p.T1S, DefaultDelayT1S), t2: orDefault(p.T2S, DefaultDelayT2S),
		cpuT1: orDefault(p.CPUBoundT1S, DefaultCPUBoundT1S), cpuT2: orDefault(p.CPUBoundT2S, DefaultCPUBoundT2S),
		ioBound: orDefault(p.IOBoundMBPerS, DefaultIOBoundMBPerS) * (1 << 20),
		minMaps: p.IOMinMaps, biasing: p.IORateBiasing, legacy: p.ResetOnLaunch,
		poolCPU: map[string]bool{},
	}
	d.visit = d.visitJob
	if d.minMaps == 0 {
		d.minMaps = DefaultIOMinMaps
	}
	return d, nil
}

// Place launches the first candidate's task that its locality level allows,
// skipping the jobs that must wait.
func (p *DelayPlacer) Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool) {
	p.call = placeCall{c: c, o: o, now: c.Now(), topo: c.Topology()}
	p.skipped = p.skipped[:0]
	// visit is a method value made once: ranging over jobs with a closure
	// would allocate on every call.
	jobs(p.visit)
	d, ok := p.call.d, p.call.ok
	p.call = placeCall{}
	if !ok {
		// The slot stays idle: every job skipped for it held it idle.
		for _, k := range p.skipped {
			p.jobs[k].idleSkip = true
		}
	}
	return d, ok
}

// placeCall is the state of one Place call, kept in the placer so that
// visiting candidates allocates nothing. Place is not reentrant.
type placeCall struct {
	c    Cluster
	o    Offer
	now  float64
	topo *cluster.Topology
	d    Decision
	ok   bool
}

// visitJob decides for one candidate; it returns false to stop at a launch.
func (p *DelayPlacer) visitJob(j *Job) bool {
	pc := &p.call
	kind, ok := j.KindAt(pc.c, pc.o)
	if !ok {
		return true
	}
	if kind == ReduceTask {
		pc.d, pc.ok = Decision{Job: j, Kind: ReduceTask, Rule: RuleReduce}, true
		return false
	}
	s := p.state(j)
	if i, reach, ok := pickMap(pc.topo, j, pc.o.Node, p.allowed(s, j, pc.now)); ok {
		p.last = lastDecision{job: j.Index, node: pc.o.Node, reach: reach, set: true}
		pc.d, pc.ok = Decision{Job: j, Kind: MapTask, Map: i, Rule: reachRule(reach)}, true
		return false
	}
	if !s.inSpell {
		s.inSpell, s.start = true, pc.now
	}
	p.skipped = append(p.skipped, int32(j.Index))
	p.skips++
	return true
}

// pickMap returns job j's map closest to node n within level.
func pickMap(t *cluster.Topology, j *Job, n cluster.NodeID, level int8) (int, cluster.Reach, bool) {
	if i, ok := j.Maps.NodeLocal(n); ok {
		return i, cluster.NodeLocal, true
	}
	if level < 1 {
		return 0, 0, false
	}
	if i, ok := j.Maps.RackLocal(t.Rack(n)); ok {
		return i, cluster.RackLocal, true
	}
	if level < 2 {
		return 0, 0, false
	}
	i, ok := j.Maps.Any()
	return i, cluster.OffRack, ok
}

// state returns job j's entry, growing the table as needed.
func (p *DelayPlacer) state(j *Job) *delayJob {
	for j.Index >= len(p.jobs) {
		p.jobs = append(p.jobs, delayJob{})
	}
	return &p.jobs[j.Index]
}

// allowed is the locality level job j may launch at now.
func (p *DelayPlacer) allowed(s *delayJob, j *Job, now float64) int8 {
	t1, t2 := p.waitsOf(s, j)
	w := 0.0
	if s.inSpell {
		w = now - s.start
	}
	switch s.level {
	case 0:
		switch {
		case w >= t1+t2:
			return 2
		case w >= t1:
			return 1
		}
		return 0
	case 1:
		if w >= t2 {
			return 2
		}
		return 1
	}
	return 2
}

// Waits returns job j's T1 and T2: the configured waits, or the CPU-bound
// ones when IO-rate biasing treats j as CPU-bound.
func (p *DelayPlacer) Waits(j *Job) (t1, t2 float64) { return p.waitsOf(p.state(j), j) }

// Wait is how long job j has been in its current skip spell at c.Now().
func (p *DelayPlacer) Wait(c Cluster, j *Job) float64 {
	if s := p.state(j); s.inSpell {
		return c.Now() - s.start
	}
	return 0
}

// Level is the locality level job j may launch at now: 0 node-local only,
// 1 also rack-local, 2 anywhere.
func (p *DelayPlacer) Level(c Cluster, j *Job) int { return int(p.allowed(p.state(j), j, c.Now())) }

// Skips counts the times a job was skipped, over the placer's life.
func (p *DelayPlacer) Skips() uint64 { return p.skips }

// JobAdded starts the job's state afresh.
func (p *DelayPlacer) JobAdded(_ Cluster, j *Job) { *p.state(j) = delayJob{} }

// JobRemoved drops the job's state.
func (p *DelayPlacer) JobRemoved(_ Cluster, j *Job) {
	if j.Index < len(p.jobs) {
		p.jobs[j.Index] = delayJob{}
	}
}

// TaskLaunched applies a map launch to the job's level and wait (see
// DelayPlacer) and starts timing it for IO-rate biasing.
func (p *DelayPlacer) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	if k != MapTask {
		return
	}
	s := p.state(j)
	reach, known := cluster.OffRack, false
	if p.last.set && p.last.job == j.Index && p.last.node == n {
		reach, known = p.last.reach, true
	}
	p.last.set = false
	clean := p.legacy || (known && !s.idleSkip && s.lastReach <= reach)
	if clean {
		s.level, s.inSpell = int8(reach), false
	}
	s.idleSkip, s.lastReach = false, reach
	if j.PendingMaps() == 0 {
		// Nothing left to wait for: start afresh should a map come back.
		*s = delayJob{io: s.io}
	}
	if p.biasing {
		s.io.launched(n, c.Now(), known && reach == cluster.NodeLocal)
	}
}

// TaskEnded feeds finished maps to IO-rate biasing.
func (p *DelayPlacer) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	if k != MapTask || !p.biasing {
		return
	}
	s := p.state(j)
	s.io.ended(n, c.Now(), killed)
	if !killed && s.io.classify(j, p.ioBound, p.minMaps) {
		p.poolCPU[j.Pool] = s.io.cpuBound
	}
}
