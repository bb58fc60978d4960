package sched_test

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// ShuffleWatcherOf finds the placer inside every sw-* policy, including
// sw-drf's ResourceFit stage, and nothing inside other policies: the
// experiments read SAMP's and SARP's choices through it.
func TestShuffleWatcherOfFindsThePlacer(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   bool
	}{
		{"sw-fair", true}, {"sw-nass", true}, {"sw-nass-sarp", true}, {"sw-relaxed", true},
		{"sw-delay", true}, {"sw-drf", true}, {"fair", false}, {"delay", false}, {"drf", false},
	} {
		p, err := sched.NewPolicy(tc.policy, func(any) error { return nil })
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		if sw, ok := sched.ShuffleWatcherOf(p); ok != tc.want || (ok && sw == nil) {
			t.Errorf("ShuffleWatcherOf(%s) = %v, %v; want found=%v (only sw-* policies hold a ShuffleWatcher)", tc.policy, sw, ok, tc.want)
		}
	}
}

// spreadInput is a 10-rack cluster (2 nodes a rack, replication 3) and 20
// blocks laid out as HDFS lays out a large file: block i has one replica on
// rack i%10 and two on rack (i+1)%10, so every rack holds 4 of the 20
// blocks (20%) and every block is on 2 of the 10 racks.
func spreadInput(t *testing.T) (*cluster.Topology, [][]cluster.NodeID) {
	topo := mustTopo(t, cluster.Config{Racks: 10, NodesPerRack: 2, MapSlots: 4, ReduceSlots: 2, Replication: 3})
	blocks := make([][]cluster.NodeID, 20)
	for i := range blocks {
		r, s := i%10, (i+1)%10
		blocks[i] = []cluster.NodeID{cluster.NodeID(2 * r), cluster.NodeID(2 * s), cluster.NodeID(2*s + 1)}
	}
	return topo, blocks
}

// Fig. 4's estimate on input spread over every rack. One rack reads 80% of
// the input remotely and keeps the whole shuffle in the rack; adding a
// second still reads 70% remotely and sends about half the shuffle across,
// so with ShuffleInputRatio 1.0 (every job at submission, section 3.1) the
// traffic rises at the second rack and PreferredMapRacks is one rack,
// whatever the job's real ratio. A job known to be shuffle-light (ratio
// 0.001) keeps adding racks until its input is all local. This is the
// arithmetic behind "PreferredMapRacks: 1.0" in shufflewatcher/placement.
func TestSAMPOnInputSpreadOverEveryRack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		known   bool
		ratio   float64
		minRack int
		maxRack int
	}{
		{"ratio 1.0 at submission, any job", false, 0.001, 1, 1},
		{"known shuffle-heavy ratio 2.5", true, 2.5, 1, 1},
		{"known shuffle-light ratio 0.001", true, 0.001, 9, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, blocks := spreadInput(t)
			c := newSWCluster(topo)
			pol, sw := swPolicy(t, sched.SWParams{KnownRatios: tc.known}, sched.SWOptions{SAMP: true, SARP: true})
			j := swJob(t, topo, 0, "u", tc.ratio, blocks...)
			j.NumReduces = 10
			addJobs(t, c, c.fakeCluster, pol, j)
			got := sw.PreferredMapRacks(j)
			if len(got) < tc.minRack || len(got) > tc.maxRack {
				t.Errorf("PreferredMapRacks = %v (%d racks), want %d-%d: remote map input (80%% of it with one rack) against cross-rack shuffle (ratio %v x (k-1)/k)",
					got, len(got), tc.minRack, tc.maxRack, sw.ShuffleInputRatio(j))
			}
			for r := range topo.NumRacks() {
				rk := cluster.RackID(r)
				if sw.PrefersMapRack(j, rk) != slices.Contains(got, rk) {
					t.Errorf("PrefersMapRack(rack %d) = %v, disagrees with PreferredMapRacks %v", r, !slices.Contains(got, rk), got)
				}
			}
		})
	}
}

// SARPWants is false until the job's reduces are enabled (SARP has not run),
// then true on a rack while fewer reduces were launched there than SARP
// prefers.
func TestSARPWantsFollowsPreferredReduces(t *testing.T) {
	topo := swTopo(t)
	c := newSWCluster(topo)
	pol, sw := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SARP: true})
	j := swJob(t, topo, 0, "u", 2, []cluster.NodeID{0, 1}, []cluster.NodeID{1, 2})
	addJobs(t, c, c.fakeCluster, pol, j)
	if sw.SARPWants(j, 0) {
		t.Fatalf("SARPWants before the job's reduces are enabled, want false: SARP runs at enabling")
	}
	finishMaps(j, 100, 0) // all map output on rack 0
	d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot})
	if !ok || d.Kind != sched.ReduceTask {
		t.Fatalf("offer on rack 0 after the maps: got %+v, %v; want a reduce", d, ok)
	}
	if pref := sw.PreferredReducesPerRack(j); !slices.Equal(pref, []int{2, 0}) {
		t.Fatalf("PreferredReducesPerRack = %v, want [2 0]: all the map output is on rack 0", pref)
	}
	if !sw.SARPWants(j, 0) || sw.SARPWants(j, 1) {
		t.Errorf("SARPWants(rack 0, rack 1) = %v, %v; want true, false", sw.SARPWants(j, 0), sw.SARPWants(j, 1))
	}
	launch(t, c, pol, d, 0)
	launch(t, c, pol, sched.Decision{Job: j, Kind: sched.ReduceTask}, 1)
	if sw.SARPWants(j, 0) {
		t.Errorf("SARPWants(rack 0) after both preferred reduces launched there, want false")
	}
}
