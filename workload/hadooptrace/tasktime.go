package hadooptrace

import "github.com/mrsched/mrsched/workload"

// IdleIO is what the model charges a task for its bytes on an idle
// cluster, at the rates of the paths they take.
type IdleIO struct {
	// DiskBps and NICBps are a node's disk and NIC rates, bytes a second.
	DiskBps, NICBps float64
	// StartupS is the engine's task start-up (engine.task_startup_s),
	// which it charges every attempt apart from its work.
	StartupS float64
}

// MeasuredProfile sets a traced job's CPU costs from the times its trace
// measured, and reports for which task kinds it could (a kind without a
// measured task with bytes keeps the profile's cost).
//
// A map's work is its measured attempt time less the start-up the engine
// charges apart; its cost per byte is the job's maps' work over their
// input. Its read is not taken off: the engine overlaps a map's read with
// its processing (the read is capped at the processing rate), so on an
// idle cluster a map takes the longer of the two, and a measured time,
// which already contains the real read, is the processing time that gives
// the measured time back at the traced placement. Placement still changes
// what the map costs: where its read is slower than its processing (a
// remote replica, a busy disk or uplink) the read decides.
//
// A reduce's work is its time from the end of its sort to its finish
// (Rumen's sortFinished, JobHistory's sortFinishTime: the reduce function
// and the output write; the copy before it waits on maps, which the model
// times itself) less what the model charges for the write on an idle
// cluster, its output over the slower of disk and NIC (HDFS's pipeline
// writes the local disk and sends the second replica over the NIC): the
// engine runs a reduce's computation and then its write, one after the
// other, so the write is taken off to leave the computation. Work below
// 0 (a write the model charges more than the trace took) counts as 0.
func MeasuredProfile(j *workload.Job, io IdleIO) (maps, reduces bool) {
	m := j.Measured
	if m == nil {
		return false, false
	}
	var work, bytes float64
	for i, t := range m.MapS {
		in := j.MapInputBytes(i, 0)
		if t < 0 || in <= 0 {
			continue
		}
		work += max(t-io.StartupS, 0)
		bytes += float64(in)
	}
	if work > 0 && bytes > 0 {
		j.Profile.MapSecPerByte = work / bytes
		maps = true
	}
	work, bytes = 0, 0
	write := min(io.DiskBps, io.NICBps)
	for r, t := range m.ReduceFnS {
		sh := j.ReduceShuffleBytes(r)
		if t < 0 || sh <= 0 {
			continue
		}
		w := t
		if write > 0 {
			w -= j.ReduceOutputBytes(r) / write
		}
		work += max(w, 0)
		bytes += sh
	}
	if work > 0 && bytes > 0 {
		j.Profile.ReduceSecPerByte = work / bytes
		reduces = true
	}
	return maps, reduces
}
