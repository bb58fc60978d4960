package hadooptrace

import (
	"fmt"
	"io"
	"strings"

	"github.com/mrsched/mrsched/internal/jsonstream"
)

// ScanSLS reads a YARN Scheduler Load Simulator jobs file, concatenated
// job objects, and calls fn with each job in file order. Taken per job:
// job.id, job.user, job.queue.name, am.type, job.start.ms, job.end.ms and
// job.tasks; per task (container): container.host ("/rack/host"),
// container.start.ms, container.end.ms, container.type ("map", the
// default as in SLS, or "reduce") and container.memory. A container is one
// successful attempt; its times are milliseconds from the trace's start.
// The file records no bytes: BytesModelled is set, and Convert takes the
// bytes from an SLSByteModel. Other keys are skipped.
func ScanSLS(r io.Reader, file string, fn func(*Job) error) error {
	return scanObjects(r, file, readSLSJob, fn)
}

func readSLSJob(d *jsonstream.Reader, file string, in interner) (*Job, error) {
	j := unrecordedJob(file, d.Line())
	j.BytesModelled, j.Outcome = true, "SUCCESS"
	err := readJobObject(d, file, j, func(key []byte) error {
		var err error
		switch string(key) {
		case "job.id":
			j.ID, err = d.String()
		case "job.user":
			j.User, err = d.String()
		case "job.queue.name":
			j.Queue, err = d.String()
		case "am.type":
			var s string
			if s, err = d.String(); err == nil && s != "" && !strings.EqualFold(s, "mapreduce") {
				err = d.Errorf("%q; only mapreduce applications are modelled", s)
			}
		case "job.start.ms":
			j.Submit, err = int64Field(d)
		case "job.end.ms":
			j.Finish, err = int64Field(d)
		case "job.tasks":
			err = d.Array(func(i int) error {
				t, reduce, mb, err := readSLSTask(d, file, j, i, in)
				if err != nil {
					return err
				}
				if reduce {
					j.Reduces = append(j.Reduces, t)
					if mb > 0 {
						j.ReduceMB = mb
					}
				} else {
					j.Maps = append(j.Maps, t)
					if mb > 0 {
						j.MapMB = mb
					}
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
	if j.Name == "" {
		j.Name = j.ID
	}
	j.Launch = j.Submit
	return j, nil
}

func readSLSTask(d *jsonstream.Reader, file string, j *Job, i int, in interner) (Task, bool, int64, error) {
	a := unrecordedAttempt(Succeeded)
	reduce := false
	mb := int64(Unknown)
	where := fmt.Sprintf("job.tasks[%d]", i)
	err := readFields(d, file, j, func() string { return where }, func(key []byte) error {
		var err error
		switch string(key) {
		case "container.host":
			var s string
			if s, err = d.String(); err == nil && s != "" {
				a.Loc = splitHost(in, []byte(s))
			}
		case "container.start.ms":
			a.Start, err = int64Field(d)
		case "container.end.ms":
			a.Finish, err = int64Field(d)
		case "container.memory":
			mb, err = int64Field(d)
		case "container.type":
			var s string
			if s, err = d.String(); err == nil {
				switch strings.ToLower(s) {
				case "map", "":
				case "reduce":
					reduce = true
				default:
					err = d.Errorf("%q; want map or reduce", s)
				}
			}
		default:
			err = d.Skip()
		}
		return err
	})
	if err == nil && a.Start >= 0 && a.Finish >= 0 && a.Finish < a.Start {
		err = wrapSyntax(d.Errorf("container.end.ms %d is before container.start.ms %d", a.Finish, a.Start), file, j, where, "container.end.ms")
	}
	return Task{Input: Unknown, Attempts: []Attempt{a}}, reduce, mb, err
}
