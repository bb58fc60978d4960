package advise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Request is one run the search asks for: a candidate on a stage's slice
// of the workload with one seed.
type Request struct {
	Candidate int `json:"candidate"`
	Stage     int `json:"stage"`
	// Fraction is the share of the workload's jobs the run replays, its
	// first jobs; 1 is the whole workload.
	Fraction float64 `json:"fraction"`
	Seed     uint64  `json:"seed"`
}

// Evaluator runs requests. It returns one entry a request, in order; an
// entry is nil for a request it did not run because ctx ended, and then
// the error is ctx's.
type Evaluator interface {
	Evaluate(ctx context.Context, reqs []Request) ([]*Figures, error)
}

// StagePlan is one stage of the halving: the share of the workload its
// runs replay and the seeds every candidate entering it runs.
type StagePlan struct {
	Fraction float64 `json:"fraction"`
	Seeds    int     `json:"seeds"`
}

// Options configure a search.
type Options struct {
	Objective Objective
	// Constraint, when set, bounds another figure of the chosen candidate.
	Constraint *Constraint
	// Current is the index of the candidate the cluster runs now: every
	// stage runs it, so that each gain is paired with it by seed.
	Current int
	// Stages are the halving's stages; the last replays the whole
	// workload (Fraction 1) and adds seeds.
	Stages []StagePlan
	// Eta is the halving's ratio: a stage passes on the best 1/Eta of its
	// candidates, and every other one it cannot tell from the best.
	Eta int
	// AddSeeds is how many seeds the last stage adds at a time, until the
	// best is separated from every other candidate or MaxSeeds, which
	// also bounds the last stage's first seeds.
	AddSeeds, MaxSeeds int
	// FirstSeed is the first seed; a stage's seeds are FirstSeed,
	// FirstSeed+1, ...
	FirstSeed uint64
	// Budget is the CPU seconds the search may spend (0: no bound), and
	// Spent reports what it has spent so far. Before each batch after the
	// first the search estimates the batch's cost from the cost so far per
	// run of the whole workload, and stops if it would pass the budget.
	Budget float64
	Spent  func() float64
}

// DefaultOptions are the defaults of mrsched advise: three stages, an
// eighth of the workload and a quarter of it on 4 seeds each, the whole
// of it on 4 seeds and up to 10, a third passed on at each stage (with
// every candidate within noise of the best).
func DefaultOptions() Options {
	return Options{Objective: Objectives[0], Stages: []StagePlan{{0.125, 4}, {0.25, 4}, {1, 4}},
		Eta: 3, AddSeeds: 2, MaxSeeds: 10, FirstSeed: 1}
}

// Confidence is the level of every interval advice states.
const Confidence = 0.95

// Stage is one stage's record: who entered, on which seeds, what each run
// gave and who was passed on.
type Stage struct {
	Fraction float64 `json:"fraction"`
	// Entered are the candidates that entered the stage; Reference is the
	// current policy when it runs only as the base of the gains.
	Entered   []int      `json:"entered"`
	Reference *int       `json:"reference,omitempty"`
	Seeds     []uint64   `json:"seeds"`
	Runs      []StageRun `json:"runs"`
	// Kept are the candidates passed on (the last stage: still in
	// contention at its end), Dropped those that were not, with why.
	Kept    []int  `json:"kept"`
	Dropped []Drop `json:"dropped,omitempty"`
}

// StageRun is one run's figures and objective value.
type StageRun struct {
	Candidate int     `json:"candidate"`
	Seed      uint64  `json:"seed"`
	Value     float64 `json:"value"`
	Figures   Figures `json:"figures"`
}

// Drop records a candidate left behind: its objective's paired
// difference from the stage's best, whose interval lay wholly above 0
// (worse) at the level Conf.
type Drop struct {
	Candidate int      `json:"candidate"`
	Best      int      `json:"best"`
	Diff      Interval `json:"diff"`
	Conf      float64  `json:"conf"`
	// Seeds is the number of seeds the comparison had when it was made.
	Seeds int `json:"seeds"`
}

// Result is a search's record and decision: what advice.json holds.
type Result struct {
	Objective  Objective   `json:"objective"`
	Constraint *Constraint `json:"constraint,omitempty"`
	Candidates []Candidate `json:"candidates"`
	Current    int         `json:"current"`
	Stages     []*Stage    `json:"stages"`
	// Planned is the number of stages planned.
	Planned  int       `json:"planned"`
	Decision *Decision `json:"decision,omitempty"`
	// Stop says why the search ended: "separated", "max-seeds",
	// "budget", "interrupted" or "single".
	Stop string `json:"stop"`
	// Partial is set when the search ended before its last stage
	// finished (the budget, an interrupt): the decision is then the
	// deepest stage's.
	Partial bool `json:"partial"`
}

// ErrInterrupted is returned by Search, with what was learned, when ctx
// ended.
var ErrInterrupted = errors.New("interrupted")

// Search runs successive halving over cands with ev and decides. It
// returns the record with ErrInterrupted when ctx ends; the record's
// decision is then made from the runs that finished.
func Search(ctx context.Context, cands []Candidate, ev Evaluator, o Options) (*Result, error) {
	if len(o.Stages) == 0 || o.Stages[len(o.Stages)-1].Fraction != 1 {
		return nil, fmt.Errorf("the last stage must replay the whole workload")
	}
	if o.Current < 0 || o.Current >= len(cands) {
		return nil, fmt.Errorf("current candidate %d out of range", o.Current)
	}
	s := &searcher{o: o, ev: ev, res: &Result{Objective: o.Objective, Constraint: o.Constraint, Candidates: cands, Current: o.Current, Planned: len(o.Stages)}}
	err := s.run(ctx, len(cands))
	s.res.Decision = decide(s.res)
	switch {
	case errors.Is(err, errBudget):
		s.res.Partial = true
		return s.res, nil
	case errors.Is(err, ErrInterrupted):
		s.res.Partial, s.res.Stop = true, "interrupted"
		return s.res, err
	case err != nil:
		return nil, err
	}
	return s.res, nil
}

type searcher struct {
	o   Options
	ev  Evaluator
	res *Result
	// units is the number of whole-workload runs done (a run of a
	// fraction f counts f), for the budget's estimate.
	units float64
}

func (s *searcher) run(ctx context.Context, n int) error {
	active := make([]int, n)
	for i := range active {
		active[i] = i
	}
	last := len(s.o.Stages) - 1
	for k, plan := range s.o.Stages {
		if k < last && len(active) == 1 {
			continue // nothing to halve: straight to the whole workload
		}
		if k == last && s.o.MaxSeeds > 0 {
			plan.Seeds = min(plan.Seeds, s.o.MaxSeeds) // MaxSeeds bounds the whole workload's first batch too
		}
		st := &Stage{Fraction: plan.Fraction, Entered: slices.Clone(active)}
		if !slices.Contains(active, s.o.Current) {
			c := s.o.Current
			st.Reference = &c
		}
		if len(s.res.Stages) > 0 && s.overBudget(plan.Fraction, len(s.runners(st))*plan.Seeds) {
			s.res.Stop = "budget"
			return errBudget
		}
		s.res.Stages = append(s.res.Stages, st)
		if err := s.addSeeds(ctx, k, st, active, plan.Seeds); err != nil {
			return err
		}
		if k < last {
			active = s.halve(st)
			st.Kept = active
			continue
		}
		// The last stage: drop what is worse than the best beyond noise,
		// and add seeds until the best is separated from every other
		// candidate, or MaxSeeds, or the budget.
		for {
			active = s.prune(st, active)
			st.Kept = active
			if n == 1 {
				s.res.Stop = "single"
				return nil
			}
			if s.separated(st, active) {
				s.res.Stop = "separated"
				return nil
			}
			if len(st.Seeds) >= s.o.MaxSeeds {
				s.res.Stop = "max-seeds"
				return nil
			}
			add := min(s.o.AddSeeds, s.o.MaxSeeds-len(st.Seeds))
			runners := len(active)
			if !slices.Contains(active, s.o.Current) {
				runners++
			}
			if s.overBudget(1, runners*add) {
				s.res.Stop = "budget"
				return nil
			}
			if err := s.addSeeds(ctx, k, st, active, add); err != nil {
				return err
			}
		}
	}
	return nil
}

// errBudget ends a search the budget cut short before its last stage.
var errBudget = errors.New("the budget ended before the last stage")

// runners are the candidates a stage runs: those that entered and the
// reference.
func (s *searcher) runners(st *Stage) []int {
	r := slices.Clone(st.Entered)
	if st.Reference != nil {
		r = append(r, *st.Reference)
	}
	return r
}

func (s *searcher) overBudget(fraction float64, runs int) bool {
	if s.o.Budget <= 0 || s.o.Spent == nil || s.units == 0 {
		return false
	}
	spent := s.o.Spent()
	perUnit := spent / s.units
	return spent+perUnit*fraction*float64(runs) > s.o.Budget
}

// addSeeds runs active (and the current policy) on add more seeds of
// stage k.
func (s *searcher) addSeeds(ctx context.Context, k int, st *Stage, active []int, add int) error {
	runners := slices.Clone(active)
	if !slices.Contains(runners, s.o.Current) {
		runners = append(runners, s.o.Current)
	}
	var reqs []Request
	var seeds []uint64
	for i := range add {
		seed := s.o.FirstSeed + uint64(len(st.Seeds)+i)
		seeds = append(seeds, seed)
		for _, c := range runners {
			reqs = append(reqs, Request{Candidate: c, Stage: k, Fraction: st.Fraction, Seed: seed})
		}
	}
	figs, err := s.ev.Evaluate(ctx, reqs)
	if len(figs) != len(reqs) && err == nil {
		return fmt.Errorf("the evaluator returned %d results for %d runs", len(figs), len(reqs))
	}
	// A seed counts only when every runner finished it: comparisons are
	// paired by seed.
	for si, seed := range seeds {
		whole := true
		for ri := range runners {
			if i := si*len(runners) + ri; i >= len(figs) || figs[i] == nil {
				whole = false
			}
		}
		if !whole {
			continue
		}
		st.Seeds = append(st.Seeds, seed)
		cur := figs[si*len(runners)+slices.Index(runners, s.o.Current)]
		for ri, c := range runners {
			f := figs[si*len(runners)+ri]
			st.Runs = append(st.Runs, StageRun{Candidate: c, Seed: seed, Value: s.o.Objective.Value(f, cur), Figures: *f})
			s.units += st.Fraction
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return err
	}
	return nil
}

// values are candidate c's objective values on the stage's seeds, in
// seed order, as losses (less is better) when loss is set.
func (s *searcher) values(st *Stage, c int, loss bool) []float64 {
	return stageValues(st, c, func(r StageRun) float64 {
		if loss {
			return s.o.Objective.loss(r.Value)
		}
		return r.Value
	})
}

func stageValues(st *Stage, c int, get func(StageRun) float64) []float64 {
	var v []float64
	for _, seed := range st.Seeds {
		for _, r := range st.Runs {
			if r.Candidate == c && r.Seed == seed {
				v = append(v, get(r))
			}
		}
	}
	return v
}

// best is the candidate of cands with the least mean loss over the seeds
// all of them ran; ties go to the current policy, then to the one listed
// first.
func (s *searcher) best(st *Stage, cands []int) int {
	b, bm := -1, math.Inf(1)
	for _, c := range cands {
		v := s.values(st, c, true)
		if len(v) == 0 {
			continue
		}
		m := MeanInterval(v, Confidence).Mean
		if m < bm || (m == bm && c == s.o.Current) {
			b, bm = c, m // a tie goes to the current policy: a change must earn its place
		}
	}
	return b
}

// halve passes on the best ceil(n/Eta) candidates by mean, and every
// other candidate that is not worse than the best beyond noise: a
// candidate is left behind only when its paired difference from the best
// has a 95% interval wholly above 0. A candidate as good as the best is
// left behind only when the best looks better than it by more than the
// interval's half-width, a chance of at most 2.5% for each such candidate
// (one side of the interval); with 4 seeds the half-width is 3.18
// standard errors of the difference (t at 3 degrees of freedom).
func (s *searcher) halve(st *Stage) []int {
	cands := st.Entered
	n := len(cands)
	if n <= 1 {
		return slices.Clone(cands)
	}
	b := s.best(st, cands)
	order := slices.Clone(cands)
	means := map[int]float64{}
	for _, c := range cands {
		means[c] = MeanInterval(s.values(st, c, true), Confidence).Mean
	}
	slices.SortStableFunc(order, func(a, c int) int {
		switch {
		case means[a] < means[c]:
			return -1
		case means[a] > means[c]:
			return 1
		}
		return 0
	})
	top := (n + s.o.Eta - 1) / s.o.Eta
	keep := map[int]bool{}
	for i, c := range order {
		if i < top || c == b || !s.dropIfWorse(st, c, b) {
			keep[c] = true
		}
	}
	var out []int
	for _, c := range cands {
		if keep[c] {
			out = append(out, c)
		}
	}
	return out
}

// separated reports whether the best of active is separated from every
// other: each one's paired difference from it excludes 0 at 95%.
func (s *searcher) separated(st *Stage, active []int) bool {
	b := s.best(st, active)
	for _, c := range active {
		if c != b && !PairedDiff(s.values(st, c, true), s.values(st, b, true), Confidence).Excludes(0) {
			return false
		}
	}
	return true
}

// prune drops, from the last stage's contenders, those worse than the
// best beyond noise (as halve, without the quota), and returns those
// left.
func (s *searcher) prune(st *Stage, active []int) []int {
	if len(active) <= 1 {
		return active
	}
	b := s.best(st, active)
	var out []int
	for _, c := range active {
		if c == b || !s.dropIfWorse(st, c, b) {
			out = append(out, c)
		}
	}
	return out
}

// dropIfWorse leaves candidate c behind on stage st, recording why, when
// it is worse than the best, b, beyond noise: its paired difference from
// b has a 95% interval wholly above 0. It reports whether it did.
func (s *searcher) dropIfWorse(st *Stage, c, b int) bool {
	d := PairedDiff(s.values(st, c, true), s.values(st, b, true), Confidence)
	if d.Known() && d.Lo > 0 {
		st.Dropped = append(st.Dropped, Drop{Candidate: c, Best: b, Diff: d, Conf: Confidence, Seeds: d.N})
		return true
	}
	return false
}
