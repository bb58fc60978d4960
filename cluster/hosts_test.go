package cluster

import (
	"strings"
	"testing"
)

// TestNewHostsUnevenRacks: racks of any size, numbered rack by rack in
// the order their first host is listed; per-node slots and links; a
// rack's own uplink.
func TestNewHostsUnevenRacks(t *testing.T) {
	nodes := []NodeSpec{
		{Name: "a1", Rack: "/A"}, {Name: "b1", Rack: "/B", MapSlots: 8, ReduceSlots: 4, NICMbps: 1000},
		{Name: "a2", Rack: "/A"}, {Name: "a3", Rack: "/A", CPUCores: 16, MemoryGB: 64},
	}
	topo, err := NewHosts(Config{Replication: 2}, nodes, map[string]float64{"/B": 2000})
	if err != nil {
		t.Fatal(err)
	}
	if topo.NumNodes() != 4 || topo.NumRacks() != 2 || topo.Uniform() {
		t.Fatalf("%d nodes, %d racks; want 4 on 2, not uniform", topo.NumNodes(), topo.NumRacks())
	}
	for _, tc := range []struct {
		host  string
		rack  RackID
		slots [3]int
		cpu   float64
	}{{"a1", 0, [3]int{4, 2, 0}, 4}, {"a2", 0, [3]int{4, 2, 0}, 4}, {"a3", 0, [3]int{4, 2, 0}, 16}, {"b1", 1, [3]int{8, 4, 0}, 4}} {
		n, ok := topo.NodeByName(tc.host)
		cpu, _ := topo.Resources(n)
		if !ok || topo.Rack(n) != tc.rack || topo.Slots(n) != tc.slots || cpu != tc.cpu || topo.NodeName(n) != tc.host {
			t.Errorf("%s: node %d on rack %d, slots %v, %v cores; want rack %d, %v, %v cores", tc.host, n, topo.Rack(n), topo.Slots(n), cpu, tc.rack, tc.slots, tc.cpu)
		}
	}
	if first, count := topo.RackNodes(0); first != 0 || count != 3 {
		t.Errorf("rack /A: first %d, %d nodes; want 0 and 3", first, count)
	}
	if got := topo.TotalSlots(); got != [3]int{20, 10, 0} || topo.MaxSlots() != [3]int{8, 4, 0} {
		t.Errorf("total %v, max %v; want [20 10 0] and [8 4 0]", got, topo.MaxSlots())
	}
	b1, _ := topo.NodeByName("b1")
	caps := topo.LinkCapacities()
	if caps[topo.NICUp(b1)] != 1000e6/8 || caps[topo.UplinkUp(1)] != 2000e6/8 || caps[topo.UplinkUp(0)] != DefaultRackUplinkMbps*1e6/8 {
		t.Errorf("b1's NIC %v, rack /B's uplink %v, /A's %v B/s; want 1000 Mbit/s, 2000 Mbit/s and the default", caps[topo.NICUp(b1)], caps[topo.UplinkUp(1)], caps[topo.UplinkUp(0)])
	}
	// Placement keeps Hadoop's rule on uneven racks: no two replicas of a
	// block on one node, the second off the first's rack.
	f := PlaceInput(topo, 1, "job", 50)
	for i := 0; i < f.Blocks; i++ {
		r := f.BlockReplicas(i)
		if len(r) != 2 || r[0] == r[1] || topo.Rack(r[0]) == topo.Rack(r[1]) {
			t.Fatalf("block %d on %v; want two nodes on two racks", i, r)
		}
	}
}

func TestNewHostsRefuses(t *testing.T) {
	for _, tc := range []struct {
		nodes   []NodeSpec
		uplinks map[string]float64
		want    string
	}{
		{nil, nil, "without hosts"},
		{[]NodeSpec{{Name: "a", Rack: "/r"}, {Name: "a", Rack: "/r"}, {Name: "b", Rack: "/r"}}, nil, "listed twice"},
		{[]NodeSpec{{Name: "a", Rack: "/r"}}, nil, "replication"},
		{[]NodeSpec{{Name: "a", Rack: "/r"}, {Name: "b", Rack: "/r"}, {Name: "c", Rack: "/r", NICMbps: -1}}, nil, "nic_mbps"},
		{[]NodeSpec{{Name: "a", Rack: "/r"}, {Name: "b", Rack: "/r"}, {Name: "c", Rack: "/r"}}, map[string]float64{"/x": 10}, "no host is on"},
		{[]NodeSpec{{Name: "a", Rack: "/r"}, {Name: "b", Rack: "/r"}, {Name: "c", Rack: "/r", Containers: 4}}, nil, "another model"},
	} {
		if _, err := NewHosts(Config{}, tc.nodes, tc.uplinks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v; want one saying %q", tc.nodes, err, tc.want)
		}
	}
}

func TestApplyGroups(t *testing.T) {
	nodes := UniformHosts(Config{Racks: 2, NodesPerRack: 2})
	if len(nodes) != 4 || nodes[3].Name != "r1n1" || nodes[3].Rack != "/rack1" {
		t.Fatalf("uniform hosts %v; want r0n0..r1n1 on /rack0, /rack1", nodes)
	}
	err := ApplyGroups(Config{}, nodes, []NodeGroup{{Hosts: "r0n*", MapSlots: 8, NICMbps: 1000}, {Hosts: "r0n0", Containers: 1}, {Hosts: "r1n1", DiskMBps: 100}})
	if err == nil || !strings.Contains(err.Error(), "node_groups[1]") {
		t.Errorf("a group every node of which an earlier group takes: %v; want an error naming node_groups[1]", err)
	}
	nodes = UniformHosts(Config{Racks: 2, NodesPerRack: 2})
	if err := ApplyGroups(Config{}, nodes, []NodeGroup{{Hosts: "r0n*", MapSlots: 8, NICMbps: 1000}, {Hosts: "r1n1", DiskMBps: 100}}); err != nil {
		t.Fatal(err)
	}
	if n := nodes[0]; n.MapSlots != 8 || n.ReduceSlots != DefaultReduceSlots || n.NICMbps != 1000 {
		t.Errorf("r0n0 %+v; want 8 map slots, the default reduce slots, a 1000 Mbit/s NIC", n)
	}
	if n := nodes[3]; n.DiskMBps != 100 || n.MapSlots != 0 {
		t.Errorf("r1n1 %+v; want a 100 MB/s disk and the cluster's slots", n)
	}
	if err := ApplyGroups(Config{}, nodes, []NodeGroup{{Hosts: "[", MapSlots: 1}}); err == nil || !strings.Contains(err.Error(), "not a pattern") {
		t.Errorf("a bad pattern: %v; want an error", err)
	}
}
