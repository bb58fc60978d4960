package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mrsched/mrsched/advise"
	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

// adviseScenario is small enough for advice in a second or two: 10 nodes,
// the FB-2009 day's first 120 jobs.
const adviseScenario = `seed: 1
cluster:
  racks: 2
  nodes_per_rack: 5
workload:
  trace: FB-2009
  users: 5
  max_jobs: 120
policy:
  name: fair
`

var registerTwin sync.Once

// delayTwin registers delay again under another name: one policy, two names.
func delayTwin(t *testing.T) {
	registerTwin.Do(func() {
		for _, e := range sched.Policies() {
			if e.Name == "delay" {
				if err := sched.Register(sched.Entry{Name: "delay-twin", Summary: "delay under another name (test)", New: e.New, Ablation: true}); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	testfile.Write(t, p, text)
	return p
}

// Advice on a small scenario names a candidate, writes advice.json and
// advice.html, and the same seed gives the same stdout byte for byte.
func TestAdviseIsDeterministicAndWritesItsFiles(t *testing.T) {
	cfg := writeScenario(t, adviseScenario)
	run := func(out string) string {
		return mustRunCLI(t, "advise", "-config", cfg, "-policies", "fifo,fair,delay", "-max-seeds", "4", "-budget", "0", "-q", "-out", out)
	}
	dir := t.TempDir()
	a, b := run(filepath.Join(dir, "a")), run(filepath.Join(dir, "b"))
	if a != b {
		t.Errorf("two runs of the same advice differ:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "against fair:") || !strings.Contains(a, "seeds)") {
		t.Errorf("verdict %q: want it stated against fair with an interval's seed count", a)
	}
	ja, _ := os.ReadFile(filepath.Join(dir, "a", "advice.json"))
	jb, _ := os.ReadFile(filepath.Join(dir, "b", "advice.json"))
	if !bytes.Equal(ja, jb) || len(ja) == 0 {
		t.Errorf("advice.json differs between two runs of the same advice (or is empty)")
	}
	var adv advise.Advice
	if err := json.Unmarshal(ja, &adv); err != nil || adv.Result == nil || adv.Result.Decision == nil {
		t.Fatalf("advice.json does not read back as a decided advice: %v", err)
	}
	if len(adv.Result.Stages[0].Runs) == 0 {
		t.Errorf("advice.json holds no runs; want every candidate's figures per seed")
	}
	if html, err := os.ReadFile(filepath.Join(dir, "a", "advice.html")); err != nil || !bytes.Contains(html, []byte("delay: mean turnaround against t1_s")) {
		t.Errorf("advice.html lacks delay's sensitivity curve over t1_s (err %v)", err)
	}
}

// TestAdviseAgainstTheScenariosPolicy: without -current the gains are
// stated against the policy the operator's scenario runs (the help said
// so, but the base was fair whatever the scenario ran), and against delay
// where its site file's Fair Scheduler waits for locality.
func TestAdviseAgainstTheScenariosPolicy(t *testing.T) {
	cfg := writeScenario(t, strings.Replace(adviseScenario, "name: fair", "name: drf", 1))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "against drf:"},
		{[]string{"-current", "fifo"}, "against fifo:"},
	} {
		v := mustRunCLI(t, append([]string{"advise", "-config", cfg, "-policies", "fifo,fair", "-max-seeds", "2", "-q"}, tc.args...)...)
		if !strings.Contains(v, tc.want) {
			t.Errorf("-current %v: verdict %q; want it %s", tc.args, v, tc.want)
		}
	}
	// A site file whose Fair Scheduler waits for locality runs delay.
	site := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.locality.threshold.node", "0.5", "yarn.scheduler.fair.locality.threshold.rack", "0.5")
	fair := writeScenario(t, adviseScenario)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-site", site}, "against delay:"},
		{[]string{"-site", site, "-current", "fair"}, "against fair:"},
	} {
		v := mustRunCLI(t, append([]string{"advise", "-config", fair, "-policies", "fifo", "-max-seeds", "2", "-q"}, tc.args...)...)
		if !strings.Contains(v, tc.want) {
			t.Errorf("-current %v: verdict %q; want it %s", tc.args, v, tc.want)
		}
	}
}

// TestSeededCommandsWarnOfWhatDoesNotApply: compare -seeds and advise,
// like compare, name the settings of the operator's files a policy cannot
// apply; both once dropped them.
func TestSeededCommandsWarnOfWhatDoesNotApply(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	own := []string{"-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"),
		"-allocations", filepath.Join(hadoop, "fair-scheduler.xml"), "-policies", "fair,drf", "-q"}
	for _, args := range [][]string{
		append([]string{"compare", "-seeds", "2"}, own...),
		append([]string{"advise", "-max-seeds", "2"}, own...),
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 0 || !strings.Contains(errOut, "warning: policy.allocations: policy drf has no pools; the allocation file does not apply to it") {
			t.Errorf("%s: exit %d, stderr %q; want drf named as lacking the allocation file's pools", args[0], code, errOut)
		}
	}
}

// One policy under two names: the verdict never says one beats the other.
func TestAdviseSamePolicyTwiceIsWithinNoise(t *testing.T) {
	delayTwin(t)
	cfg := writeScenario(t, adviseScenario)
	v := mustRunCLI(t, "advise", "-config", cfg, "-policies", "delay-twin", "-current", "delay", "-max-seeds", "4", "-q")
	if !strings.Contains(v, "Keep delay") || !strings.Contains(v, "within noise of it are delay-twin") {
		t.Errorf("verdict %q: want it to keep delay and name delay-twin within noise of it", v)
	}
	if strings.Contains(v, "Run delay-twin") {
		t.Errorf("verdict %q tells to run the same policy under its other name", v)
	}
}

// compare -seeds runs every policy on the same seeds and says which
// differences from the first policy exceed their noise; one policy under
// two names never differs.
func TestCompareSeedsPairsBySeed(t *testing.T) {
	delayTwin(t)
	cfg := writeScenario(t, adviseScenario)
	out := mustRunCLI(t, "compare", "-config", cfg, "-policies", "delay,delay-twin,fair", "-seeds", "3", "-q")
	for _, want := range []string{"(seeds 1-3, common to every policy): mean ± standard error", "differences from delay beyond noise", "within noise: delay-twin throughput, delay-twin mean turnaround, delay-twin cross-rack"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare -seeds 3 output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runCLI(t, "compare", "-config", cfg, "-seeds", "2", "-out", t.TempDir()); code == 0 {
		t.Errorf("compare -seeds 2 -out ran; want it refused (-out writes one run a policy)")
	}
}

// advise -sweep plans the candidates as sweeps; once they have run,
// advise -collect decides on them as advise would.
func TestAdviseSweepThenCollect(t *testing.T) {
	cfg := writeScenario(t, adviseScenario)
	dir := filepath.Join(t.TempDir(), "adv")
	mustRunCLI(t, "advise", "-config", cfg, "-policies", "fifo,delay", "-current", "fifo", "-sweep", dir, "-sweep-seeds", "3")
	if code, _, _ := runCLI(t, "advise", "-collect", dir); code == 0 {
		t.Fatalf("advise -collect of unrun sweeps succeeded; want it refused, naming the runs not finished")
	}
	for _, p := range []string{"fifo", "delay"} {
		mustRunCLI(t, "sweep", "run", "-dir", filepath.Join(dir, p), "-q")
	}
	out := mustRunCLI(t, "advise", "-collect", dir)
	if !strings.Contains(out, "against fifo:") || !strings.Contains(out, "3 seeds") {
		t.Errorf("advise -collect printed %q; want a verdict against fifo over the sweep's 3 seeds", out)
	}
}

// TestAdviseRunsOnTheGivenCluster: advise's runs are on the cluster the
// flags gave (-topology), with its allocation file: the planned runs'
// scenario names them. The runs once took the default 10 x 10 cluster,
// since the scenario they came from left -topology out.
func TestAdviseRunsOnTheGivenCluster(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "adv")
	mustRunCLI(t, "advise", "-q", "-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"),
		"-allocations", filepath.Join(hadoop, "fair-scheduler.xml"), "-policies", "fair", "-sweep", dir)
	b, err := os.ReadFile(filepath.Join(dir, "bases", "fair.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"topology: " + filepath.Join(hadoop, "topology.data"), "allocations: " + filepath.Join(hadoop, "fair-scheduler.xml")} {
		if !strings.Contains(string(b), w) {
			t.Errorf("the runs' scenario lacks %q:\n%s", w, b)
		}
	}
}

// TestAdviseLinesAreForTheOperatorsCluster: the lines advise prints
// speak of the cluster the runs were on (its topology's nodes, not the
// default 100, in YARN's locality note) and of the scheduler its files
// are for (a YARN allocation file or yarn-site.xml: YARN's lines alone;
// a mapred-site.xml: Hadoop 1's); with neither, both.
func TestAdviseLinesAreForTheOperatorsCluster(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	mr1Site := testfile.Site(t, "mapred-site.xml", "mapred.fairscheduler.preemption", "true")
	for _, tc := range []struct {
		name, policy string
		nodes        int
		hadoop       string
	}{
		{"embedded default", "policy: {name: fair}\nworkload: {trace: FB-2009}", 100, ""},
		{"topology and yarn allocation file", "policy: {name: fair, allocations: " + filepath.Join(hadoop, "fair-scheduler.xml") + "}", 6, advise.YARN},
		{"hadoop 1 allocation file", "policy: {name: fair, allocations: " + filepath.Join(hadoop, "mr1-fair-scheduler.xml") + "}", 6, advise.Hadoop1},
		{"yarn-site.xml", "policy: {name: fair, site: " + filepath.Join(hadoop, "yarn-site.xml") + "}", 6, advise.YARN},
		{"mapred-site.xml", "policy: {name: fair, site: " + mr1Site + "}", 6, advise.Hadoop1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.policy + "\n"
			if tc.nodes != 100 {
				src += "workload: {trace: " + filepath.Join(hadoop, "job-trace.json") + "}\ncluster: {topology: " + filepath.Join(hadoop, "topology.data") + "}\n"
			}
			c, err := scenario.LoadBytes([]byte(src), "s.yaml", t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cl := clusterOf(c, "")
			if cl.Nodes != tc.nodes || cl.Hadoop != tc.hadoop {
				t.Errorf("%d nodes, scheduler %q; want %d and %q", cl.Nodes, cl.Hadoop, tc.nodes, tc.hadoop)
			}
			lines := strings.Join(advise.ConfigLines(advise.Candidate{Policy: "delay", Settings: []advise.Setting{{Key: "t1_s", Value: "1"}, {Key: "t2_s", Value: "1"}}}, cl), "\n")
			hasH1, hasYARN := strings.Contains(lines, "Hadoop 1 ("), strings.Contains(lines, "YARN (")
			if hasH1 != (tc.hadoop != advise.YARN) || hasYARN != (tc.hadoop != advise.Hadoop1) {
				t.Errorf("Hadoop 1's lines %v, YARN's %v, for a cluster of %q; want only its scheduler's, both where unknown:\n%s", hasH1, hasYARN, tc.hadoop, lines)
			}
			if want := fmt.Sprintf("x %d nodes", tc.nodes); tc.hadoop != advise.Hadoop1 && !strings.Contains(lines, want) {
				t.Errorf("YARN's locality note lacks %q, the cluster's nodes:\n%s", want, lines)
			}
		})
	}
}

// TestAdviseLinesSayWhatRan: the lines for a candidate that sets no wait
// or preemption are what its runs took from the operator's site file
// (the example's thresholds of 0.5 and preemption gated at 0.8), not the
// policy's defaults; "Keep delay" once printed 15 s waits and preemption
// off for a cluster that runs neither.
func TestAdviseLinesSayWhatRan(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	c, err := scenario.LoadBytes([]byte("workload: {trace: job-trace.json}\ncluster: {topology: topology.data}\npolicy: {name: delay, site: yarn-site.xml}\n"), "s.yaml", hadoop)
	if err != nil {
		t.Fatal(err)
	}
	cl := clusterOf(c, "")
	for _, tc := range []struct {
		cand       advise.Candidate
		want, lack []string
	}{
		{advise.Candidate{Policy: "delay"}, []string{"locality.threshold.node</name><value>0.50<", "locality.threshold.rack</name><value>0.50<",
			"yarn.scheduler.fair.preemption</name><value>true<", "cluster-utilization-threshold</name><value>0.8<"}, []string{"15000"}},
		{advise.Candidate{Policy: "delay", Settings: []advise.Setting{{Key: "t1_s", Value: "1"}}}, []string{"locality.threshold.node</name><value>1.00<", "locality.threshold.rack</name><value>0.50<"}, nil},
	} {
		lines := strings.Join(advise.ConfigLines(tc.cand, cl), "\n")
		for _, w := range tc.want {
			if !strings.Contains(lines, w) {
				t.Errorf("%s: lines lack %q, what the runs took:\n%s", tc.cand.Label(), w, lines)
			}
		}
		for _, no := range tc.lack {
			if strings.Contains(lines, no) {
				t.Errorf("%s: lines hold %q, the policy's default the runs did not take:\n%s", tc.cand.Label(), no, lines)
			}
		}
	}
}

// TestSiteCostsNamedWhereTheRunsSkipThem: a site file's sort buffer is
// named as not applied by a command whose runs model no spills (compare
// on the fluid model), and not by advise, whose runs take a profile that
// models them.
func TestSiteCostsNamedWhereTheRunsSkipThem(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	site := testfile.Site(t, "mapred-site.xml", "io.sort.mb", "256")
	own := []string{"-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"), "-site", site, "-policies", "fair,delay", "-q"}
	const note = "io.sort.mb: not applied: the run models no map spills or merges"
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{append([]string{"compare"}, own...), true},
		{append([]string{"advise", "-max-seeds", "2"}, own...), false},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 0 || strings.Contains(errOut, note) != tc.want {
			t.Errorf("%s: exit %d, stderr %q; want the note %q: %v (the runs model spills: %v)", tc.args[0], code, errOut, note, tc.want, !tc.want)
		}
	}
}
