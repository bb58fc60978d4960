package report

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/metrics"
)

func job(submit, finish float64) metrics.JobRecord {
	return metrics.JobRecord{Submit: submit, Finish: finish}
}

func TestTurnaroundCDF(t *testing.T) {
	jobs := []metrics.JobRecord{job(0, 30), job(5, 15), job(10, -1), job(20, 40), job(0, 40)}
	cases := []struct {
		name string
		max  int
		want []XY
		why  string
	}{
		{"every point", 10, []XY{{10, 0.25}, {20, 0.5}, {30, 0.75}, {40, 1}},
			"turnarounds 30, 10, 20, 40 of the four finished jobs, sorted, the i-th of n at i/n; the unfinished job is left out"},
		{"thinned", 2, []XY{{10, 0.25}, {40, 1}}, "two points of four keep the first and the last"},
		{"thinned to three", 3, []XY{{10, 0.25}, {30, 0.75}, {40, 1}},
			"three points of four are ranks 0, round(1.5)=2, 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TurnaroundCDF(jobs, c.max); !slices.Equal(got, c.want) {
				t.Errorf("TurnaroundCDF = %v, want %v: %s", got, c.want, c.why)
			}
		})
	}
	if got := TurnaroundCDF([]metrics.JobRecord{job(0, -1)}, 10); len(got) != 0 {
		t.Errorf("no finished job gave %v, want no points", got)
	}
}

func TestClassMeansInSizeOrder(t *testing.T) {
	s := metrics.Summary{TurnaroundByClass: map[string]metrics.Distribution{
		"heavy": {Count: 2, Mean: 300}, "light": {Count: 5, Mean: 7},
	}}
	want := []ClassMean{{"light", 7, 5}, {"medium", 0, 0}, {"heavy", 300, 2}}
	if got := ClassMeans(s); !slices.Equal(got, want) {
		t.Errorf("ClassMeans = %v, want %v: light, medium, heavy in size order, a class without jobs with count 0", got, want)
	}
}

func TestSeriesOverTime(t *testing.T) {
	rows := []metrics.TimeseriesRow{
		{T: 60, RunningMaps: 4, RunningReduces: 1, CrossRackBps: [3]float64{10, 20, 30}},
		{T: 120, RunningMaps: 2, RunningReduces: 3, CrossRackBps: [3]float64{1, 2, 3}},
	}
	maps, reduces := RunningTasks(rows)
	if want := []XY{{60, 4}, {120, 2}}; !slices.Equal(maps, want) {
		t.Errorf("running maps %v, want %v", maps, want)
	}
	if want := []XY{{60, 1}, {120, 3}}; !slices.Equal(reduces, want) {
		t.Errorf("running reduces %v, want %v", reduces, want)
	}
	by := CrossRackByCause(rows)
	if want := []XY{{60, 20}, {120, 2}}; !slices.Equal(by[metrics.Shuffle], want) {
		t.Errorf("cross-rack shuffle %v, want %v: the shuffle column in time order", by[metrics.Shuffle], want)
	}
}

func TestUplinkHeatmap(t *testing.T) {
	s := func(t float64, u ...[2]float64) metrics.UplinkSample { return metrics.UplinkSample{T: t, Util: u} }
	samples := []metrics.UplinkSample{
		s(60, [2]float64{0.2, 0.6}, [2]float64{1, 0}),
		s(120, [2]float64{0.4, 0.1}, [2]float64{0, 0}),
		s(180, [2]float64{0.9, 0.3}, [2]float64{0.5, 0.5}),
	}
	t.Run("a column a sample", func(t *testing.T) {
		g := UplinkHeatmap(samples, 10)
		want := [][]float64{{0.6, 0.4, 0.9}, {1, 0, 0.5}}
		if !close2(g.Cell, want) {
			t.Errorf("cells %v, want %v: each sample's busier direction", g.Cell, want)
		}
		if wantE := []float64{0, 60, 120, 180}; !slices.Equal(g.Edges, wantE) {
			t.Errorf("edges %v, want %v: a sample at T covers the period before it", g.Edges, wantE)
		}
	})
	t.Run("binned", func(t *testing.T) {
		g := UplinkHeatmap(samples, 2)
		want := [][]float64{{0.5, 0.9}, {0.5, 0.5}}
		if !close2(g.Cell, want) {
			t.Errorf("cells %v, want %v: two samples a column (ceil(3/2)), the last column the one left over", g.Cell, want)
		}
		if g.PerColumn != 2 || !slices.Equal(g.Edges, []float64{0, 120, 180}) {
			t.Errorf("per column %d, edges %v; want 2 and [0 120 180]", g.PerColumn, g.Edges)
		}
	})
}

func close2(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Abs(a[i][j]-b[i][j]) > 1e-12 {
				return false
			}
		}
	}
	return true
}

func TestPoolShares(t *testing.T) {
	p := func(t float64, pool string, running int, share, fair float64) metrics.PoolSample {
		return metrics.PoolSample{T: t, Pool: pool, Running: running, Share: share, FairShare: fair}
	}
	samples := []metrics.PoolSample{
		p(60, "b", 4, 0.4, 0.5), p(60, "c", 6, 0.6, 0.5),
		p(120, "a", 5, 0.5, 0.5), p(120, "b", 5, 0.5, 0.5),
		p(240, "c", 4, 0.4, 1),
	}
	times := []float64{60, 120, 180, 240}
	got, total := PoolShares(samples, times, 2)
	if total != 3 {
		t.Errorf("total pools %d, want 3", total)
	}
	if len(got) != 2 || got[0].Pool != "c" || got[1].Pool != "b" {
		t.Fatalf("pools drawn %v, want c (10 task-samples) then b (9); a (5) is left out", got)
	}
	wantShare := []XY{{60, 0.6}, {120, 0}, {180, 0}, {240, 0.4}}
	wantFair := []XY{{60, 0.5}, {120, 0}, {180, 0}, {240, 1}}
	if !slices.Equal(got[0].Share, wantShare) || !slices.Equal(got[0].Fair, wantFair) {
		t.Errorf("pool c: share %v fair %v, want %v and %v: zero at samples where it has no active job",
			got[0].Share, got[0].Fair, wantShare, wantFair)
	}
	tie, _ := PoolShares([]metrics.PoolSample{p(60, "y", 1, 0, 0), p(60, "x", 1, 0, 0)}, nil, 1)
	if tie[0].Pool != "x" {
		t.Errorf("a tie in task-samples picked %s, want x: ties go by name", tie[0].Pool)
	}
}

func TestDecimateKeepsTheShape(t *testing.T) {
	var pts []XY
	for i := range 1000 {
		y := 0.0
		if i == 501 {
			y = 9 // a one-sample spike must survive
		}
		if i == 700 {
			y = -3
		}
		pts = append(pts, XY{float64(i), y})
	}
	got := Decimate(pts, 100)
	if got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
		t.Errorf("first and last points %v, %v; want %v, %v", got[0], got[len(got)-1], pts[0], pts[len(pts)-1])
	}
	if !slices.Contains(got, XY{501, 9}) || !slices.Contains(got, XY{700, -3}) {
		t.Errorf("the spikes at x=501 and x=700 are gone: a bin keeps its lowest and highest point")
	}
	if len(got) > 20 {
		t.Errorf("a flat line with two spikes kept %d points, want a handful: a run of equal y needs only its ends", len(got))
	}
	short := []XY{{0, 1}, {1, 1}, {2, 1}, {3, 2}}
	if got := Decimate(short, 100); !slices.Equal(got, []XY{{0, 1}, {2, 1}, {3, 2}}) {
		t.Errorf("Decimate(%v) = %v: only (1,1), inside a run of equal y, may go", short, got)
	}
}

func TestLocalityMix(t *testing.T) {
	s := metrics.Summary{Locality: metrics.Locality{Node: 0.7, Rack: 0.2, Off: 0.1}}
	if got := LocalityMix(s); got != [3]float64{0.7, 0.2, 0.1} {
		t.Errorf("LocalityMix = %v, want node, rack, off in that order", got)
	}
}
