package scenario

import (
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// demandTrace is a three-job SWIM trace ("a", "b", "c", kind "swim") of 4,
// 8 and 2 blocks on a 4-node cluster of 2 map slots (T = 8).
const demandTrace = "a\t0\t0\t268435456\t1000\t0\nb\t1\t1\t536870912\t1000\t0\nc\t2\t1\t134217728\t1000\t0\n"

func writeDemandScenario(t *testing.T, demand string) string {
	t.Helper()
	return writeTraceScenario(t, demandTrace, "policy: {name: td}\ncluster: {racks: 1, nodes_per_rack: 4, map_slots: 2, reduce_slots: 1}\n"+
		"workload:\n  trace: t.tsv\n  source_nodes: 4\n"+demand)
}

// TestScenarioDemand pins workload.demand: by_job beats by_kind beats
// default, and a job none of them names keeps 0 (td's own default).
func TestScenarioDemand(t *testing.T) {
	cases := []struct {
		name, demand string
		want         [3]int // jobs a, b, c
	}{
		{"unset: td chooses", "", [3]int{0, 0, 0}},
		{"default for every job", "  demand: {default: 3}\n", [3]int{3, 3, 3}},
		{"by kind", "  demand: {by_kind: {swim: 5}}\n", [3]int{5, 5, 5}},
		{"by job only names that job", "  demand: {by_job: {b: 7}}\n", [3]int{0, 7, 0}},
		{"by job beats by kind beats default", "  demand:\n    default: 2\n    by_kind: {swim: 4}\n    by_job: {c: 1}\n", [3]int{4, 4, 1}},
		{"by job beats default", "  demand:\n    default: 2\n    by_job: {a: 8}\n", [3]int{8, 2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(writeDemandScenario(t, c.demand))
			if err != nil {
				t.Fatal(err)
			}
			topo, jobs, pol, err := cfg.Build()
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if jobs[i].Demand != w {
					t.Errorf("job %s: Demand %d, want %d from %q", jobs[i].Name, jobs[i].Demand, w, c.demand)
				}
			}
			// The demand must reach the policy: td reports the j.demand it used.
			if _, err := RunJobs(cfg.Engine, topo, jobs, pol, 1, cfg.Metrics, nil); err != nil {
				t.Fatal(err)
			}
			st := pol.(*sched.TD).Stats()
			for i, w := range c.want {
				if w == 0 {
					// td's default: min(maps, ceil(0.35 x 8)) = min(maps, 3).
					w = min(jobs[i].NumMaps, 3)
				}
				if got := st.Jobs[i].Demand; got != w {
					t.Errorf("td used demand %d for job %s, want %d", got, jobs[i].Name, w)
				}
			}
		})
	}
}

// TestScenarioDemandRejected: a bad demand is an error naming the file's
// field and line, never a silent default.
func TestScenarioDemandRejected(t *testing.T) {
	cases := []struct {
		name, demand string
		want         []string
	}{
		{"unknown field", "  demand:\n    defualt: 3\n", []string{"line 7", "defualt"}},
		{"not a number", "  demand:\n    default: lots\n", []string{"line 7", "lots"}},
		{"zero", "  demand:\n    default: 0\n", []string{"workload.demand.default", "line 7", "1 to 8"}},
		{"above the cluster's map slots", "  demand:\n    by_job: {a: 9}\n", []string{"workload.demand.by_job.a", "line 7", "got 9"}},
		{"negative kind value", "  demand:\n    by_kind:\n      swim: -1\n", []string{"workload.demand.by_kind.swim", "line 8"}},
		{"unknown kind", "  demand:\n    by_kind:\n      grpe: 2\n", []string{"workload.demand.by_kind.grpe", "line 8", `"grpe"`, "swim"}},
		{"unknown job", "  demand:\n    by_job: {zz: 2}\n", []string{"workload.demand.by_job.zz", "line 7", `"zz"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(writeDemandScenario(t, c.demand))
			if err == nil {
				_, _, _, err = cfg.Build()
			}
			if err == nil {
				t.Fatalf("accepted demand %q", c.demand)
			}
			for _, w := range append(c.want, "s.yaml") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q: the user must be told the file, field, line and why", err, w)
				}
			}
		})
	}
}
