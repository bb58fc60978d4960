package harness

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
)

// Measures of a run's job records that more than one experiment reads.

// Throughput is the jobs completed over the time to run them (last finish
// minus first submit), per hour, the NAS paper's measure; keep selects
// the jobs (nil: all).
func Throughput(jobs []metrics.JobRecord, keep func(*metrics.JobRecord) bool) float64 {
	first, last := math.Inf(1), math.Inf(-1)
	n := 0
	for i := range jobs {
		j := &jobs[i]
		if keep != nil && !keep(j) {
			continue
		}
		first = math.Min(first, j.Submit)
		if j.Finish >= 0 {
			n++
			last = math.Max(last, j.Finish)
		}
	}
	if n == 0 || last <= first {
		return 0
	}
	return float64(n) / (last - first) * 3600
}

// JobTime is the mean turnaround (finish - submit) of the completed jobs
// keep selects (nil: all).
func JobTime(jobs []metrics.JobRecord, keep func(*metrics.JobRecord) bool) float64 {
	var v []float64
	for i := range jobs {
		j := &jobs[i]
		if j.Finish >= 0 && (keep == nil || keep(j)) {
			v = append(v, j.Turnaround())
		}
	}
	return MeanOf(v)
}

// MapProgress is the share of a job's maps finished when its first reduce
// launched (the NAS paper's MapProgressRate, Fig. 3(d)), averaged over
// the jobs that launched one.
func MapProgress(jobs []metrics.JobRecord) float64 {
	var v []float64
	for i := range jobs {
		if p := jobs[i].MapProgressAtFirstReduce; p >= 0 {
			v = append(v, p)
		}
	}
	return MeanOf(v)
}

// NonLocalJobShare is the share of jobs with at least one map that read
// its input from another node (rack-local or off-rack), 0 with no jobs.
func NonLocalJobShare(jobs []metrics.JobRecord) float64 {
	if len(jobs) == 0 {
		return 0
	}
	n := 0
	for i := range jobs {
		if l := jobs[i].Locality; l[cluster.RackLocal]+l[cluster.OffRack] > 0 {
			n++
		}
	}
	return float64(n) / float64(len(jobs))
}

// NodeLocalShare is the engine's count of node-local map launches over
// all of them, 0 with none.
func NodeLocalShare(jobs []metrics.JobRecord) float64 {
	var local, all int
	for _, j := range jobs {
		local += j.Locality[cluster.NodeLocal]
		all += j.Locality[0] + j.Locality[1] + j.Locality[2]
	}
	if all == 0 {
		return 0
	}
	return float64(local) / float64(all)
}

// LastFinish is the latest finish of the jobs, NaN if none finished.
func LastFinish(jobs []metrics.JobRecord) float64 {
	last := math.NaN()
	for i := range jobs {
		if f := jobs[i].Finish; f >= 0 && !(f <= last) {
			last = f
		}
	}
	return last
}

// MapSlotsBusy is the share of the map-slot time (slots of them) that map
// attempts held over the timeseries rows at times in, each row standing
// for the time to the next (the last for a minute, the sampling period),
// NaN with no row in.
func MapSlotsBusy(series []metrics.TimeseriesRow, slots float64, in func(t float64) bool) float64 {
	var busy, span float64
	for i, row := range series {
		if !in(row.T) {
			continue
		}
		dt := 60.0
		if i+1 < len(series) {
			dt = series[i+1].T - row.T
		}
		busy += float64(row.RunningMaps) * dt
		span += dt
	}
	if span == 0 {
		return math.NaN()
	}
	return busy / (slots * span)
}

// PathPart is the mean seconds a job of the run spent in one part of its
// critical path (docs/time.md; part is a critpath part's name), NaN when
// the run kept no time breakdown.
func PathPart(s *metrics.Summary, part string) float64 {
	if tb := s.TimeBreakdown; tb != nil {
		return tb.MeanS[part]
	}
	return math.NaN()
}

// HeldMostBy is the rule under which most of the runs' held time falls
// (summary.json's held_by_s: each job's held time under the rule that
// held it longest), with its share, "-" with none; sum reads a run's
// summary.
func HeldMostBy[T any](runs []T, sum func(T) *metrics.Summary) string {
	by := map[string]float64{}
	for _, r := range runs {
		if tb := sum(r).TimeBreakdown; tb != nil {
			for k, v := range tb.HeldByS {
				by[k] += v
			}
		}
	}
	best, rule, total := 0.0, "-", 0.0
	for _, k := range slices.Sorted(maps.Keys(by)) {
		total += by[k]
		if by[k] > best {
			best, rule = by[k], k
		}
	}
	if total <= 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%.0f%%)", rule, 100*best/total)
}

// Backups is the speculative backups a run launched.
func Backups(s *metrics.Summary) float64 {
	if s.Speculation == nil {
		return 0
	}
	return float64(s.Speculation.Backups)
}
