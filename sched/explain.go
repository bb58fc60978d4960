package sched

import (
	"fmt"
	"iter"
)

// Considerer is a policy that reports, when asked, the jobs it considers
// for each offer in the order it considers them: the decisions log
// records them. Consider reports whether it will (a wrapper answers for
// the policy it wraps); Consider(nil) stops the reports.
type Considerer interface {
	Consider(f func(*Job)) bool
}

// Explainer is a policy, or a part of one, that can say why it passed over
// job j for offer o, asked just after it decided o. It returns "" when it
// has nothing to say of j.
type Explainer interface {
	WhyNot(c Cluster, o Offer, j *Job) string
}

// WhyNot says why policy p passed over job j for offer o: for want of a
// task the offered slot could take, else what p says as an Explainer,
// else that p's order put another job first.
func WhyNot(p Policy, c Cluster, o Offer, j *Job) string {
	if why := NoTaskFor(c, o, j); why != "" {
		return why
	}
	if e, ok := p.(Explainer); ok {
		if why := e.WhyNot(c, o, j); why != "" {
			return why
		}
	}
	return "passed over by " + p.Name()
}

// NoTaskFor says why job j has no task offer o's slot could take, or ""
// when it has one.
func NoTaskFor(c Cluster, o Offer, j *Job) string {
	var why string
	if o.Slot != ReduceSlot {
		if j.PendingMaps() > 0 {
			return ""
		}
		why = "no pending map"
	}
	if o.Slot != MapSlot {
		switch {
		case j.PendingReduces() == 0:
			why = joinWhy(why, "no pending reduce")
		case !j.ReducesEnabled:
			why = joinWhy(why, fmt.Sprintf("reduces wait for slow start (%d of %d maps done)", j.FinishedMaps, j.NumMaps))
		case !c.ReduceAdmissible(j, o.Node):
			why = joinWhy(why, "copy-compute limit of copying reduces on the node")
		default:
			return ""
		}
	}
	return why
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + ", " + b
}

// Consider has Assign report the jobs the order yields.
func (p *Composed) Consider(f func(*Job)) bool { p.seen = f; return true }

// considered wraps seq to report each job it yields to p.seen.
func (p *Composed) considered(seq iter.Seq[*Job]) iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		for j := range seq {
			p.seen(j)
			if !yield(j) {
				return
			}
		}
	}
}

// WhyNot asks the placer, then the order.
func (p *Composed) WhyNot(c Cluster, o Offer, j *Job) string {
	for _, part := range [2]any{p.placer, p.order} {
		if e, ok := part.(Explainer); ok {
			if why := e.WhyNot(c, o, j); why != "" {
				return why
			}
		}
	}
	return ""
}

// WhyNot says which locality level delay scheduling allows j now and how
// long j has waited for it (section 4.2).
func (p *DelayPlacer) WhyNot(c Cluster, o Offer, j *Job) string {
	if o.Slot == ReduceSlot || j.PendingMaps() == 0 {
		return ""
	}
	s := p.state(j)
	t1, t2 := p.waitsOf(s, j)
	switch p.allowed(s, j, c.Now()) {
	case 0:
		return fmt.Sprintf("delay: no map local to the node; node-local only, skipped %.1f s of T1 %.0f s", p.Wait(c, j), t1)
	case 1:
		return fmt.Sprintf("delay: no map in the node's rack; rack-local allowed, skipped %.1f s of T1+T2 %.0f s", p.Wait(c, j), t1+t2)
	}
	return ""
}

// WhyNot gives a job's NAS class and its user's skip count. It reads the
// placer's state and changes none of it, so that a run with the
// decisions log decides as one without.
func (p *NAS) WhyNot(c Cluster, o Offer, j *Job) string {
	if p.topo == nil || j.Index >= len(p.jobs) || !p.jobs[j.Index].active {
		return ""
	}
	us := p.users[p.jobs[j.Index].user]
	if o.Slot == ReduceSlot {
		return fmt.Sprintf("nas CR-RTS: %s job, its user skipped %d of D^r %d", p.Class(j), us.reds.n, p.cfg.reduceSkips)
	}
	return fmt.Sprintf("nas MTS: no data-local shuffle-qualified map for the node, %s job, its user skipped %d of D^m %d", p.Class(j), us.maps.n, p.cfg.mapSkips)
}

// WhyNot gives a job's TD status (Fig. 6).
func (p *TD) WhyNot(c Cluster, o Offer, j *Job) string {
	if j.Index >= len(p.jobs) || p.jobs[j.Index] == nil {
		return ""
	}
	return "td: job " + p.jobs[j.Index].st.String()
}

// WhyNot says ShuffleWatcher deferred the job's task.
func (p *ShuffleWatcher) WhyNot(c Cluster, o Offer, j *Job) string {
	if o.Slot == ReduceSlot {
		return "sw: shuffle deferred (NASS/SARP)"
	}
	return "sw: map deferred (SAMP/NASS)"
}
