package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/sched"
)

func TestNewPolicyShuffleWatcher(t *testing.T) {
	checkParamsCases(t, []paramsCase{
		{name: "sw-fair with defaults", policy: "sw-fair"},
		{name: "sw-drf with defaults", policy: "sw-drf"},
		{name: "sw-relaxed with defaults", policy: "sw-relaxed"},
		{name: "sw-delay with defaults", policy: "sw-delay"},
		{name: "sw-nass with defaults", policy: "sw-nass"},
		{name: "sw-nass-sarp with defaults", policy: "sw-nass-sarp"},
		{name: "sw-fair takes pools and thresholds in one mapping", policy: "sw-fair",
			params: "pools:\n  - name: prod\n    weight: 2\nnw_saturation_threshold: 0.9\nmap_completion_threshold: 0.2\nstarvation_window_s: 0\nknown_ratios: true\n"},
		{name: "sw-relaxed with its interval", policy: "sw-relaxed", params: "relaxed_fairness_s: 10\n"},
		{name: "sw-delay with delay's waits", policy: "sw-delay", params: "t1_s: 5\nt2_s: 5\nnw_saturation_threshold: 0.75\n"},
		{name: "sw-drf with weights", policy: "sw-drf", params: "weights: {user0: 2}\nknown_ratios: true\n"},
		{name: "unknown parameter", policy: "sw-fair", params: "netsat_period_s: 5\n", wantErr: []string{"policy sw-fair", "netsat_period_s"}},
		{name: "sw-fair is strict: no relaxation parameter", policy: "sw-fair", params: "relaxed_fairness_s: 5\n", wantErr: []string{"relaxed_fairness_s"}},
		{name: "negative threshold", policy: "sw-fair", params: "nw_saturation_threshold: -0.1\n", wantErr: []string{"policy sw-fair", "nw_saturation_threshold"}},
		{name: "completion above 1", policy: "sw-nass-sarp", params: "map_completion_threshold: 1.5\n", wantErr: []string{"map_completion_threshold", "0..1"}},
		{name: "negative window", policy: "sw-drf", params: "starvation_window_s: -1\n", wantErr: []string{"policy sw-drf", "starvation_window_s"}},
		{name: "sw-nass has no SARP threshold", policy: "sw-nass", params: "map_completion_threshold: 0.2\n", wantErr: []string{"policy sw-nass", "map_completion_threshold", "SARP"}},
		{name: "negative relaxation", policy: "sw-relaxed", params: "relaxed_fairness_s: -5\n", wantErr: []string{"policy sw-relaxed", "relaxed_fairness_s"}},
		{name: "sw-drf has no pools", policy: "sw-drf", params: "pools: []\n", wantErr: []string{"policy sw-drf", "pools"}},
		{name: "sw-delay checks delay's waits", policy: "sw-delay", params: "t1_s: -1\n", wantErr: []string{"policy sw-delay", "t1_s"}},
	})
}

// TestNewPolicySWUsesDecodedThreshold: a rack at 90% is saturated under
// the default threshold (80%), so NASS takes the map first (line 6); with
// nw_saturation_threshold 0.95 it is not, and the reduce goes first (15).
func TestNewPolicySWUsesDecodedThreshold(t *testing.T) {
	for _, tc := range []struct{ params, rule string }{
		{"known_ratios: true\n", "nass-6"},
		{"known_ratios: true\nnw_saturation_threshold: 0.95\n", "nass-15"},
	} {
		p, err := sched.NewPolicy("sw-fair", yamlDecode(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		topo := swTopo(t)
		c := newSWCluster(topo)
		c.util[0] = 0.9
		addJobs(t, c, c.fakeCluster, p, lightRed(t, topo, 0), remoteOnly(t, topo, 1))
		if d, ok := p.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot}); !ok || d.Rule != tc.rule {
			t.Errorf("sw-fair with %q, rack at 90%%: rule %q, want %q", tc.params, d.Rule, tc.rule)
		}
	}
}
