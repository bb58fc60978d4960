package sim

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// TestReadSourceFollowsTheClustersReplicaChoice: the engine reads as the
// cluster's replica choice says (cluster.ReadReplica), passing over dead
// nodes as that choice does. Three racks of three nodes; the block's
// replicas are on nodes 0, 3 and 4; the map runs on node 5, in rack 1.
func TestReadSourceFollowsTheClustersReplicaChoice(t *testing.T) {
	reps := []cluster.NodeID{0, 3, 4}
	tests := []struct {
		name   string
		choice cluster.ReplicaChoice
		dead   cluster.NodeID // -1: none
		want   map[cluster.NodeID]bool
	}{
		{"nearest-random: either rack-local replica", cluster.NearestRandom, -1, map[cluster.NodeID]bool{3: true, 4: true}},
		{"hadoop-0.20: always the rack's first listed", cluster.Hadoop020, -1, map[cluster.NodeID]bool{3: true}},
		{"nearest-random, node 3 dead: the other rack-local", cluster.NearestRandom, 3, map[cluster.NodeID]bool{4: true}},
		{"hadoop-0.20, node 3 dead: the next listed, off-rack 0", cluster.Hadoop020, 3, map[cluster.NodeID]bool{0: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := cluster.New(cluster.Config{Racks: 3, NodesPerRack: 3, ReplicaChoice: tc.choice})
			if err != nil {
				t.Fatal(err)
			}
			jobs := []workload.Job{{Name: "j", Pool: "p", NumMaps: 1, NumReduces: 1, Weight: 1, Profile: workload.DefaultProfile()}}
			e, err := New(Params{}, topo, jobs, sched.NewFIFO(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if tc.dead >= 0 {
				e.jt.NodeDown(tc.dead)
				e.downCount++
			}
			got := map[cluster.NodeID]bool{}
			for range 200 {
				got[e.readSource(reps, 5)] = true
			}
			if len(got) != len(tc.want) {
				t.Fatalf("200 reads from node 5 went to %v, want %v", got, tc.want)
			}
			for n := range got {
				if !tc.want[n] {
					t.Fatalf("200 reads from node 5 went to %v, want %v", got, tc.want)
				}
			}
		})
	}
}
