package metrics

import (
	"math"
	"testing"
)

// MeanSE is what every multi-seed table prints: the standard error is the
// sample standard deviation (n-1) over sqrt(n), and a single draw has none.
func TestMeanSEOverSeeds(t *testing.T) {
	tests := []struct {
		name     string
		v        []float64
		mean, se float64
	}{
		{"three seeds: sd 1, se 1/sqrt(3)", []float64{1, 2, 3}, 2, 1 / math.Sqrt(3)},
		{"equal draws have no spread", []float64{5, 5}, 5, 0},
		{"one draw has no standard error", []float64{4}, 4, math.NaN()},
		{"no draws have no mean", nil, math.NaN(), math.NaN()},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for _, tc := range tests {
		m, se := MeanSE(tc.v)
		if !same(m, tc.mean) || !same(se, tc.se) {
			t.Errorf("%s: MeanSE(%v) = %v, %v; want %v, %v", tc.name, tc.v, m, se, tc.mean, tc.se)
		}
	}
}
