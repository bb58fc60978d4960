package sweep

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/metrics"
)

func TestParseEffectPairs(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "nas/delay", want: "nas/delay"},
		{in: "nas/delay, sw-fair/fair", want: "nas/delay sw-fair/fair"},
		{in: "nas", err: "want policy/baseline"},
		{in: "nas/", err: "want policy/baseline"},
		{in: "a/b/c", err: "want policy/baseline"},
		{in: "fair/fair", err: "its own baseline"},
		{in: "nas/delay,nas/delay", err: "given twice"},
	} {
		got, err := ParseEffectPairs(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || strings.Join(s, " ") != tc.want {
			t.Errorf("%q: %v, %v; want %s", tc.in, s, err, tc.want)
		}
	}
}

// TestEffectsPairSeeds: an effect is the policy's figure over its
// baseline's on the same cell and seed, and a cell's shift is its ratio
// minus the first cell's on the same seed; both checked against the runs'
// summaries by hand.
func TestEffectsPairSeeds(t *testing.T) {
	s, c := collectSmall(t)
	if _, err := c.Effects([]EffectPair{{"nas", "fair"}}); err == nil || !strings.Contains(err.Error(), "ran no nas") {
		t.Errorf("an effect of a policy the sweep did not run: %v, want an error naming it", err)
	}
	effs, err := c.Effects([]EffectPair{{"delay", "fair"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(effs) != 2 {
		t.Fatalf("%d effects, want one a cell (2)", len(effs))
	}
	// Runs: cell (uplink 250, 1000) slowest, then policy (fair, delay), then seed (1, 2).
	mean := func(i int) float64 {
		b, _ := os.ReadFile(filepath.Join(s.RunDir(i), "summary.json"))
		var sum metrics.Summary
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		return sum.Turnaround.Mean
	}
	ratio := func(cell, seed int) float64 { return mean(cell*4+2+seed) / mean(cell*4+seed) }
	for cell := range 2 {
		for seed := range 2 {
			if got, want := effs[cell].Ratios[0][seed], ratio(cell, seed); math.Abs(got-want) > 1e-12 {
				t.Errorf("cell %d seed %d: mean turnaround ratio %v, want delay's over fair's, %v", cell, seed+1, got, want)
			}
		}
	}
	d0, d1 := ratio(1, 0)-ratio(0, 0), ratio(1, 1)-ratio(0, 1)
	wantShift, wantSE := (d0+d1)/2, math.Abs(d0-d1)/2
	gotShift, gotSE, n := shift(effs[1], effs[0], 0)
	if n != 2 || math.Abs(gotShift-wantShift) > 1e-12 || math.Abs(gotSE-wantSE) > 1e-12 {
		t.Errorf("shift %v ± %v over %d seeds, want %v ± %v over 2", gotShift, gotSE, n, wantShift, wantSE)
	}
	_, csv := c.EffectsTables(effs)
	col := map[string]int{}
	for i, h := range csv.Headers {
		col[h] = i
	}
	if got := csv.Rows[0][col["mean_turnaround_ratio_shift_mean"]]; got != "" {
		t.Errorf("the first cell's shift from itself reads %q, want empty", got)
	}
	got, _ := strconv.ParseFloat(csv.Rows[1][col["mean_turnaround_ratio_shift_mean"]], 64)
	if math.Abs(got-wantShift) > 1e-12 {
		t.Errorf("CSV shift %v, want %v", got, wantShift)
	}
}
