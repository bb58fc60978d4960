package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// ends counts what the policy is told: launches, and ends by kind and
// whether killed (failed attempts are reported killed); and job removals.
type ends struct {
	observing
	launched, removed int
	killed            [2]int
	finished          [2]int
}

func (o *ends) JobRemoved(c sched.Cluster, j *sched.Job) {
	o.removed++
	o.observing.JobRemoved(c, j)
}

func (o *ends) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	o.launched++
	o.observing.TaskLaunched(c, j, k, n)
}

func (o *ends) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if killed {
		o.killed[k]++
	} else {
		o.finished[k]++
	}
	o.observing.TaskEnded(c, j, k, n, killed)
}

// failureJobs is a small busy workload: 12 jobs of 6 maps and 3 reduces.
func failureJobs(block int64) []workload.Job {
	var jobs []workload.Job
	for i := 0; i < 12; i++ {
		jobs = append(jobs, newJob(i, float64(5*i)).maps(6, block, 8).reduces(3, 8<<20, 4).output(1<<20).build())
	}
	return jobs
}

// TestFailedAttemptsAreRetried: at a failure rate of 0.1 and the default 4
// attempts, attempts of maps and reduces fail, their tasks run again, and
// (with this seed) every job completes; the failed attempts and their
// task-seconds are counted; the shuffle ledger still balances
// (CheckInvariants); the policy is told of every end.
func TestFailedAttemptsAreRetried(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3})
	jobs := failureJobs(topo.Config().BlockBytes())
	obs := &ends{observing: observing{mustPolicy(t, "fair")}}
	e := runJobs(t, topo, jobs, obs, Params{TaskFailureRate: 0.1})
	s := e.Collector().Summarize("fair")
	if s.JobsCompleted != len(jobs) || s.JobsFailed != 0 {
		t.Fatalf("%d jobs completed and %d failed, want all %d completed: no task should fail 4 times at rate 0.1 here", s.JobsCompleted, s.JobsFailed, len(jobs))
	}
	if obs.killed[sched.MapTask] == 0 || obs.killed[sched.ReduceTask] == 0 {
		t.Errorf("failed attempts told to the policy: %d maps, %d reduces; want some of each at rate 0.1 over %d tasks", obs.killed[0], obs.killed[1], 12*9)
	}
	if got := int64(obs.killed[0] + obs.killed[1]); s.TasksFailed != got || s.TasksKilled != 0 {
		t.Errorf("summary counts %d failed and %d killed attempts, the policy was told of %d killed: every failed attempt is reported as TaskEnded(killed)", s.TasksFailed, s.TasksKilled, got)
	}
	if !(s.FailedTaskS > 0) {
		t.Errorf("failed attempts wasted %v task-seconds, want > 0", s.FailedTaskS)
	}
	// Every task finished once; every attempt ended.
	if obs.finished[0] != 12*6 || obs.finished[1] != 12*3 || obs.launched != obs.finished[0]+obs.finished[1]+obs.killed[0]+obs.killed[1] {
		t.Errorf("launched %d, finished %v, failed %v: each launch must end once", obs.launched, obs.finished, obs.killed)
	}
	// Over all attempts, the share that failed is about the rate.
	if share := float64(s.TasksFailed) / float64(obs.launched); math.Abs(share-0.1) > 0.05 {
		t.Errorf("%.2f of %d attempts failed, want about 0.1", share, obs.launched)
	}
}

// TestSameAttemptsFailUnderEveryPolicy: whether an attempt fails is drawn
// by its job, task and attempt number, not by launch order, so without
// preemption every policy sees the same attempts fail.
func TestSameAttemptsFailUnderEveryPolicy(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3})
	jobs := failureJobs(topo.Config().BlockBytes())
	var counts []int64
	for _, name := range []string{"fifo", "fair", "delay", "drf"} {
		e := runJobs(t, topo, jobs, mustPolicy(t, name), Params{TaskFailureRate: 0.1})
		counts = append(counts, e.Collector().Summarize(name).TasksFailed)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] != counts[0] {
			t.Fatalf("failed attempts by policy (fifo, fair, delay, drf) = %v, want equal", counts)
		}
	}
}

// TestJobFailsAfterMaxAttempts: at rate 1 every attempt fails, so each
// job fails when its first task has failed max_attempts times; its other
// running attempts are killed, it leaves the run, and jobs.csv says why.
func TestJobFailsAfterMaxAttempts(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 2, NodesPerRack: 3})
	jobs := failureJobs(topo.Config().BlockBytes())
	obs := &ends{observing: observing{mustPolicy(t, "fair")}}
	e := runJobs(t, topo, jobs, obs, Params{TaskFailureRate: 1, MaxAttempts: 2})
	s := e.Collector().Summarize("fair")
	if s.JobsFailed != len(jobs) || s.JobsCompleted != 0 || obs.removed != len(jobs) {
		t.Fatalf("%d failed, %d completed, %d removed; want all %d failed and removed", s.JobsFailed, s.JobsCompleted, obs.removed, len(jobs))
	}
	if s.TasksKilled == 0 {
		t.Error("no attempt was killed: a failed job's other running attempts must be")
	}
	if s.TasksFailed < int64(2*len(jobs)) {
		t.Errorf("%d failed attempts, want at least 2 a job", s.TasksFailed)
	}
	for _, r := range e.Collector().Jobs() {
		if r.Status() != "failed" || r.Finish != -1 || !strings.Contains(r.Reason, "failed 2 attempts (engine.max_attempts 2)") {
			t.Errorf("job %d: status %q, finish %v, reason %q; want failed, -1, and a reason naming the attempts", r.ID, r.Status(), r.Finish, r.Reason)
		}
	}
}

// TestFailureStrikesWithinTheRun: a lone map that always fails, once,
// loses the task-seconds up to a point inside its 10 s read, not all of
// them and not none.
func TestFailureStrikesWithinTheRun(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 2, Replication: 1})
	block := topo.Config().BlockBytes()
	jobs := []workload.Job{newJob(0, 0).maps(1, block, 10).reduces(1, 1<<20, 1).build()}
	e := runJobs(t, topo, jobs, mustPolicy(t, "fifo"), Params{TaskFailureRate: 1, MaxAttempts: 1})
	s := e.Collector().Summarize("fifo")
	if s.TasksFailed != 1 || !(s.FailedTaskS > 0 && s.FailedTaskS < 10) {
		t.Errorf("%d failed attempts wasting %v s, want 1 attempt failing within its 10 s read", s.TasksFailed, s.FailedTaskS)
	}
}

// TestFailuresUnderEveryEngineFeature: failures and failed jobs meet
// preemption, copy-compute splitting, task startup, containers and the
// quantized network; every run must end with every job completed or
// failed and the engine's accounting intact (CheckInvariants).
func TestFailuresUnderEveryEngineFeature(t *testing.T) {
	slots := cluster.Config{Racks: 2, NodesPerRack: 3, MapSlots: 2, ReduceSlots: 2}
	for _, c := range []struct {
		name string
		cl   cluster.Config
		pol  sched.Policy
		p    Params
	}{
		{"preemption", slots, preemptingFair(t), Params{}},
		{"copy-compute", slots, mustPolicy(t, "fair"), Params{CopyCompute: CopyCompute{Enabled: true, MaxReducers: 4, MaxComputing: 1}}},
		{"task startup", slots, mustPolicy(t, "delay"), Params{TaskStartupS: 2}},
		{"containers, quantized", cluster.Config{Racks: 2, NodesPerRack: 3, Containers: 3}, mustPolicy(t, "nas"), Params{NetworkQuantumS: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			topo := mustTopo(t, c.cl)
			jobs := failureJobs(topo.Config().BlockBytes())
			c.p.TaskFailureRate, c.p.MaxAttempts = 0.3, 2
			e := runJobs(t, topo, jobs, c.pol, c.p)
			s := e.Collector().Summarize(c.pol.Name())
			if s.JobsCompleted+s.JobsFailed != len(jobs) || s.JobsFailed == 0 {
				t.Errorf("%d completed and %d failed of %d jobs; want every job to end, some failed at rate 0.3 with 2 attempts", s.JobsCompleted, s.JobsFailed, len(jobs))
			}
		})
	}
}

func preemptingFair(t *testing.T) sched.Policy {
	p, err := sched.NewFair(sched.FairParams{Preemption: sched.PreemptionParams{Enabled: true, MinShareTimeoutS: 1, FairShareTimeoutS: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
