package harness

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// runningMaps is a cluster view that knows its topology and which maps run;
// MapRuns asks it nothing else.
type runningMaps struct {
	sched.Cluster
	topo *cluster.Topology
	live []sched.TaskRef
}

func (c runningMaps) Topology() *cluster.Topology { return c.topo }

func (c runningMaps) RunningTasks(j *sched.Job) []sched.TaskRef {
	var out []sched.TaskRef
	for _, t := range c.live {
		if t.Job == j {
			out = append(out, t)
		}
	}
	return out
}

// TestMapRunsEnded pins how a wrapper's map attempts are matched: a launch
// to the decision just made on its node (else it is unchosen, a backup),
// and an end to the attempt whose map no longer runs, by each wrapper's
// rule (hotWatch: only when the attempts differ; tdProbe: a backup counts
// as ended).
func TestMapRunsEnded(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 4, ReduceSlots: 1, Replication: 1})
	if err != nil {
		t.Fatal(err)
	}
	job, other := &sched.Job{}, &sched.Job{}
	const node = cluster.NodeID(0)
	// launch launches maps (-1: without a decision) of job on node, each
	// noted with its map.
	launch := func(c sched.Cluster, r *MapRuns[int], maps ...int) {
		for _, m := range maps {
			if m >= 0 {
				r.Decided(job, m, node, m)
			}
			r.Launched(c, job, node, -1)
		}
	}
	tests := []struct {
		name          string
		launched      []int
		running       []int // maps still running after one ended
		alike         func(a, b int) bool
		unchosenEnded bool
		want          int // the ended attempt's map
	}{
		{"the only attempt ends, running or not", []int{1}, []int{1}, nil, false, 1},
		{"of two, the one whose map stopped", []int{1, 2}, []int{1}, nil, false, 2},
		{"a backup is passed over", []int{-1, 1, 2}, []int{1}, nil, false, 2},
		{"a backup counts as ended where the rule says", []int{-1, 1, 2}, []int{1}, nil, true, -1},
		{"alike attempts: the first, which one ended making no difference", []int{1, 2}, []int{1}, func(a, b int) bool { return true }, false, 1},
		{"attempts that differ: the stopped one", []int{1, 2}, []int{1}, func(a, b int) bool { return a == b }, false, 2},
		{"none stopped: the first", []int{1, 2}, []int{1, 2}, nil, false, 1},
	}
	for _, tc := range tests {
		c := runningMaps{topo: topo}
		for _, m := range tc.running {
			c.live = append(c.live, sched.TaskRef{Job: job, Kind: sched.MapTask, Index: m, Node: node})
		}
		var r MapRuns[int]
		launch(c, &r, tc.launched...)
		got, ok := r.Ended(c, job, node, tc.alike, tc.unchosenEnded)
		if !ok || got.Map != tc.want || got.Note != tc.want {
			t.Errorf("%s: ended map %d (note %d, found %v), want map %d", tc.name, got.Map, got.Note, ok, tc.want)
		}
		if n := len(r.byNode[node]); n != len(tc.launched)-1 {
			t.Errorf("%s: %d attempts left, want %d: the ended one is removed", tc.name, n, len(tc.launched)-1)
		}
		if _, ok := r.Ended(c, other, node, tc.alike, tc.unchosenEnded); ok {
			t.Errorf("%s: a job with no attempt on the node ended one; want none found", tc.name)
		}
	}
}

// A decision is matched only by a launch of its job on its node, and only
// once: a launch elsewhere, or a second one, is unchosen.
func TestMapRunsLaunchMatchesDecision(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 4, ReduceSlots: 1, Replication: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := runningMaps{topo: topo}
	job := &sched.Job{}
	var r MapRuns[string]
	r.Decided(job, 3, 0, "chosen")
	if got := r.Launched(c, job, 1, "other node"); got.Map != -1 || got.Note != "other node" {
		t.Errorf("launch on another node = map %d %q, want unchosen (-1, its default note)", got.Map, got.Note)
	}
	r.Decided(job, 3, 0, "chosen")
	if got := r.Launched(c, job, 0, "dflt"); got.Map != 3 || got.Note != "chosen" {
		t.Errorf("launch on the decision's node = map %d %q, want the decided map 3 with its note", got.Map, got.Note)
	}
	if got := r.Launched(c, job, 0, "dflt"); got.Map != -1 {
		t.Errorf("second launch = map %d, want unchosen: a decision is launched once", got.Map)
	}
	r.Decided(job, 4, 0, "chosen")
	r.Forget()
	if got := r.Launched(c, job, 0, "dflt"); got.Map != -1 {
		t.Errorf("launch after forget = map %d, want unchosen: a forgotten decision was not launched", got.Map)
	}
}
