package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// TestNetSat: a rack is saturated when its uplink utilisation over the
// monitor's last period, in either direction, exceeds the threshold
// (section 3.1: "when the ratio exceeds the threshold").
func TestNetSat(t *testing.T) {
	cases := []struct {
		name      string
		up, down  float64
		threshold float64
		want      bool
	}{
		{"idle", 0, 0, 0.8, false},
		{"up above", 0.85, 0.1, 0.8, true},
		{"down above", 0.1, 0.85, 0.8, true},
		{"at the threshold is not above it", 0.8, 0.8, 0.8, false},
		{"both high but below", 0.79, 0.79, 0.8, false},
		{"lower threshold", 0.5, 0, 0.4, true},
	}
	topo := swTopo(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			c.util[1], c.down[1] = tc.up, tc.down
			if got := (sched.NetSat{Threshold: tc.threshold}).Saturated(c, 1); got != tc.want {
				t.Errorf("Saturated(up %v, down %v, threshold %v) = %v, want %v", tc.up, tc.down, tc.threshold, got, tc.want)
			}
			if (sched.NetSat{Threshold: tc.threshold}).Saturated(c, 0) {
				t.Errorf("rack 0 is idle but reads saturated: the flag must be per rack")
			}
		})
	}
}

// TestNetSatIsPerRack: NASS reads the offering node's rack. With rack 0
// saturated, an offer on rack 0 gets a map first (line 6) and one on rack
// 1 a reduce first (line 15).
func TestNetSatIsPerRack(t *testing.T) {
	for _, tc := range []struct {
		node cluster.NodeID
		rule string
	}{{0, "nass-6"}, {3, "nass-15"}} {
		topo := swTopo(t)
		c := newSWCluster(topo)
		c.util[0] = 0.95
		pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
		// A light reduce, and a map whose input is on the other rack, so
		// the map is line 6 (saturated) or 18 and the reduce 7 or 15.
		blocks := []cluster.NodeID{4, 5}
		if tc.node == 3 {
			blocks = []cluster.NodeID{1, 2}
		}
		addJobs(t, c, c.fakeCluster, pol, lightRed(t, topo, 0), swJob(t, topo, 1, "u", 0.1, blocks))
		d, ok := pol.Assign(c, sched.Offer{Node: tc.node, Slot: sched.AnySlot})
		if !ok || d.Rule != tc.rule {
			t.Errorf("offer on node %d (rack %d, rack 0 at 95%%): rule %q, want %q", tc.node, topo.Rack(tc.node), d.Rule, tc.rule)
		}
	}
}
