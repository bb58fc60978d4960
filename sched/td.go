package sched

import (
	"cmp"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// TD is the Throughput Driven task scheduler (Wang, Shen, Yu, Nie, Kou, "A
// Throughput Driven Task Scheduler for Improving MapReduce Performance in
// Job-intensive Environments", IEEE BigData Congress 2013, section IV), the
// `td` policy. It finishes a queue of jobs fast rather than sharing slots
// fairly:
//
//   - Co-scheduling (IV-B, Fig. 6): jobs move through the statuses of
//     TDStatus. The first waiting job becomes infantile when none is and
//     O_sen + D < T (formula 2); the infantile job joins the co-scheduled
//     jobs when O_sen + D + j.demand <= T (formula 3), as teenaged if
//     j.occupied < L x j.demand, else adult. T is the cluster's map
//     slots, D the demands of teenaged and adult jobs, O_sen the slots
//     senile jobs hold.
//   - Job choice (IV-A.1, Algorithms 1-3, implemented line by line): a slot
//     freed by a teenaged or adult job below L x demand goes back to that
//     job (Algorithm 1, line 2); else the first teenaged job gets it; else
//     Algorithm 2: adult jobs sorted by amt(j), their mean map time, the
//     first (most IO-bound) with a map on the node and below H x demand
//     gets a local map; else the infantile job a local one; else the last
//     (most CPU-bound) below H x demand a non-local map, read from the
//     node GetNonHotspotNode picks; else the infantile job likewise.
//   - Hotspots (IV-A.2): non-local reads go to the node with the most
//     remaining work among those holding the job's maps and below the
//     connection limit of the hot queue. The text lost the symbols of
//     this section; the reconstruction (θ the connection limit, β the
//     node's bandwidth, σ the split size, a tuple expiring after σθ/β,
//     R_n = Σ amt(j) x rs_jn) is written out in td_hotspot.go. The chosen
//     replica is passed to the engine in Decision.Source.
//
// The extracted text of IV-B and Algorithm 1 lost its operators too; read
// here as: line 1 "j.occupied −−", line 24 "jass.remain −−", "?" between a
// demand and L or H as "×", lines 9 and 19 "S_inf ≠ ∅" and "S_tee ≠ ∅"
// (the prose says "if S_inf = ?, we remove the infantile job", and "if
// S_inf == ∅" for the else), and the senile definition "js.remain = 0
// and js.occupied = 0" as "js.occupied ≠ 0" (a senile job with nothing
// running is finished, lines 7-8).
//
// amt(j) starts at a default per job kind (TDParams) and becomes the mean
// duration, launch to end, of j's finished maps. j.demand is the job's
// workload.Job.Demand (a scenario's workload.demand), or min(maps,
// ceil(demand_share x T)) when unset.
// j.occupied is the job's running maps.
//
// Choices where the paper is silent: when Algorithm 3 finds no map for the
// job (none on the node, and every node holding its maps is at the
// connection limit or, by default, in another rack), the slot is not held
// idle: Algorithm 1 goes on to its else branch, and the teenaged jobs after
// the first are tried before Algorithm 2. Algorithm 2's non-local loop
// likewise moves to the next job. The slot's "last task" (Algorithm 1's
// input) is remembered per node, oldest first, until a slot there is
// filled; a slot that was never used has none. A killed map (TD never
// kills) returns a senile job to teenaged or adult.
//
// TD is not work-conserving: an adult job at H x demand is skipped even
// when no other job can use the slot, which then stays idle. The paper
// assumes a job-intensive queue (section I) that always has another job;
// with sparse arrivals a lone large job runs on at most H x demand slots
// (a 400-map job on 100 slots, demand 35: 46 slots). Give such jobs a
// larger workload.Job.Demand or raise demand_share.
//
// Reduces: the paper schedules maps only. TD gives a reduce slot to the
// oldest job it has admitted (not waiting) whose reduces are enabled, FIFO
// as Hadoop's default does; a waiting job never takes a reduce slot, so a
// low slow-start cannot let queued jobs hoard them. In the container model
// a container first goes to such a reduce when the job's ramp allows it
// (Job.KindAt), then to a map by Algorithm 1; T is the containers not held
// by reduces.
//
// Parameters (TDParams, section IV-A and V): l (L, 0.7), h (H, 1.3),
// connection_limit (θ, 4; not given by the paper), hot_threshold (θ),
// default_amt_s and amt_by_kind_s (the job's profile), demand_share
// (0.35), allow_off_rack (false, as the paper's experiments ran). Formula
// (1), H < (T - L x D)/d_max + L, is checked whenever a job joins the
// co-scheduled set; violations are counted in Stats, not errors.
//
// Stats reports the paper's measures (section V-A): queue completion time,
// local assignment ratio, hotspot occurrences per fifth of the run, and
// each job's stray from [L, H] x demand. Decisions name the rule and
// algorithm line that fired (RuleTD*). Assign allocates only when it
// admits a job (its per-node counts, pooled for reuse); it is not
// reentrant: one TD serves one run.
type TD struct {
	cfg          tdConfig
	topo         *cluster.Topology
	slotsPerNode int

	jobs      []*tdJob // by Job.Index
	wait      []*tdJob // S_wait from waitHead, submit order
	waitHead  int
	inf       *tdJob   // S_inf
	tee       []*tdJob // S_tee, in order of admission
	adu       []*tdJob // S_adu, sorted by amt when aduSorted
	aduSorted bool
	dSum      int // D
	oSen      int // O_sen

	runningReduces int
	remWork        []float64 // R_n
	hot            tdHotQueue
	reads          []int32   // concurrent non-local reads by source node
	running        [][]tdRun // TD's running maps by node
	freed          [][]*tdJob
	locPool        []tdLoc
	last           tdLast

	tdCounters
}

// tdLast is the map TD last decided, matched in TaskLaunched.
type tdLast struct {
	job  int
	node cluster.NodeID
	m    int
	src  cluster.NodeID
	set  bool
}

// Rules TD's decisions report, by the algorithm line that fired.
const (
	RuleTDStickyLocal       = "td-sticky-local"       // Algorithm 1 line 4, Algorithm 3 line 2
	RuleTDStickyNonLocal    = "td-sticky-nonlocal"    // Algorithm 1 line 4, Algorithm 3 line 5
	RuleTDTeenagedLocal     = "td-teenaged-local"     // Algorithm 1 line 21, Algorithm 3 line 2
	RuleTDTeenagedNonLocal  = "td-teenaged-nonlocal"  // Algorithm 1 line 21, Algorithm 3 line 5
	RuleTDLocal             = "td-local"              // Algorithm 2 line 4
	RuleTDInfantileLocal    = "td-infantile-local"    // Algorithm 2 line 7
	RuleTDNonLocal          = "td-nonlocal"           // Algorithm 2 line 12
	RuleTDInfantileNonLocal = "td-infantile-nonlocal" // Algorithm 2 line 15
	RuleTDReduce            = "td-reduce"             // reduces, FIFO among admitted jobs
)

var (
	_ Policy       = (*TD)(nil)
	_ JobObserver  = (*TD)(nil)
	_ TaskObserver = (*TD)(nil)
)

// NewTD builds the `td` policy from its decoded parameters (TDParams); a
// nil decode means none.
func NewTD(decode Decode) (Policy, error) {
	var p TDParams
	if decode != nil {
		if err := decode(&p); err != nil {
			return nil, err
		}
	}
	return NewTDPolicy(p)
}

// NewTDPolicy returns the `td` policy with parameters p.
func NewTDPolicy(p TDParams) (*TD, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &TD{cfg: p.config(), tdCounters: tdCounters{minHBound: math.Inf(1)}}, nil
}

// Name is the policy's registry name.
func (p *TD) Name() string { return "td" }

// Status is job j's TD status; a job TD has not seen is waiting.
func (p *TD) Status(j *Job) TDStatus {
	if s := p.state(j); s != nil {
		return s.st
	}
	return TDWaiting
}

// init sizes the per-node tables on first contact with the cluster.
func (p *TD) init(c Cluster) {
	if p.topo != nil {
		return
	}
	p.topo = c.Topology()
	cfg := p.topo.Config()
	nn := p.topo.NumNodes()
	most := p.topo.MaxSlots() // nodes that differ: the table is as wide as the largest
	p.slotsPerNode = max(most[0], most[2], 1)
	p.remWork = make([]float64, nn)
	p.reads = make([]int32, nn)
	p.hot.count = make([]int32, nn)
	// σθ/β: one split at the per-connection share of the NIC (bytes/s).
	p.hot.ttl = float64(cfg.BlockBytes()) * float64(p.cfg.conn) / (cfg.NICMbps * 1e6 / 8)
	runs := make([]tdRun, nn*p.slotsPerNode)
	freed := make([]*tdJob, nn*p.slotsPerNode)
	p.running = make([][]tdRun, nn)
	p.freed = make([][]*tdJob, nn)
	for n := range nn {
		a, b := n*p.slotsPerNode, (n+1)*p.slotsPerNode
		p.running[n] = runs[a:a:b]
		p.freed[n] = freed[a:a:b]
	}
}

// mapSlots is T: the cluster's map slots, or in the container model the
// containers not held by reduces.
func (p *TD) mapSlots(c Cluster) int {
	if t := c.TotalSlots(MapSlot); t > 0 {
		return t
	}
	return c.TotalSlots(AnySlot) - p.runningReduces
}

// Assign answers an offer: a reduce FIFO among admitted jobs, or a map by
// Algorithm 1.
func (p *TD) Assign(c Cluster, o Offer) (Decision, bool) {
	p.init(c)
	now := c.Now()
	p.hot.expire(now)
	p.last = tdLast{}
	if o.Slot != MapSlot {
		if d, ok := p.assignReduce(c, o); ok || o.Slot == ReduceSlot {
			return d, ok
		}
	}
	d, ok := p.algorithm1(c, o.Node, now)
	if ok {
		p.popFreed(o.Node)
		p.last = tdLast{job: d.Job.Index, node: o.Node, m: d.Map, src: d.Source, set: true}
	} else if p.untreated() {
		p.idleOffers++
	}
	return d, ok
}

// untreated reports whether a co-scheduled job has a map to launch.
func (p *TD) untreated() bool {
	if p.inf != nil && p.inf.job.PendingMaps() > 0 {
		return true
	}
	for _, l := range [][]*tdJob{p.tee, p.adu} {
		for _, s := range l {
			if s.job.PendingMaps() > 0 {
				return true
			}
		}
	}
	return false
}

// assignReduce gives the slot to the oldest admitted job with a reduce to
// run there.
func (p *TD) assignReduce(c Cluster, o Offer) (Decision, bool) {
	for _, j := range c.Jobs() {
		if !j.ReducesEnabled || j.PendingReduces() == 0 {
			continue
		}
		if s := p.state(j); s == nil || s.st == TDWaiting {
			continue
		}
		if kind, ok := j.KindAt(c, o); ok && kind == ReduceTask {
			return Decision{Job: j, Kind: ReduceTask, Rule: RuleTDReduce}, true
		}
	}
	return Decision{}, false
}

// algorithm1 is Algorithm 1 for a map-capable slot on node n. Lines 1 and
// 6-8 ran when the slot's last task ended (TaskEnded), lines 24-28 run
// when the chosen map launches (TaskLaunched).
func (p *TD) algorithm1(c Cluster, n cluster.NodeID, now float64) (Decision, bool) {
	// Lines 2-4: the slot's last job, if it is below L x demand.
	if l := p.freed[n]; len(l) > 0 {
		if s := l[0]; (s.st == TDTeenaged || s.st == TDAdult) && float64(s.occ) < s.lo {
			if d, ok := p.algorithm3(s, n, RuleTDStickyLocal, RuleTDStickyNonLocal); ok {
				return d, true
			}
		}
	}
	// Lines 9-18.
	p.coSchedule(p.mapSlots(c), now)
	// Lines 19-21.
	for _, s := range p.tee {
		if d, ok := p.algorithm3(s, n, RuleTDTeenagedLocal, RuleTDTeenagedNonLocal); ok {
			return d, true
		}
	}
	// Line 23.
	return p.algorithm2(n)
}

// algorithm2 is AssignTask(n, s).
func (p *TD) algorithm2(n cluster.NodeID) (Decision, bool) {
	if !p.aduSorted {
		slices.SortFunc(p.adu, tdByAMT) // line 1
		p.aduSorted = true
	}
	for _, s := range p.adu { // lines 2-5
		if !p.hasLocal(s, n) {
			continue
		}
		if float64(s.occ) >= s.hi {
			p.hSkips++
			continue
		}
		if d, ok := p.localMap(s, n, RuleTDLocal); ok {
			return d, true
		}
	}
	if s := p.inf; s != nil && p.hasLocal(s, n) { // lines 6-8
		if float64(s.occ) >= s.hi {
			p.hSkips++
		} else if d, ok := p.localMap(s, n, RuleTDInfantileLocal); ok {
			return d, true
		}
	}
	for k := len(p.adu) - 1; k >= 0; k-- { // lines 9-13
		if s := p.adu[k]; float64(s.occ) < s.hi {
			if d, ok := p.nonLocalMap(s, n, RuleTDNonLocal); ok {
				return d, true
			}
		}
	}
	if s := p.inf; s != nil { // lines 14-16
		return p.nonLocalMap(s, n, RuleTDInfantileNonLocal)
	}
	return Decision{}, false
}

// algorithm3 is AssignTask_SpecificJob(j, n, s).
func (p *TD) algorithm3(s *tdJob, n cluster.NodeID, localRule, nonLocalRule string) (Decision, bool) {
	if p.hasLocal(s, n) {
		return p.localMap(s, n, localRule)
	}
	return p.nonLocalMap(s, n, nonLocalRule)
}

func tdByAMT(a, b *tdJob) int {
	if c := cmp.Compare(a.amt, b.amt); c != 0 {
		return c
	}
	return a.job.Index - b.job.Index
}

// localMap picks a map of s whose input is on n.
func (p *TD) localMap(s *tdJob, n cluster.NodeID, rule string) (Decision, bool) {
	i, ok := s.job.Maps.NodeLocal(n)
	if !ok {
		s.loc.stale = true
		return Decision{}, false
	}
	return Decision{Job: s.job, Kind: MapTask, Map: i, Rule: rule, Source: n, SourceSet: true}, true
}

// nonLocalMap picks a map of s read from GetNonHotspotNode(s).
func (p *TD) nonLocalMap(s *tdJob, n cluster.NodeID, rule string) (Decision, bool) {
	src, ok := p.nonHotspotNode(s, n)
	if !ok {
		return Decision{}, false
	}
	i, ok := s.job.Maps.NodeLocal(src)
	if !ok {
		s.loc.stale = true
		return Decision{}, false
	}
	if slices.Contains(s.job.Input.BlockReplicas(i), n) {
		src = n // only when GetNonHotspotNode(jinf) picks n itself (line 14)
	}
	return Decision{Job: s.job, Kind: MapTask, Map: i, Rule: rule, Source: src, SourceSet: true}, true
}
