package faults

import (
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
)

func topo(t *testing.T) *cluster.Topology {
	t.Helper()
	tp, err := cluster.New(cluster.Config{Racks: 3, NodesPerRack: 4})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func rack(r int) *int { return &r }

// TestNodeNamesRoundTrip: every node's name parses back to the node, and
// names are node N of rack R, both from 0.
func TestNodeNamesRoundTrip(t *testing.T) {
	tp := topo(t)
	for n := cluster.NodeID(0); int(n) < tp.NumNodes(); n++ {
		name := NodeName(tp, n)
		got, err := ParseNode(tp, name)
		if err != nil || got != n {
			t.Errorf("ParseNode(%q) = %d, %v; want node %d", name, got, err, n)
		}
	}
	if got := NodeName(tp, 6); got != "r1n2" {
		t.Errorf("node 6 with 4 nodes a rack is named %q, want r1n2", got)
	}
}

// TestParseNodeRefusesWhatIsNotANode: a name has one spelling, and names a
// node of the cluster.
func TestParseNodeRefusesWhatIsNotANode(t *testing.T) {
	tp := topo(t)
	for _, c := range []struct{ name, want string }{
		{"", "not a node name"},
		{"r1", "not a node name"},
		{"n1r2", "not a node name"},
		{"r01n2", "not a node name"}, // leading zero: one spelling per node
		{"r1n+2", "not a node name"},
		{"r-1n2", "not a node name"},
		{"R1N2", "not a node name"},
		{"r1n2 ", "not a node name"},
		{"r99999999999n0", "not a node name"},
		{"r3n0", "no rack 3; the cluster has racks 0 to 2"},
		{"r2n4", "no node 4 in rack 2; a rack has nodes 0 to 3"},
	} {
		if _, err := ParseNode(tp, c.name); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseNode(%q) = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestResolveOrdersByTimeThenListing: events are sorted by time; events at
// one time keep the order listed; a rack kill names the rack's live nodes.
func TestResolveOrdersByTimeThenListing(t *testing.T) {
	tp := topo(t)
	evs, err := Resolve([]Spec{
		{RestoreNode: "r1n2", AtS: 900},
		{KillNode: "r1n2", AtS: 600},
		{KillNode: "r0n0", AtS: 900},
		{KillRack: rack(1), AtS: 700},
	}, tp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		got = append(got, ev.Kind.String()+" "+NodeNames(tp, ev.Nodes))
	}
	want := []string{"kill_node r1n2", "kill_rack r1n0, r1n1, r1n3", "restore_node r1n2", "kill_node r0n0"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q: by time, ties in listed order, the rack kill sparing r1n2, already dead", got, want)
	}
	if evs[2].Index != 0 || evs[3].Index != 2 {
		t.Errorf("indexes %d, %d; want each event's place in the list (0, 2)", evs[2].Index, evs[3].Index)
	}
}

// TestResolveRefusesNonsense: each bad spec is an error naming its entry and
// field, as a scenario places it at its line.
func TestResolveRefusesNonsense(t *testing.T) {
	tp := topo(t)
	for _, c := range []struct {
		name  string
		specs []Spec
		want  string
	}{
		{"no action", []Spec{{AtS: 1}}, "faults[0]: want exactly one of"},
		{"two actions", []Spec{{KillNode: "r0n0", RestoreNode: "r0n0", AtS: 1}}, "faults[0]: want exactly one of"},
		{"negative time", []Spec{{KillNode: "r0n0", AtS: -1}}, "faults[0].at_s: -1; want a number from 0"},
		{"time past the bound", []Spec{{KillNode: "r0n0", AtS: 2e7}}, "faults[0].at_s"},
		{"bad name", []Spec{{KillNode: "node3", AtS: 1}}, "faults[0].kill_node: \"node3\" is not a node name"},
		{"no such rack", []Spec{{KillRack: rack(3), AtS: 1}}, "faults[0].kill_rack: 3; the cluster has racks 0 to 2"},
		{"kill a dead node", []Spec{{KillNode: "r0n1", AtS: 1}, {KillNode: "r0n1", AtS: 2}}, "faults[1].kill_node: r0n1 is already dead at t=2 s (killed by faults[0])"},
		{"kill a node of a dead rack", []Spec{{KillRack: rack(0), AtS: 1}, {KillNode: "r0n3", AtS: 2}}, "faults[1].kill_node: r0n3 is already dead"},
		{"kill a dead rack", []Spec{{KillRack: rack(2), AtS: 1}, {KillRack: rack(2), AtS: 2}}, "faults[1].kill_rack: every node of rack 2 is already dead"},
		{"restore a live node", []Spec{{RestoreNode: "r0n0", AtS: 1}}, "faults[0].restore_node: r0n0 is alive at t=1 s"},
		{"restore listed before its kill at one time", []Spec{{RestoreNode: "r0n0", AtS: 5}, {KillNode: "r0n0", AtS: 5}}, "faults[0].restore_node: r0n0 is alive"},
		{"restore twice", []Spec{{KillNode: "r0n0", AtS: 1}, {RestoreNode: "r0n0", AtS: 2}, {RestoreNode: "r0n0", AtS: 3}}, "faults[2].restore_node"},
	} {
		if _, err := Resolve(c.specs, tp); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: Resolve = %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

// TestResolveAcceptsKillRestoreKill: a node may die again once restored,
// and a node killed within a rack may be restored alone.
func TestResolveAcceptsKillRestoreKill(t *testing.T) {
	tp := topo(t)
	evs, err := Resolve([]Spec{
		{KillNode: "r2n1", AtS: 10}, {RestoreNode: "r2n1", AtS: 20}, {KillNode: "r2n1", AtS: 30},
		{KillRack: rack(0), AtS: 40}, {RestoreNode: "r0n3", AtS: 40}, {KillNode: "r0n3", AtS: 50},
	}, tp)
	if err != nil || len(evs) != 6 {
		t.Fatalf("Resolve = %d events, %v; want all 6 accepted", len(evs), err)
	}
}
