package sched

import "github.com/mrsched/mrsched/cluster"

// Relaxed fairness (sections 3.4 and 5.2: ShuffleWatcher "can be operated
// under relaxed fairness constraints (e.g., as employed in Delay
// Scheduling)", with a 5 s interval). Delay scheduling lets a job without
// a local map be skipped for a while; sw-relaxed lets a user without a
// preferred task be skipped, for at most RelaxedFairnessS, in favour of
// the next users in the fairness order that have one. If none has, the
// slot stays free until the next offer, as under delay scheduling.
//
// A task is preferred when it adds no traffic ShuffleWatcher's plan did not
// choose: a map on one of its job's PreferredMapRacks (lines 4, 16), a
// reduce of a shuffle-light job (7, 15) or one SARP wants on this rack (8,
// 13). The others are fallbacks: a local map on a rack SAMP did not choose
// (5, 17), any map (6, 18), a shuffle-heavy reduce SARP does not want here
// (9, 14). Without SAMP local maps are preferred; without SARP so are
// shuffle-heavy reduces on an unsaturated rack (line 14).
//
// A user's wait, as delay scheduling's, is the length of its current
// spell of being passed over: it starts the first time the user is
// skipped and ends when the user launches a preferred task. Once the wait
// reaches RelaxedFairnessS the user takes fallbacks at once until then.

// passOver reports whether user u, whose best task is from line, is skipped
// for this offer under relaxed fairness, and keeps the user's wait.
func (p *ShuffleWatcher) passOver(u int32, line nassLine) bool {
	if p.cfg.RelaxedFairnessS <= 0 {
		return false
	}
	us := &p.users[u]
	if p.preferred(line) {
		us.inSpell = false
		return false
	}
	if !us.inSpell {
		us.inSpell, us.start = true, p.call.now
	}
	return p.call.now-us.start < p.cfg.RelaxedFairnessS
}

// preferred reports whether a task picked by line is a preferred one.
func (p *ShuffleWatcher) preferred(line nassLine) bool {
	switch line {
	case line4, line16, line7, line8, line13, line15:
		return true
	case line5Node, line5Rack, line17Node, line17Rack:
		return !p.cfg.SAMP
	case line14:
		return !p.cfg.SARP
	}
	return false
}

// ShuffleWatcher on the Delay scheduler (sw-delay). The Delay scheduler's
// relaxation is per job: a job whose map for the offered node is less
// local than its delay-scheduling level allows is skipped, and waits T1
// (15 s) before rack-local and T1 + T2 before off-rack maps (Fair
// Scheduler paper, section 4.2). Under sw-delay every map NASS picks
// (lines 4-6, 16-18, SAMP's preferred racks included) is bounded by its
// job's level, and the slot goes on to the user's next line or job, then to
// the next user. Reduces are not gated. The levels, waits, clean-launch
// rules and IO-rate biasing are the DelayPlacer's own: ShuffleWatcher keeps
// its state up to date exactly as DelayPlacer.Place does, skipping a job
// when the line that would take any of its maps (6 or 18) finds none its
// level allows, and marking the jobs skipped for an offer that stays
// unused.

// level is the locality level job j may launch maps at now: 2 (anything)
// unless sw-delay.
func (p *ShuffleWatcher) level(j *Job) int8 {
	d := p.cfg.Delay
	if d == nil {
		return 2
	}
	return d.allowed(d.state(j), j, p.call.now)
}

// skip records that job j was skipped for locality in this offer.
func (p *ShuffleWatcher) skip(j *Job) {
	d := p.cfg.Delay
	if d == nil {
		return
	}
	s := p.state(j)
	if s.mark == p.stamp {
		return
	}
	s.mark = p.stamp
	if ds := d.state(j); !ds.inSpell {
		ds.inSpell, ds.start = true, p.call.now
	}
	d.skipped = append(d.skipped, int32(j.Index))
	d.skips++
}

// delayChose tells the delay placer which map was picked, as its own Place
// does, for its TaskLaunched.
func (p *ShuffleWatcher) delayChose(j *Job, reach cluster.Reach) {
	if d := p.cfg.Delay; d != nil {
		d.last = lastDecision{job: j.Index, node: p.call.o.Node, reach: reach, set: true}
	}
}

func (p *ShuffleWatcher) delayBegin() {
	if d := p.cfg.Delay; d != nil {
		d.skipped = d.skipped[:0]
	}
}

// delayEnd marks the skipped jobs as having held an unused slot when the
// offer is declined.
func (p *ShuffleWatcher) delayEnd(ok bool) {
	d := p.cfg.Delay
	if d == nil || ok {
		return
	}
	for _, k := range d.skipped {
		d.jobs[k].idleSkip = true
	}
}
