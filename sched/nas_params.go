package sched

import (
	"fmt"
	"math"
)

// NAS's defaults (Lin et al., "NAS: A Network-Aware Scheduler for
// MapReduce", sections III and IV). Sizes are in MB = 2^20 bytes, the
// project's convention.
const (
	// DefaultNASCongestionThreshold is Algorithm 1's CongestionThreshold:
	// section IV "we set the network congestion threshold to 80%".
	DefaultNASCongestionThreshold = 0.8
	// DefaultNASMapSkips and DefaultNASReduceSkips are D^m and D^r
	// (section IV: "D^m = D^r = 135").
	DefaultNASMapSkips    = 135
	DefaultNASReduceSkips = 135
	// DefaultNASLightMB and DefaultNASHeavyMB bound the shuffle classes
	// (section III-A and IV): light < 1 MB, medium 1-100 MB, heavy > 100 MB.
	DefaultNASLightMB = 1.0
	DefaultNASHeavyMB = 100.0
	// DefaultNASSmallInputMB is MTS's small-input bound (section III-C:
	// "smaller and larger than 10MB").
	DefaultNASSmallInputMB = 10.0
	// DefaultNASThresholdPeriodS is how often TrafficThreshold is
	// recomputed ("updated periodically", section III-C; the paper gives
	// no period): 3 s, the engine's default heartbeat.
	DefaultNASThresholdPeriodS = 3.0
	// DefaultNASSkipsOn is what counts as a skip: an offer of a slot a
	// task just freed (section III-C counts a user's skips per request,
	// and a request is a freed container: "27 containers are freed every
	// second on average" makes D^m = 135 about 5 s).
	DefaultNASSkipsOn = NASSkipsOnFreed
)

// What MTS and CR-RTS count as a skip (NASParams.SkipsOn).
const (
	// NASSkipsOnFreed counts a user's skips on offers of slots that a
	// task just freed (sched.Offer.Freed) only: a node's periodic
	// re-offer of an idle slot may still launch a task, but passing the
	// user over there is not a request it waited through.
	NASSkipsOnFreed = "freed"
	// NASSkipsOnEveryOffer counts a skip on every offer, periodic
	// re-offers of idle slots included: about 200 a second on a 600-node
	// cluster with 3 s heartbeats, so that D^m = 135 passes in under a
	// second.
	NASSkipsOnEveryOffer = "every-offer"
)

// NASParams are NAS's own parameters, shared by every nas* policy. Pointer
// fields tell "unset" (nil: the default) from an explicit value.
type NASParams struct {
	// CongestionThreshold is Algorithm 1's CongestionThreshold: a rack is
	// congested when the larger of its uplink's up and down utilisation
	// (Cluster.UplinkUtilization) reaches it (section III-D, default 0.8).
	CongestionThreshold *float64 `yaml:"congestion_threshold"`
	// MapSkips is D^m, the times MTS may skip a user before the user's
	// maps may run without data locality or shuffle qualification
	// (section III-C, default 135).
	MapSkips *int `yaml:"map_skips"`
	// ReduceSkips is D^r, the times CR-RTS may skip a user that has no
	// shuffle-light reduce before it may run any reduce (section III-E,
	// default 135).
	ReduceSkips *int `yaml:"reduce_skips"`
	// WaitS, when > 0, replaces both skip counts by a wait: a user may be
	// relaxed once it has been skipped continuously for WaitS seconds, as
	// in the paper's real-cluster set-up (section IV: "a maximum wait time
	// of 5 seconds"). Default 0: skip counts.
	WaitS *float64 `yaml:"wait_s"`
	// LightMB and HeavyMB are the shuffle-class bounds on a job's predicted
	// shuffle (section III-A): light below LightMB (1), heavy above
	// HeavyMB (100), medium between.
	LightMB *float64 `yaml:"light_mb"`
	HeavyMB *float64 `yaml:"heavy_mb"`
	// SmallInputMB is MTS's small-input bound on a job's input (section
	// III-C, default 10).
	SmallInputMB *float64 `yaml:"small_input_mb"`
	// RecurringShare is the share of jobs whose output/input ratio is known
	// at submission (section III-A: recurring jobs, "obtained from previous
	// runs"); which jobs is fixed by a hash of Job.Index. Default 0: every
	// job starts unpredicted at ratio 1.
	RecurringShare *float64 `yaml:"recurring_share"`
	// MapCompletionThreshold is the fraction of a job's maps that must be
	// finished before CA-RTS or CR-RTS start its reduces (section III-D,
	// Algorithm 3 line 2). Default 0: the engine's slow-start
	// (Job.ReducesEnabled) is the only bar.
	MapCompletionThreshold *float64 `yaml:"map_completion_threshold"`
	// ThresholdPeriodS is how often TrafficThreshold is recomputed, seconds
	// (section III-C "updated periodically", default 3). 0 recomputes it on
	// every offer.
	ThresholdPeriodS *float64 `yaml:"threshold_period_s"`
	// SkipsOn is which offers count towards D^m and D^r: "freed" (the
	// default, section III-C's requests: slots a task just freed) or
	// "every-offer" (periodic re-offers of idle slots too).
	SkipsOn *string `yaml:"skips_on"`
}

// Validate names the first bad parameter.
func (p NASParams) Validate() error {
	if err := checkNonNeg(
		floatParam{"congestion_threshold", p.CongestionThreshold}, floatParam{"wait_s", p.WaitS},
		floatParam{"light_mb", p.LightMB}, floatParam{"heavy_mb", p.HeavyMB}, floatParam{"small_input_mb", p.SmallInputMB},
		floatParam{"recurring_share", p.RecurringShare}, floatParam{"map_completion_threshold", p.MapCompletionThreshold},
		floatParam{"threshold_period_s", p.ThresholdPeriodS},
	); err != nil {
		return err
	}
	for _, f := range []floatParam{{"recurring_share", p.RecurringShare}, {"map_completion_threshold", p.MapCompletionThreshold}} {
		if f.v != nil && *f.v > 1 {
			return fmt.Errorf("%s: want a fraction in [0, 1], got %v", f.name, *f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"map_skips", p.MapSkips}, {"reduce_skips", p.ReduceSkips}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Errorf("%s: must not be negative, got %d", f.name, *f.v)
		}
	}
	light := orDefault(p.LightMB, DefaultNASLightMB)
	if heavy := orDefault(p.HeavyMB, DefaultNASHeavyMB); heavy < light {
		return fmt.Errorf("heavy_mb: want >= light_mb (%v), got %v", light, heavy)
	}
	if p.WaitS != nil && *p.WaitS > 0 && (p.MapSkips != nil || p.ReduceSkips != nil) {
		return fmt.Errorf("wait_s: replaces map_skips and reduce_skips; set one or the other")
	}
	if p.SkipsOn != nil {
		switch *p.SkipsOn {
		case NASSkipsOnFreed, NASSkipsOnEveryOffer:
		default:
			return fmt.Errorf("skips_on: want %s or %s, got %q", NASSkipsOnFreed, NASSkipsOnEveryOffer, *p.SkipsOn)
		}
		if p.WaitS != nil && *p.WaitS > 0 {
			return fmt.Errorf("skips_on: applies to skip counts; wait_s replaces them")
		}
	}
	return nil
}

// NASOptions selects NAS's mechanisms, for the paper's ablations (section
// IV, Fig. 3(g) and the "NAS w/ MTS", "w/ MTS+CA-RTS" bars).
type NASOptions struct {
	// CARTS places reduces by CA-RTS (Algorithm 3); without it a reduce
	// runs at once wherever its job's turn comes, as under Delay.
	CARTS bool
	// CRRTS switches reduces to CR-RTS (Algorithm 4) on congested racks
	// and holds back medium and heavy maps there; needs CARTS.
	CRRTS bool
	// NoTrafficThreshold drops MTS's TrafficThreshold: every map is
	// shuffle-qualified ("w/o TT").
	NoTrafficThreshold bool
}

// nasConfig is a validated, defaulted configuration.
type nasConfig struct {
	NASOptions
	congestion            float64
	mapSkips, reduceSkips int
	// everyOffer counts a skip on every offer (skips_on: every-offer).
	everyOffer          bool
	waitS               float64
	light, heavy, small float64 // bytes
	recurring           float64
	mapDone             float64
	period              float64
}

func newNASConfig(p NASParams, o NASOptions) (nasConfig, error) {
	if err := p.Validate(); err != nil {
		return nasConfig{}, err
	}
	if o.CRRTS && !o.CARTS {
		return nasConfig{}, fmt.Errorf("NAS options: CR-RTS needs CA-RTS")
	}
	const mb = 1 << 20
	return nasConfig{
		NASOptions:  o,
		congestion:  orDefault(p.CongestionThreshold, DefaultNASCongestionThreshold),
		mapSkips:    orDefault(p.MapSkips, DefaultNASMapSkips),
		reduceSkips: orDefault(p.ReduceSkips, DefaultNASReduceSkips),
		everyOffer:  p.SkipsOn != nil && *p.SkipsOn == NASSkipsOnEveryOffer,
		waitS:       orDefault(p.WaitS, 0),
		light:       orDefault(p.LightMB, DefaultNASLightMB) * mb,
		heavy:       orDefault(p.HeavyMB, DefaultNASHeavyMB) * mb,
		small:       orDefault(p.SmallInputMB, DefaultNASSmallInputMB) * mb,
		recurring:   orDefault(p.RecurringShare, 0),
		mapDone:     orDefault(p.MapCompletionThreshold, 0),
		period:      orDefault(p.ThresholdPeriodS, DefaultNASThresholdPeriodS),
	}, nil
}

// NASFairParams are the parameters of every nas* policy: the fair order's
// pools and preemption, and NASParams, in one YAML mapping.
type NASFairParams struct {
	FairParams `yaml:",inline"`
	NASParams  `yaml:",inline"`
}

// NASLocalMapProbability is the analysis of MTS's skip counter (section
// III-C): a user with jobs J_1..J_m, where a fraction p_j of nodes holds
// J_j's input and a map of J_j is shuffle-qualified with probability q_j,
// fails to find a data-local, shuffle-qualified map on each of d offers with
// probability prod_j (1 - p_j q_j)^d (the paper's formula, offers taken as
// independent); this returns the complement, the chance of launching one
// within d skips. The paper's example: p = 0.1, q = 0.5, three jobs, d = 10
// gives 78.5%.
func NASLocalMapProbability(p, q []float64, d int) float64 {
	miss := 1.0
	for i := range p {
		miss *= math.Pow(1-p[i]*q[i], float64(d))
	}
	return 1 - miss
}
