package rundb

import (
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sweep"
)

// collected plans and runs a sweep of 2 cells x 2 policies x 2 seeds of
// 30 jobs each, and collects it.
func collected(t *testing.T) *sweep.Collection {
	t.Helper()
	dir := t.TempDir()
	base := "cluster: {racks: 2, nodes_per_rack: 4}\nworkload: {trace: FB-2009, max_jobs: 30}\npolicy: {name: fair}\n"
	grid := "base: base.yaml\npolicies: [fair, delay]\nseeds: 2\naxes:\n  cluster.rack_uplink_mbps: [250, 1000]\n"
	for name, s := range map[string]string{"base.yaml": base, "grid.yaml": grid} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := sweep.LoadGrid(filepath.Join(dir, "grid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(filepath.Join(dir, "s")); err != nil {
		t.Fatal(err)
	}
	s, err := sweep.Open(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunAll(2, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Collect(sweep.CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWriteHoldsEveryRunAndJob: the database holds each run with its
// summary's figures, its cell's settings and every row of its jobs.csv,
// as the documented schema says.
func TestWriteHoldsEveryRunAndJob(t *testing.T) {
	c := collected(t)
	path := filepath.Join(t.TempDir(), "sweep.db")
	if err := os.WriteFile(path, []byte("an older file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, c); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := count("SELECT count(*) FROM runs"); n != 8 {
		t.Errorf("%d runs, want 8", n)
	}
	if n := count("SELECT count(*) FROM settings WHERE path = 'cluster.rack_uplink_mbps' AND value = 250"); n != 4 {
		t.Errorf("%d runs with uplink 250 found by a numeric value, want 4", n)
	}
	if n := count("SELECT count(*) FROM jobs"); n != 8*30 {
		t.Errorf("%d jobs, want 8 runs x 30", n)
	}
	for _, r := range c.Runs {
		var mean, jobsMean float64
		var policy, summary string
		err := db.QueryRow(`SELECT policy, turnaround_mean_s, summary,
			(SELECT avg(turnaround_s) FROM jobs j WHERE j.run = runs.run AND finish_s >= 0)
			FROM runs WHERE run = ?`, r.Run.Index).Scan(&policy, &mean, &summary, &jobsMean)
		if err != nil {
			t.Fatal(err)
		}
		if policy != r.Run.Policy || mean != r.Summary.Turnaround.Mean || summary != string(r.SummaryJSON) {
			t.Errorf("run %d: policy %s, mean turnaround %v; want %s, %v and summary.json whole", r.Run.Index, policy, mean, r.Run.Policy, r.Summary.Turnaround.Mean)
		}
		// jobs.csv writes 6 decimals, so its mean is the summary's to 1e-6.
		if math.Abs(jobsMean-r.Summary.Turnaround.Mean) > 1e-5 {
			t.Errorf("run %d: the jobs table's mean turnaround %v is not the summary's %v", r.Run.Index, jobsMean, r.Summary.Turnaround.Mean)
		}
	}
}

// TestWriteRefusesDifferentJobColumns: runs written by versions of
// mrsched with different jobs.csv columns cannot share one jobs table.
func TestWriteRefusesDifferentJobColumns(t *testing.T) {
	c := collected(t)
	p := filepath.Join(c.Runs[3].Dir, "jobs.csv")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "slowdown", "slowdown,reason", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sweep.db")
	if err := Write(path, c); err == nil || !strings.Contains(err.Error(), "different versions") {
		t.Errorf("Write = %v, want a refusal naming the differing columns", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("a failed Write left %s behind", path)
	}
}
