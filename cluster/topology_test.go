package cluster

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/network"
)

func mustTopology(t *testing.T, cfg Config) *Topology {
	t.Helper()
	topo, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return topo
}

func TestTopologyShape(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 3, NodesPerRack: 4})
	if got := topo.NumNodes(); got != 12 {
		t.Errorf("NumNodes = %d, want 12 (3 racks x 4 nodes)", got)
	}
	if got := topo.NumRacks(); got != 3 {
		t.Errorf("NumRacks = %d, want 3", got)
	}
	if topo.ContainerModel() {
		t.Errorf("ContainerModel = true for a config with no containers, want the default slot model")
	}
	if !mustTopology(t, Config{Containers: 6}).ContainerModel() {
		t.Errorf("ContainerModel = false with containers: 6, want true")
	}

	rackOf := []struct {
		node NodeID
		want RackID
	}{
		{0, 0}, {3, 0}, {4, 1}, {7, 1}, {8, 2}, {11, 2},
	}
	for _, tc := range rackOf {
		if got := topo.Rack(tc.node); got != tc.want {
			t.Errorf("Rack(%d) = %d, want %d: nodes are numbered rack by rack, 4 to a rack", tc.node, got, tc.want)
		}
	}
	for r := RackID(0); r < 3; r++ {
		first, count := topo.RackNodes(r)
		if first != NodeID(4*r) || count != 4 {
			t.Errorf("RackNodes(%d) = (%d, %d), want (%d, 4)", r, first, count, 4*r)
		}
		for n := first; n < first+NodeID(count); n++ {
			if topo.Rack(n) != r {
				t.Errorf("node %d listed by RackNodes(%d) reports Rack %d", n, r, topo.Rack(n))
			}
		}
	}
}

func TestLinkCapacitiesAreBytesPerSecond(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 3}) // defaults: 400 MB/s disk, 250 Mbps NIC, 500 Mbps uplink
	caps := topo.LinkCapacities()
	if got, want := len(caps), 6*3+2*2; got != want {
		t.Fatalf("len(LinkCapacities) = %d, want %d: 3 links a node (disk, NIC up, NIC down) + 2 a rack", got, want)
	}
	const (
		disk   = 400e6   // 400 MB/s, decimal megabytes
		nic    = 31.25e6 // 250 Mbps / 8
		uplink = 62.5e6  // 500 Mbps / 8
	)
	type link struct {
		name string
		id   network.LinkID
		want float64
	}
	var links []link
	for n := NodeID(0); n < 6; n++ {
		links = append(links,
			link{"disk", topo.DiskLink(n), disk},
			link{"NIC up", topo.NICUp(n), nic},
			link{"NIC down", topo.NICDown(n), nic})
	}
	for r := RackID(0); r < 2; r++ {
		links = append(links,
			link{"uplink up", topo.UplinkUp(r), uplink},
			link{"uplink down", topo.UplinkDown(r), uplink})
	}
	seen := map[network.LinkID]string{}
	for _, l := range links {
		if prev, dup := seen[l.id]; dup {
			t.Errorf("%s and %s share link id %d: every link must have its own id", prev, l.name, l.id)
		}
		seen[l.id] = l.name
		if int(l.id) < 0 || int(l.id) >= len(caps) {
			t.Errorf("%s has link id %d outside [0, %d)", l.name, l.id, len(caps))
			continue
		}
		if caps[l.id] != l.want {
			t.Errorf("capacity of %s (link %d) = %v B/s, want %v", l.name, l.id, caps[l.id], l.want)
		}
	}
	if len(seen) != len(caps) {
		t.Errorf("accessors name %d distinct links, want all %d", len(seen), len(caps))
	}
}

func TestLinkLayout(t *testing.T) {
	// The documented layout: node n owns 3n (disk), 3n+1 (NIC up), 3n+2
	// (NIC down); then rack r owns 3N+2r (uplink up) and 3N+2r+1 (down).
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 2}) // N = 4
	tests := []struct {
		name string
		got  network.LinkID
		want network.LinkID
	}{
		{"DiskLink(0)", topo.DiskLink(0), 0},
		{"NICUp(0)", topo.NICUp(0), 1},
		{"NICDown(0)", topo.NICDown(0), 2},
		{"DiskLink(3)", topo.DiskLink(3), 9},
		{"NICUp(3)", topo.NICUp(3), 10},
		{"NICDown(3)", topo.NICDown(3), 11},
		{"UplinkUp(0)", topo.UplinkUp(0), 12},
		{"UplinkDown(0)", topo.UplinkDown(0), 13},
		{"UplinkUp(1)", topo.UplinkUp(1), 14},
		{"UplinkDown(1)", topo.UplinkDown(1), 15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
			}
		})
	}
}

func TestPath(t *testing.T) {
	// 2 racks x 2 nodes: node n's disk 3n, NIC up 3n+1, NIC down 3n+2;
	// rack 0 uplink 12 up / 13 down, rack 1 uplink 14 up / 15 down.
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 2})
	tests := []struct {
		name                string
		src, dst            NodeID
		readDisk, writeDisk bool
		want                []network.LinkID
	}{
		{"node-local without disks crosses nothing", 1, 1, false, false, nil},
		{"node-local read crosses only the source disk", 1, 1, true, false, []network.LinkID{3}},
		{"node-local write crosses only the destination disk", 1, 1, false, true, []network.LinkID{3}},
		{"node-local read and write crosses the one disk once", 1, 1, true, true, []network.LinkID{3}},
		{"rack-local crosses both NICs", 0, 1, false, false, []network.LinkID{1, 5}},
		{"rack-local with disks adds source and destination disks", 0, 1, true, true, []network.LinkID{0, 1, 5, 3}},
		{"off-rack adds source uplink and destination downlink", 0, 3, false, false, []network.LinkID{1, 12, 15, 11}},
		{"off-rack the other way uses the other rack links", 3, 0, false, false, []network.LinkID{10, 14, 13, 2}},
		{"off-rack with disks", 0, 3, true, true, []network.LinkID{0, 1, 12, 15, 11, 9}},
		{"off-rack write only", 2, 1, false, true, []network.LinkID{7, 14, 13, 5, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := topo.Path(nil, tc.src, tc.dst, tc.readDisk, tc.writeDisk)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Path(%d->%d, read %v, write %v) = %v, want %v", tc.src, tc.dst, tc.readDisk, tc.writeDisk, got, tc.want)
			}
		})
	}
}

func TestPathAppendsToBuffer(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 2})
	buf := []network.LinkID{99}
	got := topo.Path(buf, 0, 1, false, false)
	if want := []network.LinkID{99, 1, 5}; !slices.Equal(got, want) {
		t.Errorf("Path(buf=[99], 0->1) = %v, want %v: Path appends, keeping what buf held", got, want)
	}
}

func TestReachOf(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 3})
	tests := []struct {
		src, dst NodeID
		want     Reach
		str      string
	}{
		{0, 0, NodeLocal, "node"},
		{0, 2, RackLocal, "rack"},
		{4, 3, RackLocal, "rack"},
		{2, 3, OffRack, "off"},
		{5, 0, OffRack, "off"},
	}
	for _, tc := range tests {
		got := topo.ReachOf(tc.src, tc.dst)
		if got != tc.want {
			t.Errorf("ReachOf(%d, %d) = %v, want %v (3 nodes a rack)", tc.src, tc.dst, got, tc.want)
		}
		if got.String() != tc.str {
			t.Errorf("ReachOf(%d, %d).String() = %q, want %q", tc.src, tc.dst, got.String(), tc.str)
		}
	}
	if !(NodeLocal < RackLocal && RackLocal < OffRack) {
		t.Errorf("reaches must be ordered nearest first: NodeLocal %d, RackLocal %d, OffRack %d", NodeLocal, RackLocal, OffRack)
	}
	if got := Reach(7).String(); got != "Reach(7)" {
		t.Errorf("Reach(7).String() = %q, want \"Reach(7)\" for an unknown reach", got)
	}
}
