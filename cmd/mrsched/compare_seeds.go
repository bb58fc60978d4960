package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mrsched/mrsched/advise"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
)

// compareSeeds is compare -seeds N: every policy on the same N seeds
// (common random numbers), each figure's mean ± standard error, and which
// differences from the first policy exceed their noise, judged by the
// paired differences by seed.
func compareSeeds(fs *flag.FlagSet, base *scenario.Config, names []string, n, parallel int, quiet bool, stdout, stderr io.Writer) error {
	if n < 2 {
		return fmt.Errorf("-seeds: want 1, or 2 or more seeds to compare on, got %d", n)
	}
	for _, f := range []string{"out", "report", "figures", "csv", "v"} {
		if flagGiven(fs, f) {
			return badUsage("-%s: not with -seeds %d (it writes one run a policy); run compare -seed S for each seed", f, n)
		}
	}
	first := base.RunSeed()
	var runs []*compareRun
	for _, name := range names {
		for k := range n {
			c := base.WithPolicy(name)
			c.SetSeed(first + uint64(k))
			runs = append(runs, &compareRun{name: name, config: c})
		}
	}
	if err := runCompare(base, runs, nil, parallel, quiet, stderr); err != nil {
		return err
	}
	printInputWarnings(base, stderr)
	type fig struct {
		name string
		get  func(*metrics.Summary) float64
	}
	figs := []fig{
		{"throughput (jobs/h)", func(s *metrics.Summary) float64 { return s.ThroughputJobsPerHour }},
		{"mean turnaround (s)", func(s *metrics.Summary) float64 { return s.Turnaround.Mean }},
		{"p95 turnaround (s)", func(s *metrics.Summary) float64 { return s.Turnaround.P95 }},
		{"node-local maps (%)", func(s *metrics.Summary) float64 { return 100 * s.Locality.Node }},
		{"cross-rack GB", func(s *metrics.Summary) float64 { return s.Bytes.CrossRackTotal / 1e9 }},
	}
	values := func(p int, f fig) []float64 {
		v := make([]float64, n)
		for k := range n {
			v[k] = f.get(&runs[p*n+k].summary)
		}
		return v
	}
	var firsts []metrics.Summary
	for p := range names {
		firsts = append(firsts, runs[p*n].summary)
	}
	t := &report.Table{Title: fmt.Sprintf("%s on %s (seeds %d-%d, common to every policy): mean ± standard error",
		workloadTitle(base), clusterTitle(base.Cluster.WithDefaults(), firsts), first, first+uint64(n)-1),
		Headers: []string{"policy"}}
	for _, f := range figs {
		t.Headers = append(t.Headers, f.name)
	}
	for p, name := range names {
		row := []string{name}
		for _, f := range figs {
			m, se := metrics.MeanSE(values(p, f))
			row = append(row, fmt.Sprintf("%.1f ± %.1f", m, se))
		}
		t.AddRow(row...)
	}
	// Which differences from the first policy exceed their noise: the
	// paired difference by seed, its 95% interval excluding 0.
	var beyond, within []string
	for p := 1; p < len(names); p++ {
		for _, f := range []fig{figs[0], figs[1], figs[4]} {
			d := advise.PairedDiff(values(p, f), values(0, f), advise.Confidence)
			label := strings.TrimSpace(strings.Split(f.name, " (")[0])
			if d.Excludes(0) {
				beyond = append(beyond, fmt.Sprintf("%s %s %+.3g [%+.3g, %+.3g]", names[p], label, d.Mean, d.Lo, d.Hi))
			} else {
				within = append(within, names[p]+" "+label)
			}
		}
	}
	t.Notes = []string{
		"differences from " + names[0] + " beyond noise (paired by seed, 95% interval of the mean difference excludes 0): " + orNone(beyond) + ";",
		"within noise: " + orNone(within) + ".",
	}
	t.Notes = append(t.Notes, configNotes(base, firsts)...)
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	return writeTimeTable(stdout, names, func(p int) []metrics.Summary {
		s := make([]metrics.Summary, n)
		for k := range n {
			s[k] = runs[p*n+k].summary
		}
		return s
	})
}

// writeTimeTable writes "where the time goes" after a comparison, when
// its runs recorded it; of(p) are policy names[p]'s summaries.
func writeTimeTable(w io.Writer, names []string, of func(p int) []metrics.Summary) error {
	runs := make([][]metrics.Summary, len(names))
	for p := range names {
		runs[p] = of(p)
	}
	t := report.TimeTable(names, runs)
	if t == nil {
		return nil
	}
	fmt.Fprintln(w)
	return t.WriteText(w)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
