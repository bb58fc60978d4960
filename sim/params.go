// Package sim is mrsched's discrete-event engine: it executes map and reduce
// tasks over a modelled cluster and network in virtual time, offers free
// slots to a scheduling policy, and records what happened.
package sim

import (
	"fmt"
	"math"
)

// Params are the engine's knobs. Zero values take the defaults below, which
// follow Hadoop's.
type Params struct {
	// HeartbeatS is the period at which each node offers its free slots
	// again (Hadoop's minimum TaskTracker heartbeat, 3 s). Slots are also
	// offered at once when a task ends.
	HeartbeatS float64 `yaml:"heartbeat_s"`
	// SlowStart is the fraction of a job's maps that must finish before its
	// reduces may launch (mapred.reduce.slowstart.completed.maps, 0.05).
	SlowStart float64 `yaml:"slow_start"`
	// ParallelCopies is how many source nodes a reduce fetches from at once
	// (mapred.reduce.parallel.copies, 5).
	ParallelCopies int `yaml:"parallel_copies"`
	// TaskStartupS is a fixed launch cost per task attempt (JVM start).
	// Default 0: the model charges only work the papers describe.
	TaskStartupS float64 `yaml:"task_startup_s"`
	// MonitorPeriodS is the network monitor's sampling period, over which
	// uplink utilisation is averaged (NetSat's "few seconds"; default 3).
	MonitorPeriodS float64 `yaml:"monitor_period_s"`
	// CongestionThreshold is the uplink utilisation counted as congestion
	// (0.8, as ShuffleWatcher and NAS use).
	CongestionThreshold float64 `yaml:"congestion_threshold"`
	// TimeseriesPeriodS is the period of timeseries.csv rows (default 60).
	TimeseriesPeriodS float64 `yaml:"timeseries_period_s"`
	// PreemptionIntervalS is how often a preempting policy is asked for
	// victims: the Fair Scheduler's update interval, 0.5 s.
	PreemptionIntervalS float64 `yaml:"preemption_interval_s"`
	// StallS ends a run with an error when no task has run and nothing has
	// changed for this long while jobs wait (default one simulated day):
	// a policy that declines forever must not hang the tool.
	StallS float64 `yaml:"stall_s"`
	// CopyCompute is the Fair Scheduler paper's copy-compute splitting
	// (section 5.2, Compute Phase Admission Control); off by default.
	CopyCompute CopyCompute `yaml:"copy_compute"`
	// NetworkQuantumS selects the network's quantized mode: rates are
	// re-solved exactly at most once per this many simulated seconds, and
	// changes in between get provisional rates (see network.SetQuantum for
	// the rule and its error bound). 0, the default, is the exact mode,
	// which re-solves on every change. Large clusters under busy traces
	// run many times faster with a quantum of a fraction of a second; the
	// docs/performance.md gives the measured error.
	NetworkQuantumS float64 `yaml:"network_quantum_s"`
	// CheckInvariants verifies slot accounting and byte conservation as
	// the run goes, at some cost; tests turn it on.
	CheckInvariants bool `yaml:"check_invariants"`
}

// WithDefaults fills zero fields.
func (p Params) WithDefaults() Params {
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&p.HeartbeatS, 3)
	set(&p.SlowStart, 0.05)
	if p.ParallelCopies == 0 {
		p.ParallelCopies = 5
	}
	set(&p.MonitorPeriodS, 3)
	set(&p.CongestionThreshold, 0.8)
	set(&p.TimeseriesPeriodS, 60)
	set(&p.StallS, 86400)
	set(&p.PreemptionIntervalS, 0.5)
	return p
}

// Validate names the first bad parameter.
func (p Params) Validate() error {
	check := []struct {
		name string
		v    float64
		ok   bool
	}{
		{"heartbeat_s", p.HeartbeatS, p.HeartbeatS > 0},
		{"slow_start", p.SlowStart, p.SlowStart >= 0 && p.SlowStart <= 1},
		{"task_startup_s", p.TaskStartupS, p.TaskStartupS >= 0},
		{"monitor_period_s", p.MonitorPeriodS, p.MonitorPeriodS > 0},
		{"congestion_threshold", p.CongestionThreshold, p.CongestionThreshold > 0},
		{"timeseries_period_s", p.TimeseriesPeriodS, p.TimeseriesPeriodS > 0},
		{"stall_s", p.StallS, p.StallS > 0},
		{"preemption_interval_s", p.PreemptionIntervalS, p.PreemptionIntervalS > 0},
		{"network_quantum_s", p.NetworkQuantumS, p.NetworkQuantumS >= 0},
	}
	for _, c := range check {
		if !c.ok || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("engine.%s: invalid value %v", c.name, c.v)
		}
	}
	if p.ParallelCopies < 1 {
		return fmt.Errorf("engine.parallel_copies: must be at least 1, got %d", p.ParallelCopies)
	}
	return nil
}

// CopyCompute configures copy-compute splitting (Fair Scheduler paper,
// section 5.2): a node runs up to MaxReducers reducers but lets only
// MaxComputing of them compute at once; a reducer that has copied its input
// waits for a compute slot. A job may have at most MaxComputing reducers
// copying on a node, so one large job cannot fill a node's reducers while
// its maps run. The paper sets MaxComputing to the node's reduce slots in
// unmodified Hadoop and MaxReducers "several times higher" (its example:
// 2 and 6); those are the defaults (MaxReducers = 3 x MaxComputing). Slot
// model only.
type CopyCompute struct {
	Enabled      bool `yaml:"enabled"`
	MaxReducers  int  `yaml:"max_reducers"`
	MaxComputing int  `yaml:"max_computing"`
}
