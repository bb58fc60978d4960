package harness

import (
	"slices"
	"strconv"
	"testing"
)

// A grid's cells, scenarios and per-policy statistics read the runs by
// scenario, seed and policy as RunGrid laid them out.
func TestGridReadsRunsByScenarioSeedPolicy(t *testing.T) {
	o := Options{Seeds: 2, Seed: 1, Parallel: 2}
	pols := []PolicySpec{{Label: "p0"}, {Label: "p1"}}
	// Each run's outcome is 100 x scenario + 10 x seed + policy.
	g, err := RunGrid(o, []int{1, 2, 3}, pols, func(s int, seed uint64) (func(PolicySpec) (float64, error), error) {
		return func(p PolicySpec) (float64, error) {
			pi, _ := strconv.Atoi(p.Label[1:])
			return float64(100*s + 10*int(seed) + pi), nil
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.At(2, 1, 1); got != 321 {
		t.Errorf("At(2, 1, 1) = %v, want 321: scenario 3, seed 2, policy 1", got)
	}
	if got, want := g.Cells(), []Cell{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}; !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v: scenario by scenario, each's policies in order", got, want)
	}
	if got, want := g.Scenarios(), []Cell{{0, 0}, {1, 0}, {2, 0}}; !slices.Equal(got, want) {
		t.Errorf("scenarios %v, want %v: one cell a scenario", got, want)
	}
	id := func(v float64) float64 { return v }
	if s := g.ByPolicy(1, false, id)(Cell{S: 1}); s.N != 2 || s.Min != 211 || s.Max != 221 {
		t.Errorf("policy 1 on scenario 2: %+v, want its two seeds' 211 and 221 whatever the row's policy", s)
	}
}

// Grids runs several declarations in one batch and hands each back its
// own runs, res[declaration][policy][seed].
func TestCacheGridsHandsEachDeclarationItsRuns(t *testing.T) {
	type spec struct {
		Decl, Policy string
		Seed         uint64
	}
	c := Cache[spec, string]{Exec: func(s spec) (string, error) { return s.Decl + s.Policy + strconv.FormatUint(s.Seed, 10), nil }}
	decl := func(d string) func(PolicySpec, uint64) spec {
		return func(p PolicySpec, seed uint64) spec { return spec{d, p.Label, seed} }
	}
	res, err := c.Grids(Options{Seeds: 2, Seed: 5, Parallel: 1}, []PolicySpec{{Label: "x"}, {Label: "y"}}, []func(PolicySpec, uint64) spec{decl("a"), decl("b")})
	if err != nil {
		t.Fatal(err)
	}
	want := [][][]string{{{"ax5", "ax6"}, {"ay5", "ay6"}}, {{"bx5", "bx6"}, {"by5", "by6"}}}
	for d := range want {
		for p := range want[d] {
			if !slices.Equal(res[d][p], want[d][p]) {
				t.Errorf("declaration %d, policy %d: %v, want %v", d, p, res[d][p], want[d][p])
			}
		}
	}
}

// Marks land on the cells of the axis values named, and nowhere when a
// value is off its axis.
func TestRegimeMapMark(t *testing.T) {
	m := RegimeMap{Xs: []float64{1, 2, 4}, Ys: []float64{10, 20}}
	m.Mark(4, 10, "paper")
	m.Mark(3, 10, "off the x axis")
	if len(m.Marks) != 1 || m.Marks[[2]int{2, 0}] != "paper" {
		t.Errorf("marks %v, want the paper's at (2, 0) alone", m.Marks)
	}
}
