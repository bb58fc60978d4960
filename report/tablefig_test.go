package report

import (
	"slices"
	"strings"
	"testing"
)

func TestTableFigureData(t *testing.T) {
	long := &Table{Headers: []string{"scheduler", "maps", "gain", "gain_min", "gain_max", "paper_gain"}}
	long.AddRow("FIFO", "3", "1", "1", "1", "1")
	long.AddRow("delay", "3", "1.5", "1.4", "1.6", "1.2")
	long.AddRow("FIFO", "10", "1", "1", "1", "1")
	long.AddRow("delay", "10", "1.1", "1.0", "1.3", "-")
	wide := &Table{Headers: []string{"queue", "gb", "fifo", "td"}}
	wide.AddRow("small", "100", "200", "190")
	wide.AddRow("small", "200", "300", "280")
	wide.AddRow("large", "100", "210", "205")
	cat := &Table{Headers: []string{"scheduler", "x"}}
	cat.AddRow("Fair", "1")
	cat.AddRow("NAS", "0.9")

	t.Run("series by a column, with ranges and the paper's values", func(t *testing.T) {
		f := TableFigure{X: "maps", Series: "scheduler", Y: []YColumn{{Col: "gain", Low: "gain_min", High: "gain_max", Paper: "paper_gain"}}}
		ps, err := f.Data(long)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 1 || len(ps[0].Series) != 2 {
			t.Fatalf("panels %+v, want one panel of two series", ps)
		}
		d := ps[0].Series[1]
		if d.Label != "delay" || !slices.Equal(d.Points, []XY{{3, 1.5}, {10, 1.1}}) ||
			!slices.Equal(d.Low, []float64{1.4, 1.0}) || !slices.Equal(d.High, []float64{1.6, 1.3}) {
			t.Errorf("delay series %+v, want points (3,1.5) (10,1.1) with ranges 1.4-1.6, 1.0-1.3", d)
		}
		if !slices.Equal(d.Paper, []XY{{3, 1.2}}) {
			t.Errorf("paper values %v, want only (3, 1.2): a cell that is not a number ('-') has no paper value", d.Paper)
		}
	})
	t.Run("series by columns, panels by a column", func(t *testing.T) {
		f := TableFigure{X: "gb", Panel: "queue", Y: []YColumn{{Col: "fifo", Label: "FIFO"}, {Col: "td", Label: "TD"}}}
		ps, err := f.Data(wide)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != 2 || ps[0].Title != "small" || ps[1].Title != "large" {
			t.Fatalf("panels %+v, want small then large, in order of appearance", ps)
		}
		if s := ps[0].Series[1]; s.Label != "TD" || !slices.Equal(s.Points, []XY{{100, 190}, {200, 280}}) {
			t.Errorf("small TD %+v, want (100,190) (200,280)", s)
		}
	})
	t.Run("categorical x", func(t *testing.T) {
		f := TableFigure{X: "scheduler", XCategorical: true, Y: []YColumn{{Col: "x", Label: "x"}}}
		ps, err := f.Data(cat)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ps[0].Series[0].Points, []XY{{0, 1}, {1, 0.9}}) || ps[0].Ticks[1].Label != "NAS" {
			t.Errorf("categorical points %v ticks %v, want x = 0, 1 labelled Fair, NAS", ps[0].Series[0].Points, ps[0].Ticks)
		}
	})
	t.Run("errors", func(t *testing.T) {
		if _, err := (TableFigure{X: "maps", Y: []YColumn{{Col: "nope"}}}).Data(long); err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("a missing column gave %v, want an error naming it", err)
		}
		if _, err := (TableFigure{X: "scheduler", Y: []YColumn{{Col: "gain"}}}).Data(long); err == nil || !strings.Contains(err.Error(), "row 1") {
			t.Errorf("a non-numeric x gave %v, want an error naming the row", err)
		}
	})
}
