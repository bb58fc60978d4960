package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
)

// Collected is one finished run read back: its record and its summary.
type Collected struct {
	Run Run
	// Dir is the run's output directory.
	Dir     string
	Summary metrics.Summary
	// SummaryJSON is summary.json as the run wrote it.
	SummaryJSON []byte
}

// Collection is a sweep's finished runs, checked against the plan.
type Collection struct {
	Sweep *Sweep
	// Runs are the finished runs in index order.
	Runs []*Collected
	// Missing lists the runs that have not finished.
	Missing []int
	// Mismatched says, a line a run, how runs differ from their plan
	// (another plan's run, another workload); empty unless forced.
	Mismatched []string
}

// CollectOptions say what Collect accepts beyond a complete sweep whose
// runs all match the plan.
type CollectOptions struct {
	// Partial collects the finished runs when some have not finished.
	Partial bool
	// Force aggregates runs that do not match the plan: another plan's
	// runs, or runs of another workload than planned.
	Force bool
}

// Collect reads every finished run of the sweep. It refuses, unless told,
// a sweep with unfinished runs, and runs that are not what the plan says:
// a run recorded for another plan, or one whose workload fingerprint is
// not the planned one (so runs of different workloads are never averaged
// together by accident).
func (s *Sweep) Collect(o CollectOptions) (*Collection, error) {
	c := &Collection{Sweep: s}
	bad := 0 // runs with a mismatch; a run may have several
	for i, planned := range s.Plan.Runs {
		if !s.Done(i) {
			c.Missing = append(c.Missing, i)
			continue
		}
		dir := s.RunDir(i)
		var rec record
		b, err := os.ReadFile(filepath.Join(dir, recordFile))
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
		}
		sb, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			return nil, err
		}
		run := &Collected{Run: planned, Dir: dir, SummaryJSON: sb}
		before := len(c.Mismatched)
		if err := json.Unmarshal(sb, &run.Summary); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
		}
		switch {
		case rec.Plan != s.id || rec.Index != i || rec.Policy != planned.Policy || rec.Seed != planned.Seed ||
			!slices.Equal(rec.Settings, planned.Settings):
			c.Mismatched = append(c.Mismatched, fmt.Sprintf("run %d was run for another plan (%s), not this one's %s", i, rec.Describe(), planned.Describe()))
		case rec.Workload != planned.Workload:
			c.Mismatched = append(c.Mismatched, fmt.Sprintf("run %d (%s) ran workload %s, the plan's is %s", i, planned.Describe(), rec.Workload, planned.Workload))
		}
		if fp := run.Summary.Fingerprint; fp != "" && fp != planned.Workload && rec.Workload == planned.Workload {
			c.Mismatched = append(c.Mismatched, fmt.Sprintf("run %d (%s): its summary.json records workload %s, the plan's is %s", i, planned.Describe(), fp, planned.Workload))
		}
		if run.Summary.Policy != planned.Policy {
			c.Mismatched = append(c.Mismatched, fmt.Sprintf("run %d's summary is of policy %s, the plan's is %s", i, run.Summary.Policy, planned.Policy))
		}
		if len(c.Mismatched) > before {
			bad++
		}
		c.Runs = append(c.Runs, run)
	}
	if len(c.Missing) > 0 && !o.Partial {
		return nil, fmt.Errorf("%d of %d runs have not finished (%s): run them (mrsched sweep run -dir %s), or collect the finished ones with -partial",
			len(c.Missing), len(s.Plan.Runs), ranges(c.Missing), s.Dir)
	}
	if len(c.Mismatched) > 0 && !o.Force {
		what := fmt.Sprintf("%d runs are", bad)
		if bad == 1 {
			what = "1 run is"
		}
		return nil, fmt.Errorf("%s not what the plan says, so they would mix different workloads:\n  %s\nremove their directories under %s and run them again, or aggregate them anyway with -force",
			what, strings.Join(c.Mismatched, "\n  "), filepath.Join(s.Dir, runsDir))
	}
	if len(c.Runs) == 0 {
		return nil, fmt.Errorf("no run of the sweep in %s has finished", s.Dir)
	}
	return c, nil
}

// Group is the runs of one cell under one policy: the seeds a mean and
// standard error are taken over.
type Group struct {
	Cell     int
	Settings []Setting
	Policy   string
	Runs     []*Collected
}

// Groups returns the finished runs by cell and policy, in plan order.
func (c *Collection) Groups() []Group {
	var out []Group
	for _, r := range c.Runs {
		n := len(out)
		if n > 0 && out[n-1].Cell == r.Run.Cell && out[n-1].Policy == r.Run.Policy {
			out[n-1].Runs = append(out[n-1].Runs, r)
			continue
		}
		out = append(out, Group{Cell: r.Run.Cell, Settings: r.Run.Settings, Policy: r.Run.Policy, Runs: []*Collected{r}})
	}
	return out
}

// measure is a column of the collected table.
type measure struct {
	head, csv string
	decimals  int
	get       func(*metrics.Summary) float64
}

var measures = []measure{
	{"jobs done", "jobs_completed", 1, func(s *metrics.Summary) float64 { return float64(s.JobsCompleted) }},
	{"throughput (jobs/h)", "throughput_jobs_per_h", 1, func(s *metrics.Summary) float64 { return s.ThroughputJobsPerHour }},
	{"mean turnaround (s)", "mean_turnaround_s", 1, func(s *metrics.Summary) float64 { return s.Turnaround.Mean }},
	{"p95 turnaround (s)", "p95_turnaround_s", 1, func(s *metrics.Summary) float64 { return s.Turnaround.P95 }},
	{"node-local maps (%)", "node_local_maps_pct", 1, func(s *metrics.Summary) float64 { return 100 * s.Locality.Node }},
	{"cross-rack (GB)", "cross_rack_gb", 1, func(s *metrics.Summary) float64 { return s.Bytes.CrossRackTotal / 1e9 }},
}

func (g Group) stats(m measure) (mean, se float64) {
	v := make([]float64, len(g.Runs))
	for i, r := range g.Runs {
		v[i] = m.get(&r.Summary)
	}
	return metrics.MeanSE(v)
}

// keyHeaders name the columns that say which runs a row is of: the
// plan's axes, the policy and the number of seeds.
func (c *Collection) keyHeaders() []string {
	var h []string
	for _, a := range c.Sweep.Plan.Axes {
		h = append(h, a.Path)
	}
	return append(h, "policy", "seeds")
}

// keys are the group's cells under keyHeaders.
func (g Group) keys() []string {
	var row []string
	for _, s := range g.Settings {
		row = append(row, s.Value)
	}
	return append(row, g.Policy, strconv.Itoa(len(g.Runs)))
}

// Table is the collection for people: a row a cell and policy, each
// measure as its mean over the seeds ± its standard error.
func (c *Collection) Table() *report.Table {
	p := c.Sweep.Plan
	t := &report.Table{Title: fmt.Sprintf("sweep %s (%s): %d runs, mean ± standard error over seeds %s",
		c.Sweep.Dir, p.Grid, len(c.Runs), joinSeeds(p.Seeds))}
	t.Headers = c.keyHeaders()
	for _, m := range measures {
		t.Headers = append(t.Headers, m.head)
	}
	for _, g := range c.Groups() {
		row := g.keys()
		for _, m := range measures {
			mean, se := g.stats(m)
			cell := strconv.FormatFloat(mean, 'f', m.decimals, 64)
			if !math.IsNaN(se) {
				cell += " ± " + strconv.FormatFloat(se, 'f', m.decimals, 64)
			}
			row = append(row, cell)
		}
		t.AddRow(row...)
	}
	t.Notes = []string{
		"throughput: completed jobs / (last finish - first submit); turnaround: finish - submit; cross-rack: bytes over rack uplinks (1 GB = 1e9 bytes)",
		"standard error: the seeds' sample standard deviation / sqrt(seeds); one seed has none",
	}
	if len(c.Missing) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("partial: %d runs have not finished (%s)", len(c.Missing), ranges(c.Missing)))
	}
	if len(c.Mismatched) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("forced: %d runs do not match the plan and are aggregated anyway", len(c.Mismatched)))
	}
	return t
}

// csvNum writes v for a CSV cell: as plain a decimal as reads back as v,
// and empty for NaN (a standard error of one seed), which tools read as
// missing.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// CSV is the collection for tools: the same rows as Table, each measure's
// mean and standard error as plain numbers in columns of their own (the
// standard error empty for one seed).
func (c *Collection) CSV() *report.Table {
	t := &report.Table{Headers: c.keyHeaders()}
	for _, m := range measures {
		t.Headers = append(t.Headers, m.csv+"_mean", m.csv+"_se")
	}
	for _, g := range c.Groups() {
		row := g.keys()
		for _, m := range measures {
			mean, se := g.stats(m)
			row = append(row, csvNum(mean), csvNum(se))
		}
		t.AddRow(row...)
	}
	return t
}

func joinSeeds(s []uint64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(parts, ", ")
}
