package experiment

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/report"
)

// Declaring an experiment. A paper's file states what the paper ran: the
// scenarios, the policies with their parameters, the seeds (Options), and
// the columns of its table with the paper's numbers beside ours. The
// harness here runs the grid of scenarios x seeds x policies, o.Parallel
// at a time (run.go), and fills the table and its CSV from the columns.
// Probes inside the engine are policy wrappers (wrap.go) that a run's
// simRun.probe puts around the policy.

// grid holds the outcomes of an experiment's runs by scenario, seed and
// policy, in the order they were declared.
type grid[O any] struct {
	seeds, pols int
	outs        []O
}

// at is the outcome of policy p on scenario s with the seed-th seed.
func (g grid[O]) at(s, seed, p int) O { return g.outs[(s*g.seeds+seed)*g.pols+p] }

// cell is a row of a grid's table: scenario s under policy p, whose
// columns read its runs over the seeds.
type cell struct{ s, p int }

// cells lists the grid's cells, scenario by scenario, each's policies in
// order.
func (g grid[O]) cells() []cell {
	var cs []cell
	for s := range len(g.outs) / max(1, g.seeds*g.pols) {
		for p := range g.pols {
			cs = append(cs, cell{s, p})
		}
	}
	return cs
}

// sample is v of policy p's runs on scenario s, over the seeds in order;
// with known set, a NaN (a run without the quantity) is left out.
func (g grid[O]) sample(s, p int, known bool, v func(O) float64) stat {
	var st stat
	for seed := range g.seeds {
		if x := v(g.at(s, seed, p)); !known || !math.IsNaN(x) {
			st.add(x)
		}
	}
	return st
}

// over is the column statistic of v over a cell's seeds; known is
// over leaving out NaNs (sample).
func (g grid[O]) over(v func(O) float64) func(cell) stat {
	return func(c cell) stat { return g.sample(c.s, c.p, false, v) }
}

func (g grid[O]) known(v func(O) float64) func(cell) stat {
	return func(c cell) stat { return g.sample(c.s, c.p, true, v) }
}

// runGrid runs every policy on every scenario for every seed of o, o.Parallel
// at a time. setup prepares a scenario for a seed (its jobs are drawn once
// and shared by the policies) and returns how one policy runs on it.
// Runs share nothing, so the outcomes do not depend on the parallelism;
// the first error in declaration order is returned.
func runGrid[S, O any](o Options, scenarios []S, pols []PolicySpec, setup func(s S, seed uint64) (func(PolicySpec) (O, error), error)) (grid[O], error) {
	seeds := o.seeds()
	type cell struct {
		run func(PolicySpec) (O, error)
		p   PolicySpec
	}
	var cells []cell
	for _, s := range scenarios {
		for _, seed := range seeds {
			run, err := setup(s, seed)
			if err != nil {
				return grid[O]{}, err
			}
			for _, p := range pols {
				cells = append(cells, cell{run, p})
			}
		}
	}
	outs, err := inParallel(o, len(cells), func(i int) (O, error) { return cells[i].run(cells[i].p) })
	return grid[O]{seeds: len(seeds), pols: len(pols), outs: outs}, err
}

// column is one column of an experiment's table and the CSV columns that
// carry the same quantity: ours at full precision, the paper's as its
// text gives it. A column with no header is the CSV's alone; one with no
// CSV headers is the table's alone.
type column[R any] struct {
	head  string
	text  func(R) string
	csv   []string
	cells func(R) []string
}

// key is a column that names the row (queue, scheduler, ...), the same in
// the table and the CSV.
func key[R any](head, csv string, v func(R) string) column[R] { return verbatim(head, csv, v) }

// verbatim is a column of text written the same in the table and the CSV.
func verbatim[R any](head, csv string, v func(R) string) column[R] {
	return column[R]{head: head, text: v, csv: []string{csv}, cells: func(r R) []string { return []string{v(r)} }}
}

// number is a column of one number, at tprec decimals in the table and
// cprec in the CSV.
func number[R any](head, csv string, tprec, cprec int, v func(R) float64) column[R] {
	return column[R]{head: head, text: func(r R) string { return num(v(r), tprec) },
		csv: []string{csv}, cells: func(r R) []string { return []string{num(v(r), cprec)} }}
}

// spread is a column of a sample over seeds: its mean and range in the
// table at tprec decimals, mean, min and max in three CSV columns at
// cprec (csv, csv_min, csv_max).
func spread[R any](head, csv string, tprec, cprec int, v func(R) stat) column[R] {
	return column[R]{head: head, text: func(r R) string { return v(r).text(tprec) },
		csv: []string{csv, csv + "_min", csv + "_max"}, cells: func(r R) []string { return v(r).csv(cprec) }}
}

// percent is spread for a fraction, shown in percent with no decimals and
// written in percent at cprec.
func percent[R any](head, csv string, cprec int, v func(R) stat) column[R] {
	return column[R]{head: head, text: func(r R) string { return v(r).pct() },
		csv: []string{csv, csv + "_min", csv + "_max"}, cells: func(r R) []string { return v(r).scale(100).csv(cprec) }}
}

// meanSE is a column of a sample over seeds: its mean ± standard error
// in the table, the two in full in the CSV (csv, csv_se).
func meanSE[R any](head, csv string, v func(R) sample) column[R] {
	return column[R]{head: head, text: func(r R) string { return v(r).text() },
		csv: []string{csv, csv + "_se"}, cells: func(r R) []string { return v(r).csv() }}
}

// paper is a column of the paper's number as its text gives it; "-" (not
// reported) is an empty CSV cell.
func paper[R any](head, csv string, v func(R) string) column[R] {
	return column[R]{head: head, text: v, csv: []string{csv}, cells: func(r R) []string { return []string{csvPaper(v(r))} }}
}

// shown is a column of the table alone.
func shown[R any](head string, v func(R) string) column[R] { return column[R]{head: head, text: v} }

// written is a column of the CSV alone: one header per cell v returns.
func written[R any](v func(R) []string, csv ...string) column[R] {
	return column[R]{csv: csv, cells: v}
}

// table is an experiment's table as declared: its title, columns and
// notes.
type table[R any] struct {
	title string
	cols  []column[R]
	notes []string
	// wall says what the runs took in wall time (Result.Wall).
	wall string
}

// result fills the table and its CSV with one row for each of rows.
func (t table[R]) result(rows []R) *Result {
	tb := &report.Table{Title: t.title, Notes: t.notes}
	c := &report.Table{}
	for _, col := range t.cols {
		if col.text != nil {
			tb.Headers = append(tb.Headers, col.head)
		}
		c.Headers = append(c.Headers, col.csv...)
	}
	for _, r := range rows {
		var text, cells []string
		for _, col := range t.cols {
			if col.text != nil {
				text = append(text, col.text(r))
			}
			if col.cells != nil {
				cells = append(cells, col.cells(r)...)
			}
		}
		tb.AddRow(text...)
		c.AddRow(cells...)
	}
	return &Result{Table: tb, CSV: c, Wall: t.wall}
}

// seedsCol is the CSV column that says over how many seeds a row's
// samples were taken.
func seedsCol[R any](csv string, n int) column[R] {
	return written(func(R) []string { return []string{fmt.Sprint(n)} }, csv)
}

// both is a column of one value, shown by text in the table and written
// by cell in the CSV (at another precision, say).
func both[R any](head string, text func(R) string, csv string, cell func(R) string) column[R] {
	return column[R]{head: head, text: text, csv: []string{csv}, cells: func(r R) []string { return []string{cell(r)} }}
}
