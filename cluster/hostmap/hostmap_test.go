package hostmap

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/realinputs"
	"github.com/mrsched/mrsched/internal/testfile"
)

func racksOf(m *Map) map[string]int {
	out := map[string]int{}
	for _, n := range m.Nodes {
		out[n.Rack]++
	}
	return out
}

func TestReadTable(t *testing.T) {
	const table = `# host to rack, as net.topology.table.file.name reads it
h1	/rackA
h2 rackA
  h3	/rackB  
10.0.0.1	/rackA
10.0.0.3	/rackB
badline
too many columns
h1 /rackA
`
	m, err := ReadTable(strings.NewReader(table), "t.data")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := racksOf(m), map[string]int{"/rackA": 2, "/rackB": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("racks %v; want %v (host names are nodes, addresses aliases, a rack without its slash gets one)", got, want)
	}
	if len(m.Warnings) != 3 || !strings.Contains(m.Warnings[0], "t.data:7") {
		t.Errorf("warnings %q; want the two lines without two columns (line 7 first) and the repeated h1", m.Warnings)
	}
	for host, rack := range map[string]string{"h3": "/rackB", "10.0.0.3": "/rackB", "unknown": DefaultRack} {
		if got := m.RackOf(host); got != rack {
			t.Errorf("RackOf(%s) = %s; want %s", host, got, rack)
		}
	}
	m, err = ReadTable(strings.NewReader("10.0.0.1 /r1\n10.0.0.2 /r2\n"), "ips.data")
	if err != nil || len(m.Nodes) != 2 {
		t.Errorf("a table of addresses only: %v nodes, %v; want a node per address", m, err)
	}
}

// rumenTopology is a LoggedNetworkTopology with escaped names, one rack
// whose children come before its name, and a three-level branch.
const rumenTopology = `{"name":"<root>","children":[
 {"name":"10\\.1\\.0\\.0","children":[{"name":"node1\\.example\\.com"},{"name":"node2\\.example\\.com"}]},
 {"children":[{"name":"node3"}],"name":"10\\.2\\.0\\.0"},
 {"name":"dc2","children":[{"name":"r9","children":[{"name":"deep1"}]}]},
 {"name":"lonely"}
]}`

func TestReadRumenTopology(t *testing.T) {
	m, err := ReadRumen(strings.NewReader(rumenTopology), "topo.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{Host: "node1.example.com", Rack: "/10.1.0.0", Line: 2},
		{Host: "node2.example.com", Rack: "/10.1.0.0", Line: 2},
		{Host: "node3", Rack: "/10.2.0.0", Line: 3},
		{Host: "deep1", Rack: "/dc2/r9", Line: 4},
		{Host: "lonely", Rack: DefaultRack, Line: 5},
	}
	if !reflect.DeepEqual(m.Nodes, want) {
		t.Errorf("nodes\n got %+v\nwant %+v\n(names unescaped, a rack named after its children, deeper racks as paths, a leaf under the root on the default rack)", m.Nodes, want)
	}
	if _, err := ReadRumen(strings.NewReader(`{"children":[{"name":5}]}`), "topo.json"); err == nil || !strings.Contains(err.Error(), `topo.json:1: field "name"`) {
		t.Errorf("error %v; want one naming the file, line and field", err)
	}
}

// slsNodes is an SLS nodes file with resources and an empty entry.
const slsNodes = `{"rack":"rack1","nodes":[{"node":"node1","memory-mb":2048,"vcores":6},{"node":"node2"},{}]}
{"rack":"rack2","nodes":[{"node":"node3","memory-mb":8192,"vcores":8}]}`

func TestReadSLSNodes(t *testing.T) {
	m, err := ReadSLS(strings.NewReader(slsNodes), "nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{Host: "node1", Rack: "/rack1", MemoryMB: 2048, VCores: 6, Line: 1},
		{Host: "node2", Rack: "/rack1", Line: 1},
		{Host: "node3", Rack: "/rack2", MemoryMB: 8192, VCores: 8, Line: 2},
	}
	if !reflect.DeepEqual(m.Nodes, want) {
		t.Errorf("nodes\n got %+v\nwant %+v", m.Nodes, want)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "nodes[2]") {
		t.Errorf("warnings %q; want one for the unnamed entry nodes[2]", m.Warnings)
	}
	for _, bad := range []struct{ in, want string }{
		{`{"nodes":[{"node":"a"}]}`, `field "rack"`},
		{`{"rack":"r","nodes":[{"node":"a","vcores":0}]}`, "nodes[0].vcores"},
		{`{"rack":"r","nodes":[{"node":"a","memory-mb":"big"}]}`, "nodes[0].memory-mb"},
	} {
		if _, err := ReadSLS(strings.NewReader(bad.in), "nodes.json"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v; want one naming %s", bad.in, err, bad.want)
		}
	}
}

func TestLoadSniffs(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		body   string
		format Format
		nodes  int
	}{
		"a.json":  {rumenTopology, FormatRumen, 5},
		"b.json":  {slsNodes, FormatSLS, 3},
		"c.data":  {"h1 /r1\nh2 /r2\n", FormatTable, 2},
		"d.empty": {"", "", 0},
	} {
		p := filepath.Join(dir, name)
		testfile.Write(t, p, tc.body)
		m, err := Load(p)
		if tc.nodes == 0 {
			if err == nil {
				t.Errorf("%s: no error; want one for an empty file", name)
			}
			continue
		}
		if err != nil || m.Format != tc.format || len(m.Nodes) != tc.nodes {
			t.Errorf("%s: %v, %v; want format %s with %d nodes", name, m, err, tc.format, tc.nodes)
		}
	}
}

// TestRealTopologies checks facts.py's counts on the real files.
func TestRealTopologies(t *testing.T) {
	dir := realinputs.Dir(t)
	m, err := Load(filepath.Join(dir, "rumen-topology.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := racksOf(m)
	if len(m.Nodes) != 547 || len(r) != 41 || r["/192.30.63.0"] != 22 || r["/194.6.129.0"] != 6 ||
		m.Nodes[0].Host != "cluster50213.secondleveldomain.com" || m.Nodes[0].Rack != "/194.6.133.192" {
		t.Errorf("rumen topology: %d hosts on %d racks, first %+v; want 547 on 41, /192.30.63.0 with 22, first cluster50213.secondleveldomain.com on /194.6.133.192",
			len(m.Nodes), len(r), m.Nodes[0])
	}
	m, err = Load(filepath.Join(dir, "topology-table.data"))
	if err != nil {
		t.Fatal(err)
	}
	if r := racksOf(m); len(m.Nodes) != 24 || len(m.Aliases) != 24 || len(r) != 3 || r["/rack01"] != 8 {
		t.Errorf("table: %d hosts, %d aliases, racks %v; want 24 hosts, 24 addresses, 3 racks of 8", len(m.Nodes), len(m.Aliases), r)
	}
}
