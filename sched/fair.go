package sched

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/cluster"
)

// PoolConfig configures one Fair Scheduler pool (Fair Scheduler paper,
// section 3: pools with minimum shares and weights; Hadoop's allocation file).
// Jobs go to the pool their workload names (by default one pool a user).
type PoolConfig struct {
	Name string `yaml:"name"`
	// MinMaps and MinReduces are the pool's minimum shares of map and
	// reduce slots (slot model); MinShare is its minimum share of
	// containers (container model). Default 0.
	MinMaps    int `yaml:"min_maps"`
	MinReduces int `yaml:"min_reduces"`
	MinShare   int `yaml:"min_share"`
	// Weight scales the pool's fair share. Default 1.
	Weight float64 `yaml:"weight" zero:"1"`
	// Mode is how the pool shares among its own jobs: "fair" (default) or
	// "fifo" (the paper's per-pool setting).
	Mode string `yaml:"mode"`
	// MinShareTimeoutS and FairShareTimeoutS, where set, are the pool's
	// own preemption timeouts (Hadoop's per-pool
	// minSharePreemptionTimeout, YARN's per-queue min- and
	// fairSharePreemptionTimeout); 0, the default, takes the order's.
	MinShareTimeoutS  float64 `yaml:"min_share_timeout_s" zero:"preemption.min_share_timeout_s"`
	FairShareTimeoutS float64 `yaml:"fair_share_timeout_s" zero:"preemption.fair_share_timeout_s"`
	// FairShareThreshold, where set, is the pool's own fraction of its
	// fair share below which it is starved (YARN's per-queue
	// fairSharePreemptionThreshold); 0 takes the order's.
	FairShareThreshold float64 `yaml:"fair_share_threshold" zero:"preemption.fair_share_threshold"`
	// MaxMaps and MaxReduces (slot model) and MaxShare (containers) cap
	// the pool's running tasks (Hadoop 1's maxMaps and maxReduces, YARN's
	// maxResources): its demand counts up to the cap, and it is offered
	// no slot of a kind while it runs that many. 0, the default, is none.
	MaxMaps    int `yaml:"max_maps" zero:"no cap"`
	MaxReduces int `yaml:"max_reduces" zero:"no cap"`
	MaxShare   int `yaml:"max_share" zero:"no cap"`
	// AllowPreemptionFrom false keeps the pool's tasks from being killed
	// for another pool (YARN's allowPreemptionFrom); nil or true, the
	// default, lets preemption take them.
	AllowPreemptionFrom *bool `yaml:"allow_preemption_from"`
}

// preemptable reports whether the pool's tasks may be killed for
// another pool.
func (pc PoolConfig) preemptable() bool {
	return pc.AllowPreemptionFrom == nil || *pc.AllowPreemptionFrom
}

// capFor is the pool's cap on running tasks for slot kind s; 0 for none.
func (pc PoolConfig) capFor(s SlotKind) int {
	switch s {
	case MapSlot:
		return pc.MaxMaps
	case ReduceSlot:
		return pc.MaxReduces
	}
	return pc.MaxShare
}

// timeouts are the pool's preemption timeouts and fair-share threshold:
// its own where set, else the order's.
func (pc PoolConfig) timeouts(p PreemptionParams) (minS, fairS, threshold float64) {
	minS, fairS, threshold = p.MinShareTimeoutS, p.FairShareTimeoutS, p.FairShareThreshold
	if pc.MinShareTimeoutS > 0 {
		minS = pc.MinShareTimeoutS
	}
	if pc.FairShareTimeoutS > 0 {
		fairS = pc.FairShareTimeoutS
	}
	if pc.FairShareThreshold > 0 {
		threshold = pc.FairShareThreshold
	}
	return minS, fairS, threshold
}

// FairParams are the `fair` policy's parameters.
type FairParams struct {
	// Pools configures named pools; a pool not listed gets weight 1, no
	// minimum share and fair sharing among its jobs.
	Pools []PoolConfig `yaml:"pools"`
	// Preemption configures task killing (section 3.2); off by default.
	Preemption PreemptionParams `yaml:"preemption"`
	// Limits caps the jobs that run at once, per pool and per queue above
	// pools (JobLimits); none by default.
	Limits JobLimits `yaml:"job_limits"`
	// SizeBasedWeight weighs each job within its pool by the log of its
	// demand, as the Fair Scheduler's sizebasedweight does: "tasks",
	// Hadoop 1's log2(1 + running and runnable tasks of the kind)
	// (FairScheduler.calculateRawWeight); "memory", YARN's log2(1 + demand
	// in MB), tasks of 1024 MB (FairScheduler.getAppWeight). "" or "none",
	// the default, weighs jobs by their own weight alone.
	SizeBasedWeight string `yaml:"size_based_weight"`
	// PoolDefaults are the settings of a pool Pools does not name (its
	// name aside): an allocation file's defaults for the pools and queues
	// placement makes, Hadoop 1's defaultPoolSchedulingMode and YARN's
	// queueMaxResourcesDefault. Like Tree, set by code, never by a
	// scenario's params; the zero value is a pool of weight 1, fair, no
	// minimum and no cap.
	PoolDefaults PoolConfig `yaml:"-"`
	// QueueCaps cap the running tasks of the pools below a queue together
	// (a YARN allocation file's parent queues' maxResources). Like Tree,
	// they are set by code, never by a scenario's params.
	QueueCaps []QueueCap `yaml:"-"`
	// Tree, when set, divides slots among the pools as leaves of a queue
	// tree (a YARN allocation file's), level by level, instead of among
	// the pools as peers. It is set by code, never by a scenario's params.
	Tree ShareTree `yaml:"-"`
}

// ShareTree divides a slot kind's capacity among the active pools when
// pools are leaves of a hierarchy: out[i] is pools[i]'s share, reqs[i] its
// request. Implementations must be deterministic.
type ShareTree interface {
	PoolShares(out []float64, capacity float64, pools []string, reqs []ShareRequest) []float64
}

// Validate reports the first bad pool setting.
func (p FairParams) Validate() error {
	if err := p.Preemption.validate(); err != nil {
		return err
	}
	if err := p.Limits.Validate(); err != nil {
		return err
	}
	if err := validateQueueCaps(p.QueueCaps); err != nil {
		return err
	}
	switch p.SizeBasedWeight {
	case "", "none", "tasks", "memory":
	default:
		return fmt.Errorf("size_based_weight: %q; want none, tasks (Hadoop 1) or memory (YARN)", p.SizeBasedWeight)
	}
	seen := map[string]bool{}
	for i, pc := range p.Pools {
		where := fmt.Sprintf("pools[%d]", i)
		if pc.Name == "" {
			return fmt.Errorf("%s.name: must not be empty", where)
		}
		if seen[pc.Name] {
			return fmt.Errorf("%s.name: pool %q is listed twice", where, pc.Name)
		}
		seen[pc.Name] = true
		if pc.MinMaps < 0 || pc.MinReduces < 0 || pc.MinShare < 0 {
			return fmt.Errorf("%s (%s): minimum shares must not be negative", where, pc.Name)
		}
		if pc.MaxMaps < 0 || pc.MaxReduces < 0 || pc.MaxShare < 0 {
			return fmt.Errorf("%s (%s): caps must not be negative", where, pc.Name)
		}
		if !(pc.Weight >= 0) || math.IsInf(pc.Weight, 0) {
			return fmt.Errorf("%s.weight (%s): want a finite number > 0 (leave it out for 1), got %v", where, pc.Name, pc.Weight)
		}
		switch strings.ToLower(pc.Mode) {
		case "", "fair", "fifo":
		default:
			return fmt.Errorf("%s.mode (%s): want \"fair\" or \"fifo\", got %q", where, pc.Name, pc.Mode)
		}
		for _, t := range []struct {
			key string
			v   float64
		}{{"min_share_timeout_s", pc.MinShareTimeoutS}, {"fair_share_timeout_s", pc.FairShareTimeoutS}} {
			if !(t.v >= 0) || math.IsInf(t.v, 0) {
				return fmt.Errorf("%s.%s (%s): want a finite number of seconds > 0 (leave it out for the preemption section's), got %v", where, t.key, pc.Name, t.v)
			}
		}
		if !(pc.FairShareThreshold >= 0 && pc.FairShareThreshold <= 1) {
			return fmt.Errorf("%s.fair_share_threshold (%s): want a fraction of the fair share, above 0 and at most 1 (leave it out for the preemption section's), got %v", where, pc.Name, pc.FairShareThreshold)
		}
	}
	return nil
}

// FairOrder is the Fair Scheduler's job order (Fair Scheduler paper, section
// 3 and Appendix A): slots are divided among active pools by max-min
// fairness with minimum guarantees (FairShares), each pool's share among its
// jobs likewise (or in FIFO order), and a free slot goes to the job farthest
// below its share.
//
// "Farthest below" is read as Hadoop's FairShareComparator reads it: pools
// running fewer tasks than their minimum share (and demand) come first,
// ordered by running/minimum share; the rest by running/fair share; ties by
// pool name and job index. Shares are computed per slot kind (map slots and
// reduce slots are separate resources in the slot model) and recomputed
// only when demand changes (Cluster.Epoch), and then only where the inputs
// of a share computation changed (shareMemo): the results are bit for bit
// those of recomputing everything.
type FairOrder struct {
	preempt PreemptionParams
	tree    ShareTree
	cfg     map[string]PoolConfig
	pools   map[string]*pool // lookup by name only; never iterated
	active  []*pool          // pools with jobs, sorted by name
	epoch   [3]uint64
	valid   [3]bool
	// bufs are sort buffers, one per nesting depth of Candidates, reused
	// across calls so that an offer does not allocate a pool list.
	bufs  [][]poolKey
	depth int
	// poolShares[s] holds the division of slots of kind s among the
	// active pools, parallel to active as of the last update.
	poolShares [3]shareMemo
	// Buffers for update, which runs whenever demand changes.
	reqs, jobReqs []ShareRequest
	treeNames     []string
	scratch       shareScratch
	// version counts the job and task events the order observes; with the
	// cluster's epoch it identifies the state a candidate sequence was
	// computed from (see seqMemo).
	version uint64
	seqs    [3]seqMemo
	rec     [][]*Job // per nesting depth: the sequence being yielded
	// kept[s] is openPools' answer for slot kind s, kept sorted between
	// offers: the pools with work for s in Candidates' order. Only the
	// pools in moved[s], those an event named or whose share or demand
	// update changed since, are put in place again; keptOK[s] is false
	// when the active pools changed (every rank moves), and the list is
	// then sorted afresh. Candidates copies it before yielding, since a
	// consumer may read again mid-read; NAS reads it in place, one Place
	// at a time. keeping is set by the first openPools (the first offer):
	// from then on events and share updates note the pools they move.
	kept    [3][]poolKey
	keptOK  [3]bool
	moved   [3][]*pool
	keeping bool
	cursor  poolHeap // for keys that do not order (NaN)
	// npools counts the pools made, which numbers them (pool.id).
	npools int32
	// dirty[s] lists the pools an event named since the last update of
	// slot kind s, and sameActive[s] says the active pools are those the
	// last update divided slots among (poolShares[s].reqs is parallel to
	// active): then an update costs the pools and jobs the events named.
	dirty      [3][]*pool
	sameActive [3]bool
	// Buffers for updateNamed.
	at  []int32
	out []ShareRequest
	// some is yieldSome's key buffer, nil while a call holds it.
	some []jobKey
	// admit keeps jobs past the running-job limits out of the pools; nil
	// without limits.
	admit *admission
	// queueCaps are the caps of queues above pools, in the order given.
	queueCaps []*queueCap
	// sizeWeight is FairParams.SizeBasedWeight, "" for none.
	sizeWeight string
	// poolDefaults is FairParams.PoolDefaults.
	poolDefaults PoolConfig
}

// seqMemo is the whole candidate sequence for one slot kind, kept when a
// consumer took all of it (NAS reads every candidate on every offer, and
// most offers change nothing), so that the next full read in the same
// state replays it. The sequence depends only on pools' running counts
// and shares and on jobs' running and runnable tasks: running counts move
// with TaskLaunched and TaskEnded, the rest with the cluster's epoch or a
// job's arrival or departure.
type seqMemo struct {
	ok             bool
	version, epoch uint64
	slots          int
	jobs           []*Job
}

type pool struct {
	name    string
	cfg     PoolConfig
	jobs    []*Job // submit order
	running taskCounts
	share   [3]float64
	demand  [3]float64
	// jobShares[s].out is the division of share[s] among jobs, parallel
	// to jobs (unused in FIFO pools).
	jobShares [3]shareMemo
	fifo      bool
	starve    *starvation
	// order[s] is the pool's jobs (positions in jobs) sorted by
	// running/share and then job index for slot kind s, all of them,
	// runnable or not: the key moves only with the jobs' running counts
	// (TaskLaunched, TaskEnded), their shares (jobShares[s].gen) and the
	// job list, so an offer re-sorts only the pools those changed, not
	// every pool it reads.
	order    [3][]jobKey
	orderOK  [3]bool
	orderGen [3]uint64
	// dirty[s] says a job of the pool may have changed its demand for
	// slot kind s since update last summed it into sum[s]: an event about
	// one of its jobs came (added, removed, a task launched or ended,
	// outputs lost). The other pools' sums, and their jobs' requests,
	// stand, so an update costs the pools that moved, not the backlog.
	dirty [3]bool
	sum   [3]int
	// named[s] lists the jobs the events since update last read the pool
	// for slot kind s named (a job may repeat), and reorder[s] those since
	// sorted last ordered it: a task launched or ended, outputs lost,
	// reduces enabled each move one job's demand or running count, so an
	// update reads those jobs rather than the pool's whole backlog. A list
	// that grows past namedMax is dropped and its flag (wide, unsorted)
	// set, as a job arriving or leaving sets it: the whole pool is read.
	named    [3][]*Job
	wide     [3]bool
	reorder  [3][]*Job
	unsorted [3]bool
	// inDirty[s] says the pool is in FairOrder.dirty[s].
	inDirty [3]bool
	// byIndex says jobs is in Job.Index order, as jobs arrive, so that a
	// job's position is found by binary search.
	byIndex bool
	// reading[s] counts the yieldPool calls iterating order[s]: a
	// consumer that launches a task mid-read and reads again must not
	// have the sort rewrite the slice under the outer read.
	reading [3]int
	// rank is the pool's place in FairOrder.active (by name); inMoved[s]
	// says it is in FairOrder.moved[s].
	rank    int
	inMoved [3]bool
	// id numbers the pool in the order it was made (0, 1, ...), for a
	// placer's own per-pool tables: a pool is never dropped once made.
	id int32
	// capped are the queue caps over the pool.
	capped []*queueCap
}

// jobKey is a job's place in its pool's order for one slot kind.
type jobKey struct {
	r     float64 // running/share
	index int     // Job.Index, the tie-break
	k     int32   // position in pool.jobs
}

// namedMax bounds a pool's named and reorder lists: past it, reading the
// whole pool costs about as much as reading the jobs named.
const namedMax = 32

// touch notes that an event about job j of pool p may have moved j's
// demand and running count: p's sums and order are stale for every slot
// kind, and p is out of place in the kept pool orders.
func (f *FairOrder) touch(p *pool, j *Job) {
	p.orderOK = [3]bool{}
	for s := range p.dirty {
		p.dirty[s] = true
		if !p.inDirty[s] {
			p.inDirty[s] = true
			f.dirty[s] = append(f.dirty[s], p)
		}
		p.named[s], p.wide[s] = noteJob(p.named[s], p.wide[s], j)
		p.reorder[s], p.unsorted[s] = noteJob(p.reorder[s], p.unsorted[s], j)
	}
	if !f.keeping {
		return
	}
	for s := range f.moved {
		f.move(p, SlotKind(s))
	}
}

// noteJob adds j to list l unless the list has already given way to a
// whole-pool read (all), which it does once it is full.
func noteJob(l []*Job, all bool, j *Job) ([]*Job, bool) {
	if all || len(l) == namedMax {
		return l[:0], true
	}
	return append(l, j), false
}

// jobsChanged notes that p's job list changed: positions moved, so its
// sums and order are read whole next time.
func (p *pool) jobsChanged() {
	p.forgetJobShares()
	p.wide = [3]bool{true, true, true}
	p.unsorted = [3]bool{true, true, true}
}

// move marks pool p out of place in kept[s].
func (f *FairOrder) move(p *pool, s SlotKind) {
	if !p.inMoved[s] {
		p.inMoved[s] = true
		f.moved[s] = append(f.moved[s], p)
	}
}

// activeChanged renumbers the active pools and drops the kept orders:
// every rank after the change moved.
func (f *FairOrder) activeChanged() {
	for i, p := range f.active {
		p.rank = i
	}
	f.keptOK = [3]bool{}
	f.sameActive = [3]bool{}
}

var (
	_ Order              = (*FairOrder)(nil)
	_ JobObserver        = (*FairOrder)(nil)
	_ TaskObserver       = (*FairOrder)(nil)
	_ Preempter          = (*FairOrder)(nil)
	_ OutputLossObserver = (*FairOrder)(nil)
	_ DemandObserver     = (*FairOrder)(nil)
)

// NewFairOrder returns a fair order with the given pools.
func NewFairOrder(p FairParams) (*FairOrder, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	f := &FairOrder{preempt: p.Preemption.withDefaults(), tree: p.Tree, cfg: map[string]PoolConfig{}, pools: map[string]*pool{}, admit: newAdmission(p.Limits)}
	for _, pc := range p.Pools {
		f.cfg[pc.Name] = pc
	}
	for _, q := range p.QueueCaps {
		f.queueCaps = append(f.queueCaps, &queueCap{QueueCap: q})
	}
	if p.SizeBasedWeight != "none" {
		f.sizeWeight = p.SizeBasedWeight
	}
	f.poolDefaults = p.PoolDefaults
	return f, nil
}

// NewFair returns the `fair` policy: the fair order with locality-first
// placement, killing tasks when p.Preemption is enabled. Delay scheduling
// composes onto the same order as the `delay` policy.
func NewFair(p FairParams) (Policy, error) {
	o, err := NewFairOrder(p)
	if err != nil {
		return nil, err
	}
	return Compose("fair", o, LocalityFirst{}), nil
}

// JobAdded puts the job in its pool, creating the pool on first use, or,
// past a running-job limit, keeps it waiting (JobLimits).
func (f *FairOrder) JobAdded(_ Cluster, j *Job) {
	if f.admit != nil && !f.admit.arrive(j) {
		f.version++
		return
	}
	f.add(j)
}

// held reports whether j waits past a running-job limit: it is in no
// pool, and the order has nothing to count for it.
func (f *FairOrder) held(j *Job) bool { return f.admit != nil && f.admit.isHeld(j) }

func (f *FairOrder) add(j *Job) {
	p := f.pools[j.Pool]
	if p == nil {
		cfg, ok := f.cfg[j.Pool]
		if !ok {
			cfg = f.poolDefaults
			cfg.Name = j.Pool
		}
		p = &pool{name: j.Pool, cfg: cfg, fifo: strings.EqualFold(cfg.Mode, "fifo"), dirty: [3]bool{true, true, true}, id: f.npools, byIndex: true}
		p.capped = f.capsFor(p)
		f.npools++
		f.pools[j.Pool] = p
	}
	if len(p.jobs) == 0 {
		i, _ := slices.BinarySearchFunc(f.active, p.name, func(a *pool, n string) int { return strings.Compare(a.name, n) })
		f.active = slices.Insert(f.active, i, p)
		f.activeChanged()
	}
	if n := len(p.jobs); n == 0 {
		p.byIndex = true
	} else if p.jobs[n-1].Index >= j.Index {
		p.byIndex = false
	}
	p.jobs = append(p.jobs, j)
	p.jobsChanged()
	f.touch(p, j)
	f.valid = [3]bool{}
	f.version++
}

// JobRemoved drops the job, and its pool from the active set when empty;
// jobs waiting past a running-job limit it frees come in.
func (f *FairOrder) JobRemoved(_ Cluster, j *Job) {
	if f.admit == nil {
		f.remove(j)
		return
	}
	wasHeld := f.held(j)
	in := f.admit.leave(j)
	if wasHeld {
		f.version++
		return
	}
	f.remove(j)
	for _, w := range in {
		f.add(w)
	}
}

func (f *FairOrder) remove(j *Job) {
	p := f.pools[j.Pool]
	if p == nil {
		return
	}
	if i := slices.Index(p.jobs, j); i >= 0 {
		p.jobs = slices.Delete(p.jobs, i, i+1)
	}
	p.jobsChanged()
	f.touch(p, j)
	if len(p.jobs) == 0 {
		if i := slices.Index(f.active, p); i >= 0 {
			f.active = slices.Delete(f.active, i, i+1)
			f.activeChanged()
		}
	}
	f.valid = [3]bool{}
	f.version++
}

// TaskLaunched counts a running task against its pool.
func (f *FairOrder) TaskLaunched(_ Cluster, j *Job, k TaskKind, _ cluster.NodeID) {
	if p := f.pools[j.Pool]; p != nil {
		p.running[k]++
		f.countCapped(p, k, 1)
		f.touch(p, j)
	}
	f.version++
}

// TaskEnded uncounts a task.
func (f *FairOrder) TaskEnded(_ Cluster, j *Job, k TaskKind, _ cluster.NodeID, _ bool) {
	if p := f.pools[j.Pool]; p != nil {
		p.running[k]--
		f.countCapped(p, k, -1)
		f.touch(p, j)
	}
	f.version++
}

// MapOutputsLost marks the job's pool: maps that had finished are pending
// again, so its demand grew without a task event.
func (f *FairOrder) MapOutputsLost(_ Cluster, j *Job, _ cluster.NodeID, _ int) {
	if p := f.pools[j.Pool]; p != nil && !f.held(j) {
		f.touch(p, j)
	}
	f.version++
}

// ReducesEnabled marks the job's pool: its reduce demand grew.
func (f *FairOrder) ReducesEnabled(_ Cluster, j *Job) {
	if p := f.pools[j.Pool]; p != nil && !f.held(j) {
		f.touch(p, j)
	}
	f.version++
}

// forgetJobShares drops the pool's remembered job shares when its job list
// changes. The memo would not reuse them anyway unless the new jobs' requests
// equal the old ones bit for bit, in which case the shares are equal too;
// forgetting keeps correctness from resting on that argument alone.
func (p *pool) forgetJobShares() {
	for s := range p.jobShares {
		p.jobShares[s].forget()
	}
}

func (p *pool) runningFor(s SlotKind) int { return p.running.of(s) }

// taskCounts are running tasks by TaskKind.
type taskCounts [2]int

// of is the count that takes slots of kind s: maps, reduces, or both for
// a container.
func (c taskCounts) of(s SlotKind) int {
	switch s {
	case MapSlot:
		return c[MapTask]
	case ReduceSlot:
		return c[ReduceTask]
	}
	return c[MapTask] + c[ReduceTask]
}

func (p *pool) minShare(s SlotKind) float64 {
	switch s {
	case MapSlot:
		return float64(p.cfg.MinMaps)
	case ReduceSlot:
		return float64(p.cfg.MinReduces)
	}
	return float64(p.cfg.MinShare)
}

// update brings every active pool's and job's fair share of slots of kind s
// up to date when demand has changed since the last computation. When the
// active pools are those of the last update, it reads only the pools and
// jobs the events since named (updateNamed); otherwise, or when more than
// one pool's request moved, it rebuilds the requests of every pool
// (updateAll). Either way FairShares runs only for the pools, or the
// pool's jobs, whose requests (or share to divide) changed: the memos
// compare inputs bit for bit, so the shares are exactly those a full
// recomputation gives.
func (f *FairOrder) update(c Cluster, s SlotKind) {
	if f.valid[s] && f.epoch[s] == c.Epoch() {
		return
	}
	capacity := float64(c.TotalSlots(s))
	if !f.updateNamed(s, capacity) {
		f.updateAll(s, capacity)
	}
	for _, p := range f.dirty[s] {
		p.inDirty[s] = false
		p.named[s], p.wide[s] = p.named[s][:0], false
	}
	f.dirty[s] = f.dirty[s][:0]
	f.epoch[s], f.valid[s] = c.Epoch(), true
}

// updateNamed is update reading only the pools in dirty[s] and, in each,
// only the jobs its events named. It applies when the active pools are
// the last update's and the capacity is the same, and when at most one
// pool's request moved and the pool memo's own test (unmovedAt) shows
// that the move leaves every pool's share where it was: then each pool's
// sum moves by its named jobs' moves, and each job division only where
// a named job's request moved (shareMemo.patch). It reports false,
// having changed nothing updateAll does not set again, when it does not
// apply.
func (f *FairOrder) updateNamed(s SlotKind, capacity float64) bool {
	pm := &f.poolShares[s]
	if f.tree != nil || !f.sameActive[s] || !pm.ok || len(pm.reqs) != len(f.active) ||
		math.Float64bits(pm.capacity) != math.Float64bits(capacity) {
		return false
	}
	moved, req := -1, ShareRequest{}
	for _, p := range f.dirty[s] {
		if len(p.jobs) == 0 || p.rank >= len(f.active) || f.active[p.rank] != p {
			return false // left the active pools: activeChanged has said so
		}
		// updateAll sums a dirty pool again, so the sum may be set here.
		p.sum[s] = p.namedSum(s)
		r := p.request(s)
		if sameRequest(pm.reqs[p.rank], r) {
			continue
		}
		if moved >= 0 || !pm.unmovedAt(p.rank, r) {
			return false
		}
		moved, req = p.rank, r
	}
	if moved >= 0 {
		pm.reqs[moved] = req
	}
	for _, p := range f.dirty[s] {
		d := pm.reqs[p.rank].Demand
		if f.keeping && math.Float64bits(p.demand[s]) != math.Float64bits(d) {
			f.move(p, s) // its key moved
		}
		p.demand[s] = d
		p.dirty[s] = false
		if !p.fifo {
			f.divideNamed(p, s)
		}
	}
	return true
}

// namedSum is the pool's demand for slot kind s: its last sum moved by the
// named jobs' moves since, when the pool's job division remembers their
// last requests; otherwise summed over all its jobs.
func (p *pool) namedSum(s SlotKind) int {
	js := &p.jobShares[s]
	if p.fifo || p.wide[s] || !js.ok || len(js.reqs) != len(p.jobs) {
		return p.demandOf(s)
	}
	sum := p.sum[s]
	for _, j := range p.uniqueNamed(s) {
		k := p.position(j)
		if k < 0 {
			return p.demandOf(s)
		}
		sum += j.Demand(s) - int(js.reqs[k].Demand)
	}
	return sum
}

// request is the pool's share request for slot kind s: its summed
// demand, up to its cap, its minimum share and weight.
func (p *pool) request(s SlotKind) ShareRequest {
	d := p.sum[s]
	if c := p.cfg.capFor(s); c > 0 {
		d = min(d, c)
	}
	return ShareRequest{Demand: float64(d), MinShare: p.minShare(s), Weight: p.cfg.Weight}
}

// demandOf sums the pool's jobs' demands for slot kind s.
func (p *pool) demandOf(s SlotKind) int {
	d := 0
	for _, j := range p.jobs {
		d += j.Demand(s)
	}
	return d
}

// uniqueNamed returns named[s] sorted by job index without repeats.
func (p *pool) uniqueNamed(s SlotKind) []*Job {
	l := p.named[s]
	if len(l) > 1 {
		slices.SortFunc(l, func(a, b *Job) int { return a.Index - b.Index })
		l = slices.Compact(l)
		p.named[s] = l
	}
	return l
}

// position returns j's place in p.jobs, or -1.
func (p *pool) position(j *Job) int {
	if !p.byIndex {
		return slices.Index(p.jobs, j)
	}
	k, ok := slices.BinarySearchFunc(p.jobs, j.Index, func(a *Job, i int) int { return a.Index - i })
	if !ok || p.jobs[k] != j {
		return -1
	}
	return k
}

// jobRequest is job j's claim on its pool's share of slots of kind s.
func (f *FairOrder) jobRequest(j *Job, s SlotKind) ShareRequest {
	w := 1.0
	if j.Spec != nil && j.Spec.Weight > 0 {
		w = j.Spec.Weight
	}
	d := j.Demand(s)
	switch f.sizeWeight {
	case "tasks":
		w *= math.Log1p(float64(d)) / math.Ln2
	case "memory":
		w *= math.Log1p(float64(d)*sizeWeightTaskMB) / math.Ln2
	}
	return ShareRequest{Demand: float64(d), Weight: w}
}

// sizeWeightTaskMB is a task's memory for YARN's size-based weight:
// mapreduce.map.memory.mb's default.
const sizeWeightTaskMB = 1024

// divideNamed brings the division of pool p's unchanged share among its
// jobs up to date, patching only the named jobs' requests when the
// division remembers the rest (the share is the one it divided).
func (f *FairOrder) divideNamed(p *pool, s SlotKind) {
	js := &p.jobShares[s]
	if p.wide[s] || !js.ok || len(js.reqs) != len(p.jobs) || math.Float64bits(js.capacity) != math.Float64bits(p.share[s]) {
		f.divide(p, s)
		return
	}
	at, out := f.at[:0], f.out[:0]
	for _, j := range p.uniqueNamed(s) {
		k := p.position(j)
		if k < 0 {
			f.divide(p, s)
			return
		}
		if r := f.jobRequest(j, s); !sameRequest(js.reqs[k], r) {
			at, out = append(at, int32(k)), append(out, r)
		}
	}
	if len(at) > 0 {
		js.patch(&f.scratch, at, out)
	}
	f.at, f.out = at, out
}

// divide divides pool p's share of slots of kind s among all its jobs.
func (f *FairOrder) divide(p *pool, s SlotKind) {
	jr := f.jobReqs[:0]
	for _, j := range p.jobs {
		jr = append(jr, f.jobRequest(j, s))
	}
	f.jobReqs = p.jobShares[s].shares(&f.scratch, p.share[s], jr)
}

// divided brings the division of pool p's share of slots of kind s among
// its jobs up to date when only the share moved since it was made (update
// leaves that to the first read of the pool's jobs): the jobs' requests
// are the memo's, and the memo's division of the new share is what an
// update computing it at once would have given, since no event came
// between (an event's update would have divided the pool first).
func (f *FairOrder) divided(p *pool, s SlotKind) {
	js := &p.jobShares[s]
	if p.fifo || !js.ok || math.Float64bits(js.capacity) == math.Float64bits(p.share[s]) {
		return
	}
	js.redivide(&f.scratch, p.share[s])
}

// updateAll is update rebuilding every active pool's request. The
// requests of pools no event named are their last ones.
func (f *FairOrder) updateAll(s SlotKind, capacity float64) {
	reqs := f.reqs[:0]
	for _, p := range f.active {
		if p.dirty[s] {
			p.sum[s] = p.demandOf(s)
		}
		reqs = append(reqs, p.request(s))
	}
	pm := &f.poolShares[s]
	if f.tree != nil {
		names := f.treeNames[:0]
		for _, p := range f.active {
			names = append(names, p.name)
		}
		f.treeNames = names
		pm.reqs = append(pm.reqs[:0], reqs...)
		pm.out = f.tree.PoolShares(pm.out, capacity, names, reqs)
		pm.forget()
		f.reqs = reqs
	} else {
		f.reqs = pm.shares(&f.scratch, capacity, reqs)
	}
	for i, p := range f.active {
		if f.keeping && (math.Float64bits(p.share[s]) != math.Float64bits(pm.out[i]) || math.Float64bits(p.demand[s]) != math.Float64bits(pm.reqs[i].Demand)) {
			f.move(p, s) // its key moved
		}
		p.share[s], p.demand[s] = pm.out[i], pm.reqs[i].Demand
		dirty := p.dirty[s]
		p.dirty[s] = false
		if p.fifo {
			continue
		}
		if !dirty && p.jobShares[s].ok {
			// No job of the pool moved: its requests are the memo's, and
			// a new share is divided when the pool's jobs are read
			// (divided). A change of the water level moves every pool
			// above it, and most offers read one or two of them.
			continue
		}
		f.divide(p, s)
	}
	f.sameActive[s] = true
}

// PoolShare returns the current fair share of slots of kind s for pool
// name, for reports and tests.
func (f *FairOrder) PoolShare(c Cluster, name string, s SlotKind) float64 {
	f.update(c, s)
	if p := f.pools[name]; p != nil && len(p.jobs) > 0 {
		return p.share[s]
	}
	return 0
}

// JobShare returns job j's current fair share of its pool's slots of kind
// s, for reports and tests: 0 for a job the order does not hold and for the
// jobs of a FIFO pool, which does not divide its share.
func (f *FairOrder) JobShare(c Cluster, j *Job, s SlotKind) float64 {
	f.update(c, s)
	p := f.pools[j.Pool]
	if p == nil || p.fifo {
		return 0
	}
	if i := slices.Index(p.jobs, j); i >= 0 {
		f.divided(p, s)
		return p.jobShares[s].out[i]
	}
	return 0
}

func ratio(running, share float64) float64 {
	if share <= 0 {
		if running <= 0 {
			return 0
		}
		return float64(1 << 30)
	}
	return running / share
}

// Candidates yields jobs with work for the slot, neediest pool first and
// within a pool the job farthest below its share (or oldest, in FIFO pools).
func (f *FairOrder) Candidates(c Cluster, s SlotKind) iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		m := &f.seqs[s]
		// The state the sequence is computed from, taken before any of it
		// is yielded: a consumer that changes the state mid-read must not
		// leave a sequence labelled with the state after its change.
		version, epoch, slots := f.version, c.Epoch(), c.TotalSlots(s)
		if m.ok && m.version == version && m.epoch == epoch && m.slots == slots {
			for _, j := range m.jobs {
				if !yield(j) {
					return
				}
			}
			return
		}
		// A buffer per nesting depth: a consumer may ask for candidates
		// of another kind while it still iterates these.
		if f.depth == len(f.bufs) {
			f.bufs = append(f.bufs, nil)
			f.rec = append(f.rec, nil)
		}
		depth := f.depth
		rec := f.rec[depth][:0]
		record := func(j *Job) bool {
			rec = append(rec, j)
			return yield(j)
		}
		// Only pools with a runnable job can yield one, in the kept pool
		// order (openPools), which puts again only the pools an event or
		// a share update moved: with hundreds of users in a backlog,
		// checking every pool for a runnable job and ordering them all
		// was most of an offer's cost. The order is total (ties end on
		// the unique pool name), so the sequence is exactly the sorted
		// one. It is copied to this depth's buffer, since a consumer may
		// read candidates again, and so re-place the kept list, while it
		// still reads these. A NaN key orders nothing; the heap below
		// then gives the order it always gave.
		keys := f.openPools(c, s)
		if !f.keptOK[s] {
			h := poolHeap{ps: f.bufs[f.depth][:0]}
			for i, p := range f.active {
				if p.runnable(s) {
					h.ps = append(h.ps, poolKeyOf(p, s, i))
				}
			}
			h.init()
			keys = keys[:0:0]
			for len(h.ps) > 0 {
				keys = append(keys, poolKey{p: h.pop()})
			}
		}
		buf := append(f.bufs[depth][:0], keys...)
		f.bufs[depth] = buf
		f.depth++
		defer func() { f.depth-- }()
		defer func() { f.rec[depth] = rec[:0] }()
		for _, k := range buf {
			if !f.yieldPool(k.p, s, record) {
				return
			}
		}
		*m = seqMemo{ok: true, version: version, epoch: epoch, slots: slots, jobs: append(m.jobs[:0], rec...)}
	}
}

// openPools returns the pools with a job that has work for slot kind s,
// in the order Candidates yields their jobs (yieldPool then yields a
// pool's jobs as Candidates does): what Candidates walks, and what a
// placer that decides per user (NAS) reads to pass over a whole pool
// without reading its jobs. It brings the shares up to date first. The list
// is kept between calls and only the pools an event or a share update
// moved are put in place again, so an offer costs the pools that moved,
// not a sort of them all; the order is total (ties end on the pool's
// name), so the list is the one a sort gives. It is the order's own,
// valid until the next openPools call and while no job or task event
// comes.
func (f *FairOrder) openPools(c Cluster, s SlotKind) []poolKey {
	f.keeping = true
	f.update(c, s)
	o := f.kept[s]
	// A NaN key orders nothing: the list then takes the heap's order and
	// is sorted afresh next time. Keys that did not move were checked
	// when they were put in, so only new keys are.
	nan := false
	// Re-placing a moved pool costs a search and a shift of the list, a
	// pass over it, and sorting afresh about log2 of them, so when a share
	// update moved more pools than that (a change of the water level moves
	// every pool above it) the list is sorted again; the order is total,
	// so both give the same list.
	if !f.keptOK[s] || len(f.moved[s]) > bits.Len(uint(len(o))) {
		o = o[:0]
		for i, p := range f.active {
			if p.runnable(s) {
				k := poolKeyOf(p, s, i)
				nan = nan || k.r != k.r
				o = append(o, k)
			}
		}
		slices.SortFunc(o, comparePools)
		for _, p := range f.moved[s] {
			p.inMoved[s] = false
		}
	} else {
		for _, p := range f.moved[s] {
			p.inMoved[s] = false
			if i := slices.IndexFunc(o, func(k poolKey) bool { return k.p == p }); i >= 0 {
				o = slices.Delete(o, i, i+1)
			}
			if len(p.jobs) == 0 || !p.runnable(s) {
				continue // inactive (its rank is stale), or nothing to run
			}
			k := poolKeyOf(p, s, p.rank)
			nan = nan || k.r != k.r
			i, _ := slices.BinarySearchFunc(o, k, comparePools)
			o = slices.Insert(o, i, k)
		}
	}
	f.moved[s] = f.moved[s][:0]
	f.kept[s] = o
	f.keptOK[s] = !nan
	if nan {
		return f.poolsByHeap(o)
	}
	return o
}

// poolsByHeap is the order Candidates' heap pops pools in.
func (f *FairOrder) poolsByHeap(keys []poolKey) []poolKey {
	h := poolHeap{ps: append(f.cursor.ps[:0], keys...)}
	h.init()
	out := make([]poolKey, 0, len(keys))
	for len(h.ps) > 0 {
		p := h.pop()
		out = append(out, poolKey{p: p})
	}
	f.cursor = h
	return out
}

// comparePools is before as a three-way comparison.
func comparePools(a, b poolKey) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

// runnable reports whether some job of the pool has a task for slot kind
// s, and the pool runs fewer than its cap.
func (p *pool) runnable(s SlotKind) bool {
	if c := p.cfg.capFor(s); c > 0 && p.runningFor(s) >= c {
		return false // at its cap
	}
	for _, q := range p.capped {
		if q.full(s) {
			return false // a queue above it is at its cap
		}
	}
	for _, j := range p.jobs {
		if j.Runnable(s) > 0 {
			return true
		}
	}
	return false
}

// poolKey is a pool's place in the order for one slot kind, computed once
// per Candidates call so that the heap's comparisons do no division. The
// order is "farthest below share" (Hadoop's FairShareComparator): needy
// pools (below min(minimum share, demand)) first by running/min, then the
// rest by running/share, ties by pool name.
type poolKey struct {
	p     *pool
	needy bool    // below min(minimum share, demand), as Hadoop's FairShareComparator has it
	r     float64 // running/min when needy, else running/share
	rank  int     // the pool's place in FairOrder.active, which is sorted by name
}

func poolKeyOf(p *pool, s SlotKind, rank int) poolKey {
	run, m := float64(p.runningFor(s)), min(p.minShare(s), p.demand[s])
	if run < m {
		return poolKey{p, true, run / m, rank}
	}
	return poolKey{p, false, ratio(run, p.share[s]), rank}
}

// before orders pool keys: needy first, then the lower ratio, ties by
// name.
func before(a, b poolKey) bool {
	if a.needy != b.needy {
		return a.needy
	}
	if a.r != b.r {
		return a.r < b.r
	}
	return a.rank < b.rank // by name, without comparing strings
}

// poolHeap is a binary min-heap of pools under before.
type poolHeap struct{ ps []poolKey }

func (h *poolHeap) init() {
	for i := len(h.ps)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *poolHeap) pop() *pool {
	top := h.ps[0].p
	last := len(h.ps) - 1
	h.ps[0] = h.ps[last]
	h.ps[last] = poolKey{}
	h.ps = h.ps[:last]
	h.down(0)
	return top
}

func (h *poolHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h.ps) {
			return
		}
		if r := c + 1; r < len(h.ps) && before(h.ps[r], h.ps[c]) {
			c = r
		}
		if !before(h.ps[c], h.ps[i]) {
			return
		}
		h.ps[i], h.ps[c] = h.ps[c], h.ps[i]
		i = c
	}
}

func (f *FairOrder) yieldPool(p *pool, s SlotKind, yield func(*Job) bool) bool {
	if p.fifo {
		for _, j := range p.jobs {
			if j.Runnable(s) > 0 && !yield(j) {
				return false
			}
		}
		return true
	}
	if len(p.jobs) == 1 { // most pools hold one job: nothing to order
		return p.jobs[0].Runnable(s) == 0 || yield(p.jobs[0])
	}
	f.divided(p, s)
	p.reading[s]++
	defer func() { p.reading[s]-- }()
	for _, jk := range p.sorted(s) {
		if j := p.jobs[jk.k]; j.Runnable(s) > 0 && !yield(j) {
			return false
		}
	}
	return true
}

// yieldSome is yieldPool over only the pool's jobs at positions ks of
// p.jobs (ascending): the same jobs in the same order as yieldPool yields
// them, the others not read at all. A placer that knows which few jobs of
// a backlog can take a task (NAS's reduce request) reads those alone.
// Within a pool the order is by (running/share, index), a total order on
// numbers (sorted), so sorting the few by their own keys, computed as
// sorted computes them from the same state, gives their order in the
// whole pool's; a NaN key orders nothing, and the pool's own sort then
// decides.
func (f *FairOrder) yieldSome(p *pool, s SlotKind, ks []int32, yield func(*Job) bool) bool {
	if p.fifo || len(p.jobs) == 1 {
		for _, k := range ks {
			if j := p.jobs[k]; j.Runnable(s) > 0 && !yield(j) {
				return false
			}
		}
		return true
	}
	f.divided(p, s)
	keys := f.some[:0]
	f.some = nil // a nested call makes its own
	defer func() { f.some = keys[:0] }()
	js := &p.jobShares[s]
	ordered := true
	for _, k := range ks {
		j := p.jobs[k]
		r := ratio(float64(j.Running(s)), js.out[k])
		ordered = ordered && r == r
		keys = append(keys, jobKey{r: r, index: j.Index, k: k})
	}
	p.reading[s]++
	defer func() { p.reading[s]-- }()
	if !ordered {
		keys = keys[:0]
		for _, jk := range p.sorted(s) {
			if _, in := slices.BinarySearch(ks, jk.k); in {
				keys = append(keys, jk)
			}
		}
	} else {
		slices.SortFunc(keys, compareJobKeys)
	}
	for _, jk := range keys {
		if j := p.jobs[jk.k]; j.Runnable(s) > 0 && !yield(j) {
			return false
		}
	}
	return true
}

// sorted returns the pool's jobs in order for slot kind s. When only the
// jobs its events named can have moved (their running counts; the
// shares and the job list are those of the last sort), it puts those
// again in place; otherwise it sorts again. The order is total (ties end
// on the job's unique index), so both give the order a sort at every
// offer gives.
func (p *pool) sorted(s SlotKind) []jobKey {
	js := &p.jobShares[s]
	if p.orderOK[s] && p.orderGen[s] == js.gen {
		return p.order[s]
	}
	o := p.order[s]
	if p.reading[s] > 1 { // the caller's outer read still holds the old slice
		o = slices.Clone(o)
	}
	if p.orderGen[s] != js.gen || p.unsorted[s] || !p.replace(s, &o) {
		o = o[:0]
		ordered := true
		for k, j := range p.jobs {
			r := ratio(float64(j.Running(s)), js.out[k])
			ordered = ordered && r == r
			o = append(o, jobKey{r: r, index: j.Index, k: int32(k)})
		}
		slices.SortFunc(o, compareJobKeys)
		// A NaN key orders nothing, so a list holding one cannot be
		// patched: the next change sorts it again.
		p.unsorted[s] = !ordered
	}
	p.reorder[s] = p.reorder[s][:0]
	p.order[s], p.orderOK[s], p.orderGen[s] = o, true, js.gen
	return o
}

// replace puts the jobs named since the last sort again in place in *o,
// the pool's order for slot kind s with their old keys; it reports false
// when it cannot (a job not found, a NaN key), and *o must then be sorted
// afresh.
func (p *pool) replace(s SlotKind, o *[]jobKey) bool {
	l := *o
	if len(l) != len(p.jobs) {
		return false
	}
	js := &p.jobShares[s]
	for _, j := range p.reorder[s] {
		k := p.position(j)
		if k < 0 {
			return false
		}
		nk := jobKey{r: ratio(float64(j.Running(s)), js.out[k]), index: j.Index, k: int32(k)}
		i := slices.IndexFunc(l, func(x jobKey) bool { return x.k == nk.k })
		if i < 0 || nk.r != nk.r {
			return false
		}
		if l[i] == nk {
			continue
		}
		l = slices.Delete(l, i, i+1)
		at, _ := slices.BinarySearchFunc(l, nk, compareJobKeys)
		l = slices.Insert(l, at, nk)
	}
	*o = l
	return true
}

// compareJobKeys orders a pool's jobs: the lower running/share first,
// ties by job index.
func compareJobKeys(a, b jobKey) int {
	switch {
	case a.r < b.r:
		return -1
	case a.r > b.r:
		return 1
	}
	return a.index - b.index
}
