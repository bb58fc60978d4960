package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/metrics"
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

// TestExplainFindsAJobByName: a traced job is known to its operator by
// its Hadoop job id, jobs.csv's name column, so -job takes the name as
// well as the id; a name no job has, or two share, is an error that says
// so.
func TestExplainFindsAJobByName(t *testing.T) {
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	mustRunCLI(t, "simulate", "-q", "-trace", filepath.Join(hadoop, "job-trace.json"), "-topology", filepath.Join(hadoop, "topology.data"), "-out", out)
	stdout := mustRunCLI(t, "explain", out, "-job", "job_1700000000000_0002")
	if !strings.HasPrefix(stdout, "job 1 (job_1700000000000_0002, trace, user bob") {
		t.Errorf("explain -job job_1700000000000_0002 began %q; want job 1, the trace's second job, named", strings.SplitN(stdout, "\n", 2)[0])
	}
	jobs := []metrics.JobRecord{{ID: 0, Name: "job_a"}, {ID: 1, Name: "job_b"}, {ID: 2, Name: "job_b"}, {ID: 3, Name: "7"}}
	for _, tc := range []struct {
		want    string
		at      int
		errText string
	}{
		{"1", 1, ""},
		{"job_a", 0, ""},
		{"job_b", -1, "2 jobs are named job_b (ids 1, 2)"},
		{"job_c", -1, `no job with the id or name "job_c"`},
		{"7", 3, ""},
		{"9", -1, "no job 9 (ids run from 0 to 3)"},
	} {
		at, err := findJob(jobs, tc.want, "jobs.csv")
		if at != tc.at || (err == nil) != (tc.errText == "") || (err != nil && !strings.Contains(err.Error(), tc.errText)) {
			t.Errorf("findJob(%q) = %d, %v; want %d and an error holding %q (an id first, else a name, one job's)", tc.want, at, err, tc.at, tc.errText)
		}
	}
}
