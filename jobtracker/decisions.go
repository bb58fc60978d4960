package jobtracker

import (
	"fmt"

	"github.com/mrsched/mrsched/decisions"
	"github.com/mrsched/mrsched/sched"
)

// SetDecisionLog has the tracker tell l of every launch a policy decides,
// from the next offer on.
func (t *Tracker) SetDecisionLog(l DecisionLog) {
	t.dlog = l
	if c, ok := t.pol.(sched.Considerer); ok {
		t.considers = c.Consider(func(j *sched.Job) {
			if len(t.considered) < maxListed+1 {
				t.considered = append(t.considered, j)
			} else {
				t.moreConsidered++
			}
		})
	}
}

// maxListed bounds the jobs a record lists as considered and as passed
// over: under a backlog a policy may walk thousands for one offer.
const maxListed = 64

// logLaunch writes the decisions log's record of decision d, just carried
// out for offer o: the jobs the policy considered (when it reports them,
// sched.Considerer) and why it passed over each of the others
// (sched.WhyNot). A policy that does not report them gets, as passed
// over, the active jobs ahead of the launched one in submit order.
func (t *Tracker) logLaunch(o sched.Offer, d sched.Decision) {
	r := &decisions.Record{T: t.now, Node: t.topo.NodeName(o.Node), Slot: o.Slot.String(),
		Job: d.Job.Spec.ID, Task: d.Kind.String(), Map: -1, Rule: d.Rule}
	if d.Kind == sched.MapTask {
		r.Map, r.Reach = d.Map, t.reach.String()
	}
	passed := t.considered
	if t.considers {
		n := min(len(t.considered), maxListed)
		r.Considered = make([]int, n)
		for i, j := range t.considered[:n] {
			r.Considered[i] = j.Spec.ID
		}
		r.MoreConsidered = len(t.considered) - n + t.moreConsidered
	} else {
		passed = passed[:0]
		for _, j := range t.active {
			if j == d.Job {
				break
			}
			passed = append(passed, j)
		}
	}
	// A job the policy considered after the launched one was compared
	// with it (NAS, ShuffleWatcher and TD choose among a user's or a
	// group's jobs); one before it was passed over for a reason of its own.
	after := false
	for _, j := range passed {
		switch {
		case j == d.Job:
			after = true
		case len(r.Passed) == maxListed:
			r.MorePassed++
		case after && sched.NoTaskFor(t, o, j) == "":
			r.Passed = append(r.Passed, decisions.Pass{Job: j.Spec.ID, Why: fmt.Sprintf("ranked below job %d by %s", d.Job.Spec.ID, d.Rule)})
		default:
			r.Passed = append(r.Passed, decisions.Pass{Job: j.Spec.ID, Why: sched.WhyNot(t.pol, t, o, j)})
		}
	}
	t.moreConsidered = 0
	t.dlog.Write(r)
}
