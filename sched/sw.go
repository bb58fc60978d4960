package sched

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// ShuffleWatcher is the placement rule of Ahmad et al., "ShuffleWatcher:
// Shuffle-aware Scheduling in Multi-tenant MapReduce Clusters" (USENIX ATC
// 2014, section 3), as a Placer under any fairness Order. It is made of:
//
//   - NASS (section 3.1, Fig. 3, sw_nass.go): the order picks the user;
//     among that user's tasks NASS prefers maps while the offering node's
//     rack is saturated (NetSat) and reduces while it is not, in the order
//     of Fig. 3's lines. Decision.Rule names the line ("nass-8").
//   - SAMP (section 3.2, Fig. 4, sw_samp.go): once per job, at
//     submission, the racks the job's maps should run on
//     (PreferredMapRacks) and an estimate of where its reduces should go.
//   - SARP (section 3.3, Fig. 6, sw_sarp.go): when a job's reduces are
//     first enabled, how many of them each rack should run.
//   - the starvation window (section 3.4, sw_window.go) and, optionally,
//     relaxed fairness (section 5.2, sw_relax.go).
//
// Parameters (SWParams): nw_saturation_threshold (0.8),
// map_completion_threshold (0.15), starvation_window_s (600), known_ratios
// (false); SWOptions selects SAMP, SARP and the fairness relaxation.
//
// ShuffleInputRatio: a job's shuffle-to-input ratio starts at 1.0 and, after
// each finished map, is the map output produced so far (the sum of
// Job.MapOutputByRack) over the input of the finished maps, counted as
// FinishedMaps times the job's mean map input (exact when every map reads
// a whole block; otherwise off by less than one block over the finished
// maps). A job is shuffle-heavy when its ratio exceeds 1.0. With
// known_ratios the specification's ratio is used from the start.
//
// Per-job state lives in a slice indexed by Job.Index; SAMP and SARP run
// once per job; Place allocates nothing once its tables have grown. Place
// is not reentrant: one placer serves one policy.
type ShuffleWatcher struct {
	cfg    swConfig
	netsat NetSat
	topo   *cluster.Topology // from the first event

	jobs     []swJob
	users    []swUser
	userID   map[string]int32 // pool name to user; lookup only, never iterated
	rackPref []int32          // active jobs whose PreferredMapRacks hold each rack

	call  swCall
	visit func(*Job) bool // p.visitJob, bound once
	buf   []*Job          // the current user's candidate jobs
	stamp uint64          // Place calls, to mark a job once a call
}

// swJob is one job's ShuffleWatcher state.
type swJob struct {
	active    bool
	enabled   bool // reduces enabled for NASS (SARP has run)
	user      int32
	ratio     float64
	mapRacks  []bool  // PreferredMapRacks, by rack
	tentative []int32 // TentativeReducesPerRack
	preferred []int32 // PreferredReducesPerRack; nil until enabled
	launched  []int32 // reduces launched (running or finished) per rack
	mark      uint64  // stamp of the last call that skipped it (sw-delay)
}

// swUser is one user's (pool's) state.
type swUser struct {
	jobs    []*Job // active jobs, submit order
	inSpell bool   // relaxed fairness: passed over since spellStart
	start   float64
}

var (
	_ Placer       = (*ShuffleWatcher)(nil)
	_ JobObserver  = (*ShuffleWatcher)(nil)
	_ TaskObserver = (*ShuffleWatcher)(nil)
)

// NewShuffleWatcher returns a ShuffleWatcher placer.
func NewShuffleWatcher(p SWParams, o SWOptions) (*ShuffleWatcher, error) {
	cfg, err := newSWConfig(p, o)
	if err != nil {
		return nil, err
	}
	s := &ShuffleWatcher{cfg: cfg, netsat: NetSat{Threshold: cfg.satThreshold}, userID: map[string]int32{}}
	s.visit = s.visitJob
	return s, nil
}

// state returns job j's entry, growing the table as needed.
func (p *ShuffleWatcher) state(j *Job) *swJob {
	for j.Index >= len(p.jobs) {
		p.jobs = append(p.jobs, swJob{})
	}
	return &p.jobs[j.Index]
}

// JobAdded starts the job's state and runs SAMP (section 3.2: "triggered
// once per job, at the time of job submission").
func (p *ShuffleWatcher) JobAdded(c Cluster, j *Job) {
	if p.cfg.Delay != nil {
		p.cfg.Delay.JobAdded(c, j)
	}
	if p.topo == nil {
		p.topo = c.Topology()
		p.rackPref = make([]int32, p.topo.NumRacks())
	}
	u, ok := p.userID[j.Pool]
	if !ok {
		u = int32(len(p.users))
		p.userID[j.Pool] = u
		p.users = append(p.users, swUser{})
	}
	us := &p.users[u]
	i, _ := slices.BinarySearchFunc(us.jobs, j, arrival)
	us.jobs = slices.Insert(us.jobs, i, j)
	s := p.state(j)
	*s = swJob{active: true, user: u, ratio: 1, launched: make([]int32, p.topo.NumRacks())}
	if p.cfg.knownRatios {
		s.ratio = specRatio(j)
	}
	p.samp(j, s)
}

// JobRemoved drops the job's state.
func (p *ShuffleWatcher) JobRemoved(c Cluster, j *Job) {
	if p.cfg.Delay != nil {
		p.cfg.Delay.JobRemoved(c, j)
	}
	if j.Index >= len(p.jobs) || !p.jobs[j.Index].active {
		return
	}
	s := &p.jobs[j.Index]
	for r, in := range s.mapRacks {
		if in {
			p.rackPref[r]--
		}
	}
	us := &p.users[s.user]
	if k := slices.Index(us.jobs, j); k >= 0 {
		us.jobs = slices.Delete(us.jobs, k, k+1)
	}
	if len(us.jobs) == 0 {
		us.inSpell = false
	}
	*s = swJob{}
}

// TaskLaunched counts a reduce against its rack's SARP preference.
func (p *ShuffleWatcher) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	if p.cfg.Delay != nil {
		p.cfg.Delay.TaskLaunched(c, j, k, n)
	}
	if k == ReduceTask && j.Index < len(p.jobs) && p.jobs[j.Index].active {
		p.jobs[j.Index].launched[p.topo.Rack(n)]++
	}
}

// TaskEnded uncounts a killed reduce and updates ShuffleInputRatio after a
// finished map.
func (p *ShuffleWatcher) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	if p.cfg.Delay != nil {
		p.cfg.Delay.TaskEnded(c, j, k, n, killed)
	}
	if j.Index >= len(p.jobs) || !p.jobs[j.Index].active {
		return
	}
	s := &p.jobs[j.Index]
	switch {
	case k == ReduceTask && killed:
		s.launched[p.topo.Rack(n)]--
	case k == MapTask && !killed && !p.cfg.knownRatios:
		s.ratio = measuredRatio(j)
	}
}

// measuredRatio is map output so far over the input of the finished maps.
func measuredRatio(j *Job) float64 {
	if j.FinishedMaps == 0 {
		return 1
	}
	out := 0.0
	for _, b := range j.MapOutputByRack {
		out += b
	}
	in := 0.0
	if j.Spec != nil && j.NumMaps > 0 {
		in = float64(j.FinishedMaps) * float64(j.Spec.InputBytes) / float64(j.NumMaps)
	}
	switch {
	case in > 0:
		return out / in
	case out > 0:
		return math.Inf(1) // output without input: heavy, as workload.Job.ShuffleRatio says
	}
	return 0
}

func specRatio(j *Job) float64 {
	if j.Spec == nil {
		return 1
	}
	return j.Spec.ShuffleRatio()
}

// ShuffleInputRatio is job j's current ShuffleInputRatio (section 3.1).
func (p *ShuffleWatcher) ShuffleInputRatio(j *Job) float64 { return p.state(j).ratio }

// heavy reports whether a job is shuffle-heavy: ratio above 1.0.
func (s *swJob) heavy() bool { return s.ratio > 1 }

// arrival orders jobs by submit time, then index.
func arrival(a, b *Job) int {
	switch {
	case a.Submit < b.Submit:
		return -1
	case a.Submit > b.Submit:
		return 1
	}
	return a.Index - b.Index
}
