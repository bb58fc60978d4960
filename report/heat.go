package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heat makes a TableFigure a grid of cells: one column a distinct value of
// the figure's X, one row a distinct value of Row, each cell coloured by
// Value on a diverging scale centred at Center and labelled with it. It is
// how a policy's gain over its baseline reads across two regime axes (a
// ratio of 1 is no effect). Cells whose Mark column is not empty are
// outlined and carry the mark's text: a paper's operating point.
type Heat struct {
	Row, RowLabel string
	Value         string
	// Center is the value drawn white; Span the distance from it drawn
	// at full colour (0: the largest distance in the table).
	Center, Span float64
	// Log colours by the logarithm of the value, for ratios that span a
	// factor of several: half and twice the centre then take the same
	// depth of colour, and no tick of the colour bar reads a negative
	// ratio. Span is then a factor (0: the largest in the table).
	Log bool
	// LowLabel and HighLabel say what each side of the centre means
	// ("policy faster", "baseline faster"), for the colour bar.
	LowLabel, HighLabel string
	Mark                string
	// Decimals of the cells' labels (default 2).
	Decimals int
}

// HeatCell is one cell of a heat figure, at column X and row Y of the grid.
type HeatCell struct {
	X, Y  int
	Value float64
	Mark  string
}

// HeatData is a heat figure's grid: the column and row labels in the
// order the table gives them, and the cells that have a value.
type HeatData struct {
	Cols, Rows []string
	Cells      []HeatCell
}

// HeatData reads the grid of a heat figure from t.
func (f TableFigure) HeatData(t *Table) (HeatData, error) {
	h := f.Heat
	if h == nil {
		return HeatData{}, fmt.Errorf("not a heat figure")
	}
	col := map[string]int{}
	for i, name := range t.Headers {
		col[name] = i
	}
	for _, n := range []string{f.X, h.Row, h.Value, h.Mark} {
		if _, ok := col[n]; n != "" && !ok {
			return HeatData{}, fmt.Errorf("no column %q (have %v)", n, t.Headers)
		}
	}
	if f.X == "" || h.Row == "" || h.Value == "" {
		return HeatData{}, fmt.Errorf("a heat figure needs x, row and value columns")
	}
	var d HeatData
	index := func(list *[]string, v string) int {
		if i := slices.Index(*list, v); i >= 0 {
			return i
		}
		*list = append(*list, v)
		return len(*list) - 1
	}
	for ri, row := range t.Rows {
		if len(row) != len(t.Headers) {
			return HeatData{}, fmt.Errorf("row %d has %d cells for %d columns", ri+1, len(row), len(t.Headers))
		}
		x, y := index(&d.Cols, row[col[f.X]]), index(&d.Rows, row[col[h.Row]])
		if row[col[h.Value]] == "" {
			continue // no value for this cell (no seed finished both runs)
		}
		v, err := strconv.ParseFloat(row[col[h.Value]], 64)
		if err != nil {
			return HeatData{}, fmt.Errorf("row %d: column %s: %q is not a number", ri+1, h.Value, row[col[h.Value]])
		}
		c := HeatCell{X: x, Y: y, Value: v}
		if h.Mark != "" {
			c.Mark = row[col[h.Mark]]
		}
		d.Cells = append(d.Cells, c)
	}
	return d, nil
}

// heatFigure draws a heat figure.
func (f TableFigure) heatFigure(name string, t *Table) (*Figure, error) {
	d, err := f.HeatData(t)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	h := f.Heat
	// scale maps a value to where the colour map reads it: itself, or its
	// logarithm.
	scale := func(v float64) float64 { return v }
	if h.Log {
		scale = math.Log
	}
	center, span := scale(h.Center), h.Span
	if h.Log && span != 0 {
		span = math.Log(span)
	}
	if span == 0 {
		for _, c := range d.Cells {
			span = math.Max(span, math.Abs(scale(c.Value)-center))
		}
	}
	if span == 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		span = 1
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(center - span)
	cm.SetMax(center + span)
	colorOf := func(v float64) color.Color {
		c, err := cm.At(math.Min(center+span, math.Max(center-span, scale(v))))
		if err != nil {
			return color.Gray{0x80}
		}
		return c
	}
	p := newPlot(f.XLabel, h.RowLabel)
	dec := h.Decimals
	if dec == 0 {
		dec = 2
	}
	var labels plotter.XYLabels
	for _, c := range d.Cells {
		x, y := float64(c.X), float64(c.Y)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x - 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y + 0.5}, {X: x - 0.5, Y: y + 0.5}})
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", name, err)
		}
		poly.Color = colorOf(c.Value)
		poly.LineStyle = draw.LineStyle{Color: color.White, Width: vg.Points(1)}
		if c.Mark != "" {
			poly.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}
		}
		p.Add(poly)
		text := strconv.FormatFloat(c.Value, 'f', dec, 64)
		if c.Mark != "" {
			text += "\n" + c.Mark
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: x, Y: y})
		labels.Labels = append(labels.Labels, text)
	}
	if len(labels.XYs) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", name, err)
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		}
		p.Add(l)
	}
	ticks := func(names []string) plot.ConstantTicks {
		t := make(plot.ConstantTicks, len(names))
		for i, n := range names {
			t[i] = plot.Tick{Value: float64(i), Label: n}
		}
		return t
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks(d.Cols), ticks(d.Rows)
	p.X.Min, p.X.Max = -0.5, float64(len(d.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(d.Rows))-0.5
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Colors: 50})
	bar.HideY()
	bar.X.Label.Text = fmt.Sprintf("%s: %s < %g < %s", f.YLabel, h.LowLabel, h.Center, h.HighLabel)
	bar.X.Padding = 0
	bar.X.Tick.Marker = plainTicks{}
	if h.Log {
		bar.X.Tick.Marker = ratioTicks(center-span, center+span)
	}
	return &Figure{Name: name, Title: f.Title, Caption: f.Caption, W: wideW, H: wideH, draw: func(c draw.Canvas) {
		barH := 1.6 * vg.Centimeter
		p.Draw(draw.Crop(c, 0, 0, barH, 0))
		bar.Draw(draw.Crop(c, 1.2*vg.Centimeter, -0.4*vg.Centimeter, 0, -(c.Max.Y - c.Min.Y - barH)))
	}}, nil
}

// ratioTicks labels a logarithmic colour bar from lo to hi (logarithms)
// with round ratios: powers of two when it spans a factor of two or more
// each side, finer steps when it spans less.
func ratioTicks(lo, hi float64) plot.ConstantTicks {
	steps := []float64{0.25, 0.5, 1, 2, 4}
	switch {
	case hi-lo >= 2*math.Log(8):
		steps = []float64{1.0 / 64, 1.0 / 16, 0.25, 1, 4, 16, 64}
	case hi-lo < 2*math.Log(1.25):
		steps = []float64{0.9, 0.95, 1, 1.05, 1.1}
	case hi-lo < 2*math.Log(2):
		steps = []float64{0.67, 0.8, 1, 1.25, 1.5}
	}
	var t plot.ConstantTicks
	for _, r := range steps {
		if l := math.Log(r); l >= lo-1e-9 && l <= hi+1e-9 {
			t = append(t, plot.Tick{Value: l, Label: strconv.FormatFloat(r, 'g', -1, 64)})
		}
	}
	return t
}
