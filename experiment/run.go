package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

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
	Cluster cluster.Config
	Engine  sim.Params
	// Seed drives block placement (each job's blocks are placed from a
	// stream keyed by the seed and the job's name).
	Seed uint64
}

// simRun is one simulation, as every experiment declares it: a set-up,
// its jobs, a policy, and the observers that watch the policy's decisions.
type simRun struct {
	setup  Setup
	jobs   []workload.Job
	policy PolicySpec
	// workers, when set, submits the jobs as closed-loop workers (see gate).
	workers *workerPlan
	// probe, when set, wraps the built policy in an observer before the
	// closed-loop gate and the engine see it (the policy-wrapper pattern
	// of wrap.go): how a diagnostic watches what the engine decides
	// without a run of its own.
	probe func(sched.Policy, *cluster.Topology) sched.Policy
	// steady, when set, is the window the collector's steady-state
	// metrics read.
	steady scenario.MetricsSpec
}

// outcome is what an experiment keeps of a simulation.
type outcome struct {
	jobs    []metrics.JobRecord
	summary metrics.Summary
	// released is when each job was released to the scheduler by its
	// worker (closed-loop runs only; otherwise the submit times).
	released []float64
}

// turnaround is job i's finish minus its release, or -1 if unfinished.
func (o *outcome) turnaround(i int) float64 {
	r := &o.jobs[i]
	if r.Finish < 0 {
		return -1
	}
	return r.Finish - o.released[i]
}

// simulate builds r's cluster and policy, wraps the policy in r's probe
// and, for closed-loop runs, in the gate, and runs the engine: the one
// way every experiment runs a simulation. The gate is nil for open-loop
// runs.
func (r simRun) simulate() (*scenario.Result, *gate, error) {
	topo, err := cluster.New(r.setup.Cluster)
	if err != nil {
		return nil, nil, err
	}
	pol, err := r.policy.Build()
	if err != nil {
		return nil, nil, err
	}
	if r.workers != nil {
		if err := checkGateable(pol); err != nil {
			return nil, nil, err
		}
	}
	if r.probe != nil {
		pol = r.probe(pol, topo)
	}
	var g *gate
	if r.workers != nil {
		g = newGate(pol, r.workers)
		pol = g
	}
	run := scenario.Simulation{Engine: r.policy.engine(r.setup.Engine), Topology: topo, Jobs: r.jobs, Policy: pol,
		Seed: r.setup.Seed, Metrics: r.steady}
	if g != nil {
		run.Engine.StallS = gateStallS
		// The workers stopped at their horizon and the idle engine gave
		// up, as it should.
		run.Done = g.drained
	}
	res, err := run.Run()
	if err != nil {
		return nil, nil, fmt.Errorf("%s (%s, seed %d): %w", r.policy.Label, r.policy.Name, r.setup.Seed, err)
	}
	return res, g, nil
}

func (r simRun) exec() (*outcome, error) {
	res, g, err := r.simulate()
	if err != nil {
		return nil, err
	}
	out := &outcome{jobs: res.Collector.Jobs(), summary: res.Summary}
	if g != nil {
		out.released = g.released
	} else {
		out.released = make([]float64, len(r.jobs))
		for i := range r.jobs {
			out.released[i] = r.jobs[i].Submit
		}
	}
	return out, nil
}

// runAll executes runs, o.Parallel at a time, and returns their outcomes in
// order. Runs share nothing, so the results do not depend on the
// parallelism. The first error (in run order) is returned.
func runAll(o Options, runs []simRun) ([]*outcome, error) {
	return inParallel(o, len(runs), func(i int) (*outcome, error) { return runs[i].exec() })
}

// inParallel calls exec for 0..n-1, o.Parallel at a time, reporting
// progress, and returns the results in index order, or the first error in
// index order: the machinery a sweep's runs use (sweep.Parallel).
func inParallel[T any](o Options, n int, exec func(i int) (T, error)) ([]T, error) {
	return sweep.Parallel(n, o.Parallel, o.Progress, exec)
}

// wallNote says what an experiment's simulations took: how many, their
// wall time in all and the longest (wall reads a run's). It is wall time,
// not CPU: runs sharing the cores with more runs than cores read longer.
// A run the process had cached, or a kept one, counts with the seconds it
// took when made.
func wallNote[T any](wall func(T) float64, rs ...[][]T) string {
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

// runCache keeps finished runs for the life of the process, so that a
// group of experiments reading the same simulations (`mrsched experiment
// nas` runs nas/main, nas/classes and nas/users on shared runs) runs each
// once. Runs are deterministic, so a cached run is the run. A cache with
// a keep kind also keeps its runs in Options.KeepDir (keep.go).
type runCache[K comparable, V any] struct {
	mu   sync.Mutex
	m    map[K]V
	keep string
}

// cachedGrid is cachedRuns for every policy of pols on every seed of o:
// spec declares the run of a policy on a seed. It returns res[policy][seed].
func cachedGrid[K comparable, S, V any](o Options, c *runCache[K, V], pols []PolicySpec, spec func(PolicySpec, uint64) S, key func(S) K, exec func(S) (V, error)) ([][]V, error) {
	var specs []S
	for _, p := range pols {
		for _, seed := range o.seeds() {
			specs = append(specs, spec(p, seed))
		}
	}
	flat, err := cachedRuns(o, c, specs, key, exec)
	if err != nil {
		return nil, err
	}
	res := make([][]V, len(pols))
	for i := range pols {
		res[i] = flat[i*o.Seeds : (i+1)*o.Seeds]
	}
	return res, nil
}

// cachedRuns returns one result per spec in order, taking it from c when
// its key is there (or, with o.KeepDir, kept on disk by this build) and
// running the rest with exec, o.Parallel at a time. With o.KeepDir each
// run is written there as soon as it finishes.
func cachedRuns[K comparable, S, V any](o Options, c *runCache[K, V], specs []S, key func(S) K, exec func(S) (V, error)) ([]V, error) {
	out := make([]V, len(specs))
	keep := o.KeepDir != "" && c.keep != ""
	keyText := func(s S) string { return fmt.Sprintf("%#v", key(s)) }
	var pending, kept []int
	c.mu.Lock()
	for i, s := range specs {
		if v, ok := c.m[key(s)]; ok {
			out[i] = v
			continue
		}
		if keep {
			v, ok, err := loadKept[V](o.KeepDir, c.keep, keyText(s))
			if err != nil {
				c.mu.Unlock()
				return nil, err
			}
			if ok {
				out[i] = v
				kept = append(kept, i)
				continue
			}
		}
		pending = append(pending, i)
	}
	c.mu.Unlock()
	ran, err := inParallel(o, len(pending), func(k int) (V, error) {
		s := specs[pending[k]]
		v, err := exec(s)
		if err == nil && keep {
			err = storeKept(o.KeepDir, c.keep, keyText(s), v)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	for _, i := range kept { // later experiments of this process read them too
		c.m[key(specs[i])] = out[i]
	}
	for k, i := range pending {
		out[i] = ran[k]
		c.m[key(specs[i])] = ran[k]
	}
	c.mu.Unlock()
	return out, nil
}
