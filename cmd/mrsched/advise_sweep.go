package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/advise"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sweep"
)

// advisePlan is DIR/advise-plan.json of advise -sweep: the candidates,
// which sub-sweep and cell runs each, and how to decide, so that advise
// -collect DIR decides from the finished runs.
type advisePlan struct {
	Scenario     string             `json:"scenario"`
	Profile      string             `json:"profile"`
	ProfileNamed bool               `json:"profile_named"`
	Jobs         int                `json:"jobs"`
	Objective    string             `json:"objective"`
	Constraint   string             `json:"constraint,omitempty"`
	Candidates   []advise.Candidate `json:"candidates"`
	Current      int                `json:"current"`
	Seeds        int                `json:"seeds"`
	// Where is each candidate's sub-sweep (a directory under DIR, one a
	// policy) and cell in it.
	Where   []sweepCell    `json:"where"`
	Cluster advise.Cluster `json:"cluster"`
}

type sweepCell struct {
	Sweep string `json:"sweep"`
	Cell  int    `json:"cell"`
}

const advisePlanFile = "advise-plan.json"

// planAdviseSweep writes every candidate on the whole workload over seeds
// as sweeps, one a policy (a grid whose one axis is policy.params, a
// value a candidate), for Slurm or Kubernetes; there is no halving: every
// candidate runs every seed, and -collect decides on them.
func planAdviseSweep(dir string, w *advise.Workload, p *advisePlan, stdout io.Writer) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("-sweep %s: exists; plan into a new directory", dir)
	}
	// Planned in place, so that the plans record the paths they keep;
	// a plan that fails removes the directory.
	tmp := dir
	if err := os.MkdirAll(filepath.Join(tmp, "bases"), 0o755); err != nil {
		return err
	}
	fail := func(err error) error { os.RemoveAll(tmp); return err }
	byPolicy := map[string][]int{}
	var order []string
	for i, c := range p.Candidates {
		if _, ok := byPolicy[c.Policy]; !ok {
			order = append(order, c.Policy)
		}
		byPolicy[c.Policy] = append(byPolicy[c.Policy], i)
	}
	p.Where = make([]sweepCell, len(p.Candidates))
	var dirs []string
	for _, pol := range order {
		// The base: the workload's scenario under this policy with the
		// cluster's pools, the profile and the whole workload.
		src, err := w.RunText(advise.Candidate{Policy: pol}, 1, 1)
		if err != nil {
			return fail(err)
		}
		basePath := filepath.Join(tmp, "bases", pol+".yaml")
		if err := os.WriteFile(basePath, src, 0o644); err != nil {
			return fail(err)
		}
		var values []*yaml.Node
		for cell, ci := range byPolicy[pol] {
			c := p.Candidates[ci]
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
			if c.Own {
				own := w.Config.Policy.Params // the scenario's own parameters
				m = &own
			}
			for _, s := range c.Settings {
				st, err := scenario.ParseSetting("x=" + s.Value)
				if err != nil {
					return fail(err)
				}
				key := s.Key
				if rest, ok := strings.CutPrefix(key, "preemption."); ok {
					pre := mapChild(m, "preemption")
					pre.Content = append(pre.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: rest}, st.Value)
					continue
				}
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, st.Value)
			}
			values = append(values, m)
			p.Where[ci] = sweepCell{Sweep: pol, Cell: cell}
		}
		grid := map[string]any{"base": pol + ".yaml", "policies": []string{pol}, "seeds": p.Seeds,
			"axes": map[string]any{"policy.params": values}}
		gb, err := yaml.Marshal(grid)
		if err != nil {
			return fail(err)
		}
		gridPath := filepath.Join(tmp, "bases", pol+"-grid.yaml")
		if err := os.WriteFile(gridPath, gb, 0o644); err != nil {
			return fail(err)
		}
		g, err := sweep.LoadGrid(gridPath)
		if err != nil {
			return fail(err)
		}
		if _, err := g.Write(filepath.Join(tmp, pol)); err != nil {
			return fail(err)
		}
		dirs = append(dirs, pol)
	}
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, advisePlanFile), append(b, '\n'), 0o644); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "planned %d candidates x %d seeds as %d sweeps in %s; run each, here or on a cluster:\n", len(p.Candidates), p.Seeds, len(dirs), dir)
	for _, d := range dirs {
		fmt.Fprintf(stdout, "  mrsched sweep run -dir %s\n", filepath.Join(dir, d))
	}
	fmt.Fprintf(stdout, "then: mrsched advise -collect %s\n", dir)
	return nil
}

func mapChild(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	c := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, c)
	return c
}

// collectedEvaluator answers the search's requests from a planned
// sweep's finished runs.
type collectedEvaluator struct {
	figs map[[2]uint64]*advise.Figures // (candidate, seed)
}

func (e *collectedEvaluator) Evaluate(_ context.Context, reqs []advise.Request) ([]*advise.Figures, error) {
	out := make([]*advise.Figures, len(reqs))
	for i, r := range reqs {
		out[i] = e.figs[[2]uint64{uint64(r.Candidate), r.Seed}]
	}
	return out, nil
}

// collectAdviseSweep reads the finished runs of an advise -sweep
// directory and decides on them as the last stage of advise does.
func collectAdviseSweep(dir string) (*advise.Advice, error) {
	b, err := os.ReadFile(filepath.Join(dir, advisePlanFile))
	if err != nil {
		return nil, fmt.Errorf("-collect %s: not a directory advise -sweep planned: %w", dir, err)
	}
	var p advisePlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("-collect %s: %s: %w", dir, advisePlanFile, err)
	}
	obj, err := advise.LookupObjective(p.Objective)
	if err != nil {
		return nil, err
	}
	ev := &collectedEvaluator{figs: map[[2]uint64]*advise.Figures{}}
	var missing []string
	seedsOf := map[uint64]bool{}
	for ci, where := range p.Where {
		s, err := sweep.Open(filepath.Join(dir, where.Sweep))
		if err != nil {
			return nil, err
		}
		for _, r := range s.Plan.Runs {
			if r.Cell != where.Cell {
				continue
			}
			seedsOf[r.Seed] = true
			if !s.Done(r.Index) {
				missing = append(missing, fmt.Sprintf("%s run %d", where.Sweep, r.Index))
				continue
			}
			run, err := report.LoadRun(s.RunDir(r.Index))
			if err != nil {
				return nil, err
			}
			f := advise.FiguresOf(run.Summary, run.Jobs)
			ev.figs[[2]uint64{uint64(ci), r.Seed}] = &f
		}
	}
	if len(missing) > 0 {
		n := len(missing)
		if n > 5 {
			missing = append(missing[:5], "...")
		}
		return nil, fmt.Errorf("-collect %s: %d runs have not finished (%s); run their sweeps (mrsched sweep run -dir %s/<policy>)", dir, n, strings.Join(missing, ", "), dir)
	}
	o := advise.DefaultOptions()
	o.Objective, o.Current = obj, p.Current
	if p.Constraint != "" {
		if o.Constraint, err = advise.ParseConstraint(p.Constraint); err != nil {
			return nil, err
		}
	}
	o.Stages = []advise.StagePlan{{Fraction: 1, Seeds: p.Seeds}}
	o.MaxSeeds = p.Seeds
	// Seeds start where the plan's do (a grid's seeds are 1..n).
	o.FirstSeed = 1
	res, err := advise.Search(context.Background(), p.Candidates, ev, o)
	if err != nil {
		return nil, err
	}
	a := &advise.Advice{Scenario: p.Scenario, Profile: p.Profile, ProfileNamed: p.ProfileNamed, Jobs: p.Jobs, Result: res, Verdict: res.Verdict()}
	if rec := res.Recommended(); rec >= 0 {
		a.Config = advise.ConfigLines(p.Candidates[rec], p.Cluster)
	}
	return a, nil
}
