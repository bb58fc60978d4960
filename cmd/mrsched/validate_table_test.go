package main

import (
	"slices"
	"strings"
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

// The time table sets the simulator's parts beside the testbed's, per
// policy, averaged over seeds: the shuffle's parts are one row (the
// testbed does not tell which link bounded a fetch), parts neither side
// spent time in are left out, and runs that recorded no time leave the
// table out altogether.
func TestValidateTimeTableSetsPartsSideBySide(t *testing.T) {
	run := func(policy string, sim, tb map[string]float64) validate.Run {
		return validate.Run{Policy: policy, Sim: validate.Outcome{Time: sim}, Testbed: validate.Outcome{Time: tb}}
	}
	rep := &validate.Report{Runs: []validate.Run{
		run("fair", map[string]float64{"startup": 1, "shuffle_nic": 2, "shuffle_uplink": 4, "held": 0},
			map[string]float64{"startup": 3, "shuffle_nic": 5}),
		run("fair", map[string]float64{"startup": 3, "shuffle_nic": 2},
			map[string]float64{"startup": 5, "shuffle_nic": 7}),
		run("nas", map[string]float64{"queued": 1}, map[string]float64{"queued": 2}),
	}}
	tb := validateTimeTable(rep)
	if tb == nil {
		t.Fatal("no time table, though every run recorded its time")
	}
	want := [][]string{
		// fair: startup (1+3)/2 = 2 against (3+5)/2 = 4; shuffle (6+2)/2 = 4
		// against (5+7)/2 = 6; nas: queued 1 against 2.
		{"queued", "0.00", "0.00", "+0.00", "1.00", "2.00", "-1.00"},
		{"startup", "2.00", "4.00", "-2.00", "0.00", "0.00", "+0.00"},
		{"shuffle", "4.00", "6.00", "-2.00", "0.00", "0.00", "+0.00"},
		{"turnaround", "6.00", "10.00", "-4.00", "1.00", "2.00", "-1.00"},
	}
	if len(tb.Rows) != len(want) {
		t.Fatalf("rows %v, want %v: one row a part either side spent time in, then the total", tb.Rows, want)
	}
	for i := range want {
		if !slices.Equal(tb.Rows[i], want[i]) {
			t.Errorf("row %d = %v, want %v", i, tb.Rows[i], want[i])
		}
	}
	// fair's parts are over two seeds, nas's over one: the note says so.
	if !strings.Contains(tb.Notes[0], "1 to 2 seeds") {
		t.Errorf("note %q; want it to say the means are over 1 to 2 seeds, as the policies' runs differ", tb.Notes[0])
	}
	rep.Runs = []validate.Run{run("fair", map[string]float64{"startup": 1}, nil)}
	if tb := validateTimeTable(rep); tb != nil {
		t.Errorf("a time table from runs whose testbed side recorded none: %v", tb.Rows)
	}
}
