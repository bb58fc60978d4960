package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// Job shapes for the NASS tests on swTopo (rack 0: nodes 0-2, rack 1:
// nodes 3-5). Ratios are known (known_ratios), so shuffle-heavy is set,
// not measured. Each comment gives SAMP's and SARP's choice and why.
type jobShape func(t *testing.T, topo *cluster.Topology, index int) *sched.Job

var (
	// prefR0: input only on rack 0 (nodes 1, 2): SAMP prefers rack 0,
	// and node 0 reads it rack-local. Shuffle-light.
	prefR0 jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		return swJob(t, topo, i, "u", 0.1, []cluster.NodeID{1, 2}, []cluster.NodeID{1, 2})
	}
	// localN0: one block on nodes 0 and 3, seven on rack 1; ratio 4.
	// Rack 1 alone: 1 block read remotely. Adding rack 0 saves it but
	// puts half a block of output (1/16 of the 32 blocks of shuffle, 2
	// blocks) on rack 0, where SARP puts no reduce: SAMP prefers rack 1
	// only, yet node 0 holds one of its blocks.
	localN0 jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		b := [][]cluster.NodeID{{0, 3}}
		for range 7 {
			b = append(b, []cluster.NodeID{4, 5})
		}
		return swJob(t, topo, i, "u", 4, b...)
	}
	// remoteOnly: input only on rack 1: nothing local to rack 0.
	remoteOnly jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		return swJob(t, topo, i, "u", 0.1, []cluster.NodeID{4, 5}, []cluster.NodeID{4, 5})
	}
	// lightRed: maps done, shuffle-light: reduces pending.
	lightRed jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		j := swJob(t, topo, i, "u", 0.1, []cluster.NodeID{1, 2})
		finishMaps(j, 1e9, 0)
		return j
	}
	// heavyWanted: maps done, ratio 4, all output on rack 0: SARP wants
	// both reduces on rack 0.
	heavyWanted jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		j := swJob(t, topo, i, "u", 4, []cluster.NodeID{1, 2})
		finishMaps(j, 1e9, 0)
		return j
	}
	// heavyUnwanted: as heavyWanted with the output on rack 1: SARP wants
	// no reduce on rack 0.
	heavyUnwanted jobShape = func(t *testing.T, topo *cluster.Topology, i int) *sched.Job {
		j := swJob(t, topo, i, "u", 4, []cluster.NodeID{4, 5})
		finishMaps(j, 0, 1e9)
		return j
	}
)

// TestNASSLines builds, for each line of Fig. 3 that picks a task, a state
// of one user's jobs in which that line is the first that finds one, and
// offers a container on node 0 (node 1 for the rack-local lines) with the
// rack saturated (lines 4-9) or not (13-18).
func TestNASSLines(t *testing.T) {
	cases := []struct {
		rule string
		sat  bool
		node cluster.NodeID
		jobs []jobShape // in arrival order: job i is jobs[i]
		want int        // index of the job expected to launch
		why  string
	}{
		{"nass-4", true, 0, []jobShape{localN0, heavyWanted, prefR0}, 2,
			"a map of a job preferring rack 0 beats the older job's node-local map (line 5) and any reduce (saturated: maps first)"},
		{"nass-5-node", true, 0, []jobShape{remoteOnly, lightRed, localN0}, 2,
			"no job prefers rack 0; a node-local map beats the older job's remote map (line 6) and the light reduce (line 7)"},
		{"nass-5-rack", true, 1, []jobShape{remoteOnly, localN0}, 1,
			"on node 1 localN0's block on node 0 is rack-local; it beats the older job's remote map"},
		{"nass-6", true, 0, []jobShape{heavyWanted, lightRed, remoteOnly}, 2,
			"saturated: any map, even a remote one, goes before every reduce"},
		{"nass-7", true, 0, []jobShape{heavyWanted, lightRed}, 1,
			"no map; a shuffle-light job's reduce goes before the older heavy job's, though SARP wants that one here"},
		{"nass-8", true, 0, []jobShape{heavyUnwanted, heavyWanted}, 1,
			"no map, no light job: the heavy job SARP wants on rack 0 goes before the older one it does not"},
		{"nass-9", true, 0, []jobShape{heavyUnwanted}, 0,
			"only a heavy reduce SARP wants elsewhere: any available reduce"},
		{"nass-13", false, 0, []jobShape{prefR0, lightRed, heavyUnwanted, heavyWanted}, 3,
			"unsaturated: reduces first, the SARP-preferred heavy one before older heavy, light and map work"},
		{"nass-14", false, 0, []jobShape{prefR0, lightRed, heavyUnwanted}, 2,
			"unsaturated: a heavy reduce SARP does not want here still goes before light reduces and maps"},
		{"nass-15", false, 0, []jobShape{prefR0, lightRed}, 1,
			"unsaturated: any reduce goes before maps, even a preferred one"},
		{"nass-16", false, 0, []jobShape{localN0, prefR0}, 1,
			"unsaturated, no reduce: the map order of lines 4-6 again, preferred rack first"},
		{"nass-17-node", false, 0, []jobShape{remoteOnly, localN0}, 1,
			"unsaturated, no reduce, no preferred map: node-local map"},
		{"nass-17-rack", false, 1, []jobShape{remoteOnly, localN0}, 1,
			"unsaturated, no reduce, no preferred or node-local map: rack-local map"},
		{"nass-18", false, 0, []jobShape{remoteOnly}, 0,
			"unsaturated, nothing better: any map"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			topo := swTopo(t)
			c := newSWCluster(topo)
			if tc.sat {
				c.util[topo.Rack(tc.node)] = 0.9
			} else {
				c.util[topo.Rack(tc.node)] = 0.5
			}
			pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
			var jobs []*sched.Job
			for i, shape := range tc.jobs {
				jobs = append(jobs, shape(t, topo, i))
			}
			addJobs(t, c, c.fakeCluster, pol, jobs...)
			d, ok := pol.Assign(c, sched.Offer{Node: tc.node, Slot: sched.AnySlot})
			if !ok || d.Rule != tc.rule || d.Job.Index != tc.want {
				t.Errorf("Assign = (%q, job %d, ok %v), want (%q, job %d): %s", d.Rule, jobIdx(d, ok), ok, tc.rule, tc.want, tc.why)
			}
		})
	}
}

// TestNASSSlotModel: a slot takes one kind, so a map slot only ever runs
// the map lines and a reduce slot the reduce lines, in either network
// state.
func TestNASSSlotModel(t *testing.T) {
	cases := []struct {
		slot sched.SlotKind
		sat  bool
		rule string
		want int
		why  string
	}{
		{sched.MapSlot, false, "nass-16", 1, "unsaturated NASS prefers reduces, but a map slot cannot run one"},
		{sched.MapSlot, true, "nass-4", 1, "saturated: the preferred map"},
		{sched.ReduceSlot, true, "nass-7", 0, "saturated NASS prefers maps, but a reduce slot cannot run one: the light reduce"},
		{sched.ReduceSlot, false, "nass-15", 0, "unsaturated: the only reduce"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Replication: 2})
			c := newSWCluster(topo)
			if tc.sat {
				c.util[0] = 0.9
			}
			pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
			addJobs(t, c, c.fakeCluster, pol, lightRed(t, topo, 0), prefR0(t, topo, 1))
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: tc.slot})
			if !ok || d.Rule != tc.rule || d.Job.Index != tc.want {
				t.Errorf("%s slot: Assign = (%q, job %d), want (%q, job %d): %s", tc.slot, d.Rule, jobIdx(d, ok), tc.rule, tc.want, tc.why)
			}
		})
	}
}

// TestNASSArrivalOrderWithinLine: inside a line, the older job goes first
// even when the fairness order yields the younger one first (the fair
// order sorts a pool's jobs by share, not by arrival).
func TestNASSArrivalOrderWithinLine(t *testing.T) {
	topo := swTopo(t)
	c := newSWCluster(topo)
	pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
	older, younger := prefR0(t, topo, 0), prefR0(t, topo, 1)
	addJobs(t, c, c.fakeCluster, pol, younger, older) // the order yields the younger first
	d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot})
	if !ok || d.Job != older || d.Rule != "nass-16" {
		t.Errorf("Assign = (%q, job %d), want nass-16 of job 0: both jobs' maps are line 16, and within a line jobs go in arrival order", d.Rule, jobIdx(d, ok))
	}
}

// TestNASSKeepsFairness: the user the order selects gets the slot whenever
// it has any task for it, however poor (Fig. 3 lines 6, 9, 15, 18); the
// next user gets it only when the selected one has none.
func TestNASSKeepsFairness(t *testing.T) {
	topo := swTopo(t)
	c := newSWCluster(topo)
	c.util[0] = 0.9
	pol, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
	a := remoteOnly(t, topo, 0) // user a: only a remote map for node 0
	b := prefR0(t, topo, 1)     // user b: a preferred map
	b.Pool, b.Spec.Pool = "b", "b"
	addJobs(t, c, c.fakeCluster, pol, a, b)
	d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot})
	if !ok || d.Job != a || d.Rule != "nass-6" {
		t.Fatalf("Assign = (%q, job %d), want nass-6 of job 0: the order selected user u, whose remote map must be taken under strict fairness", d.Rule, jobIdx(d, ok))
	}
	// User u's only job now has nothing for a reduce slot: its reduces are
	// not enabled (slow-start not reached). The slot goes to the next user.
	c2 := newSWCluster(mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Replication: 2}))
	pol2, _ := swPolicy(t, sched.SWParams{KnownRatios: true}, sched.SWOptions{SAMP: true, SARP: true})
	u := remoteOnly(t, c2.topo, 0)
	v := lightRed(t, c2.topo, 1)
	v.Pool, v.Spec.Pool = "v", "v"
	addJobs(t, c2, c2.fakeCluster, pol2, u, v)
	d, ok = pol2.Assign(c2, sched.Offer{Node: 0, Slot: sched.ReduceSlot})
	if !ok || d.Job != v {
		t.Errorf("reduce slot: Assign = (%q, job %d), want job 1: user u has no reduce it may run, so the next user's reduce takes the slot", d.Rule, jobIdx(d, ok))
	}
}
