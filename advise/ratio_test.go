package advise

import "testing"

// TestRatioShowsADifferenceFromOne: a multiple shows two decimals, and
// up to four where two would round a difference from 1 away, so that a
// verdict never reads "Run x: 1.00x" for a real gain; an interval shows
// its three figures alike.
func TestRatioShowsADifferenceFromOne(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.89, "0.89"}, {1, "1.00"}, {1.013, "1.01"}, {0.997, "0.997"}, {1.0004, "1.0004"}, {0.99996, "1.0000"}, {1.006, "1.01"},
	} {
		if got := Ratio(tc.x); got != tc.want {
			t.Errorf("Ratio(%v) = %q; want %q", tc.x, got, tc.want)
		}
	}
	if m, lo, hi := ratios(0.998, 0.996, 1.0004); m != "0.9980" || lo != "0.9960" || hi != "1.0004" {
		t.Errorf("ratios(0.998, 0.996, 1.0004) = %s, %s, %s; want 0.9980, 0.9960, 1.0004: the figure that needs four decimals sets them", m, lo, hi)
	}
	if m, lo, hi := ratios(0.89, 0.86, 0.91); m != "0.89" || lo != "0.86" || hi != "0.91" {
		t.Errorf("ratios(0.89, 0.86, 0.91) = %s, %s, %s; want two decimals", m, lo, hi)
	}
}
