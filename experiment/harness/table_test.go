package harness

import (
	"math"
	"slices"
	"testing"
)

// The columns that set several figures in one cell, or a figure in a
// form other than its mean and range, print what each says and write
// the CSV cells under their own headers.
func TestColumnsTextAndCells(t *testing.T) {
	one, two := Stat{}, Stat{}
	one.Add(0.5)
	two.Add(1.1)
	two.Add(1.3)
	none := Stat{}
	type R = int
	cases := []struct {
		name  string
		col   Column[R]
		text  string
		csv   []string
		cells []string
		why   string
	}{
		{"means of samples", Means("m", []string{"a", "b", "c"}, 1, 2, 100, func(R) Stat { return one }, func(R) Stat { return two }, func(R) Stat { return none }),
			"50.0 / 120.0 / -", []string{"a", "b", "c"}, []string{"50.00", "120.00", ""}, "each mean times the scale, a sample with no value a dash and an empty cell"},
		{"gains", Gains("g", "g", func(R) Stat { return two }),
			"+20.0% (+10.0% to +30.0%)", []string{"g", "g_min", "g_max"}, []string{"1.2000", "1.1000", "1.3000"}, "a ratio as a change in the table, the ratio in the CSV"},
		{"paired ratio", Paired("p", "p", func(R) Sample { return Sample{1.1, 1.3} }),
			"1.200 ± 0.100 (1.10-1.30)", []string{"p", "p_se", "p_min", "p_max"}, []string{"1.2000", "0.1000", "1.1000", "1.3000"}, "mean, standard error and range"},
		{"paired ratio of one seed", Paired("p", "p", func(R) Sample { return Sample{1.1} }),
			"1.100", []string{"p", "p_se", "p_min", "p_max"}, []string{"1.1000", "", "1.1000", "1.1000"}, "no standard error with one value"},
	}
	for _, tc := range cases {
		if got := tc.col.Text(0); got != tc.text {
			t.Errorf("%s: text %q, want %q: %s", tc.name, got, tc.text, tc.why)
		}
		if !slices.Equal(tc.col.CSV, tc.csv) {
			t.Errorf("%s: CSV headers %v, want %v", tc.name, tc.col.CSV, tc.csv)
		}
		if got := tc.col.Cells(0); !slices.Equal(got, tc.cells) {
			t.Errorf("%s: cells %v, want %v: %s", tc.name, got, tc.cells, tc.why)
		}
	}
}

// A paper cell keeps its number for CSV, and the paper's maps say "-"
// where they give nothing.
func TestPaperCells(t *testing.T) {
	for in, want := range map[string]string{"1 (biasing 1.08)": "1.00", "1.44": "1.44", "-": "", "lowest": ""} {
		if got := PaperNum(in); got != want {
			t.Errorf("PaperNum(%q) = %q, want %q", in, got, want)
		}
	}
	m := map[string]string{"NAS": "1.57"}
	if PaperIn(m, "NAS") != "1.57" || PaperIn(m, "Fair") != "-" {
		t.Errorf("PaperIn: %q and %q, want the value and a dash where the paper gives none", PaperIn(m, "NAS"), PaperIn(m, "Fair"))
	}
}

// Rows against a baseline pair each policy's runs with those of the
// policy the base map names, and none where it names none.
func TestAgainstPairsRowsWithTheirBaseline(t *testing.T) {
	pols := []PolicySpec{{Label: "A"}, {Label: "B"}, {Label: "C"}}
	res := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	rows := Against(pols, res, map[string]string{"B": "A", "C": "B"})
	want := []struct {
		label string
		ref   []float64
	}{{"A", nil}, {"B", res[0]}, {"C", res[1]}}
	for i, w := range want {
		if rows[i].Label != w.label || !slices.Equal(rows[i].Rs, res[i]) || !slices.Equal(rows[i].Ref, w.ref) {
			t.Errorf("row %d: %+v, want %s's runs beside %v", i, rows[i], w.label, w.ref)
		}
	}
	if x := XOf(func(v float64) float64 { return v })(rows[2]); x.N != 2 || math.Abs(x.Mean()-(5.0/3+6.0/4)/2) > 1e-12 {
		t.Errorf("C over B seed by seed: %+v, want the mean of 5/3 and 6/4", x)
	}
}

// Merging pools two samples: their values together, the range of both;
// an empty sample changes nothing.
func TestStatMerge(t *testing.T) {
	var a, b, all Stat
	for _, v := range []float64{3, 1} {
		a.Add(v)
		all.Add(v)
	}
	for _, v := range []float64{5, 2} {
		b.Add(v)
		all.Add(v)
	}
	a.Merge(b)
	a.Merge(Stat{})
	if a != all {
		t.Errorf("merged %+v, want %+v: the pooled values' count, sum and range", a, all)
	}
}

// RatioOf divides a part of a's figure by the whole of b's, seed by seed,
// leaving out a seed whose whole is not positive.
func TestRatioOf(t *testing.T) {
	type run struct{ part, whole float64 }
	a := []run{{1, 0}, {2, 0}, {3, 0}}
	b := []run{{0, 4}, {0, 0}, {0, 6}}
	s := RatioOf(a, b, func(r run) float64 { return r.part }, func(r run) float64 { return r.whole })
	if s.N != 2 || s.Min != 0.25 || s.Max != 0.5 {
		t.Errorf("ratios %+v, want 1/4 and 3/6 with the zero whole left out", s)
	}
	if cv := CV([]float64{1, 3}); math.Abs(cv-math.Sqrt2/2) > 1e-12 {
		t.Errorf("CV of 1 and 3 = %v, want sqrt(2)/2 (sd sqrt 2 over mean 2)", cv)
	}
}
