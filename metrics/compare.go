package metrics

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Run is what comparing runs needs of one run's output directory, as
// `mrsched simulate` writes it: the summary, and the turnaround of each
// completed job by job ID.
type Run struct {
	Dir        string
	Summary    Summary
	Turnaround map[int]float64
}

// ReadRun reads summary.json and jobs.csv from dir.
func ReadRun(dir string) (*Run, error) {
	sumPath := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(sumPath)
	if err != nil {
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
