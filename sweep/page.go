package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/mrsched/mrsched/report"
)

// Page is the collection as an HTML report (report.Page): the table of
// means ± standard errors, and mean turnaround drawn against the first
// axis, a line a policy, a panel a value of the second axis, with bars of
// one standard error.
func (c *Collection) Page() *report.Page {
	name := filepath.Base(filepath.Clean(c.Sweep.Dir))
	p := c.Sweep.Plan
	t := &report.Table{}
	fig := &report.TableFigure{
		Title:  "Mean turnaround by " + firstAxis(p),
		YLabel: "mean turnaround (s)",
		Series: "policy",
		Y:      []report.YColumn{{Col: "mean", Low: "low", High: "high"}},
		YMin0:  true,
		Caption: fmt.Sprintf("Each policy's mean turnaround (finish - submit, over completed jobs), averaged over the seeds (%s) of each cell; "+
			"bars: one standard error of that mean (none for one seed).", joinSeeds(p.Seeds)),
	}
	switch {
	case len(p.Axes) == 0:
		t.Headers = []string{"cell"}
		fig.X, fig.XCategorical, fig.Points = "policy", true, true
	default:
		fig.X, fig.XLabel = p.Axes[0].Path, p.Axes[0].Path
		fig.XCategorical = !numeric(p.Axes[0].Values)
		fig.Points = fig.XCategorical
		if len(p.Axes) > 1 {
			fig.Panel = p.Axes[1].Path
		}
	}
	for _, a := range p.Axes {
		t.Headers = append(t.Headers, a.Path)
	}
	t.Headers = append(t.Headers, "policy", "mean", "low", "high")
	turnaround := measures[2]
	for _, g := range c.Groups() {
		var row []string
		if len(p.Axes) == 0 {
			row = append(row, "all")
		}
		for _, s := range g.Settings {
			row = append(row, s.Value)
		}
		mean, se := g.stats(turnaround)
		if math.IsNaN(se) {
			se = 0
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		t.AddRow(append(row, g.Policy, f(mean), f(mean-se), f(mean+se))...)
	}
	return &report.Page{
		Title: "mrsched sweep " + name,
		Note:  fmt.Sprintf("Written by mrsched sweep collect from the sweep in %s, planned from %s.", c.Sweep.Dir, p.Grid),
		Experiments: []report.Experiment{{
			Name: "sweep " + name, Table: c.Table(), CSV: t, Figure: fig,
		}},
	}
}

func firstAxis(p *Plan) string {
	if len(p.Axes) == 0 {
		return "policy"
	}
	return p.Axes[0].Path
}

// numeric reports whether every value reads as a number.
func numeric(values []string) bool {
	for _, v := range values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	}
	return true
}
