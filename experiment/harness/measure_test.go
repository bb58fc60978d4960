package harness

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/metrics"
)

// The measures of job records count what their names say: node-local
// launches over all launches, and the latest finish of a finished job
// (an unfinished one, Finish -1, is not a finish).
func TestJobRecordMeasures(t *testing.T) {
	jobs := []metrics.JobRecord{
		{Submit: 0, Finish: 1800, Locality: [3]int{4, 0, 0}},
		{Submit: 600, Finish: -1, Locality: [3]int{9, 0, 1}},
		{Submit: 1200, Finish: 2400, Locality: [3]int{0, 2, 0}},
	}
	tests := []struct {
		name      string
		got, want float64
		why       string
	}{
		{"node-local share", NodeLocalShare(jobs), 13.0 / 16, "13 node-local launches of 16"},
		{"node-local share of none", NodeLocalShare(nil), 0, "no launch: 0, not NaN"},
		{"last finish", LastFinish(jobs), 2400, "the unfinished job is left out"},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, want %v: %s", tc.name, tc.got, tc.want, tc.why)
		}
	}
	if got := LastFinish([]metrics.JobRecord{{Finish: -1}}); !math.IsNaN(got) {
		t.Errorf("last finish with none finished = %v, want NaN", got)
	}
}

// Slots busy weighs each timeseries row by the time to the next, the
// last by the sampling minute, and reads only the rows in the window.
func TestMapSlotsBusy(t *testing.T) {
	series := []metrics.TimeseriesRow{{T: 0, RunningMaps: 100}, {T: 60, RunningMaps: 4}, {T: 90, RunningMaps: 8}}
	in := func(t float64) bool { return t >= 60 }
	// 4 maps for 30 s, then 8 for the last minute, of 10 slots: 600 of 900 slot-s.
	if got := MapSlotsBusy(series, 10, in); math.Abs(got-600.0/900) > 1e-12 {
		t.Errorf("busy %v, want 600/900", got)
	}
	if got := MapSlotsBusy(series, 10, func(float64) bool { return false }); !math.IsNaN(got) {
		t.Errorf("busy with no row in the window = %v, want NaN", got)
	}
}

// The time breakdown's readers: a part's mean, NaN without a breakdown,
// and the rule under which most held time falls over runs, with its share.
func TestTimeBreakdownReaders(t *testing.T) {
	a := metrics.Summary{TimeBreakdown: &metrics.TimeBreakdown{MeanS: map[string]float64{"held": 2.5}, HeldByS: map[string]float64{"mts": 30, "rts": 10}}}
	b := metrics.Summary{TimeBreakdown: &metrics.TimeBreakdown{HeldByS: map[string]float64{"rts": 60}}}
	none := metrics.Summary{}
	if got := PathPart(&a, "held"); got != 2.5 {
		t.Errorf("held part %v, want 2.5", got)
	}
	if got := PathPart(&none, "held"); !math.IsNaN(got) {
		t.Errorf("held part without a breakdown %v, want NaN", got)
	}
	id := func(s *metrics.Summary) *metrics.Summary { return s }
	if got := HeldMostBy([]*metrics.Summary{&a, &b, &none}, id); got != "rts (70%)" {
		t.Errorf("held most by %q, want rts (70%%): 70 of 100 held seconds over the runs", got)
	}
	if got := HeldMostBy([]*metrics.Summary{&none}, id); got != "-" {
		t.Errorf("held most by with no held time %q, want -", got)
	}
	if got := Backups(&none); got != 0 {
		t.Errorf("backups without speculation %v, want 0", got)
	}
}
