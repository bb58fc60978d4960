package hadooptrace

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mrsched/mrsched/internal/jsonstream"
)

// ScanRumen reads a Rumen job trace, the concatenated job objects
// Hadoop's TraceBuilder writes (org.apache.hadoop.tools.rumen.LoggedJob),
// and calls fn with each job in file order. It holds one job at a time.
// file names the input in errors.
//
// Taken per job: jobID, jobName, user, queue, outcome, submitTime,
// launchTime, finishTime, jobMapMB and jobReduceMB; mapTasks, reduceTasks
// and otherTasks (counted, not kept: SETUP and CLEANUP tasks are not
// maps, and a task of those types in mapTasks or reduceTasks is counted
// with them). Per task: inputBytes, preferredLocations (each a "layers"
// list of rack then host) and attempts. Per attempt: result, hostName
// ("/rack/host", else location's layers), startTime, finishTime,
// hdfsBytesRead, hdfsBytesWritten and reduceShuffleBytes. -1, Rumen's
// "not recorded", and null read as Unknown. Every other key is skipped.
func ScanRumen(r io.Reader, file string, fn func(*Job) error) error {
	return scanRumen(r, file, nil, fn)
}

// scanRumen is ScanRumen keeping the job properties keep names
// (Job.Conf) from each job's jobProperties, Rumen's copy of its
// configuration, whose task memory also stands for jobMapMB and
// jobReduceMB where those are not recorded.
func scanRumen(r io.Reader, file string, keep []string, fn func(*Job) error) error {
	return scanObjects(r, file, func(d *jsonstream.Reader, file string, in interner) (*Job, error) {
		return readRumenJob(d, file, in, keep)
	}, fn)
}

// scanObjects reads a file of concatenated JSON job objects, each with
// read, and calls fn with each job in file order, holding one at a time:
// the loop Rumen's and SLS's jobs files share.
func scanObjects(r io.Reader, file string, read func(*jsonstream.Reader, string, interner) (*Job, error), fn func(*Job) error) error {
	d := jsonstream.NewReader(r)
	in := interner{}
	for {
		more, err := d.More()
		if err != nil {
			return wrapSyntax(err, file, nil, "", "")
		}
		if !more {
			return nil
		}
		j, err := read(d, file, in)
		if err != nil {
			return err
		}
		if err := fn(j); err != nil {
			return err
		}
	}
}

// wrapSyntax makes err, from the JSON reader or a field's check, a
// *ParseError naming the file, the line, the job and task, and the field.
func wrapSyntax(err error, file string, j *Job, task, field string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	e := &ParseError{File: file, Task: task, Field: field, Err: err}
	var se *jsonstream.SyntaxError
	if errors.As(err, &se) {
		e.Line, e.Err = se.Line, errors.New(se.Msg)
	}
	if j != nil {
		e.Job = j.ID
		if e.Line == 0 {
			e.Line = j.Line
		}
	}
	return e
}

// readJobObject reads a job object into j, handing each key to field,
// which reads its value; errors are *ParseErrors naming the job and key.
func readJobObject(d *jsonstream.Reader, file string, j *Job, field func(key []byte) error) error {
	if d.Kind() != '{' {
		return wrapSyntax(d.Errorf("want a job object, got %s", kindWord(d.Kind())), file, j, "", "")
	}
	if err := readFields(d, file, j, func() string { return "" }, field); err != nil {
		return wrapSyntax(err, file, j, "", "")
	}
	return nil
}

// readFields reads an object of job j, handing each key to field, which
// reads its value. An error reading a value becomes a *ParseError naming
// the file, the job, the task or attempt where says (asked only then, so
// that a value read costs no name) and the key; an error of the object's
// own syntax is returned as it is.
func readFields(d *jsonstream.Reader, file string, j *Job, where func() string, field func(key []byte) error) error {
	return d.Object(func(key []byte) error {
		if err := field(key); err != nil {
			return wrapSyntax(err, file, j, where(), string(key))
		}
		return nil
	})
}

// int64Field reads a number that may be null (Unknown), -1 (Unknown) or
// any whole number; other negative values are refused.
func int64Field(d *jsonstream.Reader) (int64, error) {
	if null, err := d.IsNull(); null || err != nil {
		return Unknown, err
	}
	v, err := d.Int()
	if err != nil {
		return 0, err
	}
	if v < Unknown {
		return 0, d.Errorf("%d is negative; want a count, or -1 for not recorded", v)
	}
	return v, nil
}

func readRumenJob(d *jsonstream.Reader, file string, in interner, keep []string) (*Job, error) {
	j := unrecordedJob(file, d.Line())
	var props map[string]string
	err := readJobObject(d, file, j, func(key []byte) error {
		var err error
		switch string(key) {
		case "jobProperties":
			props = map[string]string{}
			err = d.Object(func(name []byte) error {
				if d.Kind() != '"' {
					return d.Skip() // not a property's text
				}
				v, err := d.String()
				props[string(name)] = v
				return err
			})
		case "jobID":
			j.ID, err = d.String()
		case "jobName":
			j.Name, err = d.String()
		case "user":
			j.User, err = d.String()
		case "queue":
			j.Queue, err = d.String()
		case "outcome":
			j.Outcome, err = d.String()
		case "submitTime":
			j.Submit, err = int64Field(d)
		case "launchTime":
			j.Launch, err = int64Field(d)
		case "finishTime":
			j.Finish, err = int64Field(d)
		case "jobMapMB":
			j.MapMB, err = int64Field(d)
		case "jobReduceMB":
			j.ReduceMB, err = int64Field(d)
		case "mapTasks", "reduceTasks", "otherTasks":
			err = d.Array(func(int) error {
				t, kind, err := readRumenTask(d, file, j, in)
				if err != nil {
					return err
				}
				if kind == "" {
					kind = strings.TrimSuffix(string(key), "Tasks")
				}
				switch kind {
				case "map":
					j.Maps = append(j.Maps, t)
				case "reduce":
					j.Reduces = append(j.Reduces, t)
				default:
					j.Other++
				}
				return nil
			})
		default:
			err = d.Skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(props) > 0 { // Rumen writes {} for a job whose configuration it did not find
		if err := applyConf(j, props, keep); err != nil {
			return nil, &ParseError{File: file, Line: j.Line, Job: j.ID, Field: "jobProperties", Err: err}
		}
	}
	return j, nil
}

// readRumenTask reads one LoggedTask, and gives its kind by its taskType
// ("map", "reduce", "other", or "" when it has none).
func readRumenTask(d *jsonstream.Reader, file string, j *Job, in interner) (Task, string, error) {
	t := Task{Input: Unknown}
	var id, kind string
	err := readFields(d, file, j, func() string { return taskName(id) }, func(key []byte) error {
		var err error
		switch string(key) {
		case "taskID":
			id, err = d.String()
		case "taskType":
			var s string
			s, err = d.String()
			switch strings.ToUpper(s) {
			case "MAP":
				kind = "map"
			case "REDUCE":
				kind = "reduce"
			case "":
			default:
				kind = "other"
			}
		case "inputBytes":
			t.Input, err = int64Field(d)
		case "preferredLocations":
			err = d.Array(func(int) error {
				loc, err := readLayers(d, in)
				if err == nil && loc.Host != "" {
					t.Preferred = append(t.Preferred, loc)
				}
				return err
			})
		case "attempts":
			err = d.Array(func(n int) error {
				a, err := readRumenAttempt(d, file, j, id, n, in)
				if err == nil {
					t.Attempts = append(t.Attempts, a)
				}
				return err
			})
		default:
			err = d.Skip()
		}
		return err
	})
	if err != nil {
		return t, "", wrapSyntax(err, file, j, taskName(id), "")
	}
	return t, kind, nil
}

func taskName(id string) string {
	if id == "" {
		return ""
	}
	return "task " + id
}

// readLayers reads a LoggedLocation, {"layers": ["rack", "host"]}: the
// last layer is the host, the ones before it the rack ("/a/b" for two).
func readLayers(d *jsonstream.Reader, in interner) (Location, error) {
	var path []byte // "/layer/layer/..."
	last := 0       // where the last layer starts in path
	err := d.Object(func(key []byte) error {
		if string(key) != "layers" {
			return d.Skip()
		}
		return d.Array(func(int) error {
			b, err := d.StringBytes()
			last = len(path)
			path = append(append(path, '/'), b...)
			return err
		})
	})
	if err != nil || len(path) == 0 {
		return Location{}, err
	}
	return Location{Rack: in.rack(path[:last]), Host: in.get(path[last+1:])}, nil
}

func readRumenAttempt(d *jsonstream.Reader, file string, j *Job, task string, n int, in interner) (Attempt, error) {
	a := unrecordedAttempt(Unfinished)
	var loc Location
	where := func() string {
		if task != "" {
			return fmt.Sprintf("task %s, attempts[%d]", task, n)
		}
		return fmt.Sprintf("attempts[%d]", n)
	}
	err := readFields(d, file, j, where, func(key []byte) error {
		var err error
		switch string(key) {
		case "attemptID":
			// Kept only for errors, which name the attempt by its place
			// instead: an id a task attempt would cost a string each.
			err = d.Skip()
		case "result":
			var s string
			if s, err = d.String(); err == nil {
				var ok bool
				if a.Result, ok = parseResult(s); !ok {
					err = d.Errorf("%q; want SUCCESS, FAILED or KILLED", s)
				}
			}
		case "hostName":
			var b []byte
			if b, err = d.StringBytes(); err == nil && len(b) > 0 {
				a.Loc = splitHost(in, b)
			}
		case "location":
			loc, err = readLayers(d, in)
		case "startTime":
			a.Start, err = int64Field(d)
		case "finishTime":
			a.Finish, err = int64Field(d)
		case "sortFinished":
			a.SortFinish, err = int64Field(d)
		case "hdfsBytesRead":
			a.HDFSRead, err = int64Field(d)
		case "hdfsBytesWritten":
			a.HDFSWritten, err = int64Field(d)
		case "reduceShuffleBytes":
			a.ShuffleBytes, err = int64Field(d)
		default:
			err = d.Skip()
		}
		return err
	})
	if a.Loc.Host == "" {
		a.Loc = loc
	}
	return a, err
}

// kindWord names a JSON value by its first byte.
func kindWord(c byte) string {
	switch {
	case c == '[':
		return "a list"
	case c == '"':
		return "a string"
	case c == 0:
		return "the end of the input"
	}
	return "a value that is no object"
}
