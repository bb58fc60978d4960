package probe

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

// HeartbeatTolS is how close to a heartbeat instant an offer must be to be
// taken as that heartbeat's: far below any event spacing, far above
// float64's rounding of times of a few thousand seconds.
const HeartbeatTolS = 1e-6

// HeartbeatOnly wraps a policy and declines every offer a node makes
// between its periodic heartbeats, so the policy fills a freed slot only at
// the node's next heartbeat, as Hadoop 0.20.1's TaskTracker, which sleeps
// out its interval between heartbeats, had it. The engine offers a node's
// free slots both at its heartbeats and at once when a task ends there;
// its heartbeats fall at phase + k x period, node n of N at phase
// n/N x period (sim.Engine's scheduleHeartbeatAfter), and the wrapper
// tells the two apart by that grid (TestHeartbeatOnlyLaunchesOnBeats pins
// it). A declined offer leaves the node's slots free and its next
// heartbeat scheduled, so nothing else changes.
type HeartbeatOnly struct {
	harness.PassThrough
	periodS float64
}

// NewHeartbeatOnly has inner take offers only at heartbeats periodS apart.
func NewHeartbeatOnly(inner sched.Policy, periodS float64) *HeartbeatOnly {
	return &HeartbeatOnly{PassThrough: harness.PassTo(inner), periodS: periodS}
}

// onBeat reports whether now is one of node n's heartbeat instants.
func (h *HeartbeatOnly) onBeat(c sched.Cluster, n cluster.NodeID) bool {
	phase := h.periodS * float64(n) / float64(c.Topology().NumNodes())
	now := c.Now()
	k := math.Round((now - phase) / h.periodS)
	return math.Abs(now-(phase+k*h.periodS)) <= HeartbeatTolS
}

// Assign declines an offer between the node's heartbeats and asks the
// inner policy at one.
func (h *HeartbeatOnly) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	if !h.onBeat(c, o.Node) {
		return sched.Decision{}, false
	}
	return h.Inner.Assign(c, o)
}

// OfferIdle tells the inner policy of an idle slot at a heartbeat; between
// heartbeats Hadoop 0.20.1's master hears nothing of the node.
func (h *HeartbeatOnly) OfferIdle(c sched.Cluster, o sched.Offer) {
	if i := sched.IdleOffersOf(h.Inner); i != nil && h.onBeat(c, o.Node) {
		i.OfferIdle(c, o)
	}
}
