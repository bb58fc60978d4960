package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainTellsAJobsStory runs a small scenario with its decisions
// log, then explains one of its jobs: the parts of its time, the jobs
// ahead of it and its launches by rule, as a new user would read them.
func TestExplainTellsAJobsStory(t *testing.T) {
	dir := t.TempDir()
	cfg := smallScenario(t, dir)
	out := filepath.Join(dir, "out")
	stdout := mustRunCLI(t, "simulate", "-q", "-config", cfg, "-out", out, "-policy", "delay",
		"-decisions", filepath.Join(out, "decisions.jsonl.gz"))
	if !strings.Contains(stdout, "decisions)") {
		t.Errorf("simulate's output %q does not say it wrote the decisions log", stdout)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"a job, its log found in the run directory", []string{"explain", out, "-job", "7"}, 0,
			[]string{"job 7 (", "under delay", "Where its time went", "turnaround", "Its task launches", "by rule:"}},
		{"flags before the directory", []string{"explain", "-job", "7", "-tasks", "1", out}, 0,
			[]string{"job 7 (", "Its task launches"}},
		{"no such job", []string{"explain", out, "-job", "4000"}, 1, []string{"no job 4000", "ids run from 0 to 39"}},
		{"no job given", []string{"explain", out}, 2, []string{"-job"}},
		{"no run directory", []string{"explain", "-job", "1"}, 2, []string{"usage"}},
		{"a log that is not one", []string{"explain", out, "-job", "1", "-decisions", cfg}, 1, []string{"s.yaml", "not a gzip-compressed decisions log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, errOut := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, stdout, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout+errOut, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, errOut)
				}
			}
		})
	}
}
