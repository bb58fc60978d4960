package advise

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/report"
)

// Advice is advice.json: the scenario, the cost profile, the search's
// record (every candidate's figures per seed and stage, the drops and
// the decision with its intervals), the verdict, the configuration lines
// and the profile checks.
type Advice struct {
	Scenario string `json:"scenario"`
	// Profile is the cost profile the runs took; ProfileNamed is set when
	// the scenario named it, unset when advice chose it.
	Profile      string `json:"profile"`
	ProfileNamed bool   `json:"profile_named"`
	// Jobs is the workload's job count; a stage's slice is its first
	// ceil(jobs x fraction).
	Jobs    int      `json:"jobs"`
	Result  *Result  `json:"result"`
	Verdict string   `json:"verdict"`
	Config  []string `json:"config"`
	// Profiles are the checks of the finalists under other profiles.
	Profiles []ProfileCheck `json:"profiles,omitempty"`
}

// ProfileCheck is the finalists run again under another cost profile:
// whether the winner changes.
type ProfileCheck struct {
	Profile string  `json:"profile"`
	Result  *Result `json:"result"`
	// Best is the best there, as an index into the main candidates;
	// Same is set when it is the main decision's best or within noise of
	// it there.
	Best int    `json:"best"`
	Same bool   `json:"same"`
	Line string `json:"line"`
}

// WriteJSON writes advice.json into dir.
func (a *Advice) WriteJSON(dir string) error {
	b, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "advice.json"), append(b, '\n'), 0o644)
}

// Page is the advice as an HTML page: the verdict, the configuration
// lines, the decision's candidates with their intervals, the stages, and
// for each policy its objective against each threshold on the first
// stage (sensitivity curves with 95% intervals).
func (a *Advice) Page() *report.Page {
	res := a.Result
	p := &report.Page{Title: "mrsched advise: " + a.Scenario,
		Note: fmt.Sprintf("objective %s, profile %s; %s", res.Objective.Name, a.Profile, firstLine(a.Verdict))}
	lines := func(name string, l []string) report.Experiment {
		t := &report.Table{Headers: []string{name}}
		for _, s := range l {
			t.AddRow(s)
		}
		return report.Experiment{Name: name, Table: t}
	}
	p.Experiments = append(p.Experiments, lines("verdict", strings.Split(strings.TrimSpace(a.Verdict), "\n")))
	p.Experiments = append(p.Experiments, lines("configuration", a.Config))
	if d := res.Decision; d != nil {
		p.Experiments = append(p.Experiments, report.Experiment{Name: "decision", Table: decisionTable(res)})
	}
	p.Experiments = append(p.Experiments, report.Experiment{Name: "stages", Table: stageTable(res, a.Jobs)})
	p.Experiments = append(p.Experiments, a.sensitivity()...)
	return p
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func ivCell(iv Interval) string {
	if !iv.Known() {
		if iv.N == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f (1 seed)", iv.Mean)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Mean, iv.Lo, iv.Hi)
}

// decisionTable lists the decision stage's candidates with their means
// and paired ratios to the best and to the current policy.
func decisionTable(res *Result) *report.Table {
	d := res.Decision
	st := res.Stages[d.Stage]
	o := res.Objective
	t := &report.Table{Title: fmt.Sprintf("stage %d (%s of the workload, %d seeds): %s (%s), mean and 95%% interval", d.Stage+1, share(st.Fraction), len(st.Seeds), o.What, o.Unit),
		Headers: []string{"candidate", "mean", "vs best (paired)", "vs current (paired)", "seeds", "status"}}
	value := func(r StageRun) float64 { return r.Value }
	for _, c := range append(slices.Clone(st.Entered), refs(st)...) {
		v := stageValues(st, c, value)
		status := "within noise"
		switch {
		case c == d.Best:
			status = "best"
		case slices.ContainsFunc(d.Worse, func(x Comparison) bool { return x.Candidate == c }):
			status = "worse"
		case slices.ContainsFunc(d.Ineligible, func(x Comparison) bool { return x.Candidate == c }):
			status = "fails the constraint"
		}
		if st.Reference != nil && c == *st.Reference {
			status += " (reference)"
		}
		var vb, vc Interval
		if d.Best >= 0 {
			a, b := paired(st, c, d.Best, value)
			vb = PairedRatio(a, b, Confidence)
		}
		a, b := paired(st, c, res.Current, value)
		vc = PairedRatio(a, b, Confidence)
		t.AddRow(res.Candidates[c].Label(), ivCell(MeanInterval(v, Confidence)), ivCell(vb), ivCell(vc), strconv.Itoa(len(v)), status)
	}
	return t
}

func stageTable(res *Result, jobs int) *report.Table {
	t := &report.Table{Title: "successive halving: each stage's candidates run on the same seeds",
		Headers: []string{"stage", "share of the workload", "seeds", "entered", "passed on", "left behind (worse than the best beyond noise)"}}
	for k, st := range res.Stages {
		var dropped []string
		for _, d := range st.Dropped {
			dropped = append(dropped, res.Candidates[d.Candidate].Label())
		}
		t.AddRow(strconv.Itoa(k+1), fmt.Sprintf("%s (%d jobs)", share(st.Fraction), max(1, int(float64(jobs)*st.Fraction+0.999999))),
			strconv.Itoa(len(st.Seeds)), strconv.Itoa(len(st.Entered)), strconv.Itoa(len(st.Kept)), strings.Join(dropped, "; "))
	}
	t.Notes = []string{"stop: " + res.Stop}
	return t
}

// sensitivity draws, for each policy with thresholds, its objective
// against each threshold on the first stage, where every candidate ran:
// one line for each setting of its other thresholds.
func (a *Advice) sensitivity() []report.Experiment {
	res := a.Result
	if len(res.Stages) == 0 {
		return nil
	}
	st := res.Stages[0]
	o := res.Objective
	var out []report.Experiment
	for _, sp := range Spaces {
		for _, th := range sp.Thresholds {
			csv := &report.Table{Headers: []string{"x", "series", "mean", "lo", "hi"}}
			xs := map[string]bool{}
			for ci, c := range res.Candidates {
				if c.Policy != sp.Policy || c.Own || !slices.Contains(st.Entered, ci) {
					continue
				}
				x := c.Value(th.Key)
				if x == "" {
					x = th.Default
				}
				var other []string
				for _, s := range c.Settings {
					if s.Key != th.Key {
						other = append(other, s.Key+"="+s.Value)
					}
				}
				series := strings.Join(other, " ")
				if series == "" {
					series = "others at defaults"
				}
				iv := MeanInterval(stageValues(st, ci, func(r StageRun) float64 { return r.Value }), Confidence)
				lo, hi := iv.Lo, iv.Hi
				if !iv.Known() {
					lo, hi = iv.Mean, iv.Mean
				}
				xs[x] = true
				csv.AddRow(x, series, num64(iv.Mean), num64(lo), num64(hi))
			}
			if len(xs) < 2 {
				continue
			}
			slices.SortStableFunc(csv.Rows, func(p, q []string) int { return cmpFloat(num(p[0], 0), num(q[0], 0)) })
			out = append(out, report.Experiment{Name: sp.Policy + " " + th.Key, CSV: csv, Figure: &report.TableFigure{
				Title:   fmt.Sprintf("%s: %s against %s", sp.Policy, o.What, th.Key),
				Caption: fmt.Sprintf("Stage 1 (%s of the workload, %d seeds): each candidate's mean %s with its 95%% interval; one line for each setting of the other thresholds. %s.", share(st.Fraction), len(st.Seeds), o.What, th.Source),
				X:       "x", XLabel: th.Key, Series: "series", Y: []report.YColumn{{Col: "mean", Low: "lo", High: "hi"}},
				YLabel: fmt.Sprintf("%s (%s)", o.What, o.Unit)}})
		}
	}
	return out
}

func num64(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
