package sched

import "fmt"

// The ShuffleWatcher policies (Ahmad et al., USENIX ATC 2014). Every one is
// a fairness order composed with the ShuffleWatcher placer; they differ in
// the order, the fairness relaxation and, for the ablations of section 5.3
// (Fig. 12, 13: "additive in the order of NASS, SARP, and SAMP"), the
// mechanisms enabled.

// NewSWFair returns `sw-fair` (sections 3, 4.2: "SW-fair"): the Fair
// Scheduler's order with NASS, SAMP and SARP under strict fairness.
// Parameters: the fair policy's pools and preemption, and SWParams
// (nw_saturation_threshold 0.8, map_completion_threshold 0.15,
// starvation_window_s 600, known_ratios false).
func NewSWFair(p SWFairParams) (Policy, error) {
	return newSWOnFair("sw-fair", p.FairParams, p.SWParams, SWOptions{SAMP: true, SARP: true})
}

// NewSWNASS returns `sw-nass` (section 5.3, the first bar of Fig. 12-13):
// NASS alone on the fair order, with no SAMP or SARP preferences (lines 4,
// 8, 13 and 16 never fire). Parameters: as sw-fair, except
// map_completion_threshold, which only SARP reads.
func NewSWNASS(p SWFairParams) (Policy, error) {
	if p.MapCompletionThreshold != nil {
		return nil, fmt.Errorf("map_completion_threshold: has no effect without SARP (use sw-nass-sarp or sw-fair)")
	}
	return newSWOnFair("sw-nass", p.FairParams, p.SWParams, SWOptions{})
}

// NewSWNASSSARP returns `sw-nass-sarp` (section 5.3, second bar): NASS
// and SARP on the fair order, without SAMP's map preferences; SARP's
// fallback estimate assumes maps run where their input is. Parameters: as
// sw-fair.
func NewSWNASSSARP(p SWFairParams) (Policy, error) {
	return newSWOnFair("sw-nass-sarp", p.FairParams, p.SWParams, SWOptions{SARP: true})
}

// NewSWRelaxed returns `sw-relaxed` (section 5.2: "SW-relaxed",
// ShuffleWatcher "configured with Delay Scheduler's relaxed fairness
// constraints", a 5 s interval): sw-fair, except that a user with no
// preferred task may be passed over for up to relaxed_fairness_s (5) in
// favour of users that have one (see passOver). Parameters: sw-fair's and
// relaxed_fairness_s.
func NewSWRelaxed(p SWRelaxedParams) (Policy, error) {
	relax := orDefault(p.RelaxedFairnessS, DefaultRelaxedFairnessS)
	return newSWOnFair("sw-relaxed", p.FairParams, p.SWParams, SWOptions{SAMP: true, SARP: true, RelaxedFairnessS: relax})
}

// NewSWDelay returns `sw-delay`, ShuffleWatcher on the Delay scheduler (NAS
// paper, section IV: "SW-delay"): the fair order, NASS, SAMP and SARP, with
// every map NASS picks bounded by delay scheduling's per-job locality
// levels and waits (see level). Parameters: the delay policy's (pools,
// t1_s 15, t2_s 15, ...) and SWParams.
func NewSWDelay(p SWDelayParams) (Policy, error) {
	d, err := NewDelayPlacer(p.DelayParams)
	if err != nil {
		return nil, err
	}
	return newSWOnFair("sw-delay", p.FairParams, p.SWParams, SWOptions{SAMP: true, SARP: true, Delay: d})
}

// NewSWDRF returns `sw-drf` (section 4.2: "SW-DRF"): DRF picks the user,
// the ResourceFit stage passes only jobs whose next task fits the node, and
// ShuffleWatcher (NASS, SAMP, SARP) picks among them, checking that the
// task it picks fits. Parameters: DRF's weights and SWParams.
func NewSWDRF(p SWDRFParams) (Policy, error) {
	o, err := NewDRFOrder(p.DRFParams)
	if err != nil {
		return nil, err
	}
	sw, err := NewShuffleWatcher(p.SWParams, SWOptions{SAMP: true, SARP: true, ResourceFit: true})
	if err != nil {
		return nil, err
	}
	return Compose("sw-drf", o, NewResourceFit(sw)), nil
}

func newSWOnFair(name string, fp FairParams, sp SWParams, opt SWOptions) (Policy, error) {
	o, err := NewFairOrder(fp)
	if err != nil {
		return nil, err
	}
	sw, err := NewShuffleWatcher(sp, opt)
	if err != nil {
		return nil, err
	}
	return Compose(name, o, sw), nil
}

// ShuffleWatcherOf returns the ShuffleWatcher placer inside a policy built
// by one of the sw-* constructors (directly, or under the ResourceFit stage
// of sw-drf), so that experiments can read its per-job decisions
// (PreferredMapRacks, PreferredReducesPerRack, NetworkSaturated) while the
// policy runs. ok is false for any other policy.
func ShuffleWatcherOf(p Policy) (sw *ShuffleWatcher, ok bool) {
	var c *Composed
	switch v := p.(type) {
	case *Composed:
		c = v
	case *preemptive:
		c = v.Composed
	default:
		return nil, false
	}
	pl := c.placer
	if f, isFit := pl.(*ResourceFit); isFit {
		pl = f.inner
	}
	sw, ok = pl.(*ShuffleWatcher)
	return sw, ok
}
