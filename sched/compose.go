package sched

import (
	"github.com/mrsched/mrsched/cluster"
)

// Composed is a policy made of a fairness Order and a Placer, the shape in
// which the papers build their schedulers (delay scheduling on Fair,
// ShuffleWatcher on Fair or DRF, NAS on delay scheduling's order). It
// forwards job and task events to whichever parts observe them.
type Composed struct {
	name   string
	order  Order
	placer Placer
	// seen, when set, is told each job the order yields (Consider).
	seen func(*Job)
	// byPool, when set, is the placer reading a fair order pool by pool
	// (NAS): it then decides without being handed every job. Assign uses
	// it unless seen is set, since a pool it passes over whole is never
	// read and its jobs could not be reported as considered.
	byPool poolPlacer
	fair   *FairOrder
}

// poolPlacer is a placer that can read a fair order pool by pool. Its
// placePools must decide exactly as Place does on the order's Candidates.
type poolPlacer interface {
	placePools(c Cluster, o Offer, f *FairOrder) (Decision, bool)
}

var (
	_ Policy       = (*Composed)(nil)
	_ JobObserver  = (*Composed)(nil)
	_ TaskObserver = (*Composed)(nil)

	_ OutputLossObserver = (*Composed)(nil)
	_ DemandObserver     = (*Composed)(nil)
)

// Compose names a policy made of an order and a placer. When the order
// kills tasks (it implements Preempter and, if it says, has preemption
// enabled), the policy does too; otherwise it does not implement Preempter,
// so the engine never asks it.
func Compose(name string, o Order, p Placer) Policy {
	c := &Composed{name: name, order: o, placer: p}
	if f, ok := o.(*FairOrder); ok {
		if pp, ok := p.(poolPlacer); ok {
			c.byPool, c.fair = pp, f
		}
	}
	if pr, ok := o.(Preempter); ok {
		if en, ok := o.(interface{ PreemptionEnabled() bool }); !ok || en.PreemptionEnabled() {
			return &preemptive{Composed: c, p: pr}
		}
	}
	return c
}

// preemptive is a composed policy whose order kills tasks.
type preemptive struct {
	*Composed
	p Preempter
}

// Preempt asks the order for victims.
func (p *preemptive) Preempt(c Cluster) []TaskRef { return p.p.Preempt(c) }

// Name is the policy's registry name.
func (p *Composed) Name() string { return p.name }

// Assign asks the placer to choose among the order's candidates.
func (p *Composed) Assign(c Cluster, o Offer) (Decision, bool) {
	if p.byPool != nil && p.seen == nil {
		return p.byPool.placePools(c, o, p.fair)
	}
	seq := p.order.Candidates(c, o.Slot)
	if p.seen != nil {
		seq = p.considered(seq)
	}
	return p.placer.Place(c, o, seq)
}

// JobAdded forwards to the parts that observe jobs.
func (p *Composed) JobAdded(c Cluster, j *Job) {
	for _, part := range p.parts() {
		if ob, ok := part.(JobObserver); ok {
			ob.JobAdded(c, j)
		}
	}
}

// JobRemoved forwards to the parts that observe jobs.
func (p *Composed) JobRemoved(c Cluster, j *Job) {
	for _, part := range p.parts() {
		if ob, ok := part.(JobObserver); ok {
			ob.JobRemoved(c, j)
		}
	}
}

// TaskLaunched forwards to the parts that observe tasks.
func (p *Composed) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	for _, part := range p.parts() {
		if ob, ok := part.(TaskObserver); ok {
			ob.TaskLaunched(c, j, k, n)
		}
	}
}

// TaskEnded forwards to the parts that observe tasks.
func (p *Composed) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	for _, part := range p.parts() {
		if ob, ok := part.(TaskObserver); ok {
			ob.TaskEnded(c, j, k, n, killed)
		}
	}
}

// ReducesEnabled forwards to the parts that observe demand.
func (p *Composed) ReducesEnabled(c Cluster, j *Job) {
	for _, part := range p.parts() {
		if ob, ok := part.(DemandObserver); ok {
			ob.ReducesEnabled(c, j)
		}
	}
}

// MapOutputsLost forwards to the parts that observe lost map outputs.
func (p *Composed) MapOutputsLost(c Cluster, j *Job, n cluster.NodeID, maps int) {
	for _, part := range p.parts() {
		if ob, ok := part.(OutputLossObserver); ok {
			ob.MapOutputsLost(c, j, n, maps)
		}
	}
}

func (p *Composed) parts() [2]any { return [2]any{p.order, p.placer} }

// WantsIdleOffers is true when the order or the placer wants idle offers.
func (p *Composed) WantsIdleOffers() bool {
	return IdleOffersOf(p.order) != nil || IdleOffersOf(p.placer) != nil
}

// OfferIdle forwards to the parts that want idle offers.
func (p *Composed) OfferIdle(c Cluster, o Offer) {
	for _, part := range p.parts() {
		if i := IdleOffersOf(part); i != nil {
			i.OfferIdle(c, o)
		}
	}
}
