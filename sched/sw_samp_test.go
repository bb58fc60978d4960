package sched_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// TestSAMPWorkedExample is Fig. 5 of the paper (section 3.2): two jobs
// whose input is replicated on two racks, every block having one replica
// on each. "Previous schedulers would assign equal numbers of Map tasks
// for each job to the nodes within each rack"; SAMP prefers rack 1 for
// job 1 and rack 2 for job 2, so each job's map output lands on one rack,
// with no remote map traffic. Both jobs are one user's, the setting in
// which NASS chooses between them; maps are offered as a 2 x 3 node
// cluster with one map slot a node frees them.
func TestSAMPWorkedExample(t *testing.T) {
	// Block i of each job is on node i%3 (rack 0) and node 3+i%3 (rack 1).
	blocks := make([][]cluster.NodeID, 6)
	for i := range blocks {
		blocks[i] = []cluster.NodeID{cluster.NodeID(i % 3), cluster.NodeID(3 + i%3)}
	}
	run := func(pol sched.Policy, submitted func(jobs []*sched.Job)) *miniSim {
		topo := smallTopo(t)
		s := newMiniSim(t, topo, pol, sched.MapSlot, 1)
		s.add(swJob(t, topo, 0, "u", 1, blocks...))
		s.add(swJob(t, topo, 1, "u", 1, blocks...))
		submitted(s.jobs)
		s.run(1000)
		return s
	}
	racksOf := func(s *miniSim, job int) (racks []cluster.RackID, remote int) {
		for _, l := range s.launches {
			if l.job != job {
				continue
			}
			if r := s.topo.Rack(l.node); !slices.Contains(racks, r) {
				racks = append(racks, r)
			}
			if l.reach == cluster.OffRack {
				remote++
			}
		}
		slices.Sort(racks)
		return racks, remote
	}

	sw, err := sched.NewShuffleWatcher(sched.SWParams{}, sched.SWOptions{SAMP: true, SARP: true})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := sched.NewFairOrder(sched.FairParams{})
	s := run(sched.Compose("sw-fair", o, sw), func(jobs []*sched.Job) {
		for job, want := range []cluster.RackID{0, 1} {
			if got := sw.PreferredMapRacks(jobs[job]); !slices.Equal(got, []cluster.RackID{want}) {
				t.Errorf("job %d: PreferredMapRacks = %v, want [%d]: both racks hold all its input (a tie); one rack keeps its shuffle inside a rack (cross-rack 0), two would send half across; the tie goes to the rack fewer jobs prefer", job+1, got, want)
			}
		}
	})
	for job, want := range []cluster.RackID{0, 1} {
		racks, remote := racksOf(s, job)
		if !slices.Equal(racks, []cluster.RackID{want}) || remote != 0 {
			t.Errorf("job %d under sw-fair ran maps on racks %v with %d remote reads, want rack %d only and none: SAMP's preferred rack has a replica of every block", job+1, racks, remote, want)
		}
	}
	fairPol, err := sched.NewPolicy("fair", nil)
	if err != nil {
		t.Fatal(err)
	}
	fair := run(fairPol, func([]*sched.Job) {})
	for job := range 2 {
		if racks, _ := racksOf(fair, job); len(racks) != 2 {
			t.Errorf("job %d under fair ran maps on racks %v, want both: the contrast Fig. 5 draws, each job's maps spread over the racks as their nodes free up", job+1, racks)
		}
	}
}

// TestSAMPPreferredRacks checks Fig. 4's loop on a 3-rack cluster (nodes
// 2r and 2r+1 on rack r) with three 64 MiB blocks (B): block 0 on racks 0
// and 1, block 1 on racks 1 and 2, block 2 on racks 2 and 0. Every rack
// holds 2 blocks (a tie, broken by rack ID), so the list starts at rack 0.
func TestSAMPPreferredRacks(t *testing.T) {
	blocks := [][]cluster.NodeID{{0, 2}, {3, 4}, {5, 1}}
	cases := []struct {
		name          string
		ratio         float64
		opt           sched.SWOptions
		wantRacks     []cluster.RackID
		wantTentative []int
		why           string
	}{
		{"shuffle-heavy stays on one rack", 1, sched.SWOptions{SAMP: true, SARP: true},
			[]cluster.RackID{0}, []int{2, 0, 0},
			"rack 0 alone: block 1 read remotely, 1 B; racks 0+1: no remote read, output 1.5 B on each, one reduce each, so half of the 3 B shuffle crosses: 1.5 B, more"},
		{"shuffle-light spreads", 0.01, sched.SWOptions{SAMP: true, SARP: true},
			[]cluster.RackID{0, 1}, []int{1, 1, 0},
			"racks 0+1: half of a 0.03 B shuffle crosses, 0.015 B, less than the 1 B remote read; adding rack 2 (output 1 B on each, reduces 1, 1, 0) sends 2/3 across, 0.02 B, more"},
		{"without SAMP: no preference, reduces where the input is", 1, sched.SWOptions{SARP: true},
			nil, []int{1, 1, 0},
			"output 1 B on each rack; 2 reduces by largest remainder, ties to the lower rack"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 3, NodesPerRack: 2, Replication: 2})
			c := newSWCluster(topo)
			pol, sw := swPolicy(t, sched.SWParams{KnownRatios: true}, tc.opt)
			j := swJob(t, topo, 0, "u", tc.ratio, blocks...)
			addJobs(t, c, c.fakeCluster, pol, j)
			if got := sw.PreferredMapRacks(j); !slices.Equal(got, tc.wantRacks) {
				t.Errorf("PreferredMapRacks = %v, want %v: %s", got, tc.wantRacks, tc.why)
			}
			if got := sw.TentativeReducesPerRack(j); !slices.Equal(got, tc.wantTentative) {
				t.Errorf("TentativeReducesPerRack = %v, want %v: %s", got, tc.wantTentative, tc.why)
			}
		})
	}
}

// TestShuffleInputRatio: 1.0 until a map finishes, then map output so far
// over the finished maps' input; or the job's own ratio with known_ratios.
func TestShuffleInputRatio(t *testing.T) {
	topo := smallTopo(t)
	block := float64(topo.Config().BlockBytes())
	cases := []struct {
		name     string
		known    bool
		finished int
		out      float64 // map output so far
		want     float64
		why      string
	}{
		{"starts at 1.0", false, 0, 0, 1, "section 3.1: initialised to 1.0 (spec ratio 3 is not known)"},
		{"measured from finished maps", false, 2, 6 * block, 3, "2 maps of 1 block made 6 blocks of output"},
		{"light when output is small", false, 4, 0.4 * block, 0.1, "4 blocks in, 0.4 out"},
		{"known ratio from the start", true, 0, 0, 3, "known_ratios takes shuffle/input from the job: 12 B / 4 B"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			pol, sw := swPolicy(t, sched.SWParams{KnownRatios: tc.known}, sched.SWOptions{SAMP: true, SARP: true})
			j := swJob(t, topo, 0, "u", 3, on(4, 0, 3)...)
			addJobs(t, c, c.fakeCluster, pol, j)
			startMaps(t, j, tc.finished)
			j.RunningMaps -= tc.finished
			j.FinishedMaps = tc.finished
			j.MapOutputByRack[0] = tc.out
			_, to := observers(t, pol)
			if tc.finished > 0 {
				to.TaskEnded(c, j, sched.MapTask, 0, false)
			}
			if got := sw.ShuffleInputRatio(j); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("ShuffleInputRatio = %v, want %v: %s", got, tc.want, tc.why)
			}
		})
	}
}
