package sched

import "math"

// tdCounters are what TD counts for Stats.
type tdCounters struct {
	jobsSeen, jobsDone int
	firstSubmit        float64
	lastFinish         float64
	lastEvent          float64
	local, nonLocal    int
	hotTimes           []float64
	hSkips, idleOffers int
	hViolations        int
	hSamples           []TDHViolation
	minHBound          float64
}

// TDStats are TD's own measures of a run, the three of the paper's section
// V-A and the bounds of IV-A.1. The engine's metrics know nothing of TD;
// read these with (*TD).Stats after the run.
type TDStats struct {
	// FirstSubmitS is when TD saw the first job, LastFinishS when the
	// last job it saw left (its reduces done). QueueCompletionS is their
	// difference, the completion time of the job queue (Fig. 7), and
	// JobsFinished how many jobs left; compare it with JobsSeen.
	FirstSubmitS, LastFinishS, QueueCompletionS float64
	JobsSeen, JobsFinished                      int
	// LocalMaps and NonLocalMaps count map launches TD decided whose input
	// was read on the node itself or from another node (Fig. 8; rack-local
	// counts as non-local, as in the paper).
	LocalMaps, NonLocalMaps int
	// HotThreshold is the hot_threshold used. Hotspots counts occurrences:
	// a node's concurrent non-local reads (TD's maps reading from it,
	// launch to end) rising above HotThreshold. HotspotsByStage splits
	// them over five equal fifths of [FirstSubmitS, end], end being
	// LastFinishS or, while jobs remain, the last task event (Table I).
	HotThreshold    int
	Hotspots        int
	HotspotsByStage [5]int
	// HSkips counts the times Algorithm 2 passed over a job (adult, or
	// the infantile one) that had an untreated map on the offered node
	// because it held H x demand slots: how often H bound a local choice.
	// IdleOffers counts map offers TD declined while a co-scheduled job
	// still had untreated maps (every such job at H x demand, or its maps
	// only behind the connection limit or in another rack): slots TD left
	// idle that a work-conserving scheduler would have filled.
	HSkips, IdleOffers int
	// HViolations counts the times a job joined the co-scheduled jobs and
	// left H at or above formula (1)'s bound; HViolationSamples holds the
	// first few; MinHBound is the tightest bound seen (+Inf if none).
	HViolations       int
	HViolationSamples []TDHViolation
	MinHBound         float64
	// Jobs has one entry per job TD saw, by Job.Index.
	Jobs []TDJobStats
}

// LocalRatio is LocalMaps over all map launches, the paper's "ratio of
// local task assignment" (0 when nothing launched).
func (s TDStats) LocalRatio() float64 {
	if n := s.LocalMaps + s.NonLocalMaps; n > 0 {
		return float64(s.LocalMaps) / float64(n)
	}
	return 0
}

// TDHViolation is one violation of formula (1): at AtS the co-scheduled
// jobs' demands summed to D, the largest DMax, on T map slots, so that H
// had to be below Bound.
type TDHViolation struct {
	AtS         float64
	T, D, DMax  int
	L, H, Bound float64
}

// TDJobStats is one job's course through TD.
type TDJobStats struct {
	Job    int // Job.Index
	Name   string
	Demand int
	// AMTS is amt(j) when the job left (or now), MeasuredMaps the maps it
	// averages (0: still the default).
	AMTS         float64
	MeasuredMaps int
	// StatusAt is when the job entered each status (index TDStatus), -1 if
	// it never did; RemovedS when the engine removed it (its reduces
	// done), -1 while it has not.
	StatusAt [6]float64
	RemovedS float64
	// TeenagedS and AdultS are the seconds spent in those statuses.
	TeenagedS, AdultS float64
	// The stray from [L, H] x demand while adult (the status the paper
	// defines by L x demand <= occupied <= H x demand): BelowLSlotS is the
	// integral over time of max(0, L x demand - occupied), slot-seconds,
	// AboveHSlotS of max(0, occupied - H x demand); MaxBelowL and
	// MaxAboveH the largest gaps, in slots, held for a positive time. An
	// adult job with fewer untreated maps than it is short shows a gap
	// no scheduler could close.
	BelowLSlotS, AboveHSlotS float64
	MaxBelowL, MaxAboveH     float64
	// BelowLS and AtHS are the seconds, while adult, the job held fewer
	// than L x demand slots (a slot it frees comes back to it, Algorithm
	// 1 line 2) and at least H x demand (Algorithm 2 skips it): the time
	// each bound binds.
	BelowLS, AtHS float64
}

// Stats returns TD's measures so far; after a run, of the whole run.
func (p *TD) Stats() TDStats {
	s := TDStats{
		FirstSubmitS: p.firstSubmit, LastFinishS: p.lastFinish,
		JobsSeen: p.jobsSeen, JobsFinished: p.jobsDone,
		LocalMaps: p.local, NonLocalMaps: p.nonLocal,
		HotThreshold: int(p.cfg.hot), Hotspots: len(p.hotTimes),
		HSkips: p.hSkips, IdleOffers: p.idleOffers,
		HViolations: p.hViolations, HViolationSamples: append([]TDHViolation(nil), p.hSamples...),
		MinHBound: p.minHBound,
	}
	if p.jobsSeen > 0 {
		s.QueueCompletionS = p.lastFinish - p.firstSubmit
	}
	end := p.lastFinish
	if p.jobsDone < p.jobsSeen {
		end = math.Max(end, p.lastEvent)
	}
	for _, t := range p.hotTimes {
		k := 0
		if span := end - p.firstSubmit; span > 0 {
			k = min(4, max(0, int(5*(t-p.firstSubmit)/span)))
		}
		s.HotspotsByStage[k]++
	}
	for _, j := range p.jobs {
		if j == nil {
			continue
		}
		js := j.stats
		if !j.removed {
			// Still running: integrate up to the last event.
			c := *j
			c.touch(math.Max(p.lastEvent, j.lastT))
			js = c.stats
			js.AMTS, js.MeasuredMaps = j.amt, j.amtN
		}
		s.Jobs = append(s.Jobs, js)
	}
	return s
}
