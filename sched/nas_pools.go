package sched

// placePools is Place reading the fair order pool by pool. Place hands
// each user's jobs to the algorithm serving the request; on a loaded node
// most users are skipped by MTS, and reading every job of a backlog of
// thousands to learn that was most of a decision's cost. Here a user whose
// tally (nasTally) already says what MTS or CR-RTS would do with its jobs
// is skipped, or passed, without reading them; a reduce request reads only
// the jobs the tally lists with a pending reduce, and a map request that
// MTS serves at line 3 only the jobs that line chooses among (mapTally);
// the first pool is read up to the job that sets the request, and then
// the same way (firstByTally); every other user's jobs are read and
// served exactly as Place serves them. The decisions, and
// every skip counter, delayed tag and hold, are Place's: a user is passed
// over here only where the algorithm would pass it over or skip it, with
// the same effect, and in the same order of users.
func (p *NAS) placePools(c Cluster, o Offer, f *FairOrder) (Decision, bool) {
	p.begin(c, o)
	p.call.ramp = rampOf(c, o)
	p.runs = p.runs[:0]
	st := &p.stream
	for _, k := range f.openPools(c, o.Slot) {
		pl := k.p
		u := p.userOf(pl)
		switch {
		case st.serving && st.k == MapTask && p.mapTally(u, pl, o.Slot, st.keep != nil):
			p.runs = append(p.runs, nasRun{pool: pl, user: u, from: -1})
			continue
		case st.serving && st.k == MapTask && p.hits != nil:
			// MTS launches at line 3, choosing among the jobs the tally
			// found: read those alone, in the order's sequence. The run
			// counts as unread, as for a reduce request.
			f.yieldSome(pl, o.Slot, p.hits, p.visit)
			p.runs = append(p.runs, nasRun{pool: pl, user: u, from: -1})
		case st.serving && st.k == ReduceTask:
			// Only jobs with a pending reduce can want one: the tally
			// lists them, and the others are not read. The run counts as
			// unread, so that a map request after this one reads it all.
			if !p.passedByReduceTally(u, pl) {
				f.yieldSome(pl, o.Slot, p.tallies[u].red, p.visit)
			}
			p.runs = append(p.runs, nasRun{pool: pl, user: u, from: -1})
		case !st.serving && p.firstByTally(f, pl, u, o.Slot):
			// The pool's first job that wants a task set the request, and
			// the tally settled the rest; or no job wanted one, and the
			// pool was read whole (firstByTally).
		default:
			from := len(p.cands)
			f.yieldPool(pl, o.Slot, p.visit)
			p.runs = append(p.runs, nasRun{pool: pl, user: u, from: from, to: len(p.cands)})
		}
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

// firstByTally reads pool pl, user u's, until its first job that wants a
// task, which sets the offer's request (visitJob). If that is a map
// request the user's tally settles, it serves it as the pools after do:
// MTS skips the user, or is handed line 3's candidates alone (mapTally).
// If no job wanted a task, the pool was read whole. Either way it records
// the pool's run and reports true. Otherwise it puts back what it read and
// reports false, and the pool is read whole, as before. A settled offer
// reads its first pool only up to the job that set the request, where
// reading the whole pool to hand MTS the user's jobs read the backlog's
// largest users.
func (p *NAS) firstByTally(f *FairOrder, pl *pool, u int32, s SlotKind) bool {
	from := len(p.cands)
	f.yieldPool(pl, s, p.first)
	st := &p.stream
	switch {
	case !st.serving:
		p.runs = append(p.runs, nasRun{pool: pl, user: u, from: from, to: len(p.cands)})
		return true
	case st.k == MapTask:
		passed := p.mapTally(u, pl, s, st.keep != nil)
		if passed || p.hits != nil {
			p.unread(from)
			if !passed {
				f.yieldSome(pl, s, p.hits, p.visit)
			}
			p.runs = append(p.runs, nasRun{pool: pl, user: u, from: -1})
			return true
		}
	}
	p.unread(from)
	return false
}

// visitFirst is visitJob that stops the read once the request is set.
func (p *NAS) visitFirst(j *Job) bool {
	p.visitJob(j)
	return !p.stream.serving
}

// unread drops the candidates read from index from on, and the user's
// group that holds some of them, so that the pool they came from can be
// read again: what reading wrote besides (the request the first wanting
// job set, the current user) holds for the same jobs read again.
func (p *NAS) unread(from int) {
	clear(p.cands[from:])
	p.cands, p.wants, p.want = p.cands[:from], p.wants[:from], p.want[:from]
	clear(p.group)
	p.group = p.group[:0]
}

// How the jobs whose YARN ramp picks a reduce (Job.KindFor) take a
// container offer (Job.KindAt): the same way for every such job of the
// offer when no reduce is refused for its job's copying reducers.
const (
	rampUnknown = iota // each job's own limit decides: read it
	rampReduces        // each wants its reduce
	rampMaps           // each runs a map instead: the node's last container
	rampSlot           // a map or reduce slot: no ramp, and no reduce refused
)

// reduceLimiter is a cluster that can say whether any reduce may ever be
// refused for its job's copying reducers (Cluster.ReduceAdmissible).
type reduceLimiter interface {
	ReducesLimited() bool
}

// rampOf is what offer o does to the jobs whose ramp picks a reduce.
func rampOf(c Cluster, o Offer) int8 {
	if l, ok := c.(reduceLimiter); !ok || l.ReducesLimited() {
		return rampUnknown
	}
	if o.Slot != AnySlot {
		return rampSlot
	}
	if c.FreeSlots(o.Node, AnySlot) < 2 {
		return rampMaps
	}
	return rampReduces
}

// userOf is pool pl's user, kept by the pool's id: read through the
// pool's first job it cost two cache misses an offer and pool. A pool
// holds one user's jobs (users are pools) for the whole run.
func (p *NAS) userOf(pl *pool) int32 {
	for int(pl.id) >= len(p.byPool) {
		p.byPool = append(p.byPool, -1)
	}
	u := p.byPool[pl.id]
	if u < 0 {
		u = p.jobs[pl.jobs[0].Index].user
		p.byPool[pl.id] = u
	}
	return u
}

// passedByTally reports whether MTS, serving this map request, would pass
// over pool pl's user u without a launch, and if it would skip it, skips it
// (as mtsUser does). held says CR-RTS holds back the rack's medium and
// heavy maps. It answers false whenever the tally cannot tell: the user's
// jobs are then read.
func (p *NAS) passedByTally(u int32, pl *pool, s SlotKind, held bool) bool {
	passed := p.mapTally(u, pl, s, held)
	p.hits = nil
	return passed
}

// mapTally is passedByTally that, where the tally finds MTS would launch
// at line 3 (Algorithm 2), also leaves in p.hits the positions in pl.jobs
// of the jobs line 3 chooses among: each wants a map on this offer, has
// a data-local one and a predicted output that fits. mtsUser handed those
// alone chooses as it would among all the user's jobs, since the others
// take no part in line 3 and, with a candidate there, MTS goes no
// further. p.hits is nil where the tally cannot tell.
func (p *NAS) mapTally(u int32, pl *pool, s SlotKind, held bool) bool {
	p.hits = nil
	t := p.tally(u, pl)
	maps, sure := t.maps, t.sure
	if held {
		maps, sure = t.light, t.lightSure
	}
	switch {
	case s == MapSlot:
		sure = maps // in a map slot every job with a pending map wants one
	case p.call.ramp == rampReduces:
		maps = sure // the others want the reduce their ramp picked
	case p.call.ramp == rampMaps:
		sure = maps // every job with a pending map takes one here
	}
	switch {
	case maps == 0:
		return true // no job of the user can want a map: MTS is not asked
	case sure == 0:
		return false // whether one wants a map depends on the offer
	case !(t.minOut > p.call.avail):
		hits, known := p.line3(t, s, held)
		if !known {
			return false
		}
		if len(hits) > 0 {
			p.hits = hits
			return false
		}
	}
	us := &p.users[u]
	if p.relaxed(us.maps, p.cfg.mapSkips) {
		return false // MTS launches one of its maps
	}
	p.skipMaps(us)
	return true
}

// line3 lists, by position in the pool's jobs, tally t's jobs that MTS's
// line 3 would find on this offer: those that want a map here (ramped
// jobs want their reduce where the offer takes it; on a rack CR-RTS holds,
// only shuffle-light jobs are MTS's) with a data-local map and a
// predicted output that fits the node's available space (mtsUser's tests,
// NaN included). known is false where whether a job wants a map rests on
// its own reduce limit (rampUnknown). The map index answers as it would
// answer mtsUser: asking earlier changes no answer.
func (p *NAS) line3(t *nasTally, s SlotKind, held bool) (hits []int32, known bool) {
	n, avail := p.call.o.Node, p.call.avail
	rampedMap := s == MapSlot || p.call.ramp == rampMaps // a ramped job takes a map here
	hits = p.hitBuf[:0]
	defer func() { p.hitBuf = hits[:0] }()
	for _, x := range t.pm {
		if x.out > avail || (held && !x.light) {
			continue
		}
		if x.ramped && !rampedMap {
			if p.call.ramp != rampReduces {
				return nil, false
			}
			continue // it wants its reduce
		}
		if _, ok := x.j.Maps.NodeLocal(n); ok {
			hits = append(hits, x.k)
		}
	}
	return hits, true
}

// passedByReduceTally reports whether the algorithm serving this reduce
// request would pass over pool pl's user u without a launch and without
// writing a job's state, and if CR-RTS would skip it, skips it (as
// crrtsUser does): no job of the user wants a reduce on this offer, or
// CR-RTS serves a congested rack, none of the user's jobs with a pending
// reduce is shuffle-light, each of them already carries a "delayed" tag
// for every pending reduce (so tagging again changes nothing), and the
// user is not due for a relaxed launch. It answers false whenever the
// tally cannot tell: the user's jobs with a pending reduce are then read.
func (p *NAS) passedByReduceTally(u int32, pl *pool) bool {
	t := p.tally(u, pl)
	if t.reduces == 0 {
		return true
	}
	var takers int32
	switch p.call.ramp {
	case rampReduces:
		takers = t.redNoMaps + t.redRamp
	case rampMaps:
		takers = t.redNoMaps
	case rampSlot:
		takers = t.redReady
	default:
		return false // each job's own limit decides whether it takes one
	}
	switch {
	case takers == 0:
		return true // the algorithm is not asked
	case !p.crrtsServes() || t.redLight > 0 || !t.tagged:
		return false
	}
	us := &p.users[u]
	if p.relaxed(us.reds, p.cfg.reduceSkips) {
		return false // CR-RTS launches one of its reduces
	}
	p.skipReduces(us)
	return true
}

// tally returns user u's tally, counting it again over its pool's jobs if
// one of them moved since.
func (p *NAS) tally(u int32, pl *pool) *nasTally {
	t := &p.tallies[u]
	if !t.stale {
		return t
	}
	clear(t.pm)
	*t = nasTally{red: t.red[:0], pm: t.pm[:0]}
	first := true
	t.tagged = true
	for k, j := range pl.jobs {
		pr := j.ReducesEnabled && j.PendingReduces() > 0
		pm := j.PendingMaps() > 0
		if !pr && !pm {
			continue
		}
		light := p.Class(j) == NASLight
		// ramped: the job wants its reduce on a container offer only where
		// the node has two free containers (Job.KindAt), since YARN's ramp
		// picks the reduce (Job.KindFor) while a map is pending; any other
		// job with a pending map wants a map on every offer, a job below
		// the map completion threshold too (note turns its reduce into a
		// map).
		ramped := false
		if pr {
			t.reduces++
			t.red = append(t.red, int32(k))
			if light {
				t.redLight++
			} else if p.jobs[j.Index].delayed < j.PendingReduces() {
				t.tagged = false
			}
			if p.reduceReady(j) {
				t.redReady++
				if kind, _ := j.KindFor(AnySlot); !pm {
					t.redNoMaps++
				} else if kind == ReduceTask {
					t.redRamp++
					ramped = true
				}
			}
		}
		if !pm {
			continue
		}
		t.maps++
		if light {
			t.light++
		}
		if !ramped {
			t.sure++
			if light {
				t.lightSure++
			}
		}
		// NaN, if ever, wins, so that the comparison with the available
		// space then answers "cannot tell".
		out := p.jobs[j.Index].out
		if first || !(out >= t.minOut) {
			t.minOut, first = out, false
		}
		t.pm = append(t.pm, nasOut{out: out, j: j, k: int32(k), light: light, ramped: ramped})
	}
	return t
}

// eachRun is eachUser over the offer's pools: for the other kind's request
// once the first found no task, when every pool was popped. A pool passed
// over by its tally in the first request has its jobs read now, unless
// its tally settles this request too (passedByTally, passedByReduceTally);
// for a reduce request only the jobs its tally lists with a pending
// reduce are read, since no other job can want one (Job.KindFor), so that
// the fallback does not read the backlog's waiting maps.
func (p *NAS) eachRun(f *FairOrder, k TaskKind, keep func(*Job) bool, fn func(u int32, g []*Job) bool) {
	s := p.call.o.Slot
	for i := range p.runs {
		run := &p.runs[i]
		u := run.user
		if run.from < 0 {
			if k == ReduceTask && p.passedByReduceTally(u, run.pool) {
				continue
			}
			if k == MapTask && p.passedByTally(u, run.pool, s, keep != nil) {
				continue
			}
			t := p.tally(u, run.pool)
			run.from = len(p.cands)
			if k == ReduceTask {
				f.yieldSome(run.pool, s, t.red, p.noteFn)
			} else {
				f.yieldPool(run.pool, s, p.noteFn)
			}
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
