package sched_test

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

func TestFIFOOrderCandidates(t *testing.T) {
	topo := smallTopo(t)
	// Job 0: every map launched, reduces not enabled: nothing runnable.
	// Job 1: maps pending, reduces not enabled.
	// Job 2: maps pending, reduces enabled.
	// Job 3: every map launched, reduces enabled.
	j0 := newJob(t, topo, 0, "p", 2, 1)
	startMaps(t, j0, 2)
	j1 := newJob(t, topo, 1, "p", 2, 1)
	j2 := newJob(t, topo, 2, "p", 2, 1)
	j2.ReducesEnabled = true
	j3 := newJob(t, topo, 3, "p", 1, 1)
	startMaps(t, j3, 1)
	j3.ReducesEnabled = true
	c := &fakeCluster{topo: topo, jobs: []*sched.Job{j0, j1, j2, j3}}

	tests := []struct {
		slot sched.SlotKind
		want []int
		why  string
	}{
		{sched.MapSlot, []int{1, 2}, "jobs 1 and 2 have pending maps, oldest first; 0 and 3 have none"},
		{sched.ReduceSlot, []int{2, 3}, "only jobs 2 and 3 have enabled reduces"},
		{sched.AnySlot, []int{1, 2, 3}, "job 0 has nothing runnable: its reduces are not enabled"},
	}
	for _, tc := range tests {
		t.Run(tc.slot.String(), func(t *testing.T) {
			if got := collect(sched.FIFOOrder{}.Candidates(c, tc.slot)); !slices.Equal(got, tc.want) {
				t.Errorf("FIFO candidates for a %v slot = %v, want %v: %s", tc.slot, got, tc.want, tc.why)
			}
		})
	}

	t.Run("stops when the consumer stops", func(t *testing.T) {
		n := 0
		for range (sched.FIFOOrder{}).Candidates(c, sched.AnySlot) {
			n++
			break
		}
		if n != 1 {
			t.Errorf("consumer saw %d jobs before breaking, want 1", n)
		}
	})
}

func TestLocalityFirstPlace(t *testing.T) {
	// smallTopo: rack 0 = nodes 0-2, rack 1 = nodes 3-5; replication 2.
	topo := smallTopo(t)
	mapJob := func(index int, blocks ...[]cluster.NodeID) *sched.Job {
		f := fileWith(t, topo, blocks...)
		return &sched.Job{Index: index, Pool: "p", NumMaps: len(blocks), NumReduces: 1, Maps: sched.NewMapIndex(topo, f), Input: f}
	}
	seq := func(jobs ...*sched.Job) func(func(*sched.Job) bool) {
		return func(yield func(*sched.Job) bool) {
			for _, j := range jobs {
				if !yield(j) {
					return
				}
			}
		}
	}
	// only is the jobs of a case with one job, 0, whose blocks are as given.
	only := func(blocks ...[]cluster.NodeID) func() []*sched.Job {
		return func() []*sched.Job { return []*sched.Job{mapJob(0, blocks...)} }
	}
	// halfMapped is a job of two node-local maps, one finished, with its
	// reduces enabled.
	halfMapped := func() []*sched.Job {
		j := mapJob(0, []cluster.NodeID{0, 1}, []cluster.NodeID{0, 1})
		j.Maps.Take(0)
		j.FinishedMaps = 1
		j.ReducesEnabled = true
		return []*sched.Job{j}
	}
	type want struct {
		job  int
		kind sched.TaskKind
		mapI int
		rule string
	}
	tests := []struct {
		name  string
		jobs  func() []*sched.Job
		offer sched.Offer
		free  map[cluster.NodeID]int
		want  *want // nil: decline
		why   string
	}{
		{
			name:  "node-local map beats a lower-indexed rack-local one",
			jobs:  only([]cluster.NodeID{4, 5}, []cluster.NodeID{3, 5}),
			offer: sched.Offer{Node: 3, Slot: sched.MapSlot},
			want:  &want{0, sched.MapTask, 1, sched.RuleNodeLocal},
			why:   "map 1 has a replica on node 3",
		},
		{
			name:  "rack-local map beats a lower-indexed off-rack one",
			jobs:  only([]cluster.NodeID{0, 1}, []cluster.NodeID{4, 5}),
			offer: sched.Offer{Node: 3, Slot: sched.MapSlot},
			want:  &want{0, sched.MapTask, 1, sched.RuleRackLocal},
			why:   "map 1's input is in node 3's rack, map 0's is not",
		},
		{
			name:  "off-rack when no input is near",
			jobs:  only([]cluster.NodeID{0, 1}, []cluster.NodeID{1, 2}),
			offer: sched.Offer{Node: 4, Slot: sched.MapSlot},
			want:  &want{0, sched.MapTask, 0, sched.RuleOffRack},
			why:   "all input is in rack 0; the lowest-indexed map goes",
		},
		{
			name: "first candidate wins over a more local later one",
			jobs: func() []*sched.Job {
				return []*sched.Job{mapJob(0, []cluster.NodeID{0, 1}), mapJob(1, []cluster.NodeID{4, 5})}
			},
			offer: sched.Offer{Node: 4, Slot: sched.MapSlot},
			want:  &want{0, sched.MapTask, 0, sched.RuleOffRack},
			why:   "locality-first never declines for the head job: this is how Hadoop loses locality on small jobs",
		},
		{
			name: "candidate with nothing for the slot is skipped",
			jobs: func() []*sched.Job {
				done := mapJob(0, []cluster.NodeID{4, 5})
				done.Maps.Take(0)
				return []*sched.Job{done, mapJob(1, []cluster.NodeID{0, 1})}
			},
			offer: sched.Offer{Node: 0, Slot: sched.MapSlot},
			want:  &want{1, sched.MapTask, 0, sched.RuleNodeLocal},
			why:   "job 0 has no pending map",
		},
		{
			name: "reduce slot gets a reduce decision",
			jobs: func() []*sched.Job {
				j := mapJob(0, []cluster.NodeID{0, 1})
				j.ReducesEnabled = true
				return []*sched.Job{j}
			},
			offer: sched.Offer{Node: 0, Slot: sched.ReduceSlot},
			want:  &want{0, sched.ReduceTask, 0, sched.RuleReduce},
			why:   "reduces are enabled and pending",
		},
		{
			name:  "container takes a reduce when the ramp says so",
			jobs:  halfMapped,
			offer: sched.Offer{Node: 0, Slot: sched.AnySlot},
			free:  map[cluster.NodeID]int{0: 2},
			want:  &want{0, sched.ReduceTask, 0, sched.RuleReduce},
			why:   "0/1 reduces launched < 1/2 maps finished, even though a node-local map is pending",
		},
		{
			name:  "a node's last container goes to a map while maps are pending",
			jobs:  halfMapped,
			offer: sched.Offer{Node: 0, Slot: sched.AnySlot},
			free:  map[cluster.NodeID]int{0: 1},
			want:  &want{0, sched.MapTask, 1, sched.RuleNodeLocal},
			why:   "the ramp says reduce, but a reduce in the last container could wait forever for maps with nowhere to run",
		},
		{
			name: "declines when no candidate has work",
			jobs: func() []*sched.Job {
				j := mapJob(0, []cluster.NodeID{0, 1})
				j.Maps.Take(0)
				return []*sched.Job{j}
			},
			offer: sched.Offer{Node: 0, Slot: sched.MapSlot},
			why:   "the only map is launched",
		},
		{
			name:  "declines with no candidates",
			jobs:  func() []*sched.Job { return nil },
			offer: sched.Offer{Node: 0, Slot: sched.MapSlot},
			why:   "nothing to run",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs := tc.jobs()
			c := &fakeCluster{topo: topo, jobs: jobs, free: tc.free}
			d, ok := sched.LocalityFirst{}.Place(c, tc.offer, seq(jobs...))
			if tc.want == nil {
				if ok {
					t.Errorf("Place = %+v, want a decline: %s", d, tc.why)
				}
				return
			}
			if !ok {
				t.Fatalf("Place declined, want job %d %v: %s", tc.want.job, tc.want.kind, tc.why)
			}
			if d.Job == nil || d.Job.Index != tc.want.job || d.Kind != tc.want.kind || d.Rule != tc.want.rule ||
				(d.Kind == sched.MapTask && d.Map != tc.want.mapI) {
				t.Errorf("Place = {job %v, %v, map %d, %q}, want {job %d, %v, map %d, %q}: %s",
					jobIndex(d.Job), d.Kind, d.Map, d.Rule, tc.want.job, tc.want.kind, tc.want.mapI, tc.want.rule, tc.why)
			}
		})
	}
}

func jobIndex(j *sched.Job) any {
	if j == nil {
		return "nil"
	}
	return j.Index
}

func TestFIFOPolicyAssignsOldestJob(t *testing.T) {
	topo := smallTopo(t)
	old := newJob(t, topo, 0, "a", 3, 1)
	young := newJob(t, topo, 1, "b", 3, 1)
	c := &fakeCluster{topo: topo, jobs: []*sched.Job{old, young}}
	p := sched.NewFIFO()
	if p.Name() != "fifo" {
		t.Errorf("Name() = %q, want \"fifo\"", p.Name())
	}
	d, ok := p.Assign(c, sched.Offer{Node: 2, Slot: sched.MapSlot})
	if !ok || d.Job != old {
		t.Fatalf("Assign = (%+v, %v), want the oldest job 0", d, ok)
	}
	startMaps(t, old, 3)
	d, ok = p.Assign(c, sched.Offer{Node: 2, Slot: sched.MapSlot})
	if !ok || d.Job != young {
		t.Errorf("Assign with job 0's maps all launched = (job %v, %v), want job 1", jobIndex(d.Job), ok)
	}
}
