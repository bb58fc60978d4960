package advise

import (
	"fmt"
	"strings"

	"github.com/mrsched/mrsched/metrics"
)

// Figures are what advice reads of one run: the objectives' figures, and
// each pool's mean turnaround for the fairness objective.
type Figures struct {
	JobsSubmitted      int     `json:"jobs_submitted"`
	JobsCompleted      int     `json:"jobs_completed"`
	MeanTurnaroundS    float64 `json:"mean_turnaround_s"`
	P95TurnaroundS     float64 `json:"p95_turnaround_s"`
	ThroughputJobsPerH float64 `json:"throughput_jobs_per_h"`
	CrossRackGB        float64 `json:"cross_rack_gb"`
	// PoolMeanTurnaroundS is the mean turnaround of each pool's completed
	// jobs (metrics.JobRecord.Pool).
	PoolMeanTurnaroundS map[string]float64 `json:"pool_mean_turnaround_s,omitempty"`
}

// FiguresOf reads a run's figures from its summary and job records.
func FiguresOf(s metrics.Summary, jobs []metrics.JobRecord) Figures {
	f := Figures{JobsSubmitted: s.JobsSubmitted, JobsCompleted: s.JobsCompleted,
		MeanTurnaroundS: s.Turnaround.Mean, P95TurnaroundS: s.Turnaround.P95,
		ThroughputJobsPerH: s.ThroughputJobsPerHour, CrossRackGB: s.Bytes.CrossRackTotal / 1e9}
	sum, n := map[string]float64{}, map[string]int{}
	for _, j := range jobs {
		if j.Failed || j.Finish < 0 {
			continue
		}
		sum[j.Pool] += j.Finish - j.Submit
		n[j.Pool]++
	}
	if len(n) > 0 {
		f.PoolMeanTurnaroundS = map[string]float64{}
		for p, c := range n {
			f.PoolMeanTurnaroundS[p] = sum[p] / float64(c)
		}
	}
	return f
}

// Objective is the figure advice optimises.
type Objective struct {
	Name string `json:"name"`
	// What names the figure in the verdict.
	What string `json:"what"`
	Unit string `json:"unit"`
	// Maximize is set for a figure where more is better (throughput).
	Maximize bool `json:"maximize"`
	// Relative marks a figure defined against the current policy's run
	// of the same seed (the worst pool's), which is 1 for that policy.
	Relative bool `json:"relative,omitempty"`
}

// Objectives are the figures -objective chooses among; the first is the
// default.
var Objectives = []Objective{
	{Name: "mean-turnaround", What: "mean turnaround", Unit: "s"},
	{Name: "p95-turnaround", What: "p95 turnaround", Unit: "s"},
	{Name: "throughput", What: "throughput", Unit: "jobs/h", Maximize: true},
	{Name: "cross-rack", What: "cross-rack bytes", Unit: "GB"},
	{Name: "worst-pool", What: "worst pool's mean turnaround relative to the current policy's", Unit: "x", Relative: true},
}

// LookupObjective returns the objective named name.
func LookupObjective(name string) (Objective, error) {
	var names []string
	for _, o := range Objectives {
		if o.Name == name {
			return o, nil
		}
		names = append(names, o.Name)
	}
	return Objective{}, fmt.Errorf("unknown objective %q (want one of %s)", name, strings.Join(names, ", "))
}

// Value is the objective's figure of a run; cur is the current policy's
// run of the same stage and seed, which a relative objective needs. The
// worst pool's figure is the largest, over the pools that completed jobs
// in both runs, of the pool's mean turnaround over its mean turnaround
// under the current policy: 1.2 says some pool's jobs take 20% longer.
func (o Objective) Value(f, cur *Figures) float64 {
	switch o.Name {
	case "p95-turnaround":
		return f.P95TurnaroundS
	case "throughput":
		return f.ThroughputJobsPerH
	case "cross-rack":
		return f.CrossRackGB
	case "worst-pool":
		worst := 0.0
		for p, v := range f.PoolMeanTurnaroundS {
			if c, ok := cur.PoolMeanTurnaroundS[p]; ok && c > 0 {
				worst = max(worst, v/c)
			}
		}
		return worst
	}
	return f.MeanTurnaroundS
}

// loss is the figure turned so that less is better.
func (o Objective) loss(v float64) float64 {
	if o.Maximize {
		return -v
	}
	return v
}

// Constraint bounds another figure of the chosen candidate as a multiple
// of the current policy's on the same seeds: "p95-turnaround<=1.1".
type Constraint struct {
	Objective Objective `json:"objective"`
	// Bound is the multiple; at most it for a figure where less is
	// better, at least it for one where more is.
	Bound float64 `json:"bound"`
}

// ParseConstraint reads "NAME<=X" or "NAME>=X".
func ParseConstraint(s string) (*Constraint, error) {
	op := "<="
	i := strings.Index(s, op)
	if i < 0 {
		op = ">="
		i = strings.Index(s, op)
	}
	if i < 0 {
		return nil, fmt.Errorf("constraint %q: want NAME<=X (a multiple of the current policy's figure, as p95-turnaround<=1.1) or NAME>=X", s)
	}
	o, err := LookupObjective(strings.TrimSpace(s[:i]))
	if err != nil {
		return nil, fmt.Errorf("constraint %q: %w", s, err)
	}
	var b float64
	if _, err := fmt.Sscanf(strings.TrimSpace(s[i+2:]), "%g", &b); err != nil || !(b > 0) {
		return nil, fmt.Errorf("constraint %q: want a positive multiple after %s", s, op)
	}
	if (op == "<=") == o.Maximize {
		return nil, fmt.Errorf("constraint %q: %s is better %s; bound it with %s", s, o.What, map[bool]string{true: "higher", false: "lower"}[o.Maximize],
			map[bool]string{true: ">=", false: "<="}[o.Maximize])
	}
	return &Constraint{Objective: o, Bound: b}, nil
}

// String writes the constraint as it is given.
func (c Constraint) String() string {
	op := "<="
	if c.Objective.Maximize {
		op = ">="
	}
	return fmt.Sprintf("%s%s%g", c.Objective.Name, op, c.Bound)
}

// holds reports whether a mean ratio to the current policy meets it.
func (c Constraint) holds(ratio float64) bool {
	if c.Objective.Maximize {
		return ratio >= c.Bound
	}
	return ratio <= c.Bound
}
