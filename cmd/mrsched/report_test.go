package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// TestReportsOfRuns follows a user: simulate and compare with -report,
// compare -out's run directories rerun by simulate to the same bytes, and
// mrsched report over them.
func TestReportsOfRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s.yaml")
	testfile.Write(t, cfg, "seed: 4\ncluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 80}\npolicy: {name: fair}\n")

	sim := filepath.Join(dir, "sim")
	if code, _, errOut := runCLI(t, "simulate", "-q", "-config", cfg, "-out", sim, "-report", filepath.Join(dir, "sim.html")); code != 0 {
		t.Fatalf("simulate -report: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"uplinks.csv", "pools.csv"} {
		if b, err := os.ReadFile(filepath.Join(sim, f)); err != nil || bytes.Count(b, []byte("\n")) < 2 {
			t.Errorf("simulate -out wrote no %s (%v)", f, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sim.html")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("simulate -report wrote no page with figures (%v)", err)
	}

	cmp := filepath.Join(dir, "cmp")
	code, _, errOut := runCLI(t, "compare", "-q", "-config", cfg, "-policies", "fifo,delay", "-out", cmp,
		"-report", filepath.Join(dir, "cmp.html"), "-figures", filepath.Join(dir, "figs"))
	if code != 0 {
		t.Fatalf("compare -out -report -figures: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"turnaround-cdf.svg", "turnaround-by-class.svg", "locality.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "figs", f)); err != nil {
			t.Errorf("compare -figures: %v", err)
		}
	}
	// A compare run's scenario.yaml is that run: simulate reproduces it.
	rerunRecorded(t, "compare's delay run", filepath.Join(cmp, "delay"))

	page := filepath.Join(dir, "all.html")
	code, stdout, errOut := runCLI(t, "report", "-o", page, cmp, sim)
	if code != 0 || !strings.Contains(stdout, "3 runs") {
		t.Fatalf("report: exit %d, stdout %q: %s", code, stdout, errOut)
	}
	first, _ := os.ReadFile(page)
	runCLI(t, "report", "-o", page, cmp, sim)
	if second, _ := os.ReadFile(page); !bytes.Equal(first, second) {
		t.Errorf("two reports of the same runs differ: a report must depend only on its inputs")
	}
	if !bytes.Contains(first, []byte("run-fair-pools")) || !bytes.Contains(first, []byte("run-delay-uplinks")) {
		t.Errorf("the report lacks a run's figures")
	}
}

func TestReportErrors(t *testing.T) {
	empty := t.TempDir()
	code, _, errOut := runCLI(t, "report", "-o", filepath.Join(empty, "r.html"), empty)
	if code == 0 || !strings.Contains(errOut, "no run") {
		t.Errorf("report of an empty directory: exit %d, %q; want an error saying nothing was found", code, errOut)
	}
	if code, _, _ := runCLI(t, "report"); code != 2 {
		t.Errorf("report without a path exited %d, want 2 (usage)", code)
	}
	// -report naming a directory fails before any simulation.
	code, _, errOut = runCLI(t, "compare", "-q", "-policies", "fifo", "-report", empty)
	if code == 0 || !strings.Contains(errOut, "is a directory") {
		t.Errorf("compare -report DIR: exit %d, %q; want an error before the run", code, errOut)
	}
}

// TestReportOfExperimentCSV: experiment -out's CSVs are read by their
// path, and an experiment with a figure gets it drawn.
func TestReportOfExperimentCSV(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "td", "data-size.csv"),
		"queue,data_gb,queues,fifo_s,fifo_s_min,fifo_s_max,fair_s,fair_s_min,fair_s_max,td_s,td_s_min,td_s_max\n"+
			"small,100,1,10,9,11,12,11,13,9,8,10\nsmall,200,1,20,19,21,22,21,23,19,18,20\n")
	testfile.Write(t, filepath.Join(dir, "notes", "other.csv"), "a,b\n1,2\n")
	page := filepath.Join(dir, "r.html")
	code, stdout, errOut := runCLI(t, "report", "-o", page, "-figures", filepath.Join(dir, "figs"), dir)
	if code != 0 || !strings.Contains(stdout, "1 experiments") {
		t.Fatalf("report of an experiment -out directory: exit %d, %q: %s", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "figs", "td-data-size.svg")); err != nil {
		t.Errorf("the experiment's figure was not written: %v", err)
	}
}
