package hadooptrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MR1HistoryMagic is the first line of a Hadoop 1 (0.20, 1.x) JobTracker
// job history file: the JobHistory log of one job, a record a line,
// `Type KEY="value" ... .`, the format Rumen's Hadoop20JHParser reads.
const MR1HistoryMagic = `Meta VERSION="1" .`

// mr1RecordEnd ends a record; a record whose values hold a line break
// runs on over the lines until one ends so (Hadoop20JHParser.getFullLine).
const mr1RecordEnd = " ."

// mr1MaxRecord bounds one record, so that a file without record ends
// cannot take unbounded memory.
const mr1MaxRecord = 16 << 20

// mr1Events reads the records of a Hadoop 1 job history as the events of
// a MapReduce 2 one, so that one builder makes jobs of both (the mapping
// Rumen's 20-line emitters make):
//
//   - Job with SUBMIT_TIME: JOB_SUBMITTED (JOBID, JOBNAME, USER,
//     JOB_QUEUE); with LAUNCH_TIME: JOB_INITED; with FINISH_TIME and
//     JOB_STATUS: JOB_FINISHED for SUCCESS, else JOB_FAILED or JOB_KILLED.
//   - Task with START_TIME: TASK_STARTED (TASKID, TASK_TYPE, SPLITS, the
//     map's /rack/host locations); with FINISH_TIME and TASK_STATUS
//     SUCCESS: TASK_FINISHED (COUNTERS).
//   - MapAttempt and ReduceAttempt with START_TIME: the attempt's start
//     (TASK_ATTEMPT_ID, TRACKER_NAME); with FINISH_TIME and TASK_STATUS:
//     its end, finished for SUCCESS, else failed or killed (HOSTNAME, a
//     /rack/host path; SORT_FINISHED; COUNTERS). TASK_TYPE SETUP and
//     CLEANUP make the job's other tasks.
//
// Other records (Meta, a job's status or priority change) are skipped.
func mr1Events(br *bufio.Reader, file string) (jhEvents, error) {
	line := 1 // the magic line, read
	return func() (jhEvent, ParseError, bool, error) {
		for {
			at := ParseError{File: file, Line: line + 1}
			rec, n, err := mr1Record(br)
			line += n
			if err != nil || rec == "" {
				return jhEvent{}, at, false, err
			}
			e, use, err := mr1Event(rec)
			if err != nil || use {
				return e, at, err == nil, err
			}
		}
	}, nil
}

// mr1Record reads one record, joining its lines; "" at the end of the
// input. n is the lines it took. A last record without its end is taken
// as it is: a history the JobTracker was still writing. A line ending in
// " ." ends the record unless it ends inside a quoted value, which the
// reader follows line by line, so that a record costs its length to read
// however many lines it runs over.
func mr1Record(br *bufio.Reader) (rec string, n int, err error) {
	var b strings.Builder
	inQuote := false
	for {
		line, more, err := mr1Line(br, mr1MaxRecord-b.Len())
		if err != nil {
			return "", n, err
		}
		if !more {
			return strings.TrimSpace(b.String()), n, nil
		}
		n++
		if b.Len() == 0 && strings.TrimSpace(line) == "" {
			continue // blank lines between records
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				inQuote = !inQuote
			}
		}
		if !inQuote && strings.HasSuffix(line, mr1RecordEnd) {
			return b.String(), n, nil
		}
	}
}

// mr1Line reads one line without its end; more is false at the end of
// the input. A line longer than limit bytes is an error: a history's
// records are kilobytes, and a file without line ends is not one.
func mr1Line(br *bufio.Reader, limit int) (line string, more bool, err error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(b)+len(chunk) > limit {
			return "", false, fmt.Errorf("a record of more than %d bytes without its end %q", mr1MaxRecord, mr1RecordEnd)
		}
		b = append(b, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(b) == 0 {
				return "", false, nil
			}
		case err != nil:
			return "", false, err
		}
		return strings.TrimRight(string(b), "\r\n"), true, nil
	}
}

// mr1Fields splits a record into its type and its KEY="value" pairs, each
// value unescaped (JobHistory escapes \, ", = and . with a backslash).
func mr1Fields(rec string) (typ string, kv map[string]string, err error) {
	rec = strings.TrimSuffix(strings.TrimSpace(rec), mr1RecordEnd)
	typ, rest, _ := strings.Cut(rec, " ")
	kv = map[string]string{}
	for {
		rest = strings.TrimLeft(rest, " \t\n")
		if rest == "" || rest == "." {
			return typ, kv, nil
		}
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
			return typ, kv, fmt.Errorf("want KEY=\"value\" pairs, got %q", trimForError(rest))
		}
		key := rest[:eq]
		var v strings.Builder
		i := eq + 2
		closed := false
		for ; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' && i+1 < len(rest) {
				i++
				v.WriteByte(rest[i])
				continue
			}
			if c == '"' {
				closed = true
				break
			}
			v.WriteByte(c)
		}
		if !closed {
			return typ, kv, fmt.Errorf("field %q: a value without its closing quote", key)
		}
		kv[key] = v.String()
		rest = rest[i+1:]
	}
}

// mr1Event is the MapReduce 2 event a Hadoop 1 record stands for; use is
// false for a record the reader does not take.
func mr1Event(rec string) (e jhEvent, use bool, err error) {
	e = newJhEvent()
	typ, kv, err := mr1Fields(rec)
	if err != nil {
		return e, false, err
	}
	num := func(key string, into *int64) error {
		s, ok := kv[key]
		if !ok || s == "" {
			return nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("field %q: want a whole number of milliseconds, got %q", key, trimForError(s))
		}
		*into = v
		return nil
	}
	for _, f := range []struct {
		key  string
		into *int64
	}{{"SUBMIT_TIME", &e.submit}, {"LAUNCH_TIME", &e.launch}, {"FINISH_TIME", &e.finish},
		{"START_TIME", &e.start}, {"SORT_FINISHED", &e.sortFinish}} {
		if err := num(f.key, f.into); err != nil {
			return e, false, err
		}
	}
	if c, ok := kv["COUNTERS"]; ok {
		if err := mr1Counters(c, func(name string, v int64) {
			if p := counterInto(&e, []byte(name)); p != nil {
				*p = v
			}
		}); err != nil {
			return e, false, fmt.Errorf("field \"COUNTERS\": %w", err)
		}
	}
	status := strings.ToUpper(kv["TASK_STATUS"])
	switch typ {
	case "Job":
		e.jobID, e.jobName, e.user, e.queue = kv["JOBID"], kv["JOBNAME"], kv["USER"], kv["JOB_QUEUE"]
		switch js := strings.ToUpper(kv["JOB_STATUS"]); {
		case e.submit >= 0:
			e.typ = "JOB_SUBMITTED"
		case e.finish >= 0 && js == "SUCCESS":
			e.typ = "JOB_FINISHED"
		case e.finish >= 0 && js == "KILLED":
			e.typ = "JOB_KILLED"
		case e.finish >= 0 && js != "":
			e.typ = "JOB_FAILED"
		case e.launch >= 0:
			e.typ = "JOB_INITED"
		default:
			return e, false, nil
		}
	case "Task":
		e.taskID, e.taskType, e.splitLocations = kv["TASKID"], kv["TASK_TYPE"], kv["SPLITS"]
		switch {
		case e.start >= 0:
			e.typ = "TASK_STARTED"
		case e.finish >= 0 && status == "SUCCESS":
			e.typ = "TASK_FINISHED"
		default:
			return e, false, nil // a task's failure: its attempts say it
		}
	case "MapAttempt", "ReduceAttempt":
		e.taskID, e.attemptID, e.tracker = kv["TASKID"], kv["TASK_ATTEMPT_ID"], kv["TRACKER_NAME"]
		kind := strings.ToUpper(kv["TASK_TYPE"])
		switch kind {
		case "MAP", "REDUCE", "SETUP", "CLEANUP":
		default:
			if kind, _ = strings.CutSuffix(strings.ToUpper(typ), "ATTEMPT"); kind == "" {
				return e, false, nil
			}
		}
		if h := kv["HOSTNAME"]; h != "" {
			e.rack, e.host = splitLocation(h)
		}
		switch {
		case e.start >= 0:
			e.typ = kind + "_ATTEMPT_STARTED"
		case e.finish >= 0 && status == "SUCCESS":
			e.typ = kind + "_ATTEMPT_FINISHED"
		case e.finish >= 0 && status == "KILLED":
			e.typ = kind + "_ATTEMPT_KILLED"
		case e.finish >= 0 && status != "":
			e.typ = kind + "_ATTEMPT_FAILED"
		default:
			return e, false, nil
		}
	default:
		return e, false, nil
	}
	return e, true, nil
}

// mr1Counters reads Hadoop 1's compact counters string,
// {(group)(display)[(name)(display)(value)]...}..., as
// Counters.makeEscapedCompactString writes it (a backslash escapes the
// brackets and itself), calling fn with each counter's name and value.
func mr1Counters(s string, fn func(name string, v int64)) error {
	// unit reads a (...) unit at s[i:], returning its unescaped text and
	// the index after it.
	unit := func(i int) (string, int, error) {
		if i >= len(s) || s[i] != '(' {
			return "", i, fmt.Errorf("want ( at byte %d of %q", i, trimForError(s))
		}
		var b strings.Builder
		for i++; i < len(s); i++ {
			switch c := s[i]; c {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case ')':
				return b.String(), i + 1, nil
			default:
				b.WriteByte(c)
			}
		}
		return "", i, fmt.Errorf("a unit without its ) in %q", trimForError(s))
	}
	i := 0
	for i < len(s) {
		if s[i] != '{' {
			return fmt.Errorf("want { at byte %d of %q", i, trimForError(s))
		}
		i++
		var err error
		for range 2 { // the group's name and display name
			if _, i, err = unit(i); err != nil {
				return err
			}
		}
		for i < len(s) && s[i] == '[' {
			var name, value string
			if name, i, err = unit(i + 1); err != nil {
				return err
			}
			if _, i, err = unit(i); err != nil {
				return err
			}
			if value, i, err = unit(i); err != nil {
				return err
			}
			if i >= len(s) || s[i] != ']' {
				return fmt.Errorf("counter %s without its ]", name)
			}
			i++
			v, perr := strconv.ParseInt(value, 10, 64)
			if perr != nil {
				return fmt.Errorf("counter %s: value %q is not a whole number", name, trimForError(value))
			}
			fn(name, v)
		}
		if i >= len(s) || s[i] != '}' {
			return fmt.Errorf("a group without its } in %q", trimForError(s))
		}
		i++
	}
	return nil
}
