package report

import (
	"math"
	"strings"
	"testing"
)

// TestHeatDataReadsTheGrid: a heat figure's columns and rows are the
// distinct values of its two axes in table order, each row of the table a
// cell, with its mark; an empty value leaves the cell out.
func TestHeatDataReadsTheGrid(t *testing.T) {
	tab := &Table{Headers: []string{"load", "users", "gain", "mark"}, Rows: [][]string{
		{"0.5", "3", "1.10", ""},
		{"1", "3", "0.90", "paper"},
		{"0.5", "30", "", ""},
		{"1", "30", "1.00", ""},
	}}
	f := TableFigure{X: "load", Heat: &Heat{Row: "users", Value: "gain", Center: 1, Mark: "mark"}}
	d, err := f.HeatData(tab)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Cols, " ") != "0.5 1" || strings.Join(d.Rows, " ") != "3 30" {
		t.Errorf("columns %v rows %v; want [0.5 1] and [3 30], in table order", d.Cols, d.Rows)
	}
	want := []HeatCell{{0, 0, 1.10, ""}, {1, 0, 0.90, "paper"}, {1, 1, 1.00, ""}}
	if len(d.Cells) != len(want) {
		t.Fatalf("%d cells %v; want %v (the empty one left out)", len(d.Cells), d.Cells, want)
	}
	for i := range want {
		if d.Cells[i] != want[i] {
			t.Errorf("cell %d = %+v, want %+v", i, d.Cells[i], want[i])
		}
	}
	svg := heatSVG(t, f, tab)
	if !strings.Contains(string(svg), "paper") {
		t.Error("the drawn figure does not carry the marked cell's text")
	}
	if _, err := (TableFigure{X: "load", Heat: &Heat{Row: "nope", Value: "gain"}}).HeatData(tab); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("a missing row column: %v; want an error naming it", err)
	}
}

// A logarithmic colour bar of ratios reads round ratios, never a negative
// one, and always 1, at a span of a few times and at a span of percents.
func TestRatioTicksOfALogColourBar(t *testing.T) {
	tests := []struct {
		name     string
		maxRatio float64 // the bar spans 1/maxRatio to maxRatio
		want     string
	}{
		{"nas/map's 0.95 to 5.6", 5.64, "0.25 0.5 1 2 4"},
		{"a factor of 1.6", 1.6, "0.67 0.8 1 1.25 1.5"},
		{"percents", 1.12, "0.9 0.95 1 1.05 1.1"},
		{"a factor of 100", 100, "0.015625 0.0625 0.25 1 4 16 64"},
	}
	for _, tc := range tests {
		l := math.Log(tc.maxRatio)
		var got []string
		for _, tk := range ratioTicks(-l, l) {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s: ticks %q, want %q", tc.name, s, tc.want)
		}
	}
}

// With Log, a colour bar of ratios spanning a factor of several labels no
// negative ratio, as a linear bar centred on 1 does.
func TestLogHeatDrawsWideRatios(t *testing.T) {
	tab := &Table{Headers: []string{"load", "users", "gain"}, Rows: [][]string{
		{"0.2", "25", "0.95"}, {"1", "25", "5.64"}, {"0.2", "200", "0.25"}, {"1", "200", "4"},
	}}
	f := TableFigure{X: "load", Heat: &Heat{Row: "users", Value: "gain", Center: 1, Log: true}}
	svg := heatSVG(t, f, tab)
	if strings.Contains(string(svg), ">-") {
		t.Error("the log colour bar labels a negative value")
	}
}

// heatSVG draws f's figure of tab as SVG.
func heatSVG(t *testing.T, f TableFigure, tab *Table) []byte {
	t.Helper()
	fig, err := f.Figure("heat", tab)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := fig.SVG()
	if err != nil {
		t.Fatal(err)
	}
	return svg
}
