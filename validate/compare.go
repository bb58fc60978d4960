// Package validate measures the simulator against the testbed: it runs a
// scenario's policies in both, seed by seed, and reports how far the
// simulator's numbers are from the testbed's (errors) and whether each
// policy's effect over its baseline has the same sign and size in both
// (effects). It is what `mrsched validate` runs.
package validate

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/metrics"
)

// Outcome is what validation compares of one run, simulated or on the
// testbed: the summary's figures and every completed job's turnaround.
type Outcome struct {
	MeanTurnaround float64 `json:"mean_turnaround_s"`
	P95Turnaround  float64 `json:"p95_turnaround_s"`
	MakespanS      float64 `json:"makespan_s"`
	// ThroughputJobsPerHour is completed jobs over the makespan.
	ThroughputJobsPerHour float64 `json:"throughput_jobs_per_hour"`
	// CrossRackBytes is the run's cross-rack payload: the simulator's
	// accounting, or on the testbed what the kernel counted on the rack
	// uplinks (see testbed.Report.UplinkPayloadBytes).
	CrossRackBytes float64 `json:"cross_rack_bytes"`
	// Turnaround is each completed job's turnaround, by job ID.
	Turnaround map[int]float64 `json:"-"`
	// Time is the completed jobs' mean seconds by part of their critical
	// path (summary.json's time_breakdown.mean_s), by part name; nil for
	// a run that did not record it.
	Time map[string]float64 `json:"time_s,omitempty"`
}

// Errors are the simulator's relative errors against the testbed on one
// run: (simulator - testbed) / testbed; and the rank correlation of the
// jobs' turnarounds in the two.
type Errors struct {
	MeanTurnaround float64 `json:"mean_turnaround"`
	P95Turnaround  float64 `json:"p95_turnaround"`
	Makespan       float64 `json:"makespan"`
	CrossRackBytes float64 `json:"cross_rack_bytes"`
	// SpearmanTurnaround is Spearman's rank correlation of per-job
	// turnaround over the jobs completed in both runs.
	SpearmanTurnaround float64 `json:"spearman_turnaround"`
}

// Compare is the simulator's errors against the testbed on one run.
func Compare(sim, tb Outcome) Errors {
	rel := func(s, t float64) float64 {
		if t == 0 {
			if s == 0 {
				return 0
			}
			return math.Inf(1)
		}
		return (s - t) / t
	}
	var xs, ys []float64
	ids := make([]int, 0, len(sim.Turnaround))
	for id := range sim.Turnaround {
		if _, ok := tb.Turnaround[id]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids) // no map order reaches the figures
	for _, id := range ids {
		xs = append(xs, sim.Turnaround[id])
		ys = append(ys, tb.Turnaround[id])
	}
	return Errors{
		MeanTurnaround:     rel(sim.MeanTurnaround, tb.MeanTurnaround),
		P95Turnaround:      rel(sim.P95Turnaround, tb.P95Turnaround),
		Makespan:           rel(sim.MakespanS, tb.MakespanS),
		CrossRackBytes:     rel(sim.CrossRackBytes, tb.CrossRackBytes),
		SpearmanTurnaround: metrics.Spearman(xs, ys),
	}
}

// Ratios are a policy's figures over its baseline's on the same seed.
type Ratios struct {
	MeanTurnaround float64 `json:"mean_turnaround_ratio"`
	Throughput     float64 `json:"throughput_ratio"`
	CrossRack      float64 `json:"cross_rack_ratio"`
}

// RatiosOf is policy p's figures over baseline b's.
func RatiosOf(p, b Outcome) Ratios {
	div := func(x, y float64) float64 {
		if y == 0 {
			return math.NaN()
		}
		return x / y
	}
	return Ratios{
		MeanTurnaround: div(p.MeanTurnaround, b.MeanTurnaround),
		Throughput:     div(p.ThroughputJobsPerHour, b.ThroughputJobsPerHour),
		CrossRack:      div(p.CrossRackBytes, b.CrossRackBytes),
	}
}

// EffectStats are an effect's ratios averaged over seeds, with their
// standard errors (the standard deviation over seeds over the root of the
// number of seeds; 0 with one seed, where JSON cannot carry NaN, and
// Agreement marks the spread as untested).
type EffectStats struct {
	Ratios
	SE    Ratios `json:"se"`
	Seeds int    `json:"seeds"`
}

// Summarize averages per-seed ratios.
func Summarize(rs []Ratios) EffectStats {
	get := []func(Ratios) float64{
		func(r Ratios) float64 { return r.MeanTurnaround },
		func(r Ratios) float64 { return r.Throughput },
		func(r Ratios) float64 { return r.CrossRack },
	}
	var m, se [3]float64
	for k, g := range get {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = g(r)
		}
		m[k], se[k] = metrics.MeanSE(v)
		if len(v) < 2 {
			se[k] = 0 // one seed: no spread; Agree reports it untested (OneSeed)
		}
	}
	return EffectStats{Ratios: Ratios{m[0], m[1], m[2]}, SE: Ratios{se[0], se[1], se[2]}, Seeds: len(rs)}
}

// Agreement says whether the simulator's effect agrees with the testbed's
// on one figure: the same side of 1 (the same sign of the effect), and
// the simulator's mean within two of the testbed's standard errors. A
// testbed run on one seed has no spread to measure against: OneSeed is set
// and WithinTwoSE is false, meaning untested rather than failed.
type Agreement struct {
	SameSign    bool `json:"same_sign"`
	WithinTwoSE bool `json:"within_two_se"`
	OneSeed     bool `json:"one_seed,omitempty"`
}

// Agree compares a simulated effect with the testbed's on each figure.
func Agree(sim, tb EffectStats) [3]Agreement {
	s := [3]float64{sim.MeanTurnaround, sim.Throughput, sim.CrossRack}
	t := [3]float64{tb.MeanTurnaround, tb.Throughput, tb.CrossRack}
	se := [3]float64{tb.SE.MeanTurnaround, tb.SE.Throughput, tb.SE.CrossRack}
	var out [3]Agreement
	for k := range out {
		out[k] = Agreement{
			SameSign:    math.Signbit(s[k]-1) == math.Signbit(t[k]-1) || s[k] == t[k],
			WithinTwoSE: tb.Seeds >= 2 && math.Abs(s[k]-t[k]) <= 2*se[k],
			OneSeed:     tb.Seeds < 2,
		}
	}
	return out
}
