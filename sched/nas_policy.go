package sched

import "fmt"

// The NAS policies (Lin et al., "NAS: A Network-Aware Scheduler for
// MapReduce"): the Fair order, delay scheduling's user list (section
// III-C: "We build MTS upon Delay scheduler"), composed with the NAS
// placer. They differ in the mechanisms enabled: the full scheduler, the
// additive ablations of section IV ("NAS w/ MTS", "w/ MTS+CA-RTS") and the
// TrafficThreshold ablations of Fig. 3(g) ("w/o TT", "w/o both"). Every
// one takes the fair policy's pools and preemption and NASParams:
// congestion_threshold (0.8), map_skips (135), reduce_skips (135),
// skips_on ("freed": only offers of slots a task just freed count), wait_s
// (0: skip counts), light_mb (1), heavy_mb (100), small_input_mb (10),
// recurring_share (0), map_completion_threshold (0), threshold_period_s (3).

// NewNASFair returns `nas` (section III, Algorithm 1): MTS, CA-RTS and
// CR-RTS on the Fair order.
func NewNASFair(p NASFairParams) (Policy, error) {
	return newNASOnFair("nas", p, NASOptions{CARTS: true, CRRTS: true})
}

// NewNASMTS returns `nas-mts` (section IV, "NAS w/ MTS"): MTS places maps;
// reduces run at once wherever their job's turn comes, as under Delay.
// The reduce-side parameters (congestion_threshold, reduce_skips,
// map_completion_threshold) have no effect and are rejected.
func NewNASMTS(p NASFairParams) (Policy, error) {
	if p.CongestionThreshold != nil || p.ReduceSkips != nil || p.MapCompletionThreshold != nil {
		return nil, fmt.Errorf("congestion_threshold, reduce_skips, map_completion_threshold: no effect without CA-RTS and CR-RTS (use nas)")
	}
	return newNASOnFair("nas-mts", p, NASOptions{})
}

// NewNASMTSCARTS returns `nas-mts-carts` (section IV, "NAS w/
// MTS+CA-RTS"): MTS and CA-RTS, without CR-RTS: reduces are placed by
// CA-RTS whatever the congestion. congestion_threshold and reduce_skips
// have no effect and are rejected.
func NewNASMTSCARTS(p NASFairParams) (Policy, error) {
	if p.CongestionThreshold != nil || p.ReduceSkips != nil {
		return nil, fmt.Errorf("congestion_threshold, reduce_skips: no effect without CR-RTS (use nas)")
	}
	return newNASOnFair("nas-mts-carts", p, NASOptions{CARTS: true})
}

// NewNASNoTT returns `nas-no-tt` (section IV, Fig. 3(g) "w/o TT"): nas
// without TrafficThreshold, so every map is shuffle-qualified and MTS is
// delay scheduling by skip counts with NAS's categories.
func NewNASNoTT(p NASFairParams) (Policy, error) {
	if p.ThresholdPeriodS != nil {
		return nil, fmt.Errorf("threshold_period_s: no effect without TrafficThreshold")
	}
	return newNASOnFair("nas-no-tt", p, NASOptions{CARTS: true, CRRTS: true, NoTrafficThreshold: true})
}

// NewNASNoTTCRRTS returns `nas-no-tt-crrts` (section IV, Fig. 3(g) "w/o
// both"): without TrafficThreshold and without CR-RTS; MTS and CA-RTS
// remain.
func NewNASNoTTCRRTS(p NASFairParams) (Policy, error) {
	if p.ThresholdPeriodS != nil || p.CongestionThreshold != nil || p.ReduceSkips != nil {
		return nil, fmt.Errorf("threshold_period_s, congestion_threshold, reduce_skips: no effect without TrafficThreshold and CR-RTS")
	}
	return newNASOnFair("nas-no-tt-crrts", p, NASOptions{CARTS: true, NoTrafficThreshold: true})
}

func newNASOnFair(name string, p NASFairParams, opt NASOptions) (Policy, error) {
	o, err := NewFairOrder(p.FairParams)
	if err != nil {
		return nil, err
	}
	n, err := NewNAS(p.NASParams, opt)
	if err != nil {
		return nil, err
	}
	return Compose(name, o, n), nil
}
