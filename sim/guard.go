package sim

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/sched"
)

// A run must end. Besides the stall rule (checkStall: nothing in flight
// and nothing done for engine.stall_s), two guards stop a run whose work
// would never end, each with an error naming the setting that causes it:
//
//   - time that stops: more events at one instant than any run could
//     have there (instantLimit), which happens when a period is too small
//     for float64 time to advance by it (now + period == now);
//   - work without end: a task in flight that would complete only after
//     more than runawayEvents events (heartbeats and samples in between),
//     or more than livelockEvents events with no task finished and no job
//     submitted.
//
// Both are checked where they cost nothing in a normal run: the first is
// one counter compare per event, the second runs in the monitor's sample,
// every monitor_period_s, and looks ahead only once nothing has finished
// for engine.stall_s or for projectAfter events.
//
// They are variables so that tests can reach them in seconds.
var (
	runawayEvents        = 1e8
	livelockEvents int64 = 1 << 30
	projectAfter   int64 = 1 << 20
)

// SettingError is a run stopped by a setting: Setting is its path in a
// scenario file ("engine.heartbeat_s"), so that the error can be placed at
// its line; empty when the message names several.
type SettingError struct {
	Setting string
	Msg     string
}

func (e *SettingError) Error() string {
	if e.Setting == "" {
		return e.Msg
	}
	return e.Setting + ": " + e.Msg
}

// instantBound is the most events a run may handle at one instant: each
// node's heartbeat, each job's arrival, each task attempt's startup and
// compute ends and the flows they chain at that instant, the periodic
// samples, and room to spare.
func instantBound(nodes int, p Params, tasks int64, jobs int) int64 {
	return 1<<10 + 2*int64(nodes) + 4*int64(jobs) + 4*tasks*int64(p.MaxAttempts)
}

// spinError reports time that stopped advancing at e.now, naming the
// period float64 time cannot step by there, else the kind of event that
// kept recurring.
func (e *Engine) spinError(kind eventKind) {
	n := e.handled - e.instantMark
	periods := []struct {
		setting string
		v       float64
	}{
		{"engine.heartbeat_s", e.p.HeartbeatS}, {"engine.monitor_period_s", e.p.MonitorPeriodS},
		{"engine.timeseries_period_s", e.p.TimeseriesPeriodS}, {"engine.preemption_interval_s", e.p.PreemptionIntervalS},
		{"engine.task_startup_s", e.p.TaskStartupS},
	}
	for _, p := range periods {
		if p.v > 0 && e.now+p.v == e.now {
			e.setErr(&SettingError{p.setting, fmt.Sprintf("simulated time stopped at t=%g s after %d events at that instant: a step of %g s does not advance float64 time there; want a step of at least %.3g s",
				e.now, n, p.v, e.now*timeStep)})
			return
		}
	}
	setting := map[eventKind]string{
		evHeartbeat: "engine.heartbeat_s", evMonitor: "engine.monitor_period_s", evSeries: "engine.timeseries_period_s",
		evPreempt: "engine.preemption_interval_s", evPhaseDone: "engine.task_startup_s", evSubmit: "workload",
		evFault: "faults",
	}[kind]
	e.setErr(&SettingError{setting, fmt.Sprintf("simulated time stopped at t=%g s after %d events at that instant, the last a %s",
		e.now, n, kindNames[kind])})
}

// timeStep is the least step, relative to the time, the error suggests:
// 2^-40 leaves thousands of float64 ulps a step.
const timeStep = 1.0 / (1 << 40)

var kindNames = map[eventKind]string{
	evPhaseDone: "task phase end", evSubmit: "job arrival", evPreempt: "preemption check",
	evHeartbeat: "node heartbeat", evMonitor: "monitor sample", evSeries: "timeseries row",
	evFault: "node fault",
}

func (e *Engine) setErr(err error) { e.jt.Fail(err) }

// checkRunaway, called by the monitor, stops a run whose next completion
// is so far away that reaching it would take more than runawayEvents
// events, or that has handled livelockEvents events since a task last
// finished.
func (e *Engine) checkRunaway() {
	if e.handledNow()-e.doneEvents > livelockEvents {
		e.setErr(&SettingError{"policy", fmt.Sprintf("t=%.3f s: %d events without a task finishing or a job arriving, while %d tasks hold slots: policy %s launches and ends attempts without progress",
			e.now, e.handled-e.doneEvents, e.jt.RunningAttempts(), e.pol.Name())})
		return
	}
	if e.now-e.lastDone <= e.p.StallS && e.handled-e.doneEvents <= projectAfter {
		return
	}
	next, what := math.Inf(1), ""
	if t, ok := e.net.NextCompletion(); ok {
		next, what = t, "flow completion"
	}
	for i := range e.events.h {
		if ev := &e.events.h[i]; (ev.kind == evPhaseDone || ev.kind == evSubmit || ev.kind == evFault) && ev.t < next {
			next, what = ev.t, kindNames[ev.kind]
		}
	}
	// Events a simulated second from now to then: the samples, and the
	// heartbeats of nodes that have one coming.
	rate := 1/e.p.MonitorPeriodS + 1/e.p.TimeseriesPeriodS
	if _, ok := e.pol.(sched.Preempter); ok {
		rate += 1 / e.p.PreemptionIntervalS
	}
	beats := 0.0
	for i := range e.nodes {
		if e.nodes[i].hb {
			beats += 1 / e.p.HeartbeatS
		}
	}
	rate += beats
	cost := (next - e.now) * rate
	if cost <= runawayEvents {
		return
	}
	if math.IsInf(next, 1) {
		if e.now-e.lastDone <= e.p.StallS {
			return // the stall rule's to judge, at stall_s
		}
		e.setErr(fmt.Errorf("t=%.3f s: stalled: nothing has finished for %.0f s and nothing in flight will (engine.stall_s), while %d jobs wait; policy %s",
			e.now, e.now-e.lastDone, len(e.jt.Jobs()), e.pol.Name()))
		return
	}
	blame := "cluster.nic_mbps, cluster.disk_mbps or cluster.rack_uplink_mbps (or workload.map_mbps, or the workload's sizes)"
	if what != "flow completion" {
		blame = "engine.task_startup_s (or workload.reduce_mbps, or the workload's sizes)"
		switch what {
		case kindNames[evSubmit]:
			blame = "the workload's submit times"
		case kindNames[evFault]:
			blame = "the faults' times and engine.node_expiry_s"
		}
	}
	if beats > rate/2 {
		blame += fmt.Sprintf("; most of the events are heartbeats, every engine.heartbeat_s (%g s) on each of %d nodes", e.p.HeartbeatS, int(beats*e.p.HeartbeatS+0.5))
	}
	e.setErr(&SettingError{"", fmt.Sprintf("t=%.3f s: nothing has finished for %.0f s, and the next %s comes at t=%.4g s, about %.3g events away: the run would not end in reasonable time; check %s",
		e.now, e.now-e.lastDone, what, next, cost, blame)})
}
