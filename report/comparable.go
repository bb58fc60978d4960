package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// derivedWorkload are the workload figures a run records of the jobs it
// made rather than of its settings: a generator draws other jobs on
// another seed, so these differ between seeds of one set-up.
var derivedWorkload = []string{"jobs", "maps", "reduces", "input_bytes", "shuffle_bytes", "output_bytes",
	"data_sets", "first_submit_s", "last_submit_s"}

// Comparable checks that runs laid side by side as one comparison compare
// like with like: every run on the same set-up (cluster, workload
// settings, engine, faults: everything but the policy and the seed), and
// every policy on the same seeds, so that a ratio to another policy is not
// a ratio between two draws. Its error says which runs differ and how.
// Runs that do not record their configuration (written before it was)
// are not checked.
func Comparable(runs []*Run) error {
	var first *Run
	var firstSetup map[string]any
	seeds := map[string][]uint64{} // policy and its parameters -> seeds
	label := map[string]string{}   // the same -> the policy's name
	var order []string
	for _, r := range runs {
		cfg, ok := ConfigMap(r.Summary.Config)
		if !ok {
			continue
		}
		setup := setupOf(cfg)
		if first == nil {
			first, firstSetup = r, setup
		} else if d := differences(firstSetup, setup, ""); len(d) > 0 {
			return fmt.Errorf("%s and %s ran different set-ups (%s): side by side they would compare different clusters or workloads",
				name(first), name(r), strings.Join(d, "; "))
		}
		p := PolicyKey(cfg)
		if _, ok := seeds[p]; !ok {
			order = append(order, p)
			label[p] = r.Summary.Policy
		}
		if s, ok := cfg["seed"].(float64); ok {
			seeds[p] = append(seeds[p], uint64(s))
		}
	}
	for _, p := range order {
		slices.Sort(seeds[p])
	}
	for _, p := range order[min(1, len(order)):] {
		if !slices.Equal(seeds[p], seeds[order[0]]) {
			return fmt.Errorf("%s ran seeds %s and %s ran seeds %s: side by side a policy's ratio to another would be a ratio between draws; compare them on the same seeds",
				label[order[0]], seedList(seeds[order[0]]), label[p], seedList(seeds[p]))
		}
	}
	return nil
}

func name(r *Run) string {
	if r.Dir != "" {
		return r.Dir
	}
	return r.Label
}

func seedList(s []uint64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// ConfigMap is a run's recorded configuration (metrics.Summary.Config) as
// JSON reads it, whether the run is in memory (a struct) or read back (a
// map); false when the run records none.
func ConfigMap(c any) (map[string]any, bool) {
	if c == nil {
		return nil, false
	}
	if m, ok := c.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}

// setupOf is the configuration less what a comparison varies: the
// policy, the seed and the jobs the seed drew.
func setupOf(cfg map[string]any) map[string]any {
	s := maps.Clone(cfg)
	delete(s, "seed")
	delete(s, "policy")
	if w, ok := s["workload"].(map[string]any); ok {
		w = maps.Clone(w)
		for _, k := range derivedWorkload {
			delete(w, k)
		}
		s["workload"] = w
	}
	return s
}

// PolicyKey names a run's policy with its parameters, from its recorded
// configuration (ConfigMap), so that two settings of one policy count as
// two policies.
func PolicyKey(cfg map[string]any) string {
	p, _ := cfg["policy"].(map[string]any)
	name, _ := p["name"].(string)
	b, _ := json.Marshal(p["params"])
	return name + " " + string(b)
}

// differences lists the paths at which a and b differ, "cluster.racks 4
// vs 8", at most five.
func differences(a, b map[string]any, prefix string) []string {
	var out []string
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		va, vb := a[k], b[k]
		if reflect.DeepEqual(va, vb) {
			continue
		}
		ma, oka := va.(map[string]any)
		mb, okb := vb.(map[string]any)
		if oka && okb {
			out = append(out, differences(ma, mb, prefix+k+".")...)
		} else {
			ja, _ := json.Marshal(va)
			jb, _ := json.Marshal(vb)
			out = append(out, fmt.Sprintf("%s%s %s vs %s", prefix, k, ja, jb))
		}
		if len(out) >= 5 {
			return out[:5]
		}
	}
	return out
}
