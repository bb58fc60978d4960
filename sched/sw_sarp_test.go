package sched_test

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// crossRackShuffle is the shuffle of a job with out[r] bytes of map output
// on rack r that crosses racks when reduces[r] of its R reduces run on
// rack r: every reduce fetches 1/R of every rack's output, so rack r's
// output crosses for the reduces elsewhere.
func crossRackShuffle(out []float64, reduces []int) float64 {
	total := 0
	for _, n := range reduces {
		total += n
	}
	cross := 0.0
	for r, b := range out {
		cross += b * (1 - float64(reduces[r])/float64(total))
	}
	return cross
}

// TestSARPWorkedExample is Fig. 7 of the paper (section 3.3): two jobs
// whose data is on two racks. Spread evenly, each job's reduces send half
// of its intermediate data, 50 GB, across; placed by SARP, 18 GB, 64%
// less. The text gives only those numbers; they fix the example: 100 GB of
// intermediate data a job (half is 50 GB) split 90/10 between the racks
// (job 2 the mirror), since with reduces in proportion,
// 100 x (0.9 x 0.1 + 0.1 x 0.9) = 18. With 10 reduces a job, SARP prefers
// 9 on the job's rack and 1 on the other; offering reduce slots on the two
// racks in turn, NASS launches exactly that (lines 13, then 14 for none).
func TestSARPWorkedExample(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Replication: 2})
	c := newSWCluster(topo)
	pol, sw := swPolicy(t, sched.SWParams{}, sched.SWOptions{SAMP: true, SARP: true})
	outs := [][]float64{{90e9, 10e9}, {10e9, 90e9}}
	var jobs []*sched.Job
	for i, out := range outs {
		j := swJob(t, topo, i, "u", 1, []cluster.NodeID{0, 3}, []cluster.NodeID{1, 4})
		j.NumReduces, j.Spec.NumReduces = 10, 10
		finishMaps(j, out...)
		jobs = append(jobs, j)
	}
	addJobs(t, c, c.fakeCluster, pol, jobs...)
	placed := [2][]int{{0, 0}, {0, 0}}
	for k := range 20 {
		n := cluster.NodeID(3 * (k % 2)) // rack 0, rack 1, rack 0, ...
		d, ok := pol.Assign(c, sched.Offer{Node: n, Slot: sched.ReduceSlot})
		if !ok {
			t.Fatalf("offer %d on node %d declined with reduces pending", k, n)
		}
		launch(t, c, pol, d, n)
		placed[d.Job.Index][topo.Rack(n)]++
	}
	wantPref := [][]int{{9, 1}, {1, 9}}
	for i, j := range jobs {
		if got := sw.PreferredReducesPerRack(j); !slices.Equal(got, wantPref[i]) {
			t.Errorf("job %d: PreferredReducesPerRack = %v, want %v: 10 reduces in proportion to %v GB of map output", i+1, got, wantPref[i], outs[i])
		}
		if !slices.Equal(placed[i], wantPref[i]) {
			t.Errorf("job %d: NASS placed reduces %v per rack, want SARP's %v", i+1, placed[i], wantPref[i])
		}
		even := crossRackShuffle(outs[i], []int{5, 5})
		sarp := crossRackShuffle(outs[i], placed[i])
		if math.Abs(even-50e9) > 1 || math.Abs(sarp-18e9) > 1 || math.Abs(1-sarp/even-0.64) > 1e-9 {
			t.Errorf("job %d: cross-rack shuffle %.0f GB even, %.0f GB by SARP, want 50 and 18 (64%% less), as Fig. 7", i+1, even/1e9, sarp/1e9)
		}
	}
}

// TestReduceEnabling: beyond the engine's slow-start, a job's reduces are
// enabled when its map phase is complete or its user has no map left to
// place (section 3.3, "unoccupied slots for the user"); SARP then places
// them by the actual map output if more than MapCompletionThreshold (15%)
// of the maps are done, else by SAMP's estimate. The job has 20 maps with
// input on rack 0 (SAMP: rack 0, tentatively both reduces there); its
// output so far is all on rack 1, so the two sources disagree.
func TestReduceEnabling(t *testing.T) {
	cases := []struct {
		name       string
		finished   int  // maps done
		running    int  // maps running; the rest pending
		slowStart  bool // the engine enabled reduces
		otherMaps  bool // the user has another job with a pending map
		wantLaunch bool
		wantPref   []int
		why        string
	}{
		{"before slow-start", 20, 0, false, false, false, nil, "the engine's slow-start is a precondition"},
		{"user still has maps", 5, 5, true, false, false, nil, "10 of the job's maps are pending: the user's slots are occupied by maps"},
		{"another job of the user has maps", 5, 15, true, true, false, nil, "no map of this job is pending, but the user's other job has one"},
		{"user has no map to place, few done", 3, 17, true, false, true, []int{2, 0}, "3/20 = 15% is not above the threshold: SAMP's tentative counts"},
		{"user has no map to place, enough done", 4, 16, true, false, true, []int{0, 2}, "4/20 = 20% done: the actual output, all on rack 1"},
		{"map phase complete", 20, 0, true, true, true, []int{0, 2}, "complete: enabled even though the user's other job has maps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, Replication: 2})
			c := newSWCluster(topo)
			pol, sw := swPolicy(t, sched.SWParams{}, sched.SWOptions{SAMP: true, SARP: true})
			j := swJob(t, topo, 0, "u", 1, on(20, 1, 2)...)
			startMaps(t, j, tc.finished+tc.running)
			j.RunningMaps, j.FinishedMaps = tc.running, tc.finished
			j.MapOutputByRack[1] = float64(tc.finished) * 1e6
			j.ReducesEnabled = tc.slowStart
			jobs := []*sched.Job{j}
			if tc.otherMaps {
				jobs = append(jobs, swJob(t, topo, 1, "u", 1, on(1, 1, 2)...))
			}
			addJobs(t, c, c.fakeCluster, pol, jobs...)
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.ReduceSlot})
			if ok != tc.wantLaunch || (ok && d.Job != j) {
				t.Errorf("reduce slot: launched job %d (ok %v), want launch %v: %s", jobIdx(d, ok), ok, tc.wantLaunch, tc.why)
			}
			if sw.ReducesEnabled(j) != tc.wantLaunch {
				t.Errorf("ReducesEnabled = %v, want %v: %s", sw.ReducesEnabled(j), tc.wantLaunch, tc.why)
			}
			if got := sw.PreferredReducesPerRack(j); !slices.Equal(got, tc.wantPref) {
				t.Errorf("PreferredReducesPerRack = %v, want %v: %s", got, tc.wantPref, tc.why)
			}
		})
	}
}
