package metrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// testRun builds a Run from turnarounds by job ID and summary figures.
func testRun(dir string, mean, thr, steady, xr float64, jobs map[int]float64) *Run {
	var s Summary
	s.Turnaround.Mean, s.ThroughputJobsPerHour, s.SteadyState.JobsPerHour, s.Bytes.CrossRackTotal = mean, thr, steady, xr
	return &Run{Dir: dir, Summary: s, Turnaround: jobs}
}

func TestCompareMeasures(t *testing.T) {
	base := testRun("base", 100, 1000, 900, 5e12, map[int]float64{1: 10, 2: 20, 3: 40, 4: 0.5, 5: 1.2, 6: 8})
	tests := []struct {
		name string
		run  *Run
		want Change
	}{
		{
			name: "identical runs change nothing",
			run:  base,
			want: Change{Jobs: 5},
		},
		{
			name: "summary figures are relative changes in percent",
			run:  testRun("r", 110, 950, 909, 4.5e12, base.Turnaround),
			want: Change{MeanTurnaround: 10, Throughput: -5, SteadyThroughput: 1, CrossRackBytes: -10, Jobs: 5},
		},
		{
			// Changes +10%, +5%, -50%, +20%: jobs 4 (0.5 s) and 5 (0.9 s in
			// the run) are left out, so the median is of four changes.
			name: "median job counts jobs over 1 s in both runs, mean of the middle two",
			run:  testRun("r", 100, 1000, 900, 5e12, map[int]float64{1: 11, 2: 21, 3: 20, 4: 5, 5: 0.9, 6: 9.6}),
			want: Change{MedianJob: 7.5, Jobs: 4},
		},
		{
			name: "jobs missing from the run are left out",
			run:  testRun("r", 100, 1000, 900, 5e12, map[int]float64{1: 12, 3: 44}),
			want: Change{MedianJob: 15, Jobs: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compare(base, tc.run)
			if err != nil {
				t.Fatal(err)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !near(got.MeanTurnaround, tc.want.MeanTurnaround) || !near(got.Throughput, tc.want.Throughput) ||
				!near(got.SteadyThroughput, tc.want.SteadyThroughput) || !near(got.CrossRackBytes, tc.want.CrossRackBytes) ||
				!near(got.MedianJob, tc.want.MedianJob) || got.Jobs != tc.want.Jobs {
				t.Errorf("Compare = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCompareZeroBase: a figure that is 0 in the base run has no relative
// change unless it is 0 in the run too (one rack carries no cross-rack
// bytes; nor do two runs of it).
func TestCompareZeroBase(t *testing.T) {
	jobs := map[int]float64{1: 10}
	for _, tc := range []struct {
		name   string
		xr     float64
		wantOK bool // a number, not NaN
	}{
		{"zero in both reads no change", 0, true},
		{"zero in the base only has no relative change", 5e12, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compare(testRun("base", 100, 1000, 900, 0, jobs), testRun("r", 100, 1000, 900, tc.xr, jobs))
			if err != nil {
				t.Fatal(err)
			}
			if ok := !math.IsNaN(got.CrossRackBytes); ok != tc.wantOK || ok && got.CrossRackBytes != 0 {
				t.Errorf("CrossRackBytes = %v, want %s", got.CrossRackBytes, map[bool]string{true: "0", false: "NaN"}[tc.wantOK])
			}
		})
	}
}

// TestCompareMedianJobIsTwoSided pins why both runs' turnarounds bound the
// jobs counted: with the base's alone, a run identical but for jobs that
// drop from just over 1 s to well under would read as faster per job, and
// the same pair compared the other way round would not read as slower.
func TestCompareMedianJobIsTwoSided(t *testing.T) {
	a := map[int]float64{1: 1.1, 2: 1.1, 3: 1.1, 4: 5, 5: 6}
	b := map[int]float64{1: 0.2, 2: 0.2, 3: 0.2, 4: 5, 5: 6}
	ab, err := Compare(testRun("a", 1, 1, 1, 1, a), testRun("b", 1, 1, 1, 1, b))
	if err != nil {
		t.Fatal(err)
	}
	ba, err := Compare(testRun("b", 1, 1, 1, 1, b), testRun("a", 1, 1, 1, 1, a))
	if err != nil {
		t.Fatal(err)
	}
	if ab.MedianJob != 0 || ba.MedianJob != 0 || ab.Jobs != 2 || ba.Jobs != 2 {
		t.Errorf("median job a->b %+.1f%% over %d jobs, b->a %+.1f%% over %d: want 0%% over the 2 jobs over 1 s in both, either way",
			ab.MedianJob, ab.Jobs, ba.MedianJob, ba.Jobs)
	}
}

func TestCompareBySizeBandsByTheBaseRun(t *testing.T) {
	// Job 6 sits on an edge and belongs to the band above it; job 5 did not
	// finish in the run and is left out; job 7 is only in the run; job 8
	// is held up, 20 s longer than in the base run.
	base := testRun("base", 1, 1, 1, 1, map[int]float64{1: 0.5, 2: 5, 3: 50, 4: 500, 5: 5000, 6: 10, 8: 0.25})
	run := testRun("run", 1, 1, 1, 1, map[int]float64{1: 1.5, 2: 6, 3: 40, 4: 500, 6: 12, 7: 3, 8: 20.25})
	got, err := CompareBySize(base, run, SizeBands)
	if err != nil {
		t.Fatal(err)
	}
	want := []BandChange{
		{Lo: 0, Hi: 1, Jobs: 2, BaseMean: 0.375, RunMean: 10.875, MedianDelta: 10.5, HeldUp: 0.5, RestDelta: 1},
		{Lo: 1, Hi: 10, Jobs: 1, BaseMean: 5, RunMean: 6, MedianDelta: 1, RestDelta: 1},
		{Lo: 10, Hi: 100, Jobs: 2, BaseMean: 30, RunMean: 26, MedianDelta: -4, RestDelta: -4},
		{Lo: 100, Hi: 1000, Jobs: 1, BaseMean: 500, RunMean: 500},
		{Lo: 1000, Hi: math.Inf(1), Jobs: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d bands, want %d, one per pair of edges in %v", len(got), len(want), SizeBands)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("band %d = %+v, want %+v: jobs go to the band of their base turnaround, edges to the band above, and only jobs done in both runs count; the median is over each job's change, held up means over %g s longer, and the rest's mean leaves those out", i, got[i], want[i], HeldUpS)
		}
	}
	if d, p := got[1].Delta(), got[1].Pct(); d != 1 || math.Abs(p-20) > 1e-9 {
		t.Errorf("band 1 moved %v s, %v%%; want +1 s, +20%% (5 s to 6 s)", d, p)
	}
	if p := got[4].Pct(); p != 0 {
		t.Errorf("an empty band reads %v%%, want 0", p)
	}
}

func TestCompareBySizeRejectsBadBands(t *testing.T) {
	r := testRun("a", 1, 1, 1, 1, map[int]float64{1: 5})
	for _, edges := range [][]float64{nil, {1}, {0, 10, 10}, {10, 1}} {
		if _, err := CompareBySize(r, r, edges); err == nil || !strings.Contains(err.Error(), "increasing") {
			t.Errorf("edges %v: err = %v, want one asking for increasing edges", edges, err)
		}
	}
}

func TestCompareWithoutCommonJobsFails(t *testing.T) {
	_, err := Compare(testRun("a", 1, 1, 1, 1, map[int]float64{1: 5}), testRun("b", 1, 1, 1, 1, map[int]float64{2: 5}))
	if err == nil || !strings.Contains(err.Error(), "no job completed in both runs") {
		t.Errorf("err = %v, want one saying no job is in both runs", err)
	}
}

func TestReadJobTurnarounds(t *testing.T) {
	const head = "id,name,turnaround_s\n"
	tests := []struct {
		name, in string
		want     map[int]float64
		wantErr  string
	}{
		{name: "completed jobs by ID, unfinished ones (-1) left out", in: head + "0,a,3.5\n1,b,-1\n7,c,0\n",
			want: map[int]float64{0: 3.5, 7: 0}},
		{name: "empty file", in: "", wantErr: "jobs.csv: empty file"},
		{name: "header without the columns", in: "id,name\n0,a\n", wantErr: "jobs.csv:1: header lacks"},
		{name: "bad id names its line", in: head + "0,a,1\nx,b,2\n", wantErr: `jobs.csv:3: id "x"`},
		{name: "bad turnaround names its line", in: head + "0,a,NaN\n", wantErr: `jobs.csv:2: turnaround_s "NaN"`},
		{name: "negative turnaround other than -1", in: head + "0,a,-2\n", wantErr: `jobs.csv:2: turnaround_s "-2"`},
		{name: "duplicate id", in: head + "4,a,1\n4,b,2\n", wantErr: "jobs.csv:3: id 4 appears twice"},
		{name: "short row", in: head + "4,a\n", wantErr: "jobs.csv:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJobTurnarounds(strings.NewReader(tc.in), "jobs.csv")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for id, v := range tc.want {
				if got[id] != v {
					t.Errorf("job %d: %v, want %v", id, got[id], v)
				}
			}
		})
	}
}

func TestReadRunNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "summary.json"), "{")
	if _, err := ReadRun(dir); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("err = %v, want one naming summary.json", err)
	}
	if _, err := ReadRun(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory must fail")
	}
}

func FuzzReadJobTurnarounds(f *testing.F) {
	f.Add("id,name,turnaround_s\n0,a,3.5\n1,b,-1\n")
	f.Add("id,turnaround_s\n\"1\",2e3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadJobTurnarounds(strings.NewReader(in), "jobs.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "jobs.csv") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for id, v := range got {
			if id < 0 || !(v >= 0) || math.IsInf(v, 0) {
				t.Errorf("job %d: turnaround %v accepted", id, v)
			}
		}
	})
}

func TestCompareMeansAgainstBaseMeans(t *testing.T) {
	jobs := map[int]float64{1: 10, 2: 20, 3: 40}
	slower := map[int]float64{1: 11, 2: 22, 3: 44} // every job +10%
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9*math.Max(1, math.Abs(want)) }
	tests := []struct {
		name        string
		bases, runs []*Run
		// wantPct and wantSE are for mean turnaround; NaN SE means none.
		wantPct, wantSE, wantMedian float64
	}{
		{
			// Bases 100 and 110 (mean 105, variance 50), runs 105, 115 and
			// 110 (mean 110, variance 25): +4.76%, SE sqrt(25/3 + 50/2)/105.
			name: "change of the means with both sets' spread in its standard error",
			bases: []*Run{
				testRun("b1", 100, 1000, 900, 5e12, jobs),
				testRun("b2", 110, 1000, 900, 5e12, jobs),
			},
			runs: []*Run{
				testRun("r1", 105, 1000, 900, 5e12, slower),
				testRun("r2", 115, 1000, 900, 5e12, slower),
				testRun("r3", 110, 1000, 900, 5e12, slower),
			},
			wantPct: 100 * (110.0/105 - 1), wantSE: 100 * math.Sqrt(25.0/3+50.0/2) / 105, wantMedian: 10,
		},
		{
			name:    "a single base run has no known spread, so no standard error",
			bases:   []*Run{testRun("b", 100, 1000, 900, 5e12, jobs)},
			runs:    []*Run{testRun("r1", 100, 1000, 900, 5e12, jobs), testRun("r2", 120, 1000, 900, 5e12, slower)},
			wantPct: 10, wantSE: math.NaN(), wantMedian: 5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareMeans(tc.bases, tc.runs)
			if err != nil {
				t.Fatal(err)
			}
			if c.Bases != len(tc.bases) || c.Runs != len(tc.runs) || len(c.Figures) != 4 {
				t.Fatalf("got %d bases, %d runs, %d figures; want %d, %d and 4", c.Bases, c.Runs, len(c.Figures), len(tc.bases), len(tc.runs))
			}
			mt := c.Figures[0]
			if !near(mt.Pct, tc.wantPct) || !(near(mt.SE, tc.wantSE) || math.IsNaN(mt.SE) && math.IsNaN(tc.wantSE)) {
				t.Errorf("mean turnaround %+.4f%% (SE %.4f); want %+.4f%% (SE %.4f): the change of the runs' mean from the bases' mean", mt.Pct, mt.SE, tc.wantPct, tc.wantSE)
			}
			for _, d := range c.Figures[1:] {
				if d.Pct != 0 {
					t.Errorf("%s: %+.4f%%, want 0: every run has the same figure", d.Name, d.Pct)
				}
			}
			if !near(c.MedianJob, tc.wantMedian) {
				t.Errorf("median job's change %+.4f%%, want %+.4f%%: the mean over every base-run pair", c.MedianJob, tc.wantMedian)
			}
		})
	}
}

func TestCompareMeansNeedsRunsOnBothSides(t *testing.T) {
	r := testRun("r", 100, 1000, 900, 5e12, map[int]float64{1: 10})
	for _, c := range []struct{ bases, runs []*Run }{{nil, []*Run{r}}, {[]*Run{r}, nil}} {
		if _, err := CompareMeans(c.bases, c.runs); err == nil {
			t.Errorf("CompareMeans with %d bases and %d runs: no error, want one asking for a run on each side", len(c.bases), len(c.runs))
		}
	}
}

// TestReadRunSaysWhatADirectoryHolds: a directory without summary.json
// is refused with what it holds instead, where a compare or a sweep
// wrote it, so that a user who gave one knows which directory to give.
func TestReadRunSaysWhatADirectoryHolds(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"compare.json", "a compare's runs, one directory a policy"},
		{"plan.json", "a sweep, not a run: give one of its runs"},
		{"notes.txt", "not a run directory"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tc.file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRun(dir); err == nil || !strings.Contains(err.Error(), dir+": "+tc.want) {
			t.Errorf("a directory of %s: %v; want an error saying %q", tc.file, err, tc.want)
		}
	}
}
