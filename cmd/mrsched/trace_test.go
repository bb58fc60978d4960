package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/realinputs"
	"github.com/mrsched/mrsched/internal/testfile"
)

// TestTraceStatsJSONEveryFormat: trace stats -json reads a trace or a
// topology in any format, told from its content, and gives the same keys.
func TestTraceStatsJSONEveryFormat(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"rumen.json": `{"jobID":"job_1","mapTasks":[{"inputBytes":10,"attempts":[{"result":"SUCCESS","hostName":"/r1/h1","hdfsBytesWritten":3}]}]}`,
		"sls.json":   `{"job.id":"j","job.start.ms":0,"job.tasks":[{"container.host":"/r1/h1","container.start.ms":0,"container.end.ms":5}]}`,
		"swim.tsv":   "job0\t0\t0\t100\t10\t1\n",
		"topo.data":  "h1 /r1\nh2 /r2\nh3 /r2\n",
	}
	for name, body := range files {
		testfile.Write(t, filepath.Join(dir, name), body)
	}
	for _, tc := range []struct {
		file string
		want map[string]float64
	}{
		{"rumen.json", map[string]float64{"jobs": 1, "maps": 1, "reduces": 0, "input_bytes": 10, "output_bytes": 3, "hosts": 1, "racks": 1}},
		{"sls.json", map[string]float64{"jobs": 1, "maps": 1, "input_bytes": 0, "hosts": 1, "racks": 1}},
		{"swim.tsv", map[string]float64{"jobs": 1, "input_bytes": 100, "shuffle_bytes": 10, "output_bytes": 1}},
		{"topo.data", map[string]float64{"nodes": 3, "hosts": 3, "racks": 2}},
	} {
		code, out, errOut := runCLI(t, "trace", "stats", "-json", filepath.Join(dir, tc.file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, errOut)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v in %q", tc.file, err, out)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %v; want %v", tc.file, k, got[k], v)
			}
		}
	}
	if code, _, errOut := runCLI(t, "trace", "stats", "-format", "rumen", filepath.Join(dir, "swim.tsv")); code == 0 || !strings.Contains(errOut, "swim.tsv:1") {
		t.Errorf("a SWIM file read as Rumen: exit %d, %q; want an error naming the file and line", code, errOut)
	}
}

// TestCompareOwnCluster: compare runs end to end on a Rumen trace with a
// table topology and a YARN allocation file, and on an SLS jobs file with
// an SLS nodes file, every job completing under every policy.
func TestCompareOwnCluster(t *testing.T) {
	ex := "../../examples/hadoop/"
	for _, args := range [][]string{
		{"-trace", ex + "job-trace.json", "-topology", ex + "topology.data", "-allocations", ex + "fair-scheduler.xml"},
		{"-trace", ex + "sls-jobs.json", "-topology", ex + "sls-nodes.json"},
	} {
		dir := t.TempDir()
		code, out, errOut := runCLI(t, append([]string{"compare", "-q", "-csv", filepath.Join(dir, "c.csv")}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(filepath.Join(dir, "c.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		if len(rows) < 5 {
			t.Fatalf("%v: %d rows; want a row a policy\n%s", args, len(rows), out)
		}
		for _, r := range rows {
			f := strings.Split(r, ",")
			if f[1] != f[2] || f[1] == "0" {
				t.Errorf("%v: %s: %s of %s jobs completed; want all", args, f[0], f[2], f[1])
			}
		}
	}
}

// TestTraceStatsRealInputs: trace stats -json on every trace and topology
// of ../shared/real-inputs prints the counts its facts.py computes.
func TestTraceStatsRealInputs(t *testing.T) {
	dir := realinputs.Dir(t)
	for file, want := range map[string]map[string]float64{
		"rumen-wordcount.json":    {"jobs": 1, "maps": 3, "reduces": 1, "input_bytes": 1445391, "shuffle_bytes": 127823, "output_bytes": 122793, "hosts": 1, "racks": 1},
		"rumen-hadoop2-hive.json": {"jobs": 1, "maps": 26, "reduces": 0, "input_bytes": 7607695644, "shuffle_bytes": 0, "output_bytes": 33559310, "hosts": 4, "racks": 1},
		"teragen.jhist":           {"jobs": 1, "maps": 2, "reduces": 0, "input_bytes": 158, "output_bytes": 10000, "hosts": 1, "racks": 1},
		"rumen-topology.json":     {"nodes": 547, "hosts": 547, "racks": 41},
		"topology-table.data":     {"nodes": 24, "hosts": 24, "racks": 3, "names": 48},
	} {
		code, out, errOut := runCLI(t, "trace", "stats", "-json", filepath.Join(dir, file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", file, code, errOut)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v; want %v (facts.py)", file, k, got[k], v)
			}
		}
	}
}

// TestTraceStatsConfigurationFiles: trace stats shows what a run takes
// from an allocation file or a site file, and a bad one is an error at
// its line.
func TestTraceStatsConfigurationFiles(t *testing.T) {
	ex := "../../examples/hadoop/"
	bad := filepath.Join(t.TempDir(), "bad.xml")
	testfile.Write(t, bad, "<allocations>\n<pool name=\"a\"><minMaps>x</minMaps></pool></allocations>")
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{ex + "fair-scheduler.xml"}, 0, []string{"yarn allocation file", "prod.adhoc  weight 1, fifo, max 50%", "placement     specified create=false, default default"}},
		{[]string{ex + "mr1-fair-scheduler.xml"}, 0, []string{"hadoop1 allocation file", "at most 5 jobs"}},
		{[]string{ex + "yarn-site.xml"}, 0, []string{"Hadoop site file", "0.5 s for a node-local slot", "more than 0.8 used", "launches_per_heartbeat 2 (yarn.scheduler.fair.max.assign)"}},
		{[]string{"-json", ex + "yarn-site.xml"}, 0, []string{`"t1_s": 0.5`, `"engine.slow_start": 0.8`}},
		{[]string{bad}, 1, []string{"bad.xml:2: <minMaps>"}},
	} {
		code, out, errOut := runCLI(t, append([]string{"trace", "stats"}, tc.args...)...)
		for _, w := range tc.want {
			if code != tc.code || !strings.Contains(out+errOut, w) {
				t.Errorf("trace stats %v: exit %d, output %q; want exit %d and %q", tc.args, code, out+errOut, tc.code, w)
			}
		}
	}
}

// TestHostsTitleCounts: a title counts in the singular where there is one
// (a .jhist of one host ran on "1 node in 1 rack", not "1 nodes").
func TestHostsTitleCounts(t *testing.T) {
	for _, tc := range []struct {
		nodes, racks int
		want         string
	}{
		{1, 1, "1 node in 1 rack (trace hosts)"},
		{6, 2, "6 nodes in 2 racks (trace hosts)"},
		{2, 1, "2 nodes in 1 rack (trace hosts)"},
	} {
		if got := hostsTitle(tc.nodes, tc.racks, "trace hosts"); got != tc.want {
			t.Errorf("%d nodes, %d racks: %q; want %q", tc.nodes, tc.racks, got, tc.want)
		}
	}
}
