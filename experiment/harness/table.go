package harness

import (
	"fmt"
	"math"
	"strings"

	"github.com/mrsched/mrsched/report"
)

// Column is one column of an experiment's table and the CSV columns that
// carry the same quantity: ours at full precision, the paper's as its
// text gives it. A column with no Text is the CSV's alone; one with no
// CSV headers is the table's alone.
type Column[R any] struct {
	// Head and Text are the table's header and a row's cell.
	Head string
	Text func(R) string
	// CSV are the CSV's headers, Cells a row's cells under them.
	CSV   []string
	Cells func(R) []string
}

// Key is a column that names the row (queue, scheduler, ...), the same in
// the table and the CSV.
func Key[R any](head, csv string, v func(R) string) Column[R] { return Verbatim(head, csv, v) }

// Verbatim is a column of text written the same in the table and the CSV.
func Verbatim[R any](head, csv string, v func(R) string) Column[R] {
	return Column[R]{Head: head, Text: v, CSV: []string{csv}, Cells: func(r R) []string { return []string{v(r)} }}
}

// Number is a column of one number, at tprec decimals in the table and
// cprec in the CSV.
func Number[R any](head, csv string, tprec, cprec int, v func(R) float64) Column[R] {
	return Column[R]{Head: head, Text: func(r R) string { return Num(v(r), tprec) },
		CSV: []string{csv}, Cells: func(r R) []string { return []string{Num(v(r), cprec)} }}
}

// Spread is a column of a sample over seeds: its mean and range in the
// table at tprec decimals, mean, min and max in three CSV columns at
// cprec (csv, csv_min, csv_max).
func Spread[R any](head, csv string, tprec, cprec int, v func(R) Stat) Column[R] {
	return Column[R]{Head: head, Text: func(r R) string { return v(r).Text(tprec) },
		CSV: []string{csv, csv + "_min", csv + "_max"}, Cells: func(r R) []string { return v(r).CSV(cprec) }}
}

// X is a column of v's ratio to the row's reference on the same seed
// (XOf), at two decimals in the table and four in the CSV.
func X[O any](head, csv string, v func(O) float64) Column[RunsRow[O]] {
	return Spread(head, csv, 2, 4, XOf(v))
}

// Gains is Spread for a ratio shown as a signed percent change (Stat.Gain)
// and written as the ratio at four decimals.
func Gains[R any](head, csv string, v func(R) Stat) Column[R] {
	return Column[R]{Head: head, Text: func(r R) string { return v(r).Gain() },
		CSV: []string{csv, csv + "_min", csv + "_max"}, Cells: func(r R) []string { return v(r).CSV(4) }}
}

// Percent is Spread for a fraction, shown in percent with no decimals and
// written in percent at cprec.
func Percent[R any](head, csv string, cprec int, v func(R) Stat) Column[R] {
	return Column[R]{Head: head, Text: func(r R) string { return v(r).Pct() },
		CSV: []string{csv, csv + "_min", csv + "_max"}, Cells: func(r R) []string { return v(r).Scale(100).CSV(cprec) }}
}

// MeanSE is a column of a sample over seeds: its mean ± standard error
// in the table, the two in full in the CSV (csv, csv_se).
func MeanSE[R any](head, csv string, v func(R) Sample) Column[R] {
	return Column[R]{Head: head, Text: func(r R) string { return v(r).Text() },
		CSV: []string{csv, csv + "_se"}, Cells: func(r R) []string { return v(r).CSV() }}
}

// Means is a column of several samples' means (each times scale): joined
// by " / " in the table at tprec decimals ("-" for one with no value),
// one a CSV column at cprec (empty for one with no value).
func Means[R any](head string, csv []string, tprec, cprec int, scale float64, v ...func(R) Stat) Column[R] {
	return Column[R]{Head: head, CSV: csv, Text: func(r R) string {
		var parts []string
		for _, f := range v {
			parts = append(parts, f(r).MeanText(tprec, scale))
		}
		return strings.Join(parts, " / ")
	}, Cells: func(r R) []string {
		var cells []string
		for _, f := range v {
			if s := f(r); s.N > 0 {
				cells = append(cells, Num(scale*s.Mean(), cprec))
			} else {
				cells = append(cells, "")
			}
		}
		return cells
	}}
}

// Paired is a column of a paired ratio over seeds (a policy's figure over
// another's on the same seed): "mean ± se (min-max)" in the table, the
// mean alone with one value; mean, standard error, min and max in the
// CSV (csv, csv_se, csv_min, csv_max).
func Paired[R any](head, csv string, v func(R) Sample) Column[R] {
	return Column[R]{Head: head, CSV: []string{csv, csv + "_se", csv + "_min", csv + "_max"}, Text: func(r R) string {
		s, st := v(r), v(r).Stat()
		if st.N == 0 {
			return "-"
		}
		if _, se := s.MeanSE(); !math.IsNaN(se) {
			return fmt.Sprintf("%.3f ± %.3f (%.2f-%.2f)", st.Mean(), se, st.Min, st.Max)
		}
		return Num(st.Mean(), 3)
	}, Cells: func(r R) []string {
		c := v(r).Stat().CSV(4)
		out := []string{c[0], "", c[1], c[2]}
		if _, se := v(r).MeanSE(); !math.IsNaN(se) {
			out[1] = Num(se, 4)
		}
		return out
	}}
}

// Paper is a column of the paper's number as its text gives it; "-" (not
// reported) is an empty CSV cell.
func Paper[R any](head, csv string, v func(R) string) Column[R] {
	return Column[R]{Head: head, Text: v, CSV: []string{csv}, Cells: func(r R) []string { return []string{csvPaper(v(r))} }}
}

// PaperNum keeps the number of a paper cell for CSV, at two decimals ("1
// (biasing 1.08)" is 1; "-" is empty).
func PaperNum(s string) string {
	var v float64
	if _, err := fmt.Sscanf(s, "%g", &v); err != nil {
		return ""
	}
	return Num(v, 2)
}

// PaperIn is the paper's value for k in m, "-" (not reported) where m
// has none.
func PaperIn(m map[string]string, k string) string { return OrDash(m[k]) }

// OrDash is s, or "-" (not reported) when empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// csvPaper turns a paper cell into a CSV cell: "-" (not reported) is empty.
func csvPaper(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Shown is a column of the table alone.
func Shown[R any](head string, v func(R) string) Column[R] { return Column[R]{Head: head, Text: v} }

// Written is a column of the CSV alone: one header per cell v returns.
func Written[R any](v func(R) []string, csv ...string) Column[R] {
	return Column[R]{CSV: csv, Cells: v}
}

// SeedsCol is the CSV column that says over how many seeds a row's
// samples were taken.
func SeedsCol[R any](csv string, n int) Column[R] {
	return Written(func(R) []string { return []string{fmt.Sprint(n)} }, csv)
}

// Both is a column of one value, shown by text in the table and written
// by cell in the CSV (at another precision, say).
func Both[R any](head string, text func(R) string, csv string, cell func(R) string) Column[R] {
	return Column[R]{Head: head, Text: text, CSV: []string{csv}, Cells: func(r R) []string { return []string{cell(r)} }}
}

// Table is an experiment's table as declared: its title, columns and
// notes.
type Table[R any] struct {
	// Title heads the table, Cols are its columns in order and Notes
	// follow it.
	Title string
	Cols  []Column[R]
	Notes []string
	// Wall says what the runs took in wall time (Result.Wall).
	Wall string
}

// Result fills the table and its CSV with one row for each of rows.
func (t Table[R]) Result(rows []R) *Result {
	tb := &report.Table{Title: t.Title, Notes: t.Notes}
	c := &report.Table{}
	for _, col := range t.Cols {
		if col.Text != nil {
			tb.Headers = append(tb.Headers, col.Head)
		}
		c.Headers = append(c.Headers, col.CSV...)
	}
	for _, r := range rows {
		var text, cells []string
		for _, col := range t.Cols {
			if col.Text != nil {
				text = append(text, col.Text(r))
			}
			if col.Cells != nil {
				cells = append(cells, col.Cells(r)...)
			}
		}
		tb.AddRow(text...)
		c.AddRow(cells...)
	}
	return &Result{Table: tb, CSV: c, Wall: t.Wall}
}
