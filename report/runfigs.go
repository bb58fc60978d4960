package report

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure sizes: wide ones for time, a smaller one per run.
var (
	wideW, wideH = 17 * vg.Centimeter, 9 * vg.Centimeter
	runW, runH   = 17 * vg.Centimeter, 7 * vg.Centimeter
)

// ComparisonFigures are the figures that set runs side by side: the
// turnaround CDF, mean turnaround by class, the locality mix and, for
// runs that recorded it, where the time goes. Runs
// without jobs.csv are left out of the CDF.
func ComparisonFigures(runs []*Run) []*Figure {
	figs := []*Figure{cdfFigure(runs), classFigure(runs), localityFigure(runs)}
	if f := timeFigure(runs); f != nil {
		figs = append(figs, f)
	}
	return figs
}

func cdfFigure(runs []*Run) *Figure {
	p := newPlot("job turnaround (s, log scale)", "fraction of completed jobs")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	var missing, names []string
	for i, r := range runs {
		pts := TurnaroundCDF(r.Jobs, MaxCDFPoints)
		// A log axis cannot show 0 s; no job takes less than a heartbeat,
		// so this only guards degenerate input.
		kept := pts[:0:0]
		for _, q := range pts {
			if q.X > 0 {
				kept = append(kept, q)
			}
		}
		if len(kept) == 0 {
			missing = append(missing, r.Label)
			continue
		}
		addLine(p, r.Label, kept, style(i))
		names = append(names, r.Label)
	}
	caption := "Cumulative distribution of job turnaround (finish - submit, docs/metrics.md turnaround_s) over each run's completed jobs: " +
		"a point (x, y) says a fraction y of the jobs finished within x seconds of being submitted. Further left is faster; " +
		"the gap between lines at y = 0.5 is the median job's difference, at the top the slowest jobs'."
	if len(missing) > 0 {
		caption += " Not drawn (no jobs.csv or no completed job): " + strings.Join(missing, ", ") + "."
	}
	if len(names) == 0 {
		// Nothing to draw: a log axis over no values has no range, so the
		// empty figure keeps a linear one and its caption says why.
		p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.X.Min, p.X.Max = 0, 1
	}
	return &Figure{Name: "turnaround-cdf", Title: "Job turnaround, cumulative distribution", Caption: caption,
		W: wideW, H: wideH, draw: func(c draw.Canvas) { sideLegend(p, names, c) }}
}

func classFigure(runs []*Run) *Figure {
	plots := make([]*plot.Plot, len(Classes))
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Label
	}
	for k, class := range Classes {
		p := newPlot("", "")
		p.Title.Text = class + " jobs"
		if k == 0 {
			p.Y.Label.Text = "mean turnaround (s)"
		}
		vals := make(plotter.Values, len(runs))
		n := 0
		for i, r := range runs {
			cm := ClassMeans(r.Summary)[k]
			vals[i] = cm.Mean
			n = max(n, cm.Count)
		}
		for i := range runs {
			b, err := plotter.NewBarChart(plotter.Values{vals[i]}, vg.Points(9))
			if err != nil {
				continue
			}
			b.Color = runColors[i%len(runColors)]
			b.LineStyle.Width = 0
			b.Horizontal = true
			b.XMin = float64(i)
			p.Add(b)
		}
		p.Y.Tick.Marker = nominalTicks(names, k == 0)
		p.Y.Min, p.Y.Max = -0.5, float64(len(runs))-0.5
		p.X.Min = 0
		p.X.Label.Text = "mean turnaround (s)"
		p.Y.Label.Text = ""
		p.Legend = plot.NewLegend()
		plots[k] = p
	}
	h := max(4*vg.Centimeter, vg.Length(len(runs))*0.55*vg.Centimeter+2.5*vg.Centimeter)
	return &Figure{Name: "turnaround-by-class", Title: "Mean turnaround by job size", W: wideW, H: h,
		Caption: "Mean turnaround (finish - submit) of completed jobs by shuffle class (docs/metrics.md turnaround_s by class: " +
			"light < 1 MB of shuffle, medium 1-100 MB, heavy > 100 MB), one bar per run; each panel has its own scale. " +
			"Numbers are summary.json's turnaround_by_class_s.",
		draw: func(c draw.Canvas) {
			// The first panel carries the run names, so it is wider.
			left := vg.Length(0.4)
			w := c.Max.X - c.Min.X
			first := draw.Crop(c, 0, -(w * (1 - left)), 0, 0)
			plots[0].Draw(first)
			rest := draw.Crop(c, w*left, 0, 0, 0)
			rw := (rest.Max.X - rest.Min.X) / 2
			plots[1].Draw(draw.Crop(rest, 0, -rw, 0, 0))
			plots[2].Draw(draw.Crop(rest, rw, 0, 0, 0))
		}}
}

// nominalTicks labels integer positions 0..n-1 with names (or blanks).
func nominalTicks(names []string, show bool) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		if !show {
			n = ""
		}
		t[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return t
}

var localityColors = [3]color.Color{
	color.RGBA{0x59, 0xa1, 0x4f, 0xff}, color.RGBA{0xed, 0xc9, 0x48, 0xff}, color.RGBA{0xe1, 0x57, 0x59, 0xff},
}

func localityFigure(runs []*Run) *Figure {
	p := newPlot("fraction of map launches", "")
	names := make([]string, len(runs))
	var mix [3]plotter.Values
	for i, r := range runs {
		names[i] = r.Label
		m := LocalityMix(r.Summary)
		for k := range mix {
			mix[k] = append(mix[k], 100*m[k])
		}
	}
	p.X.Label.Text = "map launches (%)"
	labels := [3]string{"node-local", "rack-local", "off-rack"}
	var prev *plotter.BarChart
	for k := range mix {
		if b := stackBar(p, &prev, mix[k], localityColors[k], vg.Points(10)); b != nil {
			p.Legend.Add(labels[k], b)
		}
	}
	p.NominalY(names...)
	p.X.Min, p.X.Max = 0, 100
	h := max(3.5*vg.Centimeter, vg.Length(len(runs))*0.55*vg.Centimeter+2*vg.Centimeter)
	return &Figure{Name: "locality", Title: "Where maps read their input", W: wideW, H: h,
		Caption: "The locality mix: each run's map launches by where the map's input block was, on the node that ran it, " +
			"elsewhere in its rack, or in another rack (docs/metrics.md locality; summary.json's locality).",
		draw: func(c draw.Canvas) { sideLegend(p, labels[:], c) }}
}

// RunFigures are one run's figures over time: running tasks, cross-rack
// traffic by cause, the rack-uplink heatmap and pool shares. A run
// missing a file gets no figure of it; the list of what is missing is
// returned in words.
func RunFigures(r *Run, prefix string) (figs []*Figure, missing []string) {
	span := 0.0
	if n := len(r.Series); n > 0 {
		span = r.Series[n-1].T - r.Series[0].T
	} else if n := len(r.Uplinks); n > 0 {
		span = r.Uplinks[n-1].T - r.Uplinks[0].T
	}
	ax := timeAxisFor(span)
	if len(r.Series) > 0 {
		figs = append(figs, runningFigure(r, prefix, ax), crossRackFigure(r, prefix, ax))
	} else {
		missing = append(missing, "timeseries.csv (running tasks, cross-rack traffic)")
	}
	if len(r.Uplinks) > 0 && len(r.Uplinks[0].Util) > 0 {
		figs = append(figs, uplinkFigure(r, prefix, ax))
	} else {
		missing = append(missing, "uplinks.csv (rack-uplink heatmap)")
	}
	if len(r.Pools) > 0 {
		figs = append(figs, poolFigure(r, prefix, ax))
	} else {
		missing = append(missing, "pools.csv (pool shares)")
	}
	return figs, missing
}

func runningFigure(r *Run, prefix string, ax timeAxis) *Figure {
	p := newPlot(ax.label(), "running tasks")
	maps, reduces := RunningTasks(r.Series)
	addLine(p, "maps", ax.scale(maps), draw.LineStyle{Color: runColors[0], Width: vg.Points(1)})
	addLine(p, "reduces", ax.scale(reduces), draw.LineStyle{Color: runColors[1], Width: vg.Points(1)})
	p.Y.Min = 0
	headroom(p, 2)
	return &Figure{Name: prefix + "-running", Title: r.Label + ": running maps and reduces", W: runW, H: runH, draw: p.Draw,
		Caption: "Running map and reduce tasks at each timeseries sample (timeseries.csv's running_maps and running_reduces, " +
			"every 60 s of simulated time by default; docs/metrics.md timeseries.csv)."}
}

var causeNames = [3]string{"remote map input", "shuffle", "reduce output"}

func crossRackFigure(r *Run, prefix string, ax timeAxis) *Figure {
	p := newPlot(ax.label(), "cross-rack MB/s")
	by := CrossRackByCause(r.Series)
	for c := range by {
		pts := ax.scale(by[c])
		for i := range pts {
			pts[i].Y /= 1e6
		}
		addLine(p, causeNames[c], pts, draw.LineStyle{Color: runColors[[3]int{2, 0, 4}[c]], Width: vg.Points(1)})
	}
	p.Y.Min = 0
	headroom(p, 3)
	return &Figure{Name: prefix + "-cross-rack", Title: r.Label + ": cross-rack traffic by cause", W: runW, H: runH, draw: p.Draw,
		Caption: "Bytes a second that crossed a rack uplink, averaged over each timeseries period, by why they moved: " +
			"maps reading input from another rack, the shuffle, reduces writing output replicas (timeseries.csv's cross_rack_*_Bps; " +
			"docs/metrics.md bytes; 1 MB = 1e6 bytes)."}
}

func uplinkFigure(r *Run, prefix string, ax timeAxis) *Figure {
	racks := len(r.Uplinks[0].Util)
	g := UplinkHeatmap(r.Uplinks, MaxHeatmapColumns)
	cm := palette.Reverse(moreland.BlackBody())
	cm.SetMin(0)
	cm.SetMax(1)
	// A raster, one pixel a column and a band of pixels a rack, so that
	// thousands of cells cost kilobytes, not an SVG path each.
	const rackPx = 8
	cols := len(g.Edges) - 1
	img := image.NewRGBA(image.Rect(0, 0, cols, racks*rackPx))
	for rk := range racks {
		for c := range cols {
			col, err := cm.At(math.Min(1, math.Max(0, g.Cell[rk][c])))
			if err != nil {
				col = color.Black
			}
			for y := range rackPx {
				img.Set(c, (racks-1-rk)*rackPx+y, col)
			}
		}
	}
	xmin := g.Edges[0]
	xmax := xmin + float64(cols*g.PerColumn)*g.PeriodS // every column as wide as a full one
	p := newPlot(ax.label(), "rack")
	p.Add(plotter.NewImage(img, xmin/ax.div, -0.5, xmax/ax.div, float64(racks)-0.5))
	p.Y.Tick.Marker = rackTicks(racks)
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Colors: 50})
	bar.HideY()
	bar.X.Label.Text = "uplink utilisation (busier direction)"
	bar.X.Padding = 0
	bar.X.Tick.Marker = plainTicks{}
	per := fmt.Sprintf("%d samples (%s)", g.PerColumn, seconds(float64(g.PerColumn)*g.PeriodS))
	if g.PerColumn == 1 {
		per = "sample (" + seconds(g.PeriodS) + ")"
	}
	return &Figure{Name: prefix + "-uplinks", Title: r.Label + ": rack-uplink utilisation", W: runW, H: runH + vg.Length(racks)*2*vg.Points(1),
		Caption: fmt.Sprintf("Each rack's uplink utilisation over time, the busier of its two directions: the mean of the network monitor's "+
			"samples in each period (each sample: bytes carried over the monitor's period / link capacity; uplinks.csv; docs/metrics.md), "+
			"%d racks, a column per %s. White is idle, black is saturated.", racks, per),
		draw: func(c draw.Canvas) {
			barH := 1.6 * vg.Centimeter
			p.Draw(draw.Crop(c, 0, 0, barH, 0))
			bar.Draw(draw.Crop(c, 1.2*vg.Centimeter, -0.4*vg.Centimeter, 0, -(c.Max.Y - c.Min.Y - barH)))
		}}
}

// seconds says a duration in the unit it reads best in.
func seconds(s float64) string {
	switch {
	case s >= 3600 && math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%.0f h", s/3600)
	case s >= 60 && math.Mod(s, 60) == 0:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%g s", s)
}

// rackTicks labels racks, at most about ten of them.
func rackTicks(racks int) plot.ConstantTicks {
	step := max(1, int(math.Ceil(float64(racks)/10)))
	var t plot.ConstantTicks
	for r := 0; r < racks; r += step {
		t = append(t, plot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
	}
	return t
}

// PoolsDrawn is how many pools a pool-share figure draws, a panel each.
const PoolsDrawn = 4

func poolFigure(r *Run, prefix string, ax timeAxis) *Figure {
	var times []float64
	for _, s := range r.Series {
		times = append(times, s.T)
	}
	pools, total := PoolShares(r.Pools, times, PoolsDrawn)
	plots := make([]*plot.Plot, len(pools))
	top := 0.0
	for _, ps := range pools {
		for i := range ps.Share {
			top = math.Max(top, math.Max(ps.Share[i].Y, ps.Fair[i].Y))
		}
	}
	for i, ps := range pools {
		p := newPlot("", "")
		if i == len(pools)-1 {
			p.X.Label.Text = ax.label()
		}
		p.Title.Text = ps.Pool
		p.Title.TextStyle.Font.Size = vg.Points(10)
		addLine(p, "share", ax.scale(ps.Share), draw.LineStyle{Color: runColors[0], Width: vg.Points(1)})
		addLine(p, "fair share", ax.scale(ps.Fair), draw.LineStyle{Color: runColors[1], Width: vg.Points(1),
			Dashes: []vg.Length{vg.Points(3), vg.Points(2)}})
		p.Y.Min, p.Y.Max = 0, top*1.05
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.YOffs = -vg.Millimeter
		headroom(p, 3)
		if i > 0 {
			p.Legend = plot.NewLegend()
		}
		plots[i] = p
	}
	other := ""
	if total > len(pools) {
		other = fmt.Sprintf(" Drawn: the %d pools with the most running task-samples, of %d.", len(pools), total)
	}
	h := vg.Length(len(pools))*3.2*vg.Centimeter + 1.2*vg.Centimeter
	return &Figure{Name: prefix + "-pools", Title: r.Label + ": pool shares against fair shares", W: runW, H: h,
		Caption: "Each pool's share of the cluster's task slots (its running tasks / all slots) against its fair share (dashed): " +
			"the max-min fair division of the slots among the pools with active jobs by their demand (running + runnable tasks), " +
			"equal weights, no minimum shares, each slot kind divided apart (pools.csv; docs/metrics.md). " +
			"It is a yardstick independent of the policy's own configuration; panels share the y scale." + other,
		draw: func(c draw.Canvas) {
			if len(plots) == 0 {
				return
			}
			tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Millimeter}
			grid := make([][]*plot.Plot, len(plots))
			for i, p := range plots {
				grid[i] = []*plot.Plot{p}
			}
			canvases := plot.Align(grid, tiles, c)
			for i, p := range plots {
				p.Draw(canvases[i][0])
			}
		}}
}
