package sched

import "github.com/mrsched/mrsched/cluster"

// caRTSRules names CA-RTS's six categories (Algorithm 3, categories 1-6).
var caRTSRules = [6]string{"nas-carts-1", "nas-carts-2", "nas-carts-3", "nas-carts-4", "nas-carts-5", "nas-carts-6"}

// CR-RTS rules, by Algorithm 4's line.
const (
	RuleNASLightReduce = "nas-crrts-4" // a shuffle-light job's reduce while congested
	RuleNASAnyReduce   = "nas-crrts-8" // after D^r skips: any job's reduce
)

// ReduceNum is job j's preferred number of reduces on rack r (section
// III-D, equation 4): TotalReduceNum * MapOutputPortion, where the portion
// is the share of the job's map output produced so far on r
// (Job.MapOutputByRack). Before any output exists the portion is taken as
// even over the racks (the paper does not say; nothing is known yet).
func (p *NAS) ReduceNum(j *Job, r cluster.RackID) float64 {
	total := 0.0
	for _, b := range j.MapOutputByRack {
		total += b
	}
	if total <= 0 {
		n := len(j.MapOutputByRack)
		if n == 0 {
			n = 1
			if p.topo != nil {
				n = p.topo.NumRacks()
			}
		}
		return float64(j.NumReduces) / float64(n)
	}
	return float64(j.NumReduces) * j.MapOutputByRack[r] / total
}

// ReduceNumReached reports whether job j has launched (running or
// finished) at least ReduceNum reduces on rack r.
func (p *NAS) ReduceNumReached(j *Job, r cluster.RackID) bool {
	s := p.state(j)
	if int(r) >= len(s.launched) {
		return false
	}
	return float64(s.launched[r]) >= p.ReduceNum(j, r)
}

// caCategory is job j's CA-RTS category on rack r, 0-5 for Algorithm 3's
// (1)-(6): ReduceNum not reached heavy, medium, light; reached light,
// medium, heavy.
func (p *NAS) caCategory(j *Job, r cluster.RackID) int {
	cl := p.Class(j)
	if !p.ReduceNumReached(j, r) {
		return int(NASHeavy - cl)
	}
	return 3 + int(cl)
}

// cartsUser is Algorithm 3: the first user in the order with a reduce-wanting
// job (past the map completion threshold; line 1) gets a reduce from its
// job in the lowest category; within a category a job with reduces
// tagged "delayed" by CR-RTS goes first, then one whose maps are all
// finished (MapProgressRate = 100%), then the order's sequence. Whether the
// delayed tag or full map progress ranks first is not said ("a job with
// delayed or MapProgressRate = 100% has higher priority"); delayed first
// follows the prose, which names it first and says it is so that reduces
// are "not delayed for too long".
func (p *NAS) cartsUser(_ int32, g []*Job) bool {
	k := &p.call
	var best *Job
	bkey := 0
	for _, j := range g {
		key := p.caCategory(j, k.rack) * 4
		if p.jobs[j.Index].delayed == 0 {
			key += 2
		}
		if j.FinishedMaps < j.NumMaps {
			key++
		}
		if best == nil || key < bkey {
			best, bkey = j, key
		}
	}
	if best == nil {
		return false
	}
	k.d, k.ok = Decision{Job: best, Kind: ReduceTask, Rule: caRTSRules[bkey/4]}, true
	return true
}

// crrtsUser is Algorithm 4 on a congested rack, for one user. Users in the order's
// sequence: a user below D^r skips (or, with wait_s, not yet skipped for
// wait_s seconds) gets a reduce of its first shuffle-light job and its
// counter reset (lines 3-4); with no shuffle-light job its medium and
// heavy jobs' pending reduces are tagged "delayed" and it is skipped,
// counter incremented (lines 5-6). A user at D^r gets a reduce of any job
// (line 8): a shuffle-light one if it has one, else a delayed one, else
// the first; its counter is reset, as a map launch resets D^m ("handled in
// the same manner as the map skip counter"). The "delayed" tag is per
// task in the paper; reduces are interchangeable here, so a job counts
// its tagged reduces (up to its pending ones) and each launch uses one.
func (p *NAS) crrtsUser(u int32, g []*Job) bool {
	k := &p.call
	us := &p.users[u]
	var light, delayed *Job
	for _, j := range g {
		if light == nil && p.Class(j) == NASLight {
			light = j
		}
		if delayed == nil && p.jobs[j.Index].delayed > 0 {
			delayed = j
		}
	}
	relaxed := p.relaxed(us.reds, p.cfg.reduceSkips)
	pick, rule := light, RuleNASLightReduce
	if pick == nil {
		if !relaxed {
			for _, j := range g {
				if s := &p.jobs[j.Index]; p.Class(j) != NASLight && s.delayed < j.PendingReduces() {
					s.delayed = j.PendingReduces()
					p.tallies[u].stale = true // its tagged no longer holds
				}
			}
			p.skipReduces(us)
			return false
		}
		pick, rule = delayed, RuleNASAnyReduce
		if pick == nil {
			pick = g[0]
		}
	}
	us.reds = skipCount{}
	k.d, k.ok = Decision{Job: pick, Kind: ReduceTask, Rule: rule}, true
	return true
}

// skipReduces skips user us for this reduce request (Algorithm 4 line 6).
func (p *NAS) skipReduces(us *nasUser) { p.skip(&us.reds) }
