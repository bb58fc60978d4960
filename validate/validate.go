package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/testbed"
)

// Spec is a scenario's `validate:` section: the comparisons to measure.
type Spec struct {
	Policies []Pair `yaml:"policies"`
}

// Pair is one comparison: a policy and the baseline its effect is
// measured against, each with optional parameters (the scenario's own
// policy.params are not carried over: they belong to its policy).
type Pair struct {
	Policy         string    `yaml:"policy"`
	Baseline       string    `yaml:"baseline"`
	Params         yaml.Node `yaml:"params"`
	BaselineParams yaml.Node `yaml:"baseline_params"`
}

// LoadSpec reads and checks a scenario's validate section.
func LoadSpec(c *scenario.Config) (Spec, error) {
	var s Spec
	if err := c.DecodeSection(&c.Validate, "validate", &s); err != nil {
		return s, err
	}
	where := func(path string) string {
		if l := c.LineOf(path); l > 0 {
			return fmt.Sprintf("%s: line %d: %s", c.Name(), l, path)
		}
		return fmt.Sprintf("%s: %s", c.Name(), path)
	}
	if len(s.Policies) == 0 {
		return s, fmt.Errorf("%s: want at least one {policy, baseline} pair", where("validate.policies"))
	}
	for i, p := range s.Policies {
		for _, f := range []struct{ field, name string }{{"policy", p.Policy}, {"baseline", p.Baseline}} {
			path := fmt.Sprintf("validate.policies[%d].%s", i, f.field)
			if f.name == "" {
				return s, fmt.Errorf("%s: required, a registered policy", where(path))
			}
			if _, err := sched.NewPolicy(f.name, nil); err != nil {
				return s, fmt.Errorf("%s: %v", where(path), err)
			}
		}
		if p.Policy == p.Baseline && p.Params.Kind == 0 && p.BaselineParams.Kind == 0 {
			return s, fmt.Errorf("%s: the policy is its own baseline", where(fmt.Sprintf("validate.policies[%d]", i)))
		}
	}
	return s, nil
}

// Run is one policy on one seed, in both: what each measured and the
// simulator's errors.
type Run struct {
	Policy string `json:"policy"`
	Seed   uint64 `json:"seed"`
	Error  Errors `json:"error"`
	// Control is the simulator against itself with every heartbeat moved
	// by a nanosecond: how far two runs of one model of a busy cluster
	// land apart when nothing but the order of ties changes. An error
	// within the control's size is not a model error.
	Control Errors  `json:"control"`
	Sim     Outcome `json:"sim"`
	Testbed Outcome `json:"testbed"`
	// TestbedCrossRack is the testbed's cross-rack traffic as the kernel
	// counted it (the Outcome's figure is its payload) and as the workers
	// accounted it.
	TestbedCrossRack testbed.CrossRack `json:"testbed_cross_rack"`
	// Host is how busy the host was during the testbed run.
	Host     testbed.HostUse `json:"host"`
	TestbedS float64         `json:"testbed_wall_s"`
}

// Effect is one comparison's effect in both, over the seeds.
type Effect struct {
	Policy   string      `json:"policy"`
	Baseline string      `json:"baseline"`
	Sim      EffectStats `json:"sim"`
	Testbed  EffectStats `json:"testbed"`
	// Agree is, for mean turnaround, throughput and cross-rack bytes, in
	// that order, whether the simulator's effect has the testbed's sign
	// and lies within two of its standard errors.
	Agree [3]Agreement `json:"agree"`
}

// Report is validate.json.
type Report struct {
	Scenario string   `json:"scenario"`
	Seeds    []uint64 `json:"seeds"`
	// SimSettings are the settings the simulator's runs had on top of the
	// scenario, which its testbed runs did not (Options.SimSettings).
	SimSettings []string `json:"sim_settings,omitempty"`
	// TestbedFrom is the directory the testbed runs were read back from,
	// when not the report's own (Options.TestbedFrom).
	TestbedFrom string   `json:"testbed_from,omitempty"`
	Runs        []Run    `json:"runs"`
	Effects     []Effect `json:"effects"`
	// Definitions say what each number is.
	Definitions map[string]string `json:"definitions"`
}

// Options are how Validate runs.
type Options struct {
	Seeds []uint64
	// Finished, when set, is called after each policy's run on a seed is
	// done on both sides (and written to Out), with the count done and
	// the count in all: so that a validation cut short can say what it
	// kept.
	Finished func(done, total int)
	// Out, if set, receives every run's directory: Out/seed-N/POLICY/sim
	// and .../testbed, as simulate and testbed write them.
	Out string
	// Testbed runs a scenario on the testbed (testbed.Run with the
	// caller's options).
	Testbed func(ctx context.Context, c *scenario.Config) (*testbed.Result, error)
	// Log receives a line as each run starts and ends.
	Log io.Writer
	// SimSettings change the simulator's runs only (cluster.profile, a
	// network mode): the same ground truth, held against another model.
	SimSettings []scenario.Setting
	// Reuse reads back a testbed run from Out (or TestbedFrom) instead of
	// running it again when it holds one of the same scenario, byte for
	// byte: a validation cut short resumes, and one with other SimSettings
	// costs no testbed time.
	Reuse bool
	// TestbedFrom, if set, is where Reuse looks for testbed runs instead
	// of Out: another validation's directory, so that a second model's
	// results go to a directory of their own beside the first's.
	TestbedFrom string
}

type run struct {
	policy string
	params *yaml.Node
}

// Validate runs every policy of c's validate section and its baseline on
// each seed, in the simulator and on the testbed.
func Validate(ctx context.Context, c *scenario.Config, opt Options) (*Report, error) {
	spec, err := LoadSpec(c)
	if err != nil {
		return nil, err
	}
	// Each distinct policy (with its parameters) runs once a seed.
	var runs []run
	index := map[string]int{}
	key := func(p string, n *yaml.Node) string { return p + "\x00" + scenario.FormatValue(n) }
	add := func(p string, n *yaml.Node) {
		if _, ok := index[key(p, n)]; !ok {
			index[key(p, n)] = len(runs)
			runs = append(runs, run{p, n})
		}
	}
	for i := range spec.Policies {
		p := &spec.Policies[i]
		add(p.Baseline, &p.BaselineParams)
		add(p.Policy, &p.Params)
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	rep := &Report{Scenario: c.Name(), Seeds: opt.Seeds, Definitions: definitions(), TestbedFrom: opt.TestbedFrom}
	for _, st := range opt.SimSettings {
		rep.SimSettings = append(rep.SimSettings, st.String())
	}
	outcomes := map[string]map[uint64][2]Outcome{} // run key -> seed -> sim, testbed
	done, total := 0, len(opt.Seeds)*len(runs)
	for _, seed := range opt.Seeds {
		for _, r := range runs {
			rc, src, err := variant(c, r, seed)
			if err != nil {
				return nil, err
			}
			name := label(r)
			dir := ""
			if opt.Out != "" {
				dir = filepath.Join(opt.Out, "seed-"+strconv.FormatUint(seed, 10), name)
			}
			sc, ssrc := rc, src
			if len(opt.SimSettings) > 0 {
				if sc, ssrc, err = simVariant(rc, src, opt.SimSettings); err != nil {
					return nil, err
				}
			}
			logf("validate: %s, seed %d: simulating", name, seed)
			sres, err := sc.Run(nil)
			if err != nil {
				return nil, err
			}
			cc, _, err := nudged(sc, ssrc)
			if err != nil {
				return nil, err
			}
			cres, err := cc.Run(nil)
			if err != nil {
				return nil, err
			}
			so := outcome(sres.Summary, turnarounds(sres.Collector))
			var tb *tbRun
			if from := opt.TestbedFrom; opt.Reuse && (dir != "" || from != "") {
				tdir := filepath.Join(dir, "testbed")
				if from != "" {
					tdir = filepath.Join(from, "seed-"+strconv.FormatUint(seed, 10), name, "testbed")
				}
				if tb, err = readTestbedRun(tdir, src); err != nil {
					return nil, err
				}
				if tb != nil {
					logf("validate: %s, seed %d: the testbed run in %s is of this scenario; read back", name, seed, tdir)
				}
			}
			if tb == nil {
				logf("validate: %s, seed %d: on the testbed", name, seed)
				start := time.Now()
				tres, err := opt.Testbed(ctx, rc)
				if err != nil {
					return nil, err
				}
				tb = &tbRun{summary: tres.Collector.Summarize(rc.Policy.Name), turnaround: turnarounds(tres.Collector),
					report: tres.Report, wall: time.Since(start).Seconds()}
				if err := rc.Describe(&tb.summary); err != nil {
					return nil, err
				}
				if dir != "" {
					if err := report.WriteRunDir(filepath.Join(dir, "testbed"), report.Output{Scenario: src, Summary: tb.summary, Collector: tres.Collector}); err != nil {
						return nil, err
					}
					if err := writeJSON(filepath.Join(dir, "testbed", "testbed.json"), tres.Report); err != nil {
						return nil, err
					}
				}
			}
			to := outcome(tb.summary, tb.turnaround)
			to.CrossRackBytes = tb.report.CrossRack.PayloadBytes
			if outcomes[key(r.policy, r.params)] == nil {
				outcomes[key(r.policy, r.params)] = map[uint64][2]Outcome{}
			}
			outcomes[key(r.policy, r.params)][seed] = [2]Outcome{so, to}
			rep.Runs = append(rep.Runs, Run{Policy: name, Seed: seed, Error: Compare(so, to), Control: Compare(outcome(cres.Summary, turnarounds(cres.Collector)), so), Sim: so, Testbed: to,
				TestbedCrossRack: tb.report.CrossRack, Host: tb.report.Host, TestbedS: tb.wall})
			logf("validate: %s, seed %d: testbed run of %.0f s; mean turnaround sim %.1f s, testbed %.1f s", name, seed, tb.wall, so.MeanTurnaround, to.MeanTurnaround)
			if dir != "" {
				if err := report.WriteRunDir(filepath.Join(dir, "sim"), report.Output{Scenario: ssrc, Summary: sres.Summary, Collector: sres.Collector}); err != nil {
					return nil, err
				}
			}
			done++
			if opt.Finished != nil {
				opt.Finished(done, total)
			}
		}
	}
	for i := range spec.Policies {
		p := &spec.Policies[i]
		pk, bk := key(p.Policy, &p.Params), key(p.Baseline, &p.BaselineParams)
		var sr, tr []Ratios
		for _, seed := range opt.Seeds {
			po, bo := outcomes[pk][seed], outcomes[bk][seed]
			sr = append(sr, RatiosOf(po[0], bo[0]))
			tr = append(tr, RatiosOf(po[1], bo[1]))
		}
		e := Effect{Policy: label(run{p.Policy, &p.Params}), Baseline: label(run{p.Baseline, &p.BaselineParams}),
			Sim: Summarize(sr), Testbed: Summarize(tr)}
		e.Agree = Agree(e.Sim, e.Testbed)
		rep.Effects = append(rep.Effects, e)
	}
	return rep, nil
}

// label names a run: the policy, with its parameters when it has any.
func label(r run) string {
	if r.params == nil || r.params.Kind == 0 {
		return r.policy
	}
	return r.policy + " " + scenario.FormatValue(r.params)
}

// variant is c with policy r and seed, as a scenario of its own (its
// source is what a run directory's scenario.yaml holds).
func variant(c *scenario.Config, r run, seed uint64) (*scenario.Config, []byte, error) {
	src := c.Source()
	if src == nil {
		return nil, nil, fmt.Errorf("validate: the scenario was not read from a file (scenario.Load or LoadBytes)")
	}
	pol := policyNode(r)
	if c.Policy.Pools.Kind != 0 || c.Policy.Preemption.Kind != 0 {
		// The cluster's pools, under every policy the validation runs.
		pol = c.PoolsNode(r.policy)
		if r.params != nil && r.params.Kind != 0 {
			pol.Content = append(pol.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "params"}, r.params)
		}
	}
	settings := []scenario.Setting{
		{Path: "policy", Value: pol},
		{Path: "seed", Value: &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatUint(seed, 10)}},
	}
	b, err := scenario.Override(src, settings...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	head := fmt.Sprintf("# The scenario of validate's %s run, seed %d: %s with that policy and seed.\n", label(r), seed, c.Name())
	b = append([]byte(head), b...)
	rc, err := scenario.LoadBytes(b, c.Name(), c.Dir())
	if err != nil {
		return nil, nil, err
	}
	return rc, b, nil
}

// nudged is rc with every heartbeat one nanosecond later: the control.
func nudged(rc *scenario.Config, src []byte) (*scenario.Config, []byte, error) {
	hb := rc.Engine.WithDefaults().HeartbeatS + 1e-9
	b, err := scenario.Override(src, scenario.Setting{Path: "engine.heartbeat_s",
		Value: &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(hb, 'g', -1, 64)}})
	if err != nil {
		return nil, nil, err
	}
	c, err := scenario.LoadBytes(b, rc.Name(), rc.Dir())
	return c, b, err
}

func policyNode(r run) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "name"}, {Kind: yaml.ScalarNode, Value: r.policy}}}
	if r.params != nil && r.params.Kind != 0 {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "params"}, r.params)
	}
	return n
}

// outcome reduces a run's summary and per-job turnarounds to what
// validation compares.
func outcome(s metrics.Summary, turnaround map[int]float64) Outcome {
	o := Outcome{MeanTurnaround: s.Turnaround.Mean, P95Turnaround: s.Turnaround.P95, MakespanS: s.MakespanS,
		ThroughputJobsPerHour: s.ThroughputJobsPerHour, CrossRackBytes: s.Bytes.CrossRackTotal, Turnaround: turnaround}
	if s.TimeBreakdown != nil {
		o.Time = s.TimeBreakdown.MeanS
	}
	return o
}

// turnarounds is every completed job's turnaround, by job ID.
func turnarounds(col *metrics.Collector) map[int]float64 {
	m := map[int]float64{}
	jobs := col.Jobs()
	for i := range jobs {
		if t := jobs[i].Turnaround(); t >= 0 {
			m[jobs[i].ID] = t
		}
	}
	return m
}

// tbRun is what validation keeps of a testbed run, run now or read back.
type tbRun struct {
	summary    metrics.Summary
	turnaround map[int]float64
	report     testbed.Report
	wall       float64
}

// readTestbedRun reads back the testbed run in dir if it is a complete run
// of the scenario src: its scenario.yaml is src and its testbed.json says
// every job's output was right. It returns nil, and no error, when dir
// holds no such run (none, another scenario's, or one cut short).
func readTestbedRun(dir string, src []byte) (*tbRun, error) {
	got, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil || !bytes.Equal(got, src) {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "testbed.json"))
	if err != nil {
		return nil, nil
	}
	var rep testbed.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "testbed.json"), err)
	}
	if !rep.ChecksumsOK {
		return nil, nil
	}
	run, err := metrics.ReadRun(dir)
	if err != nil {
		return nil, err
	}
	return &tbRun{summary: run.Summary, turnaround: run.Turnaround, report: rep, wall: rep.WallS}, nil
}

// simVariant is the simulator's side of a run: rc with settings applied.
func simVariant(rc *scenario.Config, src []byte, settings []scenario.Setting) (*scenario.Config, []byte, error) {
	b, err := scenario.Override(src, settings...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rc.Name(), err)
	}
	c, err := scenario.LoadBytes(b, rc.Name(), rc.Dir())
	return c, b, err
}

func definitions() map[string]string {
	return map[string]string{
		"error":               "(simulator - testbed) / testbed, per policy and seed; spearman_turnaround is the rank correlation of per-job turnaround over jobs completed in both",
		"cross_rack_bytes":    "simulator: its accounting of bytes that crossed a rack uplink; testbed: the TCP payload of the uplinks' up directions as the kernel counted them (frames less 66 header bytes each)",
		"control":             "the simulator with every heartbeat one nanosecond later against the simulator: the spread of the model itself",
		"effect":              "a policy's figure over its baseline's on the same seed (ratio); mean and standard error over seeds",
		"agree.same_sign":     "the simulator's ratio is on the same side of 1 as the testbed's",
		"agree.within_two_se": "|simulator's mean ratio - testbed's| <= 2 x the testbed's standard error; false and agree.one_seed set when the testbed ran one seed (no spread to test against)",
	}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
