package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// TestMergePassBytes pins Hadoop's Merger passes (Merger.MergeQueue.merge
// and getPassFactor) on hand-worked segment lists.
func TestMergePassBytes(t *testing.T) {
	ones := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	cases := []struct {
		name   string
		sizes  []float64
		factor int
		want   float64
		why    string
	}{
		{"fewer than the factor", ones(5), 10, 0, "5 segments <= 10: the final pass reads them all, no intermediate pass"},
		{"exactly the factor", ones(10), 10, 0, "10 segments: one final pass"},
		{"one over", ones(11), 10, 2, "first pass merges (11-1) mod 9 + 1 = 2 segments, leaving 10 for the final pass"},
		{"forty-one", ones(41), 10, 35,
			"first pass merges (41-1) mod 9 + 1 = 5 (37 left), then three passes of the 10 smallest ones (28, 19, 10 left): 5+10+10+10"},
		{"smallest first", []float64{1, 2, 3}, 2, 3, "factor 2: merge the two smallest, 1+2; the final pass takes 3 and 3"},
		{"empty segments dropped", []float64{0, 0, 4, 4}, 2, 0, "Merger drops empty segments: two segments of 4, one final pass"},
	}
	for _, c := range cases {
		if got := mergePassBytes(c.sizes, c.factor); got != c.want {
			t.Errorf("%s: %v bytes merged in intermediate passes, want %v: %s", c.name, got, c.want, c.why)
		}
	}
}

// TestMapSpills pins the number of spills and the merge's bytes for a map
// output against a 10 MiB sort buffer, which spills every 8 MiB
// (io.sort.spill.percent 0.8).
func TestMapSpills(t *testing.T) {
	const m = 1 << 20
	cases := []struct {
		out    float64
		factor int
		spills int
		merge  float64
		why    string
	}{
		{0, 10, 0, 0, "no output, nothing to spill"},
		{8 * m, 10, 1, 0, "8 MiB fits the 8 MiB threshold: one spill, which becomes the output file (no merge)"},
		{16 * m, 10, 2, 16 * m, "two spills of 8 MiB; the merge reads and writes each byte once"},
		{17 * m, 10, 3, 17 * m, "8 + 8 + 1 MiB: three spills, one merge pass"},
		{24 * m, 2, 3, 16*m + 24*m, "factor 2: an intermediate pass merges two 8 MiB spills (16 MiB), then the final pass reads and writes all 24 MiB"},
	}
	for _, c := range cases {
		spills, merge := mapSpills(c.out, 10, c.factor)
		if spills != c.spills || merge != c.merge {
			t.Errorf("output %v MiB, factor %d: %d spills and %v MiB merged, want %d and %v MiB: %s",
				c.out/m, c.factor, spills, merge/m, c.spills, c.merge/m, c.why)
		}
	}
}

// TestHDDMultiStreamRate pins the disk model's formula with a disk whose
// chunk takes as long to read as a seek: two streams or more get half its
// sequential rate.
func TestHDDMultiStreamRate(t *testing.T) {
	d := cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 100, SeekMs: 10, ChunkKB: 1e6 / 1024}
	if got, want := d.MultiStreamBps(), 5e7; math.Abs(got-want) > 1e-6 {
		t.Errorf("multi-stream rate %v B/s, want %v: a 1e6-byte chunk reads in 10 ms at 100 MB/s, then a 10 ms seek: half the time moving data", got, want)
	}
	ssd := cluster.Disk{Kind: cluster.DiskSSD, SeqMBps: 460}
	if got := ssd.MultiStreamBps(); got != 460e6 {
		t.Errorf("ssd multi-stream rate %v, want 460e6: no head to move", got)
	}
}

// halfDisk is one node whose hard disk gives 100 MB/s to one stream and
// 50 MB/s to two or more (TestHDDMultiStreamRate), with slots enough.
func halfDisk(t *testing.T, slots int) *cluster.Topology {
	return mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: slots, ReduceSlots: 1, Replication: 1,
		Disk: &cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 100, SeekMs: 10, ChunkKB: 1e6 / 1024}})
}

// TestDiskStreamsSlowMaps runs 1, 2 and 4 IO-bound node-local maps at once
// on a hard disk: one reads at the disk's sequential rate, two or four
// share its lower multi-stream rate.
func TestDiskStreamsSlowMaps(t *testing.T) {
	for _, c := range []struct {
		maps int
		want float64
		why  string
	}{
		{1, 67108864 / 1e8, "one stream: a 64 MiB block at 100 MB/s"},
		{2, 67108864 / 2.5e7, "two streams share 50 MB/s: 25 MB/s each"},
		{4, 67108864 / 1.25e7, "four streams share 50 MB/s: 12.5 MB/s each"},
	} {
		topo := halfDisk(t, c.maps)
		block := topo.Config().BlockBytes()
		_, r := runAlone(t, topo, newJob(0, 0).maps(c.maps, block, 1e-6).emptyReduce().build(), Params{HeartbeatS: 1})
		if got := r.Finish - r.FirstLaunch; math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%d maps: took %.6f s, want %.6f s: %s", c.maps, got, c.want, c.why)
		}
	}
}

// TestMapSpillsTwiceAndMerges runs one node-local map whose 16 MiB output
// overflows a 10 MiB sort buffer twice: it spills while it reads, then
// merges its two spills, and the summary counts the disk bytes.
func TestMapSpillsTwiceAndMerges(t *testing.T) {
	// An ideal disk of 100 MB/s; the map reads 64 MiB at 8 MiB/s (8 s)
	// and spills 16 MiB at 2 MiB/s meanwhile, both well within the disk.
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1, DiskMBps: 100})
	block := topo.Config().BlockBytes()
	const m = 1 << 20
	e, r := runAlone(t, topo, newJob(0, 0).maps(1, block, 8).reduces(1, 16*m, 0).build(), Params{HeartbeatS: 1, SortBufferMB: 10})
	// 8 s of reading and spilling; the merge reads and writes 16 MiB at
	// once on the disk, 2r = 1e8: 16 MiB / 5e7; the reduce then fetches
	// the output from the same disk alone, 16 MiB / 1e8.
	want := 8 + 16*m/5e7 + 16*m/1e8
	if got := r.Finish - r.FirstLaunch; math.Abs(got-want) > 1e-6 {
		t.Errorf("job took %.6f s, want %.6f s: 8 s map, 0.336 s merge, 0.168 s fetch", got, want)
	}
	s := e.Collector().Summarize("fifo")
	if s.DiskBytes == nil || s.DiskBytes.Spill != 16*m || s.DiskBytes.Merge != 32*m {
		t.Errorf("disk bytes %+v, want spill 16 MiB (two spills of 8) and merge 32 MiB (16 read, 16 written)", s.DiskBytes)
	}
}

// TestReduceOverflowsItsBuffer runs a reduce that fetches 16 MiB into
// shuffle buffers of several sizes, from a map on its own node (ideal
// disk, 100 MB/s), and checks what its disk does.
func TestReduceOverflowsItsBuffer(t *testing.T) {
	const m = 1 << 20
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1, DiskMBps: 100})
	block := topo.Config().BlockBytes()
	cases := []struct {
		name              string
		buf, keep         float64
		wantT             float64
		wantSpill, wantMg float64
		why               string
	}{
		{"overflows", 10, 0, 16*m/5e7 + 16*m/1e8, 16 * m, 16 * m,
			"16 MiB is above a quarter of the 10 MiB buffer: fetched to disk (read and written on one disk, 2r = 1e8), then read back alone"},
		{"fits, written at the end", 100, 0, 16*m/1e8 + 32*m/1e8, 16 * m, 16 * m,
			"fits the 100 MiB buffer; with no memory kept for the reduce (Hadoop's 0.0) it is written when the copy ends and read back: 32 MiB on one stream"},
		{"fits and stays", 100, 100, 16 * m / 1e8, 0, 0,
			"fits, and 100 MiB may stay in memory into the reduce: the disk only serves the fetch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, r := runAlone(t, topo, newJob(0, 0).maps(1, block, 8).reduces(1, 16*m, 0).build(), Params{HeartbeatS: 1, ReduceBufferMB: c.buf, ReduceInputBufferMB: c.keep})
			if got := r.Finish - r.FirstLaunch - 8; math.Abs(got-c.wantT) > 1e-6 {
				t.Errorf("the reduce took %.6f s after the map, want %.6f s: %s", got, c.wantT, c.why)
			}
			s := e.Collector().Summarize("fifo")
			if s.DiskBytes == nil || s.DiskBytes.Spill != c.wantSpill || s.DiskBytes.Merge != c.wantMg {
				t.Errorf("disk bytes %+v, want spill %v and merge %v: %s", s.DiskBytes, c.wantSpill, c.wantMg, c.why)
			}
		})
	}
}

// TestStartupDelay pins engine.task_startup_s: every attempt starts its
// work that long after its launch.
func TestStartupDelay(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	block := topo.Config().BlockBytes()
	_, r := runAlone(t, topo, newJob(0, 0).maps(1, block, 8).emptyReduce().build(), Params{HeartbeatS: 1, TaskStartupS: 2})
	if got, want := r.Finish-r.FirstLaunch, 2+8+2.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("job took %v s, want %v: the map starts 2 s after its launch and reads for 8 s; the reduce, launched as the map ends, starts 2 s later and has nothing to do", got, want)
	}
}

// TestOneLaunchPerHeartbeat pins engine.launches_per_heartbeat: with one
// launch a heartbeat (3 s), a node with four free map slots fills them at
// four heartbeats rather than at one; and engine.dynamic_max_assign,
// YARN's floor(free/2) + 1 launches an offer.
func TestOneLaunchPerHeartbeat(t *testing.T) {
	slots := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, MapSlots: 4, ReduceSlots: 1, Replication: 1})
	containers := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 1, Containers: 4, Replication: 1})
	for _, c := range []struct {
		topo    *cluster.Topology
		limit   int
		dynamic bool
		want    float64
		why     string
	}{
		{slots, 0, false, 100, "no limit: the four 100 s maps launch at the first heartbeat and end together"},
		{slots, 1, false, 109, "one launch a heartbeat: maps launch at 0, 3, 6 and 9 s, the last ends at 109 s; the reduce takes the slot offer of the first map's end"},
		{slots, 2, false, 103, "two a heartbeat: maps launch at 0, 0, 3 and 3 s"},
		{containers, 0, true, 103, "dynamic: of 4 free containers 4/2 + 1 = 3 maps launch at 0 s (YARN stops once 3 no longer fit in half of 4), the fourth at 3 s"},
		{containers, 1, true, 103, "dynamic in place of the count of launches"},
		{slots, 0, true, 103, "dynamic on 5 free slots: 5/2 + 1 = 3 maps at 0 s, then 2/2 + 1 = 2 offered at 3 s, the fourth map taking one"},
	} {
		block := c.topo.Config().BlockBytes()
		_, r := runAlone(t, c.topo, newJob(0, 0).maps(4, block, 100).emptyReduce().build(), Params{HeartbeatS: 3, LaunchesPerHeartbeat: c.limit, DynamicMaxAssign: c.dynamic})
		if got := r.Finish - r.FirstLaunch; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("limit %d, dynamic %v: job took %v s after its first launch, want %v: %s", c.limit, c.dynamic, got, c.want, c.why)
		}
	}
}

// placedOn is the first of the names name(0), name(1), ... (up to 1000)
// whose file, as place puts it, has every replica on node n.
func placedOn(t *testing.T, n cluster.NodeID, name func(k int) string, place func(name string) cluster.File) string {
	t.Helper()
	for k := range 1000 {
		f := place(name(k))
		if !slices.ContainsFunc(f.Replicas, func(r cluster.NodeID) bool { return r != n }) {
			return name(k)
		}
	}
	t.Fatalf("no name of 1000 (%s, ...) is placed wholly on node %d", name(0), n)
	return ""
}

// nameOnNode0 is the first job name, prefix followed by two letters,
// whose blocks of input (one replica each, as the engine places them
// with seed 1) all sit on node 0.
func nameOnNode0(t *testing.T, topo *cluster.Topology, prefix string, blocks int) string {
	t.Helper()
	return placedOn(t, 0, func(k int) string { return prefix + string(rune('a'+k%26)) + string(rune('a'+k/26%26)) },
		func(name string) cluster.File { return cluster.PlaceInput(topo, 1, name, blocks) })
}

// TestLoadCapSpreadsTasks pins engine.load_cap, Hadoop 1's
// CapBasedLoadManager: a job of 4 maps whose blocks all sit on node 0 of
// two 4-slot nodes. Without the cap node 0's first heartbeat takes all 4,
// node-local; with it, 4 runnable maps on 8 slots let a node run
// ceil(4 x 4/8) = 2, so node 1 takes the other two, off-node.
func TestLoadCapSpreadsTasks(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 4, ReduceSlots: 1, Replication: 1})
	block := topo.Config().BlockBytes()
	name := nameOnNode0(t, topo, "spread", 4)
	for _, c := range []struct {
		capped bool
		local  int
		why    string
	}{
		{false, 4, "node 0, heartbeating first, fills its 4 slots with the 4 local maps"},
		{true, 2, "the cap lets each node run 2 of the 4 runnable maps: node 1 runs 2 off-node"},
	} {
		job := newJob(0, 0).maps(4, block, 20).emptyReduce().build()
		job.Name = name
		_, r := runAlone(t, topo, job, Params{HeartbeatS: 3, LoadCap: c.capped})
		if r.Locality[0] != c.local {
			t.Errorf("load cap %v: %d node-local maps (locality %v); want %d: %s", c.capped, r.Locality[0], r.Locality, c.local, c.why)
		}
		// Node 0's two capped slots hold the other maps until node 1's
		// heartbeat at 1.5 s: held by the load manager.
		if c.capped && (r.Time == nil || r.Time.HeldBy != sched.HoldLoadCap) {
			t.Errorf("load cap: the job was held by %+v; want %q, the rule that left node 0's slots free", r.Time, sched.HoldLoadCap)
		}
	}
}

// TestSpeculativeBackupWins runs a job of two maps whose blocks both sit on
// node 0 of two, behind NICs of 1 Mbit/s: the map node 1 takes reads
// remotely for 537 s. With speculation, at node 0's heartbeat at 60 s
// (the job's age reaches SPECULATIVE_LAG) the slow map, at progress
// 2/3 x 58.5 s x 125 kB/s / 64 MiB = 0.073 against an average of
// (1 + 0.073) / 2, is 0.46 behind; its backup reads locally at 8 MiB/s
// and wins at 68 s.
func TestSpeculativeBackupWins(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, MapSlots: 1, ReduceSlots: 1, Replication: 1, NICMbps: 1})
	block := topo.Config().BlockBytes()
	name := nameOnNode0(t, topo, "straggler", 2)
	remote := float64(block) / 125e3
	for _, c := range []struct {
		spec bool
		want float64
		why  string
	}{
		{false, 1.5 + remote, "no backup: the remote map launched at node 1's first heartbeat (1.5 s) reads 64 MiB at 125 kB/s"},
		{true, 68, "the backup launched on node 0 at 60 s reads its local block in 8 s"},
	} {
		job := newJob(0, 0).maps(2, block, 8).emptyReduce().build()
		job.Name = name
		e, r := runAlone(t, topo, job, Params{HeartbeatS: 3, Speculative: c.spec})
		if math.Abs(r.Finish-c.want) > 1e-6 {
			t.Errorf("speculative %v: job finished at %.6f s, want %.6f s: %s", c.spec, r.Finish, c.want, c.why)
		}
		s := e.Collector().Summarize("fifo")
		if !c.spec {
			if s.Speculation != nil {
				t.Errorf("speculation reported without engine.speculative: %+v", s.Speculation)
			}
			continue
		}
		if sp := s.Speculation; sp == nil || sp.Backups != 1 || sp.BackupsWon != 1 || sp.Killed != 1 || math.Abs(sp.WastedTaskS-66.5) > 1e-6 {
			t.Errorf("speculation %+v, want 1 backup that won and 1 attempt killed, which had run 66.5 s (1.5 to 68)", s.Speculation)
		}
	}
}

// TestSpeculationKeepsInvariants runs jobs whose remote maps straggle
// behind slow NICs (one replica a block), with every cost on, attempt failures and
// preemption, under several policies, with the engine's invariants on:
// backups launch, win and lose, and are stopped with their tasks, and
// every slot, flow and disk byte is accounted for at the end.
func TestSpeculationKeepsInvariants(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3, MapSlots: 2, ReduceSlots: 1, Replication: 1,
		NICMbps: 10, RackUplinkMbps: 20, Disk: &costDisk})
	block := topo.Config().BlockBytes()
	var jobs []workload.Job
	for i := range 12 {
		j := newJob(i, float64(20*i)).maps(4+i%5*2, block, 20).reduces(2, 8<<20, 5).output(4 << 20).build()
		j.Pool = []string{"a", "b"}[i%2]
		jobs = append(jobs, j)
	}
	preempting, err := sched.NewFair(sched.FairParams{
		Pools:      []sched.PoolConfig{{Name: "b", MinMaps: 4}},
		Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 10, FairShareTimeoutS: 30},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := Params{SortBufferMB: 10, ReduceBufferMB: 20, TaskStartupS: 1, Speculative: true, TaskFailureRate: 0.1}
	var backups, won, lost int64
	for _, pol := range []sched.Policy{mustPolicy(t, "fifo"), mustPolicy(t, "fair"), mustPolicy(t, "delay"), mustPolicy(t, "td"), mustPolicy(t, "nas"), preempting} {
		e := runJobs(t, topo, jobs, pol, p)
		s := e.Collector().Summarize(pol.Name())
		if s.JobsCompleted+s.JobsFailed != len(jobs) {
			t.Errorf("%s: %d jobs completed and %d failed of %d", pol.Name(), s.JobsCompleted, s.JobsFailed, len(jobs))
		}
		backups += s.Speculation.Backups
		won += s.Speculation.BackupsWon
		lost += s.Speculation.Killed - s.Speculation.BackupsWon
	}
	if backups == 0 || won == 0 || lost == 0 {
		t.Errorf("%d backups, %d won, %d lost over the runs; want some of each for the test to exercise speculation", backups, won, lost)
	}
}
