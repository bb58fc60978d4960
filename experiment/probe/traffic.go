package probe

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
)

// JobTraffic is one job's network bytes by cause (node-local reads are not
// counted), attributed from where its tasks ran: shuffle from the nodes of
// its finished maps and reduces (each map's output is split evenly over the
// reduces, as the engine splits it), remote map reads from its map
// locality (a rack-local read crosses no uplink, an off-rack one does),
// reduce output from the HDFS pipeline (writer, an off-rack second replica,
// a third beside the second: two network hops, one across racks).
type JobTraffic struct {
	ShuffleProduced                float64 // map output, wherever it is fetched from
	ShuffleTotal, ShuffleCross     float64
	RemoteMapTotal, RemoteMapCross float64
	OutputTotal, OutputCross       float64
}

// CrossNoOutput is the bytes that crossed racks, reduce output left out
// (the ShuffleWatcher paper's measure).
func (t JobTraffic) CrossNoOutput() float64 { return t.ShuffleCross + t.RemoteMapCross }

// CrossAll is the bytes that crossed racks, reduce output included.
func (t JobTraffic) CrossAll() float64 { return t.ShuffleCross + t.RemoteMapCross + t.OutputCross }

// Add adds u's bytes to t's, cause by cause.
func (t *JobTraffic) Add(u JobTraffic) {
	t.ShuffleProduced += u.ShuffleProduced
	t.ShuffleTotal += u.ShuffleTotal
	t.ShuffleCross += u.ShuffleCross
	t.RemoteMapTotal += u.RemoteMapTotal
	t.RemoteMapCross += u.RemoteMapCross
	t.OutputTotal += u.OutputTotal
	t.OutputCross += u.OutputCross
}

// attribute computes a finished job's shuffle and output bytes; remote map
// bytes come from the job's locality record after the run.
func (t *Traffic) attribute(j *sched.Job) {
	maps, reds := t.mapsOn[j.Index], t.redsOn[j.Index]
	var out float64
	for _, b := range j.MapOutputByRack {
		out += b
	}
	var m, r float64
	racks := t.topo.NumRacks()
	mRack, rRack := make([]float64, racks), make([]float64, racks)
	var sameNode float64
	for n := range maps {
		rk := t.topo.Rack(cluster.NodeID(n))
		m += float64(maps[n])
		r += float64(reds[n])
		mRack[rk] += float64(maps[n])
		rRack[rk] += float64(reds[n])
		sameNode += float64(maps[n]) * float64(reds[n])
	}
	tr := &t.ByJob[j.Index]
	if m > 0 && r > 0 {
		var sameRack float64
		for k := range mRack {
			sameRack += mRack[k] * rRack[k]
		}
		tr.ShuffleProduced = out
		tr.ShuffleTotal = out * (1 - sameNode/(m*r))
		tr.ShuffleCross = out * (1 - sameRack/(m*r))
	}
	if t.topo.NumRacks() > 1 {
		tr.OutputTotal = 2 * float64(j.Spec.OutputBytes)
		tr.OutputCross = float64(j.Spec.OutputBytes)
	}
}

// RemoteMaps fills each job's remote map bytes from its map locality in
// the run's records (block: the cluster's block size): a rack-local read
// crosses no uplink, an off-rack one does.
func (t *Traffic) RemoteMaps(jobs []metrics.JobRecord) {
	block := float64(t.topo.Config().BlockBytes())
	for i := range jobs {
		jr := &jobs[i]
		if jr.Maps == 0 {
			continue
		}
		per := math.Min(block, float64(jr.InputBytes)/float64(jr.Maps))
		rack, off := float64(jr.Locality[cluster.RackLocal]), float64(jr.Locality[cluster.OffRack])
		t.ByJob[i].RemoteMapTotal = (rack + off) * per
		t.ByJob[i].RemoteMapCross = off * per
	}
}

// Traffic wraps a policy to watch one run for each job's traffic (where
// its tasks finish: attribute), and for what the ShuffleWatcher paper's
// Fig. 9 and the placement counts of shufflewatcher/placement need. It only reads: it forwards every
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
type Traffic struct {
	harness.PassThrough
	mapsOn map[int][]int32 // job index -> finished maps per node
	redsOn map[int][]int32 // job index -> finished reduces per node
	// ByJob is each job's traffic, by job index.
	ByJob []JobTraffic

	sw           *sched.ShuffleWatcher // nil for policies that are not ShuffleWatcher
	topo         *cluster.Topology
	winLo, winHi float64 // decisions are counted in [winLo, winHi)

	userRun  map[string]int32 // running tasks per user (pool)
	userJobs map[string][]int // active jobs per user, by index
	// Jobs is each job's record, by job index.
	Jobs []JobWatch

	// Decisions in the window: all of them, those made on a rack NetSat
	// flagged (ShuffleWatcher only), map decisions, and, at each map
	// decision, how many of the chosen user's jobs had a map pending.
	Decisions, Saturated int
	MapDecisions         int
	SoleJob              int   // map decisions whose user had one such job
	PendingJobs          int64 // summed over map decisions
}

// JobWatch is one job's record.
type JobWatch struct {
	pool string
	run  [2]int32      // running maps, reduces
	line []swConcPoint // while active: changes of run and of the user's running tasks

	// Conc[kind][third] is Fig. 9's concurrency; ConcOK[third] is false
	// when the user ran nothing during that third.
	Conc   [2][3]float64
	ConcOK [3]bool

	// ShuffleWatcher's choices: the size of PreferredMapRacks; maps
	// launched, and those on a preferred rack; reduces launched, and those
	// on a rack for which SARP wanted more (lines 8 and 13 of Fig. 3).
	PrefRacks            int
	Maps, MapsOnPref     int
	Reduces, RedsOnWants int
}

type swConcPoint struct {
	t       float64
	m, r, u int32
}

// NewTraffic watches p's run of jobs jobs on topo, counting the decisions
// made in [winLo, winHi).
func NewTraffic(p sched.Policy, topo *cluster.Topology, jobs int, winLo, winHi float64) *Traffic {
	sw, _ := sched.ShuffleWatcherOf(p)
	return &Traffic{PassThrough: harness.PassTo(p), mapsOn: map[int][]int32{}, redsOn: map[int][]int32{}, ByJob: make([]JobTraffic, jobs),
		sw: sw, topo: topo, winLo: winLo, winHi: winHi, userRun: map[string]int32{}, userJobs: map[string][]int{}, Jobs: make([]JobWatch, jobs)}
}

// Assign asks the inner policy and counts its decision.
func (p *Traffic) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	d, ok := p.Inner.Assign(c, o)
	if ok {
		p.decided(c, o, d)
	}
	return d, ok
}

// JobAdded forwards and opens the job's record.
func (p *Traffic) JobAdded(c sched.Cluster, j *sched.Job) {
	n := p.topo.NumNodes()
	p.mapsOn[j.Index], p.redsOn[j.Index] = make([]int32, n), make([]int32, n)
	p.PassThrough.JobAdded(c, j)
	p.jobAdded(c, j)
}

// JobRemoved attributes the job's traffic, closes its record and
// forwards.
func (p *Traffic) JobRemoved(c sched.Cluster, j *sched.Job) {
	p.attribute(j)
	p.jobRemoved(c, j)
	delete(p.mapsOn, j.Index)
	delete(p.redsOn, j.Index)
	p.PassThrough.JobRemoved(c, j)
}

// TaskLaunched counts the launch and forwards.
func (p *Traffic) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	p.launched(c, j, k, n) // before the policy counts the launch
	p.PassThrough.TaskLaunched(c, j, k, n)
}

// TaskEnded counts the end, and a finished task's node, and forwards.
func (p *Traffic) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
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

func (p *Traffic) inWindow(t float64) bool { return t >= p.winLo && t < p.winHi }

// decided counts a decision the policy made.
func (p *Traffic) decided(c sched.Cluster, o sched.Offer, d sched.Decision) {
	if !p.inWindow(c.Now()) {
		return
	}
	p.Decisions++
	if p.sw != nil && p.sw.NetworkSaturated(c, p.topo.Rack(o.Node)) {
		p.Saturated++
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
	p.MapDecisions++
	p.PendingJobs += int64(n)
	if n == 1 {
		p.SoleJob++
	}
}

// jobAdded is called after the policy saw the job (SAMP has run).
func (p *Traffic) jobAdded(c sched.Cluster, j *sched.Job) {
	pj := &p.Jobs[j.Index]
	pj.pool = j.Pool
	p.userJobs[j.Pool] = append(p.userJobs[j.Pool], j.Index)
	pj.line = append(pj.line, swConcPoint{t: c.Now(), u: p.userRun[j.Pool]})
	if p.sw != nil {
		for r := range p.topo.NumRacks() {
			if p.sw.PrefersMapRack(j, cluster.RackID(r)) {
				pj.PrefRacks++
			}
		}
	}
}

// launched is called before the policy counts the launch, so SARPWants
// still reads the counts the decision was made on.
func (p *Traffic) launched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	pj := &p.Jobs[j.Index]
	if p.sw != nil {
		r := p.topo.Rack(n)
		if k == sched.MapTask {
			pj.Maps++
			if p.sw.PrefersMapRack(j, r) {
				pj.MapsOnPref++
			}
		} else {
			pj.Reduces++
			if p.sw.SARPWants(j, r) {
				pj.RedsOnWants++
			}
		}
	}
	p.change(c.Now(), j, k, 1)
}

// ended is a finished or killed task.
func (p *Traffic) ended(c sched.Cluster, j *sched.Job, k sched.TaskKind) {
	p.change(c.Now(), j, k, -1)
}

func (p *Traffic) change(now float64, j *sched.Job, k sched.TaskKind, delta int32) {
	p.Jobs[j.Index].run[k] += delta
	p.userRun[j.Pool] += delta
	u := p.userRun[j.Pool]
	for _, i := range p.userJobs[j.Pool] {
		q := &p.Jobs[i]
		pt := swConcPoint{t: now, m: q.run[sched.MapTask], r: q.run[sched.ReduceTask], u: u}
		if l := len(q.line); l > 0 && q.line[l-1].t == now {
			q.line[l-1] = pt
		} else {
			q.line = append(q.line, pt)
		}
	}
}

// jobRemoved closes the job's timeline into its Fig. 9 thirds.
func (p *Traffic) jobRemoved(c sched.Cluster, j *sched.Job) {
	pj := &p.Jobs[j.Index]
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
				pj.ConcOK[k] = true
				pj.Conc[sched.MapTask][k] = acc[sched.MapTask][k] / w[k]
				pj.Conc[sched.ReduceTask][k] = acc[sched.ReduceTask][k] / w[k]
			}
		}
	}
	pj.line = nil
}
