package probe

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/experiment/harness"
)

// Map times pooled over runs print by reach, a dash (an empty CSV cell)
// where no map read so, and only the reaches asked for in the table.
func TestByReachPoolsAndPrints(t *testing.T) {
	var run1, run2 [3]harness.Stat
	run1[0].Add(10)
	run1[0].Add(20)
	run2[0].Add(30)
	run2[2].Add(50)
	var d ByReach
	d.Add(run1)
	d.Add(run2)
	if got := d.Text(3); got != "20.0 / - / 50.0" {
		t.Errorf("text %q, want 20.0 / - / 50.0: node-local pooled (10, 20, 30), none rack-local", got)
	}
	if got := d.Text(2); got != "20.0 / -" {
		t.Errorf("two reaches %q, want 20.0 / -", got)
	}
	if got := d.CSV(); !slices.Equal(got, []string{"20.000", "", "50.000"}) {
		t.Errorf("cells %v, want 20.000, empty, 50.000", got)
	}
}

// Hotspot occurrences fall in the fifth of the run they happen in; the
// run's end is the last fifth's, and a run of no length puts all in the
// first.
func TestHotWatchFifths(t *testing.T) {
	h := &HotWatch{Times: []float64{0, 19, 20, 99, 100}}
	if got, want := h.Fifths(100), [5]int{2, 1, 0, 0, 2}; got != want {
		t.Errorf("fifths %v, want %v", got, want)
	}
	if got, want := h.Fifths(0), [5]int{5, 0, 0, 0, 0}; got != want {
		t.Errorf("fifths of a run of no length %v, want %v", got, want)
	}
}
