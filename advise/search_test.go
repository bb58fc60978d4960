package advise

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// synthetic is an evaluator of known truth: candidate i's mean turnaround
// on a run is mu[i], plus a term every candidate shares on that seed (as
// a seed's arrivals and placements are shared under common random
// numbers), plus its own noise of standard deviation sigma.
type synthetic struct {
	mu     []float64
	shared float64
	sigma  float64
	rep    uint64
	// same maps a candidate to another whose runs it repeats exactly (one
	// policy under two names).
	same map[int]int
	// cost is the CPU seconds a run of the whole workload costs; spent
	// adds them up.
	cost, spent float64
	// cancelAfter cancels the context after that many runs (0: never).
	cancelAfter int
	cancel      func()
	runs        int
}

func (s *synthetic) Evaluate(ctx context.Context, reqs []Request) ([]*Figures, error) {
	out := make([]*Figures, len(reqs))
	for i, r := range reqs {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		c := r.Candidate
		if o, ok := s.same[c]; ok {
			c = o
		}
		seedRng := rand.New(rand.NewPCG(s.rep, r.Seed*1000+uint64(r.Stage)))
		common := s.shared * seedRng.NormFloat64()
		own := rand.New(rand.NewPCG(s.rep^0x9e3779b9, r.Seed*1000003+uint64(r.Stage)*1009+uint64(c)))
		v := s.mu[c] + common + s.sigma*own.NormFloat64()
		out[i] = &Figures{JobsSubmitted: 10, JobsCompleted: 10, MeanTurnaroundS: v, P95TurnaroundS: 2 * v,
			ThroughputJobsPerH: 100, CrossRackGB: 1}
		s.spent += s.cost * r.Fraction
		s.runs++
		if s.cancelAfter > 0 && s.runs >= s.cancelAfter {
			s.cancel()
		}
	}
	return out, nil
}

func names(n int) []Candidate {
	c := make([]Candidate, n)
	for i := range c {
		c[i] = Candidate{Policy: "p" + string(rune('a'+i))}
	}
	return c
}

// Halving never leaves the true best behind: over 200 draws of the noise,
// with rivals 1 to 10 noise deviations worse, the best is kept at every
// stage and is the decision or within noise of it.
func TestHalvingNeverDropsTheTrueBest(t *testing.T) {
	mu := []float64{103, 100, 104, 106, 110, 115, 120, 130, 101.5, 125}
	const trueBest = 1
	for rep := range uint64(200) {
		ev := &synthetic{mu: mu, shared: 20, sigma: 1.5, rep: rep}
		o := DefaultOptions()
		o.Current = 0
		res, err := Search(context.Background(), names(len(mu)), ev, o)
		if err != nil {
			t.Fatal(err)
		}
		for k, st := range res.Stages {
			for _, d := range st.Dropped {
				if d.Candidate == trueBest {
					t.Fatalf("draw %d: stage %d dropped the true best (mean 100) against candidate %d, diff %+v: a candidate must never be dropped on a difference within its noise", rep, k, d.Best, d.Diff)
				}
			}
		}
		dec := res.Decision
		within := slices.ContainsFunc(dec.WithinNoise, func(c Comparison) bool { return c.Candidate == trueBest })
		if dec.Best != trueBest && !within {
			t.Fatalf("draw %d: decision %d with the true best neither chosen nor within noise: %+v", rep, dec.Best, dec)
		}
	}
}

// A candidate clearly best is named, its gain is stated with an interval
// and seeds, and the same seeds give the same verdict byte for byte.
func TestClearWinnerIsNamedAndDeterministic(t *testing.T) {
	mu := []float64{100, 80, 99, 120}
	run := func() *Result {
		ev := &synthetic{mu: mu, shared: 10, sigma: 1, rep: 7}
		res, err := Search(context.Background(), names(4), ev, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.Decision.Best != 1 || !a.Decision.Separated {
		t.Fatalf("decision %+v, want candidate 1 (mean 80 against 99-120) separated from the rest", a.Decision)
	}
	v := a.Verdict()
	if !regexp.MustCompile(`^Run pb with its defaults: mean turnaround 0\.\d\dx \(95% interval 0\.\d\d-0\.\d\d, \d+ seeds\) of pa's\.\n`).MatchString(v) {
		t.Errorf("verdict %q, want it to name pb and its gain against the current pa with an interval and seed count", v)
	}
	if v != b.Verdict() {
		t.Errorf("the same seeds gave two verdicts:\n%s\n%s", v, b.Verdict())
	}
	if a.Stop != "separated" {
		t.Errorf("stop %q, want separated: seeds stop being added once the best stands apart", a.Stop)
	}
}

// One policy under two names is never a winner over itself: the verdict
// says they are within noise and names the other.
func TestSamePolicyTwiceIsWithinNoise(t *testing.T) {
	mu := []float64{100, 90, 0, 130}
	ev := &synthetic{mu: mu, shared: 10, sigma: 1, rep: 3, same: map[int]int{2: 1}}
	res, err := Search(context.Background(), names(4), ev, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decision
	if d.Separated {
		t.Fatalf("decision %+v separated two names of one policy; want within noise", d)
	}
	other := map[int]int{1: 2, 2: 1}[d.Best]
	if !slices.ContainsFunc(d.WithinNoise, func(c Comparison) bool { return c.Candidate == other }) {
		t.Errorf("within noise %+v, want the other name (%d) of the best policy", d.WithinNoise, other)
	}
	if res.Stop != "max-seeds" || d.Seeds != DefaultOptions().MaxSeeds {
		t.Errorf("stop %q after %d seeds, want max-seeds at %d: seeds are added while the two cannot be told apart", res.Stop, d.Seeds, DefaultOptions().MaxSeeds)
	}
	v := res.Verdict()
	if !strings.Contains(v, "Not separated from the best") || !strings.Contains(v, names(4)[other].Policy) {
		t.Errorf("verdict %q, want it to say the best is not separated and name %s", v, names(4)[other].Policy)
	}
}

// TestMaxSeedsBoundsTheWholeWorkload: -max-seeds below the last stage's
// first batch (4 seeds) is what the whole workload runs on; it ran on 4.
func TestMaxSeedsBoundsTheWholeWorkload(t *testing.T) {
	for _, max := range []int{2, 3, 4, 6} {
		o := DefaultOptions()
		o.MaxSeeds = max
		ev := &synthetic{mu: []float64{100, 90, 0, 130}, shared: 10, sigma: 1, rep: 3, same: map[int]int{2: 1}}
		res, err := Search(context.Background(), names(4), ev, o)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Decision; d.Seeds != max {
			t.Errorf("-max-seeds %d: the decision rests on %d seeds; want %d, as the two names of one policy are never told apart", max, d.Seeds, max)
		}
	}
}

// The budget bounds the CPU time: the search stops before a batch whose
// estimated cost would pass it, and says its verdict is partial.
func TestBudgetIsRespected(t *testing.T) {
	mu := []float64{100, 99, 99.5, 100.5, 101, 98}
	free := &synthetic{mu: mu, shared: 10, sigma: 3, rep: 1, cost: 2}
	if _, err := Search(context.Background(), names(len(mu)), free, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []float64{10, 20, free.spent / 2} {
		ev := &synthetic{mu: mu, shared: 10, sigma: 3, rep: 1, cost: 2}
		o := DefaultOptions()
		o.Budget, o.Spent = budget, func() float64 { return ev.spent }
		res, err := Search(context.Background(), names(len(mu)), ev, o)
		if err != nil {
			t.Fatal(err)
		}
		if ev.spent > budget {
			t.Errorf("budget %v: spent %v, want at most the budget", budget, ev.spent)
		}
		if res.Stop != "budget" {
			t.Errorf("budget %v: stop %q, want budget (these candidates are too close to separate)", budget, res.Stop)
		}
		if res.Decision == nil {
			t.Errorf("budget %v: no decision; want the deepest stage's", budget)
		}
	}
}

// An interrupt ends the search with what it learned, marked partial.
func TestInterruptKeepsWhatWasLearned(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := &synthetic{mu: []float64{100, 80, 120}, shared: 10, sigma: 1, rep: 2, cancelAfter: 12, cancel: cancel}
	res, err := Search(ctx, names(3), ev, DefaultOptions())
	if err != ErrInterrupted {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	if !res.Partial || res.Stop != "interrupted" || res.Decision == nil {
		t.Fatalf("result partial=%v stop=%q decision=%v, want a partial decision from the finished runs", res.Partial, res.Stop, res.Decision)
	}
	if v := res.Verdict(); !strings.HasPrefix(v, "PARTIAL") {
		t.Errorf("verdict %q, want it to start by saying it is partial", v)
	}
}
