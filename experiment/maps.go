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

// addRatio adds a / b, a figure over its baseline's on the same seed;
// a baseline of 0 (or NaN) gives no ratio.
func (s *sample) addRatio(a, b float64) {
	if b > 0 {
		s.add(a / b)
	}
}

// text is the mean ± its standard error at three decimals, the mean
// alone with fewer than two values.
func (s sample) text() string {
	m, se := s.meanSE()
	if math.IsNaN(se) {
		return fmt.Sprintf("%.3f", m)
	}
	return fmt.Sprintf("%.3f ± %.3f", m, se)
}

// csv is the mean and its standard error in full, each empty when NaN.
func (s sample) csv() []string {
	m, se := s.meanSE()
	return []string{numOrEmpty(m), numOrEmpty(se)}
}

// numOrEmpty is v in full for CSV, empty when NaN.
func numOrEmpty(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

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
				c.turnaround.addRatio(pol[s].Turnaround, base[s].Turnaround)
				c.throughput.addRatio(pol[s].Throughput, base[s].Throughput)
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
	type R = mapCell
	ratio := func(what, csv string, v func(R) sample) column[R] {
		c := meanSE(fmt.Sprintf("%s, %s / %s", what, m.Policy.Label, m.Baseline.Label), csv, v)
		c.text = func(r R) string {
			if mean, _ := v(r).meanSE(); math.IsNaN(mean) {
				return "-"
			}
			return v(r).text()
		}
		return c
	}
	return table[R]{title: m.Title,
		cols: []column[R]{
			key(m.XName, m.XName, func(r R) string { return m.fmtX(r.xi) }),
			key(m.YName, m.YName, func(r R) string { return m.fmtY(r.yi) }),
			key("seeds", "seeds", func(r R) string { return strconv.Itoa(len(r.turnaround)) }),
			ratio("mean turnaround", "turnaround_ratio", func(r R) sample { return r.turnaround }),
			ratio("throughput", "throughput_ratio", func(r R) sample { return r.throughput }),
			key("operating point", "mark", func(r R) string { return m.Marks[[2]int{r.xi, r.yi}] }),
		},
		notes: append(append([]string{}, m.Notes...),
			fmt.Sprintf("each cell: %s's figure over %s's on the same seed, mean ± standard error over %d seeds from %d; below 1 in mean turnaround and above 1 in throughput is a gain",
				m.Policy.Label, m.Baseline.Label, o.Seeds, o.Seed)),
	}.result(cells)
}

// mapOf runs the map build makes: an experiment whose map's set-up is
// read (a cost profile, say) when it runs.
func mapOf(build func() (regimeMap, error)) func(Options) (*Result, error) {
	return func(o Options) (*Result, error) {
		m, err := build()
		if err != nil {
			return nil, err
		}
		return runMap(o, m)
	}
}

// throughputHeat makes f, map m's figure, show the throughput ratio (the
// paper's measure where it gives throughput) in place of turnaround's.
func throughputHeat(f *report.TableFigure, m regimeMap) *report.TableFigure {
	f.YLabel = fmt.Sprintf("throughput, %s / %s", m.Policy.Label, m.Baseline.Label)
	f.Heat.Value = "throughput_ratio"
	f.Heat.LowLabel, f.Heat.HighLabel = m.Baseline.Label+" faster", m.Policy.Label+" faster"
	return f
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
