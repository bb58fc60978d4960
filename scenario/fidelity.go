package scenario

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

// traceFidelity compares each replayed job's simulated run time (its
// turnaround) with the time its trace measured, over the jobs that
// succeeded both in the trace and in the run and whose trace records
// both times: the median and 90th percentile of |sim - traced| / traced,
// and Spearman's rank correlation of the two. Nil when no job has both.
func traceFidelity(jobs []workload.Job, col *metrics.Collector) *metrics.TraceFidelity {
	recs := col.Jobs()
	var sim, traced, errs []float64
	for i := range jobs {
		m := jobs[i].Measured
		if m == nil || !m.Succeeded || !(m.DurationS > 0) || i >= len(recs) || recs[i].Finish < 0 {
			continue
		}
		s := recs[i].Turnaround()
		sim, traced = append(sim, s), append(traced, m.DurationS)
		errs = append(errs, math.Abs(s-m.DurationS)/m.DurationS)
	}
	if len(errs) == 0 {
		return nil
	}
	slices.Sort(errs)
	return &metrics.TraceFidelity{
		Jobs: len(errs), MedianRelError: quantile(errs, 0.5), P90RelError: quantile(errs, 0.9),
		RankCorrelation: spearman(sim, traced),
	}
}

// quantile is the q-quantile of sorted xs, interpolated between ranks.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}

// spearman is the rank correlation of a and b (ties get their mean
// rank); 0 when either has no spread, NaN-free.
func spearman(a, b []float64) float64 {
	if r := metrics.Spearman(a, b); !math.IsNaN(r) {
		return r
	}
	return 0
}
