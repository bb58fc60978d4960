// Package sim is mrsched's discrete-event engine: it executes map and reduce
// tasks over a modelled cluster and network in virtual time, offers free
// slots to a scheduling policy, and records what happened.
package sim

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// Params are the engine's knobs. Zero values take the defaults below, which
// follow Hadoop's; SlowStart, whose 0 is meaningful, is a pointer so that
// nil stands for the default. A scenario file refuses a written 0 wherever
// 0 is not a valid value (docs/scenarios.md), so a zero here always means
// "not set".
type Params struct {
	// HeartbeatS is the period at which each node offers its free slots
	// again (Hadoop's minimum TaskTracker heartbeat, 3 s). Slots are also
	// offered at once when a task ends.
	HeartbeatS float64 `yaml:"heartbeat_s" json:"heartbeat_s"`
	// SlowStart is the fraction of a job's maps that must finish before its
	// reduces may launch (mapred.reduce.slowstart.completed.maps, 0.05);
	// 0 lets reduces launch with the job. Nil takes the default.
	SlowStart *float64 `yaml:"slow_start" json:"slow_start"`
	// ParallelCopies is how many source nodes a reduce fetches from at once
	// (mapred.reduce.parallel.copies, 5).
	ParallelCopies int `yaml:"parallel_copies" json:"parallel_copies"`
	// TaskStartupS is a fixed launch cost per task attempt (JVM start).
	// Default 0: the model charges only work the papers describe.
	TaskStartupS float64 `yaml:"task_startup_s" json:"task_startup_s"`
	// MonitorPeriodS is the network monitor's sampling period, over which
	// uplink utilisation is averaged (NetSat's "few seconds"; default 3).
	MonitorPeriodS float64 `yaml:"monitor_period_s" json:"monitor_period_s"`
	// CongestionThreshold is the uplink utilisation counted as congestion
	// (0.8, as ShuffleWatcher and NAS use).
	CongestionThreshold float64 `yaml:"congestion_threshold" json:"congestion_threshold"`
	// TimeseriesPeriodS is the period of timeseries.csv rows (default 60).
	TimeseriesPeriodS float64 `yaml:"timeseries_period_s" json:"timeseries_period_s"`
	// PreemptionIntervalS is how often a preempting policy is asked for
	// victims: the Fair Scheduler's update interval, 0.5 s.
	PreemptionIntervalS float64 `yaml:"preemption_interval_s" json:"preemption_interval_s"`
	// StallS ends a run with an error when no task has run and nothing has
	// changed for this long while jobs wait (default one simulated day; a
	// scenario's default follows its workload's span): a policy that
	// declines forever must not hang the tool.
	StallS float64 `yaml:"stall_s" json:"stall_s"`
	// CopyCompute is the Fair Scheduler paper's copy-compute splitting
	// (section 5.2, Compute Phase Admission Control); off by default.
	CopyCompute CopyCompute `yaml:"copy_compute" json:"copy_compute"`
	// NetworkQuantumS selects the network's quantized mode: rates are
	// re-solved exactly at most once per this many simulated seconds, and
	// changes in between get provisional rates (see network.SetQuantum for
	// the rule and its error bound). 0, the default, is the exact mode,
	// which re-solves on every change. Large clusters under busy traces
	// run many times faster with a quantum of a fraction of a second; the
	// docs/performance.md gives the measured error.
	NetworkQuantumS float64 `yaml:"network_quantum_s" json:"network_quantum_s"`
	// TimeBreakdown records where each job's time goes (package
	// critpath): the scenario's metrics.time_breakdown.
	TimeBreakdown bool `yaml:"-" json:"-"`
	// Transport is how a network transfer shares its links: "maxmin"
	// (empty, the default), the fluid max-min model, in which a flow's
	// payload gets all of its share of a link's rate; or "tcp", the same
	// model with each NIC and uplink giving payload only TCPPayloadFraction
	// of its rate, the rest going to the headers of the frames that carry
	// it (docs/fidelity.md, Transport).
	Transport string `yaml:"transport" json:"transport,omitempty"`
	// TCPPayloadFraction is the payload's share of a link's rate under
	// transport tcp. Default DefaultTCPPayloadFraction.
	TCPPayloadFraction float64 `yaml:"tcp_payload_fraction" json:"tcp_payload_fraction,omitempty"`
	// MaxAttempts is how many attempts of one task may fail before its
	// job fails: Hadoop's mapred.map.max.attempts and
	// mapred.reduce.max.attempts (mapreduce.map.maxattempts and
	// mapreduce.reduce.maxattempts in Hadoop 2), both 4 by default. Killed
	// attempts (preemption) do not count, as in Hadoop.
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
	// TaskFailureRate is the probability that a task attempt fails (see
	// failure.go for when in its life, and why). A scenario sets it as
	// workload.task_failure_rate, since it describes the jobs. Default 0:
	// no attempt fails, and no random number is drawn for it.
	TaskFailureRate float64 `yaml:"-" json:"-"`
	// NodeExpiryS is how long after a node stops heartbeating the master
	// declares it lost (docs/faults.md): Hadoop 1's
	// mapred.tasktracker.expiry.interval, 600 s. It matters only in a run
	// with faults, and summary.json records it only there.
	NodeExpiryS float64 `yaml:"node_expiry_s" json:"node_expiry_s,omitempty"`
	// CheckInvariants verifies slot accounting and byte conservation as
	// the run goes, at some cost; tests turn it on.
	CheckInvariants bool `yaml:"check_invariants" json:"check_invariants"`

	// The costs below are off (zero) by default, the fluid model; a
	// scenario's cluster.profile sets them (docs/model.md, Costs beyond
	// bandwidth). costs.go says how the engine charges each.

	// SortBufferMB is a map's in-memory sort buffer in MiB: Hadoop's
	// io.sort.mb (mapreduce.task.io.sort.mb in Hadoop 2), 100 in both
	// versions' defaults. A map spills its output to its disk each time
	// the buffer is 80% full (io.sort.spill.percent) and merges the
	// spills into one file (costs.go). 0 leaves spills out: a map's output lands on its node
	// at no cost.
	SortBufferMB float64 `yaml:"sort_buffer_mb" json:"sort_buffer_mb,omitempty"`
	// MergeFactor is how many segments one merge pass reads at most:
	// Hadoop's io.sort.factor (mapreduce.task.io.sort.factor), 10. Used
	// only with SortBufferMB or ReduceBufferMB; 0 takes 10 then.
	MergeFactor int `yaml:"merge_factor" json:"merge_factor,omitempty"`
	// ReduceBufferMB is a reduce's in-memory shuffle buffer in MiB:
	// mapred.job.shuffle.input.buffer.percent (0.70) of the reduce's
	// heap. Fetched map output beyond it goes to the reduce's disk, and
	// the final merge reads it back (costs.go). 0 leaves the reduce's
	// merge out: fetched bytes cost nothing after the network.
	ReduceBufferMB float64 `yaml:"reduce_buffer_mb" json:"reduce_buffer_mb,omitempty"`
	// ReduceInputBufferMB is how much of a reduce's fetched map output
	// may stay in memory into the reduce function: Hadoop's
	// mapred.job.reduce.input.buffer.percent of the heap, 0.0 by default,
	// so that the bytes still in memory when the copy ends are written to
	// disk before the final merge (unless the reduce already has
	// MergeFactor files on disk). Used only with ReduceBufferMB.
	ReduceInputBufferMB float64 `yaml:"reduce_input_buffer_mb" json:"reduce_input_buffer_mb,omitempty"`
	// LaunchesPerHeartbeat is how many tasks a node may be given in one
	// offer, a heartbeat or the offer a finished task makes: the
	// schedulers' per-heartbeat limits (docs/scenarios.md). 0, the
	// default, is no limit: every free slot is offered until the policy
	// declines.
	LaunchesPerHeartbeat int `yaml:"launches_per_heartbeat" json:"launches_per_heartbeat,omitempty"`
	// DynamicMaxAssign limits an offer by YARN's
	// yarn.scheduler.fair.dynamic.max.assign (Hadoop 2.9 and later, true
	// by default, read with assignmultiple): it launches until it has
	// given more than half the node's free containers at its start
	// (FairScheduler.shouldContinueAssigning), so floor(free/2) + 1 of
	// them, in place of LaunchesPerHeartbeat. Off by default.
	DynamicMaxAssign bool `yaml:"dynamic_max_assign" json:"dynamic_max_assign,omitempty"`
	// LoadCap caps how many tasks of each kind a node runs by Hadoop 1's
	// CapBasedLoadManager, the Fair Scheduler's default load manager
	// (mapred.fairscheduler.loadmanager): ceil(slots x min(1, runnable /
	// the cluster's slots)), runnable being the tasks of the kind running
	// and waiting to launch, so that a cluster used below capacity spreads
	// its tasks over the nodes. Slots only. Off by default: the papers'
	// schedulers fill a node's free slots.
	LoadCap bool `yaml:"load_cap" json:"load_cap,omitempty"`
	// HeartbeatOffersOnly has a node's freed slots wait for its next
	// periodic heartbeat: no offer at once when a task ends or is killed.
	// So Hadoop 1's TaskTrackers report a task's end, without
	// mapreduce.tasktracker.outofband.heartbeat (false by default), and
	// Hadoop 0.20's always. Off by default: a freed slot is offered at the
	// end of the instant it was freed, an out-of-band heartbeat.
	HeartbeatOffersOnly bool `yaml:"heartbeat_offers_only" json:"heartbeat_offers_only,omitempty"`
	// Speculative runs a backup attempt of a slow map by Hadoop 1's rule
	// (speculate.go); the first attempt to finish wins and the other is
	// killed. Off by default.
	Speculative bool `yaml:"speculative" json:"speculative,omitempty"`
}

// Valid ranges of the engine's settings. They are limits on what the
// simulator can run in bounded work and float64 time, not model values:
// each is far outside what Hadoop or the papers use.
const (
	// MinPeriodS is the shortest heartbeat, monitor, timeseries and
	// preemption period: Hadoop sets its heartbeat and update intervals in
	// whole milliseconds.
	MinPeriodS = 0.001
	// MaxPeriodS is the longest of those periods, an hour. A heartbeat is
	// a second (YARN) to 3 s (Hadoop 1); the timeseries may be as coarse
	// as a day (MaxTimeseriesPeriodS).
	MaxPeriodS           = 3600.0
	MaxTimeseriesPeriodS = 86400.0
	// MaxTaskStartupS bounds the per-attempt launch cost, an hour (a JVM
	// starts in about a second).
	MaxTaskStartupS = 3600.0
	// MaxNetworkQuantumS bounds the quantized network's re-solve period.
	// Its error is up to a quantum per change and its cost grows with it
	// (flows starting on full links wait up to a quantum); the quanta
	// measured in docs/performance.md are 0.5 to 4 s.
	MaxNetworkQuantumS = 60.0
	// MinStallS and MaxStallS bound the stall timeout: a second, and about
	// 116 days of simulated time (a stalled run costs its nodes'
	// heartbeats over stall_s before it is stopped).
	MinStallS = 1.0
	MaxStallS = 1e7
	// MaxAttemptsLimit bounds engine.max_attempts.
	MaxAttemptsLimit = 1000
	// DefaultMaxAttempts is Hadoop's mapred.map.max.attempts (and
	// reduce's) default.
	DefaultMaxAttempts = 4
	// MaxNodeExpiryS bounds engine.node_expiry_s, as engine.stall_s.
	MaxNodeExpiryS = MaxStallS
	// MaxBufferMB bounds the sort and shuffle buffers: Hadoop refuses an
	// io.sort.mb above 2047 (MapOutputBuffer) and sizes its shuffle
	// buffers in an int of bytes.
	MaxBufferMB = 2047.0
	// MinMergeFactor and MaxMergeFactor bound engine.merge_factor: a
	// pass must merge at least two segments.
	MinMergeFactor = 2
	MaxMergeFactor = 1 << 20
	// MaxLaunchesPerHeartbeat bounds engine.launches_per_heartbeat, as
	// a node's slots are bounded.
	MaxLaunchesPerHeartbeat = cluster.MaxSlotsPerNode
)

// Defaults of the engine's settings (see Params).
const (
	DefaultHeartbeatS          = 3.0
	DefaultSlowStart           = 0.05
	DefaultParallelCopies      = 5
	DefaultMonitorPeriodS      = 3.0
	DefaultCongestionThreshold = 0.8
	DefaultTimeseriesPeriodS   = 60.0
	DefaultStallS              = 86400.0
	DefaultPreemptionIntervalS = 0.5
	DefaultNodeExpiryS         = 600.0
	DefaultMergeFactor         = 10
)

// DefaultTCPPayloadFraction is the payload of a full-sized TCP segment
// over the frame a link's rate counts: an MTU of 1,500 bytes less the IPv4
// and TCP headers with timestamps (20 + 20 + 12) leaves 1,448 bytes of
// payload in a frame of 1,514 (the Ethernet header, 14, counted as Linux's
// shapers count it): 0.9564. `mrsched testbed microbench` measured 0.947
// to 0.956 of the shaped rate for transfers of 64 KB to 4 MB. A physical
// Ethernet wire also spends 24 bytes a frame on the preamble, the FCS and
// the gap (1,448 / 1,538 = 0.9415).
const DefaultTCPPayloadFraction = 1448.0 / 1514.0

// WithDefaults fills zero fields (and a nil SlowStart).
func (p Params) WithDefaults() Params {
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&p.HeartbeatS, DefaultHeartbeatS)
	if p.SlowStart == nil {
		s := DefaultSlowStart
		p.SlowStart = &s
	}
	if p.ParallelCopies == 0 {
		p.ParallelCopies = DefaultParallelCopies
	}
	set(&p.MonitorPeriodS, DefaultMonitorPeriodS)
	set(&p.CongestionThreshold, DefaultCongestionThreshold)
	set(&p.TimeseriesPeriodS, DefaultTimeseriesPeriodS)
	set(&p.StallS, DefaultStallS)
	set(&p.PreemptionIntervalS, DefaultPreemptionIntervalS)
	set(&p.NodeExpiryS, DefaultNodeExpiryS)
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.MergeFactor == 0 && (p.SortBufferMB > 0 || p.ReduceBufferMB > 0) {
		p.MergeFactor = DefaultMergeFactor
	}
	if p.Transport == TransportTCP && p.TCPPayloadFraction == 0 {
		p.TCPPayloadFraction = DefaultTCPPayloadFraction
	}
	return p
}

// The transports Params.Transport names.
const (
	TransportMaxMin = "maxmin"
	TransportTCP    = "tcp"
)

// Resolved returns p with defaults filled, copy-compute splitting's limits
// included (they default from the cluster's reduce slots): the settings a
// run on cfg actually uses.
func (p Params) Resolved(cfg cluster.Config) Params {
	p = p.WithDefaults()
	if cc := &p.CopyCompute; cc.Enabled {
		if cc.MaxComputing == 0 {
			cc.MaxComputing = cfg.ReduceSlots
		}
		if cc.MaxReducers == 0 {
			cc.MaxReducers = 3 * cc.MaxComputing
		}
	}
	return p
}

// Validate names the first bad parameter, with its valid range. Call it on
// WithDefaults' result.
func (p Params) Validate() error {
	slow := math.NaN()
	if p.SlowStart != nil {
		slow = *p.SlowStart
	}
	check := []struct {
		name   string
		v      float64
		lo, hi float64
		loOpen bool
	}{
		{"heartbeat_s", p.HeartbeatS, MinPeriodS, MaxPeriodS, false},
		{"slow_start", slow, 0, 1, false},
		{"task_startup_s", p.TaskStartupS, 0, MaxTaskStartupS, false},
		{"monitor_period_s", p.MonitorPeriodS, MinPeriodS, MaxPeriodS, false},
		{"congestion_threshold", p.CongestionThreshold, 0, 1, true},
		{"timeseries_period_s", p.TimeseriesPeriodS, MinPeriodS, MaxTimeseriesPeriodS, false},
		{"stall_s", p.StallS, MinStallS, MaxStallS, false},
		{"preemption_interval_s", p.PreemptionIntervalS, MinPeriodS, MaxPeriodS, false},
		{"network_quantum_s", p.NetworkQuantumS, 0, MaxNetworkQuantumS, false},
		{"node_expiry_s", p.NodeExpiryS, MinPeriodS, MaxNodeExpiryS, false},
	}
	for _, c := range check {
		low := c.v < c.lo || (c.loOpen && c.v == c.lo)
		if math.IsNaN(c.v) || low || c.v > c.hi {
			op := ">="
			if c.loOpen {
				op = ">"
			}
			return fmt.Errorf("engine.%s: %v; want a number %s %v and at most %v", c.name, c.v, op, c.lo, c.hi)
		}
	}
	if p.HeartbeatS >= p.StallS {
		return fmt.Errorf("engine.heartbeat_s: %v s is not shorter than engine.stall_s (%v s): a job waiting one heartbeat would be taken for a stall", p.HeartbeatS, p.StallS)
	}
	switch p.Transport {
	case "", TransportMaxMin:
		if p.TCPPayloadFraction != 0 {
			return fmt.Errorf("engine.tcp_payload_fraction: %v applies only with engine.transport: tcp", p.TCPPayloadFraction)
		}
	case TransportTCP:
		if !(p.TCPPayloadFraction > 0 && p.TCPPayloadFraction <= 1) {
			return fmt.Errorf("engine.tcp_payload_fraction: %v; want a fraction above 0 and at most 1", p.TCPPayloadFraction)
		}
	default:
		return fmt.Errorf("engine.transport: %q; want %q (the default) or %q", p.Transport, TransportMaxMin, TransportTCP)
	}
	if p.ParallelCopies < 1 || p.ParallelCopies > cluster.MaxNodes {
		return fmt.Errorf("engine.parallel_copies: %d; want 1 to %d (a reduce cannot fetch from more nodes than a cluster has)", p.ParallelCopies, cluster.MaxNodes)
	}
	if !(p.TaskFailureRate >= 0 && p.TaskFailureRate <= 1) {
		return fmt.Errorf("workload.task_failure_rate: %v; want a probability from 0 to 1", p.TaskFailureRate)
	}
	if p.MaxAttempts < 1 || p.MaxAttempts > MaxAttemptsLimit {
		return fmt.Errorf("engine.max_attempts: %d; want 1 to %d", p.MaxAttempts, MaxAttemptsLimit)
	}
	bufs := []struct {
		name string
		v    float64
		lo   float64
	}{{"sort_buffer_mb", p.SortBufferMB, 1}, {"reduce_buffer_mb", p.ReduceBufferMB, 1}, {"reduce_input_buffer_mb", p.ReduceInputBufferMB, 0}}
	for _, b := range bufs {
		if b.v != 0 && !(b.v >= b.lo && b.v <= MaxBufferMB) {
			return fmt.Errorf("engine.%s: %v; want a number from %v to %v (MiB)", b.name, b.v, b.lo, MaxBufferMB)
		}
	}
	if p.ReduceInputBufferMB > 0 && p.ReduceBufferMB == 0 {
		return fmt.Errorf("engine.reduce_input_buffer_mb: only with engine.reduce_buffer_mb (the reduce's merge is not modelled without it)")
	}
	if p.MergeFactor != 0 && (p.MergeFactor < MinMergeFactor || p.MergeFactor > MaxMergeFactor) {
		return fmt.Errorf("engine.merge_factor: %d; want %d to %d", p.MergeFactor, MinMergeFactor, MaxMergeFactor)
	}
	if p.LaunchesPerHeartbeat < 0 || p.LaunchesPerHeartbeat > MaxLaunchesPerHeartbeat {
		return fmt.Errorf("engine.launches_per_heartbeat: %d; want 1 to %d, or leave it out for no limit", p.LaunchesPerHeartbeat, MaxLaunchesPerHeartbeat)
	}
	if cc := p.CopyCompute; cc.MaxComputing < 0 || cc.MaxReducers < 0 || cc.MaxReducers > cluster.MaxSlotsPerNode {
		return fmt.Errorf("engine.copy_compute: max_reducers %d and max_computing %d; want 1 <= max_computing <= max_reducers <= %d",
			cc.MaxReducers, cc.MaxComputing, cluster.MaxSlotsPerNode)
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
	Enabled      bool `yaml:"enabled" json:"enabled"`
	MaxReducers  int  `yaml:"max_reducers" json:"max_reducers"`
	MaxComputing int  `yaml:"max_computing" json:"max_computing"`
}
