package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/testbed"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/validate"
)

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("validate", stderr,
		"usage: mrsched validate -config FILE -out DIR [-seeds N] [-seed S] [-sim-set path=value]... [-testbed-from DIR] [-rerun]   (needs root: it runs the testbed)",
		"A testbed run that -out (or -testbed-from) already holds, of the same scenario, is read back rather than run again: a validation cut short resumes, and -sim-set holds another model against the same runs.")
	cfgPath := fs.String("config", "", "scenario YAML with a validate: section (required; see examples/testbed/validate-*.yaml)")
	out := fs.String("out", "", "output directory (required): validate.json and every run's directory")
	seeds := fs.Int("seeds", 3, "how many seeds, from -seed on")
	first := fs.Uint64("seed", 0, "the first seed (default: the scenario's seed, or 1)")
	quiet := fs.Bool("q", false, "no progress lines")
	force := fs.Bool("force", false, "replace what -out holds when it is not an earlier run of this validation (which resumes)")
	rerun := fs.Bool("rerun", false, "run every testbed run again, even where -out holds one of the same scenario")
	from := fs.String("testbed-from", "", "read back the testbed runs of the same scenario from this validation's directory instead of -out (to hold another model, -sim-set, against them in a directory of its own)")
	var simSets []scenario.Setting
	fs.Func("sim-set", "set a scenario field for the simulator's runs only, as `path=value` (cluster.profile=hadoop1-hdd); repeatable", func(s string) error {
		st, err := scenario.ParseSetting(s)
		if err != nil {
			return err
		}
		simSets = append(simSets, st)
		return nil
	})
	if err := parseCommand(fs, args, cfgPath, out); err != nil {
		return err
	}
	if *rerun && *from != "" {
		return fmt.Errorf("-rerun runs every testbed run again; -testbed-from reads them back: give one")
	}
	if *seeds < 1 || *seeds > 1000 {
		return fmt.Errorf("-seeds: %d; want 1 to 1000", *seeds)
	}
	if err := fabric.CheckPrivileges(); err != nil {
		return err
	}
	c, err := scenario.Load(*cfgPath)
	if err != nil {
		return err
	}
	if _, err := validate.LoadSpec(c); err != nil {
		return err
	}
	s := c.RunSeed()
	if flagGiven(fs, "seed") {
		s = *first
	}
	var list []uint64
	for i := range *seeds {
		list = append(list, s+uint64(i))
	}
	var log io.Writer = stderr
	if *quiet {
		log = io.Discard
	}
	man := validateManifest{Scenario: textSum(c.Source()), Seeds: list, TestbedFrom: *from}
	for _, st := range simSets {
		man.SimSet = append(man.SimSet, st.String())
	}
	dir, err := openOutDir("-out", *out, *force, man.matches)
	if err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir.path, validateManifestFile), man); err != nil {
		dir.discard()
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	done, total := 0, 0
	rep, err := validate.Validate(ctx, c, validate.Options{Seeds: list, Out: *out, Log: log, SimSettings: simSets, Reuse: !*rerun, TestbedFrom: *from,
		Finished: func(d, t int) { done, total = d, t },
		Testbed: func(ctx context.Context, c *scenario.Config) (*testbed.Result, error) {
			return testbed.Run(ctx, c, testbed.Options{Log: log})
		}})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "interrupted: %d of %d runs finished, kept in %s; the same command resumes from them\n", done, max(total, done), dir.path)
		return errInterrupted
	}
	if err != nil {
		if done == 0 {
			dir.discard()
		}
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "validate.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, t := range validateTables(rep) {
		if err := t.WriteText(stdout); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, "validate.json"))
	return nil
}

// validateTables renders a validation: the simulator's errors run by run,
// and each effect in both with its standard error.
func validateTables(rep *validate.Report) []*report.Table {
	pct := func(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }
	errs := &report.Table{Title: "The simulator against the testbed, run by run: (simulator - testbed) / testbed",
		Headers: []string{"policy", "seed", "mean turnaround", "p95 turnaround", "makespan", "cross-rack bytes", "rank correlation", "host busy (p95)", "niced work"}}
	for _, r := range rep.Runs {
		errs.AddRow(r.Policy, fmt.Sprint(r.Seed), pct(r.Error.MeanTurnaround), pct(r.Error.P95Turnaround), pct(r.Error.Makespan),
			pct(r.Error.CrossRackBytes), fmt.Sprintf("%.3f", r.Error.SpearmanTurnaround), fmt.Sprintf("%.0f%%", 100*r.Host.UnniceP95),
			fmt.Sprintf("%.0f%%", 100*r.Host.NicedShare()))
		c := r.Control
		errs.AddRow("  control", "", pct(c.MeanTurnaround), pct(c.P95Turnaround), pct(c.Makespan), pct(c.CrossRackBytes), fmt.Sprintf("%.3f", c.SpearmanTurnaround), "", "")
	}
	errs.Notes = []string{
		"rank correlation: Spearman's, of per-job turnaround over the jobs completed in both;",
		"control: the simulator with every heartbeat 1 ns later against the simulator, the model's own spread;",
		"cross-rack bytes on the testbed: the TCP payload the kernel counted on the rack uplinks;",
		"host busy: the 95th percentile of one-second samples of the cores' un-niced busy share during the testbed run;",
		"niced work: the share of the cores' time other work took at a lowered priority during it, which still slows",
		fmt.Sprintf("the shaped links (docs/testbed.md, The host): above %.0f%% the run was not taken on a quiet host.", 100*testbed.NicedWarnShare),
	}
	eff := &report.Table{Title: fmt.Sprintf("Effects: a policy's figure over its baseline's on the same seed, mean ± standard error over %d seeds", len(rep.Seeds)),
		Headers: []string{"policy / baseline", "figure", "simulator", "testbed", "same sign", "within 2 SE"}}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, e := range rep.Effects {
		figs := []struct {
			name     string
			s, t, se float64
			sse      float64
		}{
			{"mean turnaround", e.Sim.MeanTurnaround, e.Testbed.MeanTurnaround, e.Testbed.SE.MeanTurnaround, e.Sim.SE.MeanTurnaround},
			{"throughput", e.Sim.Throughput, e.Testbed.Throughput, e.Testbed.SE.Throughput, e.Sim.SE.Throughput},
			{"cross-rack bytes", e.Sim.CrossRack, e.Testbed.CrossRack, e.Testbed.SE.CrossRack, e.Sim.SE.CrossRack},
		}
		for k, f := range figs {
			sim, tb, within := fmt.Sprintf("%.3f ± %.3f", f.s, f.sse), fmt.Sprintf("%.3f ± %.3f", f.t, f.se), yes(e.Agree[k].WithinTwoSE)
			if e.Agree[k].OneSeed {
				// One seed has no spread: print the ratios alone and say the test was not made.
				sim, tb, within = fmt.Sprintf("%.3f", f.s), fmt.Sprintf("%.3f", f.t), "untested (1 seed)"
			}
			eff.AddRow(e.Policy+" / "+e.Baseline, f.name, sim, tb, yes(e.Agree[k].SameSign), within)
		}
	}
	tables := []*report.Table{errs, eff}
	if t := validateTimeTable(rep); t != nil {
		tables = append(tables, t)
	}
	return tables
}

// validateTimeTable puts each policy's mean job time by part in the
// simulator beside the testbed's, averaged over the seeds whose runs
// both recorded it: where the simulator's error lies. The testbed does
// not observe which link bounded a fetch, so the shuffle's parts are
// one row. Nil when no testbed run recorded its jobs' time.
func validateTimeTable(rep *validate.Report) *report.Table {
	type sums struct {
		sim, tb map[string]float64
		n       int
	}
	var order []string
	by := map[string]*sums{}
	for _, r := range rep.Runs {
		if r.Sim.Time == nil || r.Testbed.Time == nil {
			continue
		}
		s := by[r.Policy]
		if s == nil {
			s = &sums{sim: map[string]float64{}, tb: map[string]float64{}}
			by[r.Policy] = s
			order = append(order, r.Policy)
		}
		for k, v := range r.Sim.Time {
			s.sim[timeRow(k)] += v
		}
		for k, v := range r.Testbed.Time {
			s.tb[timeRow(k)] += v
		}
		s.n++
	}
	if len(order) == 0 {
		return nil
	}
	t := &report.Table{Title: "Where the time goes: mean seconds a completed job by part of its critical path, simulator and testbed (docs/time.md)",
		Headers: []string{"part"}}
	for _, p := range order {
		t.Headers = append(t.Headers, p+" sim", "testbed", "sim - testbed")
	}
	var rows []string
	for p := range critpath.NumParts {
		if r := timeRow(p.String()); !slices.Contains(rows, r) {
			rows = append(rows, r)
		}
	}
	total := make([][2]float64, len(order))
	for _, row := range rows {
		cells, any := []string{row}, false
		for i, p := range order {
			s := by[p]
			sv, tv := s.sim[row]/float64(s.n), s.tb[row]/float64(s.n)
			total[i][0] += sv
			total[i][1] += tv
			any = any || math.Abs(sv) >= 0.005 || math.Abs(tv) >= 0.005
			cells = append(cells, fmt.Sprintf("%.2f", sv), fmt.Sprintf("%.2f", tv), fmt.Sprintf("%+.2f", sv-tv))
		}
		if any {
			t.AddRow(cells...)
		}
	}
	cells := []string{"turnaround"}
	for _, v := range total {
		cells = append(cells, fmt.Sprintf("%.2f", v[0]), fmt.Sprintf("%.2f", v[1]), fmt.Sprintf("%+.2f", v[0]-v[1]))
	}
	t.AddRow(cells...)
	lo, hi := by[order[0]].n, by[order[0]].n
	for _, p := range order {
		lo, hi = min(lo, by[p].n), max(hi, by[p].n)
	}
	seeds := fmt.Sprintf("%d seed(s)", hi)
	if lo != hi { // some runs were read back from before their time was recorded
		seeds = fmt.Sprintf("%d to %d seeds, those whose runs recorded it on both sides", lo, hi)
	}
	t.Notes = []string{fmt.Sprintf("the mean over %s of each run's mean; parts under 0.005 s on both sides are left out;", seeds),
		"shuffle: the copy left after a job's last map, whatever bounded it (the simulator splits it by NIC, uplink and disk; the testbed cannot)."}
	return t
}

// timeRow is the validation's row for part name: the shuffle's parts
// are one.
func timeRow(name string) string {
	if strings.HasPrefix(name, "shuffle_") {
		return "shuffle"
	}
	return name
}

// validateManifest is validate-run.json in validate's -out directory:
// which validation it holds, so that the same command resumes there and
// another is refused rather than mixed with it.
type validateManifest struct {
	Scenario    string   `json:"scenario"`
	Seeds       []uint64 `json:"seeds"`
	SimSet      []string `json:"sim_set,omitempty"`
	TestbedFrom string   `json:"testbed_from,omitempty"`
}

const validateManifestFile = "validate-run.json"

func (m validateManifest) matches(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, validateManifestFile))
	if err != nil {
		return false
	}
	var got validateManifest
	return json.Unmarshal(b, &got) == nil && reflect.DeepEqual(got, m)
}

// textSum identifies a scenario's text.
func textSum(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8])
}
