package advise

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Decision is what the search concluded, on the deepest stage it
// reached, with every figure paired by seed against the current policy.
type Decision struct {
	// Stage is the stage decided on (an index into Result.Stages), and
	// Whole is set when it replays the whole workload.
	Stage int  `json:"stage"`
	Whole bool `json:"whole"`
	// Best is the chosen candidate, -1 when none meets the constraint.
	Best  int `json:"best"`
	Seeds int `json:"seeds"`
	// Separated is set when the best's paired difference from every other
	// candidate of the stage excludes 0 at 95%.
	Separated bool `json:"separated"`
	// Gain is the best's objective as a multiple of the current
	// policy's, the mean of the per-seed ratios with its 95% interval.
	Gain Interval `json:"gain"`
	// Figures are the best's figures as multiples of the current's.
	Figures []NamedInterval `json:"figures"`
	// WithinNoise are the stage's other candidates whose paired
	// difference from the best does not exclude 0; Worse those whose
	// does (better ones cannot exist, but for the constraint's).
	WithinNoise []Comparison `json:"within_noise"`
	Worse       []Comparison `json:"worse"`
	// Ineligible are candidates that failed the constraint.
	Ineligible []Comparison `json:"ineligible,omitempty"`
	// LeftEarlier counts candidates left behind at earlier stages.
	LeftEarlier int `json:"left_earlier"`
}

// NamedInterval is an interval of a named figure.
type NamedInterval struct {
	Name string   `json:"name"`
	Iv   Interval `json:"interval"`
}

// Comparison is a candidate against the best on the seeds both ran:
// Ratio its objective over the best's, Diff its objective less the
// best's (per-seed means with 95% intervals).
type Comparison struct {
	Candidate int      `json:"candidate"`
	Ratio     Interval `json:"ratio"`
	Diff      Interval `json:"diff"`
}

// paired returns the values of a and b on the seeds of st both ran.
func paired(st *Stage, a, b int, get func(StageRun) float64) (va, vb []float64) {
	for _, seed := range st.Seeds {
		ra, rb := runOf(st, a, seed), runOf(st, b, seed)
		if ra != nil && rb != nil {
			va, vb = append(va, get(*ra)), append(vb, get(*rb))
		}
	}
	return va, vb
}

func runOf(st *Stage, c int, seed uint64) *StageRun {
	for i := range st.Runs {
		if st.Runs[i].Candidate == c && st.Runs[i].Seed == seed {
			return &st.Runs[i]
		}
	}
	return nil
}

// figureOf reads objective o's figure of a run, against the current
// policy's run of the same seed.
func figureOf(st *Stage, o Objective, cur int) func(StageRun) float64 {
	return func(r StageRun) float64 {
		c := runOf(st, cur, r.Seed)
		if c == nil {
			return math.NaN()
		}
		return o.Value(&r.Figures, &c.Figures)
	}
}

// decide makes the decision on the deepest stage with a finished seed.
func decide(res *Result) *Decision {
	k := len(res.Stages) - 1
	for k >= 0 && len(res.Stages[k].Seeds) == 0 {
		k--
	}
	if k < 0 {
		return nil
	}
	st := res.Stages[k]
	o := res.Objective
	d := &Decision{Stage: k, Whole: st.Fraction == 1, Best: -1, Seeds: len(st.Seeds)}
	value := func(r StageRun) float64 { return r.Value }
	contenders := st.Kept
	if contenders == nil {
		contenders = st.Entered
	}
	var eligible []int
	for _, c := range contenders {
		if res.Constraint != nil {
			a, b := paired(st, c, res.Current, figureOf(st, res.Constraint.Objective, res.Current))
			r := PairedRatio(a, b, Confidence)
			if !res.Constraint.holds(r.Mean) {
				d.Ineligible = append(d.Ineligible, Comparison{Candidate: c, Ratio: r})
				continue
			}
		}
		eligible = append(eligible, c)
	}
	bm := math.Inf(1)
	for _, c := range eligible {
		v := stageValues(st, c, func(r StageRun) float64 { return o.loss(r.Value) })
		if m := MeanInterval(v, Confidence).Mean; m < bm || (m == bm && c == res.Current) {
			d.Best, bm = c, m
		}
	}
	for i := 0; i < k; i++ {
		d.LeftEarlier += len(res.Stages[i].Dropped)
	}
	if d.Best < 0 {
		return d
	}
	a, b := paired(st, d.Best, res.Current, value)
	d.Gain = PairedRatio(a, b, Confidence)
	for _, fo := range Objectives {
		a, b := paired(st, d.Best, res.Current, figureOf(st, fo, res.Current))
		d.Figures = append(d.Figures, NamedInterval{Name: fo.Name, Iv: PairedRatio(a, b, Confidence)})
	}
	d.Separated = true
	for _, c := range append(slices.Clone(st.Entered), refs(st)...) {
		if c == d.Best || slices.ContainsFunc(d.Ineligible, func(x Comparison) bool { return x.Candidate == c }) {
			continue
		}
		a, b := paired(st, c, d.Best, value)
		cmp := Comparison{Candidate: c, Ratio: PairedRatio(a, b, Confidence), Diff: PairedDiff(a, b, Confidence)}
		if cmp.Diff.Excludes(0) {
			d.Worse = append(d.Worse, cmp)
		} else {
			d.WithinNoise = append(d.WithinNoise, cmp)
			if slices.Contains(st.Entered, c) {
				d.Separated = false
			}
		}
	}
	return d
}

func refs(st *Stage) []int {
	if st.Reference != nil {
		return []int{*st.Reference}
	}
	return nil
}

// Verdict is the decision in words: what to run, what it gains against
// the current policy with its interval and seeds, what is within noise
// of it, what is worse, and whether the search was cut short.
func (res *Result) Verdict() string {
	var b strings.Builder
	d := res.Decision
	o := res.Objective
	cands := res.Candidates
	cur := cands[res.Current]
	curName := cur.Policy
	if d == nil {
		return "No verdict: no run finished.\n"
	}
	if res.Partial {
		fmt.Fprintf(&b, "PARTIAL: the search ended early (%s) on stage %d of %d", res.Stop, d.Stage+1, res.Planned)
		if !d.Whole {
			fmt.Fprintf(&b, ", which replays %s of the workload", share(res.Stages[d.Stage].Fraction))
		}
		b.WriteString("; what follows is what it had learned.\n")
	}
	if d.Best < 0 {
		fmt.Fprintf(&b, "No candidate meets -constraint %s on the %d seeds run.\n", res.Constraint, d.Seeds)
		return b.String()
	}
	best := cands[d.Best]
	ivText := func(iv Interval) string {
		if !iv.Known() {
			return fmt.Sprintf("%sx (%d seed: no interval)", Ratio(iv.Mean), iv.N)
		}
		m, lo, hi := ratios(iv.Mean, iv.Lo, iv.Hi)
		return fmt.Sprintf("%sx (95%% interval %s-%s, %d seeds)", m, lo, hi, iv.N)
	}
	what := o.What
	if o.Relative {
		what = "worst pool's mean turnaround"
	}
	switch {
	case d.Best == res.Current && d.Separated:
		fmt.Fprintf(&b, "Keep %s: every other candidate is worse beyond noise on %s (95%%, %d seeds).\n", cur.Label(), o.What, d.Seeds)
	case d.Best == res.Current:
		fmt.Fprintf(&b, "Keep %s: no candidate beats it beyond noise on %s (%d seeds).\n", cur.Label(), o.What, d.Seeds)
	case res.Recommended() == res.Current:
		fmt.Fprintf(&b, "No gain beyond noise over %s: the best candidate, %s, has %s %s of %s's, an interval that holds 1.\n",
			curName, describe(best), what, ivText(d.Gain), curName)
	default:
		fmt.Fprintf(&b, "Run %s: %s %s of %s's.\n", describe(best), what, ivText(d.Gain), curName)
	}
	if len(d.WithinNoise) > 0 {
		var names []string
		for i, c := range d.WithinNoise {
			if i == maxListed {
				names = append(names, fmt.Sprintf("and %d more (advice.json)", len(d.WithinNoise)-i))
				break
			}
			names = append(names, fmt.Sprintf("%s (%sx)", cands[c.Candidate].Label(), Ratio(c.Ratio.Mean)))
		}
		fmt.Fprintf(&b, "Not separated from the best at 95%%: within noise of it are %s; choose among them on other grounds.\n", strings.Join(names, ", "))
	} else if d.Best != res.Current || !d.Separated {
		fmt.Fprintf(&b, "It is separated at 95%% from every other candidate of the stage.\n")
	}
	if !res.Partial && !d.Separated {
		switch res.Stop {
		case "budget":
			fmt.Fprintf(&b, "The budget ended the search at %d seeds, before the best was separated (a larger -budget adds seeds).\n", d.Seeds)
		case "max-seeds":
			fmt.Fprintf(&b, "The search stopped at -max-seeds (%d) before the best was separated.\n", d.Seeds)
		}
	}
	if len(d.Worse) > 0 {
		// Each other policy's closest candidate, in the order listed.
		var parts []string
		seen := map[string]bool{best.Policy: true}
		worse := slices.Clone(d.Worse)
		slices.SortStableFunc(worse, func(x, y Comparison) int { return cmpFloat(o.loss(x.Ratio.Mean), o.loss(y.Ratio.Mean)) })
		for _, c := range worse {
			p := cands[c.Candidate].Policy
			if seen[p] {
				continue
			}
			seen[p] = true
			parts = append(parts, fmt.Sprintf("%s %sx", cands[c.Candidate].Label(), Ratio(c.Ratio.Mean)))
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "Worse beyond noise (%s as a multiple of the best's, each policy's closest): %s.\n", o.What, strings.Join(parts, ", "))
		}
	}
	if d.LeftEarlier > 0 {
		fmt.Fprintf(&b, "%d candidates were left behind on slices of the workload, each worse than that slice's best beyond noise (advice.json).\n", d.LeftEarlier)
	}
	var figs []string
	for _, f := range d.Figures {
		if f.Name == o.Name {
			continue
		}
		fo, _ := LookupObjective(f.Name)
		name := fo.What
		if fo.Relative {
			name = "worst pool's turnaround"
		}
		if f.Iv.Known() {
			m, lo, hi := ratios(f.Iv.Mean, f.Iv.Lo, f.Iv.Hi)
			figs = append(figs, fmt.Sprintf("%s %sx (%s-%s)", name, m, lo, hi))
		} else if f.Iv.N > 0 {
			figs = append(figs, fmt.Sprintf("%s %sx", name, Ratio(f.Iv.Mean)))
		}
	}
	if d.Best != res.Current && len(figs) > 0 {
		fmt.Fprintf(&b, "Its other figures against %s's: %s.\n", curName, strings.Join(figs, ", "))
	}
	for _, c := range d.Ineligible {
		fmt.Fprintf(&b, "%s fails -constraint %s (%sx).\n", cands[c.Candidate].Label(), res.Constraint, Ratio(c.Ratio.Mean))
	}
	return b.String()
}

// maxListed is how many candidates within noise the verdict names.
const maxListed = 8

// Recommended is the candidate the verdict tells to run: the best when
// its gain over the current policy is beyond noise (and it meets the
// constraint), the current policy otherwise; -1 without a decision.
func (res *Result) Recommended() int {
	d := res.Decision
	if d == nil || d.Best < 0 {
		return -1
	}
	better := d.Gain.Hi < 1
	if res.Objective.Maximize {
		better = d.Gain.Lo > 1
	}
	if d.Best != res.Current && d.Gain.Known() && better {
		return d.Best
	}
	return res.Current
}

// describe names a candidate in a verdict: "delay with t1_s=5, t2_s=15",
// "delay with its defaults".
func describe(c Candidate) string {
	if c.Own {
		return c.Label()
	}
	if len(c.Settings) == 0 {
		return c.Policy + " with its defaults"
	}
	var s []string
	for _, st := range c.Settings {
		s = append(s, st.short())
	}
	return c.Policy + " with " + strings.Join(s, ", ")
}

func share(f float64) string {
	if f == 1 {
		return "the whole"
	}
	return fmt.Sprintf("%.3g", f)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ratioDecimals is how many decimals show multiple x: two, or up to four
// where two would round a difference from 1 away, so that a gain of 0.3%
// reads 0.997x, not the 1.00x that looks like none.
func ratioDecimals(x float64) int {
	for d := 2; d < 4; d++ {
		if x == 1 || strconv.FormatFloat(x, 'f', d, 64) != strconv.FormatFloat(1, 'f', d, 64) {
			return d
		}
	}
	return 4
}

// Ratio formats multiple x with ratioDecimals: how a verdict states a
// multiple of the current policy's figure.
func Ratio(x float64) string { return strconv.FormatFloat(x, 'f', ratioDecimals(x), 64) }

// ratios formats a mean and its interval alike, with the decimals the
// one that needs most of them takes.
func ratios(xs ...float64) (mean, lo, hi string) {
	d := 2
	for _, x := range xs {
		d = max(d, ratioDecimals(x))
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', d, 64) }
	return f(xs[0]), f(xs[1]), f(xs[2])
}
