package jobtracker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// recorder is a Driver that writes down what the tracker asks of it.
type recorder struct {
	calls []string
	freed []cluster.NodeID // SlotFreed's nodes, apart from calls
}

func (r *recorder) add(format string, args ...any) {
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *recorder) ReadSource(_, _ int, _, chosen cluster.NodeID) cluster.NodeID {
	if chosen < 0 {
		return 0
	}
	return chosen
}
func (r *recorder) Start(a Attempt, n, _ cluster.NodeID) { r.add("start %s on %d", name(a), n) }
func (r *recorder) Stop(a Attempt, why StopReason)       { r.add("stop %s %s", name(a), why) }
func (r *recorder) MapOutput(a Attempt, host cluster.NodeID, rerun bool) {
	r.add("output %s on %d rerun=%v", name(a), host, rerun)
}
func (r *recorder) OutputsLost(job int, host cluster.NodeID, maps []int) {
	r.add("lost job %d on %d: %v", job, host, maps)
}
func (r *recorder) SlotFreed(n cluster.NodeID)   { r.freed = append(r.freed, n) }
func (r *recorder) JobLeft(job int, failed bool) { r.add("left job %d failed=%v", job, failed) }
func (r *recorder) Progress(Attempt) float64     { return 0 }

// name spells an attempt as j<job> m<task>#<n> (r for a reduce).
func name(a Attempt) string {
	k := "m"
	if a.Kind == sched.ReduceTask {
		k = "r"
	}
	return fmt.Sprintf("j%d %s%d#%d", a.Job, k, a.Task, a.N)
}

// lowest is a policy that takes the lowest pending map, else a reduce.
type lowest struct{}

func (lowest) Name() string { return "lowest" }
func (lowest) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	for _, j := range c.Jobs() {
		if o.Slot != sched.ReduceSlot {
			for i := range j.NumMaps {
				if j.Maps.IsPending(i) {
					return sched.Decision{Job: j, Kind: sched.MapTask, Map: i, Rule: "lowest"}, true
				}
			}
		}
		if o.Slot != sched.MapSlot && j.ReducesEnabled && j.PendingReduces() > 0 {
			return sched.Decision{Job: j, Kind: sched.ReduceTask, Rule: "lowest"}, true
		}
	}
	return sched.Decision{}, false
}

// newTracker returns a tracker over 3 nodes of 2 map slots and 1 reduce
// slot each, one job of maps maps and one reduce, and its recorder.
func newTracker(t *testing.T, maps int, cfg Config) (*Tracker, *recorder) {
	t.Helper()
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 3, MapSlots: 2, ReduceSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workload.Job{{ID: 0, Name: "j0", NumMaps: maps, NumReduces: 1, InputBytes: int64(maps) << 26, ShuffleBytes: 1 << 20}}
	cfg.Topology, cfg.Slots = topo, [3]int{2, 1, 0}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = 4
	}
	rec := &recorder{}
	col := metrics.New(metrics.Options{})
	col.JobSubmitted(&jobs[0])
	col.EnableFaults()
	tr := New(cfg, jobs, lowest{}, col, rec)
	files := make([]cluster.File, len(jobs))
	for i := range jobs {
		files[i] = sched.InputFile(topo, 1, &jobs[i])
	}
	tr.Submit(0, files[0])
	return tr, rec
}

func attempt(job, task int, k sched.TaskKind, n uint32) Attempt {
	return Attempt{Job: int32(job), Task: int32(task), Kind: k, N: n}
}

// TestAttemptNumbers pins the attempt numbers: a task's number grows at
// each launch and at each end short of success, so that an ended
// attempt's late reports never match (the simulator's failure draws key
// on them).
func TestAttemptNumbers(t *testing.T) {
	tr, rec := newTracker(t, 1, Config{SlowStart: 1})
	tr.Offer(0)
	if !tr.Kill(sched.TaskRef{Job: tr.Job(0), Kind: sched.MapTask, Index: 0}) {
		t.Fatal("Kill of the running map reported false; want true")
	}
	tr.Offer(1)
	for _, tc := range []struct {
		a    Attempt
		want bool
	}{
		{attempt(0, 0, sched.MapTask, 1), false},
		{attempt(0, 0, sched.MapTask, 3), true},
		{attempt(0, 0, sched.MapTask, BackupAttempt|1), false},
		{attempt(0, 0, sched.ReduceTask, 1), false},
		{attempt(1, 0, sched.MapTask, 1), false},
	} {
		if got := tr.Live(tc.a); got != tc.want {
			t.Errorf("Live(%s) = %v, want %v: only the relaunched attempt runs", name(tc.a), got, tc.want)
		}
	}
	tr.AttemptFailed(attempt(0, 0, sched.MapTask, 3), "", false)
	tr.Offer(1)
	want := []string{"start j0 m0#1 on 0", "stop j0 m0#1 killed", "start j0 m0#3 on 1", "stop j0 m0#3 failed", "start j0 m0#5 on 1"}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q: a kill and a failure each move the number on, as a launch does", rec.calls, want)
	}
}

// TestSlowStart pins when reduces become launchable: once the slow-start
// fraction of the job's maps is done, and for good.
func TestSlowStart(t *testing.T) {
	for _, tc := range []struct {
		slowStart float64
		done      int
		want      bool
	}{
		{0, 0, true},
		{0.5, 1, false},
		{0.5, 2, true},
		{1, 3, false},
		{1, 4, true},
	} {
		t.Run(fmt.Sprintf("%v/%d", tc.slowStart, tc.done), func(t *testing.T) {
			tr, _ := newTracker(t, 4, Config{SlowStart: tc.slowStart})
			tr.Offer(0)
			tr.Offer(1)
			for i := range tc.done {
				tr.MapDone(attempt(0, i, sched.MapTask, 1))
			}
			_, reduces := tr.Launchable()
			j := tr.Job(0)
			if j.ReducesEnabled != tc.want || reduces+j.RunningReduces != map[bool]int{true: 1, false: 0}[tc.want] {
				t.Errorf("with %d of 4 maps done at slow start %v: enabled %v, %d reduces launchable and %d running; want enabled %v and the reduce launchable or running only then",
					tc.done, tc.slowStart, j.ReducesEnabled, reduces, j.RunningReduces, tc.want)
			}
		})
	}
}

// TestFailJobStopsLatestFirst pins a failed job's kills: its running
// attempts stop latest launched first, then it leaves, failed, with no
// task left launchable.
func TestFailJobStopsLatestFirst(t *testing.T) {
	tr, rec := newTracker(t, 4, Config{SlowStart: 1, MaxAttempts: 1})
	tr.Offer(0)
	tr.Offer(1)
	rec.calls = nil
	tr.AttemptFailed(attempt(0, 1, sched.MapTask, 1), "", false)
	want := []string{"stop j0 m1#1 failed", "stop j0 m3#1 job failed", "stop j0 m2#1 job failed", "stop j0 m0#1 job failed", "left job 0 failed=true"}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q", rec.calls, want)
	}
	if maps, reduces := tr.Launchable(); maps != 0 || reduces != 0 || tr.Finished() != 1 || tr.RunningAttempts() != 0 {
		t.Errorf("after the job failed: %d maps, %d reduces launchable, %d finished, %d running; want 0, 0, 1, 0", maps, reduces, tr.Finished(), tr.RunningAttempts())
	}
}

// TestMapRunAgainCompletesJob pins that a job whose reduce finished
// while a map ran again (its output lost with a node) completes when that
// map does.
func TestMapRunAgainCompletesJob(t *testing.T) {
	tr, rec := newTracker(t, 2, Config{SlowStart: 1})
	tr.Offer(0) // maps 0 and 1 on node 0
	tr.MapDone(attempt(0, 0, sched.MapTask, 1))
	tr.MapDone(attempt(0, 1, sched.MapTask, 1))
	tr.Offer(1) // the reduce on node 1
	tr.ReduceCopied(attempt(0, 0, sched.ReduceTask, 1))
	tr.NodeDown(0)
	tr.NodeLost(0)
	if got := tr.Job(0).FinishedMaps; got != 0 {
		t.Fatalf("after node 0 was lost, %d maps are finished; want 0: both outputs were there", got)
	}
	if log := tr.Log(0); log[0].PerReduce != 0 || log[1].PerReduce != 0 {
		t.Errorf("log = %v; want both entries obsolete (PerReduce 0)", log)
	}
	tr.ReduceDone(attempt(0, 0, sched.ReduceTask, 1))
	if tr.Finished() != 0 {
		t.Fatal("the job completed with its maps pending again")
	}
	tr.Offer(1)
	tr.MapDone(attempt(0, 0, sched.MapTask, 3))
	rec.calls = nil
	tr.MapDone(attempt(0, 1, sched.MapTask, 3))
	want := []string{"output j0 m1#3 on 1 rerun=true", "left job 0 failed=false"}
	if !slices.Equal(rec.calls, want) || tr.Finished() != 1 {
		t.Errorf("calls = %q, finished %d; want %q and 1", rec.calls, tr.Finished(), want)
	}
}

// TestNodeLostTellsDriverFirst pins the order of a loss: the node's
// attempts stop, then the driver hears of the lost outputs while their
// log entries are still live, and the node's slots leave the cluster.
func TestNodeLostTellsDriverFirst(t *testing.T) {
	tr, rec := newTracker(t, 3, Config{SlowStart: 1})
	tr.Offer(0) // maps 0, 1 on node 0
	tr.Offer(1) // map 2 on node 1
	tr.MapDone(attempt(0, 0, sched.MapTask, 1))
	rec.calls = nil
	tr.NodeDown(0)
	tr.NodeLost(0)
	want := []string{"stop j0 m1#1 node lost", "lost job 0 on 0: [0]"}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q", rec.calls, want)
	}
	if got := tr.TotalSlots(sched.MapSlot); got != 4 {
		t.Errorf("TotalSlots(map) = %d after losing one of 3 nodes of 2 slots; want 4", got)
	}
	if got := tr.Job(0).PendingMaps(); got != 2 {
		t.Errorf("%d maps pending; want 2: map 1 was running there, map 0's output was there", got)
	}
	tr.NodeRestored(0)
	if got := tr.FreeSlots(0, sched.MapSlot); got != 2 || tr.TotalSlots(sched.MapSlot) != 6 {
		t.Errorf("after the restore node 0 has %d free map slots of %d in all; want 2 of 6", got, tr.TotalSlots(sched.MapSlot))
	}
}

// TestPreemptRefusesIdleTask pins that a policy asking to kill an
// attempt that is not running is the run's error, naming the policy.
func TestPreemptRefusesIdleTask(t *testing.T) {
	tr, _ := newTracker(t, 1, Config{SlowStart: 1})
	p := preempter{ref: sched.TaskRef{Job: tr.Job(0), Kind: sched.MapTask, Index: 0}}
	if tr.Preempt(p) || tr.Err() == nil || !strings.Contains(tr.Err().Error(), "policy lowest asked to kill map 0 of job 0") {
		t.Errorf("Preempt of a pending map: error %v; want one naming the policy and the task", tr.Err())
	}
}

type preempter struct {
	lowest
	ref sched.TaskRef
}

func (p preempter) Preempt(sched.Cluster) []sched.TaskRef { return []sched.TaskRef{p.ref} }

// TestStarvedMapsKillsCopyingReduce pins which reduce a job whose maps
// starve gives up: its latest launched that is still copying, never one
// that has copied its input and computes or writes.
func TestStarvedMapsKillsCopyingReduce(t *testing.T) {
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 3, Containers: 1})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workload.Job{{ID: 0, Name: "j0", NumMaps: 2, NumReduces: 2, InputBytes: 2 << 26, ShuffleBytes: 1 << 20}}
	col := metrics.New(metrics.Options{})
	col.JobSubmitted(&jobs[0])
	col.EnableFaults()
	rec := &recorder{}
	tr := New(Config{Topology: topo, Slots: [3]int{0, 0, 1}, MaxAttempts: 4}, jobs, lowest{}, col, rec)
	tr.Submit(0, sched.InputFile(topo, 1, &jobs[0]))
	tr.Offer(0) // map 0
	tr.Offer(1) // map 1
	tr.MapDone(attempt(0, 0, sched.MapTask, 1))
	tr.MapDone(attempt(0, 1, sched.MapTask, 1))
	tr.Offer(0) // reduce 0
	tr.Offer(2) // reduce 1, launched last
	tr.ReduceCopied(attempt(0, 1, sched.ReduceTask, 1))
	tr.NodeDown(1)
	tr.NodeLost(1) // map 1's output: the job's maps starve on full nodes
	rec.calls = nil
	tr.StarvedMaps()
	want := []string{"stop j0 r0#1 killed"}
	if !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q: reduce 1 copied its input, reduce 0 still copies", rec.calls, want)
	}
}

// TestRerunMapsOnlyTheReportedOutputs pins a fetch failure's re-execution:
// the maps named that finished on the host run again (the driver is told,
// their log entries go obsolete), the host's other outputs and slots stay,
// no node is lost, and a report about an output that moved is passed over.
func TestRerunMapsOnlyTheReportedOutputs(t *testing.T) {
	tr, rec := newTracker(t, 3, Config{SlowStart: 1})
	tr.Offer(0) // maps 0, 1 on node 0
	tr.Offer(1) // map 2 on node 1
	for i := range 3 {
		tr.MapDone(attempt(0, i, sched.MapTask, 1))
	}
	rec.calls = nil
	for _, tc := range []struct {
		host cluster.NodeID
		maps []int
		want int
	}{
		{0, []int{1, 2, 7, -1}, 1}, // map 2 is on node 1; 7 and -1 are no maps
		{0, []int{1}, 0},           // map 1 is pending again: its output moved
		{2, []int{0}, 0},           // node 2 holds no output of the job
	} {
		if got := tr.RerunMaps(0, tc.host, tc.maps); got != tc.want {
			t.Errorf("RerunMaps(0, %d, %v) = %d, want %d", tc.host, tc.maps, got, tc.want)
		}
	}
	if want := []string{"lost job 0 on 0: [1]"}; !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q", rec.calls, want)
	}
	log := tr.Log(0)
	if log[0].PerReduce == 0 || log[1].PerReduce != 0 || log[2].PerReduce == 0 {
		t.Errorf("log = %v; want only map 1's entry obsolete (PerReduce 0)", log)
	}
	j := tr.Job(0)
	if j.FinishedMaps != 2 || j.PendingMaps() != 1 || tr.TotalSlots(sched.MapSlot) != 6 || !tr.Rerun(0, 1) {
		t.Errorf("%d maps finished, %d pending, %d map slots, map 1 rerun %v; want 2, 1, 6, true: no node was lost",
			j.FinishedMaps, j.PendingMaps(), tr.TotalSlots(sched.MapSlot), tr.Rerun(0, 1))
	}
}

// TestKillFreesTheSlotAtOnce pins what lets a driver offer a slot in the
// handler that freed it (the testbed once waited for the node's next
// heartbeat): a kill tells the driver which node's slot it freed, and the
// view shows the slot free before anything else happens.
func TestKillFreesTheSlotAtOnce(t *testing.T) {
	tr, rec := newTracker(t, 4, Config{SlowStart: 1})
	tr.Offer(0) // two maps on node 0's two map slots
	if got := tr.FreeSlots(0, sched.MapSlot); got != 0 {
		t.Fatalf("node 0 has %d free map slots after the offer, want 0: both slots run maps", got)
	}
	rec.freed = nil
	if !tr.Kill(sched.TaskRef{Job: tr.Job(0), Kind: sched.MapTask, Index: 0}) {
		t.Fatal("Kill of a running map reported false; want true")
	}
	if !slices.Equal(rec.freed, []cluster.NodeID{0}) {
		t.Errorf("SlotFreed calls %v after the kill, want [0]: the driver must learn of the freed slot at once", rec.freed)
	}
	if got := tr.FreeSlots(0, sched.MapSlot); got != 1 {
		t.Errorf("node 0 has %d free map slots after the kill, want 1, before any heartbeat", got)
	}
}

// TestNodeLostEndsBackupsThere pins a loss under speculation: a backup
// on the lost node stops (a node-lost stop, counted among the faults'
// killed attempts) and its slot leaves with the node, while its task's
// own attempt runs on elsewhere and finishes with no race to end.
func TestNodeLostEndsBackupsThere(t *testing.T) {
	tr, rec, backup := withBackup(t)
	tr.NodeDown(1)
	tr.NodeLost(1)
	if want := []string{"stop " + name(backup) + " node lost"}; !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q: the backup on the lost node stops, the own attempt runs on", rec.calls, want)
	}
	if got := tr.TotalSlots(sched.MapSlot); got != 4 {
		t.Errorf("TotalSlots(map) = %d after losing one of 3 nodes of 2 slots; want 4", got)
	}
	rec.calls = nil
	tr.MapDone(attempt(0, 1, sched.MapTask, 1))
	if want := "output j0 m1#1 on 0 rerun=false"; len(rec.calls) == 0 || rec.calls[0] != want {
		t.Errorf("calls = %q, want %q first: the own attempt's output, no race to end", rec.calls, want)
	}
	tr.Check()
	if err := tr.Err(); err != nil {
		t.Errorf("the tracker's invariants fail after the loss: %v", err)
	}
}

// withBackup is a tracker whose job's map 1 runs on node 0 with a backup
// on node 1, its recorder's calls cleared, and the backup's attempt.
func withBackup(t *testing.T) (*Tracker, *recorder, Attempt) {
	t.Helper()
	tr, rec := newTracker(t, 2, Config{SlowStart: 1, Speculative: true, CheckInvariants: true})
	tr.Offer(0) // maps 0 and 1 on node 0
	tr.MapDone(attempt(0, 0, sched.MapTask, 1))
	// 60 s on (Hadoop's SPECULATIVE_LAG), map 1 at progress 0 is 0.5
	// behind its job's average (1 + 0) / 2: node 1's free slot takes a
	// backup, as no map is pending and the reduce waits for slow start.
	tr.SetNow(61)
	rec.calls = nil
	tr.Offer(1)
	backup := attempt(0, 1, sched.MapTask, BackupAttempt|1)
	if want := []string{"start " + name(backup) + " on 1"}; !slices.Equal(rec.calls, want) {
		t.Fatalf("calls = %q, want %q: map 1 qualifies for a backup", rec.calls, want)
	}
	rec.calls = nil
	return tr, rec, backup
}

// TestBackupFailureEndsTheBackupAlone pins a failed backup (a testbed's
// backup can fail as any attempt can): it ends alone, counted among its
// task's failures, and the task's own attempt runs on and finishes.
func TestBackupFailureEndsTheBackupAlone(t *testing.T) {
	tr, rec, backup := withBackup(t)
	tr.AttemptFailed(backup, "read reset", false)
	if want := []string{"stop " + name(backup) + " failed"}; !slices.Equal(rec.calls, want) {
		t.Errorf("calls = %q, want %q: only the backup stops", rec.calls, want)
	}
	if !tr.Live(attempt(0, 1, sched.MapTask, 1)) || tr.Live(backup) {
		t.Errorf("own attempt live %v, backup live %v; want the own attempt alone running", tr.Live(attempt(0, 1, sched.MapTask, 1)), tr.Live(backup))
	}
	if got := tr.FreeSlots(1, sched.MapSlot); got != 2 {
		t.Errorf("node 1 has %d free map slots after its backup failed; want both", got)
	}
	tr.MapDone(attempt(0, 1, sched.MapTask, 1))
	tr.Check()
	if err := tr.Err(); err != nil {
		t.Errorf("the tracker's invariants fail after the backup's failure: %v", err)
	}
	if got := tr.Job(0).FinishedMaps; got != 2 {
		t.Errorf("%d maps finished; want 2", got)
	}
}

// TestFinishedJobReleasesItsIndexes: a job that leaves the run drops its
// map index and block placement, which only a running job reads, so a
// run's live memory follows its backlog rather than every job it has
// seen. Its counts stay for the metrics.
func TestFinishedJobReleasesItsIndexes(t *testing.T) {
	tr, _ := newTracker(t, 2, Config{SlowStart: 1})
	if tr.Job(0).Maps == nil || tr.Job(0).Input == nil {
		t.Fatal("a submitted job has no map index or placement")
	}
	tr.Offer(0)
	tr.MapDone(attempt(0, 0, sched.MapTask, 1))
	tr.MapDone(attempt(0, 1, sched.MapTask, 1))
	tr.Offer(1)
	tr.ReduceCopied(attempt(0, 0, sched.ReduceTask, 1))
	tr.ReduceDone(attempt(0, 0, sched.ReduceTask, 1))
	if tr.Finished() != 1 {
		t.Fatalf("%d jobs finished; want the one job done", tr.Finished())
	}
	j := tr.Job(0)
	if j.Maps != nil || j.Input != nil {
		t.Errorf("a finished job keeps its map index (%v) or placement (%v); want both released", j.Maps != nil, j.Input != nil)
	}
	if j.FinishedMaps != 2 {
		t.Errorf("a finished job's maps done = %d; want its count, 2, kept", j.FinishedMaps)
	}
}
