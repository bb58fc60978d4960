package experiment

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

// swProbe wraps a policy to watch one run for each job's traffic (where
// its tasks finish: attribute), and for what Fig. 9 and the placement
// counts of shufflewatcher/placement need. It only reads: it forwards every
// call unchanged, and nothing it computes reaches a decision.
//
// Fig. 9's intra-job concurrency (section 5.2: "the fraction of the
// allocated per-user slots (resources) occupied by a job's Map and Reduce
// tasks during first, middle and last thirds of the job's work
// completion") is measured as: at every instant of the job's life at which
// its user runs any task, the job's running maps (reduces) over all the
// user's running tasks, maps and reduces (the slots the user holds, which
// under full load are its allocation); averaged over time within each
// third of the job's life, submission to finish (the paper's "job
// progress" axis; it does not define progress, and time thirds need no
// estimate of a task's partial work). Map and reduce fractions of a third
// add up to at most 1.
type swProbe struct {
	harness.PassThrough
	mapsOn  map[int][]int32 // job index -> finished maps per node
	redsOn  map[int][]int32 // job index -> finished reduces per node
	traffic []swJobTraffic  // by job index

	sw           *sched.ShuffleWatcher // nil for policies that are not ShuffleWatcher
	topo         *cluster.Topology
	winLo, winHi float64 // decisions are counted in [winLo, winHi)

	userRun  map[string]int32 // running tasks per user (pool)
	userJobs map[string][]int // active jobs per user, by index
	jobs     []swProbeJob     // by job index

	// Decisions in the window: all of them, those made on a rack NetSat
	// flagged (ShuffleWatcher only), map decisions, and, at each map
	// decision, how many of the chosen user's jobs had a map pending.
	decisions, saturated int
	mapDecisions         int
	soleJob              int   // map decisions whose user had one such job
	pendingJobs          int64 // summed over map decisions
}

// swProbeJob is one job's record.
type swProbeJob struct {
	pool string
	run  [2]int32      // running maps, reduces
	line []swConcPoint // while active: changes of run and of the user's running tasks

	// conc[kind][third] is Fig. 9's concurrency; concOK[third] is false
	// when the user ran nothing during that third.
	conc   [2][3]float64
	concOK [3]bool

	// ShuffleWatcher's choices: the size of PreferredMapRacks; maps
	// launched, and those on a preferred rack; reduces launched, and those
	// on a rack for which SARP wanted more (lines 8 and 13 of Fig. 3).
	prefRacks            int
	maps, mapsOnPref     int
	reduces, redsOnWants int
}

type swConcPoint struct {
	t       float64
	m, r, u int32
}

func newSWProbe(p sched.Policy, topo *cluster.Topology, jobs int) *swProbe {
	sw, _ := sched.ShuffleWatcherOf(p)
	return &swProbe{PassThrough: harness.PassTo(p), mapsOn: map[int][]int32{}, redsOn: map[int][]int32{}, traffic: make([]swJobTraffic, jobs),
		sw: sw, topo: topo, winHi: -1, userRun: map[string]int32{}, userJobs: map[string][]int{}, jobs: make([]swProbeJob, jobs)}
}

func (p *swProbe) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	d, ok := p.Inner.Assign(c, o)
	if ok {
		p.decided(c, o, d)
	}
	return d, ok
}

func (p *swProbe) JobAdded(c sched.Cluster, j *sched.Job) {
	n := p.topo.NumNodes()
	p.mapsOn[j.Index], p.redsOn[j.Index] = make([]int32, n), make([]int32, n)
	p.PassThrough.JobAdded(c, j)
	p.jobAdded(c, j)
}

func (p *swProbe) JobRemoved(c sched.Cluster, j *sched.Job) {
	p.attribute(j)
	p.jobRemoved(c, j)
	delete(p.mapsOn, j.Index)
	delete(p.redsOn, j.Index)
	p.PassThrough.JobRemoved(c, j)
}

func (p *swProbe) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	p.launched(c, j, k, n) // before the policy counts the launch
	p.PassThrough.TaskLaunched(c, j, k, n)
}

func (p *swProbe) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	p.ended(c, j, k)
	if !killed {
		if k == sched.MapTask {
			p.mapsOn[j.Index][n]++
		} else {
			p.redsOn[j.Index][n]++
		}
	}
	p.PassThrough.TaskEnded(c, j, k, n, killed)
}

func (p *swProbe) inWindow(t float64) bool { return t >= p.winLo && t < p.winHi }

// decided counts a decision the policy made.
func (p *swProbe) decided(c sched.Cluster, o sched.Offer, d sched.Decision) {
	if !p.inWindow(c.Now()) {
		return
	}
	p.decisions++
	if p.sw != nil && p.sw.NetworkSaturated(c, p.topo.Rack(o.Node)) {
		p.saturated++
	}
	if d.Kind != sched.MapTask {
		return
	}
	n := 0
	for _, j := range c.Jobs() {
		if j.Pool == d.Job.Pool && j.PendingMaps() > 0 {
			n++
		}
	}
	p.mapDecisions++
	p.pendingJobs += int64(n)
	if n == 1 {
		p.soleJob++
	}
}

// jobAdded is called after the policy saw the job (SAMP has run).
func (p *swProbe) jobAdded(c sched.Cluster, j *sched.Job) {
	pj := &p.jobs[j.Index]
	pj.pool = j.Pool
	p.userJobs[j.Pool] = append(p.userJobs[j.Pool], j.Index)
	pj.line = append(pj.line, swConcPoint{t: c.Now(), u: p.userRun[j.Pool]})
	if p.sw != nil {
		for r := range p.topo.NumRacks() {
			if p.sw.PrefersMapRack(j, cluster.RackID(r)) {
				pj.prefRacks++
			}
		}
	}
}

// launched is called before the policy counts the launch, so SARPWants
// still reads the counts the decision was made on.
func (p *swProbe) launched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	pj := &p.jobs[j.Index]
	if p.sw != nil {
		r := p.topo.Rack(n)
		if k == sched.MapTask {
			pj.maps++
			if p.sw.PrefersMapRack(j, r) {
				pj.mapsOnPref++
			}
		} else {
			pj.reduces++
			if p.sw.SARPWants(j, r) {
				pj.redsOnWants++
			}
		}
	}
	p.change(c.Now(), j, k, 1)
}

// ended is a finished or killed task.
func (p *swProbe) ended(c sched.Cluster, j *sched.Job, k sched.TaskKind) {
	p.change(c.Now(), j, k, -1)
}

func (p *swProbe) change(now float64, j *sched.Job, k sched.TaskKind, delta int32) {
	p.jobs[j.Index].run[k] += delta
	p.userRun[j.Pool] += delta
	u := p.userRun[j.Pool]
	for _, i := range p.userJobs[j.Pool] {
		q := &p.jobs[i]
		pt := swConcPoint{t: now, m: q.run[sched.MapTask], r: q.run[sched.ReduceTask], u: u}
		if l := len(q.line); l > 0 && q.line[l-1].t == now {
			q.line[l-1] = pt
		} else {
			q.line = append(q.line, pt)
		}
	}
}

// jobRemoved closes the job's timeline into its Fig. 9 thirds.
func (p *swProbe) jobRemoved(c sched.Cluster, j *sched.Job) {
	pj := &p.jobs[j.Index]
	js := p.userJobs[j.Pool]
	for k, i := range js {
		if i == j.Index {
			p.userJobs[j.Pool] = append(js[:k], js[k+1:]...)
			break
		}
	}
	start, end := j.Submit, c.Now()
	if end > start {
		var acc [2][3]float64
		var w [3]float64
		third := (end - start) / 3
		for i, pt := range pj.line {
			next := end
			if i+1 < len(pj.line) {
				next = pj.line[i+1].t
			}
			if pt.u <= 0 || next <= pt.t {
				continue
			}
			for k := range 3 {
				lo, hi := start+float64(k)*third, start+float64(k+1)*third
				if k == 2 {
					hi = end
				}
				ov := min(next, hi) - max(pt.t, lo)
				if ov <= 0 {
					continue
				}
				w[k] += ov
				acc[sched.MapTask][k] += float64(pt.m) / float64(pt.u) * ov
				acc[sched.ReduceTask][k] += float64(pt.r) / float64(pt.u) * ov
			}
		}
		for k := range 3 {
			if w[k] > 0 {
				pj.concOK[k] = true
				pj.conc[sched.MapTask][k] = acc[sched.MapTask][k] / w[k]
				pj.conc[sched.ReduceTask][k] = acc[sched.ReduceTask][k] / w[k]
			}
		}
	}
	pj.line = nil
}
