package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mrsched/mrsched/report"
)

// RegimeMap is a policy's gain over its baseline on a grid of two regime
// axes (offered load and over-subscription, say), several seeds a cell:
// where a paper's effect appears, vanishes or reverses. No paper has one;
// it answers a user's question, "would it gain on my cluster?", with the
// papers' own operating points marked on it.
type RegimeMap struct {
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
	// Run runs one policy on cell (xi, yi) with seed; o is the
	// experiment's (its keep directory). Runs share nothing: they run
	// o.Parallel at a time.
	Run func(o Options, p PolicySpec, xi, yi int, seed uint64) (MapOutcome, error)
}

// MapOutcome is what a map keeps of a run: the figures whose ratios it
// maps.
type MapOutcome struct {
	// Turnaround is the mean turnaround of the jobs the set-up measures;
	// Throughput their completions an hour, as the set-up defines them.
	Turnaround, Throughput float64
}

// mapCell is a cell's ratios over the seeds: the policy's figure over
// the baseline's on the same seed.
type mapCell struct {
	xi, yi                 int
	turnaround, throughput Sample
}

// RunMap runs every cell, both policies, every seed, and tabulates the
// ratios.
func RunMap(o Options, m RegimeMap) (*Result, error) {
	type job struct {
		xi, yi int
		pol    PolicySpec
		seed   uint64
	}
	var jobs []job
	for yi := range m.Ys {
		for xi := range m.Xs {
			for _, p := range []PolicySpec{m.Baseline, m.Policy} {
				for _, s := range o.SeedList() {
					jobs = append(jobs, job{xi, yi, p, s})
				}
			}
		}
	}
	outs, err := InParallel(o, len(jobs), func(i int) (MapOutcome, error) {
		j := jobs[i]
		r, err := m.Run(o, j.pol, j.xi, j.yi, j.seed)
		if err != nil {
			return r, fmt.Errorf("%s=%s, %s=%s, %s, seed %d: %w", m.XName, m.fmtX(j.xi), m.YName, m.fmtY(j.yi), j.pol.Label, j.seed, err)
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	n := len(o.SeedList())
	var cells []mapCell
	k := 0
	for yi := range m.Ys {
		for xi := range m.Xs {
			base, pol := outs[k:k+n], outs[k+n:k+2*n]
			k += 2 * n
			c := mapCell{xi: xi, yi: yi}
			for s := range n {
				c.turnaround.AddRatio(pol[s].Turnaround, base[s].Turnaround)
				c.throughput.AddRatio(pol[s].Throughput, base[s].Throughput)
			}
			cells = append(cells, c)
		}
	}
	return m.tables(o, cells), nil
}

// Mark labels the cell at axis values (x, y), when both are on the axes:
// a paper's operating point, say.
func (m *RegimeMap) Mark(x, y float64, label string) {
	if xi, yi := slices.Index(m.Xs, x), slices.Index(m.Ys, y); xi >= 0 && yi >= 0 {
		if m.Marks == nil {
			m.Marks = map[[2]int]string{}
		}
		m.Marks[[2]int{xi, yi}] = label
	}
}

func (m RegimeMap) fmtX(i int) string { return fmtAxis(m.XFormat, m.Xs[i]) }
func (m RegimeMap) fmtY(i int) string { return fmtAxis(m.YFormat, m.Ys[i]) }

func fmtAxis(f string, v float64) string {
	if f == "" {
		f = "%g"
	}
	return fmt.Sprintf(f, v)
}

func (m RegimeMap) tables(o Options, cells []mapCell) *Result {
	type R = mapCell
	ratio := func(what, csv string, v func(R) Sample) Column[R] {
		c := MeanSE(fmt.Sprintf("%s, %s / %s", what, m.Policy.Label, m.Baseline.Label), csv, v)
		c.Text = func(r R) string {
			if mean, _ := v(r).MeanSE(); math.IsNaN(mean) {
				return "-"
			}
			return v(r).Text()
		}
		return c
	}
	return Table[R]{Title: m.Title,
		Cols: []Column[R]{
			Key(m.XName, m.XName, func(r R) string { return m.fmtX(r.xi) }),
			Key(m.YName, m.YName, func(r R) string { return m.fmtY(r.yi) }),
			Key("seeds", "seeds", func(r R) string { return strconv.Itoa(len(r.turnaround)) }),
			ratio("mean turnaround", "turnaround_ratio", func(r R) Sample { return r.turnaround }),
			ratio("throughput", "throughput_ratio", func(r R) Sample { return r.throughput }),
			Key("operating point", "mark", func(r R) string { return m.Marks[[2]int{r.xi, r.yi}] }),
		},
		Notes: append(append([]string{}, m.Notes...),
			fmt.Sprintf("each cell: %s's figure over %s's on the same seed, mean ± standard error over %d seeds from %d; below 1 in mean turnaround and above 1 in throughput is a gain",
				m.Policy.Label, m.Baseline.Label, o.Seeds, o.Seed)),
	}.Result(cells)
}

// MapOf runs the map build makes: an experiment whose map's set-up is
// read (a cost profile, say) when it runs.
func MapOf(build func() (RegimeMap, error)) func(Options) (*Result, error) {
	return func(o Options) (*Result, error) {
		m, err := build()
		if err != nil {
			return nil, err
		}
		return RunMap(o, m)
	}
}

// ThroughputHeat makes f, map m's figure, show the throughput ratio (the
// paper's measure where it gives throughput) in place of turnaround's.
func ThroughputHeat(f *report.TableFigure, m RegimeMap) *report.TableFigure {
	f.YLabel = fmt.Sprintf("throughput, %s / %s", m.Policy.Label, m.Baseline.Label)
	f.Heat.Value = "throughput_ratio"
	f.Heat.LowLabel, f.Heat.HighLabel = m.Baseline.Label+" faster", m.Policy.Label+" faster"
	return f
}

// LogColours colours a map's ratios by their logarithm: for a map whose
// cells span a factor of several (nas/map's run from 0.95 to 5.6), where a
// linear scale centred on 1 would give the colour bar negative ratios.
func LogColours(f *report.TableFigure) *report.TableFigure {
	f.Heat.Log = true
	return f
}

// MapFigure is the heat figure of a map's mean-turnaround ratios.
func MapFigure(title, caption, paper string, m RegimeMap) *report.TableFigure {
	return &report.TableFigure{Title: title, Caption: caption, Paper: paper,
		X: m.XName, XLabel: m.XLabel, YLabel: fmt.Sprintf("mean turnaround, %s / %s", m.Policy.Label, m.Baseline.Label),
		Heat: &report.Heat{Row: m.YName, RowLabel: m.YLabel, Value: "turnaround_ratio", Center: 1, Mark: "mark",
			LowLabel: m.Policy.Label + " faster", HighLabel: m.Baseline.Label + " faster"}}
}
