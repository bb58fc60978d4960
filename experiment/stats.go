package experiment

import (
	"fmt"
	"math"
	"strconv"
)

// stat is a sample over seeds (or jobs) summarised as mean and range.
type stat struct {
	n             int
	sum, min, max float64
}

func (s *stat) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
}

func (s stat) mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

// text is the mean, followed by the range over the sample when it has more
// than one value: "12.3 (10.1-14.2)".
func (s stat) text(prec int) string {
	if s.n == 0 {
		return "-"
	}
	m := strconv.FormatFloat(s.mean(), 'f', prec, 64)
	if s.n == 1 || s.min == s.max {
		return m
	}
	return fmt.Sprintf("%s (%s-%s)", m, strconv.FormatFloat(s.min, 'f', prec, 64), strconv.FormatFloat(s.max, 'f', prec, 64))
}

// pct is text for a fraction, in percent.
func (s stat) pct() string { return s.scale(100).text(0) }

// scale multiplies every value by f (f > 0).
func (s stat) scale(f float64) stat {
	return stat{n: s.n, sum: f * s.sum, min: f * s.min, max: f * s.max}
}

// csv cells: mean, min, max.
func (s stat) csv(prec int) []string {
	if s.n == 0 {
		return []string{"", "", ""}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	return []string{f(s.mean()), f(s.min), f(s.max)}
}

// overSeeds collects v over runs, one a seed.
func overSeeds[T any](runs []T, v func(T) float64) stat {
	var s stat
	for _, r := range runs {
		s.add(v(r))
	}
	return s
}

// ratioSeeds collects v(a[s]) / v(b[s]) over seeds s: a's value over the
// baseline b's on the same seed. A seed whose baseline value is not
// positive (or NaN) has no ratio and is left out.
func ratioSeeds[T any](a, b []T, v func(T) float64) stat {
	var s stat
	for i := range a {
		if d := v(b[i]); d > 0 {
			s.add(v(a[i]) / d)
		}
	}
	return s
}

// runsRow is a row of a table of runs over seeds: its label, its runs (one
// a seed) and a reference's on the same seeds.
type runsRow[O any] struct {
	label   string
	rs, ref []O
}

// overOf is the column statistic of v over a row's runs, xOf of v's ratio
// to the reference's, seed by seed (ratioSeeds).
func overOf[O any](v func(O) float64) func(runsRow[O]) stat {
	return func(r runsRow[O]) stat { return overSeeds(r.rs, v) }
}

func xOf[O any](v func(O) float64) func(runsRow[O]) stat {
	return func(r runsRow[O]) stat { return ratioSeeds(r.rs, r.ref, v) }
}

// labelled makes the rows of pols' runs res[policy][seed], each beside ref.
func labelled[O any](pols []PolicySpec, res [][]O, ref []O) []runsRow[O] {
	rows := make([]runsRow[O], len(pols))
	for i, p := range pols {
		rows[i] = runsRow[O]{p.Label, res[i], ref}
	}
	return rows
}

func num(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// row joins cells and cell groups into one row.
func row(parts ...any) []string {
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
