package workload

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Stats summarizes a workload: what a user checks after loading a trace or
// generating jobs, before spending a simulation on them.
type Stats struct {
	Jobs                                  int
	InputBytes, ShuffleBytes, OutputBytes int64
	Classes                               [NumClasses]int // jobs per ShuffleClass, by ClassOf(ShuffleBytes)
	FirstSubmit, LastSubmit               float64
	Maps, Reduces                         int64
	// DataSets is the number of distinct data sets the jobs read (Job.DataSet);
	// 0 when the source names none.
	DataSets int
}

// Summarize adds up jobs. Byte sums saturate at math.MaxInt64 rather than wrap
// (no real workload comes near: FB-2010 totals under 10^18). Classes count by
// absolute shuffle bytes (ClassOf), the NAS definition, not by a generated
// job's benchmark class.
func Summarize(jobs []Job) Stats {
	var s Stats
	sets := map[string]bool{}
	for i := range jobs {
		j := &jobs[i]
		if s.Jobs == 0 || j.Submit < s.FirstSubmit {
			s.FirstSubmit = j.Submit
		}
		if s.Jobs == 0 || j.Submit > s.LastSubmit {
			s.LastSubmit = j.Submit
		}
		s.Jobs++
		s.InputBytes = satAdd(s.InputBytes, j.InputBytes)
		s.ShuffleBytes = satAdd(s.ShuffleBytes, j.ShuffleBytes)
		s.OutputBytes = satAdd(s.OutputBytes, j.OutputBytes)
		if c := ClassOf(j.ShuffleBytes); c >= 0 && c < NumClasses {
			s.Classes[c]++
		}
		s.Maps += int64(j.NumMaps)
		s.Reduces += int64(j.NumReduces)
		if j.DataSet != "" {
			sets[j.DataSet] = true
		}
	}
	s.DataSets = len(sets)
	return s
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ClassPercent is the share of jobs in class c, in percent (0 for no jobs).
func (s Stats) ClassPercent(c ShuffleClass) float64 {
	if s.Jobs == 0 || c < 0 || c >= NumClasses {
		return 0
	}
	return 100 * float64(s.Classes[c]) / float64(s.Jobs)
}

// Write prints s as a two-column table: jobs, bytes in GB (decimal, 10^9, the
// unit the papers' tables use), the class split with percentages and the
// thresholds it uses, the arrival span, task counts, and the data sets when
// the jobs name any.
func (s Stats) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	gb := func(b int64) string { return fmt.Sprintf("%.1f GB", float64(b)/1e9) }
	fmt.Fprintf(tw, "jobs\t%d\n", s.Jobs)
	fmt.Fprintf(tw, "input\t%s\n", gb(s.InputBytes))
	fmt.Fprintf(tw, "shuffle\t%s\n", gb(s.ShuffleBytes))
	fmt.Fprintf(tw, "output\t%s\n", gb(s.OutputBytes))
	bounds := [NumClasses]string{"< 1 MB", "1-100 MB", "> 100 MB"}
	for c := ClassLight; c < NumClasses; c++ {
		fmt.Fprintf(tw, "shuffle-%s (%s)\t%d (%.1f%%)\n", c, bounds[c], s.Classes[c], s.ClassPercent(c))
	}
	span := s.LastSubmit - s.FirstSubmit
	fmt.Fprintf(tw, "arrivals\t%.1f s to %.1f s (span %.1f s, %.2f h)\n", s.FirstSubmit, s.LastSubmit, span, span/3600)
	fmt.Fprintf(tw, "maps\t%d\n", s.Maps)
	fmt.Fprintf(tw, "reduces\t%d\n", s.Reduces)
	if s.DataSets > 0 {
		fmt.Fprintf(tw, "data sets\t%d\n", s.DataSets)
	}
	return tw.Flush()
}
