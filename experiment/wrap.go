package experiment

import (
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
var _ = []wrapper{(*mapTimer)(nil), (*gate)(nil), (*swTrafficTap)(nil), (*hotWatch)(nil), (*tdProbe)(nil), (*heartbeatOnly)(nil)}

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
