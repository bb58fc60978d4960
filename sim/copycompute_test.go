package sim

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
)

// TestCopyComputeSplitting is the Fair Scheduler paper's example (section
// 5.2): a dual-core node with 2 reduce slots runs up to 6 reducers but
// lets 2 compute at once, and a job may copy on at most 2 of them. A large
// job submitted first then holds only 2 reducers while its maps run, so a
// small job arriving later runs its reducers beside them and finishes long
// before the large job's maps end. Without splitting the large job's
// reducers hoard both slots and the small job waits for it.
func TestCopyComputeSplitting(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 2, ReduceSlots: 2, Replication: 1})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{
		newJob(0, 0).maps(40, block, 10).reduces(6, 1<<20, 5).build(), // maps alone take 200 s
		newJob(1, 5).maps(2, block, 1).reduces(2, 1<<20, 1).build(),
	}
	run := func(cc CopyCompute) (small, large float64, hoard float64) {
		e := runJobs(t, topo, jobs, mustPolicy(t, "fair"), Params{CopyCompute: cc})
		j := e.Collector().Jobs()
		return j[1].Turnaround(), j[0].Turnaround(), e.Collector().Summarize("fair").ReduceHoardingSlotS
	}
	smallOn, largeOn, hoardOn := run(CopyCompute{Enabled: true})
	smallOff, _, hoardOff := run(CopyCompute{})
	if smallOn > 60 {
		t.Errorf("with copy-compute splitting the small job took %.1f s, want under 60 s: it needs 2 of the 4 free reducer places, not the large job's slots", smallOn)
	}
	if smallOff < 150 {
		t.Errorf("without splitting the small job took %.1f s, want it to wait for the large job's hoarded reduce slots (> 150 s)", smallOff)
	}
	if largeOn <= 0 {
		t.Errorf("the large job did not finish")
	}
	if hoardOn != 0 || hoardOff < 300 {
		t.Errorf("slot hoarding %.0f slot-s with splitting vs %.0f without: want 0 (copying reducers hold no compute slot) and about 2 slots x 190 s", hoardOn, hoardOff)
	}
}

func TestCopyComputeNeedsSlots(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3, Containers: 4})
	jobs := []workload.Job{newJob(0, 0).maps(1, 1, 1).reduces(1, 1, 1).build()}
	if _, err := New(Params{CopyCompute: CopyCompute{Enabled: true}}, topo, jobs, mustPolicy(t, "fifo"), 1); err == nil {
		t.Error("copy-compute splitting accepted the container model; it is defined on reduce slots")
	}
	topo = mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	if _, err := New(Params{CopyCompute: CopyCompute{Enabled: true, MaxReducers: 1, MaxComputing: 2}}, topo, jobs, mustPolicy(t, "fifo"), 1); err == nil {
		t.Error("accepted max_reducers < max_computing")
	}
}
