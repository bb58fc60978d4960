package report

import (
	"strings"
	"testing"

	"github.com/mrsched/mrsched/metrics"
)

func cfgRun(dir, policy string, seed float64, racks float64, jobs float64) *Run {
	return &Run{Dir: dir, Summary: metrics.Summary{Policy: policy, Config: map[string]any{
		"seed":     seed,
		"cluster":  map[string]any{"racks": racks},
		"workload": map[string]any{"trace": "FB-2009", "jobs": jobs},
		"policy":   map[string]any{"name": policy, "params": map[string]any{}},
	}}}
}

// TestComparable: runs laid side by side must share their set-up, and
// every policy its seeds; the jobs a generator drew on another seed are not
// a set-up.
func TestComparable(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []*Run
		want string // "" for comparable
	}{
		{"one seed, two policies", []*Run{cfgRun("a", "fair", 1, 4, 10), cfgRun("b", "delay", 1, 4, 10)}, ""},
		{"two seeds each, other jobs drawn", []*Run{cfgRun("a", "fair", 1, 4, 10), cfgRun("b", "fair", 2, 4, 12),
			cfgRun("c", "delay", 2, 4, 12), cfgRun("d", "delay", 1, 4, 10)}, ""},
		{"policies on different seeds", []*Run{cfgRun("a", "fair", 1, 4, 10), cfgRun("b", "delay", 2, 4, 10)},
			"fair ran seeds 1 and delay ran seeds 2"},
		{"different clusters", []*Run{cfgRun("a", "fair", 1, 4, 10), cfgRun("b", "delay", 1, 8, 10)},
			"a and b ran different set-ups (cluster.racks 4 vs 8)"},
		{"runs without a configuration", []*Run{{Summary: metrics.Summary{Policy: "fair"}}, {Summary: metrics.Summary{Policy: "delay"}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Comparable(tc.runs)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v; want these runs laid side by side", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v; want one saying %q", err, tc.want)
			}
		})
	}
}

// TestPageOfRunsWithoutCompletedJobs: a run in which no job completed (all
// failed) still gives a page, its turnaround figure empty and saying why;
// a log axis over no values used to fail the whole page.
func TestPageOfRunsWithoutCompletedJobs(t *testing.T) {
	runs := []*Run{{Label: "fifo", Summary: metrics.Summary{Policy: "fifo", JobsSubmitted: 3}},
		{Label: "fair", Summary: metrics.Summary{Policy: "fair", JobsSubmitted: 3}}}
	var b strings.Builder
	if err := (&Page{Title: "t", Runs: runs}).Render(&b); err != nil {
		t.Fatalf("render: %v; want a page with empty figures", err)
	}
	if !strings.Contains(b.String(), "Not drawn (no jobs.csv or no completed job): fifo, fair") {
		t.Errorf("the page does not say why the turnaround figure is empty")
	}
}
