package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TableFigure says how to draw a table of plain numbers (an experiment's
// CSV rows) as lines: x from one column, one line per value of a series
// column or per value column, optionally one panel per value of a panel
// column, with min-max error bars where the table has them.
type TableFigure struct {
	// Title heads the figure; Caption says what it shows and how the
	// numbers are defined; Paper describes the paper's figure it
	// reproduces, for a reader to set beside it.
	Title, Caption, Paper string
	// X is the x column (numbers). XTicks, when set, is a column whose
	// values label the x positions instead (a bin's size, say).
	X, XTicks, XLabel string
	LogX              bool
	// XDiv divides x values (60 turns seconds into minutes); 0 is 1.
	XDiv float64
	// XCategorical reads X as names, placed 0, 1, ... in the order they
	// first appear; Points then leaves out the lines between them.
	XCategorical, Points bool
	// Panel, when set, draws one panel per distinct value, side by side.
	Panel string
	// Series, when set, draws one line per distinct value of that column,
	// of the single value column Y[0]; otherwise one line per Y column.
	Series string
	Y      []YColumn
	YLabel string
	// YMin0 starts the y axis at zero.
	YMin0 bool
	// Heat, when set, draws the table as a grid of coloured cells instead
	// of lines (heat.go); X is then the grid's columns and YLabel names
	// the value.
	Heat *Heat
}

// YColumn is a value column, with the columns of its range over seeds.
type YColumn struct {
	Col, Low, High string
	// Label names the line when lines are columns.
	Label string
	// Paper, when set, is a column of the paper's value for the row, drawn
	// as hollow grey marks where its cell is a number (a paper often gives
	// only some values in its text).
	Paper string
}

// TableSeries is one line of a table figure.
type TableSeries struct {
	Label     string
	Points    []XY
	Low, High []float64 // empty without a range
	// Paper are the paper's values, where the table has them.
	Paper []XY
}

// TablePanel is one panel of a table figure.
type TablePanel struct {
	Title  string
	Series []TableSeries
	// Ticks label x positions when the figure has XTicks.
	Ticks []plot.Tick
}

// Data extracts the panels and lines from t, in the order values first
// appear. A column the spec names that t lacks, or a cell that is not a
// number, is an error.
func (f TableFigure) Data(t *Table) ([]TablePanel, error) {
	col := map[string]int{}
	for i, h := range t.Headers {
		col[h] = i
	}
	need := []string{f.X, f.XTicks, f.Panel, f.Series}
	for _, y := range f.Y {
		need = append(need, y.Col, y.Low, y.High, y.Paper)
	}
	for _, n := range need {
		if _, ok := col[n]; n != "" && !ok {
			return nil, fmt.Errorf("no column %q (have %v)", n, t.Headers)
		}
	}
	if len(f.Y) == 0 || f.X == "" {
		return nil, fmt.Errorf("a table figure needs an x column and a value column")
	}
	cell := func(row []string, name string) (float64, error) {
		v, err := strconv.ParseFloat(row[col[name]], 64)
		if err != nil {
			return 0, fmt.Errorf("column %s: %q is not a number", name, row[col[name]])
		}
		return v, nil
	}
	var panels []TablePanel
	panelOf := func(name string) *TablePanel {
		for i := range panels {
			if panels[i].Title == name {
				return &panels[i]
			}
		}
		panels = append(panels, TablePanel{Title: name})
		return &panels[len(panels)-1]
	}
	seriesOf := func(p *TablePanel, name string) *TableSeries {
		for i := range p.Series {
			if p.Series[i].Label == name {
				return &p.Series[i]
			}
		}
		p.Series = append(p.Series, TableSeries{Label: name})
		return &p.Series[len(p.Series)-1]
	}
	for ri, row := range t.Rows {
		if len(row) != len(t.Headers) {
			return nil, fmt.Errorf("row %d has %d cells for %d columns", ri+1, len(row), len(t.Headers))
		}
		pname := ""
		if f.Panel != "" {
			pname = row[col[f.Panel]]
		}
		p := panelOf(pname)
		var x float64
		if f.XCategorical {
			name := row[col[f.X]]
			k := slices.IndexFunc(p.Ticks, func(t plot.Tick) bool { return t.Label == name })
			if k < 0 {
				k = len(p.Ticks)
				p.Ticks = append(p.Ticks, plot.Tick{Value: float64(k), Label: name})
			}
			x = float64(k)
		} else {
			v, err := cell(row, f.X)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", ri+1, err)
			}
			if f.XDiv != 0 {
				v /= f.XDiv
			}
			x = v
			if f.XTicks != "" && !slices.ContainsFunc(p.Ticks, func(t plot.Tick) bool { return t.Value == x }) {
				p.Ticks = append(p.Ticks, plot.Tick{Value: x, Label: row[col[f.XTicks]]})
			}
		}
		ys := f.Y
		if f.Series != "" {
			ys = f.Y[:1]
		}
		for _, y := range ys {
			name := y.Label
			if f.Series != "" {
				name = row[col[f.Series]]
			}
			s := seriesOf(p, name)
			v, err := cell(row, y.Col)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", ri+1, err)
			}
			s.Points = append(s.Points, XY{x, v})
			if y.Low != "" && y.High != "" {
				lo, err1 := cell(row, y.Low)
				hi, err2 := cell(row, y.High)
				if err := cmpErr(err1, err2); err != nil {
					return nil, fmt.Errorf("row %d: %w", ri+1, err)
				}
				s.Low, s.High = append(s.Low, lo), append(s.High, hi)
			}
			if y.Paper != "" {
				if pv, err := strconv.ParseFloat(row[col[y.Paper]], 64); err == nil {
					s.Paper = append(s.Paper, XY{x, pv})
				}
			}
		}
	}
	return panels, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Figure draws the table as the spec says; name is the figure's file name.
func (f TableFigure) Figure(name string, t *Table) (*Figure, error) {
	if f.Heat != nil {
		return f.heatFigure(name, t)
	}
	panels, err := f.Data(t)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	plots := make([]*plot.Plot, len(panels))
	for pi, pn := range panels {
		p := newPlot(f.XLabel, "")
		if pi == 0 {
			p.Y.Label.Text = f.YLabel
		}
		p.Title.Text = pn.Title
		if f.LogX {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logTicks{}
		}
		if len(pn.Ticks) > 0 {
			p.X.Tick.Marker = plot.ConstantTicks(pn.Ticks)
		}
		paperDrawn := false
		for si, s := range pn.Series {
			st := style(si)
			if f.XCategorical && len(pn.Series) > 1 {
				// Side by side within a category, so that ranges do not overlap.
				dx := (float64(si) - float64(len(pn.Series)-1)/2) * 0.5 / float64(len(pn.Series))
				s = shifted(s, dx)
			}
			if len(s.Paper) > 0 {
				sc, err := plotter.NewScatter(xys(s.Paper))
				if err == nil {
					sc.Shape = draw.RingGlyph{}
					sc.Radius = vg.Points(4)
					sc.Color = color.Gray{0x70}
					p.Add(sc)
					if !paperDrawn && pi == 0 {
						p.Legend.Add("paper", sc)
					}
					paperDrawn = true
				}
			}
			l, pts, err := plotter.NewLinePoints(xys(s.Points))
			if err != nil {
				return nil, fmt.Errorf("figure %s: %s: %w", name, s.Label, err)
			}
			l.LineStyle = st
			pts.Color = st.Color
			pts.Shape = draw.CircleGlyph{}
			pts.Radius = vg.Points(2)
			if len(s.Points) > 60 {
				pts.Radius = 0 // a long series reads as a line
			}
			if f.Points {
				pts.Radius = vg.Points(3)
				p.Add(pts)
			} else {
				p.Add(l, pts)
			}
			if pi == 0 {
				if f.Points {
					p.Legend.Add(s.Label, pts)
				} else {
					p.Legend.Add(s.Label, l)
				}
			}
			if len(s.Low) == len(s.Points) && len(s.Low) > 0 {
				e, err := plotter.NewYErrorBars(errBars{s.Points, s.Low, s.High})
				if err == nil {
					e.LineStyle = draw.LineStyle{Color: st.Color, Width: vg.Points(0.8)}
					p.Add(e)
				}
			}
		}
		if f.YMin0 {
			p.Y.Min = 0
		}
		if pi == 0 {
			n := len(pn.Series)
			if paperDrawn {
				n++
			}
			headroom(p, n)
		}
		if f.XCategorical {
			p.X.Min, p.X.Max = -0.5, float64(len(pn.Ticks))-0.5
		}
		plots[pi] = p
	}
	// Panels share a y range, so that they read against each other.
	if len(plots) > 1 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range plots {
			lo, hi = math.Min(lo, p.Y.Min), math.Max(hi, p.Y.Max)
		}
		for _, p := range plots {
			p.Y.Min, p.Y.Max = lo, hi
		}
	}
	return &Figure{Name: name, Title: f.Title, Caption: f.Caption, W: wideW, H: wideH, draw: func(c draw.Canvas) {
		n := vg.Length(len(plots))
		w := (c.Max.X - c.Min.X) / n
		for i, p := range plots {
			p.Draw(draw.Crop(c, w*vg.Length(i), -(w * (n - 1 - vg.Length(i))), 0, 0))
		}
	}}, nil
}

// shifted is s moved right by dx.
func shifted(s TableSeries, dx float64) TableSeries {
	move := func(pts []XY) []XY {
		out := make([]XY, len(pts))
		for i, q := range pts {
			out[i] = XY{q.X + dx, q.Y}
		}
		return out
	}
	s.Points, s.Paper = move(s.Points), move(s.Paper)
	return s
}

// errBars gives gonum the range over seeds as error bars around the mean.
type errBars struct {
	pts       []XY
	low, high []float64
}

func (e errBars) Len() int                    { return len(e.pts) }
func (e errBars) XY(i int) (float64, float64) { return e.pts[i].X, e.pts[i].Y }
func (e errBars) YError(i int) (float64, float64) {
	return math.Max(0, e.pts[i].Y-e.low[i]), math.Max(0, e.high[i]-e.pts[i].Y)
}
