package sched

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// TDStatus is a job's status in TD's co-scheduling (section IV-B, Fig. 6).
// A job moves only left to right: waiting, infantile, teenaged, adult,
// senile, finished; a step may be skipped (an infantile job holding
// L x demand slots becomes adult directly, one that runs out of untreated
// maps becomes senile).
type TDStatus uint8

// The statuses of Fig. 6.
const (
	// TDWaiting: submitted, not yet co-scheduled (S_wait, in submit order).
	TDWaiting TDStatus = iota
	// TDInfantile: co-scheduled only to fill slots the others leave idle,
	// lowest priority, not held to L; at most one job (S_inf).
	TDInfantile
	// TDTeenaged: just admitted with occupied < L x demand; its slots come
	// first until it reaches L x demand (S_tee).
	TDTeenaged
	// TDAdult: scheduled steadily, L x demand <= occupied <= H x demand
	// kept by Algorithms 1 and 2 (S_adu).
	TDAdult
	// TDSenile: no untreated map left, maps still running (S_sen).
	TDSenile
	// TDFinished: no map left to run or running (S_fin). In mrsched the
	// job's reduces may still run; TD schedules them FIFO (see TD).
	TDFinished
)

// String is the status's name in the paper ("waiting", "infantile", ...).
func (s TDStatus) String() string {
	return [...]string{"waiting", "infantile", "teenaged", "adult", "senile", "finished"}[s]
}

// tdJob is TD's state of one job.
type tdJob struct {
	job     *Job
	st      TDStatus
	demand  int
	lo, hi  float64 // L x demand, H x demand
	occ     int     // j.occupied: running maps
	amt     float64 // amt(j), seconds
	amtSum  float64 // durations of finished maps
	amtN    int
	loc     tdLoc // untreated maps by node, while co-scheduled
	lastT   float64
	removed bool
	stats   TDJobStats
}

// coScheduled reports whether j holds untreated maps TD may assign:
// infantile, teenaged or adult.
func (s *tdJob) coScheduled() bool {
	return s.st == TDInfantile || s.st == TDTeenaged || s.st == TDAdult
}

// touch integrates the job's stray from [L, H] x demand up to now; call it
// before its occupancy or status changes.
func (s *tdJob) touch(now float64) {
	dt := now - s.lastT
	s.lastT = now
	if !(dt > 0) {
		return
	}
	st := &s.stats
	switch s.st {
	case TDTeenaged:
		st.TeenagedS += dt
	case TDAdult:
		st.AdultS += dt
		occ := float64(s.occ)
		if occ < s.lo {
			st.BelowLS += dt
		}
		if occ >= s.hi {
			st.AtHS += dt
		}
		if d := s.lo - occ; d > 0 {
			st.BelowLSlotS += d * dt
			st.MaxBelowL = math.Max(st.MaxBelowL, d)
		}
		if d := occ - s.hi; d > 0 {
			st.AboveHSlotS += d * dt
			st.MaxAboveH = math.Max(st.MaxAboveH, d)
		}
	}
}

// setStatus moves j to st at now, keeping D, O_sen and the sets in step.
// It is the only place statuses change.
func (p *TD) setStatus(s *tdJob, st TDStatus, now float64) {
	s.touch(now)
	switch s.st {
	case TDInfantile:
		p.inf = nil
	case TDTeenaged:
		p.tee = slices.DeleteFunc(p.tee, func(x *tdJob) bool { return x == s })
		p.dSum -= s.demand
	case TDAdult:
		p.adu = slices.DeleteFunc(p.adu, func(x *tdJob) bool { return x == s })
		p.dSum -= s.demand
	case TDSenile:
		p.oSen -= s.occ
	}
	wasCo := s.coScheduled()
	s.st = st
	s.stats.StatusAt[st] = now
	switch st {
	case TDInfantile:
		p.inf = s
	case TDTeenaged:
		p.tee = append(p.tee, s)
		p.dSum += s.demand
	case TDAdult:
		p.adu = append(p.adu, s)
		p.aduSorted = false
		p.dSum += s.demand
	case TDSenile:
		p.oSen += s.occ
	}
	switch {
	case !wasCo && s.coScheduled():
		p.trackLocality(s)
	case wasCo && !s.coScheduled():
		p.untrackLocality(s)
	}
}

// coSchedule is Algorithm 1, lines 9-18, run when a slot is not given back
// to its last job: promote the infantile job if formula (3) holds, else
// admit the first waiting job as infantile if formula (2) holds. T is the
// cluster's map slots.
func (p *TD) coSchedule(T int, now float64) {
	if s := p.inf; s != nil {
		// Formula (3): O_sen + D + ji.demand <= T.
		if p.oSen+p.dSum+s.demand <= T {
			if float64(s.occ) < s.lo {
				p.setStatus(s, TDTeenaged, now)
			} else {
				p.setStatus(s, TDAdult, now)
			}
			p.checkH(T, now)
		}
		return
	}
	// Formula (2): S_inf empty and O_sen + D < T.
	if p.oSen+p.dSum < T && p.waitHead < len(p.wait) {
		s := p.wait[p.waitHead]
		p.wait[p.waitHead] = nil
		p.waitHead++
		if p.waitHead == len(p.wait) {
			p.wait, p.waitHead = p.wait[:0], 0
		}
		p.setStatus(s, TDInfantile, now)
	}
}

// launched is Algorithm 1, lines 24-28, after a map of s launched.
func (p *TD) launched(s *tdJob, now float64) {
	s.touch(now)
	s.occ++
	if s.st == TDSenile {
		p.oSen++
	}
	if s.st == TDTeenaged && float64(s.occ) >= s.lo {
		p.setStatus(s, TDAdult, now)
	}
	if s.coScheduled() && s.job.PendingMaps() == 0 {
		p.setStatus(s, TDSenile, now)
	}
}

// ended is Algorithm 1's line 1 and lines 6-8 for a map of s that ended:
// occupied drops, and a senile job with nothing running is finished. A
// killed map (not in the paper: TD never preempts, but an engine may kill)
// returns to pending; a senile job that has maps to run again rejoins the
// co-scheduled jobs as teenaged or adult.
func (p *TD) ended(s *tdJob, killed bool, now float64) {
	s.touch(now)
	s.occ--
	if s.st == TDSenile {
		p.oSen--
	}
	if killed {
		switch {
		case s.coScheduled():
			s.loc.stale = true
		case s.job.PendingMaps() > 0 && s.st == TDSenile:
			if float64(s.occ) < s.lo {
				p.setStatus(s, TDTeenaged, now)
			} else {
				p.setStatus(s, TDAdult, now)
			}
		}
	}
	if s.st == TDSenile && s.occ == 0 {
		p.setStatus(s, TDFinished, now)
	}
}

// MapOutputsLost returns a job whose finished maps must run again, their
// output lost with node n, to the co-scheduled jobs, as ended does for a
// senile job's killed map (not in the paper, whose nodes are not lost): a
// senile or finished job rejoins as teenaged or adult, and a co-scheduled
// one recounts its untreated maps.
func (p *TD) MapOutputsLost(c Cluster, j *Job, _ cluster.NodeID, _ int) {
	s := p.state(j)
	if s == nil || j.PendingMaps() == 0 {
		return
	}
	now := c.Now()
	switch {
	case s.coScheduled():
		s.loc.stale = true
	case s.st == TDSenile || s.st == TDFinished:
		s.touch(now)
		if float64(s.occ) < s.lo {
			p.setStatus(s, TDTeenaged, now)
		} else {
			p.setStatus(s, TDAdult, now)
		}
	}
}

// checkH records a violation of formula (1) by the co-scheduled jobs
// (teenaged and adult, whose demands make D). Only a job joining them can
// tighten the bound, so it is checked then.
func (p *TD) checkH(T int, now float64) {
	dmax := 0
	for _, s := range p.tee {
		dmax = max(dmax, s.demand)
	}
	for _, s := range p.adu {
		dmax = max(dmax, s.demand)
	}
	if dmax == 0 {
		return
	}
	bound := TDMaxH(float64(T), p.cfg.l, float64(p.dSum), float64(dmax))
	p.minHBound = math.Min(p.minHBound, bound)
	if p.cfg.h < bound {
		return
	}
	p.hViolations++
	if len(p.hSamples) < tdMaxHSamples {
		p.hSamples = append(p.hSamples, TDHViolation{AtS: now, T: T, D: p.dSum, DMax: dmax, L: p.cfg.l, H: p.cfg.h, Bound: bound})
	}
}

const tdMaxHSamples = 10

// JobAdded puts a submitted job at the tail of S_wait.
func (p *TD) JobAdded(c Cluster, j *Job) {
	p.init(c)
	now := c.Now()
	if p.jobsSeen == 0 {
		p.firstSubmit = now
	}
	p.jobsSeen++
	for len(p.jobs) <= j.Index {
		p.jobs = append(p.jobs, nil)
	}
	T := c.TotalSlots(MapSlot)
	if T == 0 {
		T = c.TotalSlots(AnySlot)
	}
	d := 0
	if j.Spec != nil {
		d = j.Spec.Demand
	}
	if d <= 0 {
		d = min(j.NumMaps, int(math.Ceil(p.cfg.demandShare*float64(T))))
	}
	d = max(d, 1)
	s := &tdJob{job: j, demand: d, lo: p.cfg.l * float64(d), hi: p.cfg.h * float64(d), lastT: now}
	s.amt = p.defaultAMT(j)
	s.stats = TDJobStats{Job: j.Index, Demand: d, RemovedS: -1}
	if j.Spec != nil {
		s.stats.Name = j.Spec.Name
	}
	for k := range s.stats.StatusAt {
		s.stats.StatusAt[k] = -1
	}
	s.stats.StatusAt[TDWaiting] = now
	p.jobs[j.Index] = s
	p.wait = append(p.wait, s)
}

// JobRemoved records the job's end. The engine removes a job once its
// reduces are done too, so TD has normally finished it already.
func (p *TD) JobRemoved(c Cluster, j *Job) {
	s := p.state(j)
	if s == nil {
		return
	}
	now := c.Now()
	if s.st == TDWaiting {
		if i := slices.Index(p.wait[p.waitHead:], s); i >= 0 {
			p.wait = slices.Delete(p.wait, p.waitHead+i, p.waitHead+i+1)
		}
	}
	if s.st != TDFinished {
		p.setStatus(s, TDFinished, now)
	}
	s.stats.RemovedS, s.removed = now, true
	s.stats.AMTS, s.stats.MeasuredMaps = s.amt, s.amtN
	p.lastFinish = now
	p.jobsDone++
}

// TaskLaunched applies Algorithm 1, lines 24-28, and records the read: a
// non-local map enters the hot queue and the source's count of concurrent
// non-local reads.
func (p *TD) TaskLaunched(c Cluster, j *Job, k TaskKind, n cluster.NodeID) {
	s, now := p.mapEvent(c, j, k, 1)
	if s == nil {
		return
	}
	src, known, m := n, false, int32(-1)
	if l := p.last; l.set && l.job == j.Index && l.node == n {
		src, known, m = l.src, true, int32(l.m)
		if s.coScheduled() && !s.loc.stale {
			for _, r := range j.Input.BlockReplicas(l.m) {
				p.decLocality(s, r)
			}
		}
	}
	p.last = tdLast{}
	if !known && s.coScheduled() {
		s.loc.stale = true // a launch TD did not decide: recount
	}
	remote := src != n
	if remote {
		p.nonLocal++
		p.hot.push(src, now)
		p.reads[src]++
		if p.reads[src] == p.cfg.hot+1 {
			p.hotTimes = append(p.hotTimes, now)
		}
	} else {
		p.local++
	}
	p.running[n] = append(p.running[n], tdRun{job: s, start: now, m: m, src: src, remote: remote})
	p.launched(s, now)
}

// TaskEnded applies Algorithm 1's line 1 and lines 6-8, measures amt(j)
// from finished maps, and remembers that the freed slot's last task was
// the job's (line 2 reads it when the slot is offered).
func (p *TD) TaskEnded(c Cluster, j *Job, k TaskKind, n cluster.NodeID, killed bool) {
	s, now := p.mapEvent(c, j, k, -1)
	if s == nil {
		return
	}
	if run, ok := p.takeRun(c, n, s); ok {
		if run.remote {
			p.reads[run.src]--
		}
		if !killed {
			s.amtSum += now - run.start
			s.amtN++
			p.setAMT(s, s.amtSum/float64(s.amtN))
		}
	}
	p.ended(s, killed, now)
	if !killed {
		p.pushFreed(n, s)
	}
}

// mapEvent is what a task's launch (delta 1) or end (-1) does before
// TD's own steps: a reduce only changes the count of running reduces,
// and gives nil; a map of a job TD tracks gives the job's state and the
// time, which becomes the last event's.
func (p *TD) mapEvent(c Cluster, j *Job, k TaskKind, delta int) (*tdJob, float64) {
	if k == ReduceTask {
		p.runningReduces += delta
		return nil, 0
	}
	s := p.state(j)
	if s == nil {
		return nil, 0
	}
	now := c.Now()
	p.lastEvent = now
	return s, now
}

func (p *TD) state(j *Job) *tdJob {
	if j == nil || j.Index < 0 || j.Index >= len(p.jobs) {
		return nil
	}
	return p.jobs[j.Index]
}

// defaultAMT is amt(j) before any map of j has finished.
func (p *TD) defaultAMT(j *Job) float64 {
	if j.Spec != nil {
		if v, ok := p.cfg.amtByKind[j.Spec.Kind]; ok {
			return v
		}
	}
	if p.cfg.defaultAMT > 0 {
		return p.cfg.defaultAMT
	}
	if j.Spec != nil && j.Spec.Profile.MapSecPerByte > 0 && j.NumMaps > 0 {
		return j.Spec.Profile.MapSecPerByte * float64(j.Spec.InputBytes) / float64(j.NumMaps)
	}
	return DefaultTDFallbackAMTS
}

// setAMT changes amt(j), keeping the nodes' remaining work in step.
func (p *TD) setAMT(s *tdJob, amt float64) {
	if amt == s.amt {
		return
	}
	if s.coScheduled() {
		// Even stale counts are what remWork holds for the job.
		for _, h := range s.loc.holders {
			p.remWork[h] += (amt - s.amt) * float64(s.loc.rs[h])
		}
	}
	s.amt = amt
	if s.st == TDAdult {
		p.aduSorted = false
	}
}
