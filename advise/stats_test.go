package advise

import (
	"math"
	"testing"
)

// The t quantiles the intervals use, against the published table
// (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2, upper critical values).
func TestTQuantileMatchesTable(t *testing.T) {
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 3, 3.182}, {0.975, 5, 2.571},
		{0.975, 10, 2.228}, {0.975, 30, 2.042}, {0.95, 4, 2.132}, {0.995, 7, 3.499},
		{0.975, 1e8, 1.960}, {0.025, 10, -2.228},
	} {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > 0.0015 {
			t.Errorf("TQuantile(%v, %v) = %.4f, want %.3f (the t table's value)", c.p, c.df, got, c.want)
		}
	}
}

func TestPairedIntervals(t *testing.T) {
	a := []float64{10, 12, 14, 16}
	b := []float64{9, 11, 13, 15} // a is b + 1 on every seed: no noise in the difference
	d := PairedDiff(a, b, 0.95)
	if d.Mean != 1 || d.Lo != 1 || d.Hi != 1 || !d.Excludes(0) {
		t.Errorf("PairedDiff of a constant offset = %+v, want mean, lo and hi 1 and 0 excluded: pairing removes the seeds' spread", d)
	}
	same := PairedDiff(a, a, 0.95)
	if same.Excludes(0) {
		t.Errorf("PairedDiff of a candidate with itself = %+v, want 0 inside: identical runs are never separated", same)
	}
	one := PairedDiff([]float64{5}, []float64{1}, 0.95)
	if one.Known() || one.Excludes(0) {
		t.Errorf("PairedDiff of one seed = %+v, want no bounds: one draw's difference is never a finding", one)
	}
	r := PairedRatio([]float64{8, 9}, []float64{10, 0}, 0.95)
	if r.N != 1 || r.Mean != 0.8 {
		t.Errorf("PairedRatio with a zero base = %+v, want the zero seed left out (n 1, mean 0.8)", r)
	}
}
