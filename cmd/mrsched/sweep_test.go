package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepCommands plans the tiny example, runs two of its runs as array
// tasks would (one index from SLURM_ARRAY_TASK_ID, one from
// JOB_COMPLETION_INDEX), the rest locally, and collects it.
func TestSweepCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	code, out, errOut := runCLI(t, "sweep", "plan", "-grid", "../../examples/sweep/tiny.yaml", "-out", dir)
	if code != 0 || !strings.Contains(out, "planned 12 runs") || !strings.Contains(out, "sbatch --array=0-11") {
		t.Fatalf("plan: exit %d, stdout %q, stderr %q; want 12 runs and the sbatch line", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "sweep", "plan", "-grid", "../../examples/sweep/tiny.yaml", "-out", dir); code != 0 || !strings.Contains(out, "already holds this plan") {
		t.Errorf("planning again: exit %d, stdout %q; want a no-op", code, out)
	}
	for _, env := range []struct{ name, index, want string }{
		{"SLURM_ARRAY_TASK_ID", "4", "run 4 (cluster.rack_uplink_mbps=250, delay, seed 2, from $SLURM_ARRAY_TASK_ID)"},
		{"JOB_COMPLETION_INDEX", "11", "run 11 (cluster.rack_uplink_mbps=1000, delay, seed 3, from $JOB_COMPLETION_INDEX)"},
	} {
		t.Setenv(env.name, env.index)
		code, _, errOut := runCLI(t, "sweep", "run", "-dir", dir)
		if code != 0 || !strings.Contains(errOut, env.want) {
			t.Errorf("run with %s=%s: exit %d, stderr %q; want %q", env.name, env.index, code, errOut, env.want)
		}
		os.Unsetenv(env.name)
	}
	code, _, errOut = runCLI(t, "sweep", "collect", "-dir", dir)
	if code != 1 || !strings.Contains(errOut, "10 of 12 runs have not finished") {
		t.Errorf("collect of an unfinished sweep: exit %d, stderr %q; want a refusal", code, errOut)
	}
	code, _, errOut = runCLI(t, "sweep", "run", "-dir", dir, "-parallel", "2")
	if code != 0 || !strings.Contains(errOut, "10 of 12 runs to do") {
		t.Errorf("run -parallel 2: exit %d, stderr %q; want the 10 unfinished runs run", code, errOut)
	}
	db := filepath.Join(t.TempDir(), "tiny.db")
	code, out, errOut = runCLI(t, "sweep", "collect", "-dir", dir, "-sqlite", db)
	if code != 0 || strings.Count(out, "±") < 4 {
		t.Fatalf("collect: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, f := range []string{filepath.Join(dir, "collect.csv"), db} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("collect did not write %s", f)
		}
	}
	code, out, _ = runCLI(t, "sweep", "k8s", "-dir", dir, "-image", "example/mrsched:1")
	if code != 0 || !strings.Contains(out, "completions: 12") || !strings.Contains(out, "image: example/mrsched:1") {
		t.Errorf("k8s: exit %d, stdout %q", code, out)
	}
}

func TestSweepRefusesBadUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep"}, 2, "usage: mrsched sweep plan"},
		{[]string{"sweep", "frob"}, 1, `unknown sweep command "frob"`},
		{[]string{"sweep", "plan", "-grid", "x.yaml"}, 2, "usage: mrsched sweep plan"},
		{[]string{"sweep", "run", "-dir", dir}, 1, "holds no sweep plan"},
		{[]string{"sweep", "run", "-dir", dir, "-index", "1", "-parallel", "2"}, 1, "-index runs one run"},
		{[]string{"sweep", "collect"}, 2, "usage: mrsched sweep collect"},
		{[]string{"sweep", "collect", "-dir", filepath.Join(dir, "none")}, 1, "holds no sweep plan"},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "x")
	plan := filepath.Join(dir, "p")
	if code, _, errOut := runCLI(t, "sweep", "plan", "-grid", "../../examples/sweep/tiny.yaml", "-out", plan); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCLI(t, "sweep", "run", "-dir", plan); code != 1 || !strings.Contains(errOut, `$SLURM_ARRAY_TASK_ID is "x"`) {
		t.Errorf("a malformed array index: exit %d, stderr %q", code, errOut)
	}
}
