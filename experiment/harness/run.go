package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/sweep"
	"github.com/mrsched/mrsched/workload"
)

// PolicySpec is a scheduler as an experiment runs it: a registered policy
// with its parameters, and whether the engine splits reduces into copy and
// compute (copy-compute splitting is an engine setting, not a policy).
type PolicySpec struct {
	// Label names the configuration in tables ("fair + CCS").
	Label string
	// Name is the policy's registry name ("fair", "delay", ...).
	Name string
	// Params are the policy's parameters as a scenario's policy.params
	// would write them (YAML field names); they are decoded strictly, so
	// a misspelt name is an error.
	Params map[string]any
	// CopyCompute turns on the engine's copy-compute splitting with its
	// defaults (compute slots = reduce slots, reducers = 3x).
	CopyCompute bool
}

// Build makes the policy.
func (p PolicySpec) Build() (sched.Policy, error) {
	return sched.NewPolicy(p.Name, decodeMap(p.Params))
}

// engine returns base with the spec's copy-compute setting.
func (p PolicySpec) engine(base sim.Params) sim.Params {
	if p.CopyCompute {
		base.CopyCompute.Enabled = true
	}
	return base
}

// decodeMap decodes m into a policy's parameter struct through YAML, as a
// scenario file would, rejecting unknown fields.
func decodeMap(m map[string]any) sched.Decode {
	return func(into any) error {
		if len(m) == 0 {
			return nil
		}
		b, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("params %s: %s", strings.TrimSpace(string(b)), strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil
	}
}

// Setup is a cluster and engine on which jobs run.
type Setup struct {
	// Cluster and Engine are the cluster and the engine's parameters
	// (zero: the engine's defaults).
	Cluster cluster.Config
	Engine  sim.Params
	// Seed drives block placement (each job's blocks are placed from a
	// stream keyed by the seed and the job's name).
	Seed uint64
}

// WithProfile is s under cost profile p's costs, as a scenario naming the
// profile gets them for the settings s leaves at zero
// (scenario.Profile.Apply), with speculation as speculative says.
func (s Setup) WithProfile(p scenario.Profile, speculative bool) Setup {
	p.Apply(&s.Cluster, &s.Engine)
	s.Engine.Speculative = speculative
	return s
}

// DiskProfile returns the built-in cost profile name, which must model a
// disk. The profiles are built into package scenario, so its absence is
// a programming error, but one that ends the experiment with an error
// naming the profile, not a panic.
func DiskProfile(name string) (scenario.Profile, error) {
	p, ok := scenario.LookupProfile(name)
	if !ok || p.Disk == nil {
		return scenario.Profile{}, fmt.Errorf("the cost profile %s is missing or has no disk", name)
	}
	return p, nil
}

// Run is one simulation, as every experiment declares it: a set-up, its
// jobs, a policy, and the observers that watch the policy's decisions.
type Run struct {
	// Setup, Jobs and Policy are what runs: the jobs on the set-up under
	// the policy.
	Setup  Setup
	Jobs   []workload.Job
	Policy PolicySpec
	// Workers, when set, submits the jobs as closed-loop workers (see
	// WorkerPlan).
	Workers *WorkerPlan
	// Probe, when set, wraps the built policy in an observer before the
	// closed-loop gate and the engine see it (a PassThrough wrapper): how
	// a diagnostic watches what the engine decides without a run of its
	// own, the same hook as any other observer.
	Probe func(sched.Policy, *cluster.Topology) sched.Policy
	// Steady, when set, is the window the collector's steady-state
	// metrics read.
	Steady scenario.MetricsSpec
}

// Outcome is what an experiment keeps of a simulation.
type Outcome struct {
	// Jobs and Summary are the collector's records of the jobs and its
	// summary of the run.
	Jobs    []metrics.JobRecord
	Summary metrics.Summary
	// Released is when each job was released to the scheduler by its
	// worker (closed-loop runs only; otherwise the submit times).
	Released []float64
}

// Turnaround is job i's finish minus its release, or -1 if unfinished.
func (o *Outcome) Turnaround(i int) float64 {
	r := &o.Jobs[i]
	if r.Finish < 0 {
		return -1
	}
	return r.Finish - o.Released[i]
}

// Turnarounds is every job's Turnaround, in job order.
func (o *Outcome) Turnarounds() []float64 {
	ta := make([]float64, len(o.Jobs))
	for i := range ta {
		ta[i] = o.Turnaround(i)
	}
	return ta
}

// Simulate builds r's cluster and policy, wraps the policy in r's probe
// and, for closed-loop runs, in the gate, and runs the engine: the one
// way every experiment runs a simulation.
func (r Run) Simulate() (*scenario.Result, error) {
	res, _, err := r.simulate()
	return res, err
}

// simulate is Simulate, with the gate of a closed-loop run (nil for an
// open-loop one).
func (r Run) simulate() (*scenario.Result, *gate, error) {
	topo, err := cluster.New(r.Setup.Cluster)
	if err != nil {
		return nil, nil, err
	}
	pol, err := r.Policy.Build()
	if err != nil {
		return nil, nil, err
	}
	if r.Workers != nil {
		if err := checkGateable(pol); err != nil {
			return nil, nil, err
		}
	}
	if r.Probe != nil {
		pol = r.Probe(pol, topo)
	}
	var g *gate
	if r.Workers != nil {
		g = newGate(pol, r.Workers)
		pol = g
	}
	run := scenario.Simulation{Engine: r.Policy.engine(r.Setup.Engine), Topology: topo, Jobs: r.Jobs, Policy: pol,
		Seed: r.Setup.Seed, Metrics: r.Steady}
	if g != nil {
		run.Engine.StallS = gateStallS
		// The workers stopped at their horizon and the idle engine gave
		// up, as it should.
		run.Done = g.drained
	}
	res, err := run.Run()
	if err != nil {
		return nil, nil, fmt.Errorf("%s (%s, seed %d): %w", r.Policy.Label, r.Policy.Name, r.Setup.Seed, err)
	}
	return res, g, nil
}

// Exec runs r and keeps its jobs' records, its summary and when each job
// was released.
func (r Run) Exec() (*Outcome, error) {
	res, g, err := r.simulate()
	if err != nil {
		return nil, err
	}
	out := &Outcome{Jobs: res.Collector.Jobs(), Summary: res.Summary}
	if g != nil {
		out.Released = g.released
	} else {
		out.Released = make([]float64, len(r.Jobs))
		for i := range r.Jobs {
			out.Released[i] = r.Jobs[i].Submit
		}
	}
	return out, nil
}

// Under runs r under policy p (r is a copy, so that the policies of one
// scenario, which run at once, each have their own): how a scenario says
// how one policy runs on it (RunGrid).
func (r Run) Under(p PolicySpec) (*Outcome, error) {
	r.Policy = p
	return r.Exec()
}

// RunAll executes runs, o.Parallel at a time, and returns their outcomes in
// order. Runs share nothing, so the results do not depend on the
// parallelism. The first error (in run order) is returned.
func RunAll(o Options, runs []Run) ([]*Outcome, error) {
	return InParallel(o, len(runs), func(i int) (*Outcome, error) { return runs[i].Exec() })
}

// InParallel calls exec for 0..n-1, o.Parallel at a time, reporting
// progress, and returns the results in index order, or the first error in
// index order: the machinery a sweep's runs use (sweep.Parallel).
func InParallel[T any](o Options, n int, exec func(i int) (T, error)) ([]T, error) {
	return sweep.Parallel(n, o.Parallel, o.Progress, exec)
}

// WallNote says what an experiment's simulations took: how many, their
// wall time in all and the longest (wall reads a run's). It is wall time,
// not CPU: runs sharing the cores with more runs than cores read longer.
// A run the process had cached, or a kept one, counts with the seconds it
// took when made.
func WallNote[T any](wall func(T) float64, rs ...[][]T) string {
	var total, most float64
	n := 0
	for _, g := range rs {
		for _, p := range g {
			for _, r := range p {
				total += wall(r)
				most = max(most, wall(r))
				n++
			}
		}
	}
	return fmt.Sprintf("simulations: %d, %.0f s of wall time in all, longest %.0f s (each run its own wall time; cached runs count once per process)", n, total, most)
}
