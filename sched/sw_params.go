package sched

import (
	"fmt"
	"math"
)

// ShuffleWatcher's paper defaults (Ahmad et al., "ShuffleWatcher:
// Shuffle-aware Scheduling in Multi-tenant MapReduce Clusters", USENIX ATC
// 2014): section 4.2 sets NWSaturationThreshold to 400 of 500 Mbps (80%)
// and MapCompletionThreshold to 15%; section 3.4 uses a 10-minute
// starvation window; section 5.2 a relaxed-fairness interval of 5 s.
const (
	DefaultNWSaturationThreshold  = 0.8
	DefaultMapCompletionThreshold = 0.15
	DefaultStarvationWindowS      = 600.0
	DefaultRelaxedFairnessS       = 5.0
)

// SWParams are ShuffleWatcher's own parameters, shared by every sw-*
// policy. Pointer fields tell "unset" (nil: the paper's default) from an
// explicit value.
type SWParams struct {
	// NWSaturationThreshold is the fraction of a rack uplink's capacity
	// above which NetSat flags the rack's network saturated (section 3.1
	// and 4.2, default 0.8; the paper found 0.75-1.0 within 1%). NetSat
	// samples every engine.monitor_period_s (see NetSat).
	NWSaturationThreshold *float64 `yaml:"nw_saturation_threshold"`
	// MapCompletionThreshold is the fraction of a job's maps that must be
	// finished when its reduces are enabled for SARP to place them by the
	// actual map output; below it SARP uses SAMP's estimate (section 3.3,
	// default 0.15; the paper found 0.05-0.25 within 1%).
	MapCompletionThreshold *float64 `yaml:"map_completion_threshold"`
	// StarvationWindowS is the window of section 3.4, seconds (default
	// 600): a user's jobs submitted longer ago than this go before its
	// other jobs, oldest first, overriding NASS, SAMP and SARP (see
	// ShuffleWatcher.nassUser). 0 disables it.
	StarvationWindowS *float64 `yaml:"starvation_window_s"`
	// KnownRatios takes each job's ShuffleInputRatio from its
	// specification (shuffle bytes / input bytes) instead of measuring it
	// from finished maps: "this ratio could also be provided by the user"
	// (section 3.1). Default false.
	KnownRatios bool `yaml:"known_ratios"`
}

// Validate names the first bad parameter.
func (p SWParams) Validate() error {
	if err := checkNonNeg(
		floatParam{"nw_saturation_threshold", p.NWSaturationThreshold},
		floatParam{"map_completion_threshold", p.MapCompletionThreshold},
	); err != nil {
		return err
	}
	if v := p.MapCompletionThreshold; v != nil && *v > 1 {
		return fmt.Errorf("map_completion_threshold: a fraction of the job's maps, want 0..1, got %v", *v)
	}
	return checkNonNeg(floatParam{"starvation_window_s", p.StarvationWindowS})
}

// floatParam is a number parameter as the Validate methods check it: its
// YAML name, for the error, and its value, nil when unset.
type floatParam struct {
	name string
	v    *float64
}

// checkNonNeg names the first of ps that is set to anything but a finite
// number >= 0, in the order given, so that Validate reports its first bad
// parameter.
func checkNonNeg(ps ...floatParam) error {
	for _, p := range ps {
		if v := p.v; v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
			return fmt.Errorf("%s: want a finite number >= 0, got %v", p.name, *v)
		}
	}
	return nil
}

// SWFairParams are the parameters of `sw-fair`, `sw-nass` and
// `sw-nass-sarp`: the fair order's pools and ShuffleWatcher's thresholds in
// one YAML mapping.
type SWFairParams struct {
	FairParams `yaml:",inline"`
	SWParams   `yaml:",inline"`
}

// SWRelaxedParams are the parameters of `sw-relaxed`: sw-fair's, plus the
// relaxed-fairness interval.
type SWRelaxedParams struct {
	FairParams `yaml:",inline"`
	SWParams   `yaml:",inline"`
	// RelaxedFairnessS is how long a user with no preferred task may be
	// passed over for users that have one, seconds (section 5.2, default
	// 5). 0 is strict fairness (sw-fair).
	RelaxedFairnessS *float64 `yaml:"relaxed_fairness_s"`
}

// SWDelayParams are the parameters of `sw-delay`: the fair order's pools,
// delay scheduling's waits and ShuffleWatcher's thresholds.
type SWDelayParams struct {
	FairParams  `yaml:",inline"`
	DelayParams `yaml:",inline"`
	SWParams    `yaml:",inline"`
}

// SWDRFParams are the parameters of `sw-drf`: DRF's pool weights and
// ShuffleWatcher's thresholds.
type SWDRFParams struct {
	DRFParams `yaml:",inline"`
	SWParams  `yaml:",inline"`
}

// SWOptions select ShuffleWatcher's mechanisms and the fairness it runs
// under; the sw-* constructors set them. The zero value is NASS alone
// under strict fairness.
type SWOptions struct {
	// SAMP and SARP enable shuffle-aware map and reduce placement
	// (sections 3.2, 3.3). The paper's breakdown is additive: SARP needs
	// NASS, SAMP needs SARP (section 5.3).
	SAMP, SARP bool
	// RelaxedFairnessS > 0 lets a user whose best task is not a preferred
	// one be passed over for up to that long (section 3.4, 5.2).
	RelaxedFairnessS float64
	// Delay, when set, gates every map NASS picks by delay scheduling's
	// locality levels and waits (the Delay scheduler underneath).
	Delay *DelayPlacer
	// ResourceFit makes NASS check that the task it picks fits the node's
	// free CPU and memory, for resource-aware orders (DRF).
	ResourceFit bool
}

// swConfig is a validated, defaulted configuration.
type swConfig struct {
	SWOptions
	satThreshold  float64
	mapCompletion float64
	window        float64 // 0: no starvation window
	knownRatios   bool
}

func newSWConfig(p SWParams, o SWOptions) (swConfig, error) {
	if err := p.Validate(); err != nil {
		return swConfig{}, err
	}
	if o.SAMP && !o.SARP {
		return swConfig{}, fmt.Errorf("SAMP needs SARP: the paper's mechanisms are additive (section 5.3)")
	}
	if err := checkNonNeg(floatParam{"relaxed_fairness_s", &o.RelaxedFairnessS}); err != nil {
		return swConfig{}, err
	}
	if o.Delay != nil && o.RelaxedFairnessS > 0 {
		return swConfig{}, fmt.Errorf("relaxed fairness and delay scheduling are two relaxations; choose one")
	}
	return swConfig{
		SWOptions:     o,
		satThreshold:  orDefault(p.NWSaturationThreshold, DefaultNWSaturationThreshold),
		mapCompletion: orDefault(p.MapCompletionThreshold, DefaultMapCompletionThreshold),
		window:        orDefault(p.StarvationWindowS, DefaultStarvationWindowS),
		knownRatios:   p.KnownRatios,
	}, nil
}
