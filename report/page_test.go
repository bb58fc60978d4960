package report

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/workload"
)

// smallScenario is a few hundred jobs of the FB-2009 day on 3 racks: a
// run of well under a second with every kind of traffic.
const smallScenario = `seed: 3
cluster:
  racks: 3
  nodes_per_rack: 4
workload:
  trace: FB-2009
  users: 6
  max_jobs: 300
policy:
  name: %s
`

var (
	runsOnce sync.Once
	runsMem  []*Run
	runsErr  error
)

// smallRuns simulates the small scenario under fair and delay, once per
// test binary.
func smallRuns(t *testing.T) []*Run {
	t.Helper()
	runsOnce.Do(func() {
		for _, pol := range []string{"fair", "delay"} {
			src := strings.Replace(smallScenario, "%s", pol, 1)
			c, err := scenario.Parse(strings.NewReader(src), "small.yaml")
			if err != nil {
				runsErr = err
				return
			}
			res, err := c.Run(nil)
			if err != nil {
				runsErr = err
				return
			}
			runsMem = append(runsMem, FromCollector([]byte(src), res.Summary, res.Collector))
		}
	})
	if runsErr != nil {
		t.Fatal(runsErr)
	}
	return runsMem
}

// TestPoolSeriesOfARun checks the engine's pool samples against their
// definitions: share = running / slots; fair shares are a division of the
// slots (they sum to at most 1), never above a pool's demand.
func TestPoolSeriesOfARun(t *testing.T) {
	r := smallRuns(t)[0]
	if len(r.Pools) == 0 || len(r.Uplinks) == 0 {
		t.Fatalf("the run recorded %d pool samples and %d uplink samples; want both", len(r.Pools), len(r.Uplinks))
	}
	slots := 12 * 6.0 // 12 nodes of 4 map + 2 reduce slots (the default)
	sum := map[float64]float64{}
	for _, p := range r.Pools {
		if math.Abs(p.Share-float64(p.Running)/slots) > 1e-12 {
			t.Fatalf("%s at %v: share %v, want running %d / %v slots", p.Pool, p.T, p.Share, p.Running, slots)
		}
		if p.FairShare*slots > float64(p.Demand)+1e-9 {
			t.Fatalf("%s at %v: fair share %v slots is above its demand %d", p.Pool, p.T, p.FairShare*slots, p.Demand)
		}
		sum[p.T] += p.FairShare
	}
	for ts, s := range sum {
		if s > 1+1e-9 {
			t.Fatalf("fair shares at %v sum to %v: they divide the slots, so at most 1", ts, s)
		}
	}
	if got := len(r.Uplinks[0].Util); got != 3 {
		t.Errorf("uplink samples have %d racks, want 3", got)
	}
	if len(r.Uplinks) != len(r.Series) {
		t.Errorf("%d uplink samples for %d timeseries rows; want one per row", len(r.Uplinks), len(r.Series))
	}
}

// TestRunDirRoundTrip writes a run directory and reads it back.
func TestRunDirRoundTrip(t *testing.T) {
	r := smallRuns(t)[0]
	dir := t.TempDir()
	c, err := scenario.Parse(strings.NewReader(strings.Replace(smallScenario, "%s", "fair", 1)), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRunDir(dir, Output{Scenario: r.Scenario, Summary: res.Summary, Collector: res.Collector}); err != nil {
		t.Fatal(err)
	}
	if !IsRunDir(dir) {
		t.Fatalf("%s is not a run directory after WriteRunDir", dir)
	}
	got, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "fair" || len(got.Jobs) != len(r.Jobs) || len(got.Series) != len(r.Series) ||
		len(got.Uplinks) != len(r.Uplinks) || len(got.Pools) != len(r.Pools) {
		t.Fatalf("read back %q with %d jobs, %d rows, %d uplink samples, %d pool rows; wrote fair with %d, %d, %d, %d",
			got.Label, len(got.Jobs), len(got.Series), len(got.Uplinks), len(got.Pools), len(r.Jobs), len(r.Series), len(r.Uplinks), len(r.Pools))
	}
	// CSV keeps six decimals.
	for i := range r.Jobs {
		if math.Abs(got.Jobs[i].Turnaround()-r.Jobs[i].Turnaround()) > 2e-6 {
			t.Fatalf("job %d turnaround %v read back as %v", i, r.Jobs[i].Turnaround(), got.Jobs[i].Turnaround())
		}
	}
	k := len(r.Uplinks) / 2
	for rk := range r.Uplinks[k].Util {
		if math.Abs(got.Uplinks[k].Util[rk][0]-r.Uplinks[k].Util[rk][0]) > 1e-6 {
			t.Fatalf("uplink sample %d rack %d: %v read back as %v", k, rk, r.Uplinks[k].Util[rk], got.Uplinks[k].Util[rk])
		}
	}
	if !bytes.Equal(got.Scenario, r.Scenario) {
		t.Errorf("scenario.yaml read back differs from what was written")
	}
}

// TestJobUsersReadBack: jobs.csv gives a job's user as the name a Hadoop
// trace records, else as the number it was drawn for, and both read back.
func TestJobUsersReadBack(t *testing.T) {
	c := metrics.New(metrics.Options{})
	for i, name := range []string{"alice", ""} {
		c.JobSubmitted(&workload.Job{ID: i, Name: fmt.Sprint("j", i), Kind: "trace", User: 7, UserName: name, Pool: "p"})
	}
	var b bytes.Buffer
	if err := c.WriteJobsCSV(&b); err != nil {
		t.Fatal(err)
	}
	jobs, err := readJobs(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].UserName != "alice" || jobs[1].UserName != "" || jobs[1].User != 7 {
		t.Errorf("read back %+v; want users alice and 7, as written", jobs)
	}
}

// TestLoadRunToleratesMissingFiles: a directory written before uplinks.csv
// and pools.csv existed still loads, and its page says what is missing.
func TestLoadRunToleratesMissingFiles(t *testing.T) {
	r := smallRuns(t)[0]
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "summary.json"), mustJSON(t, r))
	got, err := LoadRun(dir)
	if err != nil {
		t.Fatalf("a run directory with only summary.json: %v", err)
	}
	_, missing := RunFigures(got, "x")
	if len(missing) != 3 {
		t.Errorf("missing %v, want timeseries.csv, uplinks.csv and pools.csv named", missing)
	}
	testfile.Write(t, filepath.Join(dir, "pools.csv"), "t_s,pool,share,fair_share\n60,a,x,0\n")
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), "pools.csv") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a malformed pools.csv gave %v; want an error naming the file and line 2", err)
	}
}

func mustJSON(t *testing.T, r *Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := metrics.WriteSummaryJSON(&b, r.Summary); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// externalRef finds attribute values and CSS urls that would load
// something: anything but a data: URI or an in-page #anchor.
var externalRef = regexp.MustCompile(`(?i)(?:\s(?:src|href|xlink:href|action|poster|srcset)\s*=\s*["']?|url\(\s*["']?)([^"'\s)>]*)`)

// externalRefs lists the references in an HTML page that are neither
// data: URIs nor in-page anchors.
func externalRefs(html []byte) []string {
	var out []string
	for _, m := range externalRef.FindAllSubmatch(html, -1) {
		v := string(m[1])
		if strings.HasPrefix(v, "#") || strings.HasPrefix(strings.ToLower(v), "data:") {
			continue
		}
		out = append(out, v)
	}
	return out
}

func TestPageIsSelfContainedAndDeterministic(t *testing.T) {
	runs := smallRuns(t)
	render := func() []byte {
		p := &Page{Title: "t", Runs: runs}
		SetLabels(p.Runs)
		var b bytes.Buffer
		if err := p.Render(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Errorf("two renders of the same runs differ: a page must depend only on its inputs")
	}
	if refs := externalRefs(a); len(refs) > 0 {
		t.Errorf("the page refers to %v; want only data: URIs and #anchors, so that it loads nothing", refs)
	}
	if bad := externalRefs([]byte(`<img src="http://x/y.png"><a href="#ok">`)); len(bad) != 1 {
		t.Errorf("externalRefs found %v in a page with one external image, want it alone", bad)
	}
	for _, want := range []string{"<svg", "turnaround-cdf", "run-fair-uplinks", "run-delay-pools", "Content-Security-Policy"} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestFiguresRenderAsSVGAndPNG(t *testing.T) {
	p := &Page{Runs: smallRuns(t)}
	SetLabels(p.Runs)
	figs, err := p.Figures()
	if err != nil {
		t.Fatal(err)
	}
	// The small runs record where their jobs' time went: a fourth
	// comparison figure draws it.
	if len(figs) != 4+2*4 {
		t.Errorf("%d figures, want 4 comparisons and 4 per run", len(figs))
	}
	if !slices.ContainsFunc(figs, func(f *Figure) bool { return f.Name == "time-by-part" }) {
		t.Errorf("no time-by-part figure among %d, want one for runs with a time breakdown", len(figs))
	}
	for _, f := range figs[:2] {
		b, err := f.PNG()
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: PNG %d bytes, err %v", f.Name, len(b), err)
		}
		if f.Caption == "" || !strings.Contains(f.Caption, "docs/metrics.md") {
			t.Errorf("%s: caption %q does not name its metric definition", f.Name, f.Caption)
		}
	}
}
