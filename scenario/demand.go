package scenario

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
)

// DemandSpec sets workload.Job.Demand, the number of map slots a job
// expects to occupy: the TD scheduler's j.demand (TD paper, section III-A,
// "a user setting"). Other policies ignore it. A job takes the first of
// by_job (its name), by_kind (its Kind: "swim" for trace jobs, the
// benchmark's name for generated ones), default; a job none of them
// names keeps Demand 0, and `td` then chooses min(maps, ceil(demand_share
// x map slots)), demand_share 0.35 by default.
//
//	demand:
//	  default: 20
//	  by_kind: {terasort: 40, grep: 10}
//	  by_job: {job12: 35}
//
// Every value is at least 1 and at most the cluster's map slots
// (containers in the container model): a job that expects more than the
// cluster can never be co-scheduled (formula (3)). A kind or job name no
// job of the workload has is an error, so a typo is not a silent default.
type DemandSpec struct {
	Default DemandValue            `yaml:"default"`
	ByKind  map[string]DemandValue `yaml:"by_kind"`
	ByJob   map[string]DemandValue `yaml:"by_job"`
}

// DemandValue is one demand with the line it was read from, for errors.
type DemandValue struct {
	N    int
	Line int // 0: not set
}

// UnmarshalYAML reads an integer and remembers its line.
func (v *DemandValue) UnmarshalYAML(n *yaml.Node) error {
	var k int
	if err := n.Decode(&k); err != nil {
		return fmt.Errorf("line %d: want a whole number of map slots, got %q", n.Line, n.Value)
	}
	v.N, v.Line = k, n.Line
	return nil
}

// IsZero reports whether no demand was set.
func (s DemandSpec) IsZero() bool {
	return s.Default.Line == 0 && len(s.ByKind) == 0 && len(s.ByJob) == 0
}

// apply sets the demands of jobs on topology t, checking every value and
// name; field is the spec's path for errors ("workload.demand").
func (s DemandSpec) apply(jobs []workload.Job, t *cluster.Topology, field string) error {
	if s.IsZero() {
		return nil
	}
	total := t.TotalSlots()
	T := max(total[0], total[2])
	check := func(name string, v DemandValue) error {
		if v.N < 1 || v.N > T {
			return fmt.Errorf("%s (line %d): want 1 to %d map slots (the cluster's), got %d", name, v.Line, T, v.N)
		}
		return nil
	}
	if s.Default.Line > 0 {
		if err := check(field+".default", s.Default); err != nil {
			return err
		}
	}
	kinds, names := map[string]bool{}, map[string]bool{}
	for i := range jobs {
		kinds[jobs[i].Kind], names[jobs[i].Name] = true, true
	}
	// Sorted keys: the same error for the same file every time.
	for _, m := range []struct {
		sub  string
		vals map[string]DemandValue
		have map[string]bool
		what string
	}{{"by_kind", s.ByKind, kinds, "kind"}, {"by_job", s.ByJob, names, "name"}} {
		keys := make([]string, 0, len(m.vals))
		for k := range m.vals {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := m.vals[k]
			if err := check(fmt.Sprintf("%s.%s.%s", field, m.sub, k), v); err != nil {
				return err
			}
			if !m.have[k] {
				return fmt.Errorf("%s.%s.%s (line %d): no job of the workload has %s %q%s", field, m.sub, k, v.Line, m.what, k, known(m.what, m.have))
			}
		}
	}
	for i := range jobs {
		j := &jobs[i]
		if v, ok := s.ByJob[j.Name]; ok {
			j.Demand = v.N
		} else if v, ok := s.ByKind[j.Kind]; ok {
			j.Demand = v.N
		} else if s.Default.Line > 0 {
			j.Demand = s.Default.N
		}
	}
	return nil
}

// known lists the kinds a workload has (job names are too many to list).
func known(what string, have map[string]bool) string {
	if what != "kind" {
		return ""
	}
	l := make([]string, 0, len(have))
	for k := range have {
		l = append(l, k)
	}
	slices.Sort(l)
	return " (its kinds: " + strings.Join(l, ", ") + ")"
}
