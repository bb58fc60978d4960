package scenario

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

// set reports whether the scenario file writes the field at path.
func (c *Config) set(path string) bool {
	_, ok := c.lines[path]
	return ok
}

// traceOnly and generatorOnly are the workload fields one kind of
// workload reads and the other ignores; writing one for the other is an
// error, not a silent no-op.
var (
	traceOnly     = []string{"source_nodes", "scale", "max_jobs", "start_s", "end_s", "map_mbps", "reduce_mbps"}
	generatorOnly = []string{"mean_interarrival_s", "duration_s", "input_scale"}
)

// checkSettings reports settings that are wrong only together, each
// under the path of the field to change, which fileErr places at its
// line. Parse has checked every field's own range.
func (c *Config) checkSettings() error {
	if err := c.resolveSiteCluster(); err != nil {
		return err
	}
	if err := c.resolveProfile(); err != nil {
		return err
	}
	cl := c.Cluster
	if cl.Containers == 0 {
		for _, f := range []struct {
			path string
			v    int
		}{{"cluster.map_slots", cl.MapSlots}, {"cluster.reduce_slots", cl.ReduceSlots}} {
			if c.set(f.path) && f.v == 0 {
				return fmt.Errorf("%s: 0 in the slot model, where every node needs at least 1 (or set cluster.containers for the container model)", f.path)
			}
		}
	}
	if c.engine().LoadCap && cl.Containers > 0 {
		return fmt.Errorf("engine.load_cap: Hadoop 1's load manager caps map and reduce slots; the cluster runs containers")
	}
	if c.Engine.DynamicMaxAssign && c.set("engine.launches_per_heartbeat") {
		return fmt.Errorf("engine.dynamic_max_assign: YARN reads a count of launches (yarn.scheduler.fair.max.assign) only with dynamic max assign off; set one of engine.dynamic_max_assign and engine.launches_per_heartbeat")
	}
	if cc := c.engine().Resolved(cl.WithDefaults()).CopyCompute; !cc.Enabled {
		for _, f := range []string{"engine.copy_compute.max_reducers", "engine.copy_compute.max_computing"} {
			if c.set(f) {
				return fmt.Errorf("%s: has no effect unless engine.copy_compute.enabled is true", f)
			}
		}
	} else if cl.Containers > 0 {
		return fmt.Errorf("engine.copy_compute.enabled: copy-compute splitting needs the slot model (cluster.map_slots, cluster.reduce_slots), not containers")
	} else if cc.MaxComputing > cc.MaxReducers {
		field := "engine.copy_compute.max_computing"
		if !c.set(field) {
			field = "engine.copy_compute.max_reducers"
		}
		return fmt.Errorf("%s: max_computing %d is above max_reducers %d; a node computes at most as many reducers as it runs",
			field, cc.MaxComputing, cc.MaxReducers)
	}
	w := c.Workload
	if w.Generator != "" {
		for _, f := range traceOnly {
			if c.set("workload." + f) {
				return fmt.Errorf("workload.%s: applies to a trace; the %s generator does not read it", f, w.Generator)
			}
		}
		mean, dur := orDefault(w.MeanInterarrivalS, swMeanInterarrivalS), orDefault(w.DurationS, swDurationS)
		if n := dur / mean; n > maxGeneratedJobs {
			field := "workload.mean_interarrival_s"
			if !c.set(field) {
				field = "workload.duration_s"
			}
			return fmt.Errorf("%s: %v s of arrivals every %v s on average is %.0f jobs; at most %d are supported", field, dur, mean, n, maxGeneratedJobs)
		}
	} else {
		for _, f := range generatorOnly {
			if c.set("workload." + f) {
				return fmt.Errorf("workload.%s: applies to workload.generator; a trace's arrivals are the trace's", f)
			}
		}
	}
	p := c.engine().WithDefaults()
	if len(c.Faults) > 0 && p.Speculative {
		return fmt.Errorf("engine.speculative: not modelled with faults (a backup on a node that dies is not tracked); set it false, or leave the faults out")
	}
	// On the testbed a node may die without a fault written (a worker
	// killed or frozen), and the expiry declares it lost: a scenario with
	// a testbed section may set it alone.
	if len(c.Faults) == 0 && c.set("engine.node_expiry_s") && c.Testbed.Kind == 0 {
		return fmt.Errorf("engine.node_expiry_s: has no effect without a faults section (a node is declared lost only after it dies), or a testbed section (a worker that dies or stops)")
	}
	if len(c.Faults) > 0 && p.NodeExpiryS <= p.HeartbeatS {
		field := "engine.node_expiry_s"
		if !c.set(field) {
			field = "engine.heartbeat_s"
		}
		return fmt.Errorf("%s: engine.node_expiry_s (%v s) is not longer than engine.heartbeat_s (%v s): a node is declared lost only after it has missed a heartbeat", field, p.NodeExpiryS, p.HeartbeatS)
	}
	if p.HeartbeatS >= p.StallS && c.set("engine.stall_s") && !c.set("engine.heartbeat_s") {
		return fmt.Errorf("engine.stall_s: %v s is not longer than engine.heartbeat_s (%v s): a job waiting one heartbeat would be taken for a stall", p.StallS, p.HeartbeatS)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	return c.Metrics.Validate()
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// The ShuffleWatcher generator's defaults: the paper's mean interarrival
// (section 4.3), and 4 h of steady state plus an hour of ramp each side.
const (
	swMeanInterarrivalS = 40
	swDurationS         = 6 * 3600
)

// engine returns the engine settings the run uses: the file's engine
// section with the workload's failure rate.
func (c *Config) engine() sim.Params {
	p := c.Engine
	p.TaskFailureRate = c.Workload.TaskFailureRate
	c.siteEngine(&p)
	return p
}

// Bounds of engine.stall_s's default (stallFor): an hour, and a simulated
// day, the default before it followed the workload.
const (
	stallFloorS = 3600.0
	stallCapS   = sim.DefaultStallS
)

// engineFor is the engine's settings for a run of jobs. engine.stall_s,
// when the scenario leaves it out, follows the workload: twice the span of
// its submissions, at least an hour and ten heartbeats, at most a day. A
// run of a few minutes' jobs that stalls then says so within an hour of
// simulated time (minutes of wall time on the testbed) instead of a day,
// and a day-long trace keeps the day. A stall is time with nothing in
// flight while jobs wait, so no legitimate wait (delay scheduling's,
// preemption's, a node's expiry) comes near it.
func (c *Config) engineFor(jobs []workload.Job) sim.Params {
	return c.EngineFor(jobs)
}

// EngineFor is the engine's settings for a run of jobs, as a simulation of
// the scenario runs with them (engineFor): for a run elsewhere (the
// testbed) to keep the same defaults.
func (c *Config) EngineFor(jobs []workload.Job) sim.Params {
	p := c.engine()
	if p.StallS != 0 {
		return p
	}
	span := 0.0
	if len(jobs) > 0 {
		span = jobs[len(jobs)-1].Submit - jobs[0].Submit
	}
	p.StallS = min(stallCapS, max(stallFloorS, 2*span, 10*p.WithDefaults().HeartbeatS))
	return p
}

// Limits that depend on the workload's span: a periodic event may recur
// at most maxPeriods times over the submissions' span (each heartbeat is
// an event per node), and timeseries.csv may have at most maxSeriesRows
// rows. Every time step must be at least timeResolution of the latest
// submit time, so that float64 time advances by thousands of ulps a step.
const (
	maxPeriods     = 1e7
	maxSeriesRows  = 1e6
	timeResolution = 1.0 / (1 << 40)
)

// checkAgainstWorkload reports settings whose range depends on the
// workload and cluster: periods against the submissions' span and the
// time they reach, and minimum shares against the cluster's slots.
func (c *Config) checkAgainstWorkload(t *cluster.Topology, jobs []workload.Job) error {
	if len(jobs) > 0 {
		first, last := jobs[0].Submit, jobs[len(jobs)-1].Submit
		span := last - first
		reach := math.Max(math.Abs(first), math.Abs(last))
		p := c.engine().WithDefaults()
		for _, f := range []struct {
			name  string
			v     float64
			limit float64
			what  string
		}{
			{"heartbeat_s", p.HeartbeatS, maxPeriods, "heartbeats a node"},
			{"monitor_period_s", p.MonitorPeriodS, maxPeriods, "monitor samples"},
			{"preemption_interval_s", p.PreemptionIntervalS, maxPeriods, "preemption checks"},
			{"timeseries_period_s", p.TimeseriesPeriodS, maxSeriesRows, "timeseries rows"},
		} {
			if n := span / f.v; n > f.limit {
				return fmt.Errorf("engine.%s: %v s over the workload's %v s of submissions is %.3g %s; want at least %.3g s (at most %.0f)",
					f.name, f.v, span, n, f.what, span/f.limit, f.limit)
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"heartbeat_s", p.HeartbeatS}, {"monitor_period_s", p.MonitorPeriodS},
			{"preemption_interval_s", p.PreemptionIntervalS}, {"timeseries_period_s", p.TimeseriesPeriodS},
			{"network_quantum_s", p.NetworkQuantumS}, {"task_startup_s", p.TaskStartupS},
		} {
			if f.v > 0 && f.v < reach*timeResolution {
				return fmt.Errorf("engine.%s: %v s is too fine for the workload's times, which reach %v s: float64 time there cannot step by it reliably; want at least %.3g s",
					f.name, f.v, reach, reach*timeResolution)
			}
		}
	}
	return c.checkPoolShares(t)
}

// checkPoolShares refuses a pool whose minimum share the cluster cannot
// give, or that names the other slot model's share or cap.
func (c *Config) checkPoolShares(t *cluster.Topology) error {
	pools := &c.Policy.Pools
	if pools.Kind != yaml.SequenceNode {
		return nil
	}
	at := c.Policy.poolsAt
	if at == "" {
		at = "policy"
	}
	total := t.TotalSlots()
	containers := t.ContainerModel()
	for i, p := range pools.Content {
		for _, f := range []struct {
			key       string
			total     int
			slots     string
			container bool
		}{
			{"min_maps", total[0], "map slots", false},
			{"min_reduces", total[1], "reduce slots", false},
			{"min_share", total[2], "containers", true},
			{"max_maps", 0, "map slots", false},
			{"max_reduces", 0, "reduce slots", false},
			{"max_share", 0, "containers", true},
		} {
			v := mapValue(p, f.key)
			if v == nil {
				continue
			}
			var k int
			if v.Decode(&k) != nil {
				continue // the policy reports it
			}
			path := fmt.Sprintf("%s.pools[%d].%s", at, i, f.key)
			switch {
			case k > 0 && f.container != containers:
				kind := f.key[:3] // min or max
				other := kind + "_maps and " + kind + "_reduces (the slot model)"
				if containers {
					other = kind + "_share (the container model)"
				}
				return fmt.Errorf("%s: %d, but the cluster has no %s; use %s", path, k, f.slots, other)
			case f.total > 0 && k > f.total: // a minimum the cluster cannot give; a cap above it caps nothing
				return fmt.Errorf("%s: %d; want at most the cluster's %d %s", path, k, f.total, f.slots)
			}
		}
	}
	return nil
}

// mapValue returns the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// FaultEvents resolves the scenario's faults against topology t
// (faults.Resolve), with errors at the entry's line in the file.
func (c *Config) FaultEvents(t *cluster.Topology) ([]faults.Event, error) {
	evs, err := faults.Resolve(c.Faults, t)
	if err != nil {
		return nil, c.fileErr(err)
	}
	return evs, nil
}
