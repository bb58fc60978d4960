package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/metrics"
)

// partColors colour the parts of a job's time: waits in greys and reds,
// map work in greens, the shuffle in blues, reduce work in purples.
var partColors = [critpath.NumParts]color.RGBA{
	{0xba, 0xb0, 0xac, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
	{0x8c, 0xd1, 0x7d, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0x2c, 0x6e, 0x2a, 0xff}, {0xb6, 0x99, 0x2d, 0xff},
	{0xa0, 0xcb, 0xe8, 0xff}, {0x4e, 0x79, 0xa7, 0xff}, {0x1f, 0x3a, 0x5f, 0xff},
	{0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x33, 0x33, 0x33, 0xff},
}

// TimeByClass is a run's mean seconds a completed job spent in each part
// of its critical path, for all jobs (index 0) and by shuffle class
// (1-3, as Classes), with the jobs counted; ok is false when the run did
// not record it.
func TimeByClass(jobs []metrics.JobRecord) (mean [4][critpath.NumParts]float64, count [4]int, ok bool) {
	for i := range jobs {
		r := &jobs[i]
		if r.Time == nil {
			continue
		}
		ok = true
		for _, k := range [2]int{0, 1 + int(r.Class)} {
			count[k]++
			for p, v := range r.Time.Parts {
				mean[k][p] += v
			}
		}
	}
	for k := range mean {
		for p := range mean[k] {
			if count[k] > 0 {
				mean[k][p] /= float64(count[k])
			}
		}
	}
	return mean, count, ok
}

// timeFigure is "where the time goes": one stacked bar a run, for all
// jobs and for each shuffle class; nil when no run recorded it.
func timeFigure(runs []*Run) *Figure {
	var names []string
	var means [][4][critpath.NumParts]float64
	for _, r := range runs {
		m, _, ok := TimeByClass(r.Jobs)
		if !ok {
			continue
		}
		names = append(names, r.Label)
		means = append(means, m)
	}
	if len(names) == 0 {
		return nil
	}
	titles := append([]string{"all"}, Classes...)
	plots := make([]*plot.Plot, len(titles))
	var legend []string
	for k, title := range titles {
		p := newPlot("", "")
		p.Title.Text = title + " jobs"
		var prev *plotter.BarChart
		for part := range critpath.NumParts {
			vals := make(plotter.Values, len(names))
			drawn := false
			for i := range names {
				vals[i] = means[i][k][part]
				drawn = drawn || vals[i] > 0
			}
			b := stackBar(p, &prev, vals, partColors[part], vg.Points(9))
			if b != nil && k == 0 && drawn {
				p.Legend.Add(part.String(), b)
				legend = append(legend, part.String())
			}
		}
		p.Y.Tick.Marker = nominalTicks(names, k%2 == 0) // the left column names the runs
		p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
		p.X.Min = 0
		p.X.Label.Text = "mean s a job"
		plots[k] = p
	}
	h := max(5*vg.Centimeter, vg.Length(len(names))*0.55*vg.Centimeter+2.5*vg.Centimeter)
	return &Figure{Name: "time-by-part", Title: "Where the time goes", W: wideW, H: 2 * h,
		Caption: "Mean seconds a completed job spent in each part of its critical path (docs/time.md; jobs.csv's time_*_s), " +
			"one stacked bar a run, for all jobs and by shuffle class (light < 1 MB, medium 1-100 MB, heavy > 100 MB); " +
			"each panel has its own scale. A bar's length is the mean turnaround. Held: a slot the task could take sat free; queued: none did.",
		draw: func(c draw.Canvas) {
			// The legend takes the right; the four panels a 2 x 2 grid,
			// the left column wider for the run names.
			leg := plots[0].Legend
			plots[0].Legend = plot.NewLegend()
			em := leg.TextStyle.Width(" ")
			w := vg.Length(0)
			for _, n := range legend {
				w = max(w, leg.TextStyle.Width(n))
			}
			lw := leg.ThumbnailWidth + 3*em + w*7/6
			grid := draw.Crop(c, 0, -lw, 0, 0)
			gw, gh := grid.Max.X-grid.Min.X, grid.Max.Y-grid.Min.Y
			left := gw * 0.55
			for k, p := range plots {
				x0, x1 := vg.Length(0), -(gw - left)
				if k%2 == 1 {
					x0, x1 = left, 0
				}
				y0, y1 := gh/2, vg.Length(0)
				if k >= 2 {
					y0, y1 = 0, -gh/2
				}
				p.Draw(draw.Crop(grid, x0, x1, y0, y1))
			}
			leg.Top, leg.Left = true, true
			leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-lw+em, 0, 0, -em))
			plots[0].Legend = leg
		}}
}

// stackBar adds to p a horizontal bar a run of width w and colour c,
// stacked on *prev, which it becomes; nil when vals cannot be drawn.
func stackBar(p *plot.Plot, prev **plotter.BarChart, vals plotter.Values, c color.Color, w vg.Length) *plotter.BarChart {
	b, err := plotter.NewBarChart(vals, w)
	if err != nil {
		return nil
	}
	b.Color = c
	b.LineStyle.Width = 0
	b.Horizontal = true
	if *prev != nil {
		b.StackOn(*prev)
	}
	*prev = b
	p.Add(b)
	return b
}
