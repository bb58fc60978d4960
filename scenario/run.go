package scenario

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

// DefaultUsers is how many users trace jobs are spread over when a
// scenario does not say (the ShuffleWatcher set-up's 30).
const DefaultUsers = 30

// Result is a finished run.
type Result struct {
	Summary   metrics.Summary
	Collector *metrics.Collector
	// Cost is the wall time of the policy's decisions; machine-dependent,
	// so it is not part of Summary.
	Cost *metrics.Latency
	// Engine counts the run's events, flows and network solves.
	Engine sim.Stats
}

// Jobs builds the scenario's workload for topology t, with the demands
// workload.demand sets and the input placement workload.placement sets.
func (c *Config) Jobs(t *cluster.Topology) ([]workload.Job, error) {
	placement, err := workload.ParsePlacement(c.Workload.Placement)
	if err != nil {
		return nil, fmt.Errorf("workload.placement: %w", err)
	}
	jobs, err := c.loadJobs(t)
	if err != nil {
		return nil, err
	}
	if err := c.poolJobs(jobs); err != nil {
		return nil, err
	}
	if err := c.placeJobs(jobs); err != nil {
		return nil, err
	}
	for i := range jobs {
		jobs[i].Placement = placement
		if s := c.Workload.TaskCostScale; s != 0 {
			jobs[i].Profile.MapSecPerByte *= s
			jobs[i].Profile.ReduceSecPerByte *= s
		}
	}
	if err := c.Workload.Demand.apply(jobs, t, "workload.demand"); err != nil {
		if c.name != "" {
			err = fmt.Errorf("%s: %w", c.name, err)
		}
		return nil, err
	}
	return jobs, nil
}

// loadJobs reads the trace or runs the generator.
func (c *Config) loadJobs(t *cluster.Topology) ([]workload.Job, error) {
	w := c.Workload
	users := w.Users
	if users == 0 {
		users = DefaultUsers
	}
	if users < 0 {
		return nil, fmt.Errorf("workload.users: must be positive, got %d", users)
	}
	cfg := t.Config()
	switch strings.ToLower(w.Generator) {
	case "shufflewatcher":
		if w.Trace != "" {
			return nil, fmt.Errorf("workload: set either trace or generator, not both")
		}
		mean, dur := w.MeanInterarrivalS, w.DurationS
		for _, f := range []struct {
			name string
			v    float64
		}{{"mean_interarrival_s", mean}, {"duration_s", dur}} {
			if !(f.v >= 0) || math.IsInf(f.v, 0) {
				return nil, fmt.Errorf("workload.%s: want a finite number of seconds > 0 (0 = the paper's), got %v", f.name, f.v)
			}
		}
		if mean == 0 {
			mean = 40 // the paper's section 4.3
		}
		if dur == 0 {
			dur = 6 * 3600 // 4 h steady state plus an hour of ramp each side
		}
		opt := workload.SWGenOptions{
			Users: users, MeanInterarrivalS: mean, DurationS: dur, BlockBytes: cfg.BlockBytes(),
			Seed: c.seed(), BytesPerReduce: w.BytesPerReduce, TargetNodes: t.NumNodes(),
		}
		if w.InputScale != 0 {
			opt.SizeBins = workload.ScaledSizeBins(w.InputScale)
		}
		jobs, err := workload.GenerateShuffleWatcher(opt)
		if err != nil {
			return nil, fmt.Errorf("workload (shufflewatcher generator): %w", err)
		}
		return jobs, nil
	case "":
	default:
		return nil, fmt.Errorf("workload.generator: unknown generator %q (known: shufflewatcher)", w.Generator)
	}
	if w.Trace == "" {
		return nil, fmt.Errorf("workload: set trace (%s, or a SWIM TSV file) or generator", strings.Join(traces.Names(), ", "))
	}
	prof := workload.DefaultProfile()
	if w.MapMBps < 0 || w.ReduceMBps < 0 {
		return nil, fmt.Errorf("workload.map_mbps/reduce_mbps: must be positive")
	}
	if w.MapMBps > 0 {
		prof.MapSecPerByte = 1 / (w.MapMBps * (1 << 20))
	}
	if w.ReduceMBps > 0 {
		prof.ReduceSecPerByte = 1 / (w.ReduceMBps * (1 << 20))
	}
	if jobs, ok, err := c.hadoopJobs(t, prof); ok {
		return jobs, err
	}
	opt := workload.SWIMOptions{
		SourceNodes: w.SourceNodes, TargetNodes: t.NumNodes(), Scale: w.Scale,
		BlockBytes: cfg.BlockBytes(), BytesPerReduce: w.BytesPerReduce, Users: users,
		Seed: c.seed(), Profile: prof, MaxJobs: w.MaxJobs, StartS: w.StartS, EndS: w.EndS,
	}
	data, src, embedded := traces.Embedded(w.Trace)
	if embedded && opt.SourceNodes == 0 {
		opt.SourceNodes = src
	}
	opt.SynthesisPaths = embedded && traces.SynthesisPaths(w.Trace)
	if !embedded && opt.SourceNodes == 0 {
		return nil, fmt.Errorf("workload.source_nodes: required for trace file %s (the traced cluster's node count; SWIM scales bytes by nodes/source_nodes)", w.Trace)
	}
	if err := opt.Validate(); err != nil {
		return nil, traceOptionErr(err)
	}
	if embedded {
		jobs, err := workload.ParseSWIM(strings.NewReader(string(data)), w.Trace, opt)
		if err != nil {
			return nil, fmt.Errorf("workload: %w", err)
		}
		return jobs, nil
	}
	path := w.Trace
	if !filepath.IsAbs(path) && c.dir != "" {
		path = filepath.Join(c.dir, path)
	}
	jobs, err := workload.LoadSWIMFile(path, opt)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return jobs, nil
}

// seed is the run's seed: the file's, even 0, or 1 when it sets none.
func (c *Config) seed() uint64 {
	if c.Seed == 0 && !c.set("seed") && !c.seedSet {
		return 1
	}
	return c.Seed
}

// SetSeed makes the scenario run with seed s, as if its file said so: 0
// is seed 0, as a written "seed: 0" is.
func (c *Config) SetSeed(s uint64) { c.Seed, c.seedSet = s, true }

// RunSeed is the seed a run of the scenario uses: the one it sets, 0
// included, or 1 when it sets none.
func (c *Config) RunSeed() uint64 { return c.seed() }

// Build makes the topology, jobs and policy of the scenario. Its errors
// name the scenario file, and the field at fault.
func (c *Config) Build() (*cluster.Topology, []workload.Job, sched.Policy, error) {
	b, err := c.build()
	if err != nil {
		return nil, nil, nil, err
	}
	return b.topo, b.jobs, b.pol, nil
}

// built is a scenario made ready to run.
type built struct {
	topo *cluster.Topology
	jobs []workload.Job
	pol  sched.Policy
	// params are the policy's parameters with defaults filled.
	params map[string]any
	faults []faults.Event
	// notes name what of the scenario the policy cannot apply (the
	// cluster's pools under a policy that has none).
	notes []string
}

func (c *Config) build() (*built, error) {
	if err := c.checkSettings(); err != nil {
		return nil, c.fileErr(err) // before a large trace is read
	}
	t, err := c.Topology()
	if err != nil {
		return nil, c.fileErr(err)
	}
	pools, err := c.poolSettings()
	if err != nil {
		return nil, c.fileErr(err)
	}
	var (
		params    any
		notes     []string
		tookPools bool
	)
	decode := decodeParams(&c.Policy.Params)
	pol, err := sched.NewPolicy(c.Policy.Name, func(into any) error {
		params = into
		if err := decode(into); err != nil {
			return err
		}
		if notes, tookPools, err = usePools(into, pools); err != nil {
			return err
		}
		if err := c.applySite(into); err != nil {
			return err
		}
		return c.applyAllocations(into, t)
	})
	if err != nil {
		return nil, c.policyErr(err)
	}
	if params == nil {
		// A policy without parameters has no pools for an allocation
		// file, and no waits or preemption for a site file.
		c.noPools()
		if err := c.applySite(nil); err != nil {
			return nil, c.fileErr(err)
		}
	}
	if params == nil && len(c.Policy.Params.Content) > 0 {
		return nil, c.fileErr(fmt.Errorf("policy.params: policy %s takes no parameters", c.Policy.Name))
	}
	if !tookPools && !pools.Empty() {
		notes = append(notes, noPoolsNote(c.Policy.Name, pools))
	}
	evs, err := c.FaultEvents(t)
	if err != nil {
		return nil, err
	}
	jobs, err := c.Jobs(t)
	if err != nil {
		return nil, c.fileErr(err)
	}
	if err := c.checkAgainstWorkload(t, jobs); err != nil {
		return nil, c.fileErr(err)
	}
	if err := c.checkPoolsReached(pools, jobs); err != nil {
		return nil, c.fileErr(err)
	}
	b := &built{topo: t, jobs: jobs, pol: pol, faults: evs, notes: notes}
	if e, ok := params.(interface{ Effective() map[string]any }); ok {
		b.params = e.Effective()
	}
	return b, nil
}

// Describe records in s what a run of the scenario ran, as Run records it
// in its own summary: the effective configuration and the workload's
// fingerprint. A run made elsewhere (the testbed) calls it so that its
// summary.json says the same, and diff and sweeps can pair it with a
// simulation of the same jobs.
func (c *Config) Describe(s *metrics.Summary) error {
	b, err := c.build()
	if err != nil {
		return err
	}
	s.Config, s.Fingerprint = c.effective(b.topo, b.jobs, b.params, b.notes), Fingerprint(b.topo.Config(), b.jobs)
	return nil
}

// Run builds and runs the scenario. progress may be nil.
func (c *Config) Run(progress sim.Progress) (*Result, error) { return c.RunLogged(progress, nil) }

// RunLogged is Run that tells log, when not nil, of every launch the
// policy decides (the decisions log).
func (c *Config) RunLogged(progress sim.Progress, log jobtracker.DecisionLog) (*Result, error) {
	b, err := c.build()
	if err != nil {
		return nil, err
	}
	c.NoteSiteCosts()
	t, jobs, pol := b.topo, b.jobs, b.pol
	eff := c.effective(t, jobs, b.params, b.notes)
	fp := Fingerprint(t.Config(), jobs)
	res, err := Simulation{Engine: c.engineFor(jobs), Topology: t, Jobs: jobs, Policy: pol, Seed: c.seed(), Metrics: c.Metrics,
		Faults: b.faults, Progress: progress, Decisions: log}.Run()
	if err != nil {
		// A run stopped by a setting is reported at the setting's line.
		var se *sim.SettingError
		if errors.As(err, &se) && se.Setting != "" {
			err = fmt.Errorf("%s: %s (policy %s)", se.Setting, se.Msg, pol.Name())
		}
		return nil, c.fileErr(err)
	}
	res.Summary.Config, res.Summary.Fingerprint = eff, fp
	res.Summary.TraceFidelity = traceFidelity(jobs, res.Collector)
	return res, nil
}

// RunJobs runs prepared jobs on t under pol (see Simulation).
func RunJobs(p sim.Params, t *cluster.Topology, jobs []workload.Job, pol sched.Policy, seed uint64, m MetricsSpec, progress sim.Progress) (*Result, error) {
	return Simulation{Engine: p, Topology: t, Jobs: jobs, Policy: pol, Seed: seed, Metrics: m, Progress: progress}.Run()
}

// slowdowns runs each finished job alone under fifo (with one job every
// policy makes the same choices) and records turnaround / turnaround
// alone. The job keeps its name, so it reads the same replicas, and its
// submit time, so that it meets the same heartbeat phases: nodes offer
// slots on a fixed grid of times (each node's phase within the period). A
// run's clock starts at its first submission, where the grid may put a
// heartbeat at that very instant; so the job's run alone starts its clock
// a heartbeat before the job, as if the cluster had been idle, and the
// job waits for the next heartbeat as the shared run's job did (the
// shared run's first job alone keeps the shared run's start).
func slowdowns(p sim.Params, t *cluster.Topology, jobs []workload.Job, seed uint64, col *metrics.Collector) error {
	recs := col.Jobs()
	hb := p.WithDefaults().HeartbeatS
	for i := range jobs {
		if recs[i].Finish < 0 {
			continue
		}
		j := jobs[i]
		j.ID = 0
		e, err := sim.New(p, t, []workload.Job{j}, sched.NewFIFO(), seed)
		if err != nil {
			return err
		}
		if j.Submit > jobs[0].Submit {
			e.StartAt(j.Submit - hb)
		}
		if err := e.Run(); err != nil {
			return fmt.Errorf("job %d (%s) alone: %w", i, j.Name, err)
		}
		alone := e.Collector().Jobs()[0].Turnaround()
		if alone > 0 {
			col.SetSlowdown(i, recs[i].Turnaround()/alone)
		}
	}
	return nil
}

// traceOptionYAML names the SWIM options a scenario sets by their fields
// under workload.
var traceOptionYAML = map[string]string{
	"SourceNodes": "source_nodes", "Scale": "scale", "BytesPerReduce": "bytes_per_reduce",
	"Users": "users", "MaxJobs": "max_jobs", "StartS": "start_s", "EndS": "end_s",
}

// traceOptionErr reports a SWIM option the reader refused under the
// scenario's name for it, so that the error reaches the field's line.
func traceOptionErr(err error) error {
	var oe *workload.OptionError
	if errors.As(err, &oe) {
		if name, ok := traceOptionYAML[oe.Option]; ok {
			return fmt.Errorf("workload.%s: %s", name, oe.Msg)
		}
	}
	return fmt.Errorf("workload: %w", err)
}
