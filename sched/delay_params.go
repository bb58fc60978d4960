package sched

import (
	"fmt"
	"math"
)

// Delay scheduling's paper defaults (Fair Scheduler paper, "Job Scheduling
// for Multi-User MapReduce Clusters", Zaharia et al., section 4.2: "setting
// T1 and T2 as low as 15 seconds can bring locality from 2% to 80%";
// section 6.2.1 runs with T1 = T2 = 15 s).
const (
	DefaultDelayT1S = 15.0
	DefaultDelayT2S = 15.0
)

// DelayParams are delay scheduling's parameters (the `delay` and
// `fifo-delay` policies). Pointer fields tell "unset" (nil: the paper's
// default) from an explicit 0, which disables that wait.
type DelayParams struct {
	// T1S is how long a job is skipped before it may launch rack-local
	// maps, seconds (section 4.2, default 15). T2S is the further wait
	// before it may launch off-rack (default 15). 0 disables a wait: with
	// both 0 the placer is locality-first.
	T1S *float64 `yaml:"t1_s"`
	T2S *float64 `yaml:"t2_s"`
	// IORateBiasing gives jobs measured as CPU-bound the shorter waits
	// CPUBoundT1S and CPUBoundT2S (sections 4.3.2 and 6.2.4). A job's IO
	// rate is its mean input per map over the mean duration of its
	// finished node-local maps; a job not yet measured takes the class of
	// its pool's last measured job, else IO-bound. Default false. The
	// rules and their approximations are spelt out in iorate.go.
	IORateBiasing bool `yaml:"io_rate_biasing"`
	// CPUBoundT1S and CPUBoundT2S are the waits of jobs measured as
	// CPU-bound. Default 0: section 6.2.4 runs compute jobs with T1 = 0 s
	// (and scans with 10 s).
	CPUBoundT1S *float64 `yaml:"cpu_bound_t1_s"`
	CPUBoundT2S *float64 `yaml:"cpu_bound_t2_s"`
	// IOBoundMBPerS is the measured read rate (MB = 2^20 bytes per
	// task-second) at or above which a job is IO-bound. The paper gives no
	// threshold; the default 6.4 is half its IO-bound example (64 MB in
	// 5 s = 12.8 MB/s) and 2.5x its CPU-bound one (64 MB in 25 s = 2.56
	// MB/s), so both examples, and 6.2.4's scans (128 MB in 9 s) and
	// compute jobs (128 MB in 36 s), fall clearly on their sides.
	IOBoundMBPerS *float64 `yaml:"io_bound_mb_per_s"`
	// IOMinMaps is how many node-local maps of a job must have finished
	// before its rate is trusted (default 1; 0 means the default).
	IOMinMaps int `yaml:"io_min_maps" zero:"1"`
	// ResetOnLaunch restores Algorithm 1 literally: every launch resets the
	// job's wait. It is here to reproduce the paper and to show the
	// SPARK-18886 failure it has when tasks prefer one busy node; see
	// DelayPlacer.
	ResetOnLaunch bool `yaml:"reset_on_launch"`
}

// Defaults of the IO-rate biasing parameters (see DelayParams).
const (
	DefaultCPUBoundT1S   = 0.0
	DefaultCPUBoundT2S   = 0.0
	DefaultIOBoundMBPerS = 6.4
	DefaultIOMinMaps     = 1
)

// orDefault is *v, or d when the parameter is unset (nil).
func orDefault[T any](v *T, d T) T {
	if v == nil {
		return d
	}
	return *v
}

// Validate names the first bad parameter.
func (p DelayParams) Validate() error {
	if err := checkNonNeg(
		floatParam{"t1_s", p.T1S}, floatParam{"t2_s", p.T2S},
		floatParam{"cpu_bound_t1_s", p.CPUBoundT1S}, floatParam{"cpu_bound_t2_s", p.CPUBoundT2S},
	); err != nil {
		return err
	}
	// A rate of 0 would call every job IO-bound, however slowly it reads.
	if v := p.IOBoundMBPerS; v != nil && !(*v > 0 && !math.IsInf(*v, 0)) {
		return fmt.Errorf("io_bound_mb_per_s: want a finite number > 0, got %v", *v)
	}
	if p.IOMinMaps < 0 {
		return fmt.Errorf("io_min_maps: must not be negative, got %d", p.IOMinMaps)
	}
	if !p.IORateBiasing {
		switch {
		case p.CPUBoundT1S != nil:
			return fmt.Errorf("cpu_bound_t1_s: has no effect unless io_rate_biasing is true")
		case p.CPUBoundT2S != nil:
			return fmt.Errorf("cpu_bound_t2_s: has no effect unless io_rate_biasing is true")
		case p.IOBoundMBPerS != nil:
			return fmt.Errorf("io_bound_mb_per_s: has no effect unless io_rate_biasing is true")
		case p.IOMinMaps != 0:
			return fmt.Errorf("io_min_maps: has no effect unless io_rate_biasing is true")
		}
	}
	return nil
}

// FairDelayParams are the `delay` policy's parameters: the fair order's
// pools and delay scheduling's waits, side by side in one YAML mapping.
type FairDelayParams struct {
	FairParams  `yaml:",inline"`
	DelayParams `yaml:",inline"`
}

// NewFairDelay returns the `delay` policy: the fair order with delay
// scheduling, the Fair Scheduler paper's complete scheduler (sections 3 and
// 4.2) and what ShuffleWatcher and NAS call "Delay".
func NewFairDelay(p FairDelayParams) (Policy, error) {
	o, err := NewFairOrder(p.FairParams)
	if err != nil {
		return nil, err
	}
	d, err := NewDelayPlacer(p.DelayParams)
	if err != nil {
		return nil, err
	}
	return Compose("delay", o, d), nil
}

// NewFIFODelay returns the `fifo-delay` policy: FIFO order with delay
// scheduling (section 4.1 notes head-of-line scheduling hurts FIFO too).
func NewFIFODelay(p DelayParams) (Policy, error) {
	d, err := NewDelayPlacer(p)
	if err != nil {
		return nil, err
	}
	return Compose("fifo-delay", FIFOOrder{}, d), nil
}
