package sched

import (
	"cmp"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// Reduce enabling (section 3.3). ShuffleWatcher holds a job's reduces back
// beyond the engine's slow-start (Job.ReducesEnabled, which remains
// necessary) until "either the Map phase is complete or there are
// unoccupied slots for the user to schedule a task". mrsched reads the
// second clause as: the job's user has no map left to place, in any of its
// jobs. A slot the fairness order gives that user can then only be
// occupied by a reduce, or stay empty. This is what delays the shuffle:
// while a user still has maps, its reduces wait for their own job's map
// phase to end, and NASS fills the user's slots with maps. The rule is the
// same in both cluster models. In the container model it is exactly "the
// user's maps cannot occupy this container". In the slot model a reduce
// slot can never hold a map, so reading "unoccupied" per slot would enable
// reduces at slow-start whenever a reduce slot is free, which is Hadoop's
// default and delays nothing; under this rule a user's reduce slots go to
// other users' enabled reduces, or stay idle, while its maps run.
//
// Enabling is checked when NASS considers the job's reduces for a slot and
// is then permanent; that is when SARP runs.

// reducesEnabled applies the enabling rule to job j of the user being
// served, enabling it (and running SARP) when the rule first holds.
func (p *ShuffleWatcher) reducesEnabled(j *Job, s *swJob) bool {
	if s.enabled {
		return true
	}
	if !j.ReducesEnabled || (j.FinishedMaps < j.NumMaps && !p.userIdle()) {
		return false
	}
	p.enable(j, s)
	return true
}

// userIdle reports whether the user being served has no pending map in
// any of its jobs; computed once a user per Place call.
func (p *ShuffleWatcher) userIdle() bool {
	k := &p.call
	if !k.idleKnown {
		k.idleKnown, k.idle = true, true
		for _, j := range p.users[k.user].jobs {
			if j.PendingMaps() > 0 {
				k.idle = false
				break
			}
		}
	}
	return k.idle
}

// enable marks job j's reduces enabled and runs SARP (Fig. 6): if more than
// MapCompletionThreshold of its maps are done, each rack's preferred
// number of reduces is NumReduces times the rack's share of the map output
// produced so far (Job.MapOutputByRack); otherwise SAMP's
// TentativeReducesPerRack. Counts are rounded by largest remainder so that
// they add up to NumReduces. NASS then launches up to that many of the
// job's reduces on each rack (Fig. 3, lines 8 and 13).
func (p *ShuffleWatcher) enable(j *Job, s *swJob) {
	s.enabled = true
	if !p.cfg.SARP {
		return
	}
	total := 0.0
	for _, b := range j.MapOutputByRack {
		total += b
	}
	done := float64(j.FinishedMaps) / float64(max(j.NumMaps, 1))
	if done > p.cfg.mapCompletion && total > 0 {
		s.preferred = largestRemainder(j.NumReduces, j.MapOutputByRack)
		return
	}
	s.preferred = slices.Clone(s.tentative)
	if s.preferred == nil {
		s.preferred = make([]int32, p.topo.NumRacks())
	}
}

// sarpWants reports whether SARP wants more of the job's reduces on rack r.
func (s *swJob) sarpWants(r cluster.RackID) bool {
	return s.preferred != nil && s.launched[r] < s.preferred[r]
}

// largestRemainder divides n among len(w) parts in proportion to w: each
// part gets the floor of its quota, and the parts left over go to the
// largest remainders, ties to the lower index. All-zero weights give zeros.
func largestRemainder(n int, w []float64) []int32 {
	out := make([]int32, len(w))
	total := 0.0
	for _, x := range w {
		total += x
	}
	if n <= 0 || total <= 0 {
		return out
	}
	rem := make([]float64, len(w))
	left := n
	for i, x := range w {
		q := float64(n) * x / total
		f := math.Floor(q)
		out[i], rem[i] = int32(f), q-f
		left -= int(f)
	}
	idx := make([]int, len(w))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rem[b], rem[a]) })
	for k := 0; left > 0 && k < len(idx); k++ {
		out[idx[k]]++
		left--
	}
	return out
}

// PreferredReducesPerRack is SARP's preferred number of job j's reduces on
// each rack, by rack; nil until its reduces are enabled, or without SARP.
func (p *ShuffleWatcher) PreferredReducesPerRack(j *Job) []int {
	return int32s(p.state(j).preferred)
}

// ReducesEnabled reports whether ShuffleWatcher has enabled job j's reduces
// (see the enabling rule above); the engine's slow-start is a separate,
// earlier condition.
func (p *ShuffleWatcher) ReducesEnabled(j *Job) bool { return p.state(j).enabled }

// SARPWants reports whether SARP wants more of job j's reduces on rack r
// than have been launched there (the condition of Fig. 3, lines 8 and 13);
// false before the job's reduces are enabled, without SARP, or for a job
// ShuffleWatcher does not track.
func (p *ShuffleWatcher) SARPWants(j *Job, r cluster.RackID) bool {
	if j.Index >= len(p.jobs) || !p.jobs[j.Index].active {
		return false
	}
	return p.jobs[j.Index].sarpWants(r)
}
