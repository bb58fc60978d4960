package sim

import (
	"math/rand/v2"

	"github.com/mrsched/mrsched/sched"
)

// Task attempt failures.
//
// Each task attempt fails with probability Params.TaskFailureRate,
// independently. Hadoop's tasks fail mostly in user code: "the most common
// way" is "when user code in the map or reduce task throws a runtime
// exception", and a failing child JVM or a task that stops reporting
// progress for mapred.task.timeout (600 s) is failed too (T. White, Hadoop:
// The Definitive Guide, chapter 6, "Failures"). So a failing attempt fails
// while its user code runs, at a point drawn uniformly within that run: a
// map at a uniform fraction of its input read (the read is the map
// function's run: it goes at the map's processing rate, or slower when
// the network holds it back), a reduce at a uniform fraction of its reduce
// computation, after its copy phase. The task-seconds from its launch to
// the failure are lost, as a killed attempt's are.
//
// The task returns to pending and is retried, wherever the policy puts it
// (Hadoop prefers other nodes for a failed task, which the model, whose
// nodes do not fail, does not need). After Params.MaxAttempts failed
// attempts of one task the job fails, as Hadoop fails a job whose task
// exhausts mapred.map.max.attempts or mapred.reduce.max.attempts (4): its
// running attempts are killed and it leaves the run. Killed attempts
// (preemption, a failed job's) do not count as failed ones, as in Hadoop.
//
// Whether an attempt fails, and where, is drawn at its launch from a
// stream keyed by the run's seed, the job's name, the task and the attempt
// number, not by launch order: the same attempt fails at the same point
// under every policy and in the job's run alone (metrics.slowdown). With
// the rate at 0 nothing is drawn, so such runs are those of an engine
// without failures.
//
// The engine draws the failures and ends the attempt's work where it
// fails; the job tracker (jobtracker.Tracker.AttemptFailed) counts the
// failure, retries the task and fails the job.

// failSalt separates the failure stream from the job's placement stream,
// which is keyed by the same seed and name.
const failSalt = 0x6661696c75726573 // "failures"

// drawFailure returns where the attempt-th attempt of task i of kind k
// fails, as a fraction in (0, 1] of its user code's run, or 0 when it does
// not fail.
func (e *Engine) drawFailure(jr *jobRun, k sched.TaskKind, i int, attempt uint32) float32 {
	var pcg rand.PCG
	pcg.Seed(e.seed^jr.nameHash^failSalt, uint64(k)<<63|uint64(uint32(i))<<32|uint64(attempt))
	const unit = 1.0 / (1 << 53)
	if float64(pcg.Uint64()>>11)*unit >= e.p.TaskFailureRate {
		return 0
	}
	at := float32(1 - float64(pcg.Uint64()>>11)*unit) // (0, 1]
	if at == 0 {
		at = 1
	}
	return at
}
