package harness

import (
	"fmt"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// oneMapJob is job id of worker w: one map of mapS seconds on one block
// and a reduce that does nearly nothing, so that all its time is its map.
func oneMapJob(id, w int, block int64, mapS float64) workload.Job {
	return workload.Job{ID: id, Name: fmt.Sprintf("g-%d", id), Kind: "test", User: w, Pool: workload.PoolOf(w),
		InputBytes: block, ShuffleBytes: 1000, NumMaps: 1, NumReduces: 1, Weight: workload.DefaultWeight,
		Profile: workload.Profile{MapSecPerByte: mapS / float64(block), ReduceSecPerByte: 1e-3 / 1000}}
}

func TestGateRunsWorkersClosedLoop(t *testing.T) {
	// One worker, three jobs of one 10 s map (and a reduce that does
	// nothing) on one node: the worker releases each job when the previous
	// finishes, so the jobs run one after another, about 10 s each.
	cl := cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1}
	block := cl.WithDefaults().BlockBytes()
	mk := func(id, w, k int) workload.Job { return oneMapJob(id, w, block, 10) }
	cases := []struct {
		name     string
		horizonS float64
		wantDone int
	}{
		{"all jobs", 0, 3},
		{"horizon after the second release", 15, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs, plan := ClosedLoopJobs([]int{3}, mk)
			plan.HorizonS = c.horizonS
			outs, err := RunAll(Options{Parallel: 1}, []Run{{Setup: Setup{Cluster: cl, Seed: 1}, Jobs: jobs, Policy: PolicySpec{Label: "fair", Name: "fair"}, Workers: plan}})
			if err != nil {
				t.Fatal(err)
			}
			o := outs[0]
			done := 0
			prev := -1.0
			for i := range jobs {
				if o.Released[i] < 0 {
					continue
				}
				if o.Released[i] < prev {
					t.Errorf("job %d released at %.3f, before job %d finished at %.3f", i, o.Released[i], i-1, prev)
				}
				if ta := o.Turnaround(i); ta < 10 || ta > 10.1 {
					t.Errorf("job %d turnaround %.3f s, want about 10 s (one map)", i, ta)
				}
				prev = o.Jobs[i].Finish
				done++
			}
			if done != c.wantDone {
				t.Errorf("%d jobs ran, want %d", done, c.wantDone)
			}
		})
	}
}

func TestClosedLoopJobsInterleaveWorkers(t *testing.T) {
	jobs, plan := ClosedLoopJobs([]int{2, 1, 3}, func(id, w, k int) workload.Job {
		return oneMapJob(id, w, 1<<20, 1)
	})
	// Round 0: workers 0, 1, 2; round 1: 0, 2; round 2: 2.
	wantOwner := []int{0, 1, 2, 0, 2, 2}
	if len(jobs) != len(wantOwner) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(wantOwner))
	}
	for i, w := range wantOwner {
		if plan.Owner[i] != w || jobs[i].ID != i || jobs[i].User != w {
			t.Errorf("job %d: owner %d, ID %d, user %d; want owner and user %d", i, plan.Owner[i], jobs[i].ID, jobs[i].User, w)
		}
	}
}

// TestGateForwardsIdleOffers: a gated policy that keeps state on offers
// nothing could take (nas lifts CR-RTS's hold) is told of them through the
// gate; one that does not want them is not.
func TestGateForwardsIdleOffers(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   bool
	}{
		{"fair", false},
		{"nas", true},
		{"nas-mts", false},
	} {
		pol, err := PolicySpec{Name: tc.policy}.Build()
		if err != nil {
			t.Fatal(err)
		}
		g := newGate(pol, &WorkerPlan{Owner: []int{0}})
		if got := sched.IdleOffersOf(g) != nil; got != tc.want {
			t.Errorf("%s behind the gate: wants idle offers = %v, want %v (as %s alone)", tc.policy, got, tc.want, tc.policy)
		}
	}
}
