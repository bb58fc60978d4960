package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

// The data behind each figure, kept apart from drawing so that it can be
// tested as numbers.

// XY is a point of a series.
type XY struct{ X, Y float64 }

// MaxCDFPoints bounds the points drawn of a turnaround CDF: a day's
// thousands of jobs per policy would make the page megabytes of SVG
// without changing what the eye sees.
const MaxCDFPoints = 400

// TurnaroundCDF is the empirical distribution of completed jobs'
// turnaround (finish - submit): the i-th smallest of n at (x_i, i/n).
// Above max points it keeps max of them, evenly spaced in rank, always
// the first and the last.
func TurnaroundCDF(jobs []metrics.JobRecord, max int) []XY {
	var ta []float64
	for i := range jobs {
		if v := jobs[i].Turnaround(); v >= 0 {
			ta = append(ta, v)
		}
	}
	slices.Sort(ta)
	n := len(ta)
	pick := func(i int) XY { return XY{ta[i], float64(i+1) / float64(n)} }
	if n <= max || max < 2 {
		out := make([]XY, n)
		for i := range ta {
			out[i] = pick(i)
		}
		return out
	}
	out := make([]XY, max)
	for k := range max {
		out[k] = pick(int(math.Round(float64(k) * float64(n-1) / float64(max-1))))
	}
	return out
}

// ClassMean is one shuffle class's mean turnaround.
type ClassMean struct {
	Class string
	Mean  float64
	Count int
}

// Classes are the shuffle classes in size order (docs/metrics.md).
var Classes = []string{workload.ClassLight.String(), workload.ClassMedium.String(), workload.ClassHeavy.String()}

// ClassMeans is the run's mean turnaround by shuffle class, in size order,
// as summary.json's turnaround_by_class_s gives it; a class with no
// completed job has Count 0.
func ClassMeans(s metrics.Summary) []ClassMean {
	out := make([]ClassMean, len(Classes))
	for i, c := range Classes {
		d := s.TurnaroundByClass[c]
		out[i] = ClassMean{Class: c, Mean: d.Mean, Count: d.Count}
	}
	return out
}

// RunningTasks is the running maps and reduces at each timeseries sample.
func RunningTasks(rows []metrics.TimeseriesRow) (maps, reduces []XY) {
	for _, r := range rows {
		maps = append(maps, XY{r.T, float64(r.RunningMaps)})
		reduces = append(reduces, XY{r.T, float64(r.RunningReduces)})
	}
	return maps, reduces
}

// CrossRackByCause is the cross-rack bytes a second, averaged over each
// timeseries period, by cause (metrics.Cause order: remote map input,
// shuffle, reduce output).
func CrossRackByCause(rows []metrics.TimeseriesRow) [3][]XY {
	var out [3][]XY
	for _, r := range rows {
		for c := range out {
			out[c] = append(out[c], XY{r.T, r.CrossRackBps[c]})
		}
	}
	return out
}

// MaxHeatmapColumns bounds the time columns of the uplink heatmap: a
// figure has about 600 pixels across.
const MaxHeatmapColumns = 480

// UplinkGrid is the rack-uplink heatmap: Cell[r][c] is rack r's uplink
// utilisation in time column c, the busier direction (up or down) of each
// sample, averaged over the column's samples. Column c spans
// [Edges[c], Edges[c+1]] seconds; each holds PerColumn samples but the
// last, which may hold fewer.
type UplinkGrid struct {
	Edges     []float64
	Cell      [][]float64
	PerColumn int
	// PeriodS is the samples' spacing.
	PeriodS float64
}

// UplinkHeatmap bins the uplink samples into at most maxCols columns of
// k consecutive samples, k = ceil(n / maxCols). A sample at T covers the
// period before T, whose length is read from the spacing of the first two
// samples.
func UplinkHeatmap(samples []metrics.UplinkSample, maxCols int) UplinkGrid {
	n := len(samples)
	if n == 0 || maxCols < 1 {
		return UplinkGrid{}
	}
	racks := len(samples[0].Util)
	period := samples[0].T
	if n > 1 {
		period = samples[1].T - samples[0].T
	}
	k := (n + maxCols - 1) / maxCols
	cols := (n + k - 1) / k
	g := UplinkGrid{Edges: make([]float64, cols+1), Cell: make([][]float64, racks), PerColumn: k, PeriodS: period}
	for r := range g.Cell {
		g.Cell[r] = make([]float64, cols)
	}
	g.Edges[0] = samples[0].T - period
	for c := range cols {
		lo, hi := c*k, min(n, (c+1)*k)
		for r := range racks {
			sum := 0.0
			for _, s := range samples[lo:hi] {
				if r < len(s.Util) {
					sum += math.Max(s.Util[r][0], s.Util[r][1])
				}
			}
			g.Cell[r][c] = sum / float64(hi-lo)
		}
		g.Edges[c+1] = samples[hi-1].T
	}
	return g
}

// PoolShare is one pool's share of the cluster's task slots and its fair
// share over time, at every timeseries sample (zero while the pool has no
// active job).
type PoolShare struct {
	Pool        string
	Share, Fair []XY
	// TaskSamples is the pool's running tasks summed over the samples: how
	// much of the run it occupied, which picks the pools drawn.
	TaskSamples int
}

// PoolShares returns the top pools by TaskSamples (ties by name), at most
// top of them, and how many pools there were. times are the sample times
// to report at; nil takes the pool samples' own.
func PoolShares(samples []metrics.PoolSample, times []float64, top int) ([]PoolShare, int) {
	if times == nil {
		for _, s := range samples {
			if len(times) == 0 || times[len(times)-1] != s.T {
				times = append(times, s.T)
			}
		}
	}
	index := map[string]int{} // lookup only; pools are ordered below
	var pools []PoolShare
	for _, s := range samples {
		i, ok := index[s.Pool]
		if !ok {
			i = len(pools)
			index[s.Pool] = i
			pools = append(pools, PoolShare{Pool: s.Pool})
		}
		pools[i].TaskSamples += s.Running
	}
	slices.SortFunc(pools, func(a, b PoolShare) int {
		return cmp.Or(cmp.Compare(b.TaskSamples, a.TaskSamples), cmp.Compare(a.Pool, b.Pool))
	})
	total := len(pools)
	pools = pools[:min(top, total)]
	for i := range pools {
		index[pools[i].Pool] = i
		pools[i].Share = make([]XY, len(times))
		pools[i].Fair = make([]XY, len(times))
		for k, t := range times {
			pools[i].Share[k] = XY{t, 0}
			pools[i].Fair[k] = XY{t, 0}
		}
	}
	for _, s := range samples {
		i, ok := index[s.Pool]
		if !ok || i >= len(pools) || pools[i].Pool != s.Pool {
			continue // not drawn
		}
		if k, found := slices.BinarySearch(times, s.T); found {
			pools[i].Share[k].Y = s.Share
			pools[i].Fair[k].Y = s.FairShare
		}
	}
	return pools, total
}

// LocalityMix is the fraction of map launches by where their input was:
// on the node, in the rack, off the rack.
func LocalityMix(s metrics.Summary) [3]float64 {
	return [3]float64{s.Locality.Node, s.Locality.Rack, s.Locality.Off}
}
