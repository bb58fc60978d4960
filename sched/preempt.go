package sched

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// PreemptionParams configure the Fair Scheduler's task killing (Fair
// Scheduler paper, section 3.2): when a pool has been below its minimum
// share for MinShareTimeoutS (Tmin), or below its fair share for
// FairShareTimeoutS (Tfair), the most recently launched tasks of pools
// above their fair share are killed, never taking a pool below its own
// share. Killed work is lost and the task returns to pending.
//
// The paper gives no values for the timeouts; the defaults are Hadoop's
// Fair Scheduler's: a fair-share timeout of 600 s
// (fairSharePreemptionTimeout) and, since Hadoop sets no global minimum-share
// timeout, 60 s for Tmin (which must stay below Tfair, as the paper says).
//
// A pool is starved for its fair share below FairShareThreshold times it,
// and then reclaims up to the whole share. The paper's rule is the whole
// share, threshold 1, the default; Hadoop 1's Fair Scheduler starves a pool
// below half its fair share (isStarvedForFairShare), and YARN's below its
// fairSharePreemptionThreshold, 0.5 by default, which an allocation file
// sets.
type PreemptionParams struct {
	// Enabled turns killing on; it is off by default, as in Hadoop.
	Enabled            bool    `yaml:"enabled"`
	MinShareTimeoutS   float64 `yaml:"min_share_timeout_s" zero:"60"`
	FairShareTimeoutS  float64 `yaml:"fair_share_timeout_s" zero:"600"`
	FairShareThreshold float64 `yaml:"fair_share_threshold" zero:"1"`
	// ClusterUtilizationThreshold, where above 0, lets tasks be killed
	// only while the cluster's use is above it (YARN's
	// yarn.scheduler.fair.preemption.cluster-utilization-threshold, 0.8
	// by default: FairScheduler.shouldAttemptPreemption); starvation is
	// timed all the same. 0, the default, is the paper's: no gate.
	ClusterUtilizationThreshold float64 `yaml:"cluster_utilization_threshold"`
}

// Default preemption timeouts.
const (
	DefaultMinShareTimeoutS  = 60
	DefaultFairShareTimeoutS = 600
)

func (p PreemptionParams) withDefaults() PreemptionParams {
	if p.MinShareTimeoutS == 0 {
		p.MinShareTimeoutS = DefaultMinShareTimeoutS
	}
	if p.FairShareTimeoutS == 0 {
		p.FairShareTimeoutS = DefaultFairShareTimeoutS
	}
	if p.FairShareThreshold == 0 {
		p.FairShareThreshold = 1
	}
	return p
}

func (p PreemptionParams) validate() error {
	if p.MinShareTimeoutS < 0 || math.IsNaN(p.MinShareTimeoutS) {
		return fmt.Errorf("preemption.min_share_timeout_s: must be positive, got %v", p.MinShareTimeoutS)
	}
	if p.FairShareTimeoutS < 0 || math.IsNaN(p.FairShareTimeoutS) {
		return fmt.Errorf("preemption.fair_share_timeout_s: must be positive, got %v", p.FairShareTimeoutS)
	}
	if !(p.ClusterUtilizationThreshold >= 0 && p.ClusterUtilizationThreshold <= 1) {
		return fmt.Errorf("preemption.cluster_utilization_threshold: want a fraction of the cluster, 0 to 1, got %v", p.ClusterUtilizationThreshold)
	}
	if !(p.FairShareThreshold >= 0 && p.FairShareThreshold <= 1) {
		return fmt.Errorf("preemption.fair_share_threshold: want a fraction of the fair share, above 0 and at most 1, got %v", p.FairShareThreshold)
	}
	return nil
}

// starvation is when each pool was last at its minimum and fair share.
type starvation struct {
	atMin, atFair [3]float64
	seen          [3]bool
}

// PreemptionEnabled reports whether this order kills tasks.
func (f *FairOrder) PreemptionEnabled() bool { return f.preempt.Enabled }

// Preempt returns the attempts to kill now, for every slot kind the cluster
// has. A pool is starved for its minimum share when it runs fewer tasks than
// min(minimum share, demand), and for its fair share when it runs fewer than
// its fair share rounded down (shares are fractional; tasks are not). It may
// reclaim its deficit once starved longer than the timeout; victims are the
// most recently launched tasks of pools running more than their fair share
// rounded up, taken while their pool stays at or above that.
func (f *FairOrder) Preempt(c Cluster) []TaskRef {
	if !f.preempt.Enabled {
		return nil
	}
	now := c.Now()
	var kill []TaskRef
	kinds := []SlotKind{MapSlot, ReduceSlot}
	if c.Topology().ContainerModel() {
		kinds = []SlotKind{AnySlot}
	}
	for _, s := range kinds {
		f.update(c, s)
		want := 0
		for _, p := range f.active {
			st := f.starving(p)
			run := float64(p.runningFor(s))
			minTarget := math.Floor(min(p.minShare(s), p.demand[s]))
			fairTarget := math.Floor(p.share[s] + 1e-9)
			tmin, tfair, thr := p.cfg.timeouts(f.preempt)
			starved := fairTarget // the paper's rule, threshold 1, to the bit
			if thr != 1 {
				starved = math.Floor(thr*p.share[s] + 1e-9)
			}
			if !st.seen[s] {
				st.atMin[s], st.atFair[s], st.seen[s] = now, now, true
			}
			if run >= minTarget {
				st.atMin[s] = now
			}
			if run >= starved {
				st.atFair[s] = now
			}
			need := 0.0
			if now-st.atMin[s] >= tmin {
				need = minTarget - run
			}
			if now-st.atFair[s] >= tfair {
				need = max(need, fairTarget-run)
			}
			want += int(max(need, 0))
		}
		if want > 0 {
			kill = append(kill, f.victims(c, s, want)...)
		}
	}
	if thr := f.preempt.ClusterUtilizationThreshold; thr > 0 && len(kill) > 0 && f.utilization(c, kinds) <= thr {
		return nil // the starvation clocks ran; the kills wait for a busier cluster
	}
	return kill
}

// utilization is the cluster's use: running tasks over slots, the most
// used kind's in the slot model (YARN takes the larger of memory's and
// cores').
func (f *FairOrder) utilization(c Cluster, kinds []SlotKind) float64 {
	u := 0.0
	for _, s := range kinds {
		run := 0
		for _, p := range f.active {
			run += p.runningFor(s)
		}
		if total := c.TotalSlots(s); total > 0 {
			u = max(u, float64(run)/float64(total))
		}
	}
	return u
}

func (f *FairOrder) starving(p *pool) *starvation {
	if p.starve == nil {
		p.starve = &starvation{}
	}
	return p.starve
}

// victims picks up to n running attempts of kind s, most recently launched
// first, from pools above their fair share that allow preemption from
// them, never taking a pool below its share.
func (f *FairOrder) victims(c Cluster, s SlotKind, n int) []TaskRef {
	var cand []TaskRef
	surplus := map[string]int{} // pool name -> tasks it may lose; lookup only
	for _, p := range f.active {
		extra := p.runningFor(s) - int(math.Ceil(p.share[s]-1e-9))
		if extra <= 0 || !p.cfg.preemptable() {
			continue
		}
		surplus[p.name] = extra
		for _, j := range p.jobs {
			for _, t := range c.RunningTasks(j) {
				if s == AnySlot || (s == MapSlot) == (t.Kind == MapTask) {
					cand = append(cand, t)
				}
			}
		}
	}
	// Newest first; ties by job then task, so the choice is deterministic.
	slices.SortFunc(cand, func(a, b TaskRef) int {
		if c := cmp.Compare(b.Start, a.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Job.Index, b.Job.Index); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	var out []TaskRef
	for _, t := range cand {
		if len(out) == n {
			break
		}
		if surplus[t.Job.Pool] > 0 {
			surplus[t.Job.Pool]--
			out = append(out, t)
		}
	}
	return out
}
