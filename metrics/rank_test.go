package metrics

import (
	"math"
	"testing"
)

func TestSpearmanOfKnownRankings(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// ranks x 1,2,3,4 and y 2,1,4,3: 1 - 6*4/(4*15) = 0.6
		{"two swaps", []float64{1, 2, 3, 4}, []float64{2, 1, 4, 3}, 0.6},
		// ties share their mean rank: x ranks 1.5,1.5,3; y 1,2,3
		{"a tie", []float64{5, 5, 7}, []float64{1, 2, 3}, math.Sqrt(3) / 2},
	} {
		if got := Spearman(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Spearman = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !math.IsNaN(Spearman([]float64{1}, []float64{2})) || !math.IsNaN(Spearman([]float64{1, 1}, []float64{2, 3})) {
		t.Error("one pair, or a constant side, has no rank correlation; want NaN")
	}
}
