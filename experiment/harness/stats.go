package harness

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mrsched/mrsched/metrics"
)

// Stat is a sample over seeds (or jobs) summarised as mean and range.
type Stat struct {
	// N is the number of values; Sum, Min and Max are theirs.
	N             int
	Sum, Min, Max float64
}

// Add adds a value.
func (s *Stat) Add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.N++
	s.Sum += v
}

// Mean is the values' mean, NaN with none.
func (s Stat) Mean() float64 {
	if s.N == 0 {
		return math.NaN()
	}
	return s.Sum / float64(s.N)
}

// Text is the mean, followed by the range over the sample when it has more
// than one value: "12.3 (10.1-14.2)".
func (s Stat) Text(prec int) string {
	if s.N == 0 {
		return "-"
	}
	m := strconv.FormatFloat(s.Mean(), 'f', prec, 64)
	if s.N == 1 || s.Min == s.Max {
		return m
	}
	return fmt.Sprintf("%s (%s-%s)", m, strconv.FormatFloat(s.Min, 'f', prec, 64), strconv.FormatFloat(s.Max, 'f', prec, 64))
}

// Pct is Text for a fraction, in percent.
func (s Stat) Pct() string { return s.Scale(100).Text(0) }

// Scale multiplies every value by f (f > 0).
func (s Stat) Scale(f float64) Stat {
	return Stat{N: s.N, Sum: f * s.Sum, Min: f * s.Min, Max: f * s.Max}
}

// Gain is the sample, of ratios, as signed percent changes: the mean,
// followed by the range when it has more than one value,
// "+12.3% (+10.1% to +14.2%)".
func (s Stat) Gain() string {
	if s.N == 0 {
		return "-"
	}
	f := func(v float64) string { return fmt.Sprintf("%+.1f%%", 100*(v-1)) }
	if s.N == 1 || s.Min == s.Max {
		return f(s.Mean())
	}
	return fmt.Sprintf("%s (%s to %s)", f(s.Mean()), f(s.Min), f(s.Max))
}

// MeanText is the mean times scale at prec decimals, "-" with no value.
func (s Stat) MeanText(prec int, scale float64) string {
	if s.N == 0 {
		return "-"
	}
	return Num(scale*s.Mean(), prec)
}

// CSV is the sample's CSV cells: mean, min, max, empty with no value.
func (s Stat) CSV(prec int) []string {
	if s.N == 0 {
		return []string{"", "", ""}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	return []string{f(s.Mean()), f(s.Min), f(s.Max)}
}

// OverSeeds collects v over runs, one a seed.
func OverSeeds[T any](runs []T, v func(T) float64) Stat {
	var s Stat
	for _, r := range runs {
		s.Add(v(r))
	}
	return s
}

// RatioSeeds collects v(a[s]) / v(b[s]) over seeds s: a's value over the
// baseline b's on the same seed. A seed whose baseline value is not
// positive (or NaN) has no ratio and is left out.
func RatioSeeds[T any](a, b []T, v func(T) float64) Stat { return RatioOf(a, b, v, v) }

// RatioOf collects num(a[s]) / den(b[s]) over seeds s, as RatioSeeds:
// a part of a's figure over the whole of the baseline's, say.
func RatioOf[T any](a, b []T, num, den func(T) float64) Stat {
	var s Stat
	for i := range a {
		if d := den(b[i]); d > 0 {
			s.Add(num(a[i]) / d)
		}
	}
	return s
}

// RunsRow is a row of a table of runs over seeds: its label, its runs (one
// a seed) and a reference's on the same seeds.
type RunsRow[O any] struct {
	// Label names the row; Rs are its runs and Ref the reference's, one
	// a seed, in the same seed order.
	Label   string
	Rs, Ref []O
}

// OverOf is the column statistic of v over a row's runs.
func OverOf[O any](v func(O) float64) func(RunsRow[O]) Stat {
	return func(r RunsRow[O]) Stat { return OverSeeds(r.Rs, v) }
}

// XOf is the column statistic of v's ratio to the reference's, seed by
// seed (RatioSeeds).
func XOf[O any](v func(O) float64) func(RunsRow[O]) Stat {
	return func(r RunsRow[O]) Stat { return RatioSeeds(r.Rs, r.Ref, v) }
}

// Labelled makes the rows of pols' runs res[policy][seed], each beside ref.
func Labelled[O any](pols []PolicySpec, res [][]O, ref []O) []RunsRow[O] {
	rows := make([]RunsRow[O], len(pols))
	for i, p := range pols {
		rows[i] = RunsRow[O]{p.Label, res[i], ref}
	}
	return rows
}

// ByLabel indexes pols' runs res[policy][seed] by the policy's label.
func ByLabel[O any](pols []PolicySpec, res [][]O) map[string][]O {
	by := map[string][]O{}
	for i, p := range pols {
		by[p.Label] = res[i]
	}
	return by
}

// Against makes the rows of pols' runs res[policy][seed], each beside the
// runs of the policy that base names for its label (none where it names
// none of pols).
func Against[O any](pols []PolicySpec, res [][]O, base map[string]string) []RunsRow[O] {
	by, rows := ByLabel(pols, res), Labelled(pols, res, nil)
	for i := range rows {
		rows[i].Ref = by[base[rows[i].Label]]
	}
	return rows
}

// Sample is values over seeds, for a mean and its standard error.
type Sample []float64

// Add adds a value.
func (s *Sample) Add(v float64) { *s = append(*s, v) }

// AddRatio adds a / b, a figure over its baseline's on the same seed;
// a baseline of 0 (or NaN) gives no ratio.
func (s *Sample) AddRatio(a, b float64) {
	if b > 0 {
		s.Add(a / b)
	}
}

// Text is the mean ± its standard error at three decimals, the mean
// alone with fewer than two values.
func (s Sample) Text() string {
	m, se := s.MeanSE()
	if math.IsNaN(se) {
		return fmt.Sprintf("%.3f", m)
	}
	return fmt.Sprintf("%.3f ± %.3f", m, se)
}

// CSV is the mean and its standard error in full, each empty when NaN.
func (s Sample) CSV() []string {
	m, se := s.MeanSE()
	return []string{NumOrEmpty(m), NumOrEmpty(se)}
}

// MeanSE is the sample's mean and its standard error (NaN with fewer
// than two values).
func (s Sample) MeanSE() (mean, se float64) { return metrics.MeanSE(s) }

// Mean is the sample's mean (MeanSE's), NaN when empty.
func (s Sample) Mean() float64 {
	m, _ := s.MeanSE()
	return m
}

// Stat is the sample's mean and range.
func (s Sample) Stat() Stat {
	var st Stat
	for _, v := range s {
		st.Add(v)
	}
	return st
}

// SampleOf is v over runs, one a seed.
func SampleOf[T any](runs []T, v func(T) float64) Sample {
	var s Sample
	for _, r := range runs {
		s.Add(v(r))
	}
	return s
}

// RatioSample is v(a[s]) / v(b[s]) over seeds s, as RatioSeeds, for a
// mean and its standard error.
func RatioSample[T any](a, b []T, v func(T) float64) Sample {
	var s Sample
	for i := range a {
		s.AddRatio(v(a[i]), v(b[i]))
	}
	return s
}

// NumOrEmpty is v in full for CSV, empty when NaN.
func NumOrEmpty(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// CV is v's coefficient of variation (standard deviation over the mean),
// NaN with fewer than two values or a zero mean.
func CV(v []float64) float64 {
	m := MeanOf(v)
	if len(v) < 2 || m == 0 {
		return math.NaN()
	}
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss/float64(len(v)-1)) / m
}

// Num is v at prec decimals.
func Num(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// MeanOf is v's mean, NaN when empty.
func MeanOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// MaxOf is v's largest value, -Inf when empty.
func MaxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// Row joins cells and cell groups into one row.
func Row(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("row: unexpected %T", p))
		}
	}
	return out
}

// Merge pools o's values into s: the mean of the two samples' values
// together, their range.
func (s *Stat) Merge(o Stat) {
	if o.N == 0 {
		return
	}
	if s.N == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.N == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.N += o.N
	s.Sum += o.Sum
}
