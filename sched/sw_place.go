package sched

import (
	"iter"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// swCall is the state of one Place call, kept in the placer so that
// serving an offer allocates nothing. Place is not reentrant.
type swCall struct {
	c             Cluster
	o             Offer
	now           float64
	rack          cluster.RackID
	sat           bool // NetworkSaturated for the offering rack
	maps, reduces bool // kinds the slot takes
	lastContainer bool // the node's last free container
	cpu, mem      float64
	nodeCPU       float64
	nodeMem       float64

	user      int32 // the user being served
	idleKnown bool
	idle      bool // the user has no pending map

	d  Decision
	ok bool
}

// Place serves an offer (Fig. 3). The order's candidates come user by
// user: the first candidate's pool is the user fairness selected (line
// 1), and all consecutive candidates of that pool are its jobs. NASS
// picks among them; only when that user has nothing that may run on the
// slot does the next user get it, so fairness holds (section 3.1). Under
// relaxed fairness a user whose best task is not a preferred one may be
// passed over (sw_relax.go).
func (p *ShuffleWatcher) Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool) {
	p.stamp++
	t := c.Topology()
	if p.topo == nil {
		p.topo = t
		p.rackPref = make([]int32, t.NumRacks())
	}
	r := t.Rack(o.Node)
	p.call = swCall{c: c, o: o, now: c.Now(), rack: r, sat: p.netsat.Saturated(c, r),
		maps: o.Slot != ReduceSlot, reduces: o.Slot != MapSlot,
		lastContainer: o.Slot == AnySlot && c.FreeSlots(o.Node, AnySlot) < 2}
	if p.cfg.ResourceFit {
		k := &p.call
		k.cpu, k.mem = c.FreeResources(o.Node)
		k.nodeCPU, k.nodeMem = t.Resources(o.Node)
	}
	p.delayBegin()
	p.buf = p.buf[:0]
	jobs(p.visit)
	if !p.call.ok && len(p.buf) > 0 {
		p.serveUser()
	}
	d, ok := p.call.d, p.call.ok
	p.delayEnd(ok)
	clear(p.buf)
	p.buf = p.buf[:0]
	p.call = swCall{}
	return d, ok
}

// visitJob collects the current user's candidates and serves the user
// when the next user's begin; it returns false to stop at a decision.
func (p *ShuffleWatcher) visitJob(j *Job) bool {
	if len(p.buf) > 0 && p.state(j).user != p.jobs[p.buf[0].Index].user {
		p.serveUser()
		if p.call.ok {
			return false
		}
		p.buf = p.buf[:0]
	}
	p.buf = append(p.buf, j)
	return true
}

// serveUser runs NASS for the user whose candidates are in p.buf.
func (p *ShuffleWatcher) serveUser() {
	k := &p.call
	g := p.buf
	k.user, k.idleKnown = p.jobs[g[0].Index].user, false
	slices.SortFunc(g, arrival)
	d, line, window, ok := p.nassUser(g)
	if !ok || p.passOver(k.user, line) {
		return
	}
	if window {
		d.Rule = nassWindowRules[line]
	} else {
		d.Rule = nassRules[line]
	}
	k.d, k.ok = d, true
}

// Starvation window (section 3.4): "a user's jobs submitted in an earlier
// window are prioritized over those submitted in a later one, overriding
// the heuristics in NASS, SAMP and SARP"; the window "acts like a time-out
// interval". mrsched counts the window back from now: a job submitted more
// than StarvationWindowS ago (default 600 s) is overdue, and a user's
// overdue jobs go before its other jobs, oldest first, each served alone
// (NASS orders only that job's tasks); the jobs within the window share
// NASS's order. So a job starved by NASS's preferences (its preferred
// racks busy, younger jobs' tasks always on better lines) is served first
// once it has waited one window, and the override touches only jobs older
// than the window, the "rare cases" it is meant for. Windows fixed on the
// clock (floor(submit / window)) would instead make a job wait for every
// job of its window however long that takes, and would order jobs
// submitted seconds apart across a boundary forever; windows counted by
// age in whole windows (floor(age / window)) would put an old job ahead of
// one submitted a little after it only part of the time. A task picked
// from an overdue job while the user had other candidates gets its line's
// rule with "+window". 0 disables the window.
func (p *ShuffleWatcher) nassUser(g []*Job) (d Decision, line nassLine, window, ok bool) {
	for i := 0; i < len(g); {
		e, overdue := len(g), p.overdue(g[i])
		if overdue {
			e = i + 1 // jobs are in arrival order: the overdue ones come first
		}
		if d, line, ok := p.nassGroup(g[i:e]); ok {
			return d, line, overdue && e < len(g), true
		}
		i = e
	}
	return Decision{}, lineNone, false, false
}

// overdue reports whether job j has waited a whole starvation window.
func (p *ShuffleWatcher) overdue(j *Job) bool {
	return p.cfg.window > 0 && p.call.now-j.Submit >= p.cfg.window
}
