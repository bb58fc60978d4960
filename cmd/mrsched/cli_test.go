package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/traces"
)

// smallScenario writes a scenario that runs in a fraction of a second.
func smallScenario(t *testing.T, dir string) string {
	t.Helper()
	cfg := filepath.Join(dir, "s.yaml")
	sc := "seed: 2\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 40}\npolicy: {name: fifo}\n"
	testfile.Write(t, cfg, sc)
	return cfg
}

// TestEveryCommandHelpExitsZero: asking for help is not an error.
func TestEveryCommandHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"help"}, {"compare", "-h"}, {"simulate", "-h"}, {"diff", "-h"}, {"netsim", "-h"},
		{"trace", "-h"}, {"trace", "stats", "-h"}, {"experiment", "-h"}, {"policies", "-h"},
		{"sweep", "-h"}, {"sweep", "plan", "-h"}, {"sweep", "run", "-h"}, {"sweep", "collect", "-h"}, {"sweep", "k8s", "-h"}, {"report", "-h"}, {"explain", "-h"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(strings.ToLower(out+errOut), "usage") {
			t.Errorf("%v: exit %d, output %q; want exit 0 and a usage text", args, code, out+errOut)
		}
	}
}

// TestSimulateOverrides: -policy, -seed and -set change the scenario the
// run uses, and the run's scenario.yaml records them, so that running it
// again gives the same run.
func TestSimulateOverrides(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	out := filepath.Join(dir, "out")
	stdout := mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", out,
		"-policy", "delay", "-seed", "5", "-set", "workload.max_jobs=30", "-set", "policy.params.t1_s=2")
	if !strings.Contains(stdout, "delay: 30/30 jobs") {
		t.Errorf("stdout %q: want delay's run of 30 jobs (-policy delay, -set workload.max_jobs=30)", stdout)
	}
	rec, err := os.ReadFile(filepath.Join(out, "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"-policy delay -seed 5 -set workload.max_jobs=30 -set policy.params.t1_s=2", "seed: 5", "max_jobs: 30", "name: delay", "t1_s: 2"} {
		if !strings.Contains(string(rec), w) {
			t.Errorf("scenario.yaml does not record %q:\n%s", w, rec)
		}
	}
	rerunRecorded(t, "the run overridden by -policy, -seed and -set", out)
}

// TestSimulateTakesTheOperatorsFiles: simulate takes the trace,
// topology, allocation and site files as compare does, with -config or
// on the embedded default, and its scenario.yaml names them, so that the
// record runs again to the same bytes.
func TestSimulateTakesTheOperatorsFiles(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	in := func(f string) string { return filepath.Join(hadoop, f) }
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string   // what the run must say it ran
		record []string // what scenario.yaml must hold
	}{
		{"own files on the embedded default", []string{"-trace", in("job-trace.json"), "-topology", in("topology.data"), "-allocations", in("fair-scheduler.xml"), "-site", in("yarn-site.xml")},
			"fair: 8/8 jobs", []string{"as read from the embedded default with -allocations", "trace: " + in("job-trace.json"), "topology: " + in("topology.data"),
				"allocations: " + in("fair-scheduler.xml"), "site: " + in("yarn-site.xml")}},
		{"a trace in place of -config's, with settings", []string{"-config", cfg, "-trace", "FB-2010", "-set", "workload.max_jobs=25"},
			"fifo: 25/25 jobs", []string{cfg + " with -trace FB-2010 -set workload.max_jobs=25", "trace: FB-2010", "racks: 2", "max_jobs: 25"}},
		{"the embedded default, another policy", []string{"-policy", "delay", "-set", "workload.max_jobs=20"},
			"delay: 20/20 jobs", []string{"the embedded default with -policy delay -set workload.max_jobs=20", "trace: FB-2009", "name: delay"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			stdout := mustRunCLI(t, append([]string{"simulate", "-q", "-out", out}, tc.args...)...)
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout %q; want %q", stdout, tc.stdout)
			}
			rec, err := os.ReadFile(filepath.Join(out, "scenario.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.record {
				if !strings.Contains(string(rec), w) {
					t.Errorf("scenario.yaml does not record %q:\n%s", w, rec)
				}
			}
			rerunRecorded(t, tc.name, out, "jobs.csv")
		})
	}
	code, _, errOut := runCLI(t, "simulate", "-q", "-trace", filepath.Join(dir, "none.json"), "-out", filepath.Join(dir, "o"))
	if code == 0 || !strings.Contains(errOut, "-trace: neither an embedded trace") {
		t.Errorf("a missing -trace file: exit %d, stderr %q; want the flag named", code, errOut)
	}
	// An error of the scenario the flags made names the field, not a
	// line of text the user never wrote.
	code, _, errOut = runCLI(t, "simulate", "-q", "-trace", in("job-trace.json"), "-source-nodes", "10", "-out", filepath.Join(dir, "o"))
	if code == 0 || !strings.Contains(errOut, "-source-nodes 10 -trace "+in("job-trace.json")+": workload.source_nodes: applies to SWIM traces") || strings.Contains(errOut, "line ") {
		t.Errorf("-source-nodes with a Rumen trace: exit %d, stderr %q; want the flags and the field named, and no line", code, errOut)
	}
}

func TestSimulateRefusesBadOverrides(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-set", "cluster.racks=abc"}, "cluster.racks=abc: want a whole number, got abc"},
		{[]string{"-set", "cluster.rackz=4"}, "cluster has no field rackz"},
		{[]string{"-set", "cluster.racks"}, "want path=value"},
		{[]string{"-policy", "nope"}, `-policy: unknown policy "nope"`},
		{[]string{"-set", "policy.params.t9_s=1", "-policy", "delay"}, "t9_s: no such parameter; the policy takes pools, preemption, job_limits, size_based_weight, t1_s, t2_s"},
		{[]string{"-set", "engine.slow_start=abc"}, "engine.slow_start=abc: want a number, got abc"},
	}
	for _, tc := range tests {
		args := append([]string{"simulate", "-q", "-config", cfg, "-out", filepath.Join(dir, "out")}, tc.args...)
		code, _, errOut := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error saying %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("%v: the failed simulate left its output directory; a failed command creates nothing", tc.args)
		}
	}
}

// TestOutputsThatCannotBeWrittenFailFirst: an output path that cannot be
// written is an error before the run, which may take hours, not after.
func TestOutputsThatCannotBeWrittenFailFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	file := filepath.Join(dir, "a-file")
	testfile.Write(t, file, "")
	blocked := filepath.Join(file, "sub") // below a file: never writable
	for _, args := range [][]string{
		{"simulate", "-config", cfg, "-out", blocked},
		{"compare", "-config", cfg, "-policies", "fifo", "-csv", filepath.Join(blocked, "c.csv")},
		{"experiment", "-out", blocked, "fifo-vs-fair"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, blocked) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 naming %s", args, code, errOut, blocked)
		}
		if out != "" || strings.Contains(errOut, "simulating") || strings.Contains(errOut, "Assign calls") {
			t.Errorf("%v: stdout %q, stderr %q: nothing may run before the output is known to be writable", args, out, errOut)
		}
	}
}

// TestCompareCSVIsPlainNumbers: every cell of compare's CSV but the
// policy's name parses as a number; units live in the header.
func TestCompareCSVIsPlainNumbers(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	path := filepath.Join(dir, "c.csv")
	mustRunCLI(t, "compare", "-q", "-config", cfg, "-policies", "fifo,fair", "-csv", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and one row a policy", len(rows))
	}
	for _, r := range rows[1:] {
		for i, cell := range r[1:] {
			if _, err := strconv.ParseFloat(cell, 64); err != nil {
				t.Errorf("column %s of %s is %q, not a plain number", rows[0][i+1], r[0], cell)
			}
		}
	}
	if rows[2][0] != "fair" || rows[2][4] != "1" {
		t.Errorf("fair's throughput_vs_fair is %q, want 1", rows[2][4])
	}
}

func TestCompareRefusesDuplicatePolicies(t *testing.T) {
	code, out, errOut := runCLI(t, "compare", "-q", "-policies", "fair,delay, fair")
	if code != 1 || !strings.Contains(errOut, "-policies: fair is named twice") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 naming the policy given twice", code, out, errOut)
	}
}

// TestCompareTraceFile: compare runs a SWIM trace file given with -trace
// and -source-nodes, and without -source-nodes says it needs it.
func TestCompareTraceFile(t *testing.T) {
	dir := t.TempDir()
	data, _, _ := traces.Embedded("FB-2009")
	lines := strings.SplitAfterN(string(data), "\n", 41)
	path := filepath.Join(dir, "t.tsv")
	testfile.Write(t, path, strings.Join(lines[:40], ""))
	code, _, errOut := runCLI(t, "compare", "-q", "-trace", path, "-policies", "fifo")
	if code != 1 || !strings.Contains(errOut, "-source-nodes") {
		t.Errorf("without -source-nodes: exit %d, stderr %q; want exit 1 asking for -source-nodes", code, errOut)
	}
	runs := filepath.Join(dir, "runs")
	code, out, errOut := runCLI(t, "compare", "-q", "-trace", path, "-source-nodes", "600", "-policies", "fifo", "-out", runs)
	if code != 0 || !strings.Contains(out, "40/40") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the trace's 40 jobs run", code, out, errOut)
	}
	// The run directory's scenario names the trace and its source nodes,
	// so it runs again to the same summary.
	rerunRecorded(t, "compare's run of a trace file", filepath.Join(runs, "fifo"))
}

// TestCompareRecordsTheClusterItRan: a compare run's scenario.yaml keeps
// what the run had of the cluster: the scenario's pools (the record once
// wrote the policy's name alone, so simulate reran delay without them),
// and the own-cluster files -topology, -allocations and -site gave.
func TestCompareRecordsTheClusterItRan(t *testing.T) {
	dir := t.TempDir()
	pools := filepath.Join(dir, "pools.yaml")
	testfile.Write(t, pools, "cluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 150}\n"+
		"policy:\n  name: fair\n  pools:\n    - {name: user0, min_maps: 10, weight: 2}\n  job_limits: {user_default: 2}\n")
	site := testfile.Site(t, "yarn-site.xml", "mapreduce.job.reduce.slowstart.completedmaps", "0.5")
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // what the recorded scenario must hold
	}{
		{"pools", []string{"-config", pools}, []string{"min_maps: 10", "user_default: 2"}},
		{"own-cluster files", []string{"-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"),
			"-allocations", filepath.Join(hadoop, "fair-scheduler.xml"), "-site", site}, []string{"topology: ", "allocations: ", "site: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			args := append([]string{"compare", "-q", "-policies", "delay", "-out", runs}, tc.args...)
			mustRunCLI(t, args...)
			b, err := os.ReadFile(filepath.Join(runs, "delay", "scenario.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("the recorded scenario lacks %q:\n%s", w, b)
				}
			}
			rerunRecorded(t, "compare's delay run with "+tc.name, filepath.Join(runs, "delay"))
		})
	}
}

// TestCompareTitleNamesTheCluster: the table's title names the cluster
// the runs were on, with -seeds too (it once said the default 10 x 10
// for a topology file), and the trace by its file name.
func TestCompareTitleNamesTheCluster(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	for _, seeds := range []string{"1", "2"} {
		out := mustRunCLI(t, "compare", "-q", "-seeds", seeds, "-policies", "fair,delay", "-trace", filepath.Join(hadoop, "job-trace.json"),
			"-topology", filepath.Join(hadoop, "topology.data"))
		title, _, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(title, "job-trace.json on 6 nodes in 2 racks (topology.data)") {
			t.Errorf("-seeds %s: title %q; want the trace's file name on the topology's 6 nodes in 2 racks", seeds, title)
		}
	}
}

// TestProgressBuildsOnTheScenariosCluster: the progress line's estimate
// builds the workload once before the runs; it once built it on the
// default 10 x 10 cluster, whose nodes a trace's hosts are not, and
// warned that the example topology lacks hosts it has.
func TestProgressBuildsOnTheScenariosCluster(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", "-policies", "fair"},
		{"simulate", "-out", filepath.Join(t.TempDir(), "run")},
	} {
		args = append(args, "-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"))
		code, _, stderr := runCLI(t, args...)
		if code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stderr, "100%") {
			t.Errorf("mrsched %s: exit %d, stderr %q; want exit 0, progress to 100%% and no warning: the trace's hosts are the topology's nodes", args[0], code, stderr)
		}
	}
}
