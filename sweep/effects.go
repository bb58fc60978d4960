package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
)

// EffectPair is a policy and the baseline its effect is measured against.
type EffectPair struct{ Policy, Baseline string }

func (p EffectPair) String() string { return p.Policy + "/" + p.Baseline }

// ParseEffectPairs reads "nas/delay,sw-fair/fair": policy/baseline pairs,
// comma-separated.
func ParseEffectPairs(s string) ([]EffectPair, error) {
	var out []EffectPair
	for _, part := range strings.Split(s, ",") {
		p, b, ok := strings.Cut(strings.TrimSpace(part), "/")
		if !ok || p == "" || b == "" || strings.Contains(b, "/") {
			return nil, fmt.Errorf("%q: want policy/baseline, as nas/delay", part)
		}
		if p == b {
			return nil, fmt.Errorf("%q: a policy is not its own baseline", part)
		}
		pair := EffectPair{p, b}
		if slices.Contains(out, pair) {
			return nil, fmt.Errorf("%q is given twice", part)
		}
		out = append(out, pair)
	}
	return out, nil
}

// effectFigures are what an effect is a ratio of, in column order.
var effectFigures = []struct {
	head, csv string
	get       func(*metrics.Summary) float64
}{
	{"mean turnaround", "mean_turnaround_ratio", func(s *metrics.Summary) float64 { return s.Turnaround.Mean }},
	{"steady-state throughput", "steady_throughput_ratio", func(s *metrics.Summary) float64 { return s.SteadyState.JobsPerHour }},
	{"cross-rack bytes", "cross_rack_ratio", func(s *metrics.Summary) float64 { return s.Bytes.CrossRackTotal }},
}

// Effect is one pair's effect in one cell: for each figure, the policy's
// over the baseline's on the same seed, seed by seed.
type Effect struct {
	Cell     int
	Settings []Setting
	Pair     EffectPair
	Seeds    []uint64
	// Ratios[k][i] is figure k's ratio on Seeds[i].
	Ratios [3][]float64
}

// Effects pairs each policy's runs with its baseline's on the same cell and
// seed. A seed that either has not finished is left out. It is an error if
// a pair names a policy the sweep did not run.
func (c *Collection) Effects(pairs []EffectPair) ([]Effect, error) {
	type key struct {
		cell   int
		policy string
		seed   uint64
	}
	byKey := map[key]*metrics.Summary{}
	for _, r := range c.Runs {
		byKey[key{r.Run.Cell, r.Run.Policy, r.Run.Seed}] = &r.Summary
	}
	for _, p := range pairs {
		for _, name := range []string{p.Policy, p.Baseline} {
			if !slices.Contains(c.Sweep.Plan.Policies, name) {
				return nil, fmt.Errorf("effect %s: the sweep ran no %s (its policies: %s)", p, name, strings.Join(c.Sweep.Plan.Policies, ", "))
			}
		}
	}
	var cells []Group // one group a cell, for its settings
	for _, g := range c.Groups() {
		if len(cells) == 0 || cells[len(cells)-1].Cell != g.Cell {
			cells = append(cells, g)
		}
	}
	var out []Effect
	for _, cell := range cells {
		for _, p := range pairs {
			e := Effect{Cell: cell.Cell, Settings: cell.Settings, Pair: p}
			for _, seed := range c.Sweep.Plan.Seeds {
				ps, bs := byKey[key{cell.Cell, p.Policy, seed}], byKey[key{cell.Cell, p.Baseline, seed}]
				if ps == nil || bs == nil {
					continue
				}
				e.Seeds = append(e.Seeds, seed)
				for k, f := range effectFigures {
					e.Ratios[k] = append(e.Ratios[k], f.get(ps)/f.get(bs))
				}
			}
			if len(e.Seeds) > 0 {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// shift is how far effect e's figure k lies from ref's on the seeds both
// have: the mean of the per-seed differences and its standard error.
func shift(e, ref Effect, k int) (mean, se float64, n int) {
	var d []float64
	for i, s := range e.Seeds {
		if j := slices.Index(ref.Seeds, s); j >= 0 {
			d = append(d, e.Ratios[k][i]-ref.Ratios[k][j])
		}
	}
	if len(d) == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean, se = metrics.MeanSE(d)
	return mean, se, len(d)
}

// EffectsTables renders effects: each pair's ratios per cell, mean ± standard
// error over seeds, and, when the sweep has several cells, each cell's
// shift from the first cell's effect, paired by seed. The first is for
// people, the second (plain numbers) for tools.
func (c *Collection) EffectsTables(effs []Effect) (text, csv *report.Table) {
	axes := c.Sweep.Plan.Axes
	several := slices.ContainsFunc(effs, func(e Effect) bool { return e.Cell != effs[0].Cell })
	text = &report.Table{Title: fmt.Sprintf("effects: a policy's figure over its baseline's on the same seed, mean ± standard error over seeds %s", joinSeeds(c.Sweep.Plan.Seeds))}
	csv = &report.Table{}
	for _, a := range axes {
		text.Headers = append(text.Headers, a.Path)
		csv.Headers = append(csv.Headers, a.Path)
	}
	text.Headers = append(text.Headers, "policy / baseline", "seeds")
	csv.Headers = append(csv.Headers, "policy", "baseline", "seeds")
	for _, f := range effectFigures {
		text.Headers = append(text.Headers, f.head)
		csv.Headers = append(csv.Headers, f.csv+"_mean", f.csv+"_se")
	}
	if several {
		for _, f := range effectFigures {
			text.Headers = append(text.Headers, f.head+", shift from the first cell")
			csv.Headers = append(csv.Headers, f.csv+"_shift_mean", f.csv+"_shift_se")
		}
	}
	pm := func(mean, se float64, signed bool) string {
		f := "%.3f"
		if signed {
			f = "%+.3f"
		}
		s := fmt.Sprintf(f, mean)
		if !math.IsNaN(se) {
			s += fmt.Sprintf(" ± %.3f", se)
		}
		return s
	}
	for _, e := range effs {
		var row, crow []string
		for _, s := range e.Settings {
			row = append(row, s.Value)
			crow = append(crow, s.Value)
		}
		row = append(row, e.Pair.String(), strconv.Itoa(len(e.Seeds)))
		crow = append(crow, e.Pair.Policy, e.Pair.Baseline, strconv.Itoa(len(e.Seeds)))
		for k := range effectFigures {
			mean, se := metrics.MeanSE(e.Ratios[k])
			row = append(row, pm(mean, se, false))
			crow = append(crow, csvNum(mean), csvNum(se))
		}
		if several {
			ref := slices.IndexFunc(effs, func(r Effect) bool { return r.Pair == e.Pair })
			for k := range effectFigures {
				if effs[ref].Cell == e.Cell {
					row = append(row, "(the first cell)")
					crow = append(crow, "", "")
					continue
				}
				mean, se, _ := shift(e, effs[ref], k)
				row = append(row, pm(mean, se, true))
				crow = append(crow, csvNum(mean), csvNum(se))
			}
		}
		text.AddRow(row...)
		csv.AddRow(crow...)
	}
	text.Notes = []string{"ratio: the policy's figure / the baseline's on the same cell and seed (below 1 for mean turnaround is faster, above 1 for throughput is more)"}
	if several {
		text.Notes = append(text.Notes, "shift: the cell's ratio minus the first cell's on the same seed, mean ± standard error over the seeds both have: how far a setting moves the effect")
	}
	return text, csv
}
