package scenario

import (
	"fmt"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

// Simulation is one run of prepared jobs on a topology under a policy. It
// is what every command executes (`simulate`, `compare`, each run of a
// sweep, the papers' experiments), so that all of them build the engine,
// report progress, judge the run's end and summarise it alike.
type Simulation struct {
	Engine   sim.Params
	Topology *cluster.Topology
	Jobs     []workload.Job
	// Policy decides; a wrapper around a registered policy (one that
	// observes its decisions) is summarised under the name it reports.
	Policy  sched.Policy
	Seed    uint64
	Metrics MetricsSpec
	// Faults are the nodes that die and come back (Config.FaultEvents);
	// none when nil. A job's run alone, for its slowdown, has none: it is
	// measured against the job on the healthy cluster.
	Faults []faults.Event
	// Progress, when set, is called as the run advances.
	Progress sim.Progress
	// Decisions, when set, is told of every launch the policy decides.
	Decisions jobtracker.DecisionLog
	// Done, when set, says that the run's work is over although jobs
	// remain: closed-loop submitters that stopped at their horizon leave
	// jobs no one releases, and the engine's stall then ends the run as
	// it should, not with an error.
	Done func() bool
}

// Run runs the simulation to its end and summarises it.
func (s Simulation) Run() (*Result, error) {
	s.Engine.TimeBreakdown = s.Metrics.Breakdown()
	e, err := sim.New(s.Engine, s.Topology, s.Jobs, s.Policy, s.Seed)
	if err != nil {
		return nil, err
	}
	if err := e.SetFaults(s.Faults); err != nil {
		return nil, err
	}
	e.SetProgress(s.Progress)
	if s.Decisions != nil {
		e.SetDecisionLog(s.Decisions)
	}
	if err := e.Run(); err != nil && (s.Done == nil || !s.Done()) {
		return nil, fmt.Errorf("policy %s: %w", s.Policy.Name(), err)
	}
	col := e.Collector()
	col.SetSteadyWindow(s.Metrics.SteadyStartS, s.Metrics.SteadyEndS)
	if s.Metrics.Slowdown {
		if err := slowdowns(s.Engine, s.Topology, s.Jobs, s.Seed, col); err != nil {
			return nil, err
		}
	}
	return &Result{Summary: col.Summarize(s.Policy.Name()), Collector: col, Cost: e.DecisionCost(), Engine: e.Stats()}, nil
}
