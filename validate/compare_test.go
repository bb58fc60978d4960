package validate

import (
	"math"
	"testing"
)

func TestCompareIsRelativeToTheTestbed(t *testing.T) {
	sim := Outcome{MeanTurnaround: 11, P95Turnaround: 30, MakespanS: 95, CrossRackBytes: 0, Turnaround: map[int]float64{0: 1, 1: 2, 2: 3, 9: 7}}
	tb := Outcome{MeanTurnaround: 10, P95Turnaround: 40, MakespanS: 100, CrossRackBytes: 0, Turnaround: map[int]float64{0: 5, 1: 6, 2: 7}}
	e := Compare(sim, tb)
	if e.MeanTurnaround != 0.1 || e.P95Turnaround != -0.25 || e.Makespan != -0.05 || e.CrossRackBytes != 0 {
		t.Errorf("errors %+v; want +10%%, -25%%, -5%% and 0 (both zero)", e)
	}
	if e.SpearmanTurnaround != 1 {
		t.Errorf("rank correlation %v over the jobs in both runs; want 1 (job 9 finished in one only)", e.SpearmanTurnaround)
	}
}

func TestEffectsAgreeBySignAndTwoStandardErrors(t *testing.T) {
	tb := Summarize([]Ratios{{0.8, 1.1, 1}, {0.9, 1.2, 1}, {0.7, 1.0, 1}})
	// mean turnaround 0.8, SE 0.1/sqrt(3) = 0.0577; throughput 1.1, same SE.
	if math.Abs(tb.MeanTurnaround-0.8) > 1e-12 || math.Abs(tb.SE.MeanTurnaround-0.1/math.Sqrt(3)) > 1e-12 {
		t.Fatalf("testbed effect %+v; want mean 0.8, SE 0.0577", tb)
	}
	for _, tc := range []struct {
		name string
		sim  Ratios
		want [3]Agreement
	}{
		{"close", Ratios{0.85, 1.15, 1}, [3]Agreement{{true, true, false}, {true, true, false}, {true, true, false}}},
		{"right sign, too far", Ratios{0.6, 1.5, 1}, [3]Agreement{{true, false, false}, {true, false, false}, {true, true, false}}},
		{"wrong sign", Ratios{1.05, 0.95, 1}, [3]Agreement{{false, false, false}, {false, false, false}, {true, true, false}}},
	} {
		if got := Agree(EffectStats{Ratios: tc.sim}, tb); got != tc.want {
			t.Errorf("%s: agreement %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// One testbed seed has no standard error: even an identical simulated
// effect is reported as untested against the spread, not as agreeing
// (the old 0 SE made "within 2 SE" mean "exactly equal").
func TestOneTestbedSeedLeavesTheSpreadUntested(t *testing.T) {
	tb := Summarize([]Ratios{{0.8, 1.1, 1}})
	for _, tc := range []struct {
		name string
		sim  Ratios
	}{
		{"identical", Ratios{0.8, 1.1, 1}},
		{"close", Ratios{0.81, 1.09, 1}},
	} {
		for k, a := range Agree(EffectStats{Ratios: tc.sim, Seeds: 1}, tb) {
			if !a.OneSeed || a.WithinTwoSE || !a.SameSign {
				t.Errorf("%s figure %d: %+v; want same sign, one_seed set and within_two_se untested (false)", tc.name, k, a)
			}
		}
	}
}
