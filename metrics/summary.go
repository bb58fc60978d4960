package metrics

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/workload"
)

// Summary is a run's result, the content of summary.json. Each field's
// comment gives its definition.
type Summary struct {
	Policy        string `json:"policy"`
	JobsSubmitted int    `json:"jobs_submitted"`
	JobsCompleted int    `json:"jobs_completed"`
	// JobsFailed counts jobs that failed: a task of theirs failed
	// engine.max_attempts attempts (jobs.csv gives each one's reason).
	JobsFailed int `json:"jobs_failed"`
	// Fingerprint identifies the jobs and the cluster the run ran
	// (scenario.Fingerprint): `mrsched diff` compares only runs that
	// share it.
	Fingerprint string `json:"workload_fingerprint,omitempty"`
	// MakespanS is the last finish minus the first submit.
	MakespanS float64 `json:"makespan_s"`
	// ThroughputJobsPerHour is completed jobs / makespan, per hour.
	ThroughputJobsPerHour float64 `json:"throughput_jobs_per_hour"`
	// SteadyState is the second definition: jobs completed inside a
	// window, per hour (ShuffleWatcher ignores ramp-up and ramp-down).
	SteadyState SteadyState `json:"steady_state"`
	// Turnaround is finish minus submit over completed jobs.
	Turnaround        Distribution            `json:"turnaround_s"`
	TurnaroundByClass map[string]Distribution `json:"turnaround_by_class_s"`
	// Slowdown is turnaround over turnaround alone, when it was computed.
	Slowdown *Distribution `json:"slowdown,omitempty"`
	Locality Locality      `json:"locality"`
	Bytes    Bytes         `json:"bytes"`
	// CongestionOccurrences counts (monitor sample, uplink direction)
	// pairs at or above the congestion threshold.
	CongestionOccurrences int64         `json:"congestion_occurrences"`
	Congestion            CongestionDef `json:"congestion"`
	Decisions             Decisions     `json:"decisions"`
	TasksKilled           int64         `json:"tasks_killed"`
	// WastedTaskS is the task-seconds of killed attempts' lost work.
	WastedTaskS float64 `json:"wasted_task_s"`
	// TasksFailed counts failed task attempts (workload.task_failure_rate),
	// and FailedTaskS the task-seconds they ran, all of it lost.
	TasksFailed int64   `json:"tasks_failed"`
	FailedTaskS float64 `json:"failed_task_s"`
	// ReduceWaitS is reducer-seconds spent waiting for their job's maps.
	ReduceWaitS float64 `json:"reduce_wait_s"`
	// ReduceHoardingSlotS is the part of ReduceWaitS that held a
	// compute-capable reduce slot: slot hoarding (section 5.1). Under
	// copy-compute splitting a copying reducer holds none.
	ReduceHoardingSlotS float64 `json:"reduce_hoarding_slot_s"`
	// Faults is what node losses did, in a run with faults
	// (docs/faults.md); absent otherwise.
	Faults *Faults `json:"faults,omitempty"`
	// DiskBytes is the bytes that crossed nodes' disks for spills and
	// merges, in a run that models them (docs/model.md); absent otherwise.
	DiskBytes *DiskBytes `json:"disk_bytes,omitempty"`
	// Speculation is what speculative backups did, in a run with
	// engine.speculative; absent otherwise.
	Speculation *Speculation `json:"speculation,omitempty"`
	// TimeBreakdown is where the completed jobs' time went, in a run that
	// records it (docs/time.md); absent otherwise.
	TimeBreakdown *TimeBreakdown    `json:"time_breakdown,omitempty"`
	Extra         map[string]any    `json:"extra,omitempty"`
	Definitions   map[string]string `json:"definitions"`
	// Config is the configuration the run used, every default filled in,
	// in the scenario's words (scenario.Effective); read back, a map.
	Config any `json:"config,omitempty"`
	// TraceFidelity compares the run's jobs with the run times their
	// trace measured, for a workload read from a Hadoop or YARN trace.
	TraceFidelity *TraceFidelity `json:"trace_fidelity,omitempty"`
}

// TraceFidelity is how far a replay's job run times are from the traced
// ones: over Jobs jobs that succeeded in the trace and the run, the
// median and 90th percentile of |simulated - traced| / traced turnaround,
// and Spearman's rank correlation of the two.
type TraceFidelity struct {
	Jobs            int     `json:"jobs"`
	MedianRelError  float64 `json:"median_rel_error"`
	P90RelError     float64 `json:"p90_rel_error"`
	RankCorrelation float64 `json:"rank_correlation"`
}

// Faults counts what node losses did to a run (docs/faults.md).
type Faults struct {
	// LostNodes counts nodes the master declared lost: at their expiry,
	// or at a restore that came first.
	LostNodes int `json:"lost_nodes"`
	// KilledAttempts counts attempts that failed because their node was
	// lost, or that found no live replica to read.
	KilledAttempts int64 `json:"killed_attempts"`
	// ReexecutedMaps counts finished maps run again because their output
	// was lost with their node.
	ReexecutedMaps int64 `json:"reexecuted_maps"`
	// WastedTaskS is the task-seconds of those attempts and of the lost
	// outputs' original attempts.
	WastedTaskS float64 `json:"wasted_task_s"`
	// FailedJobs counts jobs that failed because a block of their input
	// lost every replica.
	FailedJobs int `json:"failed_jobs"`
}

// DiskBytes are bytes that crossed a node's disk and no network, by cause.
type DiskBytes struct {
	// Spill is bytes written to disk because a buffer was full: map
	// spills, fetched map output beyond a reduce's shuffle buffer, and a
	// reduce's buffer written out when its copy ended.
	Spill float64 `json:"spill"`
	// Merge is bytes read and written by merge passes, and read by the
	// final merges (a byte read and written counts twice).
	Merge float64 `json:"merge"`
}

// Speculation counts speculative backup attempts (engine.speculative).
type Speculation struct {
	// Backups counts backup attempts launched.
	Backups int64 `json:"backups"`
	// BackupsWon counts tasks whose backup finished first.
	BackupsWon int64 `json:"backups_won"`
	// Killed counts attempts killed because the other attempt of their
	// task finished first, and WastedTaskS the task-seconds they ran.
	Killed      int64   `json:"killed"`
	WastedTaskS float64 `json:"wasted_task_s"`
}

// SteadyState is throughput over a window.
type SteadyState struct {
	StartS        float64 `json:"start_s"`
	EndS          float64 `json:"end_s"`
	JobsCompleted int     `json:"jobs_completed"`
	JobsPerHour   float64 `json:"jobs_per_hour"`
}

// Distribution summarises a sample of durations.
type Distribution struct {
	Count  int     `json:"count"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
}

// Locality is the fraction of map launches by input reach.
type Locality struct {
	Node float64 `json:"node"`
	Rack float64 `json:"rack"`
	Off  float64 `json:"off"`
}

// Bytes moved, by cause and reach. Totals count bytes that crossed the
// network (a node-local read crosses none); cross-rack ones crossed a rack
// uplink.
type Bytes struct {
	ShuffleTotal       float64 `json:"shuffle_total"`
	ShuffleCrossRack   float64 `json:"shuffle_cross_rack"`
	RemoteMapTotal     float64 `json:"remote_map_total"`
	RemoteMapCrossRack float64 `json:"remote_map_cross_rack"`
	OutputTotal        float64 `json:"output_total"`
	OutputCrossRack    float64 `json:"output_cross_rack"`
	CrossRackTotal     float64 `json:"cross_rack_total"`
}

// CongestionDef records how congestion occurrences were counted.
type CongestionDef struct {
	Threshold float64 `json:"threshold"`
	PeriodS   float64 `json:"period_s"`
	Samples   int64   `json:"samples"`
}

// Decisions counts scheduling decisions by the rule that fired.
type Decisions struct {
	Total  int64       `json:"total"`
	ByRule []RuleCount `json:"by_rule"`
}

// RuleCount is one rule's count.
type RuleCount struct {
	Rule  string `json:"rule"`
	Count int64  `json:"count"`
}

// TimeBreakdown sums the completed jobs' turnarounds by part of their
// critical path (package critpath).
type TimeBreakdown struct {
	// Jobs counts the completed jobs summed.
	Jobs int `json:"jobs"`
	// SumS and MeanS are the parts' totals and means per job, by part
	// name.
	SumS  map[string]float64 `json:"sum_s"`
	MeanS map[string]float64 `json:"mean_s"`
	// HeldByS is held time by the rule that held each job longest.
	HeldByS map[string]float64 `json:"held_by_s"`
}

// Summarize derives the summary.
func (c *Collector) Summarize(policy string) Summary {
	s := Summary{Policy: policy, JobsSubmitted: len(c.jobs), TurnaroundByClass: map[string]Distribution{}}
	first, last := math.Inf(1), math.Inf(-1)
	lastSubmit := math.Inf(-1)
	var ta []float64
	byClass := map[workload.ShuffleClass][]float64{}
	var loc [3]int
	for i := range c.jobs {
		r := &c.jobs[i]
		first = math.Min(first, r.Submit)
		lastSubmit = math.Max(lastSubmit, r.Submit)
		for k := range loc {
			loc[k] += r.Locality[k]
		}
		if r.Finish < 0 {
			continue
		}
		s.JobsCompleted++
		last = math.Max(last, r.Finish)
		ta = append(ta, r.Turnaround())
		byClass[r.Class] = append(byClass[r.Class], r.Turnaround())
	}
	if s.JobsCompleted > 0 {
		s.MakespanS = last - first
		if s.MakespanS > 0 {
			s.ThroughputJobsPerHour = float64(s.JobsCompleted) / s.MakespanS * 3600
		}
	}
	s.Turnaround = Distribute(ta)
	var sd []float64
	for i := range c.jobs {
		if v := c.jobs[i].Slowdown; v >= 0 && c.jobs[i].Finish >= 0 {
			sd = append(sd, v)
		}
	}
	if len(sd) > 0 {
		d := Distribute(sd)
		s.Slowdown = &d
	}
	for cl, v := range byClass {
		s.TurnaroundByClass[cl.String()] = Distribute(v)
	}
	if n := loc[0] + loc[1] + loc[2]; n > 0 {
		s.Locality = Locality{float64(loc[0]) / float64(n), float64(loc[1]) / float64(n), float64(loc[2]) / float64(n)}
	}
	b := &s.Bytes
	b.ShuffleTotal = c.bytes[Shuffle][0] + c.bytes[Shuffle][1]
	b.ShuffleCrossRack = c.bytes[Shuffle][1]
	b.RemoteMapTotal = c.bytes[RemoteMap][0] + c.bytes[RemoteMap][1]
	b.RemoteMapCrossRack = c.bytes[RemoteMap][1]
	b.OutputTotal = c.bytes[Output][0] + c.bytes[Output][1]
	b.OutputCrossRack = c.bytes[Output][1]
	b.CrossRackTotal = b.ShuffleCrossRack + b.RemoteMapCrossRack + b.OutputCrossRack

	ws, we := c.opts.SteadyStartS, c.opts.SteadyEndS
	if ws == 0 && we == 0 && len(c.jobs) > 0 {
		ws, we = first, lastSubmit
	}
	s.SteadyState = SteadyState{StartS: ws, EndS: we}
	for i := range c.jobs {
		if f := c.jobs[i].Finish; f >= ws && f <= we && f >= 0 {
			s.SteadyState.JobsCompleted++
		}
	}
	if we > ws {
		s.SteadyState.JobsPerHour = float64(s.SteadyState.JobsCompleted) / (we - ws) * 3600
	}
	s.CongestionOccurrences = c.congested
	s.Congestion = CongestionDef{Threshold: c.opts.CongestionThreshold, PeriodS: c.opts.MonitorPeriodS, Samples: c.samples}
	s.Decisions.Total = c.decTotal
	rules := make([]string, 0, len(c.decisions))
	for r := range c.decisions {
		rules = append(rules, r)
	}
	slices.Sort(rules)
	for _, r := range rules {
		s.Decisions.ByRule = append(s.Decisions.ByRule, RuleCount{r, c.decisions[r]})
	}
	s.TasksKilled = c.kills
	s.WastedTaskS = c.wasted
	s.TasksFailed = c.failures
	s.FailedTaskS = c.failedS
	s.JobsFailed = c.jobsFail
	s.ReduceHoardingSlotS = c.hoard
	s.ReduceWaitS = c.waitS
	s.Definitions = Definitions()
	if c.faults != nil {
		f := *c.faults
		s.Faults = &f
		s.Definitions["faults"] = "node losses (docs/faults.md): nodes declared lost; attempts failed by a loss (on a lost node, or finding no live replica to read); finished maps run again because their output was lost; the task-seconds of both; jobs failed because a block lost every replica (they count in jobs_failed too)"
	}
	if c.disk != nil {
		d := *c.disk
		s.DiskBytes = &d
		s.Definitions["disk_bytes"] = "bytes that crossed nodes' disks and no network (docs/model.md, Costs beyond bandwidth): spill, written because a sort or shuffle buffer was full or a reduce's copy ended; merge, read and written by merge passes and read by final merges"
	}
	if c.timeOn {
		s.TimeBreakdown = c.timeBreakdown()
		s.Definitions["time_breakdown"] = "each completed job's turnaround split along its critical path into parts that add up to it (docs/time.md): sums and means per job by part; held_by_s gives each job's held time under the rule that held it longest"
	}
	if c.spec != nil {
		sp := *c.spec
		s.Speculation = &sp
		s.Definitions["speculation"] = "speculative backups (engine.speculative): backups launched; tasks whose backup finished first; attempts killed because their task's other attempt finished first, and the task-seconds they had run"
	}
	return s
}

// Definitions says in words how each summary number is computed; it is
// written into every summary so a reader never has to guess.
func Definitions() map[string]string {
	return map[string]string{
		"throughput_jobs_per_hour": "completed jobs / (last finish - first submit), per hour",
		"steady_state":             "jobs finishing inside [start_s, end_s] / window length, per hour; default window is first to last submit",
		"turnaround_s":             "finish - submit over completed jobs; median is the mean of the middle two, p95 the nearest-rank 95th percentile",
		"locality":                 "fraction of map launches whose input was on the node, in the rack, or off-rack",
		"bytes":                    "bytes carried by the network per cause; *_cross_rack crossed a rack uplink; node-local reads are not counted",
		"congestion_occurrences":   "monitor samples x uplink directions whose utilisation over the period was at or above the threshold",
		"slowdown":                 "turnaround / turnaround of the same job run alone on the same cluster, submitted at its own time (when metrics.slowdown is set)",
		"tasks_failed":             "task attempts that failed (workload.task_failure_rate); failed_task_s is the task-seconds they ran",
		"jobs_failed":              "jobs that failed: a task of theirs failed engine.max_attempts attempts; they count in no throughput or turnaround",
		"workload_fingerprint":     "a hash of the cluster's settings and every job's name, kind, submit time, tasks, sizes and profile: runs that share it ran the same jobs on the same cluster",
		"config":                   "the configuration the run used, every default filled in",
	}
}

// Distribute summarises a sample; it sorts v in place.
func Distribute(v []float64) Distribution {
	if len(v) == 0 {
		return Distribution{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	rank := int(math.Ceil(0.95*float64(n))) - 1
	return Distribution{Count: n, Mean: sum / float64(n), Median: med, P95: v[max(rank, 0)], Max: v[n-1]}
}

// timeBreakdown sums the completed jobs' breakdowns.
func (c *Collector) timeBreakdown() *TimeBreakdown {
	var sum [critpath.NumParts]float64
	t := &TimeBreakdown{SumS: map[string]float64{}, MeanS: map[string]float64{}, HeldByS: map[string]float64{}}
	for i := range c.jobs {
		b := c.jobs[i].Time
		if b == nil {
			continue
		}
		t.Jobs++
		for p, v := range b.Parts {
			sum[p] += v
		}
		if b.HeldBy != "" {
			t.HeldByS[b.HeldBy] += b.Parts[critpath.Held]
		}
	}
	for p := range critpath.NumParts {
		t.SumS[p.String()] = sum[p]
		if t.Jobs > 0 {
			t.MeanS[p.String()] = sum[p] / float64(t.Jobs)
		}
	}
	return t
}
