package scenario

import (
	"math"
	"testing"
)

func TestQuantileAndSpearman(t *testing.T) {
	xs := []float64{0.1, 0.2, 0.3, 0.4, 1.0}
	if q := quantile(xs, 0.5); q != 0.3 {
		t.Errorf("median %v; want 0.3", q)
	}
	if q := quantile(xs, 0.9); math.Abs(q-0.76) > 1e-12 {
		t.Errorf("p90 %v; want 0.76, between the 4th and 5th ranks", q)
	}
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{10, 20, 30}, 1},
		{[]float64{1, 2, 3}, []float64{30, 20, 10}, -1},
		{[]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 0.8},
		{[]float64{1, 1, 2}, []float64{5, 5, 9}, 1},
		{[]float64{7}, []float64{3}, 0},
	} {
		if got := spearman(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("spearman(%v, %v) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestReplayReportsFidelity: a run of a Rumen trace reports trace_fidelity
// over its jobs, and task times from the trace make it closer than the
// default 8 MiB/s rates do.
func TestReplayReportsFidelity(t *testing.T) {
	run := func(extra string) float64 {
		c := writeScenario(t, "cluster: {topology: topology.data}\nworkload: {trace: job-trace.json"+extra+"}\npolicy: {name: fair}\n")
		res := mustRun(t, c, nil)
		f := res.Summary.TraceFidelity
		if f == nil || f.Jobs != 8 {
			t.Fatalf("trace_fidelity %+v; want it over the trace's 8 jobs", f)
		}
		return f.MedianRelError
	}
	fromTrace, fixed := run(""), run(", map_mbps: 1000, reduce_mbps: 1000")
	if !(fromTrace < fixed) {
		t.Errorf("median error %v with task times from the trace, %v with fixed 1000 MiB/s rates; want the trace's closer", fromTrace, fixed)
	}
}
