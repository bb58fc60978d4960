// Package metrics collects what a run did (per-job records, bytes moved by
// cause and reach, network samples, scheduling decisions) and summarises it
// with the definitions the papers use. Each summary field says which
// definition it uses.
package metrics

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/workload"
	"strconv"
)

// Cause is why bytes crossed the network.
type Cause uint8

// The causes of traffic: a map's input read, the shuffle, a reduce's output
// written to HDFS.
const (
	RemoteMap Cause = iota
	Shuffle
	Output
	numCauses
)

func (c Cause) String() string {
	switch c {
	case RemoteMap:
		return "remote_map"
	case Shuffle:
		return "shuffle"
	}
	return "output"
}

// DiskCause is why bytes crossed a node's disk without crossing the
// network: the costs a run models beyond bandwidth (docs/model.md).
type DiskCause uint8

// The disk-only causes: buffers that overflowed to disk (a map's spills, a
// reduce's fetched output beyond its shuffle buffer and what its buffer
// held when the copy ended) and merge passes (their reads and writes, and
// the final merge's read).
const (
	Spill DiskCause = iota
	Merge
)

func (c DiskCause) String() string {
	if c == Spill {
		return "spill"
	}
	return "merge"
}

// Options configure what a collector derives.
type Options struct {
	// CongestionThreshold is the uplink utilisation at or above which a
	// monitor sample counts as a congestion occurrence (NAS and
	// ShuffleWatcher use 80%).
	CongestionThreshold float64
	// MonitorPeriodS is the network monitor's sampling period.
	MonitorPeriodS float64
	// SteadyStartS and SteadyEndS bound the steady-state window for the
	// second throughput definition; zero picks the submission span.
	SteadyStartS, SteadyEndS float64
}

// JobRecord is one job's outcome, a row of jobs.csv.
type JobRecord struct {
	ID   int
	Name string
	Kind string
	User int
	// UserName is the user a Hadoop or YARN trace records, "" for a job
	// a SWIM trace or the generator drew a user for (user User).
	UserName     string
	Pool         string
	Submit       float64
	FirstLaunch  float64 // -1 until a task launches
	Finish       float64 // -1 while unfinished
	Maps         int
	Reduces      int
	InputBytes   int64
	ShuffleBytes int64
	OutputBytes  int64
	Class        workload.ShuffleClass
	Locality     [3]int // map launches by cluster.Reach
	// MapProgressAtFirstReduce is the fraction of the job's maps finished
	// when its first reduce launched (NAS Fig. 3d); -1 if none launched.
	MapProgressAtFirstReduce float64
	// Slowdown is turnaround over the turnaround the job gets alone on the
	// same cluster (Fair Scheduler paper, section 5.3); -1 unless asked for.
	Slowdown float64
	// Failed is set when the job failed (a task exhausted its attempts),
	// at FailedAt, for Reason; its Finish stays -1.
	Failed   bool
	FailedAt float64
	Reason   string
	// Time is where a completed job's turnaround went along its critical
	// path, in a run that records it (EnableTimeBreakdown); nil otherwise.
	Time *critpath.Breakdown
}

// Status is "completed", "failed" or "unfinished", as jobs.csv says.
func (r *JobRecord) Status() string {
	switch {
	case r.Failed:
		return "failed"
	case r.Finish >= 0:
		return "completed"
	}
	return "unfinished"
}

// Turnaround is finish minus submit, or -1 for an unfinished job.
func (r *JobRecord) Turnaround() float64 {
	if r.Finish < 0 {
		return -1
	}
	return r.Finish - r.Submit
}

// TimeseriesRow is one sampling period's aggregate state, a row of
// timeseries.csv. Byte rates are averages over the period ending at T.
type TimeseriesRow struct {
	T                   float64
	CrossRackBps        [numCauses]float64 // by Cause
	RunningMaps         int
	RunningReduces      int
	PendingMaps         int
	ActiveJobs          int
	CongestedUplinks    int     // uplink directions at or above the threshold in the last monitor sample
	MaxUplinkUtil       float64 // highest uplink utilisation in the last monitor sample
	CrossRackTotalBytes float64 // cumulative, all causes
}

// Collector accumulates a run's metrics. The engine calls it; it never
// reads the engine.
type Collector struct {
	opts      Options
	jobs      []JobRecord
	bytes     [numCauses][2]float64 // [cause][crossRack]
	decisions map[string]int64      // counted only; sorted before output
	decTotal  int64
	congested int64
	samples   int64
	series    []TimeseriesRow
	uplinkAcc uplinkAcc
	uplinks   []UplinkSample
	pools     []PoolSample
	kills     int64
	wasted    float64
	failures  int64
	failedS   float64
	jobsFail  int
	hoard     float64
	waitS     float64
	faults    *Faults // nil unless the run has node faults (EnableFaults)
	// disk counts disk-only bytes by DiskCause, and spec speculative
	// backups; nil unless the run models them (EnableDiskCosts,
	// EnableSpeculation), so that other runs' summaries are unchanged.
	disk *DiskBytes
	spec *Speculation
	// timeOn: the run records where each job's time goes, so jobs.csv
	// has its columns and the summary its sums.
	timeOn bool
}

// EnableTimeBreakdown makes jobs.csv carry each completed job's time by
// part (critpath) and the summary their sums.
func (c *Collector) EnableTimeBreakdown() { c.timeOn = true }

// TimeBreakdown reports whether the run records where each job's time
// goes.
func (c *Collector) TimeBreakdown() bool { return c.timeOn }

// JobTime records where completed job's time went.
func (c *Collector) JobTime(job int, b critpath.Breakdown) { c.jobs[job].Time = &b }

// EnableDiskCosts makes the summary report disk-only bytes
// (Summary.DiskBytes), for a run that models spills and merges.
func (c *Collector) EnableDiskCosts() {
	if c.disk == nil {
		c.disk = &DiskBytes{}
	}
}

// DiskIO records bytes that crossed a node's disk for cause.
func (c *Collector) DiskIO(cause DiskCause, bytes float64) {
	if cause == Spill {
		c.disk.Spill += bytes
	} else {
		c.disk.Merge += bytes
	}
}

// DiskBytes returns the disk-only bytes recorded for cause so far.
func (c *Collector) DiskBytes(cause DiskCause) float64 {
	if c.disk == nil {
		return 0
	}
	if cause == Spill {
		return c.disk.Spill
	}
	return c.disk.Merge
}

// EnableSpeculation makes the summary report speculative backups
// (Summary.Speculation), for a run with engine.speculative.
func (c *Collector) EnableSpeculation() {
	if c.spec == nil {
		c.spec = &Speculation{}
	}
}

// BackupLaunched counts a speculative backup attempt.
func (c *Collector) BackupLaunched() { c.spec.Backups++ }

// BackupRaceEnded counts the end of a race between a task's two attempts:
// whether the backup won, and the task-seconds the losing attempt had run,
// which are wasted.
func (c *Collector) BackupRaceEnded(backupWon bool, wastedS float64) {
	if backupWon {
		c.spec.BackupsWon++
	}
	c.spec.Killed++
	c.spec.WastedTaskS += wastedS
}

// ReduceWaiting adds the reducer-seconds a job's reducers spent waiting
// for its maps, and the part of them that held compute-capable reduce slots
// (slot hoarding, Fair Scheduler paper section 5.1).
func (c *Collector) ReduceWaiting(waitS, hoardS float64) {
	c.waitS += waitS
	c.hoard += hoardS
}

// New returns an empty collector.
func New(opts Options) *Collector {
	return &Collector{opts: opts, decisions: map[string]int64{}}
}

// UserText is the job's user as jobs.csv gives it: the name its trace
// records, else the number of the user it was drawn for.
func (r *JobRecord) UserText() string {
	if r.UserName != "" {
		return r.UserName
	}
	return strconv.Itoa(r.User)
}

// JobSubmitted opens a job's record. Job IDs must be dense from 0 in the
// order they are submitted.
func (c *Collector) JobSubmitted(j *workload.Job) {
	for len(c.jobs) <= j.ID {
		c.jobs = append(c.jobs, JobRecord{FirstLaunch: -1, Finish: -1, MapProgressAtFirstReduce: -1, Slowdown: -1})
	}
	c.jobs[j.ID] = JobRecord{
		ID: j.ID, Name: j.Name, Kind: j.Kind, User: j.User, UserName: j.UserName, Pool: j.Pool, Submit: j.Submit,
		FirstLaunch: -1, Finish: -1, Maps: j.NumMaps, Reduces: j.NumReduces,
		InputBytes: j.InputBytes, ShuffleBytes: j.ShuffleBytes, OutputBytes: j.OutputBytes,
		Class: workload.ClassOf(j.ShuffleBytes), MapProgressAtFirstReduce: -1, Slowdown: -1,
	}
}

// TaskLaunched records a launch; reach is where a map's input came from
// (ignored for reduces).
func (c *Collector) TaskLaunched(job int, t float64, isMap bool, reach cluster.Reach, mapProgress float64) {
	r := &c.jobs[job]
	if r.FirstLaunch < 0 {
		r.FirstLaunch = t
	}
	if isMap {
		r.Locality[reach]++
	} else if r.MapProgressAtFirstReduce < 0 {
		r.MapProgressAtFirstReduce = mapProgress
	}
}

// SetSlowdown records job's slowdown, computed outside the run.
func (c *Collector) SetSlowdown(job int, slowdown float64) { c.jobs[job].Slowdown = slowdown }

// JobFinished closes a job's record.
func (c *Collector) JobFinished(job int, t float64) { c.jobs[job].Finish = t }

// Transfer records bytes moved for a cause; crossRack says whether they
// crossed a rack uplink. Node-local reads are not transfers and are not
// recorded.
func (c *Collector) Transfer(cause Cause, crossRack bool, bytes float64) {
	k := 0
	if crossRack {
		k = 1
	}
	c.bytes[cause][k] += bytes
}

// Decision counts a scheduling decision by the rule that fired.
func (c *Collector) Decision(rule string) {
	c.decisions[rule]++
	c.decTotal++
}

// MonitorSample records one network monitor sample: how many uplink
// directions were at or above the congestion threshold.
func (c *Collector) MonitorSample(congestedUplinks int) {
	c.samples++
	c.congested += int64(congestedUplinks)
}

// TaskKilled counts a killed task attempt and the task-seconds it wasted.
func (c *Collector) TaskKilled(wastedS float64) {
	c.kills++
	c.wasted += wastedS
}

// TaskFailed counts a failed task attempt and the task-seconds it ran.
func (c *Collector) TaskFailed(wastedS float64) {
	c.failures++
	c.failedS += wastedS
}

// JobFailed records that a job failed at t, and why.
func (c *Collector) JobFailed(job int, t float64, reason string) {
	r := &c.jobs[job]
	r.Failed, r.FailedAt, r.Reason = true, t, reason
	c.jobsFail++
}

// EnableFaults makes the summary report node losses (Summary.Faults), for
// a run with a faults section; a run without has no faults object.
func (c *Collector) EnableFaults() {
	if c.faults == nil {
		c.faults = &Faults{}
	}
}

// NodeLost counts a node the master declared lost.
func (c *Collector) NodeLost() { c.faults.LostNodes++ }

// FaultKilled counts an attempt that failed because of a node loss, and
// the task-seconds it ran.
func (c *Collector) FaultKilled(wastedS float64) {
	c.faults.KilledAttempts++
	c.faults.WastedTaskS += wastedS
}

// MapReexecuted counts a finished map whose output was lost with its
// node, and the task-seconds its attempt had run.
func (c *Collector) MapReexecuted(wastedS float64) {
	c.faults.ReexecutedMaps++
	c.faults.WastedTaskS += wastedS
}

// FaultFailedJob counts a job that failed because a block of its input
// lost every replica.
func (c *Collector) FaultFailedJob() { c.faults.FailedJobs++ }

// AddTimeseries appends a row to the time series.
func (c *Collector) AddTimeseries(row TimeseriesRow) { c.series = append(c.series, row) }

// Jobs returns the per-job records, by job ID. The caller must not modify them.
func (c *Collector) Jobs() []JobRecord { return c.jobs }

// Timeseries returns the time series rows.
func (c *Collector) Timeseries() []TimeseriesRow { return c.series }

// SetSteadyWindow sets the steady-state window (zeros: the submission span).
func (c *Collector) SetSteadyWindow(start, end float64) {
	c.opts.SteadyStartS, c.opts.SteadyEndS = start, end
}
