// Package hadooptrace reads the job traces Hadoop and YARN clusters keep:
// Rumen JSON (TraceBuilder's output, read by Mumak, Gridmix and YARN's
// SLS), job histories (MapReduce 2's .jhist, in JSON or binary, and Hadoop
// 1's, one file or a directory of them, with the job configuration kept
// beside each) and SLS jobs JSON, gzip-compressed or not. Each reader
// streams its input, reads keys in any order, ignores keys it does not
// use and takes Rumen's -1 as unknown; each gives the same record, a Job,
// which Convert turns into the simulator's workload.Job.
//
// docs/inputs.md says what is taken from each format, what is modelled
// instead, and the rules for duplicate jobs, failed jobs and tasks without
// a successful attempt.
package hadooptrace

import (
	"bytes"
	"fmt"
	"strings"
)

// Unknown is what a count, size or time reads as when the trace does not
// record it: Rumen's own -1.
const Unknown = -1

// Format names a trace format.
type Format string

// The job trace formats.
const (
	FormatSWIM  Format = "swim"
	FormatRumen Format = "rumen"
	FormatJhist Format = "jhist"
	FormatSLS   Format = "sls"
)

// Formats lists the job trace formats' names, for errors and docs.
func Formats() []string {
	return []string{string(FormatSWIM), string(FormatRumen), string(FormatJhist), string(FormatSLS)}
}

// ParseFormat reads a format's name; "" means "sniff the content".
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "", FormatSWIM, FormatRumen, FormatJhist, FormatSLS:
		return f, nil
	}
	return "", fmt.Errorf("%q; want one of %s", s, strings.Join(Formats(), ", "))
}

// Result is how a task attempt ended.
type Result uint8

// The attempt results. Rumen writes SUCCESS, FAILED and KILLED; JobHistory
// SUCCEEDED, FAILED and KILLED (also as MAP_ATTEMPT_FAILED and the like).
const (
	Succeeded Result = iota
	Failed
	Killed
	Unfinished // no result recorded (an attempt the job's end cut off)
)

func (r Result) String() string {
	switch r {
	case Succeeded:
		return "succeeded"
	case Failed:
		return "failed"
	case Killed:
		return "killed"
	}
	return "unfinished"
}

func parseResult(s string) (Result, bool) {
	switch strings.ToUpper(s) {
	case "SUCCESS", "SUCCEEDED":
		return Succeeded, true
	case "FAILED":
		return Failed, true
	case "KILLED":
		return Killed, true
	case "":
		return Unfinished, true
	}
	return Unfinished, false
}

// Location is a host and its rack, as a trace names them. Rack is
// written with its leading slash ("/default-rack"), as Hadoop's
// NetworkTopology names racks; Rumen writes host names as "/rack/host".
type Location struct {
	Rack, Host string
}

// Attempt is one attempt of a task.
type Attempt struct {
	Result Result
	Loc    Location
	// Start and Finish are milliseconds since the epoch; Unknown when not
	// recorded.
	Start, Finish int64
	// SortFinish is when a reduce attempt's shuffle and merge ended and
	// its reduce function began (Rumen's sortFinished, JobHistory's
	// sortFinishTime); Unknown when not recorded.
	SortFinish int64
	// HDFSRead, HDFSWritten and ShuffleBytes are the attempt's counters
	// (HDFS_BYTES_READ, HDFS_BYTES_WRITTEN, REDUCE_SHUFFLE_BYTES);
	// Unknown when not recorded.
	HDFSRead, HDFSWritten, ShuffleBytes int64
}

// unrecordedAttempt is an attempt that ended with result and records
// nothing else yet: every time and counter Unknown until its reader finds
// them, as every format leaves any of them out.
func unrecordedAttempt(result Result) Attempt {
	return Attempt{Result: result, Start: Unknown, Finish: Unknown, SortFinish: Unknown,
		HDFSRead: Unknown, HDFSWritten: Unknown, ShuffleBytes: Unknown}
}

// Duration is the attempt's measured run time in seconds, and whether it
// is known.
func (a Attempt) Duration() (float64, bool) {
	if a.Start < 0 || a.Finish < a.Start {
		return 0, false
	}
	return float64(a.Finish-a.Start) / 1000, true
}

// ReduceS is a reduce attempt's reduce-function time, finish less
// sort finish, in seconds, and whether it is known.
func (a Attempt) ReduceS() (float64, bool) {
	if a.SortFinish < 0 || a.Finish < a.SortFinish {
		return 0, false
	}
	return float64(a.Finish-a.SortFinish) / 1000, true
}

// Task is one map or reduce of a job.
type Task struct {
	// Input is a map's input bytes (Rumen's task inputBytes, which its
	// TraceBuilder takes from HDFS_BYTES_READ); Unknown when not recorded.
	Input int64
	// Preferred are the hosts holding the map's input split, as the trace
	// lists them (Rumen's preferredLocations, JobHistory's splitLocations).
	Preferred []Location
	Attempts  []Attempt
}

// Success is the task's successful attempt, the last one should a trace
// record more than one, and whether it has one.
func (t *Task) Success() (Attempt, bool) {
	for i := len(t.Attempts) - 1; i >= 0; i-- {
		if t.Attempts[i].Result == Succeeded {
			return t.Attempts[i], true
		}
	}
	return Attempt{}, false
}

// ShuffleBytes is a reduce's shuffle input: its successful attempt's
// REDUCE_SHUFFLE_BYTES, 0 when it has none or the counter is unknown.
func (t *Task) ShuffleBytes() int64 {
	a, ok := t.Success()
	if !ok || a.ShuffleBytes < 0 {
		return 0
	}
	return a.ShuffleBytes
}

// OutputBytes is what the task wrote to HDFS: its successful attempt's
// HDFS_BYTES_WRITTEN, 0 when it has none or the counter is unknown.
func (t *Task) OutputBytes() int64 {
	a, ok := t.Success()
	if !ok || a.HDFSWritten < 0 {
		return 0
	}
	return a.HDFSWritten
}

// InputBytes is a map's input, 0 when unknown.
func (t *Task) InputBytes() int64 { return max(t.Input, 0) }

// Job is one traced job, as its trace records it.
type Job struct {
	ID, Name, User, Queue string
	// Outcome is SUCCESS, FAILED or KILLED as the trace writes it (Rumen's
	// outcome, JobHistory's JOB_FINISHED, JOB_FAILED or JOB_KILLED); "" when
	// not recorded.
	Outcome string
	// Submit, Launch and Finish are milliseconds since the epoch (SLS:
	// since the trace's start); Unknown when not recorded.
	Submit, Launch, Finish int64
	Maps, Reduces          []Task
	// Other counts the job's setup and cleanup tasks, which are not maps:
	// Rumen keeps them in otherTasks.
	Other int
	// MapMB and ReduceMB are a task's memory (Rumen's jobMapMB and
	// jobReduceMB, SLS's container.memory); Unknown when not recorded.
	MapMB, ReduceMB int64
	// Conf holds the job configuration properties a reader was asked to
	// keep (ScanPathKeeping), their ${var} references expanded: empty when
	// the trace records the job's configuration without them, nil when it
	// records none (or none was asked for).
	Conf map[string]string
	// Configured says the trace recorded the job's configuration: the
	// <job id>_conf.xml beside its history, or Rumen's jobProperties.
	Configured bool
	// BytesModelled says the trace records no bytes (SLS) and the job's
	// bytes come from the byte model (SLSByteModel).
	BytesModelled bool
	// File and Line are where the job's record starts, for errors and
	// for the rule on duplicate ids.
	File string
	Line int
}

// unrecordedJob is the job whose record starts at file's line, with
// nothing read from it yet: its times and task memory Unknown until its
// reader finds them.
func unrecordedJob(file string, line int) *Job {
	return &Job{File: file, Line: line, Submit: Unknown, Launch: Unknown, Finish: Unknown, MapMB: Unknown, ReduceMB: Unknown}
}

// Where names the job in errors: "job_1 (rumen.json:12)".
func (j *Job) Where() string {
	id := j.ID
	if id == "" {
		id = "a job"
	}
	return fmt.Sprintf("%s (%s:%d)", id, j.File, j.Line)
}

// InputBytes is the job's input: the sum of its maps' input bytes.
func (j *Job) InputBytes() int64 {
	var s int64
	for i := range j.Maps {
		s += j.Maps[i].InputBytes()
	}
	return s
}

// ShuffleBytes is the job's shuffle: the sum of its reduces' shuffle
// bytes. Map output bytes are not used: a combiner or compression makes
// them differ from what reduces fetch, and the model's shuffle is what
// crosses the network.
func (j *Job) ShuffleBytes() int64 {
	var s int64
	for i := range j.Reduces {
		s += j.Reduces[i].ShuffleBytes()
	}
	return s
}

// OutputBytes is what the job wrote to HDFS: the sum of its reduces'
// HDFS_BYTES_WRITTEN, or of its maps' for a map-only job, whose maps write
// the output.
func (j *Job) OutputBytes() int64 {
	tasks := j.Reduces
	if len(tasks) == 0 {
		tasks = j.Maps
	}
	var s int64
	for i := range tasks {
		s += tasks[i].OutputBytes()
	}
	return s
}

// Succeeded reports whether the job's recorded outcome is success, or
// unrecorded while every task has a successful attempt.
func (j *Job) Succeeded() bool {
	switch strings.ToUpper(j.Outcome) {
	case "SUCCESS", "SUCCEEDED":
		return true
	case "":
		for _, ts := range [][]Task{j.Maps, j.Reduces} {
			for i := range ts {
				if _, ok := ts[i].Success(); !ok {
					return false
				}
			}
		}
		return true
	}
	return false
}

// DurationS is the job's traced run time, finish less submit, in
// seconds, and whether both are known.
func (j *Job) DurationS() (float64, bool) {
	if j.Submit < 0 || j.Finish < j.Submit {
		return 0, false
	}
	return float64(j.Finish-j.Submit) / 1000, true
}

// ParseError is a malformed or unusable record: the file, its line, the
// job and task it belongs to when known, the field, and why.
type ParseError struct {
	File string
	Line int
	// Event and Offset place an error in a binary file, which has no
	// lines: the event's number, from 1, and the byte it starts at after
	// the header's two lines.
	Event  int
	Offset int64
	Job    string // the job's id, when read before the error
	Task   string // the task's or attempt's id, when read before the error
	Field  string
	Err    error
}

// Error reads `trace.json:17: job job_1, task task_1_m_000002: field
// "inputBytes": want a whole number, got a string`.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Event > 0 {
		fmt.Fprintf(&b, "event %d (byte %d after the header), ", e.Event, e.Offset)
	}
	if e.Job != "" {
		fmt.Fprintf(&b, "job %s, ", e.Job)
	}
	if e.Task != "" {
		fmt.Fprintf(&b, "%s, ", e.Task)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap gives the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// interner keeps one copy of each host and rack name, which a trace
// repeats on every attempt.
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// splitHost splits a Rumen host name "/rack/host" (or "/a/b/host") into
// its rack ("/rack") and host; a name without a slash is a host on no
// known rack (""). Names are interned, so a trace's many attempts on one
// host share one string.
func splitHost(in interner, name []byte) Location {
	i := bytes.LastIndexByte(name, '/')
	if i < 0 {
		return Location{Host: in.get(name)}
	}
	rack := bytes.TrimRight(name[:i], "/")
	return Location{Rack: in.rack(rack), Host: in.get(name[i+1:])}
}

// rack interns a rack name with its leading slash.
func (in interner) rack(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if b[0] == '/' {
		return in.get(b)
	}
	var buf [128]byte
	return in.get(append(append(buf[:0], '/'), b...))
}
