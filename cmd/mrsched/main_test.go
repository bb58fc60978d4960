package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/metrics"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// mustRunCLI runs mrsched with args and stops the test unless it exits 0:
// what follows reads what the command wrote. It returns stdout.
func mustRunCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("mrsched %s: exit %d, want 0: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// rerunRecorded runs the scenario.yaml that run directory dir records
// again, into a directory of its own, and checks that summary.json and
// files come out as the run wrote them, byte for byte: a run's record of
// its scenario must be what ran, and the same scenario and seed give the
// same bytes. what names the run in messages.
func rerunRecorded(t *testing.T, what, dir string, files ...string) {
	t.Helper()
	again := filepath.Join(t.TempDir(), "again")
	mustRunCLI(t, "simulate", "-q", "-config", filepath.Join(dir, "scenario.yaml"), "-out", again)
	for _, f := range append([]string{"summary.json"}, files...) {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: %s is empty, or differs when its recorded scenario.yaml runs again; want the same bytes, since the record must be what ran", what, f)
		}
	}
}

// TestNetsimExample: two cross-rack flows share rack 0's 1 Gbps uplink
// (62.5 MB/s each); flow c shares node 0's NIC with flow a and gets the
// other 62.5 MB/s. So c (62.5 MB) ends at 1 s and a, b (125 MB) at 2 s.
func TestNetsimExample(t *testing.T) {
	out := mustRunCLI(t, "netsim", "../../examples/netsim-two-racks.json")
	var got struct {
		Flows []struct {
			ID      string  `json:"id"`
			FinishS float64 `json:"finish_s"`
		} `json:"flows"`
		MakespanS float64 `json:"makespan_s"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := map[string]float64{"a": 2, "b": 2, "c": 1}
	for _, f := range got.Flows {
		if w := want[f.ID]; abs(f.FinishS-w) > 1e-9*w {
			t.Errorf("flow %s finished at %v s, want %v s", f.ID, f.FinishS, w)
		}
	}
	if got.MakespanS != 2 {
		t.Errorf("makespan %v, want 2", got.MakespanS)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestNetsimRejectsBadInput(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"syntax", "{\n \"racks\": 2,\n \"nodes_per_rack\": }", "line 3"},
		{"unknown field", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flowz":[]}`, "flowz"},
		{"src out of range", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"f","src":5,"dst":0,"bytes":1}]}`, `flows[0] (f): field "src"`},
		{"missing bytes", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"f","src":1,"dst":0}]}`, `field "bytes"`},
		{"same node", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"f","src":1,"dst":1,"bytes":1}]}`, `field "dst"`},
		{"no racks", `{"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1}`, `field "racks"`},
		{"duplicate id", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"f","src":1,"dst":0,"bytes":1},{"id":"f","src":0,"dst":1,"bytes":1}]}`, "used twice"},
		// A NIC past Unlimited made every link a counting one: "flow over
		// Unlimited links", without the field.
		{"huge nic", "{\"racks\":1,\"nodes_per_rack\":2,\n\"nic_gbps\":1e300,\"rack_uplink_gbps\":1,\"flows\":[{\"id\":\"f\",\"src\":1,\"dst\":0,\"bytes\":1}]}", `line 2: field "nic_gbps": 1e+300; want Gbit/s from 0.001 to 10000`},
		{"trailing data", "{\"racks\":1,\"nodes_per_rack\":2,\"nic_gbps\":1,\"rack_uplink_gbps\":1,\"flows\":[]}\n{\"racks\": 5}", "line 2: data after the JSON object"},
		{"fractional racks", "{\n\"racks\":2.5,\"nodes_per_rack\":2,\"nic_gbps\":1,\"rack_uplink_gbps\":1}", `line 2: field "racks": 2.5; want a whole number`},
		{"racks as a string", "{\n\"racks\":\"two\",\"nodes_per_rack\":2}", `line 2: field "racks": want a number, got string`},
		{"unknown flow field", "{\"racks\":1,\"nodes_per_rack\":2,\"nic_gbps\":1,\"rack_uplink_gbps\":1,\"flows\":[\n{\"id\":\"f\",\"srcc\":1}]}", `line 2: field "flows[0].srcc": unknown`},
		{"a field twice", "{\"racks\":1,\n\"racks\":2}", `line 2: field "racks": given twice`},
		{"fractional src", "{\"racks\":1,\"nodes_per_rack\":2,\"nic_gbps\":1,\"rack_uplink_gbps\":1,\"flows\":[\n{\"id\":\"f\",\n\"src\":0.5,\"dst\":1,\"bytes\":1}]}", `line 3: flows[0] (f): field "src": 0.5; want a node 0..1`},
		{"not an object", "[1, 2]", "want a JSON object"},
		{"empty", "", "empty input"},
		// The walk of the keys runs beside the decoding and the replay;
		// its errors still come before theirs, as if it had run first.
		{"unknown field and a bad node", `{"racks":1,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"f","src":5,"dst":0,"bytes":1}],"extra":1}`, `field "extra": unknown`},
		{"a field twice and a type error", "{\"racks\":1,\n\"racks\":\"x\"}", `line 2: field "racks": given twice`},
		{"trailing data after a valid run", "{\"racks\":1,\"nodes_per_rack\":2,\"nic_gbps\":1,\"rack_uplink_gbps\":1,\"flows\":[{\"id\":\"f\",\"src\":1,\"dst\":0,\"bytes\":1}]}\n{}", "line 2: data after the JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "in.json")
			testfile.Write(t, p, c.json)
			code, _, errOut := runCLI(t, "netsim", p)
			if code == 0 {
				t.Fatal("exit 0 for bad input")
			}
			if !strings.Contains(errOut, c.want) || !strings.Contains(errOut, p) {
				t.Errorf("stderr %q should name the file and %q", errOut, c.want)
			}
		})
	}
}

func TestTraceStats(t *testing.T) {
	out := mustRunCLI(t, "trace", "stats", "FB-2010")
	for _, w := range []string{"24442", "68.6", "12.6", "18.8"} {
		if !strings.Contains(strings.ReplaceAll(out, ",", ""), w) {
			t.Errorf("trace stats FB-2010 output lacks %q (job count and the 68.6/12.6/18.8 class split):\n%s", w, out)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.tsv")
	testfile.Write(t, bad, "job0\t0\t0\t10\t10\t10\njob1\t1\t1\tx\t1\t1\n")
	code, _, errOut := runCLI(t, "trace", "stats", bad)
	if code == 0 || !strings.Contains(errOut, "bad.tsv:2") {
		t.Errorf("exit %d, stderr %q: a malformed line must fail naming file:line", code, errOut)
	}
	good := filepath.Join(t.TempDir(), "good.tsv")
	testfile.Write(t, good, "job0\t0\t0\t10\t10\t10\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		// -source-nodes -5 ran as 600.
		{"negative source nodes", []string{"-source-nodes", "-5", good}, 1, "-source-nodes: -5"},
		{"source nodes for an embedded trace", []string{"FB-2009", "-source-nodes", "3000"}, 1, "traced on 600 nodes"},
		{"a file without source nodes says what it assumed", []string{good}, 0, "taken as traced on 600 nodes"},
	} {
		code, _, errOut := runCLI(t, append([]string{"trace", "stats"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("trace stats %s (%s): exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), c.name, code, errOut, c.code, c.want)
		}
	}
}

func TestSimulateWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s.yaml")
	sc := "seed: 2\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 60}\npolicy: {name: fifo}\n"
	testfile.Write(t, cfg, sc)
	out := filepath.Join(dir, "out")
	stdout := mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", out)
	if !strings.Contains(stdout, "60/60 jobs") {
		t.Errorf("stdout %q does not report 60/60 jobs", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"policy", "jobs_submitted", "jobs_completed", "makespan_s", "throughput_jobs_per_hour",
		"turnaround_s", "locality", "bytes", "congestion_occurrences"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	for _, k := range []string{"shuffle_total", "shuffle_cross_rack", "remote_map_cross_rack", "output_cross_rack", "cross_rack_total"} {
		if _, ok := s["bytes"].(map[string]any)[k]; !ok {
			t.Errorf("summary.json bytes lacks %q", k)
		}
	}
	for _, f := range []string{"jobs.csv", "timeseries.csv"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || bytes.Count(b, []byte("\n")) < 2 {
			t.Errorf("%s: missing or empty (%v)", f, err)
		}
	}
	// The output carries the scenario it came from, and it runs again.
	rec, err := os.ReadFile(filepath.Join(out, "scenario.yaml"))
	if err != nil || !strings.HasPrefix(string(rec), "# ") || !strings.HasSuffix(string(rec), sc) {
		t.Errorf("scenario.yaml = %q (%v); want a comment line, then the scenario file as given", rec, err)
	}
	rerunRecorded(t, "simulate's run", out, "jobs.csv", "timeseries.csv")
	if code, _, _ := runCLI(t, "simulate", "-config", cfg); code != 2 {
		t.Errorf("simulate without -out exited %d, want 2 (usage)", code)
	}
}

func TestCompareSmall(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s.yaml")
	sc := "cluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 80}\npolicy: {name: fair}\n"
	testfile.Write(t, cfg, sc)
	out := mustRunCLI(t, "compare", "-q", "-config", cfg)
	for _, p := range []string{"fifo", "fair", "1.00x", "80/80"} {
		if !strings.Contains(out, p) {
			t.Errorf("compare output lacks %q:\n%s", p, out)
		}
	}
}

// TestFlagsOutOfRangeAreErrors: a flag value no run can use is refused
// with the flag's name, never silently replaced.
func TestFlagsOutOfRangeAreErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", "-q", "-parallel", "0"}, "-parallel: must be at least 1"},
		{[]string{"experiment", "-parallel", "-2", "zipf"}, "-parallel: must be at least 1"},
		{[]string{"experiment", "-seeds", "-1", "zipf"}, "-seeds: must not be negative"},
		{[]string{"experiment", "-keep", "/dev/null/kept", "zipf"}, "-keep /dev/null/kept:"},
		{[]string{"experiment", "-check", "-keep", "/dev/null/kept", "zipf"}, "-keep /dev/null/kept:"},
		{[]string{"trace", "stats", "FB-2011"}, "neither an embedded trace (FB-2009, FB-2010, FB-2010-paths) nor a file"},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestCompareChecksPolicyNamesFirst: a misspelt policy in -policies is an
// error before any policy runs, not after the runs before it have taken
// their minutes.
func TestCompareChecksPolicyNamesFirst(t *testing.T) {
	code, out, errOut := runCLI(t, "compare", "-policies", "fair, nope")
	if code != 1 || !strings.Contains(errOut, `-policies: unknown policy "nope"`) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the flag and the unknown policy", code, errOut)
	}
	if out != "" || strings.Contains(errOut, "simulating") {
		t.Errorf("stdout %q, stderr %q: nothing may run before the names are checked", out, errOut)
	}
}

// TestCommandRouting pins what the first argument selects: a word is a
// command, a flag is compare's (the usage reads "mrsched [COMMAND]
// [flags]"), and the help flags are the top-level help.
func TestCommandRouting(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		out, err string // what stdout and stderr must hold
		why      string
	}{
		{"an unknown word", []string{"frobnicate"}, 2, "", "unknown command", "a word in the command's place names a command"},
		{"a leading flag is compare's", []string{"-policies", "fair,nope"}, 1, "", `mrsched compare: -policies: unknown policy "nope"`, "mrsched -policies ... is mrsched compare -policies ..."},
		{"an unknown leading flag", []string{"-frobnicate"}, 2, "", "flag provided but not defined: -frobnicate", "compare's flags refuse it, with compare's usage"},
		{"-h", []string{"-h"}, 0, "usage: mrsched [COMMAND] [flags]", "", "the help flags print the top-level help"},
		{"--help", []string{"--help"}, 0, "usage: mrsched [COMMAND] [flags]", "", "the help flags print the top-level help"},
		{"help", []string{"help"}, 0, "usage: mrsched [COMMAND] [flags]", "", "help is a command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
				t.Errorf("mrsched %s: exit %d, stdout %.80q, stderr %.200q; want exit %d, stdout holding %q, stderr holding %q: %s",
					strings.Join(c.args, " "), code, out, errOut, c.code, c.out, c.err, c.why)
			}
		})
	}
}

// TestDiffComparesRuns runs one small scenario twice, the second with
// heartbeats moved by a nanosecond, and checks that diff reads both
// output directories: a run against itself changes nothing, and the table
// has a row per run and, for two runs, their mean and standard error.
func TestDiffComparesRuns(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for i, hb := range []string{"3", "3.000000001"} {
		cfg := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		sc := "seed: 3\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 80}\npolicy: {name: fair}\nengine: {heartbeat_s: " + hb + "}\n"
		testfile.Write(t, cfg, sc)
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", out)
		outs = append(outs, out)
	}
	code, stdout, errOut := runCLI(t, "diff", outs[0], outs[0], outs[1])
	if code != 0 {
		t.Fatalf("diff exit %d: %s", code, errOut)
	}
	lines := strings.Split(stdout, "\n")
	var self string
	for _, l := range lines {
		if strings.HasPrefix(l, outs[0]+" ") {
			self = l
		}
	}
	if f := strings.Fields(self); len(f) != 7 || f[1] != "+0.00" || f[2] != "+0.00" || f[3] != "+0.00" || f[4] != "+0.00" || f[5] != "+0.00" {
		t.Errorf("a run against itself: row %q, want +0.00 in every measure", self)
	}
	for _, want := range []string{outs[1], "mean of 2", "standard error", "median job"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff output lacks %q:\n%s", want, stdout)
		}
	}
	// By size: a run against itself moves no band, and the band table
	// follows the summary table.
	code, stdout, errOut = runCLI(t, "diff", "-by-size", outs[0], outs[0])
	if code != 0 {
		t.Fatalf("diff -by-size exit %d: %s", code, errOut)
	}
	bands := 0
	for _, l := range strings.Split(stdout, "\n") {
		band, rest, ok := strings.Cut(l, " s ")
		if !ok || !(strings.HasPrefix(band, ">= ") || strings.Count(band, "-") == 1) {
			continue
		}
		bands++
		f := strings.Fields(rest) // jobs, base mean, change (s), change (%), median change (s), held up (%), the rest's change (s)
		empty := len(f) == 7 && f[0] == "0" && f[2] == "-" && f[6] == "-"
		if !empty && (len(f) != 7 || f[2] != "+0" || f[3] != "+0.0" || f[4] != "+0" || f[5] != "0.0" || f[6] != "+0") {
			t.Errorf("a run against itself: band row %q, want changes of +0 s and +0.0%%, a median change of +0 and none held up (or - for a band with no job)", l)
		}
	}
	if bands != len(metrics.SizeBands)-1 || !strings.Contains(stdout, "change in mean turnaround by the job's turnaround") {
		t.Errorf("diff -by-size: %d band rows, want %d after the title:\n%s", bands, len(metrics.SizeBands)-1, stdout)
	}
	code, stdout, _ = runCLI(t, "diff", "-by-size", outs[0], outs[0], outs[1])
	if code != 0 || !strings.Contains(stdout, "mean of 2 runs") || !strings.Contains(stdout, "SE (s)") {
		t.Errorf("diff -by-size over two runs: want their mean and standard error by band:\n%s", stdout)
	}
	// One rack carries no cross-rack bytes: against two racks there is no
	// relative change, and the table says so rather than print NaN.
	oneRack := filepath.Join(dir, "onerack.yaml")
	testfile.Write(t, oneRack, "seed: 3\ncluster: {racks: 1, nodes_per_rack: 10}\nworkload: {trace: FB-2009, max_jobs: 80}\npolicy: {name: fair}\n")
	one := filepath.Join(dir, "one")
	mustRunCLI(t, "simulate", "-q", "-config", oneRack, "-out", one)
	// Runs on different clusters pair unrelated jobs: diff refuses them,
	// saying what differs, unless -force.
	code, _, errOut = runCLI(t, "diff", one, outs[0])
	if code != 1 || !strings.Contains(errOut, "ran different workloads") || !strings.Contains(errOut, "cluster.racks 1 vs 2") || !strings.Contains(errOut, "-force") {
		t.Errorf("diff of runs on different clusters: exit %d, stderr %q; want exit 1 naming the differing settings and -force", code, errOut)
	}
	code, stdout, errOut = runCLI(t, "diff", "-force", one, outs[0], outs[1])
	if code != 0 || !strings.Contains(errOut, "compared anyway") {
		t.Fatalf("diff -force against one rack: exit %d, stderr %q; want a warning and the comparison", code, errOut)
	}
	if strings.Contains(stdout, "NaN") || !strings.Contains(stdout, "n/a") || !strings.Contains(stdout, "the base run's figure is 0") {
		t.Errorf("diff against a one-rack base: want n/a for cross-rack bytes with a note, no NaN:\n%s", stdout)
	}
	if code, _, errOut := runCLI(t, "diff", outs[0]); code != 2 || !strings.Contains(errOut, "usage: mrsched diff") {
		t.Errorf("diff with one directory: exit %d, stderr %q; want usage and exit 2", code, errOut)
	}
	if code, _, errOut := runCLI(t, "diff", outs[0], filepath.Join(dir, "nope")); code != 1 || !strings.Contains(errOut, "nope") {
		t.Errorf("diff with a missing run: exit %d, stderr %q; want exit 1 naming it", code, errOut)
	}

	// Means over sets of runs: the same set on both sides changes nothing,
	// and a pattern expands to the run directories it matches (the YAML
	// files beside them are passed over).
	code, stdout, errOut = runCLI(t, "diff", "-bases", filepath.Join(dir, "out*"), outs[0], outs[1])
	if code != 0 {
		t.Fatalf("diff -bases: exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "mean of 2 runs against the mean of 2 base runs") {
		t.Errorf("diff -bases with a pattern matching two runs: want them as the base set:\n%s", stdout)
	}
	figures := 0
	for _, l := range strings.Split(stdout, "\n") {
		name, rest, ok := strings.Cut(l, ")")
		if !ok || !strings.Contains(name, "(") || strings.HasPrefix(name, "figure") || strings.Contains(name, "median") || strings.Contains(name, ":") {
			continue
		}
		figures++
		if f := strings.Fields(rest); len(f) != 4 || f[2] != "+0.00" {
			t.Errorf("diff -bases of a set against itself: row %q, want a change of +0.00", l)
		}
	}
	if figures != 4 {
		t.Errorf("diff -bases: %d figure rows, want 4:\n%s", figures, stdout)
	}
	if code, stdout, _ = runCLI(t, "diff", "-bases", outs[0], outs[0], outs[1]); code != 0 || !strings.Contains(stdout, "n/a") {
		t.Errorf("diff -bases with one base run: exit %d, want n/a for the standard error (one run's spread is unknown):\n%s", code, stdout)
	}
	for _, bad := range []struct{ name, bases, want string }{
		{"a pattern matching no run", filepath.Join(dir, "nothing*"), "matches no directory"},
		{"an empty entry", outs[0] + ",", "empty entry"},
	} {
		if code, _, errOut := runCLI(t, "diff", "-bases", bad.bases, outs[0]); code != 1 || !strings.Contains(errOut, bad.want) {
			t.Errorf("diff -bases with %s: exit %d, stderr %q; want exit 1 and %q", bad.name, code, errOut, bad.want)
		}
	}
	if code, _, errOut := runCLI(t, "diff", "-bases", outs[0], one); code != 1 || !strings.Contains(errOut, "ran different workloads") {
		t.Errorf("diff -bases with a run of another workload: exit %d, stderr %q; want exit 1 saying the workloads differ", code, errOut)
	}
	// Another trace: the same job ids are other jobs.
	fb2010 := filepath.Join(dir, "fb2010.yaml")
	testfile.Write(t, fb2010, "seed: 3\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2010, max_jobs: 80}\npolicy: {name: fair}\n")
	other := filepath.Join(dir, "fb2010")
	mustRunCLI(t, "simulate", "-q", "-config", fb2010, "-out", other)
	if code, _, errOut := runCLI(t, "diff", outs[0], other); code != 1 || !strings.Contains(errOut, `workload.trace "FB-2009" vs "FB-2010"`) {
		t.Errorf("diff of FB-2009 against FB-2010: exit %d, stderr %q; want exit 1 naming the traces", code, errOut)
	}
	if code, _, errOut := runCLI(t, "diff", "-bases", outs[0], "-by-size", outs[1]); code != 1 || !strings.Contains(errOut, "-by-size") {
		t.Errorf("diff -bases -by-size: exit %d, stderr %q; want exit 1 saying they do not combine", code, errOut)
	}
}

// TestSizeTableSkipsRunsWithoutTheBand pins how diff -by-size averages a
// band over runs that did not all finish its jobs: a run with none of
// them says nothing of the band and is left out of its mean.
func TestSizeTableSkipsRunsWithoutTheBand(t *testing.T) {
	band := func(jobs int, base, run float64) []metrics.BandChange {
		return []metrics.BandChange{{Lo: 0, Hi: 1, Jobs: jobs, BaseMean: base, RunMean: run, MedianDelta: run - base, HeldUp: run / 100, RestDelta: run}}
	}
	tests := []struct {
		name string
		runs [][]metrics.BandChange
		want []string // the band row's cells after the band's name
	}{
		{"every run has the band", [][]metrics.BandChange{band(4, 0.5, 1), band(4, 0.5, 2)}, []string{"4", "0.5", "+1", "+200.0", "0.5", "100.0", "+1", "1.5", "+1.5"}},
		{"one run has none of it", [][]metrics.BandChange{band(0, 0, 0), band(4, 0.5, 1), band(4, 0.5, 2)}, []string{"4", "0.5", "+1", "+200.0", "0.5", "100.0", "+1", "1.5", "+1.5"}},
		{"only one run has it", [][]metrics.BandChange{band(0, 0, 0), band(3, 0.5, 1)}, []string{"3", "0.5", "+0.5", "+100.0", "-", "-", "+0.5", "1.0", "+1"}},
		{"no run has it", [][]metrics.BandChange{band(0, 0, 0), band(0, 0, 0)}, []string{"0", "0", "-", "-", "-", "-", "-", "-", "-"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := sizeTable("base", tc.runs).WriteCSV(&b); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			got := strings.Split(lines[len(lines)-1], ",")[1:]
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("band row %v, want %v: the mean and standard error over the runs that finished some of the band's jobs, then the mean median change and share held up", got, tc.want)
			}
		})
	}
}
