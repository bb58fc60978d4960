package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mrsched/mrsched/metrics"
)

// SetLabels names each run by its policy, or, where several runs share a
// policy, by the policy and the run's directory (or its position) so that
// every label is unique.
func SetLabels(runs []*Run) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Summary.Policy]++
	}
	seen := map[string]bool{}
	for i, r := range runs {
		l := r.Summary.Policy
		if count[l] > 1 {
			switch {
			case r.Dir != "":
				l += " (" + filepath.Base(filepath.Clean(r.Dir)) + ")"
			default:
				l += fmt.Sprintf(" (#%d)", i+1)
			}
		}
		for seen[l] {
			l += fmt.Sprintf(" #%d", i+1)
		}
		seen[l] = true
		r.Label = l
	}
}

// ComparisonTable sets the runs' headline numbers side by side, plain
// numbers with units in the headers; "vs fair" columns divide by the run
// of policy fair when exactly one run has it.
func ComparisonTable(runs []*Run) *Table {
	var ref *Run
	for _, r := range runs {
		if r.Summary.Policy == "fair" {
			if ref != nil {
				ref = nil
				break
			}
			ref = r
		}
	}
	// The policy column only when some label says more than the policy.
	named := false
	for _, r := range runs {
		named = named || r.Label != r.Summary.Policy
	}
	h := []string{"run", "policy", "jobs completed", "jobs submitted", "throughput (jobs/h)", "mean turnaround (s)", "median turnaround (s)",
		"p95 turnaround (s)", "node-local maps (%)", "cross-rack GB", "congestion occurrences"}
	if ref != nil {
		h = append(h, "turnaround vs fair", "cross-rack vs fair")
	}
	if !named {
		h = h[1:]
		h[0] = "policy"
	}
	t := &Table{Headers: h}
	for _, r := range runs {
		s := r.Summary
		row := []string{r.Label, s.Policy, fmt.Sprint(s.JobsCompleted), fmt.Sprint(s.JobsSubmitted),
			f1(s.ThroughputJobsPerHour), f1(s.Turnaround.Mean), f1(s.Turnaround.Median), f1(s.Turnaround.P95),
			f1(100 * s.Locality.Node), f1(s.Bytes.CrossRackTotal / 1e9), fmt.Sprint(s.CongestionOccurrences)}
		if ref != nil {
			row = append(row, ratio(s.Turnaround.Mean, ref.Summary.Turnaround.Mean), ratio(s.Bytes.CrossRackTotal, ref.Summary.Bytes.CrossRackTotal))
		}
		if !named {
			row = row[1:]
		}
		t.AddRow(row...)
	}
	t.Notes = []string{
		"throughput: completed jobs / (last finish - first submit); turnaround: finish - submit over completed jobs (median: mean of the middle two; p95: nearest rank);",
		"node-local maps: map launches whose input block was on the node; cross-rack GB: shuffle + remote map reads + reduce output that crossed a rack uplink (1 GB = 1e9 bytes);",
		"congestion occurrences: (monitor sample, uplink direction) pairs at or above the threshold (docs/metrics.md).",
	}
	if ref != nil {
		t.Notes = append(t.Notes, "vs fair: the run's figure over the fair run's (below 1 is less).")
	}
	return t
}

// PolicyMeans is, for policies run more than once (several seeds), the mean
// of each headline number over the policy's runs with its standard error
// (sample standard deviation / sqrt(n)); nil when no policy repeats.
func PolicyMeans(runs []*Run) *Table {
	var order []string
	by := map[string][]*Run{} // lookup only; order is first appearance
	for _, r := range runs {
		p := r.Summary.Policy
		if by[p] == nil {
			order = append(order, p)
		}
		by[p] = append(by[p], r)
	}
	repeats := false
	for _, p := range order {
		repeats = repeats || len(by[p]) > 1
	}
	if !repeats {
		return nil
	}
	t := &Table{Title: "By policy: mean (standard error) over its runs",
		Headers: []string{"policy", "runs", "throughput (jobs/h)", "mean turnaround (s)", "p95 turnaround (s)", "node-local maps (%)", "cross-rack GB"}}
	for _, p := range order {
		rs := by[p]
		col := func(f func(*Run) float64) string {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			m, se := metrics.MeanSE(v)
			if len(v) < 2 {
				return f1(m) + " (-)"
			}
			return fmt.Sprintf("%s (%s)", f1(m), f2(se))
		}
		t.AddRow(p, fmt.Sprint(len(rs)),
			col(func(r *Run) float64 { return r.Summary.ThroughputJobsPerHour }),
			col(func(r *Run) float64 { return r.Summary.Turnaround.Mean }),
			col(func(r *Run) float64 { return r.Summary.Turnaround.P95 }),
			col(func(r *Run) float64 { return 100 * r.Summary.Locality.Node }),
			col(func(r *Run) float64 { return r.Summary.Bytes.CrossRackTotal / 1e9 }))
	}
	t.Notes = []string{"A run of a busy cluster is one draw: set policies against each other by these means, with their standard errors, not by single runs."}
	return t
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func ratio(v, ref float64) string {
	if ref == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v/ref)
}

// slug makes a label safe for a file name and an HTML id.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
