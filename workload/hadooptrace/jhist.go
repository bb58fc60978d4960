package hadooptrace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/internal/avro"
	"github.com/mrsched/mrsched/internal/gzfile"
	"github.com/mrsched/mrsched/internal/jsonstream"
)

// JhistMagic is the first line of a MapReduce 2 JobHistory file written
// in Avro's JSON encoding (mapreduce.jobhistory.jhist.format=json, the
// default before Hadoop 3): the line Avro's DataFileWriter does not write
// but JobHistoryEventHandler's EventWriter does, followed by the schema
// on line 2 and one event a line.
const JhistMagic = "Avro-Json"

// JhistBinaryMagic is the first line of a JobHistory file in Avro's
// binary encoding (mapreduce.jobhistory.jhist.format=binary, Hadoop 3's
// default): the schema follows on line 2, then the events, binary-encoded
// one after another with nothing between them (EventWriter).
const JhistBinaryMagic = "Avro-Binary"

// jhEvent holds the fields of any JobHistory event the reader uses; the
// event's type says which are meaningful. Reading every event into one
// shape lets "type" come after "event" in the object.
type jhEvent struct {
	typ                                string
	jobID, jobName, user, queue        string
	submit, launch, finish, start      int64
	sortFinish                         int64
	taskID, taskType, attemptID        string
	status, host, rack, tracker        string
	splitLocations                     string
	hdfsRead, hdfsWritten, shuffleRead int64
}

// splitLocation is a split location's rack and host. YARN's MapReduce
// writes a split's hosts by name (MapTaskImpl.getSplitsAsString), so a
// plain name is a host of no known rack; Hadoop 1's JobTracker writes
// each as its network path, /rack/host (TaskInProgress.getSplitNodes,
// NodeBase's path), the form Rumen's ParsedHost reads, so a name with a
// leading slash is a path whose last part is the host.
func splitLocation(s string) (rack, host string) {
	if i := strings.LastIndexByte(s, '/'); strings.HasPrefix(s, "/") && i > 0 && i < len(s)-1 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// ScanJhist reads one job history file, one job, and calls fn with it: a
// MapReduce 2 .jhist in Avro's JSON or binary encoding, or a Hadoop 1
// history, whose records read as the same events (mr1Events). Events used: JOB_SUBMITTED (jobid, jobName, userName,
// submitTime, jobQueueName), JOB_QUEUE_CHANGED, JOB_INITED and
// JOB_INFO_CHANGED (launchTime, submitTime), JOB_FINISHED, JOB_FAILED,
// JOB_KILLED (finishTime, the outcome), TASK_STARTED (taskid, taskType,
// splitLocations), TASK_FINISHED (counters: a map's input is its
// HDFS_BYTES_READ, as Rumen's TraceBuilder takes it), the
// MAP_/REDUCE_ATTEMPT_STARTED events (startTime, trackerName) and the
// ATTEMPT_FINISHED, _FAILED and _KILLED events (finishTime, hostname,
// rackname, counters HDFS_BYTES_READ, HDFS_BYTES_WRITTEN and
// REDUCE_SHUFFLE_BYTES). Setup and cleanup attempts count as the job's
// other tasks. Other events are skipped.
func ScanJhist(r io.Reader, file string, fn func(*Job) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return &ParseError{File: file, Line: 1, Err: err}
	}
	var events jhEvents
	switch strings.TrimRight(magic, "\r\n") {
	case JhistMagic:
		events, err = jsonEvents(br, file)
	case JhistBinaryMagic:
		events, err = binaryEvents(br, file)
	case MR1HistoryMagic:
		events, err = mr1Events(br, file)
	default:
		return &ParseError{File: file, Line: 1, Err: fmt.Errorf("first line %q; want %q or %q (a MapReduce 2 JobHistory file) or %q (a Hadoop 1 job history)", trimForError(magic), JhistMagic, JhistBinaryMagic, MR1HistoryMagic)}
	}
	if err != nil {
		return err
	}
	b := newJhistBuilder(file)
	for {
		e, at, more, err := events()
		if err != nil {
			if at.Job == "" {
				at.Job = b.j.ID
			}
			at.Err = err
			return wrapAt(at)
		}
		if !more {
			break
		}
		if err := b.add(e, at); err != nil {
			return err
		}
	}
	j, err := b.job()
	if err != nil {
		return err
	}
	return fn(j)
}

// jhEvents yields a history's events in turn, each with where it is in
// the file (a line, or an event's number in a binary file), more false
// after the last.
type jhEvents func() (e jhEvent, at ParseError, more bool, err error)

// jsonEvents reads the events of a history in Avro's JSON encoding, one a
// line after the schema on line 2.
func jsonEvents(br *bufio.Reader, file string) (jhEvents, error) {
	d := jsonstream.NewReader(br)
	d.SetLine(2)
	// Line 2, the schema: checked as JSON and skipped.
	if err := d.Skip(); err != nil {
		return nil, wrapLine(err, file, 2, "", "schema")
	}
	return func() (jhEvent, ParseError, bool, error) {
		at := ParseError{File: file}
		more, err := d.More()
		if err != nil || !more {
			return jhEvent{}, at, false, err
		}
		at.Line = d.Line()
		e, err := readJhEvent(d)
		return e, at, err == nil, err
	}, nil
}

// binaryEvents reads the events of a history in Avro's binary encoding,
// decoded by the schema on line 2, the writer's own: Hadoop's Event
// record, {type: EventType, event: a union of the event records}.
func binaryEvents(br *bufio.Reader, file string) (jhEvents, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = errors.New("longer than the reader takes; a schema is a few kilobytes")
		}
		return nil, &ParseError{File: file, Line: 2, Field: "schema", Err: err}
	}
	schema, err := avro.Parse(line)
	if err != nil {
		return nil, &ParseError{File: file, Line: 2, Field: "schema", Err: err}
	}
	d := avro.NewDecoder(br)
	n := 0
	return func() (jhEvent, ParseError, bool, error) {
		n++
		at := ParseError{File: file, Event: n, Offset: d.Offset()}
		more, err := d.More()
		if err != nil || !more {
			return jhEvent{}, at, false, err
		}
		v, err := d.Decode(schema)
		if err != nil {
			return jhEvent{}, at, false, err
		}
		e, err := decodedJhEvent(v)
		return e, at, err == nil, err
	}, nil
}

// jhistBuilder makes a job of a history's events, in either encoding.
type jhistBuilder struct {
	file  string
	j     *Job
	tasks map[string]*jhTask
	order []string
	in    interner
}

// jhTask is a task as its events build it.
type jhTask struct {
	kind     string // "map", "reduce", "other"
	task     Task
	attempts map[string]int // attempt id -> index in task.Attempts
}

func newJhistBuilder(file string) *jhistBuilder {
	return &jhistBuilder{file: file, j: unrecordedJob(file, 1), tasks: map[string]*jhTask{}, in: interner{}}
}

func (b *jhistBuilder) taskOf(id, typ string) *jhTask {
	ts := b.tasks[id]
	if ts == nil {
		ts = &jhTask{kind: taskKind(id, typ), task: Task{Input: Unknown}, attempts: map[string]int{}}
		b.tasks[id] = ts
		b.order = append(b.order, id)
	}
	return ts
}

// add takes event e, found at at.
func (b *jhistBuilder) add(e jhEvent, at ParseError) error {
	j, in := b.j, b.in
	bad := func(field, format string, args ...any) error {
		at.Job, at.Task, at.Field, at.Err = j.ID, e.taskID, field, fmt.Errorf(format, args...)
		return wrapAt(at)
	}
	switch e.typ {
	case "JOB_SUBMITTED":
		j.ID, j.Name, j.User, j.Queue, j.Submit = e.jobID, e.jobName, e.user, e.queue, e.submit
	case "JOB_QUEUE_CHANGED":
		if e.queue != "" {
			j.Queue = e.queue
		}
	case "JOB_INITED", "JOB_INFO_CHANGED":
		if e.launch >= 0 {
			j.Launch = e.launch
		}
		if e.submit >= 0 {
			j.Submit = e.submit
		}
	case "JOB_FINISHED":
		j.Finish, j.Outcome = e.finish, "SUCCESS"
	case "JOB_FAILED", "JOB_KILLED", "JOB_ERROR":
		j.Finish, j.Outcome = e.finish, strings.TrimPrefix(e.typ, "JOB_")
	case "TASK_STARTED":
		if e.taskID == "" {
			return bad("taskid", "missing")
		}
		ts := b.taskOf(e.taskID, e.taskType)
		for h := range strings.SplitSeq(e.splitLocations, ",") {
			if h = strings.TrimSpace(h); h != "" {
				rack, host := splitLocation(h)
				ts.task.Preferred = append(ts.task.Preferred, Location{Rack: in.get([]byte(rack)), Host: in.get([]byte(host))})
			}
		}
	case "TASK_FINISHED":
		if e.taskID == "" {
			return bad("taskid", "missing")
		}
		if ts := b.taskOf(e.taskID, e.taskType); e.hdfsRead >= 0 {
			ts.task.Input = e.hdfsRead
		}
	default:
		kind, phase, ok := attemptEvent(e.typ)
		if !ok {
			return nil // an event the model does not use
		}
		if e.taskID == "" || e.attemptID == "" {
			return bad("attemptId", "an attempt event without its taskid and attemptId")
		}
		ts := b.taskOf(e.taskID, kind)
		i, seen := ts.attempts[e.attemptID]
		if !seen {
			i = len(ts.task.Attempts)
			ts.attempts[e.attemptID] = i
			ts.task.Attempts = append(ts.task.Attempts, unrecordedAttempt(Unfinished))
		}
		a := &ts.task.Attempts[i]
		if phase == "STARTED" {
			a.Start = e.start
			if a.Loc.Host == "" && e.tracker != "" {
				a.Loc = Location{Host: in.get([]byte(trackerHost(e.tracker)))}
			}
			return nil
		}
		a.Finish, a.SortFinish = e.finish, e.sortFinish
		switch phase {
		case "FINISHED":
			a.Result = Succeeded
		case "FAILED":
			a.Result = Failed
		case "KILLED":
			a.Result = Killed
		}
		if e.host != "" {
			rack := e.rack
			if rack != "" && !strings.HasPrefix(rack, "/") {
				rack = "/" + rack
			}
			a.Loc = Location{Rack: in.get([]byte(rack)), Host: in.get([]byte(e.host))}
		}
		a.HDFSRead, a.HDFSWritten, a.ShuffleBytes = e.hdfsRead, e.hdfsWritten, e.shuffleRead
	}
	return nil
}

// job is the job the events made, its tasks in the order they were first
// named.
func (b *jhistBuilder) job() (*Job, error) {
	j := b.j
	if j.ID == "" {
		return nil, &ParseError{File: b.file, Field: "JOB_SUBMITTED", Err: errors.New("no JOB_SUBMITTED event: the file names no job")}
	}
	for _, id := range b.order {
		ts := b.tasks[id]
		if ts.task.Input < 0 && ts.kind == "map" {
			if a, ok := ts.task.Success(); ok {
				ts.task.Input = a.HDFSRead
			}
		}
		switch ts.kind {
		case "map":
			j.Maps = append(j.Maps, ts.task)
		case "reduce":
			j.Reduces = append(j.Reduces, ts.task)
		default:
			j.Other++
		}
	}
	return j, nil
}

// trackerHost is the host of an attempt's tracker name: YARN's
// MapReduce writes the NodeManager's host, Hadoop 1 the TaskTracker's
// name, tracker_<host>:<address>:<port>.
func trackerHost(name string) string {
	name = strings.TrimPrefix(name, "tracker_")
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}

// attemptEvent reads an attempt event's type: the task kind it is of and
// its phase (STARTED, FINISHED, FAILED, KILLED).
func attemptEvent(typ string) (kind, phase string, ok bool) {
	k, p, found := strings.Cut(typ, "_ATTEMPT_")
	if !found {
		return "", "", false
	}
	switch p {
	case "STARTED", "FINISHED", "FAILED", "KILLED":
	default:
		return "", "", false
	}
	switch k {
	case "MAP":
		return "MAP", p, true
	case "REDUCE":
		return "REDUCE", p, true
	case "SETUP", "CLEANUP":
		return "SETUP", p, true
	}
	return "", "", false
}

// taskKind classes a task by its type, else by its id's _m_ or _r_.
func taskKind(id, typ string) string {
	switch strings.ToUpper(typ) {
	case "MAP":
		return "map"
	case "REDUCE":
		return "reduce"
	case "":
	default:
		return "other"
	}
	switch {
	case strings.Contains(id, "_m_"):
		return "map"
	case strings.Contains(id, "_r_"):
		return "reduce"
	}
	return "other"
}

func trimForError(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

func wrapLine(err error, file string, line int, job, field string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	e := &ParseError{File: file, Line: line, Job: job, Field: field, Err: err}
	var se *jsonstream.SyntaxError
	if errors.As(err, &se) {
		e.Line, e.Err = se.Line, errors.New(se.Msg)
	}
	return e
}

// readJhEvent reads one event object: {"type": T, "event": {CLASS: {...}}}.
func readJhEvent(d *jsonstream.Reader) (jhEvent, error) {
	e := newJhEvent()
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			s, err := d.String()
			e.typ = s
			return err
		case "event":
			// A union: one key, the event's record class.
			return d.Object(func([]byte) error { return readJhBody(d, &e) })
		}
		return d.Skip()
	})
	if err == nil && e.typ == "" {
		err = d.Errorf("an event without its \"type\"")
	}
	return e, err
}

// newJhEvent is an event before its fields are read: every time and
// counter unknown.
func newJhEvent() jhEvent {
	return jhEvent{submit: Unknown, launch: Unknown, finish: Unknown, start: Unknown, sortFinish: Unknown,
		hdfsRead: Unknown, hdfsWritten: Unknown, shuffleRead: Unknown}
}

// jhField is an event field the reader uses, by its name in Hadoop's
// Event schema (Events.avpr), and where it goes: a string or a number.
type jhField struct {
	name string
	str  func(*jhEvent) *string
	num  func(*jhEvent) *int64
}

// jhFields are the event fields the reader uses, in either encoding;
// "counters" is read on its own (counterInto).
var jhFields = []jhField{
	{name: "jobid", str: func(e *jhEvent) *string { return &e.jobID }},
	{name: "jobName", str: func(e *jhEvent) *string { return &e.jobName }},
	{name: "userName", str: func(e *jhEvent) *string { return &e.user }},
	{name: "jobQueueName", str: func(e *jhEvent) *string { return &e.queue }},
	{name: "submitTime", num: func(e *jhEvent) *int64 { return &e.submit }},
	{name: "launchTime", num: func(e *jhEvent) *int64 { return &e.launch }},
	{name: "finishTime", num: func(e *jhEvent) *int64 { return &e.finish }},
	{name: "startTime", num: func(e *jhEvent) *int64 { return &e.start }},
	{name: "sortFinishTime", num: func(e *jhEvent) *int64 { return &e.sortFinish }},
	{name: "taskid", str: func(e *jhEvent) *string { return &e.taskID }},
	{name: "taskType", str: func(e *jhEvent) *string { return &e.taskType }},
	{name: "attemptId", str: func(e *jhEvent) *string { return &e.attemptID }},
	{name: "taskStatus", str: func(e *jhEvent) *string { return &e.status }},
	{name: "status", str: func(e *jhEvent) *string { return &e.status }},
	{name: "hostname", str: func(e *jhEvent) *string { return &e.host }},
	{name: "rackname", str: func(e *jhEvent) *string { return &e.rack }},
	{name: "trackerName", str: func(e *jhEvent) *string { return &e.tracker }},
	{name: "splitLocations", str: func(e *jhEvent) *string { return &e.splitLocations }},
}

// jhFieldByName finds a field of jhFields by its name.
var jhFieldByName = func() map[string]*jhField {
	m := make(map[string]*jhField, len(jhFields))
	for i := range jhFields {
		m[jhFields[i].name] = &jhFields[i]
	}
	return m
}()

// counterInto returns the function that stores counter name's value in
// e, nil for a counter the reader does not use.
func counterInto(e *jhEvent, name []byte) *int64 {
	switch string(name) {
	case "HDFS_BYTES_READ":
		return &e.hdfsRead
	case "HDFS_BYTES_WRITTEN":
		return &e.hdfsWritten
	case "REDUCE_SHUFFLE_BYTES":
		return &e.shuffleRead
	}
	return nil
}

func readJhBody(d *jsonstream.Reader, e *jhEvent) error {
	return d.Object(func(key []byte) error {
		field := string(key)
		var err error
		switch f := jhFieldByName[field]; {
		case f != nil && f.str != nil:
			*f.str(e), err = avroString(d)
		case f != nil:
			*f.num(e), err = int64Field(d)
		case field == "counters":
			err = readCounters(d, func(name []byte, v int64) {
				if p := counterInto(e, name); p != nil {
					*p = v
				}
			})
		default:
			err = d.Skip()
		}
		if err != nil {
			var se *jsonstream.SyntaxError
			if errors.As(err, &se) {
				return &jsonstream.SyntaxError{Line: se.Line, Msg: fmt.Sprintf("field %q: %s", field, se.Msg)}
			}
		}
		return err
	})
}

// decodedJhEvent reads an Event record decoded from a binary history:
// its type's symbol, and the fields of the event record its union holds.
// A field of another type than Hadoop's schema gives it is an error
// naming the field.
func decodedJhEvent(v any) (jhEvent, error) {
	e := newJhEvent()
	r, ok := v.(*avro.Record)
	if !ok {
		return e, fmt.Errorf("an event of type %T; want the Event record", v)
	}
	e.typ, _ = r.Fields["type"].(string)
	if e.typ == "" {
		return e, errors.New(`an event without its "type"`)
	}
	body, _ := r.Fields["event"].(*avro.Record)
	if body == nil {
		return e, nil
	}
	for i := range jhFields {
		f := &jhFields[i]
		v, ok := body.Fields[f.name]
		if !ok || v == nil {
			continue
		}
		switch x := v.(type) {
		case string:
			if f.str != nil {
				*f.str(&e) = x
				continue
			}
		case int64:
			if f.num != nil {
				*f.num(&e) = x
				continue
			}
		}
		return e, fmt.Errorf("field %q: a %T, not what Hadoop's Event schema gives it", f.name, v)
	}
	if c, ok := body.Fields["counters"].(*avro.Record); ok {
		groups, _ := c.Fields["groups"].([]any)
		for _, g := range groups {
			gr, _ := g.(*avro.Record)
			if gr == nil {
				continue
			}
			counts, _ := gr.Fields["counts"].([]any)
			for _, n := range counts {
				cr, _ := n.(*avro.Record)
				if cr == nil {
					continue
				}
				name, _ := cr.Fields["name"].(string)
				val, ok := cr.Fields["value"].(int64)
				if p := counterInto(&e, []byte(name)); p != nil && ok {
					*p = val
				}
			}
		}
	}
	return e, nil
}

// wrapAt is the error at, its Err set, as a ParseError: a syntax error
// in the JSON gives its own line; a ParseError is returned as it is.
func wrapAt(at ParseError) error {
	var pe *ParseError
	if errors.As(at.Err, &pe) {
		return at.Err
	}
	var se *jsonstream.SyntaxError
	if errors.As(at.Err, &se) {
		at.Line, at.Err = se.Line, errors.New(se.Msg)
	}
	return &at
}

// avroString reads a string that Avro's JSON encoding may wrap as a
// union, {"string": "x"}, or write as null.
func avroString(d *jsonstream.Reader) (string, error) {
	if d.Kind() != '{' {
		return d.String()
	}
	var s string
	err := d.Object(func([]byte) error {
		var err error
		s, err = d.String()
		return err
	})
	return s, err
}

// readCounters reads JhCounters, {"name", "groups": [{"counts": [{"name",
// "value"}]}]}, calling fn with each counter. A union-wrapped counters
// value reads the same.
func readCounters(d *jsonstream.Reader, fn func(name []byte, v int64)) error {
	return d.Object(func(key []byte) error {
		switch string(key) {
		case "groups":
			return d.Array(func(int) error {
				return d.Object(func(key []byte) error {
					if string(key) != "counts" {
						return d.Skip()
					}
					return d.Array(func(int) error {
						var name []byte
						v := int64(Unknown)
						err := d.Object(func(key []byte) error {
							switch string(key) {
							case "name":
								s, err := d.String()
								name = []byte(s)
								return err
							case "value":
								var err error
								v, err = int64Field(d)
								return err
							}
							return d.Skip()
						})
						if err == nil && name != nil {
							fn(name, v)
						}
						return err
					})
				})
			})
		case "org.apache.hadoop.mapreduce.jobhistory.JhCounters":
			return readCounters(d, fn)
		}
		return d.Skip()
	})
}

// ScanJhistPath reads a job history file, or every one below a
// directory in path order (jhistFiles), one job each, with the
// configuration the job history server keeps beside each (historyConf).
func ScanJhistPath(path string, fn func(*Job) error) error {
	return scanJhistPath(path, nil, fn)
}

// scanJhistPath is ScanJhistPath keeping the job properties keep names.
func scanJhistPath(path string, keep []string, fn func(*Job) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	files := []string{path}
	if st.IsDir() {
		files, err = jhistFiles(path)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("%s: a directory without .jhist files", path)
		}
	}
	for _, f := range files {
		err := scanFile(f, ScanJhist, func(j *Job) error {
			if err := historyConf(j, keep); err != nil {
				return err
			}
			return fn(j)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// jhistFiles lists the job histories below dir, at any depth, sorted by
// path: MapReduce 2's .jhist files, and Hadoop 1's, which have no suffix
// (job_<id>_<user>_<name>, beside a _conf.xml) and are told by their
// first line. The JobHistory server files a finished job under its done
// directory's YYYY/MM/DD/serial folders (JobHistoryUtils
// .historyLogSubdirectory), the intermediate done directory under the
// user's name, and Hadoop 1 under history/done/version-1/..., so a copy
// of any holds its histories in folders.
func jhistFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".jhist"):
			files = append(files, path)
		case strings.HasPrefix(name, "job_") && !strings.HasSuffix(name, ".xml") && !strings.HasSuffix(name, ".crc"):
			mr1, err := startsMR1History(path)
			if err != nil {
				return err
			}
			if mr1 {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// startsMR1History reports whether the file at path begins with a Hadoop
// 1 job history's first line.
func startsMR1History(path string) (bool, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head, err := f.Peek(len(MR1HistoryMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return string(head) == MR1HistoryMagic, nil
}

// scanFile reads the file at path, gzip-compressed or not, with scan.
func scanFile(path string, scan func(io.Reader, string, func(*Job) error) error, fn func(*Job) error) error {
	f, err := gzfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return scan(f, path, fn)
}

// isJhist reports whether head, a file's first bytes, starts a JobHistory
// file, in either encoding.
func isJhist(head []byte) bool {
	return bytes.HasPrefix(head, []byte(JhistMagic)) || bytes.HasPrefix(head, []byte(JhistBinaryMagic)) || bytes.HasPrefix(head, []byte(MR1HistoryMagic))
}
