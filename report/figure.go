package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is a drawn figure with the words that go with it.
type Figure struct {
	// Name is the figure's file name without extension
	// ("turnaround-cdf"), unique within a page.
	Name string
	// Title heads the figure; Caption says what it shows and which metric
	// definition it uses (docs/metrics.md).
	Title, Caption string
	// W and H are the figure's size.
	W, H vg.Length
	draw func(draw.Canvas)
}

// SVG renders the figure as an SVG document.
func (f *Figure) SVG() ([]byte, error) {
	b, err := f.encode(vgsvg.New(f.W, f.H))
	if err != nil {
		return nil, err
	}
	return fixImages(withFallbackFonts(b)), nil
}

// PNG renders the figure as a PNG image at 144 dots per inch.
func (f *Figure) PNG() ([]byte, error) {
	return f.encode(vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(144), vgimg.UseBackgroundColor(color.White))})
}

// encode renders the figure on c and returns the file c writes of it.
func (f *Figure) encode(c vg.CanvasWriterTo) ([]byte, error) {
	if err := f.render(draw.New(c)); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// render draws the figure, turning a panic of the plotting library (it
// panics on some degenerate ranges) into an error naming the figure.
func (f *Figure) render(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("figure %s: %v", f.Name, r)
		}
	}()
	f.draw(c)
	return nil
}

var svgProlog = regexp.MustCompile(`^(?s)<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// inlineSVG is the SVG without its XML prolog and comment, for an HTML page.
func inlineSVG(svg []byte) []byte { return svgProlog.ReplaceAll(svg, nil) }

// Figures are set in Liberation Sans, whose widths gonum measures text
// with. A page embeds it (see page.go); a lone SVG file names the fonts
// with the same widths (Arial, Helvetica) before a browser's default, so
// that labels fit where those are installed.
func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

var svgFamily = []byte("font-family:Liberation Sans;")

func withFallbackFonts(svg []byte) []byte {
	return bytes.ReplaceAll(svg, svgFamily, []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// fixImages makes the SVG's raster images (the heatmap, the colour bar)
// fill the box gonum drew them in, as its PNG output does: an SVG image
// keeps its aspect ratio unless told not to, and a browser blurs scaled
// pixels across rack bands. gonum also labels its PNG data as JPEG.
func fixImages(svg []byte) []byte {
	svg = bytes.ReplaceAll(svg, []byte("<image "), []byte(`<image preserveAspectRatio="none" style="image-rendering:pixelated" `))
	return bytes.ReplaceAll(svg, []byte("data:image/jpg;base64,"), []byte("data:image/png;base64,"))
}

// Colours for runs: the Tableau 10 palette, then darker shades; runs past
// those repeat colours with dashes (see style).
var runColors = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff}, {0x1f, 0x3a, 0x5f, 0xff}, {0x7f, 0x3c, 0x00, 0xff},
}

// style is run i's line style: its colour, solid for the first round of
// colours and dashed after.
func style(i int) draw.LineStyle {
	s := draw.LineStyle{Color: runColors[i%len(runColors)], Width: vg.Points(1.5)}
	switch (i / len(runColors)) % 3 {
	case 1:
		s.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		s.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return s
}

// sideLegend draws p with its legend (whose entries are names) in a
// column on the right, outside the data, so that no entry covers a line
// however many there are.
func sideLegend(p *plot.Plot, names []string, c draw.Canvas) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	w := vg.Length(0)
	for _, name := range names {
		w = max(w, leg.TextStyle.Width(name))
	}
	em := leg.TextStyle.Width(" ")
	// A sixth more than the text needs: a browser without Liberation Sans
	// or a font of its widths sets the names a little wider.
	lw := leg.ThumbnailWidth + 3*em + w*7/6
	p.Draw(draw.Crop(c, 0, -lw, 0, 0))
	leg.Top, leg.Left = true, true
	leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-lw+em, 0, 0, -em))
	p.Legend = leg
}

func newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xdd}
	g.Horizontal.Color = color.Gray{0xdd}
	p.Add(g)
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker = plainTicks{}
	p.Y.Tick.Marker = plainTicks{}
	return p
}

// plainTicks label multiples of a round step (1, 2 or 5 times a power of
// ten) giving four to ten labels, with the fewest digits that say the
// value ("500", not "500.00"), and an unlabelled tick halfway between.
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	step := niceStep((max - min) / 5)
	var ts []plot.Tick
	for k := math.Ceil(min/step*2) / 2; k*step <= max+step*1e-9; k += 0.5 {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		label := ""
		if k == math.Trunc(k) {
			label = strconv.FormatFloat(v, 'g', 6, 64)
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}

// logTicks label powers of ten, every decade or, over a wide range,
// every second or third, so that labels do not collide; the decades
// between get unlabelled ticks.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return plot.LogTicks{}.Ticks(math.Max(min, 1e-9), math.Max(max, 1))
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	every := math.Ceil((hi - lo + 1) / 7)
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		if v < min*(1-1e-9) || v > max*(1+1e-9) {
			continue
		}
		label := ""
		if math.Mod(e, every) == 0 {
			label = strconv.FormatFloat(v, 'f', -1, 64)
			if e < -3 {
				label = fmt.Sprintf("1e%d", int(e))
			}
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten at least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// headroom raises the y axis's top so that a legend at the top sits above
// the data rather than on it.
func headroom(p *plot.Plot, lines int) {
	if span := p.Y.Max - p.Y.Min; span > 0 {
		p.Y.Max += span * min(0.5, 0.08*float64(lines))
	}
}

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.X, Y: p.Y}
	}
	return out
}

// addLine adds a line with a legend entry; an empty series adds nothing.
func addLine(p *plot.Plot, name string, pts []XY, s draw.LineStyle) {
	if len(pts) == 0 {
		return
	}
	l, err := plotter.NewLine(xys(Decimate(pts, lineBins)))
	if err != nil {
		return // NaN or Inf in the data: leave the series out rather than draw it wrong
	}
	l.LineStyle = s
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
}

// lineBins is the resolution lines are drawn at: a figure is about 600
// pixels wide, so a day of minutes (1,440 samples) has more points than
// the line has pixels.
const lineBins = 400

// Decimate thins a line (x increasing) for drawing without changing what
// it looks like at a resolution of bins columns: within each of bins
// equal slices of the points it keeps the first, the lowest, the highest
// and the last, in order, and it drops the inner points of any run of
// equal y (they lie on the segment between the run's ends). The first and
// last points are always kept.
func Decimate(pts []XY, bins int) []XY {
	n := len(pts)
	if n <= 2 {
		return pts
	}
	var keep []int
	if bins < 1 || n <= 4*bins {
		keep = make([]int, n)
		for i := range keep {
			keep[i] = i
		}
	} else {
		for b := range bins {
			lo, hi := b*n/bins, (b+1)*n/bins
			if lo == hi {
				continue
			}
			mn, mx := lo, lo
			for i := lo; i < hi; i++ {
				if pts[i].Y < pts[mn].Y {
					mn = i
				}
				if pts[i].Y > pts[mx].Y {
					mx = i
				}
			}
			idx := []int{lo, min(mn, mx), max(mn, mx), hi - 1}
			for _, i := range idx {
				if len(keep) == 0 || keep[len(keep)-1] < i {
					keep = append(keep, i)
				}
			}
		}
	}
	out := make([]XY, 0, len(keep))
	for k, i := range keep {
		// Drop a point whose neighbours (among those kept) have its y.
		if k > 0 && k < len(keep)-1 && pts[keep[k-1]].Y == pts[i].Y && pts[keep[k+1]].Y == pts[i].Y {
			continue
		}
		out = append(out, pts[i])
	}
	return out
}

// timeAxis scales seconds to the unit a span reads best in.
type timeAxis struct {
	div  float64
	unit string
}

func timeAxisFor(spanS float64) timeAxis {
	switch {
	case spanS > 3*3600:
		return timeAxis{3600, "h"}
	case spanS > 180:
		return timeAxis{60, "min"}
	}
	return timeAxis{1, "s"}
}

func (a timeAxis) scale(pts []XY) []XY {
	out := make([]XY, len(pts))
	for i, p := range pts {
		out[i] = XY{p.X / a.div, p.Y}
	}
	return out
}

func (a timeAxis) label() string { return "simulated time (" + a.unit + ")" }
