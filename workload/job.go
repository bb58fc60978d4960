package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Job is one MapReduce job as submitted. Bytes are totals over the job; how
// they split over tasks is given by MapInputBytes, MapOutputBytes and the
// Reduce* helpers, so every consumer splits them the same way.
type Job struct {
	ID           int     // dense, 0..n-1 in submit order
	Name         string  // e.g. "job12" from the trace, or "terasort-7"
	Kind         string  // benchmark name ("terasort", ...) or "swim"
	User         int     // 0..Users-1
	Pool         string  // pool name; default fmt.Sprintf("user%d", User)
	Submit       float64 // seconds
	InputBytes   int64
	ShuffleBytes int64 // total map output
	OutputBytes  int64
	NumMaps      int // = ceil(InputBytes / BlockBytes), at least 1
	NumReduces   int // >= 1
	Profile      Profile
	Weight       float64 // fair-share weight, default 1
	// Demand is the number of map slots the job expects to occupy, the TD
	// scheduler's j.demand (TD paper, section III-A: "the slot number that
	// j expects to occupy", reflecting "both the size and expected
	// completion time" of the job), a user setting. 0 means unset: the
	// `td` policy then takes min(NumMaps, ceil(demand_share x map slots)),
	// demand_share 0.35 by default (sched.TDParams). Other policies
	// ignore it. Loaders and generators leave it 0; a scenario sets it
	// with workload.demand (scenario.DemandSpec).
	Demand int
	// DataSet is the path of the data set the job reads, when its source
	// names one (the input_path column of SWIM's traces with input
	// paths): jobs with one DataSet read one file, each its first
	// NumMaps blocks (cluster.Input). Empty: the job reads a file of its
	// own.
	DataSet string
	// Placement says who wrote the job's input, which decides where HDFS
	// put the first replica of each block.
	Placement Placement

	// UserName and Queue are the user and queue a trace records for the
	// job (Rumen, JobHistory, SLS); empty for sources that name none. An
	// allocation file places the job in a pool by them.
	UserName, Queue string
	// Measured is what a trace recorded of the job, task by task; nil for
	// other sources. A pointer, so that a Job stays comparable.
	Measured *Measured
}

// Owner is the user the job runs as: the name its trace records, else
// the user its source drew it for (user0, user1, ...).
func (j *Job) Owner() string {
	if j.UserName != "" {
		return j.UserName
	}
	return "user" + strconv.Itoa(j.User)
}

// Measured is what a trace recorded of a job's tasks and run: where its
// maps' input is and how large, and how long things took, for task times
// from the trace and for replay fidelity.
type Measured struct {
	// MapInputs, when set, is each map's input in bytes as the trace
	// records it (NumMaps of them, adding up to InputBytes); nil cuts the
	// input into blocks (MapInputBytes).
	MapInputs []int64
	// MapHosts, when set, names for each map the hosts that hold its input
	// (the trace's preferred locations): its block's replicas are put on
	// those of them the cluster has.
	MapHosts [][]string
	// DurationS is the job's run time, submit to finish, in seconds; -1
	// when the trace does not record both.
	DurationS float64
	// Succeeded says the job's outcome was success.
	Succeeded bool
	// MapS and ReduceS are each task's successful attempt's run time in
	// seconds, -1 for a task without one or without times.
	MapS, ReduceS []float64
	// ReduceFnS is each reduce's successful attempt's time from the end
	// of its sort to its finish (its reduce function and output write),
	// -1 when the trace does not record the sort's end.
	ReduceFnS []float64
	// MapHost is the host each map's successful attempt ran on ("" when
	// unknown).
	MapHost []string
	// Conf is the job's configuration properties the trace recorded that
	// placing it in a pool reads (Hadoop 1's pool properties); nil when
	// it recorded none.
	Conf map[string]string
}

// Placement is where a job's input was written from.
type Placement uint8

// The placements.
const (
	// PlaceOutside: the input came from outside the cluster, so HDFS put
	// each block's first replica on a random node. The default.
	PlaceOutside Placement = iota
	// PlaceWriter: a node of the cluster wrote the input (one node a data
	// set, drawn from the seed), and HDFS put every block's first replica
	// on it, as it does for a writer that runs a datanode.
	PlaceWriter
	numPlacements
)

// String is the placement's name in a scenario: "outside" or "writer".
func (p Placement) String() string {
	switch p {
	case PlaceOutside:
		return "outside"
	case PlaceWriter:
		return "writer"
	}
	return fmt.Sprintf("Placement(%d)", uint8(p))
}

// PlacementNames lists the placements' names, the default first.
func PlacementNames() []string {
	names := make([]string, numPlacements)
	for p := range numPlacements {
		names[p] = p.String()
	}
	return names
}

// ParsePlacement reads a placement's name; "" is the default.
func ParsePlacement(s string) (Placement, error) {
	if s == "" {
		return PlaceOutside, nil
	}
	for p := range numPlacements {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%q; want one of %s", s, strings.Join(PlacementNames(), ", "))
}

// KindSWIM is the Kind of jobs loaded from a SWIM trace.
const KindSWIM = "swim"

// DefaultWeight is the fair-share weight every loader and generator gives a job:
// the Fair Scheduler's default pool and job weight is 1.
const DefaultWeight = 1.0

// PoolOf is the default pool name of a user's jobs ("user3"): one pool per
// user, which is how the Fair Scheduler paper and ShuffleWatcher share a
// cluster between users.
func PoolOf(user int) string { return fmt.Sprintf("user%d", user) }

// Profile is how a job's tasks use CPU; ratios are derived from bytes. A task's
// CPU time is its bytes times the cost per byte, so the inverse of a cost is the
// task's processing rate: the rate cap the engine puts on a map's input read.
type Profile struct {
	MapSecPerByte    float64 // CPU seconds per input byte of a map (the map's processing rate is 1/this)
	ReduceSecPerByte float64 // CPU seconds per shuffle byte of a reduce

	// Per-task resource demands, read by resource-aware policies (DRF).
	// Zero means the default: DefaultTaskCPU cores and DefaultTaskMemGB.
	MapCPU, MapMemGB       float64
	ReduceCPU, ReduceMemGB float64
}

// Default per-task demands: Hadoop 2's defaults, mapreduce.{map,reduce}.cpu.vcores
// = 1 and mapreduce.{map,reduce}.memory.mb = 1024.
const (
	DefaultTaskCPU   = 1.0
	DefaultTaskMemGB = 1.0
)

// TaskDemand is the CPU cores and memory (GB) a map (isMap) or reduce task
// of this profile holds while it runs.
func (p Profile) TaskDemand(isMap bool) (cpu, memGB float64) {
	cpu, memGB = p.ReduceCPU, p.ReduceMemGB
	if isMap {
		cpu, memGB = p.MapCPU, p.MapMemGB
	}
	if cpu <= 0 {
		cpu = DefaultTaskCPU
	}
	if memGB <= 0 {
		memGB = DefaultTaskMemGB
	}
	return cpu, memGB
}

// DefaultMapBytesPerSec is the map processing rate given to jobs whose source
// states no CPU cost (SWIM traces): 8 MiB/s per task, so a 128 MiB block takes
// 16 s and a 64 MiB block 8 s. The Fair Scheduler paper (section 3.2) reports
// maps are "typically short (15-30s for maps and a few minutes for reduces)";
// 16 s on a 128 MiB block, the block size of the NAS set-up the FB-2010 trace is
// replayed on, sits at the short end of that range.
const DefaultMapBytesPerSec = 8 << 20

// DefaultReduceBytesPerSec is the reduce processing rate (per shuffle byte) for
// jobs whose source states no CPU cost: 8 MiB/s, the same as the map rate, so a
// reduce's compute phase is as long as a map over the same bytes. The trace gives
// no reduce CPU time; this is an estimate, and a reduce of a large job still
// takes minutes (its copy phase is on the network), as the same section reports.
const DefaultReduceBytesPerSec = 8 << 20

// DefaultProfile is the CPU profile of jobs whose source states none: maps at
// DefaultMapBytesPerSec, reduces at DefaultReduceBytesPerSec.
func DefaultProfile() Profile {
	return Profile{
		MapSecPerByte:    1.0 / DefaultMapBytesPerSec,
		ReduceSecPerByte: 1.0 / DefaultReduceBytesPerSec,
	}
}

// IsZero reports whether p is the zero Profile, which option structs read as
// "use DefaultProfile".
func (p Profile) IsZero() bool { return p == Profile{} }

// Validate reports an error unless both costs are positive and finite: a zero
// cost would mean an infinitely fast task, which no engine can time.
func (p Profile) Validate() error {
	if !(p.MapSecPerByte > 0) || math.IsInf(p.MapSecPerByte, 0) {
		return fmt.Errorf("profile MapSecPerByte %v must be positive and finite", p.MapSecPerByte)
	}
	if !(p.ReduceSecPerByte > 0) || math.IsInf(p.ReduceSecPerByte, 0) {
		return fmt.Errorf("profile ReduceSecPerByte %v must be positive and finite", p.ReduceSecPerByte)
	}
	return nil
}

// ShuffleRatio is ShuffleBytes / InputBytes, ShuffleWatcher's ShuffleInputRatio
// (section 3.1: above 1.0 is shuffle-heavy). A job with no input has ratio 0
// if it shuffles nothing and +Inf if it does (9 such jobs are in FB-2010): the
// honest value, which still classes it as shuffle-heavy. Do not multiply it by
// an input size to get volumes; use MapOutputBytes, which handles zero input.
func (j *Job) ShuffleRatio() float64 { return ratio(j.ShuffleBytes, j.InputBytes) }

// OutputRatio is OutputBytes / ShuffleBytes: 0 when both are 0, +Inf when a job
// writes output without shuffling (a third of FB-2010's jobs record zero
// shuffle bytes yet some reduce output). For volumes use ReduceOutputBytes.
func (j *Job) OutputRatio() float64 { return ratio(j.OutputBytes, j.ShuffleBytes) }

func ratio(num, den int64) float64 {
	if den == 0 {
		if num == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return float64(num) / float64(den)
}

// MapInputBytes is the input of map i: Measured.MapInputs[i] when the
// job has them (a trace's), else as follows. It is the input of map i when the
// job's input is cut into blocks
// of blockBytes: a whole block for every map but the last, which gets the
// remainder. A job with no input has one map reading 0 bytes. An index outside
// 0..MapCount(InputBytes, blockBytes)-1, or blockBytes <= 0, gives 0.
func (j *Job) MapInputBytes(i int, blockBytes int64) int64 {
	if j.Measured != nil && j.Measured.MapInputs != nil {
		in := j.Measured.MapInputs
		if i < 0 || i >= len(in) {
			return 0
		}
		return in[i]
	}
	if blockBytes <= 0 || i < 0 || j.InputBytes <= 0 {
		return 0
	}
	n := MapCount(j.InputBytes, blockBytes)
	switch {
	case i < n-1:
		return blockBytes
	case i == n-1:
		return j.InputBytes - int64(n-1)*blockBytes
	}
	return 0
}

// MapOutputBytes is map i's share of the job's shuffle: ShuffleBytes in
// proportion to the map's input (ShuffleBytes * input_i / InputBytes), or an
// equal share of NumMaps when the job has no input. Shares over all maps add up
// to ShuffleBytes (up to float rounding). Out-of-range i gives 0.
func (j *Job) MapOutputBytes(i int, blockBytes int64) float64 {
	if j.InputBytes <= 0 {
		if i < 0 || i >= j.NumMaps || j.NumMaps <= 0 {
			return 0
		}
		return float64(j.ShuffleBytes) / float64(j.NumMaps)
	}
	in := j.MapInputBytes(i, blockBytes)
	return float64(j.ShuffleBytes) * (float64(in) / float64(j.InputBytes))
}

// ReduceShuffleBytes is the shuffle input of one reduce: ShuffleBytes split
// equally over NumReduces (keys are assumed evenly partitioned, as SWIM's
// WorkGen does with random keys). Out-of-range r gives 0.
func (j *Job) ReduceShuffleBytes(r int) float64 {
	if r < 0 || r >= j.NumReduces {
		return 0
	}
	return float64(j.ShuffleBytes) / float64(j.NumReduces)
}

// ReduceOutputBytes is the output one reduce writes: OutputBytes split equally
// over NumReduces. It is defined even when the job shuffles nothing, where
// OutputRatio is +Inf. Out-of-range r gives 0.
func (j *Job) ReduceOutputBytes(r int) float64 {
	if r < 0 || r >= j.NumReduces {
		return 0
	}
	return float64(j.OutputBytes) / float64(j.NumReduces)
}

// Class is the job's ShuffleClass by its shuffle bytes (ClassOf).
func (j *Job) Class() ShuffleClass { return ClassOf(j.ShuffleBytes) }

// Validate checks one job's own invariants: non-negative bytes, finite
// non-negative submit time, at least one map and one reduce, a valid profile and
// a positive weight. Hand-built jobs (tests, other generators) should pass it.
func (j *Job) Validate() error {
	switch {
	case j.ID < 0:
		return fmt.Errorf("job %d: negative ID", j.ID)
	case j.User < 0:
		return fmt.Errorf("job %d: negative user %d", j.ID, j.User)
	case j.Pool == "":
		return fmt.Errorf("job %d: empty pool", j.ID)
	case !(j.Submit >= 0) || math.IsInf(j.Submit, 0):
		return fmt.Errorf("job %d: submit time %v must be finite and non-negative", j.ID, j.Submit)
	case j.InputBytes < 0 || j.ShuffleBytes < 0 || j.OutputBytes < 0:
		return fmt.Errorf("job %d: negative bytes (input %d, shuffle %d, output %d)", j.ID, j.InputBytes, j.ShuffleBytes, j.OutputBytes)
	case j.NumMaps < 1:
		return fmt.Errorf("job %d: %d maps, need at least 1", j.ID, j.NumMaps)
	case j.NumReduces < 1:
		return fmt.Errorf("job %d: %d reduces, need at least 1", j.ID, j.NumReduces)
	case !(j.Weight > 0) || math.IsInf(j.Weight, 0):
		return fmt.Errorf("job %d: weight %v must be positive and finite", j.ID, j.Weight)
	case j.Demand < 0:
		return fmt.Errorf("job %d: demand %d must not be negative (0 lets the policy choose)", j.ID, j.Demand)
	case j.Placement >= numPlacements:
		return fmt.Errorf("job %d: unknown input placement %v", j.ID, j.Placement)
	}
	if err := j.Profile.Validate(); err != nil {
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if m := j.Measured; m != nil && m.MapInputs != nil {
		if len(m.MapInputs) != j.NumMaps {
			return fmt.Errorf("job %d: %d map inputs for %d maps", j.ID, len(m.MapInputs), j.NumMaps)
		}
		var sum int64
		for _, b := range m.MapInputs {
			if b < 0 {
				return fmt.Errorf("job %d: a map input of %d bytes", j.ID, b)
			}
			sum += b
		}
		if sum != j.InputBytes {
			return fmt.Errorf("job %d: map inputs add up to %d bytes, the job's input is %d", j.ID, sum, j.InputBytes)
		}
	}
	if m := j.Measured; m != nil && m.MapHosts != nil && len(m.MapHosts) != j.NumMaps {
		return fmt.Errorf("job %d: hosts for %d maps, the job has %d", j.ID, len(m.MapHosts), j.NumMaps)
	}
	return nil
}

// Validate checks a whole workload: every job valid, IDs dense 0..n-1 in slice
// order, submit times non-decreasing, and at least one job. It is what the
// engine may call before it runs a workload from any source.
func Validate(jobs []Job) error {
	if len(jobs) == 0 {
		return ErrNoJobs
	}
	for i := range jobs {
		j := &jobs[i]
		if j.ID != i {
			return fmt.Errorf("job at index %d has ID %d; IDs must be dense in submit order", i, j.ID)
		}
		if err := j.Validate(); err != nil {
			return err
		}
		if i > 0 && j.Submit < jobs[i-1].Submit {
			return fmt.Errorf("job %d submits at %v s, before job %d at %v s; jobs must be in submit order", i, j.Submit, i-1, jobs[i-1].Submit)
		}
	}
	return nil
}

// ErrNoJobs is returned (wrapped) when a trace, a window of it, or a generator
// yields no job: an empty workload is a mistake, not a result.
var ErrNoJobs = errors.New("no jobs")
