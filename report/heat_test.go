package report

import (
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
	fig, err := f.Figure("heat", tab)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := fig.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "paper") {
		t.Error("the drawn figure does not carry the marked cell's text")
	}
	if _, err := (TableFigure{X: "load", Heat: &Heat{Row: "nope", Value: "gain"}}).HeatData(tab); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("a missing row column: %v; want an error naming it", err)
	}
}
