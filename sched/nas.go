package sched

import (
	"iter"
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// NAS is the network-aware scheduler of Lin et al., "NAS: A Network-Aware
// Scheduler for MapReduce" (section III), as a Placer under a fairness
// Order; the paper builds it on delay scheduling's user list, so the nas*
// policies compose it with the Fair order (the `delay` policy's order). It
// is made of:
//
//   - the shuffle-size predictor (section III-A, this file): a job's map
//     output/input ratio is 1.0 until its first map finishes
//     ("unpredicted"), then the mean over its finished maps ("predicted");
//     recurring jobs (NASParams.RecurringShare) know it at submission.
//     Classes by predicted shuffle: light < light_mb (1 MB), heavy >
//     heavy_mb (100 MB), medium between; small-input < small_input_mb
//     (10 MB).
//   - Algorithm 1 (Place): a map request goes to MTS; a reduce request to
//     CA-RTS when the offering node's rack is below CongestionThreshold
//     (0.8; the larger of the rack uplink's up and down utilisation), else
//     to CR-RTS.
//   - MTS (section III-C, Algorithm 2, nas_mts.go): per-node
//     TrafficThreshold and shuffle-qualified, data-local maps, a per-user
//     skip counter D^m (135), then four input/prediction categories.
//   - CA-RTS (section III-D, Algorithm 3, nas_rts.go): ReduceNum per rack
//     and six shuffle-class categories.
//   - CR-RTS (section III-E, Algorithm 4, nas_rts.go): only shuffle-light
//     reduces while congested, a per-user skip counter D^r (135), delayed
//     tags, and medium/heavy maps held back.
//
// Which request an offer is (Algorithm 1 line 1). In the slot model a map
// slot is a map request and a reduce slot a reduce request. In the
// container model a free container can take either, so each candidate job
// wants one kind on the offer: job.KindAt's (YARN's ramp: a reduce while
// the share of its reduces launched is below the share of its maps
// finished, never a node's last container while maps are pending), except
// that a reduce of a job below NAS's map completion threshold becomes a map
// if the job has one pending. The request is what the most deserving
// candidate (the order's first) wants: the node asks for the task the
// fairness order would give it. If the algorithm serving that request
// launches nothing (MTS skipped every user, CR-RTS skipped every user), the
// other kind's algorithm is asked with the jobs that want the other kind,
// so a container idles only when neither algorithm will fill it; skip
// counters advanced by the first algorithm stay advanced. Why: ramp-based
// wants keep YARN's deadlock guard and map/reduce balance, and the
// fallback keeps the cluster work-conserving, as Hadoop's heartbeat asks
// for a map and a reduce on every beat.
//
// Users are the order's consecutive candidates of one pool, as in
// ShuffleWatcher; per-user skip counters are kept by pool. Per-job state
// lives in slices indexed by Job.Index; Place allocates nothing once its
// tables have grown. Place is not reentrant: one placer serves one policy.
type NAS struct {
	cfg  nasConfig
	topo *cluster.Topology // from the first event

	jobs    []nasJob
	users   []nasUser
	userID  map[string]int32 // pool name to user; lookup only, never iterated
	running [][]int32        // per node: job index of each running map
	hold    []bool           // per rack: CR-RTS told MTS to hold back medium/heavy maps

	tt    float64 // TrafficThreshold, bytes
	ttAt  float64
	ttSet bool

	call  nasCall
	visit func(*Job) bool // p.visitJob, bound once
	first func(*Job) bool // p.visitFirst, bound once
	// method values bound once, so that Place allocates nothing
	mapEligibleFn              func(*Job) bool
	mtsUserFn, crrtsUserFn     func(int32, []*Job) bool
	cartsUserFn, firstReduceFn func(int32, []*Job) bool
	cands                      []*Job     // this offer's candidates read so far, in the order's sequence
	wants                      []TaskKind // what each candidate wants on this offer
	want                       []bool     // whether it wants anything
	group                      []*Job     // the current user's jobs for the algorithm running
	stream                     nasStream
	// For placePools: each user's tally, and the offer's pools read so
	// far with their run of candidates in cands.
	tallies []nasTally
	runs    []nasRun
	byPool  []int32         // by pool id: the pool's user, -1 until first read (userOf)
	noteFn  func(*Job) bool // p.noteAll, bound once
	// hits is mapTally's answer: the positions of the jobs MTS's line 3
	// chooses among, in hitBuf; nil when it has none to give.
	hits, hitBuf []int32
}

// nasTally is what a user's jobs offer MTS, counted over its pool's jobs
// whenever one of them moved (an event named one), so that an offer can
// pass over a user whose jobs cannot launch a map there without reading
// them: on a loaded node most users cannot, and the backlog's jobs are
// theirs.
type nasTally struct {
	stale bool
	// maps counts jobs with a pending map; sure those of them that
	// want a map on any offer: all but the ramped ones (redRamp, below);
	// light and lightSure the same among shuffle-light jobs, the only
	// ones MTS may run on a rack CR-RTS holds. reduces
	// counts jobs with an enabled pending reduce, and red lists their
	// positions in the pool's jobs, ascending: a reduce request reads
	// those jobs alone (FairOrder.yieldSome). Any event about one of the
	// user's jobs, its arrival and departure included, makes the tally
	// stale, so the positions are those of the pool's current list.
	maps, sure, light, lightSure, reduces int32
	red                                   []int32
	// Among the jobs with a pending reduce: redLight counts the
	// shuffle-light ones; redReady those past the map completion
	// threshold, which want their reduce in a reduce slot, and of them
	// redNoMaps those without a pending map, which want it on any
	// container offer, and redRamp those with one whose YARN ramp picks
	// the reduce, which want it where the node has two free containers
	// (Job.KindAt). tagged says every non-light one already carries a
	// "delayed" tag for each pending reduce: CR-RTS's tagging would
	// change nothing (crrtsUser).
	redLight, redReady, redNoMaps, redRamp int32
	tagged                                 bool
	// minOut is the least predicted map output among jobs with a
	// pending map (NaN if one is NaN): above the node's available
	// space, none of the user's maps is shuffle-qualified there.
	minOut float64
	// pm lists the jobs with a pending map, in the pool's order of jobs,
	// with their predicted output per map, which only an event about the
	// job moves (predict): a map request finds among them the jobs MTS's
	// line 3 chooses from (line3).
	pm []nasOut
}

// nasOut is a job with a pending map as its user's tally keeps it: its
// position in the pool's jobs, its predicted output per map, and whether
// it is shuffle-light and ramped (nasTally).
type nasOut struct {
	out           float64
	j             *Job
	k             int32
	light, ramped bool
}

// nasRun is one pool read by placePools, with its user: its jobs are
// cands[from:to], from -1 while they have not been read.
type nasRun struct {
	pool     *pool
	user     int32
	from, to int
}

// nasStream is the request an offer serves while its candidates are still
// being read: the first candidate that wants a task sets its kind, and
// each user's jobs go to the algorithm as soon as the user's run of
// candidates ends, so that an offer which launches stops reading the
// order there instead of reading every job of the backlog first.
type nasStream struct {
	serving bool
	k       TaskKind
	keep    func(*Job) bool
	f       func(u int32, g []*Job) bool
	cur     int32 // the user whose jobs group holds
	done    bool  // f launched: the read stopped
}

// nasJob is one job's NAS state.
type nasJob struct {
	active    bool
	recurring bool
	predicted bool
	user      int32
	out       float64 // predicted output of one map, bytes
	trueOut   float64 // true output of one map (NASMeter only), bytes
	launched  []int32 // reduces launched (running or finished) per rack
	delayed   int     // reduces tagged "delayed" by CR-RTS, not yet launched
}

// nasUser is one user's skip counters, D_i^m for maps (MTS, section
// III-C) and D_i^r for reduces (CR-RTS, section III-E).
type nasUser struct {
	maps, reds skipCount
}

// skipCount is one of a user's skip counters and, for wait_s, the start
// of its current spell of skips.
type skipCount struct {
	n     int
	spell bool
	start float64
}

// nasCall is the state of one Place call.
type nasCall struct {
	c         Cluster
	o         Offer
	now       float64
	rack      cluster.RackID
	congested bool
	avail     float64 // the node's available shuffle space
	ramp      int8    // placePools: how the offer takes ramped reduces (rampOf)
	d         Decision
	ok        bool
}

var (
	_ Placer             = (*NAS)(nil)
	_ JobObserver        = (*NAS)(nil)
	_ TaskObserver       = (*NAS)(nil)
	_ OutputLossObserver = (*NAS)(nil)
	_ DemandObserver     = (*NAS)(nil)
	_ poolPlacer         = (*NAS)(nil)
)

// NewNAS returns a NAS placer with parameters p (see NASParams for the
// defaults) and the mechanisms o selects.
func NewNAS(p NASParams, o NASOptions) (*NAS, error) {
	cfg, err := newNASConfig(p, o)
	if err != nil {
		return nil, err
	}
	n := &NAS{cfg: cfg, userID: map[string]int32{}}
	n.visit, n.first = n.visitJob, n.visitFirst
	n.noteFn = n.noteAll
	n.mapEligibleFn, n.mtsUserFn, n.crrtsUserFn = n.mapEligible, n.mtsUser, n.crrtsUser
	n.cartsUserFn, n.firstReduceFn = n.cartsUser, n.firstReduce
	return n, nil
}

func (p *NAS) init(c Cluster) {
	if p.topo != nil {
		return
	}
	p.topo = c.Topology()
	p.running = make([][]int32, p.topo.NumNodes())
	p.hold = make([]bool, p.topo.NumRacks())
}

func (p *NAS) state(j *Job) *nasJob {
	for j.Index >= len(p.jobs) {
		p.jobs = append(p.jobs, nasJob{})
	}
	return &p.jobs[j.Index]
}

func (p *NAS) user(pool string) int32 {
	u, ok := p.userID[pool]
	if !ok {
		u = int32(len(p.users))
		p.userID[pool] = u
		p.users = append(p.users, nasUser{})
		p.tallies = append(p.tallies, nasTally{stale: true})
	}
	return u
}

// touch marks the tally of job j's user stale: one of its jobs moved.
func (p *NAS) touch(j *Job) {
	if j.Index < len(p.jobs) && p.jobs[j.Index].active {
		p.tallies[p.jobs[j.Index].user].stale = true
	}
}

// nasRecurring reports whether job index i is recurring when a share of
// jobs is: a splitmix64 hash of the index, as a fraction of 2^64, below the
// share. Deterministic and independent of submit order.
func nasRecurring(i int, share float64) bool {
	if share <= 0 {
		return false
	}
	z := uint64(i) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/float64(1<<53) < share
}

// meanMapInput is the job's input over its maps.
func meanMapInput(j *Job) float64 {
	if j.Spec == nil || j.NumMaps <= 0 {
		return 0
	}
	return float64(j.Spec.InputBytes) / float64(j.NumMaps)
}

// predict recomputes the job's per-map output prediction (section III-A).
// Unpredicted: ratio 1, so a map's output is its input. Recurring: the
// specification's ratio (shuffle / input; shuffle / maps for a job without
// input). Predicted: the mean output of its finished maps, the sum of
// Job.MapOutputByRack over FinishedMaps; with equal-sized maps (all but a
// job's last read a whole block) that is the paper's mean of the finished
// maps' output/input ratios times the mean input.
func (p *NAS) predict(j *Job, s *nasJob) {
	switch {
	case s.recurring:
		s.predicted = true
		if j.Spec != nil && j.NumMaps > 0 {
			s.out = float64(j.Spec.ShuffleBytes) / float64(j.NumMaps)
		}
	case j.FinishedMaps > 0:
		s.predicted = true
		sum := 0.0
		for _, b := range j.MapOutputByRack {
			sum += b
		}
		s.out = sum / float64(j.FinishedMaps)
	default:
		s.predicted = false
		s.out = meanMapInput(j)
	}
}

// Ratio is job j's current map output/input ratio (section III-A): 1.0
// while unpredicted. A predicted job without input has ratio +Inf if it
// shuffles anything, 0 if not.
func (p *NAS) Ratio(j *Job) float64 {
	s := p.state(j)
	if !s.predicted {
		return 1
	}
	in := meanMapInput(j)
	switch {
	case in > 0:
		return s.out / in
	case s.out > 0:
		return math.Inf(1)
	}
	return 0
}

// Predicted reports whether job j's ratio is known (a map finished, or the
// job is recurring).
func (p *NAS) Predicted(j *Job) bool { return p.state(j).predicted }

// ShuffleSize is job j's predicted shuffle (S_i in section III-C):
// predicted map output times its map count, bytes.
func (p *NAS) ShuffleSize(j *Job) float64 { return p.state(j).out * float64(j.NumMaps) }

// NASClass is a job's shuffle class by its predicted shuffle (section
// III-A).
type NASClass uint8

// The shuffle classes.
const (
	NASLight NASClass = iota
	NASMedium
	NASHeavy
)

// String names the class ("light", "medium", "heavy").
func (k NASClass) String() string {
	switch k {
	case NASLight:
		return "light"
	case NASMedium:
		return "medium"
	}
	return "heavy"
}

// Class is job j's shuffle class: light below light_mb (1 MB), heavy
// above heavy_mb (100 MB), medium otherwise.
func (p *NAS) Class(j *Job) NASClass {
	s := p.ShuffleSize(j)
	switch {
	case s < p.cfg.light:
		return NASLight
	case s > p.cfg.heavy:
		return NASHeavy
	}
	return NASMedium
}

// smallInput reports whether job j is small-input (section III-C).
func (p *NAS) smallInput(j *Job) bool {
	return j.Spec != nil && float64(j.Spec.InputBytes) < p.cfg.small
}

// JobAdded starts the job's state: recurring or not, unpredicted unless
// recurring.
func (p *NAS) JobAdded(c Cluster, j *Job) {
	p.init(c)
	s := p.state(j)
	*s = nasJob{active: true, user: p.user(j.Pool), recurring: nasRecurring(j.Index, p.cfg.recurring),
		launched: make([]int32, p.topo.NumRacks())}
	p.predict(j, s)
	p.tallies[s.user].stale = true
}

// JobRemoved drops the job's state and any running maps still counted.
func (p *NAS) JobRemoved(_ Cluster, j *Job) {
	if j.Index >= len(p.jobs) {
		return
	}
	p.touch(j)
	p.jobs[j.Index] = nasJob{}
	for n, l := range p.running {
		k := 0
		for _, x := range l {
			if x != int32(j.Index) {
				l[k] = x
				k++
			}
		}
		p.running[n] = l[:k]
	}
}

// TaskLaunched counts a map on its node (its predicted output takes the
// node's shuffle space) and a reduce on its rack (for ReduceNum); a
// launched reduce uses up one "delayed" tag.
func (p *NAS) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	p.init(c)
	s := p.state(j)
	if !s.active {
		return
	}
	p.touch(j)
	if k == MapTask {
		p.running[n] = append(p.running[n], int32(j.Index))
		return
	}
	s.launched[p.topo.Rack(n)]++
	if s.delayed > 0 {
		s.delayed--
	}
}

// TaskEnded releases a map's shuffle space and, for a finished map,
// updates the job's prediction; a killed reduce is uncounted.
func (p *NAS) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	p.init(c)
	s := p.state(j)
	if !s.active {
		return
	}
	p.touch(j)
	if k == ReduceTask {
		if killed {
			s.launched[p.topo.Rack(n)]--
		}
		return
	}
	l := p.running[n]
	for i, x := range l {
		if x == int32(j.Index) {
			l[i] = l[len(l)-1]
			p.running[n] = l[:len(l)-1]
			break
		}
	}
	if !killed {
		p.predict(j, s)
	}
}

// MapOutputsLost marks the job's user: maps it had finished are pending
// again.
func (p *NAS) MapOutputsLost(_ Cluster, j *Job, _ cluster.NodeID, _ int) { p.touch(j) }

// ReducesEnabled marks the job's user: its reduces became pending.
func (p *NAS) ReducesEnabled(_ Cluster, j *Job) { p.touch(j) }

// WantsIdleOffers is true when CR-RTS runs: its hold on a rack's maps
// lifts at the first offer that finds the rack uncongested, so NAS must
// see offers nothing could take too.
func (p *NAS) WantsIdleOffers() bool { return p.cfg.CRRTS }

// OfferIdle lifts the hold on the offer's rack if the rack is no longer
// congested, as Place does on every offer.
func (p *NAS) OfferIdle(c Cluster, o Offer) {
	p.init(c)
	if r := p.topo.Rack(o.Node); !p.Congested(c, r) {
		p.hold[r] = false
	}
}

// Congested reports whether rack r is at or above CongestionThreshold
// (Algorithm 1 line 4): the larger of its uplink's up and down
// utilisation.
func (p *NAS) Congested(c Cluster, r cluster.RackID) bool {
	up, down := c.UplinkUtilization(r)
	return max(up, down) >= p.cfg.congestion
}

// Place serves an offer (Algorithm 1); see NAS for which request an offer
// is.
func (p *NAS) Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool) {
	p.begin(c, o)
	jobs(p.visit)
	if st := &p.stream; st.serving {
		if !st.done {
			p.flushGroup()
		}
		// The first request found no task; an any-slot offer then serves
		// the other kind, over every candidate, all of which were read.
		if !p.call.ok && o.Slot == AnySlot {
			keep, f := p.plan(1 - st.k)
			p.eachUser(1-st.k, keep, f)
		}
	}
	return p.end()
}

// begin sets up the call serving offer o: Place's and placePools' first
// step.
func (p *NAS) begin(c Cluster, o Offer) {
	p.init(c)
	r := p.topo.Rack(o.Node)
	p.call = nasCall{c: c, o: o, now: c.Now(), rack: r, congested: p.Congested(c, r)}
	if !p.call.congested {
		p.hold[r] = false // the congestion cleared: MTS may run medium/heavy maps again
	}
	p.cands, p.wants, p.want = p.cands[:0], p.wants[:0], p.want[:0]
	p.group = p.group[:0]
	p.stream = nasStream{cur: -1}
}

// end returns the call's decision and drops what the call held, so that
// no job outlives its offer in the scratch lists.
func (p *NAS) end() (Decision, bool) {
	d, ok := p.call.d, p.call.ok
	clear(p.cands)
	clear(p.group)
	p.group = p.group[:0]
	p.call = nasCall{}
	p.stream = nasStream{}
	p.hits = nil
	return d, ok
}

// visitJob records a candidate and what it wants on this offer, and feeds
// the request being served; it returns false once that request launched.
func (p *NAS) visitJob(j *Job) bool {
	kind, ok := p.note(j)
	st := &p.stream
	if !ok {
		return true
	}
	if !st.serving {
		st.serving, st.k = true, kind
		st.keep, st.f = p.plan(kind)
	}
	if kind != st.k {
		return true
	}
	if u := p.state(j).user; u != st.cur {
		if p.flushGroup() {
			st.done = true
			return false
		}
		st.cur = u
	}
	if st.keep == nil || st.keep(j) {
		p.group = append(p.group, j)
	}
	return true
}

// note records a candidate and what it wants on this offer.
func (p *NAS) note(j *Job) (TaskKind, bool) {
	k := &p.call
	kind, ok := j.KindAt(k.c, k.o)
	if ok && kind == ReduceTask && !p.reduceReady(j) {
		kind, ok = MapTask, k.o.Slot == AnySlot && j.PendingMaps() > 0
	}
	p.cands = append(p.cands, j)
	p.wants = append(p.wants, kind)
	p.want = append(p.want, ok)
	return kind, ok
}

// noteAll is note as a sequence's consumer.
func (p *NAS) noteAll(j *Job) bool {
	p.note(j)
	return true
}

// flushGroup hands the current user's jobs to the request being served;
// it returns true on a launch.
func (p *NAS) flushGroup() bool {
	if len(p.group) == 0 {
		return false
	}
	stop := p.stream.f(p.stream.cur, p.group)
	p.group = p.group[:0]
	return stop
}

// reduceReady reports whether job j is past the map completion threshold.
func (p *NAS) reduceReady(j *Job) bool {
	if p.cfg.mapDone <= 0 || j.NumMaps == 0 {
		return true
	}
	return float64(j.FinishedMaps) >= p.cfg.mapDone*float64(j.NumMaps)
}

// plan readies the algorithm for a request of kind k and returns how it
// serves it: f is called with each user's jobs that want k and pass keep,
// in the order's sequence, until it launches (returns true).
func (p *NAS) plan(k TaskKind) (keep func(*Job) bool, f func(u int32, g []*Job) bool) {
	if k == MapTask {
		p.call.avail = p.AvailableShuffle(p.call.c, p.call.o.Node)
		// The hold on the rack cannot change while MTS serves this
		// request (only plan sets it, and only for reduces), so it is
		// read once here: without it every job is eligible and no job
		// need be tested.
		if p.cfg.CRRTS && p.hold[p.call.rack] {
			return p.mapEligibleFn, p.mtsUserFn // Algorithm 2 (nas_mts.go)
		}
		return nil, p.mtsUserFn
	}
	switch {
	case !p.cfg.CARTS:
		// Ablations without CA-RTS: a reduce runs at once, as under Delay.
		return nil, p.firstReduceFn
	case p.crrtsServes():
		p.hold[p.call.rack] = true // Algorithm 4's note to MTS
		return nil, p.crrtsUserFn
	default:
		return nil, p.cartsUserFn
	}
}

// crrtsServes reports whether CR-RTS serves this call's reduce request:
// NAS with CA-RTS and CR-RTS, on a congested rack (Algorithm 1 line 4).
func (p *NAS) crrtsServes() bool {
	return p.cfg.CARTS && p.cfg.CRRTS && p.call.congested
}

// firstReduce launches a reduce of the first job that wants one.
func (p *NAS) firstReduce(_ int32, g []*Job) bool {
	p.call.d, p.call.ok = Decision{Job: g[0], Kind: ReduceTask, Rule: RuleReduce}, true
	return true
}

// eachUser calls f with each user's jobs that want kind k and pass keep, in
// the order's sequence (consecutive candidates of one pool are one user);
// f returns true to stop.
func (p *NAS) eachUser(k TaskKind, keep func(*Job) bool, f func(u int32, g []*Job) bool) {
	p.group = p.group[:0]
	cur := int32(-1)
	flush := func() bool {
		if len(p.group) == 0 {
			return false
		}
		stop := f(cur, p.group)
		p.group = p.group[:0]
		return stop
	}
	for i, j := range p.cands {
		if !p.want[i] || p.wants[i] != k {
			continue
		}
		u := p.state(j).user
		if u != cur {
			if flush() {
				return
			}
			cur = u
		}
		if keep == nil || keep(j) {
			p.group = append(p.group, j)
		}
	}
	flush()
}

// relaxed reports whether a user whose counter is c may be served without
// NAS's preferences: skipped limit times (or, with wait_s, continuously
// for wait_s seconds).
func (p *NAS) relaxed(c skipCount, limit int) bool {
	if p.cfg.waitS > 0 {
		return c.spell && p.call.now-c.start >= p.cfg.waitS
	}
	return c.n >= limit
}

// skip counts a request that skipped the user: the counter counts the
// offer if it counts requests (every freed slot's, or every offer's), and
// a wait_s spell starts.
func (p *NAS) skip(c *skipCount) {
	if p.call.o.Freed || p.cfg.everyOffer {
		c.n++
	}
	if !c.spell {
		c.spell, c.start = true, p.call.now
	}
}

// MapSkips is user pool's map skip counter D_i^m (section III-C).
func (p *NAS) MapSkips(pool string) int { return p.users[p.user(pool)].maps.n }

// ReduceSkips is user pool's reduce skip counter D_i^r (section III-E).
func (p *NAS) ReduceSkips(pool string) int { return p.users[p.user(pool)].reds.n }

// Delayed is the number of job j's reduces CR-RTS has tagged "delayed"
// that have not launched yet (section III-E).
func (p *NAS) Delayed(j *Job) int { return p.state(j).delayed }
