package experiment

import (
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// wrapper is what every policy wrapper of the experiments is: a policy
// that also observes jobs, tasks and idle offers, passing each on to the
// policy it wraps, so that a wrapped policy sees what it would unwrapped.
type wrapper interface {
	sched.Policy
	sched.JobObserver
	sched.TaskObserver
	sched.IdleOffers
}

// The experiments' wrappers; the compiler checks each is a full wrapper.
var _ = []wrapper{(*mapTimer)(nil), (*gate)(nil), (*swProbe)(nil), (*hotWatch)(nil), (*tdProbe)(nil), (*heartbeatOnly)(nil)}

// passThrough is what a policy wrapper passes on unchanged to the policy it
// wraps: its name, its idle offers and what it observes of jobs and tasks.
// A wrapper embeds it, writes its own Assign, and overrides only what it
// watches or changes (calling the embedded method first, so the inner
// policy sees every event as it would unwrapped).
type passThrough struct {
	inner   sched.Policy
	jobObs  sched.JobObserver
	taskObs sched.TaskObserver
}

func passTo(inner sched.Policy) passThrough {
	p := passThrough{inner: inner}
	p.jobObs, _ = inner.(sched.JobObserver)
	p.taskObs, _ = inner.(sched.TaskObserver)
	return p
}

func (p *passThrough) Name() string { return p.inner.Name() }

// WantsIdleOffers passes the inner policy's wish on.
func (p *passThrough) WantsIdleOffers() bool { return sched.IdleOffersOf(p.inner) != nil }

// OfferIdle forwards an idle offer to the inner policy.
func (p *passThrough) OfferIdle(c sched.Cluster, o sched.Offer) {
	if i := sched.IdleOffersOf(p.inner); i != nil {
		i.OfferIdle(c, o)
	}
}

func (p *passThrough) JobAdded(c sched.Cluster, j *sched.Job) {
	if p.jobObs != nil {
		p.jobObs.JobAdded(c, j)
	}
}

func (p *passThrough) JobRemoved(c sched.Cluster, j *sched.Job) {
	if p.jobObs != nil {
		p.jobObs.JobRemoved(c, j)
	}
}

func (p *passThrough) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	if p.taskObs != nil {
		p.taskObs.TaskLaunched(c, j, k, n)
	}
}

func (p *passThrough) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if p.taskObs != nil {
		p.taskObs.TaskEnded(c, j, k, n, killed)
	}
}

// ReducesEnabled forwards to an inner policy that keeps demand by job.
func (p *passThrough) ReducesEnabled(c sched.Cluster, j *sched.Job) {
	if ob, ok := p.inner.(sched.DemandObserver); ok {
		ob.ReducesEnabled(c, j)
	}
}

// MapOutputsLost forwards to an inner policy that observes lost outputs.
func (p *passThrough) MapOutputsLost(c sched.Cluster, j *sched.Job, n cluster.NodeID, maps int) {
	if ob, ok := p.inner.(sched.OutputLossObserver); ok {
		ob.MapOutputsLost(c, j, n, maps)
	}
}

// HoldRule names the inner policy's declines.
func (p *passThrough) HoldRule(o sched.Offer, k sched.TaskKind) string {
	return sched.HoldRule(p.inner, o, k)
}

// Consider has the inner policy report the jobs it considers.
func (p *passThrough) Consider(f func(*sched.Job)) bool {
	c, ok := p.inner.(sched.Considerer)
	return ok && c.Consider(f)
}

// WhyNot asks the inner policy.
func (p *passThrough) WhyNot(c sched.Cluster, o sched.Offer, j *sched.Job) string {
	if e, ok := p.inner.(sched.Explainer); ok {
		return e.WhyNot(c, o, j)
	}
	return ""
}

// mapRuns follows a wrapper's map attempts, node by node, from the
// policy's decision to the attempt's end, with what the wrapper noted of
// each (where it reads, when it started). TaskLaunched and TaskEnded name
// the job and node but not the map: a launch is matched to the decision
// just made on that node, and an end to the attempt whose map no longer
// runs.
type mapRuns[T any] struct {
	byNode [][]mapRun[T]
	last   mapRun[T]
	lastN  cluster.NodeID
	lastOK bool
}

// mapRun is one attempt: its job, its map (-1: one the policy did not
// choose, a backup) and the wrapper's note.
type mapRun[T any] struct {
	job  *sched.Job
	m    int
	note T
}

// decided notes the policy's choice of map m of job on node n; forget (at
// the next offer or launch) drops a choice that was not launched.
func (r *mapRuns[T]) decided(job *sched.Job, m int, n cluster.NodeID, note T) {
	r.last, r.lastN, r.lastOK = mapRun[T]{job: job, m: m, note: note}, n, true
}

func (r *mapRuns[T]) forget() { r.lastOK = false }

// launched adds j's map attempt on n: the decided one if it is j's on n,
// else an unchosen one noted dflt. It returns the attempt, for the
// wrapper to note its start.
func (r *mapRuns[T]) launched(c sched.Cluster, j *sched.Job, n cluster.NodeID, dflt T) *mapRun[T] {
	if r.byNode == nil {
		r.byNode = make([][]mapRun[T], c.Topology().NumNodes())
	}
	run := mapRun[T]{job: j, m: -1, note: dflt}
	if r.lastOK && r.last.job == j && r.lastN == n {
		run = r.last
	}
	r.lastOK = false
	r.byNode[n] = append(r.byNode[n], run)
	return &r.byNode[n][len(r.byNode[n])-1]
}

// ended removes and returns the attempt of j on n that ended: the only
// one; the first when every one is alike (alike, when set, says two
// notes make no difference to the wrapper); else the first whose map no
// longer runs, counting an unchosen attempt as ended when unchosenEnded
// is set; else the first. ok is false when j has no attempt on n.
func (r *mapRuns[T]) ended(c sched.Cluster, j *sched.Job, n cluster.NodeID, alike func(a, b T) bool, unchosenEnded bool) (run mapRun[T], ok bool) {
	if r.byNode == nil {
		return run, false
	}
	l := r.byNode[n]
	var mine []int
	for i := range l {
		if l[i].job == j {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return run, false
	}
	at := mine[0]
	if len(mine) > 1 && (alike == nil || slices.ContainsFunc(mine, func(i int) bool { return !alike(l[i].note, l[at].note) })) {
		live := c.RunningTasks(j)
		for _, i := range mine {
			if l[i].m < 0 && !unchosenEnded {
				continue
			}
			if !slices.ContainsFunc(live, func(t sched.TaskRef) bool {
				return t.Kind == sched.MapTask && t.Node == n && t.Index == l[i].m
			}) {
				at = i
				break
			}
		}
	}
	run = l[at]
	r.byNode[n] = slices.Delete(l, at, at+1)
	return run, true
}
