package validate_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/testbed"
	"github.com/mrsched/mrsched/testbed/master"
	"github.com/mrsched/mrsched/validate"
)

const scen = `
cluster: {racks: 2, nodes_per_rack: 2}
workload: {trace: FB-2009, users: 3, max_jobs: 30}
policy: {name: fair}
validate:
  policies:
    - {policy: delay, baseline: fair}
    - {policy: fifo, baseline: fair}
`

// loadScen loads scen, the validation the tests of Validate run.
func loadScen(t *testing.T) *scenario.Config {
	t.Helper()
	c, err := scenario.LoadBytes([]byte(scen), "v.yaml", ".")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// asTestbed stands in for the testbed with the simulator itself, so the
// plumbing is checked without privileges: every error must then be 0 and
// every effect the same in both.
func asTestbed(_ context.Context, c *scenario.Config) (*testbed.Result, error) {
	r, err := c.Run(nil)
	if err != nil {
		return nil, err
	}
	res := &testbed.Result{Result: &master.Result{Collector: r.Collector}}
	res.Report.CrossRack.PayloadBytes = r.Summary.Bytes.CrossRackTotal
	return res, nil
}

func TestValidateAgainstItselfFindsNoError(t *testing.T) {
	c := loadScen(t)
	out := t.TempDir()
	rep, err := validate.Validate(context.Background(), c, validate.Options{Seeds: []uint64{1, 2}, Out: out, Testbed: asTestbed})
	if err != nil {
		t.Fatal(err)
	}
	// fair, delay and fifo once a seed: fair is both pairs' baseline.
	if len(rep.Runs) != 6 || len(rep.Effects) != 2 {
		t.Fatalf("%d runs and %d effects; want 3 policies x 2 seeds and 2 effects", len(rep.Runs), len(rep.Effects))
	}
	for _, r := range rep.Runs {
		e := r.Error
		if e.MeanTurnaround != 0 || e.P95Turnaround != 0 || e.Makespan != 0 || e.CrossRackBytes != 0 || e.SpearmanTurnaround != 1 {
			t.Errorf("%s seed %d: errors %+v against an identical run; want 0s and a rank correlation of 1", r.Policy, r.Seed, e)
		}
	}
	for _, e := range rep.Effects {
		if e.Sim.Ratios != e.Testbed.Ratios || e.Sim.Seeds != 2 {
			t.Errorf("%s / %s: simulator %+v, testbed %+v; want the same ratios over 2 seeds", e.Policy, e.Baseline, e.Sim, e.Testbed)
		}
		for k, a := range e.Agree {
			if !a.SameSign || !a.WithinTwoSE {
				t.Errorf("%s / %s figure %d: %+v; identical effects must agree", e.Policy, e.Baseline, k, a)
			}
		}
		if math.IsNaN(e.Sim.MeanTurnaround) {
			t.Errorf("%s / %s: no ratio", e.Policy, e.Baseline)
		}
	}
	// Each run's scenario reruns as that run.
	rerun, err := scenario.Load(filepath.Join(out, "seed-2", "delay", "sim", "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if rerun.Policy.Name != "delay" || rerun.Seed != 2 {
		t.Errorf("the delay run's scenario.yaml names policy %q seed %d; want delay, 2", rerun.Policy.Name, rerun.Seed)
	}
	// The testbed's summary says what it ran, as the simulator's does, so
	// that diff pairs the two.
	var fps []string
	for _, side := range []string{"sim", "testbed"} {
		b, err := os.ReadFile(filepath.Join(out, "seed-1", "fair", side, "summary.json"))
		if err != nil {
			t.Fatalf("no %s run directory: %v", side, err)
		}
		var sum struct {
			Fingerprint string `json:"workload_fingerprint"`
			Config      any    `json:"config"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Config == nil {
			t.Errorf("the %s summary records no configuration", side)
		}
		fps = append(fps, sum.Fingerprint)
	}
	if fps[0] == "" || fps[0] != fps[1] {
		t.Errorf("workload fingerprints %q (simulator) and %q (testbed); want one, the same", fps[0], fps[1])
	}
}

func TestBadValidateSectionsNameTheirLine(t *testing.T) {
	for _, tc := range []struct{ name, section, want string }{
		{"none", "", "validate.policies: want at least one"},
		{"unknown policy", "validate:\n  policies:\n    - {policy: nope, baseline: fair}\n", "line 7: validate.policies[0].policy"},
		{"no baseline", "validate:\n  policies:\n    - {policy: delay}\n", "validate.policies[0].baseline: required"},
		{"its own baseline", "validate:\n  policies:\n    - {policy: fair, baseline: fair}\n", "its own baseline"},
		{"unknown field", "validate:\n  policys: []\n", "line 6: policys: no such field; validate has policies"},
	} {
		c, err := scenario.Parse(strings.NewReader("workload: {trace: FB-2009}\npolicy: {name: fair}\n\n\n"+tc.section), "v.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := validate.LoadSpec(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestTestbedRunsAreReadBack: a second validation into the same directory
// reads back the testbed runs of the same scenario instead of running them
// again (a run cut short resumes), gets the same figures, and a
// simulator-only setting changes the simulator's side alone.
func TestTestbedRunsAreReadBack(t *testing.T) {
	c := loadScen(t)
	out := t.TempDir()
	calls := 0
	counting := func(ctx context.Context, c *scenario.Config) (*testbed.Result, error) {
		calls++
		r, err := asTestbed(ctx, c)
		if err == nil {
			r.Report.ChecksumsOK = true
		}
		return r, err
	}
	opt := validate.Options{Seeds: []uint64{1}, Out: out, Testbed: counting, Reuse: true}
	first, err := validate.Validate(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Fatalf("the first validation ran %d testbed runs; want 3 (fair, delay, fifo)", calls)
	}
	second, err := validate.Validate(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("the second validation ran %d more testbed runs; want none, all three read back", calls-3)
	}
	for i := range first.Runs {
		a, b := first.Runs[i], second.Runs[i]
		if a.Testbed.MeanTurnaround != b.Testbed.MeanTurnaround || a.Testbed.CrossRackBytes != b.Testbed.CrossRackBytes || a.Error != b.Error {
			t.Errorf("%s: read back %+v / %+v; want what the run gave, %+v / %+v", a.Policy, b.Testbed, b.Error, a.Testbed, a.Error)
		}
	}

	// The simulator's side alone moves: heartbeats twice as long, in a
	// directory of its own, against the first validation's testbed runs.
	hb, err := scenario.ParseSetting("engine.heartbeat_s=6")
	if err != nil {
		t.Fatal(err)
	}
	opt.SimSettings = []scenario.Setting{hb}
	opt.TestbedFrom, opt.Out = out, t.TempDir()
	third, err := validate.Validate(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("a simulator-only setting ran %d testbed runs; want the runs read back", calls-3)
	}
	if third.TestbedFrom != out {
		t.Errorf("the report says its testbed runs came from %q; want %q", third.TestbedFrom, out)
	}
	if len(third.SimSettings) != 1 || third.SimSettings[0] != "engine.heartbeat_s=6" {
		t.Errorf("the report records sim settings %v; want [engine.heartbeat_s=6]", third.SimSettings)
	}
	moved := false
	for i := range third.Runs {
		if third.Runs[i].Testbed.MeanTurnaround != first.Runs[i].Testbed.MeanTurnaround {
			t.Errorf("%s: the testbed side moved with a simulator-only setting", third.Runs[i].Policy)
		}
		moved = moved || third.Runs[i].Sim.MeanTurnaround != first.Runs[i].Sim.MeanTurnaround
	}
	if !moved {
		t.Error("6 s heartbeats left every simulated mean turnaround as at 3 s; the setting did not reach the simulator")
	}
	rec, err := os.ReadFile(filepath.Join(opt.Out, "seed-1", "fair", "sim", "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rec), "heartbeat_s: 6") {
		t.Errorf("the simulator's run directory records a scenario without its setting:\n%s", rec)
	}
}

// TestShippedScenariosAreValid: every examples/testbed/validate-*.yaml a
// user is told to run loads, names registered policies in its validate
// section and has a valid testbed section.
func TestShippedScenariosAreValid(t *testing.T) {
	files, err := filepath.Glob("../examples/testbed/validate-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("found no shipped validate scenarios (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := scenario.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := validate.LoadSpec(c); err != nil {
				t.Errorf("its validate section: %v", err)
			}
			if _, err := testbed.LoadSpec(c); err != nil {
				t.Errorf("its testbed section: %v", err)
			}
		})
	}
}
