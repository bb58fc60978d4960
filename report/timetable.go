package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/metrics"
)

// TimeTable is "where the time goes": the mean seconds a completed job
// spent in each part of its critical path (package critpath), one column
// a policy. runs[p] are policy names[p]'s runs (one a seed); a policy's
// figure is the mean over its runs of each run's mean per job. Parts no
// policy spent time in are left out. It returns nil when no run recorded
// the breakdown.
func TimeTable(names []string, runs [][]metrics.Summary) *Table {
	mean := make([][critpath.NumParts]float64, len(names))
	held := make([]map[string]float64, len(names))
	found := false
	for p := range names {
		held[p] = map[string]float64{}
		n := 0
		for _, s := range runs[p] {
			tb := s.TimeBreakdown
			if tb == nil || tb.Jobs == 0 {
				continue
			}
			n++
			for part := range critpath.NumParts {
				mean[p][part] += tb.MeanS[part.String()]
			}
			for r, v := range tb.HeldByS {
				held[p][r] += v / float64(tb.Jobs)
			}
		}
		if n == 0 {
			continue
		}
		found = true
		for part := range mean[p] {
			mean[p][part] /= float64(n)
		}
		for r := range held[p] {
			held[p][r] /= float64(n)
		}
	}
	if !found {
		return nil
	}
	seeds := ""
	if k := len(runs[0]); k > 1 {
		seeds = fmt.Sprintf(", mean over %d seeds", k)
	}
	t := &Table{Title: "Where the time goes: mean seconds a completed job spent in each part of its critical path" + seeds,
		Headers: append([]string{"part"}, names...)}
	total := make([]float64, len(names))
	for part := range critpath.NumParts {
		if !slices.ContainsFunc(mean, func(m [critpath.NumParts]float64) bool { return m[part] >= 0.05 }) {
			continue
		}
		row := []string{part.String()}
		for p := range names {
			row = append(row, fmt.Sprintf("%.1f", mean[p][part]))
		}
		t.AddRow(row...)
	}
	row := []string{"turnaround"}
	for p := range names {
		for _, v := range mean[p] {
			total[p] += v
		}
		row = append(row, fmt.Sprintf("%.1f", total[p]))
	}
	t.AddRow(row...)
	var by []string
	for p, name := range names {
		rules := make([]string, 0, len(held[p]))
		for r, v := range held[p] {
			if v >= 0.05 {
				rules = append(rules, r)
			}
		}
		slices.SortFunc(rules, func(a, b string) int {
			if held[p][a] != held[p][b] {
				if held[p][a] > held[p][b] {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		if len(rules) == 0 {
			continue
		}
		parts := make([]string, len(rules))
		for i, r := range rules {
			parts[i] = fmt.Sprintf("%s %.1f", r, held[p][r])
		}
		by = append(by, name+" "+strings.Join(parts, ", "))
	}
	t.Notes = []string{
		"queued: waiting with no free slot it could take; held: waiting while one was free (the policy held it); read_*: a map's input read beyond its compute, by the replica's reach;",
		"shuffle_*: the last reduce's copy after the last map, by the resource that bounded its fetches; parts under 0.05 s for every policy are left out (docs/time.md).",
	}
	if len(by) > 0 {
		t.Notes = append(t.Notes, "held, s a job by the rule that held each job longest: "+strings.Join(by, "; ")+".")
	}
	return t
}

// TimeChange says where the change in mean turnaround from base to run
// went, part by part of the critical path: "+41.0 s a job, of which
// +33.0 s held (nas-mts-hold), +6.0 s shuffle_uplink". Parts are named
// largest change first while they explain the change, at most four, and
// a held part by the rule that held run's jobs longest. ok is false when
// either run did not record where its time went.
func TimeChange(base, run *metrics.Summary) (s string, ok bool) {
	b, r := base.TimeBreakdown, run.TimeBreakdown
	if b == nil || r == nil || b.Jobs == 0 || r.Jobs == 0 {
		return "", false
	}
	type delta struct {
		part critpath.Part
		d    float64
	}
	var ds []delta
	total := 0.0
	for p := range critpath.NumParts {
		d := r.MeanS[p.String()] - b.MeanS[p.String()]
		total += d
		ds = append(ds, delta{p, d})
	}
	slices.SortStableFunc(ds, func(x, y delta) int {
		ax, ay := abs(x.d), abs(y.d)
		switch {
		case ax > ay:
			return -1
		case ax < ay:
			return 1
		}
		return 0
	})
	var parts []string
	for _, d := range ds {
		if len(parts) == 4 || abs(d.d) < 0.05 || abs(d.d) < 0.05*abs(total) {
			break
		}
		name := d.part.String()
		if d.part == critpath.Held {
			if rule := topRule(r.HeldByS); rule != "" && d.d > 0 {
				name += " (" + rule + ")"
			}
		}
		parts = append(parts, fmt.Sprintf("%+.1f s %s", d.d, name))
	}
	s = fmt.Sprintf("%+.1f s a job", total)
	if len(parts) > 0 {
		s += ", of which " + strings.Join(parts, ", ")
	}
	return s, true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// topRule is the rule with the most held time.
func topRule(by map[string]float64) string {
	best, rule := 0.0, ""
	for r, v := range by {
		if v > best || v == best && r < rule {
			best, rule = v, r
		}
	}
	return rule
}

// runsTimeTable is TimeTable over runs, one column a run.
func runsTimeTable(runs []*Run) *Table {
	names := make([]string, len(runs))
	sums := make([][]metrics.Summary, len(runs))
	for i, r := range runs {
		names[i], sums[i] = r.Label, []metrics.Summary{r.Summary}
	}
	return TimeTable(names, sums)
}
