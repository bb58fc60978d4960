package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/internal/testfile"
)

// poolScenario writes a small scenario whose fair policy has two pools.
func poolScenario(t *testing.T, dir, pools string) string {
	t.Helper()
	cfg := filepath.Join(dir, "pools.yaml")
	sc := "seed: 3\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 60, users: 4}\n" +
		"policy:\n  name: fair\n  params:\n" + pools
	testfile.Write(t, cfg, sc)
	return cfg
}

const twoPools = "    pools:\n      - {name: user0, min_maps: 4, weight: 2}\n      - {name: user1, mode: fifo}\n"

func readSummary(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func policyOf(t *testing.T, sum map[string]any) map[string]any {
	t.Helper()
	cfg, _ := sum["config"].(map[string]any)
	pol, _ := cfg["policy"].(map[string]any)
	if pol == nil {
		t.Fatalf("summary.json has no config.policy")
	}
	return pol
}

// TestCompareCarriesThePools: compare runs every policy that has pools
// with the scenario's, and names in the table's notes each policy that
// cannot honour them, as simulate runs them.
func TestCompareCarriesThePools(t *testing.T) {
	dir := t.TempDir()
	cfg := poolScenario(t, dir, twoPools)
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runCLI(t, "compare", "-q", "-config", cfg, "-policies", "fair,delay,nas,drf,fifo,td", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"fair", "delay", "nas"} {
		pol := policyOf(t, readSummary(t, filepath.Join(out, name, "summary.json")))
		params, _ := pol["params"].(map[string]any)
		pools, _ := params["pools"].([]any)
		if len(pools) != 2 {
			t.Errorf("%s ran with pools %v; want the scenario's two pools (user0, user1)", name, params["pools"])
		}
	}
	drf := policyOf(t, readSummary(t, filepath.Join(out, "drf", "summary.json")))
	if w, _ := drf["params"].(map[string]any)["weights"].(map[string]any); w["user0"] != 2.0 {
		t.Errorf("drf ran with weights %v; want user0's pool weight 2", w)
	}
	for _, want := range []string{
		"fifo has no pools: the scenario's 2 pools do not apply.",
		"td has no pools: the scenario's 2 pools do not apply.",
		"drf has no minimum shares: those of user0 do not apply.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table's notes lack %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "fair ran with the scenario's parameters") {
		t.Errorf("the notes call the cluster's pools fair's own parameters:\n%s", stdout)
	}
	sim := filepath.Join(dir, "sim")
	mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", sim)
	a, _ := os.ReadFile(filepath.Join(out, "fair", "summary.json"))
	b, _ := os.ReadFile(filepath.Join(sim, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Errorf("compare's fair run and simulate's differ: compare must run the scenario's pools as simulate does")
	}
}

// TestPoolsBothWaysAndUnreached: the cluster's pools may be written under
// policy or policy.params, not both; a pool no job goes to is an error
// naming it and the pools jobs do go to.
func TestPoolsBothWaysAndUnreached(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, policy, want string
	}{
		{"under policy", "policy:\n  name: delay\n  pools: [{name: user1, weight: 3}]\n", ""},
		{"in both places", "policy:\n  name: fair\n  pools: [{name: user1}]\n  params: {pools: [{name: user2}]}\n",
			"line 7: policy.params.pools: the cluster's pools are also given as policy.pools (line 6); give them once"},
		{"a pool no job reaches", "policy:\n  name: fair\n  params:\n    pools: [{name: user0}, {name: sls_queue_1}]\n",
			`line 7: policy.params.pools[1].name: no job goes to pool "sls_queue_1": jobs go to one pool a user, user0, user1, user2, user3`},
		{"a weight of 0", "policy:\n  name: fair\n  pools: [{name: user0, weight: 0}]\n", "policy.pools[0].weight: 0 is not a value here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			sc := "seed: 3\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 60, users: 4}\n" + tc.policy
			testfile.Write(t, cfg, sc)
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			code, _, errOut := runCLI(t, "simulate", "-q", "-config", cfg, "-out", out)
			if tc.want == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				return
			}
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errOut, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the failed simulate left %s behind; a failed command creates nothing", out)
			}
		})
	}
}

// TestOutputDirectories: a directory that holds another run is refused
// unless -force, which empties it first; the same compare resumes.
func TestOutputDirectories(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	out := filepath.Join(dir, "out")
	mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", out)
	code, _, errOut := runCLI(t, "simulate", "-q", "-config", cfg, "-out", out)
	if code != 1 || !strings.Contains(errOut, "holds another run (") || !strings.Contains(errOut, "-force") {
		t.Errorf("simulate over a run: exit %d, %q; want exit 1 naming the run and -force", code, errOut)
	}
	if code, _, errOut := runCLI(t, "simulate", "-q", "-force", "-config", cfg, "-out", out, "-seed", "4"); code != 0 {
		t.Fatalf("-force: exit %d: %s", code, errOut)
	}
	cmp := filepath.Join(dir, "cmp")
	if code, _, errOut := runCLI(t, "compare", "-q", "-config", cfg, "-policies", "fifo,fair", "-out", cmp); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "compare", "-config", cfg, "-policies", "fifo,fair", "-out", cmp); code != 0 || !strings.Contains(errOut, "2 of 2 runs read back") {
		t.Errorf("the same compare again: exit %d, %q; want it to read both runs back", code, errOut)
	}
	code, _, errOut = runCLI(t, "compare", "-q", "-config", cfg, "-policies", "fifo,delay", "-out", cmp)
	if code != 1 || !strings.Contains(errOut, "holds another run") {
		t.Errorf("another compare over the first: exit %d, %q; want it refused, never mixed", code, errOut)
	}
	code, _, errOut = runCLI(t, "compare", "-q", "-force", "-config", cfg, "-policies", "fifo,delay", "-out", cmp)
	if code != 0 {
		t.Fatalf("compare -force: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(cmp, "fair")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-force left the earlier compare's fair run beside the new runs")
	}
}

// TestCompareInterruptKeepsFinishedRuns sends SIGINT to a compare once its
// first run is written: it exits 130 saying how many runs it kept, leaves
// no partial run, and the same command then resumes from those kept.
func TestCompareInterruptKeepsFinishedRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s.yaml")
	testfile.Write(t, cfg, "workload: {trace: FB-2009, max_jobs: 1500}\npolicy: {name: fifo}\n")
	out := filepath.Join(dir, "out")
	args := []string{"compare", "-parallel", "1", "-config", cfg, "-policies", "fifo,fair,nas,sw-fair,td", "-out", out}
	stderr := interruptCLI(t, syscall.SIGINT, untilFile(filepath.Join(out, "fifo", "summary.json")), args...)
	if !strings.Contains(stderr, "runs finished, kept in "+out) {
		t.Errorf("stderr %q does not say which runs were kept where", stderr)
	}
	entries, _ := os.ReadDir(out)
	var kept []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("the interrupted compare left %s, a run it had not finished", e.Name())
		}
		kept = append(kept, e.Name())
	}
	if len(kept) < 2 || len(kept) > 5 { // compare.json and 1-4 runs
		t.Errorf("kept %v; want compare.json and the runs finished before the signal", kept)
	}
	// Without -q, the rerun says how many runs it read back.
	code, _, errOut := runCLI(t, args...)
	if code != 0 || !strings.Contains(errOut, fmt.Sprintf("%d of 5 runs read back", len(kept)-1)) {
		t.Fatalf("the same compare again: exit %d, %q; want the %d kept runs read back", code, errOut, len(kept)-1)
	}
	for _, p := range []string{"fifo", "fair", "nas", "sw-fair", "td"} {
		if !fileExists(filepath.Join(out, p, "summary.json")) {
			t.Errorf("after resuming, %s has no run", p)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestSeedZeroAndUsage: seed 0 is a seed everywhere and is labelled as it
// ran; wrong usage exits 2 as docs/cli.md says; a parameter typo lists
// the parameters the policy takes.
func TestSeedZeroAndUsage(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	code, stdout, errOut := runCLI(t, "compare", "-q", "-config", cfg, "-policies", "fifo", "-seed", "0")
	if code != 0 || !strings.Contains(stdout, "(seed 0)") {
		t.Errorf("compare -seed 0: exit %d, %q %q; want the table titled seed 0", code, stdout, errOut)
	}
	if code, _, errOut := runCLI(t, "simulate", "-q", "-config", cfg, "-out", filepath.Join(dir, "s0"), "-seed", "0"); code != 0 {
		t.Errorf("simulate -seed 0: exit %d: %s; want seed 0 run, as a scenario's seed: 0 is", code, errOut)
	}
	for _, args := range [][]string{
		{"compare", "-nosuchflag"},
		{"compare", "-seed", "-1"},
		{"compare", "extra-arg"},
		{"simulate", "-config", cfg},
	} {
		if code, _, errOut := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s); want 2, wrong usage", args, code, errOut)
		}
	}
	code, _, errOut = runCLI(t, "simulate", "-q", "-config", cfg, "-out", filepath.Join(dir, "typo"), "-policy", "delay", "-set", "policy.params.t1=3")
	if code != 1 || !strings.Contains(errOut, "t1_s") || !strings.Contains(errOut, "t2_s") {
		t.Errorf("a parameter typo: exit %d, %q; want exit 1 listing delay's parameters (t1_s, t2_s, ...)", code, errOut)
	}
}

// TestSweepInterruptLeavesNoHiddenRuns sends SIGTERM, as a batch system
// does before it kills a job, to a sweep run once a run has finished: it
// exits 130 saying what it kept, no hidden runs/.NNNN-* directory is left,
// and sweep run then does the rest.
func TestSweepInterruptLeavesNoHiddenRuns(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.yaml")
	testfile.Write(t, base, "workload: {trace: FB-2009, max_jobs: 1500}\npolicy: {name: fifo}\n")
	grid := filepath.Join(dir, "grid.yaml")
	testfile.Write(t, grid, "base: base.yaml\npolicies: [fifo, nas, sw-fair]\nseeds: 2\n")
	sw := filepath.Join(dir, "sw")
	mustRunCLI(t, "sweep", "plan", "-grid", grid, "-out", sw)
	stderr := interruptCLI(t, syscall.SIGTERM, untilFile(filepath.Join(sw, "runs", "0000")), "sweep", "run", "-dir", sw, "-parallel", "1")
	if !strings.Contains(stderr, "runs finished, kept in "+filepath.Join(sw, "runs")) {
		t.Errorf("stderr %q does not say what was kept", stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(sw, "runs"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("the interrupted sweep left %s in runs/", e.Name())
		}
	}
	if code, _, errOut := runCLI(t, "sweep", "run", "-dir", sw, "-q"); code != 0 {
		t.Fatalf("sweep run after the interrupt: exit %d: %s", code, errOut)
	}
	if entries, _ := os.ReadDir(filepath.Join(sw, "runs")); len(entries) != 6 {
		t.Errorf("runs/ holds %d entries after resuming; want the 6 runs", len(entries))
	}
}

// TestReportAndDiffRefuseMixedRuns: report refuses runs of different
// seeds laid side by side, naming them, unless -force; diff refuses a
// base of another seed, and gives no mean over runs of different
// policies.
func TestReportAndDiffRefuseMixedRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	sim := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if code, _, errOut := runCLI(t, append([]string{"simulate", "-q", "-config", cfg, "-out", out}, args...)...); code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", name, code, errOut)
		}
		return out
	}
	fair1, delay2 := sim("fair1", "-policy", "fair"), sim("delay2", "-policy", "delay", "-seed", "5")
	fifo1, delay1 := sim("fifo1"), sim("delay1", "-policy", "delay")
	html := filepath.Join(dir, "r.html")
	code, _, errOut := runCLI(t, "report", "-o", html, fair1, delay2)
	if code != 1 || !strings.Contains(errOut, "fair ran seeds 2 and delay ran seeds 5") {
		t.Errorf("report of fair seed 2 beside delay seed 5: exit %d, %q; want a refusal naming the seeds", code, errOut)
	}
	if fileExists(html) {
		t.Errorf("the refused report wrote %s", html)
	}
	if code, _, errOut := runCLI(t, "report", "-force", "-o", html, fair1, delay2); code != 0 || !strings.Contains(errOut, "warning") {
		t.Errorf("report -force: exit %d, %q; want the page with a warning", code, errOut)
	}
	code, _, errOut = runCLI(t, "diff", fair1, delay2)
	if code != 1 || !strings.Contains(errOut, "ran seed 2 and") {
		t.Errorf("diff across seeds: exit %d, %q; want a refusal naming the seeds", code, errOut)
	}
	code, stdout, errOut := runCLI(t, "diff", fair1, fifo1, delay1)
	if code != 0 || strings.Contains(stdout, "mean of") || !strings.Contains(stdout, "no mean over the runs") {
		t.Errorf("diff over two policies: exit %d, %q %q; want no mean across policies, and a note saying why", code, stdout, errOut)
	}
}

// TestExperimentInterruptSaysWhatItKept sends SIGINT to an experiment
// under way: it exits 130 and says how far it got and what it kept.
func TestExperimentInterruptSaysWhatItKept(t *testing.T) {
	stderr := interruptCLI(t, syscall.SIGINT, func() { time.Sleep(700 * time.Millisecond) }, "experiment", "-parallel", "1", "td/queues")
	if !strings.Contains(stderr, "interrupted: ") || !strings.Contains(stderr, "runs of td/queues finished; none kept (-keep DIR") {
		t.Errorf("stderr %q does not say how far td/queues got and that nothing was kept", stderr)
	}
}

// interruptCLI starts mrsched with args in a process of its own, sends it
// sig once wait returns, and stops the test unless it exits 130, the
// status of a run that was interrupted and kept what it had finished. It
// returns what the command wrote on stderr.
func interruptCLI(t *testing.T, sig os.Signal, wait func(), args ...string) string {
	t.Helper()
	cmd := mrschedCmd(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait()
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("mrsched %s after %v: %v; want exit status 130 (stderr: %s)", strings.Join(args, " "), sig, err, &stderr)
	}
	return stderr.String()
}

// untilFile returns a wait for interruptCLI that ends when path exists,
// or after a minute: a run that never writes it is interrupted anyway.
func untilFile(path string) func() {
	return func() {
		deadline := time.Now().Add(60 * time.Second)
		for !fileExists(path) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
