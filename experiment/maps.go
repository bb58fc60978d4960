package experiment

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mrsched/mrsched/report"

	"github.com/mrsched/mrsched/metrics"
)

// regimeMap is a policy's gain over its baseline on a grid of two regime
// axes (offered load and over-subscription, say), several seeds a cell:
// where a paper's effect appears, vanishes or reverses. No paper has one;
// it answers a user's question, "would it gain on my cluster?", with the
// papers' own operating points marked on it.
type regimeMap struct {
	// XName and YName are the axes' CSV columns; XLabel and YLabel say
	// what they are, with units.
	XName, YName   string
	XLabel, YLabel string
	Xs, Ys         []float64
	// XFormat and YFormat print an axis value (default %g).
	XFormat, YFormat string
	Policy, Baseline PolicySpec
	// Marks labels cells, by their (x, y) indexes: the papers' operating
	// points.
	Marks map[[2]int]string
	// Title heads the table; Notes follow it (the set-up and its rules).
	Title string
	Notes []string
	// run runs one policy on cell (xi, yi) with seed; o is the
	// experiment's (its keep directory). Runs share nothing: they run
	// o.Parallel at a time.
	run func(o Options, p PolicySpec, xi, yi int, seed uint64) (mapOutcome, error)
}

// mapOutcome is what a map keeps of a run: the figures whose ratios it
// maps.
type mapOutcome struct {
	// Turnaround is the mean turnaround of the jobs the set-up measures;
	// Throughput their completions an hour, as the set-up defines them.
	Turnaround, Throughput float64
}

// mapCell is a cell's ratios over the seeds: the policy's figure over
// the baseline's on the same seed.
type mapCell struct {
	xi, yi                 int
	turnaround, throughput sample
}

// sample is values over seeds, for a mean and its standard error.
type sample []float64

func (s *sample) add(v float64) { *s = append(*s, v) }

// runMap runs every cell, both policies, every seed, and tabulates the
// ratios.
func runMap(o Options, m regimeMap) (*Result, error) {
	type job struct {
		xi, yi int
		pol    PolicySpec
		seed   uint64
	}
	var jobs []job
	for yi := range m.Ys {
		for xi := range m.Xs {
			for _, p := range []PolicySpec{m.Baseline, m.Policy} {
				for _, s := range o.seeds() {
					jobs = append(jobs, job{xi, yi, p, s})
				}
			}
		}
	}
	outs, err := inParallel(o, len(jobs), func(i int) (mapOutcome, error) {
		j := jobs[i]
		r, err := m.run(o, j.pol, j.xi, j.yi, j.seed)
		if err != nil {
			return r, fmt.Errorf("%s=%s, %s=%s, %s, seed %d: %w", m.XName, m.fmtX(j.xi), m.YName, m.fmtY(j.yi), j.pol.Label, j.seed, err)
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	n := len(o.seeds())
	var cells []mapCell
	k := 0
	for yi := range m.Ys {
		for xi := range m.Xs {
			base, pol := outs[k:k+n], outs[k+n:k+2*n]
			k += 2 * n
			c := mapCell{xi: xi, yi: yi}
			for s := range n {
				if base[s].Turnaround > 0 {
					c.turnaround.add(pol[s].Turnaround / base[s].Turnaround)
				}
				if base[s].Throughput > 0 {
					c.throughput.add(pol[s].Throughput / base[s].Throughput)
				}
			}
			cells = append(cells, c)
		}
	}
	return m.tables(o, cells), nil
}

func (m regimeMap) fmtX(i int) string { return fmtAxis(m.XFormat, m.Xs[i]) }
func (m regimeMap) fmtY(i int) string { return fmtAxis(m.YFormat, m.Ys[i]) }

func fmtAxis(f string, v float64) string {
	if f == "" {
		f = "%g"
	}
	return fmt.Sprintf(f, v)
}

// meanSE is the sample's mean and its standard error (NaN with fewer
// than two values).
func (s sample) meanSE() (mean, se float64) { return metrics.MeanSE(s) }

func (m regimeMap) tables(o Options, cells []mapCell) *Result {
	pm := func(s sample) string {
		mean, se := s.meanSE()
		if math.IsNaN(mean) {
			return "-"
		}
		if math.IsNaN(se) {
			return fmt.Sprintf("%.3f", mean)
		}
		return fmt.Sprintf("%.3f ± %.3f", mean, se)
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	t := &report.Table{Title: m.Title, Headers: []string{m.XName, m.YName, "seeds",
		fmt.Sprintf("mean turnaround, %s / %s", m.Policy.Label, m.Baseline.Label),
		fmt.Sprintf("throughput, %s / %s", m.Policy.Label, m.Baseline.Label), "operating point"}}
	c := &report.Table{Headers: []string{m.XName, m.YName, "seeds", "turnaround_ratio", "turnaround_ratio_se",
		"throughput_ratio", "throughput_ratio_se", "mark"}}
	for _, cl := range cells {
		mark := m.Marks[[2]int{cl.xi, cl.yi}]
		t.AddRow(m.fmtX(cl.xi), m.fmtY(cl.yi), strconv.Itoa(len(cl.turnaround)), pm(cl.turnaround), pm(cl.throughput), mark)
		tm, tse := cl.turnaround.meanSE()
		hm, hse := cl.throughput.meanSE()
		c.AddRow(m.fmtX(cl.xi), m.fmtY(cl.yi), strconv.Itoa(len(cl.turnaround)), num(tm), num(tse), num(hm), num(hse), mark)
	}
	t.Notes = append(append([]string{}, m.Notes...),
		fmt.Sprintf("each cell: %s's figure over %s's on the same seed, mean ± standard error over %d seeds from %d; below 1 in mean turnaround and above 1 in throughput is a gain",
			m.Policy.Label, m.Baseline.Label, o.Seeds, o.Seed))
	return &Result{Table: t, CSV: c}
}

// mapFigure is the heat figure of a map's mean-turnaround ratios.
// logColours colours a map's ratios by their logarithm: for a map whose
// cells span a factor of several (nas/map's run from 0.95 to 5.6), where a
// linear scale centred on 1 would give the colour bar negative ratios.
func logColours(f *report.TableFigure) *report.TableFigure {
	f.Heat.Log = true
	return f
}

func mapFigure(title, caption, paper string, m regimeMap) *report.TableFigure {
	return &report.TableFigure{Title: title, Caption: caption, Paper: paper,
		X: m.XName, XLabel: m.XLabel, YLabel: fmt.Sprintf("mean turnaround, %s / %s", m.Policy.Label, m.Baseline.Label),
		Heat: &report.Heat{Row: m.YName, RowLabel: m.YLabel, Value: "turnaround_ratio", Center: 1, Mark: "mark",
			LowLabel: m.Policy.Label + " faster", HighLabel: m.Baseline.Label + " faster"}}
}
