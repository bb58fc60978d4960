package sched_test

import (
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

func TestNewPolicyDelayAndDRF(t *testing.T) {
	checkParamsCases(t, []paramsCase{
		{name: "delay with defaults", policy: "delay"},
		{name: "fifo-delay with defaults", policy: "fifo-delay"},
		{name: "drf with defaults", policy: "drf"},
		{name: "delay takes fair pools and waits in one mapping", policy: "delay",
			params: "pools:\n  - name: prod\n    min_maps: 2\nt1_s: 5\nt2_s: 0\n"},
		{name: "delay with IO-rate biasing", policy: "delay",
			params: "io_rate_biasing: true\ncpu_bound_t1_s: 1\ncpu_bound_t2_s: 2\nio_bound_mb_per_s: 10\nio_min_maps: 3\n"},
		{name: "fifo-delay with waits", policy: "fifo-delay", params: "t1_s: 10\nreset_on_launch: true\n"},
		{name: "drf with weights", policy: "drf", params: "weights: {user0: 2, user1: 0.5}\n"},
		{name: "delay: unknown parameter", policy: "delay", params: "t3_s: 5\n", wantErr: []string{"policy delay", "t3_s"}},
		{name: "fifo-delay has no pools", policy: "fifo-delay", params: "pools: []\n", wantErr: []string{"policy fifo-delay", "pools"}},
		{name: "drf: unknown parameter", policy: "drf", params: "t1_s: 5\n", wantErr: []string{"policy drf", "t1_s"}},
		{name: "delay: negative wait", policy: "delay", params: "t1_s: -1\n", wantErr: []string{"policy delay", "t1_s"}},
		{name: "delay: bad pool", policy: "delay", params: "pools:\n  - name: x\n    mode: lifo\n", wantErr: []string{"policy delay", "pools[0].mode"}},
		{name: "delay: biasing option without biasing", policy: "delay", params: "io_bound_mb_per_s: 3\n", wantErr: []string{"io_bound_mb_per_s", "io_rate_biasing"}},
		{name: "drf: zero weight", policy: "drf", params: "weights: {a: 0}\n", wantErr: []string{"policy drf", "weights.a"}},
	})
}

func TestNewPolicyDelayUsesDecodedParams(t *testing.T) {
	// smallTopo; the job's blocks are on nodes 0 and 1 (rack 0); node 4 is
	// off-rack. With default waits the first off-rack offer is declined;
	// with t1_s = t2_s = 0 it is taken.
	tests := []struct {
		params string
		want   bool
		why    string
	}{
		{"", false, "default T1 = T2 = 15 s: a job with no local data is skipped"},
		{"t1_s: 0\nt2_s: 0\n", true, "zero waits disable delay scheduling"},
		{"pools:\n  - name: a\n    weight: 2\nt1_s: 0\nt2_s: 0\n", true, "waits decoded beside fair pools"},
	}
	for _, tc := range tests {
		var dec sched.Decode
		if tc.params != "" {
			dec = yamlDecode(tc.params)
		}
		for _, name := range []string{"delay", "fifo-delay"} {
			if name == "fifo-delay" && strings.Contains(tc.params, "pools") {
				continue
			}
			p, err := sched.NewPolicy(name, dec)
			if err != nil {
				t.Fatalf("NewPolicy(%s, %q): %v", name, tc.params, err)
			}
			topo := smallTopo(t)
			j := mapJob(t, topo, 0, "a", nil, on(3, 0, 1)...)
			c := &fakeCluster{topo: topo, jobs: []*sched.Job{j}, total: map[sched.SlotKind]int{sched.MapSlot: 24}}
			jo, _ := observers(t, p)
			jo.JobAdded(c, j)
			c.epoch++
			if _, ok := p.Assign(c, sched.Offer{Node: cluster.NodeID(4), Slot: sched.MapSlot}); ok != tc.want {
				t.Errorf("%s with %q: off-rack offer taken = %v, want %v: %s", name, tc.params, ok, tc.want, tc.why)
			}
		}
	}
}
