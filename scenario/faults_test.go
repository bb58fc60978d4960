package scenario

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/metrics"
)

// TestBadFaultsAreNamedErrors: every mistake in a faults section, or in
// the setting it brings, is an error naming the file, the line and the
// field in the scenario's words.
func TestBadFaultsAreNamedErrors(t *testing.T) {
	dir := t.TempDir()
	const head = "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 5}\ncluster: {racks: 2, nodes_per_rack: 3}\n" // lines 1-3
	cases := []struct {
		name, yaml string
		line       int
		field      string
		want       string
	}{
		{"not a list", head + "faults: {kill_node: r0n0}\n", 4, "faults", "want a list of events"},
		{"an entry not a mapping", head + "faults:\n  - r0n0\n", 5, "faults[0]", "want an event"},
		{"no action", head + "faults:\n  - {at_s: 5}\n", 5, "faults[0]", "exactly one of kill_node, kill_rack and restore_node, got 0"},
		{"two actions", head + "faults:\n  - {kill_node: r0n0, kill_rack: 1, at_s: 5}\n", 5, "faults[0]", "got 2"},
		{"no time", head + "faults:\n  - {kill_node: r0n0}\n", 5, "faults[0]", "at_s: required"},
		{"a misspelt field", head + "faults:\n  - kill_node: r0n0\n    at: 5\n", 6, "faults[0].at", "unknown field; an event has"},
		{"a negative time", head + "faults:\n  - kill_node: r0n0\n    at_s: -5\n", 6, "faults[0].at_s", "from 0 to 10000000 (s)"},
		{"a word for a time", head + "faults:\n  - {kill_node: r0n0, at_s: soon}\n", 5, "faults[0].at_s", "not a number"},
		{"a bad node name", head + "faults:\n  - kill_node: node1\n    at_s: 5\n", 5, "faults[0].kill_node", "not a node name; want rRnN"},
		{"a node the cluster lacks", head + "faults:\n  - {kill_node: r0n0, at_s: 5}\n  - {kill_node: r2n0, at_s: 6}\n", 6, "faults[1].kill_node", "no rack 2; the cluster has racks 0 to 1"},
		{"a rack the cluster lacks", head + "faults:\n  - {kill_rack: 2, at_s: 5}\n", 5, "faults[0].kill_rack", "racks 0 to 1"},
		{"a fractional rack", head + "faults:\n  - {kill_rack: 1.5, at_s: 5}\n", 5, "faults[0].kill_rack", "a whole number"},
		{"a node killed twice", head + "faults:\n  - {kill_node: r1n2, at_s: 5}\n  - {kill_node: r1n2, at_s: 9}\n", 6, "faults[1].kill_node", "r1n2 is already dead"},
		{"a live node restored", head + "faults:\n  - {kill_node: r1n2, at_s: 50}\n  - {restore_node: r1n2, at_s: 9}\n", 6, "faults[1].restore_node", "r1n2 is alive at t=9 s"},
		{"expiry without faults", head + "engine:\n  node_expiry_s: 60\n", 5, "engine.node_expiry_s", "no effect without a faults section"},
		{"a zero expiry", head + "engine:\n  node_expiry_s: 0\nfaults: [{kill_node: r0n0, at_s: 5}]\n", 5, "engine.node_expiry_s", "from 0.001 to 10000000 (s)"},
		{"expiry within a heartbeat", head + "engine:\n  heartbeat_s: 3\n  node_expiry_s: 2\nfaults: [{kill_node: r0n0, at_s: 5}]\n", 6, "engine.node_expiry_s", "not longer than engine.heartbeat_s"},
		{"a heartbeat longer than the default expiry", head + "engine:\n  heartbeat_s: 900\n  stall_s: 90000\nfaults: [{kill_node: r0n0, at_s: 5}]\n", 5, "engine.heartbeat_s", "(600 s) is not longer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, msg := refused(t, dir, c.yaml)
			prefix := path + ": line " + strconv.Itoa(c.line) + ": " + c.field
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q\nwant it to start %q and say %q", msg, prefix, c.want)
			}
			inScenarioWords(t, msg, "faults.Spec", "sim.", "int64", "*int")
		})
	}
}

// TestFaultsExampleRuns: the shipped example loses nodes, records its
// faults and their settings, and gives the same bytes on every run; a run
// without faults records neither faults nor node_expiry_s.
func TestFaultsExampleRuns(t *testing.T) {
	run := func(path string) ([]byte, []byte, metrics.Summary) {
		t.Helper()
		cfg, err := Load(path)
		res := mustRun(t, cfg, err)
		var s, j bytes.Buffer
		if err := metrics.WriteSummaryJSON(&s, res.Summary); err != nil {
			t.Fatal(err)
		}
		if err := res.Collector.WriteJobsCSV(&j); err != nil {
			t.Fatal(err)
		}
		return s.Bytes(), j.Bytes(), res.Summary
	}
	s1, j1, sum := run("../examples/faults.yaml")
	s2, j2, _ := run("../examples/faults.yaml")
	if !bytes.Equal(s1, s2) || !bytes.Equal(j1, j2) {
		t.Error("the faults example gave different summary.json or jobs.csv on a second run")
	}
	if sum.Faults == nil || sum.Faults.LostNodes != 6 || sum.Faults.KilledAttempts == 0 || sum.Faults.ReexecutedMaps == 0 {
		t.Errorf("faults %+v; want 6 nodes lost (r1n2, then rack 3's five), with attempts killed and maps run again", sum.Faults)
	}
	for _, want := range []string{`"faults": {`, `"lost_nodes": 6`, `"node_expiry_s": 600`, `"kill_rack": 3`} {
		if !bytes.Contains(s1, []byte(want)) {
			t.Errorf("summary.json lacks %s", want)
		}
	}
	plain, _, _ := run("../examples/fair-pools.yaml")
	for _, unwanted := range []string{`"faults"`, `node_expiry_s`} {
		if bytes.Contains(plain, []byte(unwanted)) {
			t.Errorf("a run without faults has %s in its summary.json", unwanted)
		}
	}
}
