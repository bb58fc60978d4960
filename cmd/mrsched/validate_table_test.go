package main

import (
	"testing"

	"github.com/mrsched/mrsched/validate"
)

// The effects table tells a one-seed validation from a failed one: with
// one seed there is no standard error, so "within 2 SE" is untested and
// the ratios are printed without a "± 0.000" that would claim no spread.
func TestValidateTableMarksOneSeedEffectsUntested(t *testing.T) {
	for _, tc := range []struct {
		name       string
		seeds      [][2]validate.Ratios // per seed: simulator, testbed
		wantWithin string
		wantSim    string
	}{
		{"one seed", [][2]validate.Ratios{{turnaround(0.9), turnaround(0.9)}}, "untested (1 seed)", "0.900"},
		{"two seeds", [][2]validate.Ratios{{turnaround(0.9), turnaround(0.9)}, {turnaround(0.8), turnaround(0.8)}}, "yes", "0.850 ± 0.050"},
	} {
		var sr, tr []validate.Ratios
		for _, s := range tc.seeds {
			sr, tr = append(sr, s[0]), append(tr, s[1])
		}
		e := validate.Effect{Policy: "delay", Baseline: "fair", Sim: validate.Summarize(sr), Testbed: validate.Summarize(tr)}
		e.Agree = validate.Agree(e.Sim, e.Testbed)
		tables := validateTables(&validate.Report{Effects: []validate.Effect{e}})
		row := tables[1].Rows[0] // mean turnaround
		if got := row[5]; got != tc.wantWithin {
			t.Errorf("%s: within 2 SE reads %q, want %q", tc.name, got, tc.wantWithin)
		}
		if got := row[2]; got != tc.wantSim {
			t.Errorf("%s: simulator cell %q, want %q", tc.name, got, tc.wantSim)
		}
	}
}

// turnaround is an effect on mean turnaround alone (throughput and
// cross-rack bytes unchanged).
func turnaround(r float64) validate.Ratios {
	return validate.Ratios{MeanTurnaround: r, Throughput: 1, CrossRack: 1}
}
