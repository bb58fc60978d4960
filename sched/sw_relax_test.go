package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// swStep is one offer of a hand-timed scenario: the rule that must fire
// ("" for a decline) and the job that must launch.
type swStep struct {
	at   float64
	node cluster.NodeID
	want string
	job  int
	why  string
}

// runSWSteps offers containers as the steps say, applying each launch.
func runSWSteps(t *testing.T, c *swCluster, pol sched.Policy, steps []swStep) {
	t.Helper()
	for k, st := range steps {
		c.now = st.at
		d, ok := pol.Assign(c, sched.Offer{Node: st.node, Slot: sched.AnySlot})
		switch {
		case st.want == "" && ok:
			t.Fatalf("step %d (t=%v, node %d): launched %s of job %d, want a decline: %s", k, st.at, st.node, d.Rule, d.Job.Index, st.why)
		case st.want != "" && (!ok || d.Rule != st.want || d.Job.Index != st.job):
			t.Fatalf("step %d (t=%v, node %d): got (%q, job %d, ok %v), want (%q, job %d): %s", k, st.at, st.node, d.Rule, jobIdx(d, ok), ok, st.want, st.job, st.why)
		}
		if ok {
			launch(t, c, pol, d, st.node)
		}
	}
}

// TestSWWaitsBeforeFallbacks: user u comes first in the fairness order,
// but has no preferred or local map for node 0 (rack 0); user v has. Each
// case's options make u wait before it takes a worse map there, and the
// slot goes to v meanwhile.
func TestSWWaitsBeforeFallbacks(t *testing.T) {
	cases := []struct {
		name  string
		opts  func(t *testing.T) sched.SWOptions
		u, v  jobShape
		steps []swStep
	}{
		{
			// sw-relaxed: u's only job's input is on rack 1, so on rack 0
			// its best task is a remote map (line 18), a fallback; v has
			// maps preferring rack 0. u may be passed over for 5 s, then
			// takes fallbacks until it launches a preferred task, which
			// starts its wait afresh.
			name: "sw-relaxed passes u over for 5 s",
			opts: func(*testing.T) sched.SWOptions {
				return sched.SWOptions{SAMP: true, SARP: true, RelaxedFairnessS: 5}
			},
			u: func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
				return swJob(t, topo, i, "u", 0.1, on(4, 4, 5)...)
			},
			v: prefR0,
			steps: []swStep{
				{0, 0, "nass-16", 1, "u's best is a fallback: passed over for v's preferred map"},
				{3, 0, "nass-16", 1, "u has waited 3 s of its 5"},
				{4, 0, "", 0, "v has no map left and u is still within its 5 s: the container stays free, as delay scheduling leaves a slot"},
				{5, 0, "nass-18", 0, "u has waited 5 s: it takes its remote map"},
				{5.5, 0, "nass-18", 0, "u's wait is over until it launches a preferred task: fallbacks at once"},
				{6, 3, "nass-16", 0, "on rack 1 u's map is preferred: launched, ending its wait"},
				{7, 0, "", 0, "u's wait starts afresh"},
			},
		},
		{
			// sw-delay: the maps NASS picks are bounded by delay
			// scheduling's locality levels (T1 = T2 = 15 s): a job without
			// a node-local map for the offered node is skipped, may go
			// rack-local after 15 s and off-rack after 30 s of being
			// skipped. u's input is on rack 1 only; v has one block on
			// node 0, the rest on rack 1.
			name: "sw-delay gates maps by locality",
			opts: func(t *testing.T) sched.SWOptions {
				d, err := sched.NewDelayPlacer(sched.DelayParams{})
				if err != nil {
					t.Fatal(err)
				}
				return sched.SWOptions{SAMP: true, SARP: true, Delay: d}
			},
			u: remoteOnly,
			v: localN0,
			steps: []swStep{
				{0, 0, "nass-17-node", 1, "u has no node-local map on node 0 and is skipped; v's node-local map takes the container"},
				{1, 0, "", 0, "neither job has a node-local map left for node 0: both skipped"},
				{15, 0, "", 0, "u may now go rack-local, but has nothing on rack 0; v has waited 14 s"},
				{30, 0, "nass-18", 0, "u has been skipped for 30 s: off-rack allowed"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topo := swTopo(t)
			c := newSWCluster(topo)
			pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, tc.opts(t))
			u, v := tc.u(t, topo, 0), tc.v(t, topo, 1)
			v.Pool, v.Spec.Pool = "v", "v"
			addJobs(t, c, c.fakeCluster, pol, u, v)
			runSWSteps(t, c, pol, tc.steps)
		})
	}
}
