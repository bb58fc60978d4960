package sched

// placePools is Place reading the fair order pool by pool. Place hands
// each user's jobs to the algorithm serving the request; on a loaded node
// most users are skipped by MTS, and reading every job of a backlog of
// thousands to learn that was most of a decision's cost. Here a user whose
// tally (nasTally) already says what MTS would do with its jobs is skipped,
// or passed, without reading them; every other user's jobs are read and
// served exactly as Place serves them. The decisions, and every skip
// counter, delayed tag and hold, are Place's: a user is passed over here
// only where MTS would pass it over or skip it, with the same effect, and
// in the same order of users.
func (p *NAS) placePools(c Cluster, o Offer, f *FairOrder) (Decision, bool) {
	p.begin(c, o)
	p.runs = p.runs[:0]
	st := &p.stream
	for _, k := range f.openPools(c, o.Slot) {
		pl := k.p
		if st.serving && st.k == MapTask && p.passedByTally(pl, o.Slot, st.keep != nil) {
			p.runs = append(p.runs, nasRun{pool: pl, from: -1})
			continue
		}
		from := len(p.cands)
		f.yieldPool(pl, o.Slot, p.visit)
		p.runs = append(p.runs, nasRun{pool: pl, from: from, to: len(p.cands)})
		// The user's run of candidates ended: Place hands its jobs to the
		// algorithm when the next user's first job comes, and nothing
		// between reads what that changes.
		if st.done || p.flushGroup() {
			st.done = true
			break
		}
	}
	if st.serving && !p.call.ok && o.Slot == AnySlot {
		keep, fn := p.plan(1 - st.k)
		p.eachRun(f, 1-st.k, keep, fn)
	}
	clear(p.runs)
	return p.end()
}

// passedByTally reports whether MTS, serving this map request, would pass
// over pool pl's user without a launch, and if it would skip it, skips it
// (as mtsUser does). held says CR-RTS holds back the rack's medium and
// heavy maps. It answers false whenever the tally cannot tell: the user's
// jobs are then read.
func (p *NAS) passedByTally(pl *pool, s SlotKind, held bool) bool {
	u := p.jobs[pl.jobs[0].Index].user
	t := p.tally(u, pl)
	maps, sure := t.maps, t.sure
	if held {
		maps, sure = t.light, t.lightSure
	}
	if s == MapSlot {
		sure = maps // in a map slot every job with a pending map wants one
	}
	switch {
	case maps == 0:
		return true // no job of the user can want a map: MTS is not asked
	case sure == 0:
		return false // whether one wants a map depends on the offer
	case !(t.minOut > p.call.avail):
		return false // a map may be shuffle-qualified here
	}
	us := &p.users[u]
	if p.relaxed(us.mapSkips, p.cfg.mapSkips, us.mapSpell, us.mapStart) {
		return false // MTS launches one of its maps
	}
	p.skipMaps(us)
	return true
}

// tally returns user u's tally, counting it again over its pool's jobs if
// one of them moved since.
func (p *NAS) tally(u int32, pl *pool) *nasTally {
	t := &p.tallies[u]
	if !t.stale {
		return t
	}
	*t = nasTally{}
	first := true
	for _, j := range pl.jobs {
		pr := j.ReducesEnabled && j.PendingReduces() > 0
		if pr {
			t.reduces++
		}
		if j.PendingMaps() == 0 {
			continue
		}
		light := p.Class(j) == NASLight
		t.maps++
		if light {
			t.light++
		}
		if !pr {
			t.sure++
			if light {
				t.lightSure++
			}
		}
		// NaN, if ever, wins, so that the comparison with the available
		// space then answers "cannot tell".
		if out := p.jobs[j.Index].out; first || !(out >= t.minOut) {
			t.minOut, first = out, false
		}
	}
	return t
}

// eachRun is eachUser over the offer's pools: for the other kind's request
// once the first found no task, when every pool was popped. A pool passed
// over by its tally has its jobs read now, unless its tally says none can
// want a task of kind k.
func (p *NAS) eachRun(f *FairOrder, k TaskKind, keep func(*Job) bool, fn func(u int32, g []*Job) bool) {
	s := p.call.o.Slot
	for i := range p.runs {
		run := &p.runs[i]
		u := p.jobs[run.pool.jobs[0].Index].user
		if run.from < 0 {
			t := p.tally(u, run.pool)
			if (k == ReduceTask && t.reduces == 0) || (k == MapTask && t.maps == 0) {
				continue
			}
			run.from = len(p.cands)
			f.yieldPool(run.pool, s, p.noteFn)
			run.to = len(p.cands)
		}
		g := p.group[:0]
		for c := run.from; c < run.to; c++ {
			if p.want[c] && p.wants[c] == k && (keep == nil || keep(p.cands[c])) {
				g = append(g, p.cands[c])
			}
		}
		p.group = g
		if len(g) > 0 && fn(u, g) {
			return
		}
	}
}
