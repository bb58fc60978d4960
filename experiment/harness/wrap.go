package harness

import (
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// Wrapper is what every policy wrapper of the experiments is: a policy
// that also observes jobs, tasks and idle offers, passing each on to the
// policy it wraps, so that a wrapped policy sees what it would unwrapped.
// A wrapper's package checks its wrappers against it
// (var _ = []Wrapper{...}).
type Wrapper interface {
	sched.Policy
	sched.JobObserver
	sched.TaskObserver
	sched.IdleOffers
}

var _ Wrapper = (*gate)(nil)

// PassThrough is what a policy wrapper passes on unchanged to the policy it
// wraps: its name, its idle offers and what it observes of jobs and tasks.
// A wrapper embeds it, writes its own Assign, and overrides only what it
// watches or changes (calling the embedded method first, so the inner
// policy sees every event as it would unwrapped).
type PassThrough struct {
	// Inner is the wrapped policy, which the wrapper's Assign asks.
	Inner   sched.Policy
	jobObs  sched.JobObserver
	taskObs sched.TaskObserver
}

// PassTo is the PassThrough of a wrapper around inner.
func PassTo(inner sched.Policy) PassThrough {
	p := PassThrough{Inner: inner}
	p.jobObs, _ = inner.(sched.JobObserver)
	p.taskObs, _ = inner.(sched.TaskObserver)
	return p
}

// Name is the inner policy's: a wrapped run is summarised under it.
func (p *PassThrough) Name() string { return p.Inner.Name() }

// WantsIdleOffers passes the inner policy's wish on.
func (p *PassThrough) WantsIdleOffers() bool { return sched.IdleOffersOf(p.Inner) != nil }

// OfferIdle forwards an idle offer to the inner policy.
func (p *PassThrough) OfferIdle(c sched.Cluster, o sched.Offer) {
	if i := sched.IdleOffersOf(p.Inner); i != nil {
		i.OfferIdle(c, o)
	}
}

// JobAdded forwards.
func (p *PassThrough) JobAdded(c sched.Cluster, j *sched.Job) {
	if p.jobObs != nil {
		p.jobObs.JobAdded(c, j)
	}
}

// JobRemoved forwards.
func (p *PassThrough) JobRemoved(c sched.Cluster, j *sched.Job) {
	if p.jobObs != nil {
		p.jobObs.JobRemoved(c, j)
	}
}

// TaskLaunched forwards.
func (p *PassThrough) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	if p.taskObs != nil {
		p.taskObs.TaskLaunched(c, j, k, n)
	}
}

// TaskEnded forwards.
func (p *PassThrough) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if p.taskObs != nil {
		p.taskObs.TaskEnded(c, j, k, n, killed)
	}
}

// ReducesEnabled forwards to an inner policy that keeps demand by job.
func (p *PassThrough) ReducesEnabled(c sched.Cluster, j *sched.Job) {
	if ob, ok := p.Inner.(sched.DemandObserver); ok {
		ob.ReducesEnabled(c, j)
	}
}

// MapOutputsLost forwards to an inner policy that observes lost outputs.
func (p *PassThrough) MapOutputsLost(c sched.Cluster, j *sched.Job, n cluster.NodeID, maps int) {
	if ob, ok := p.Inner.(sched.OutputLossObserver); ok {
		ob.MapOutputsLost(c, j, n, maps)
	}
}

// HoldRule names the inner policy's declines.
func (p *PassThrough) HoldRule(o sched.Offer, k sched.TaskKind) string {
	return sched.HoldRule(p.Inner, o, k)
}

// Consider has the inner policy report the jobs it considers.
func (p *PassThrough) Consider(f func(*sched.Job)) bool {
	c, ok := p.Inner.(sched.Considerer)
	return ok && c.Consider(f)
}

// WhyNot asks the inner policy.
func (p *PassThrough) WhyNot(c sched.Cluster, o sched.Offer, j *sched.Job) string {
	if e, ok := p.Inner.(sched.Explainer); ok {
		return e.WhyNot(c, o, j)
	}
	return ""
}

// MapRuns follows a wrapper's map attempts, node by node, from the
// policy's decision to the attempt's end, with what the wrapper noted of
// each (where it reads, when it started). TaskLaunched and TaskEnded name
// the job and node but not the map: a launch is matched to the decision
// just made on that node, and an end to the attempt whose map no longer
// runs.
type MapRuns[T any] struct {
	byNode [][]MapRun[T]
	last   MapRun[T]
	lastN  cluster.NodeID
	lastOK bool
}

// MapRun is one attempt: its job, its map (-1: one the policy did not
// choose, a backup) and the wrapper's note.
type MapRun[T any] struct {
	Job  *sched.Job
	Map  int
	Note T
}

// Decided notes the policy's choice of map m of job on node n; Forget (at
// the next offer or launch) drops a choice that was not launched.
func (r *MapRuns[T]) Decided(job *sched.Job, m int, n cluster.NodeID, note T) {
	r.last, r.lastN, r.lastOK = MapRun[T]{Job: job, Map: m, Note: note}, n, true
}

// Forget drops the last decision: it was not launched.
func (r *MapRuns[T]) Forget() { r.lastOK = false }

// Launched adds j's map attempt on n: the decided one if it is j's on n,
// else an unchosen one noted dflt. It returns the attempt, for the
// wrapper to note its start.
func (r *MapRuns[T]) Launched(c sched.Cluster, j *sched.Job, n cluster.NodeID, dflt T) *MapRun[T] {
	if r.byNode == nil {
		r.byNode = make([][]MapRun[T], c.Topology().NumNodes())
	}
	run := MapRun[T]{Job: j, Map: -1, Note: dflt}
	if r.lastOK && r.last.Job == j && r.lastN == n {
		run = r.last
	}
	r.lastOK = false
	r.byNode[n] = append(r.byNode[n], run)
	return &r.byNode[n][len(r.byNode[n])-1]
}

// Ended removes and returns the attempt of j on n that ended: the only
// one; the first when every one is alike (alike, when set, says two
// notes make no difference to the wrapper); else the first whose map no
// longer runs, counting an unchosen attempt as ended when unchosenEnded
// is set; else the first. ok is false when j has no attempt on n.
func (r *MapRuns[T]) Ended(c sched.Cluster, j *sched.Job, n cluster.NodeID, alike func(a, b T) bool, unchosenEnded bool) (run MapRun[T], ok bool) {
	if r.byNode == nil {
		return run, false
	}
	l := r.byNode[n]
	var mine []int
	for i := range l {
		if l[i].Job == j {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return run, false
	}
	at := mine[0]
	if len(mine) > 1 && (alike == nil || slices.ContainsFunc(mine, func(i int) bool { return !alike(l[i].Note, l[at].Note) })) {
		live := c.RunningTasks(j)
		for _, i := range mine {
			if l[i].Map < 0 && !unchosenEnded {
				continue
			}
			if !slices.ContainsFunc(live, func(t sched.TaskRef) bool {
				return t.Kind == sched.MapTask && t.Node == n && t.Index == l[i].Map
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
