package harness

import "math"

// Grid holds the outcomes of an experiment's runs by scenario, seed and
// policy, in the order they were declared.
type Grid[O any] struct {
	// Seeds and Pols are the grid's seeds and policies a scenario.
	Seeds, Pols int
	// Outs are the outcomes, scenario by scenario, each's seeds in
	// order, each seed's policies in order.
	Outs []O
}

// At is the outcome of policy p on scenario s with the seed-th seed.
func (g Grid[O]) At(s, seed, p int) O { return g.Outs[(s*g.Seeds+seed)*g.Pols+p] }

// Cell is a row of a grid's table: scenario S under policy P, whose
// columns read its runs over the seeds.
type Cell struct{ S, P int }

// Cells lists the grid's cells, scenario by scenario, each's policies in
// order.
func (g Grid[O]) Cells() []Cell {
	var cs []Cell
	for s := range len(g.Outs) / max(1, g.Seeds*g.Pols) {
		for p := range g.Pols {
			cs = append(cs, Cell{s, p})
		}
	}
	return cs
}

// Scenarios lists a cell a scenario, its first policy's, in order: the
// rows of a table that sets the policies side by side (ByPolicy).
func (g Grid[O]) Scenarios() []Cell {
	cs := make([]Cell, len(g.Outs)/max(1, g.Seeds*g.Pols))
	for s := range cs {
		cs[s].S = s
	}
	return cs
}

// Sample is v of policy p's runs on scenario s, over the seeds in order;
// with known set, a NaN (a run without the quantity) is left out.
func (g Grid[O]) Sample(s, p int, known bool, v func(O) float64) Stat {
	var st Stat
	for seed := range g.Seeds {
		if x := v(g.At(s, seed, p)); !known || !math.IsNaN(x) {
			st.Add(x)
		}
	}
	return st
}

// Over is the column statistic of v over a cell's seeds.
func (g Grid[O]) Over(v func(O) float64) func(Cell) Stat {
	return func(c Cell) Stat { return g.Sample(c.S, c.P, false, v) }
}

// Known is Over leaving out NaNs (Sample).
func (g Grid[O]) Known(v func(O) float64) func(Cell) Stat {
	return func(c Cell) Stat { return g.Sample(c.S, c.P, true, v) }
}

// RunGrid runs every policy on every scenario for every seed of o, o.Parallel
// at a time. setup prepares a scenario for a seed (its jobs are drawn once
// and shared by the policies) and returns how one policy runs on it.
// Runs share nothing, so the outcomes do not depend on the parallelism;
// the first error in declaration order is returned.
func RunGrid[S, O any](o Options, scenarios []S, pols []PolicySpec, setup func(s S, seed uint64) (func(PolicySpec) (O, error), error)) (Grid[O], error) {
	seeds := o.SeedList()
	type cell struct {
		run func(PolicySpec) (O, error)
		p   PolicySpec
	}
	var cells []cell
	for _, s := range scenarios {
		for _, seed := range seeds {
			run, err := setup(s, seed)
			if err != nil {
				return Grid[O]{}, err
			}
			for _, p := range pols {
				cells = append(cells, cell{run, p})
			}
		}
	}
	outs, err := InParallel(o, len(cells), func(i int) (O, error) { return cells[i].run(cells[i].p) })
	return Grid[O]{Seeds: len(seeds), Pols: len(pols), Outs: outs}, err
}

// ByPolicy is the column statistic of v over the seeds of policy p in a
// cell's scenario, for a row that sets several policies' runs side by
// side; with known set, a NaN is left out (Sample).
func (g Grid[O]) ByPolicy(p int, known bool, v func(O) float64) func(Cell) Stat {
	return func(c Cell) Stat { return g.Sample(c.S, p, known, v) }
}

// SeedGrid runs every policy on run(seed) for every seed of o: a grid of
// one scenario, drawn anew for each seed.
func SeedGrid(o Options, pols []PolicySpec, run func(seed uint64) (Run, error)) (Grid[*Outcome], error) {
	return RunGrid(o, []int{0}, pols, func(_ int, seed uint64) (func(PolicySpec) (*Outcome, error), error) {
		r, err := run(seed)
		return r.Under, err
	})
}
