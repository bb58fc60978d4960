package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sim"
)

// TestPerfReportCarriesEveryCounter checks that perf.json reports each of
// the run's counters under its own key: a user reads what a run's cost
// grew with from there.
func TestPerfReportCarriesEveryCounter(t *testing.T) {
	st := sim.Stats{Events: 11, Flows: 12, Network: network.Stats{
		Solves: 13, Provisional: 14, HandOffs: 15, PeakFlows: 16,
	}}
	var cost metrics.Latency
	cost.Add(2 * time.Microsecond)
	b, err := json.Marshal(perfReport("fair", &cost, st, 3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want float64
	}{
		{"events", 11}, {"flows", 12}, {"network_solves", 13},
		{"network_provisional_changes", 14}, {"network_hand_offs", 15},
		{"peak_concurrent_flows", 16}, {"assign_calls", 1}, {"wall_s", 3},
	} {
		if v, ok := got[tc.key].(float64); !ok || v != tc.want {
			t.Errorf("perf.json %q = %v, want %v from the run's stats", tc.key, got[tc.key], tc.want)
		}
	}
}
