package sched

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// DefaultNASLoadPeriodS is how often NASMeter samples the nodes' shuffle
// load: TrafficThreshold's refresh period (threshold_period_s, 3 s).
const DefaultNASLoadPeriodS = DefaultNASThresholdPeriodS

// NASLoadStats is the share of nodes whose map output exceeds
// TrafficThreshold, sampled over a run (NAS paper, section IV, Fig. 3(e):
// "the percentage of nodes that have map output data size higher than
// TrafficThreshold (i.e., congested nodes)"). The paper draws it for every
// scheduler, so it is measured from outside the policy by NASMeter, with
// NAS's own predictor and equation 3, whatever the policy placing the tasks.
//
// A node's map output is the output of the maps running on it (the shuffle
// space MTS guards, Algorithm 2 line 1). It is counted two ways: as MTS
// sees it (each map's output and S_i from the predictor of section III-A,
// ratio 1.0 until a job's first map finishes), and as it is (each map's
// output the job's true shuffle over its maps, S_i the job's true shuffle).
// The first shows whether MTS keeps its own bound; the second whether that
// bound holds for the bytes that really move.
type NASLoadStats struct {
	// PeriodS is the sampling period, seconds.
	PeriodS float64
	// Samples counts the samples taken while at least one job was in the
	// cluster; the shares are over those samples.
	Samples int
	// Nodes is the number of nodes in the cluster.
	Nodes int
	// MeanShare and MaxShare are the mean and largest share of nodes over
	// TrafficThreshold as the predictor sees it.
	MeanShare, MaxShare float64
	// MeanShareTrue and MaxShareTrue are the same with true outputs.
	MeanShareTrue, MaxShareTrue float64
}

// NASLoadReporter is implemented by a policy that measures NASLoadStats
// (one wrapped by WithNASMeter).
type NASLoadReporter interface {
	NASLoad() NASLoadStats
}

// NASMeter samples NASLoadStats. It observes jobs and tasks as a policy
// does and places nothing; its predictor is a NAS placer's (default
// parameters), fed the same events. A sample is taken at every multiple of
// the period; the state between two events does not change, so each event
// first takes the samples due since the previous one, and the samples are
// exact without a clock of their own.
type NASMeter struct {
	nas    *NAS
	period float64
	next   float64 // time of the next sample
	active int     // jobs added and not removed
	sum    NASLoadStats
	// sumShare, sumTrue accumulate the shares for the means.
	sumShare, sumTrue float64
}

var (
	_ JobObserver  = (*NASMeter)(nil)
	_ TaskObserver = (*NASMeter)(nil)
)

// NewNASMeter returns a meter sampling every periodS seconds (> 0; 0 takes
// DefaultNASLoadPeriodS).
func NewNASMeter(periodS float64) *NASMeter {
	if !(periodS > 0) {
		periodS = DefaultNASLoadPeriodS
	}
	n, _ := NewNAS(NASParams{}, NASOptions{}) // default parameters always validate
	return &NASMeter{nas: n, period: periodS}
}

// NASLoad returns the statistics so far.
func (m *NASMeter) NASLoad() NASLoadStats {
	s := m.sum
	s.PeriodS = m.period
	if s.Samples > 0 {
		s.MeanShare = m.sumShare / float64(s.Samples)
		s.MeanShareTrue = m.sumTrue / float64(s.Samples)
	}
	return s
}

// catchUp takes the samples due up to now with the state left by the
// previous event.
func (m *NASMeter) catchUp(c Cluster) {
	m.nas.init(c)
	now := c.Now()
	if m.active == 0 {
		// Nothing to sample while the cluster is empty; resume on the
		// period's grid.
		if m.next <= now {
			m.next = math.Ceil(now/m.period) * m.period
		}
		return
	}
	if m.next > now {
		return
	}
	pred, actual := m.shares(c)
	for ; m.next <= now; m.next += m.period {
		m.sum.Samples++
		m.sumShare += pred
		m.sumTrue += actual
		m.sum.MaxShare = math.Max(m.sum.MaxShare, pred)
		m.sum.MaxShareTrue = math.Max(m.sum.MaxShareTrue, actual)
	}
}

// shares is the share of nodes over TrafficThreshold, predicted and true.
func (m *NASMeter) shares(c Cluster) (pred, actual float64) {
	p := m.nas
	slots := mapSlotsPerNode(p.topo)
	// Equation 3 with true shuffle sizes, over the same jobs as the
	// predictor's (in the cluster and seen by the meter).
	var s, k float64
	for _, j := range c.Jobs() {
		if j.Index >= len(p.jobs) || !p.jobs[j.Index].active || j.Spec == nil {
			continue
		}
		s += float64(j.Spec.ShuffleBytes)
		k += float64(j.NumMaps)
	}
	ttTrue := 0.0
	if k > 0 {
		ttTrue = slots * s / k
	}
	tt := p.TrafficThreshold(c)
	nodes := len(p.running)
	m.sum.Nodes = nodes
	var over, overTrue int
	for _, l := range p.running {
		var o, ot float64
		for _, x := range l {
			o += p.jobs[x].out
			ot += p.jobs[x].trueOut
		}
		if o > tt {
			over++
		}
		if ot > ttTrue {
			overTrue++
		}
	}
	if nodes == 0 {
		return 0, 0
	}
	return float64(over) / float64(nodes), float64(overTrue) / float64(nodes)
}

// JobAdded samples, then starts the job's state.
func (m *NASMeter) JobAdded(c Cluster, j *Job) {
	m.catchUp(c)
	m.active++
	m.nas.JobAdded(c, j)
	s := m.nas.state(j)
	if j.Spec != nil && j.NumMaps > 0 {
		s.trueOut = float64(j.Spec.ShuffleBytes) / float64(j.NumMaps)
	}
}

// JobRemoved samples, then drops the job.
func (m *NASMeter) JobRemoved(c Cluster, j *Job) {
	m.catchUp(c)
	m.active--
	m.nas.JobRemoved(c, j)
}

// TaskLaunched samples, then counts the task.
func (m *NASMeter) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	m.catchUp(c)
	m.nas.TaskLaunched(c, j, k, n)
}

// TaskEnded samples, then releases the task and updates the prediction.
func (m *NASMeter) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	m.catchUp(c)
	m.nas.TaskEnded(c, j, k, n, killed)
}

// WithNASMeter returns p observed by a NASMeter sampling every periodS
// seconds (0: DefaultNASLoadPeriodS): the returned policy behaves as p (it
// forwards every call, and preempts if p does) and implements
// NASLoadReporter. The meter sees each event before p does.
func WithNASMeter(p Policy, periodS float64) Policy {
	m := &metered{inner: p, meter: NewNASMeter(periodS)}
	m.jobObs, _ = p.(JobObserver)
	m.taskObs, _ = p.(TaskObserver)
	if pr, ok := p.(Preempter); ok {
		return &meteredPreempter{metered: m, p: pr}
	}
	return m
}

// metered is a policy with a NASMeter beside it.
type metered struct {
	inner   Policy
	meter   *NASMeter
	jobObs  JobObserver
	taskObs TaskObserver
}

type meteredPreempter struct {
	*metered
	p Preempter
}

var (
	_ NASLoadReporter = (*metered)(nil)
	_ JobObserver     = (*metered)(nil)
	_ TaskObserver    = (*metered)(nil)
	_ Preempter       = (*meteredPreempter)(nil)
)

// Name is the wrapped policy's.
func (m *metered) Name() string { return m.inner.Name() }

// Assign asks the wrapped policy.
func (m *metered) Assign(c Cluster, o Offer) (Decision, bool) { return m.inner.Assign(c, o) }

// NASLoad is the meter's statistics.
func (m *metered) NASLoad() NASLoadStats { return m.meter.NASLoad() }

// WantsIdleOffers forwards the wrapped policy's wish.
func (m *metered) WantsIdleOffers() bool { return IdleOffersOf(m.inner) != nil }

// OfferIdle forwards to the wrapped policy.
func (m *metered) OfferIdle(c Cluster, o Offer) {
	if i := IdleOffersOf(m.inner); i != nil {
		i.OfferIdle(c, o)
	}
}

// JobAdded shows the job to the meter, then to the policy.
func (m *metered) JobAdded(c Cluster, j *Job) {
	m.meter.JobAdded(c, j)
	if m.jobObs != nil {
		m.jobObs.JobAdded(c, j)
	}
}

// JobRemoved shows the removal to the meter, then to the policy.
func (m *metered) JobRemoved(c Cluster, j *Job) {
	m.meter.JobRemoved(c, j)
	if m.jobObs != nil {
		m.jobObs.JobRemoved(c, j)
	}
}

// TaskLaunched shows the launch to the meter, then to the policy.
func (m *metered) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	m.meter.TaskLaunched(c, j, k, n)
	if m.taskObs != nil {
		m.taskObs.TaskLaunched(c, j, k, n)
	}
}

// TaskEnded shows the end to the meter, then to the policy.
func (m *metered) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	m.meter.TaskEnded(c, j, k, n, killed)
	if m.taskObs != nil {
		m.taskObs.TaskEnded(c, j, k, n, killed)
	}
}

// ReducesEnabled forwards to a policy that keeps demand by job.
func (m *metered) ReducesEnabled(c Cluster, j *Job) {
	if ob, ok := m.inner.(DemandObserver); ok {
		ob.ReducesEnabled(c, j)
	}
}

// MapOutputsLost forwards to a policy that observes lost outputs.
func (m *metered) MapOutputsLost(c Cluster, j *Job, n cluster.NodeID, maps int) {
	if ob, ok := m.inner.(OutputLossObserver); ok {
		ob.MapOutputsLost(c, j, n, maps)
	}
}

// Preempt asks the wrapped policy.
func (m *meteredPreempter) Preempt(c Cluster) []TaskRef { return m.p.Preempt(c) }

// HoldRule names the wrapped policy's declines.
func (m *metered) HoldRule(o Offer, k TaskKind) string { return HoldRule(m.inner, o, k) }

// Consider has the wrapped policy report the jobs it considers.
func (m *metered) Consider(f func(*Job)) bool {
	c, ok := m.inner.(Considerer)
	return ok && c.Consider(f)
}

// WhyNot asks the wrapped policy.
func (m *metered) WhyNot(c Cluster, o Offer, j *Job) string {
	if e, ok := m.inner.(Explainer); ok {
		return e.WhyNot(c, o, j)
	}
	return ""
}
