package metrics

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Run is what comparing runs needs of one run's output directory, as
// `mrsched simulate` writes it: the summary, and the turnaround of each
// completed job by job ID.
type Run struct {
	Dir        string
	Summary    Summary
	Turnaround map[int]float64
}

// NotARun is the error for a directory without summary.json, err the
// error reading it: it says what the directory holds instead where it
// can tell, a compare's runs (compare.json) or a sweep (plan.json).
func NotARun(dir string, err error) error {
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case has("compare.json"):
		return fmt.Errorf("%s: a compare's runs, one directory a policy (%s/<policy>), not a run", dir, dir)
	case has("plan.json"):
		return fmt.Errorf("%s: a sweep, not a run: give one of its runs (%s), or sweep collect the sweep", dir, filepath.Join(dir, "runs", "NNNN"))
	}
	return fmt.Errorf("%s: not a run directory (%w)", dir, err)
}

// ReadRun reads summary.json and jobs.csv from dir.
func ReadRun(dir string) (*Run, error) {
	sumPath := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(sumPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, NotARun(dir, err)
		}
		return nil, err
	}
	r := &Run{Dir: dir}
	if err := json.Unmarshal(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", sumPath, err)
	}
	jobsPath := filepath.Join(dir, "jobs.csv")
	f, err := os.Open(jobsPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if r.Turnaround, err = ReadJobTurnarounds(f, jobsPath); err != nil {
		return nil, err
	}
	return r, nil
}

// ReadJobTurnarounds reads a jobs.csv (see WriteJobsCSV) and returns the
// turnaround of each completed job by ID; a job that did not finish
// (turnaround -1) is left out. name labels errors, which give the line
// and the column at fault.
func ReadJobTurnarounds(r io.Reader, name string) (map[int]float64, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header line", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	idCol, tCol := slices.Index(head, "id"), slices.Index(head, "turnaround_s")
	if idCol < 0 || tCol < 0 {
		return nil, fmt.Errorf("%s:1: header lacks the id and turnaround_s columns", name)
	}
	out := make(map[int]float64)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		id, err := strconv.Atoi(rec[idCol])
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s:%d: id %q is not a job ID", name, line, rec[idCol])
		}
		t, err := strconv.ParseFloat(rec[tCol], 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) || (t < 0 && t != -1) {
			return nil, fmt.Errorf("%s:%d: turnaround_s %q is not a duration (or -1 for an unfinished job)", name, line, rec[tCol])
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: id %d appears twice", name, line, id)
		}
		if t >= 0 {
			out[id] = t
		}
	}
}

// MedianJobMinS is the least turnaround, in both runs, of a job counted in
// Change.MedianJob. Jobs that take well under a second (no task waits on
// the network) barely change, and counting a job by one run's turnaround
// alone would make the measure one-sided: a job just over the bound in the
// base but under it in the other run enters with a large drop, while the
// reverse never enters.
const MedianJobMinS = 1.0

// Change is how a run differs from a base run, each field a relative
// change in percent; a summary figure that is 0 in the base run reads 0
// if it is 0 in the run too, and NaN otherwise.
type Change struct {
	// MeanTurnaround, Throughput (over the run), SteadyThroughput and
	// CrossRackBytes compare the summaries' figures.
	MeanTurnaround, Throughput, SteadyThroughput, CrossRackBytes float64
	// MedianJob is the median over jobs of each job's relative change in
	// turnaround, over the Jobs jobs that completed in both runs taking
	// more than MedianJobMinS in each. No few long jobs dominate it, so
	// it shows a model's per-job bias where the mean moves with the fate
	// of a handful of jobs.
	MedianJob float64
	Jobs      int
}

// errNoJobs reports runs with no job to compare.
var errNoJobs = fmt.Errorf("no job completed in both runs taking over %g s in each", MedianJobMinS)

// Compare returns how run differs from base. The runs should be of one
// workload: jobs are matched by ID.
func Compare(base, run *Run) (Change, error) {
	var rel []float64
	for id, b := range base.Turnaround {
		if o, ok := run.Turnaround[id]; ok && b > MedianJobMinS && o > MedianJobMinS {
			rel = append(rel, o/b-1)
		}
	}
	if len(rel) == 0 {
		return Change{}, fmt.Errorf("%s against %s: %w", run.Dir, base.Dir, errNoJobs)
	}
	b, o := &base.Summary, &run.Summary
	return Change{
		MeanTurnaround:   pct(o.Turnaround.Mean, b.Turnaround.Mean),
		Throughput:       pct(o.ThroughputJobsPerHour, b.ThroughputJobsPerHour),
		SteadyThroughput: pct(o.SteadyState.JobsPerHour, b.SteadyState.JobsPerHour),
		CrossRackBytes:   pct(o.Bytes.CrossRackTotal, b.Bytes.CrossRackTotal),
		MedianJob:        100 * Distribute(rel).Median, // sorts rel: map order cannot reach it
		Jobs:             len(rel),
	}, nil
}

// pct is v's change from base in percent: 0 when both are 0, NaN when
// only base is (no relative change exists; e.g. cross-rack bytes on one
// rack against a run on several).
func pct(v, base float64) float64 {
	switch {
	case base == 0 && v == 0:
		return 0
	case base == 0:
		return math.NaN()
	}
	return 100 * (v/base - 1)
}

// SizeBands are the bands of the base run's turnaround that CompareBySize
// uses by default, in seconds: decades, because a model's error on a job
// is closer to a fixed delay than to a fixed fraction, so it shows in the
// short jobs first.
var SizeBands = []float64{0, 1, 10, 100, 1000, math.Inf(1)}

// HeldUpS is how much longer than in the base run a job must take to count
// as held up in BandChange.HeldUp. On a busy cluster a few jobs of every
// size wait minutes in one run and not in another, the exact model
// against itself included (a slot frees a heartbeat later, a job ahead
// grows), and those waits carry a band's mean; a timing model's own delay
// is a fraction of a second to a few seconds.
const HeldUpS = 10.0

// BandChange is how the jobs that took [Lo, Hi) seconds in the base run
// moved in another run: Jobs of them completed in both runs, with mean
// turnarounds BaseMean and RunMean in seconds (both 0 for an empty band).
// MedianDelta is the median over those jobs of each one's change in
// seconds, HeldUp the fraction of them that took more than HeldUpS longer,
// and RestDelta the mean change of the others: the typical job's change,
// the tail that moves the mean, and the mean without it.
type BandChange struct {
	Lo, Hi            float64
	Jobs              int
	BaseMean, RunMean float64
	MedianDelta       float64
	HeldUp            float64
	RestDelta         float64
}

// Delta is the band's change in mean turnaround, in seconds.
func (b BandChange) Delta() float64 { return b.RunMean - b.BaseMean }

// Pct is the band's change in mean turnaround, in percent (see pct).
func (b BandChange) Pct() float64 { return pct(b.RunMean, b.BaseMean) }

// CompareBySize returns, for each band between consecutive edges (seconds,
// increasing), how the jobs that the base run took that long moved in
// run; jobs are matched by ID and counted if they completed in both.
//
// Banding by one run's turnaround favours that run: a job it happened to
// finish early lands in a short band, and any other run, the same model
// with another timing included, takes it longer on average. So a band's
// change means something only beside the same figure for a control run
// of the base's own model (docs/performance.md's table of the network modes' error
// by job size has one).
func CompareBySize(base, run *Run, edges []float64) ([]BandChange, error) {
	ok := len(edges) >= 2
	for i := 1; ok && i < len(edges); i++ {
		ok = edges[i-1] < edges[i]
	}
	if !ok {
		return nil, fmt.Errorf("size bands %v: want at least two strictly increasing edges", edges)
	}
	out := make([]BandChange, len(edges)-1)
	for i := range out {
		out[i].Lo, out[i].Hi = edges[i], edges[i+1]
	}
	deltas := make([][]float64, len(out))
	// IDs in order, so the sums do not depend on map order.
	for _, id := range slices.Sorted(maps.Keys(base.Turnaround)) {
		b := base.Turnaround[id]
		o, ok := run.Turnaround[id]
		if !ok {
			continue
		}
		i, found := slices.BinarySearch(edges, b)
		if !found {
			i-- // edges[i] < b < edges[i+1]
		}
		if i < 0 || i >= len(out) {
			continue // outside the bands
		}
		out[i].Jobs++
		out[i].BaseMean += b
		out[i].RunMean += o
		deltas[i] = append(deltas[i], o-b)
	}
	for i := range out {
		n := float64(out[i].Jobs)
		if n == 0 {
			continue
		}
		out[i].BaseMean /= n
		out[i].RunMean /= n
		held, rest := 0, 0.0
		for _, d := range deltas[i] {
			if d > HeldUpS {
				held++
			} else {
				rest += d
			}
		}
		out[i].HeldUp = float64(held) / n
		if held < out[i].Jobs {
			out[i].RestDelta = rest / float64(out[i].Jobs-held)
		}
		out[i].MedianDelta = Distribute(deltas[i]).Median
	}
	return out, nil
}

// MeanDiff is one summary figure's mean over a set of runs against its
// mean over a set of base runs.
type MeanDiff struct {
	Name              string // the figure and its unit, as a table heads it
	BaseMean, RunMean float64
	// Pct is the runs' mean's change from the bases' mean in percent
	// (see pct). SE is its standard error in percent of the bases' mean,
	// from both sets' spread: sqrt(var(runs)/n + var(bases)/m) / bases'
	// mean. It is NaN when either set has a single run, whose spread is
	// unknown.
	Pct, SE float64
}

// MeansChange is how the mean of several runs differs from the mean of
// several base runs of one workload. One run of a busy cluster is known
// only to a few percent (the timing of a few long jobs moves it), the
// base model's own runs included, so a model is judged against another
// by their means over runs with their standard errors, not run by run.
type MeansChange struct {
	Bases, Runs int
	// Figures are mean turnaround, throughput over the run, steady-state
	// throughput and cross-rack bytes, in that order.
	Figures []MeanDiff
	// MedianJob is Change.MedianJob averaged over every pair of a base
	// run and a run: the median job's change has no single base to be
	// taken against.
	MedianJob float64
}

// CompareMeans returns how the runs' mean differs from the bases' mean.
// It needs at least one run on each side and, for the median job's
// change, jobs that completed in both runs of every pair (see Compare).
func CompareMeans(bases, runs []*Run) (MeansChange, error) {
	if len(bases) == 0 || len(runs) == 0 {
		return MeansChange{}, fmt.Errorf("comparing means needs at least one base run and one run; got %d and %d", len(bases), len(runs))
	}
	out := MeansChange{Bases: len(bases), Runs: len(runs)}
	figures := []struct {
		name string
		get  func(*Summary) float64
	}{
		{"mean turnaround (s)", func(s *Summary) float64 { return s.Turnaround.Mean }},
		{"throughput over the run (jobs/h)", func(s *Summary) float64 { return s.ThroughputJobsPerHour }},
		{"steady-state throughput (jobs/h)", func(s *Summary) float64 { return s.SteadyState.JobsPerHour }},
		{"cross-rack bytes (GB)", func(s *Summary) float64 { return s.Bytes.CrossRackTotal / 1e9 }},
	}
	for _, fig := range figures {
		bm, bv := meanVar(bases, fig.get)
		rm, rv := meanVar(runs, fig.get)
		d := MeanDiff{Name: fig.name, BaseMean: bm, RunMean: rm, Pct: pct(rm, bm), SE: math.NaN()}
		if len(bases) > 1 && len(runs) > 1 && bm != 0 {
			d.SE = 100 * math.Sqrt(rv/float64(len(runs))+bv/float64(len(bases))) / math.Abs(bm)
		}
		out.Figures = append(out.Figures, d)
	}
	for _, b := range bases {
		for _, r := range runs {
			c, err := Compare(b, r)
			if err != nil {
				return MeansChange{}, err
			}
			out.MedianJob += c.MedianJob
		}
	}
	out.MedianJob /= float64(len(bases) * len(runs))
	return out, nil
}

// meanVar returns the mean of get over runs and its sample variance (0
// for a single run).
func meanVar(runs []*Run, get func(*Summary) float64) (mean, variance float64) {
	for _, r := range runs {
		mean += get(&r.Summary)
	}
	mean /= float64(len(runs))
	if len(runs) < 2 {
		return mean, 0
	}
	for _, r := range runs {
		d := get(&r.Summary) - mean
		variance += d * d
	}
	return mean, variance / float64(len(runs)-1)
}

// SameWorkload reports whether two runs ran the same jobs on the same
// cluster, as their fingerprints say (Summary.Fingerprint): comparing runs
// job by job pairs jobs by ID, which means nothing across workloads. The
// error says which settings differ, from the runs' recorded
// configurations. known is false when a run predates fingerprints, so
// nothing can be told.
func SameWorkload(a, b *Run) (known bool, err error) {
	fa, fb := a.Summary.Fingerprint, b.Summary.Fingerprint
	if fa == "" || fb == "" {
		return false, nil
	}
	if fa == fb {
		return true, nil
	}
	var diffs []string
	ca, cb := map[string]string{}, map[string]string{}
	for _, sec := range []string{"cluster", "workload"} {
		flatten(sec, section(a.Summary.Config, sec), ca)
		flatten(sec, section(b.Summary.Config, sec), cb)
	}
	keys := slices.Sorted(maps.Keys(ca))
	for k := range cb {
		if _, ok := ca[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	// Settings that differ say why; the jobs they made (counts, bytes,
	// submit times) only when no setting differs (the trace file changed).
	var made []string
	for _, k := range keys {
		if ca[k] == cb[k] {
			continue
		}
		d := fmt.Sprintf("%s %s vs %s", k, orNone(ca[k]), orNone(cb[k]))
		if madeByWorkload[strings.TrimPrefix(k, "workload.")] {
			made = append(made, d)
		} else {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) == 0 {
		diffs = made
	}
	what := "their jobs differ"
	if len(diffs) > 0 {
		if len(diffs) > 6 {
			diffs = append(diffs[:6], fmt.Sprintf("and %d more", len(diffs)-6))
		}
		what = strings.Join(diffs, "; ")
	}
	return true, fmt.Errorf("%s and %s ran different workloads (fingerprints %s and %s): %s", a.Dir, b.Dir, fa, fb, what)
}

// madeByWorkload are the recorded workload fields that the settings make
// (scenario.EffectiveWorkload's jobs after scaling).
var madeByWorkload = map[string]bool{
	"jobs": true, "maps": true, "reduces": true, "input_bytes": true, "shuffle_bytes": true,
	"output_bytes": true, "first_submit_s": true, "last_submit_s": true, "data_sets": true,
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// section returns the named part of a recorded configuration.
func section(config any, name string) any {
	if m, ok := config.(map[string]any); ok {
		return m[name]
	}
	return nil
}

// flatten writes v's leaves into out by their dotted paths.
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case nil:
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"."+k, e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
}
