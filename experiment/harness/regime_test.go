package harness

import (
	"math"
	"strconv"
	"testing"
)

// TestRunMapPairsSeeds: a map's cell is the policy's figure over the
// baseline's on the same cell and seed, with its mean and standard error
// over seeds, and the operating points land on their cells.
func TestRunMapPairsSeeds(t *testing.T) {
	base, pol := PolicySpec{Label: "B", Name: "fair"}, PolicySpec{Label: "P", Name: "delay"}
	m := RegimeMap{XName: "load", YName: "users", Xs: []float64{1, 2}, Ys: []float64{3, 30},
		Policy: pol, Baseline: base, Marks: map[[2]int]string{{1, 0}: "paper"},
		Run: func(_ Options, p PolicySpec, xi, yi int, seed uint64) (MapOutcome, error) {
			// The baseline takes 10 s; the policy 10 x (x+1) x seed/10 s,
			// so the ratio is (x+1) x seed / 10 and the throughput its inverse.
			if p.Label == "B" {
				return MapOutcome{Turnaround: 10, Throughput: 100}, nil
			}
			r := float64(xi+1) * float64(seed) / 10
			return MapOutcome{Turnaround: 10 * r, Throughput: 100 / r}, nil
		}}
	o := Options{Seeds: 2, Seed: 1, Parallel: 3}
	res, err := RunMap(o, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CSV.Rows) != 4 {
		t.Fatalf("%d rows; want 4 cells", len(res.CSV.Rows))
	}
	col := map[string]int{}
	for i, h := range res.CSV.Headers {
		col[h] = i
	}
	for _, row := range res.CSV.Rows {
		x, _ := strconv.ParseFloat(row[col["load"]], 64)
		got, _ := strconv.ParseFloat(row[col["turnaround_ratio"]], 64)
		se, _ := strconv.ParseFloat(row[col["turnaround_ratio_se"]], 64)
		// Seeds 1 and 2: ratios x/10 and 2x/10 (x = load), mean 1.5x/10,
		// standard error |2x/10 - x/10| / 2.
		want, wantSE := 1.5*x/10, x/20
		if math.Abs(got-want) > 1e-12 || math.Abs(se-wantSE) > 1e-12 {
			t.Errorf("load %v: turnaround ratio %v ± %v, want %v ± %v", x, got, se, want, wantSE)
		}
		mark := row[col["mark"]]
		if (x == 2 && row[col["users"]] == "3") != (mark == "paper") {
			t.Errorf("load %v users %s: mark %q; want the paper's point at load 2, 3 users only", x, row[col["users"]], mark)
		}
	}
	fig := MapFigure("t", "c", "p", m)
	if _, err := fig.HeatData(res.CSV); err != nil {
		t.Errorf("the map's figure cannot read its CSV: %v", err)
	}
}
