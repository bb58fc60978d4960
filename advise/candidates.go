package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/sched"
)

// Setting is one threshold of a candidate: a parameter by its key under
// policy.params ("t1_s"), or under the cluster's policy.preemption
// ("preemption.enabled"), and its value as YAML text.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Path is the scenario field the setting sets.
func (s Setting) Path() string {
	if strings.HasPrefix(s.Key, "preemption.") {
		return "policy." + s.Key
	}
	return "policy.params." + s.Key
}

// Candidate is a policy with thresholds: what advice chooses among.
type Candidate struct {
	Policy string `json:"policy"`
	// Settings are the thresholds set away from the policy's defaults, in
	// a fixed order; none for the defaults.
	Settings []Setting `json:"settings,omitempty"`
	// Own marks the scenario's own policy with the scenario's own
	// parameters (policy.params), as the cluster runs it now.
	Own bool `json:"own,omitempty"`
}

// Label names the candidate for people: "delay t1_s=5 t2_s=15", "fair"
// for a policy's defaults, "fair (the scenario's parameters)".
func (c Candidate) Label() string {
	if c.Own {
		return c.Policy + " (the scenario's parameters)"
	}
	parts := []string{c.Policy}
	for _, s := range c.Settings {
		parts = append(parts, s.short())
	}
	return strings.Join(parts, " ")
}

// short writes a setting for a label: preemption's keys by the paper's
// names (Tmin, Tfair), the others as key=value.
func (s Setting) short() string {
	switch s.Key {
	case "preemption.enabled":
		if s.Value == "true" {
			return "preemption"
		}
		return "no-preemption"
	case "preemption.min_share_timeout_s":
		return "tmin_s=" + s.Value
	case "preemption.fair_share_timeout_s":
		return "tfair_s=" + s.Value
	}
	return s.Key + "=" + s.Value
}

// Value returns the candidate's value for key, or "" when it leaves the
// key at its default.
func (c Candidate) Value(key string) string {
	for _, s := range c.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Threshold is one parameter an operator sets for a policy, with the
// values advice tries and where they come from.
type Threshold struct {
	Key     string   `json:"key"`
	Default string   `json:"default"`
	Values  []string `json:"values"`
	// Source says why these values: the paper's setting, Hadoop's
	// default, the range its section explores.
	Source string `json:"source"`
}

// Space is what advice tries of one policy: every combination of its
// thresholds' values (the defaults among them), or, for Variants, a list
// of setting bundles (a switch with the values that go with it).
type Space struct {
	Policy     string
	Thresholds []Threshold
	// Variants, when set, are tried in place of (and crossed with) the
	// first threshold: each a bundle of settings; nil is the defaults.
	Variants [][]Setting
	// VariantSource says where the variants come from.
	VariantSource string
}

// The thresholds the policies' papers leave to the operator, with the
// ranges tried. Each policy's own code takes these keys (sched/*_params.go).
var (
	delayWaits = []Threshold{
		{Key: "t1_s", Default: "15", Values: []string{"1", "5", "15", "30"},
			Source: "Fair Scheduler paper section 4.2 (T1 = 15 s brings locality from 2% to 80%); Hadoop 1 auto-computes 1.5 heartbeats (4.5 s at 3 s), capped at 15 s (FairScheduler.java); 1 s and 30 s bracket them"},
		{Key: "t2_s", Default: "15", Values: []string{"5", "15"},
			Source: "Fair Scheduler paper section 6.2.1 (T2 = 15 s); Hadoop 1 takes one wait for both levels"},
	}
	swSaturation = Threshold{Key: "nw_saturation_threshold", Default: "0.8", Values: []string{"0.6", "0.8", "0.95"},
		Source: "ShuffleWatcher section 4.2 (0.8 of the uplink); 0.6 and 0.95 on either side"}
)

// Spaces are the search spaces of the built-in policies; a policy not
// listed (fifo, drf, a registered one) runs with its defaults only.
var Spaces = []Space{
	{Policy: "fair", Variants: [][]Setting{
		nil,
		{{"preemption.enabled", "true"}, {"preemption.min_share_timeout_s", "60"}, {"preemption.fair_share_timeout_s", "600"}},
		{{"preemption.enabled", "true"}, {"preemption.min_share_timeout_s", "10"}, {"preemption.fair_share_timeout_s", "60"}},
	}, VariantSource: "Fair Scheduler paper section 3.2 (preemption after Tmin and Tfair; the paper gives no values): off, Hadoop's defaults 60 s and 600 s (minSharePreemptionTimeout, fairSharePreemptionTimeout), and 10 s and 60 s"},
	{Policy: "delay", Thresholds: delayWaits},
	{Policy: "fifo-delay", Thresholds: delayWaits},
	{Policy: "sw-fair", Thresholds: []Threshold{swSaturation}},
	{Policy: "sw-drf", Thresholds: []Threshold{swSaturation}},
	{Policy: "sw-relaxed", Thresholds: []Threshold{swSaturation,
		{Key: "relaxed_fairness_s", Default: "5", Values: []string{"2", "5", "10"},
			Source: "ShuffleWatcher section 5.2 (5 s); 2 s and 10 s on either side"}}},
	{Policy: "sw-delay", Thresholds: []Threshold{swSaturation,
		{Key: "t1_s", Default: "15", Values: []string{"5", "15"}, Source: "as delay's t1_s"}}},
	{Policy: "nas", Thresholds: []Threshold{
		{Key: "congestion_threshold", Default: "0.8", Values: []string{"0.6", "0.8", "0.95"},
			Source: "NAS section IV (80%); 0.6 and 0.95 on either side"}},
		Variants:      [][]Setting{nil, {{"map_skips", "45"}, {"reduce_skips", "45"}}, {{"wait_s", "5"}}},
		VariantSource: "NAS section IV: skip counts D^m = D^r = 135 (the default), a third of them, or the real cluster's 5 s wait"},
	{Policy: "td", Thresholds: []Threshold{
		{Key: "l", Default: "0.7", Values: []string{"0.5", "0.7", "0.9"}, Source: "TD section IV-A.1 (L = 0.7); section V-B varies L and H"},
		{Key: "h", Default: "1.3", Values: []string{"1.1", "1.3", "1.5"}, Source: "TD section IV-A.1 (H = 1.3); section V-B runs H up to 1.5"}}},
}

// SpaceOf returns the search space of policy; a policy without one has
// its defaults only.
func SpaceOf(policy string) Space {
	for _, s := range Spaces {
		if s.Policy == policy {
			return s
		}
	}
	return Space{Policy: policy}
}

// Candidates lists the space's candidates, the defaults first, then every
// combination of the thresholds' values (the first threshold varying
// slowest) crossed with the variants; a combination that sets every
// threshold to its default is the defaults, listed once.
func (s Space) Candidates() []Candidate {
	combos := [][]Setting{nil}
	for _, t := range s.Thresholds {
		var next [][]Setting
		for _, c := range combos {
			for _, v := range t.Values {
				next = append(next, append(slices.Clone(c), Setting{t.Key, v}))
			}
		}
		combos = next
	}
	variants := s.Variants
	if variants == nil {
		variants = [][]Setting{nil}
	}
	out := []Candidate{{Policy: s.Policy}}
	for _, v := range variants {
		for _, c := range combos {
			var set []Setting
			for _, st := range c {
				if st.Value != s.defaultOf(st.Key) {
					set = append(set, st)
				}
			}
			set = append(set, v...)
			if len(set) == 0 {
				continue // the defaults, listed first
			}
			out = append(out, Candidate{Policy: s.Policy, Settings: set})
		}
	}
	return out
}

func (s Space) defaultOf(key string) string {
	for _, t := range s.Thresholds {
		if t.Key == key {
			return t.Default
		}
	}
	return ""
}

// CandidatesFor lists the candidates of policies in order, each checked
// to be registered.
func CandidatesFor(policies []string) ([]Candidate, error) {
	var out []Candidate
	for _, p := range policies {
		if _, err := sched.NewPolicy(p, nil); err != nil {
			return nil, err
		}
		out = append(out, SpaceOf(p).Candidates()...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no policies to advise on")
	}
	return out, nil
}
