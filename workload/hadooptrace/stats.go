package hadooptrace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// Stats summarises a trace as recorded, before any scaling or model:
// what `mrsched trace stats` prints.
type Stats struct {
	Format Format `json:"format"`
	// Jobs counts the jobs kept: every distinct job id once (Collector's
	// rule on duplicates).
	Jobs    int   `json:"jobs"`
	Maps    int64 `json:"maps"`
	Reduces int64 `json:"reduces"`
	// OtherTasks counts setup and cleanup tasks, which are not maps.
	OtherTasks int64 `json:"other_tasks"`
	// Bytes as Job.InputBytes, ShuffleBytes and OutputBytes sum them; 0
	// when BytesModelled.
	InputBytes    int64 `json:"input_bytes"`
	ShuffleBytes  int64 `json:"shuffle_bytes"`
	OutputBytes   int64 `json:"output_bytes"`
	BytesModelled bool  `json:"bytes_modelled"`
	// Hosts and Racks count the distinct hosts and racks that ran the
	// jobs' map and reduce attempts; HostNames and RackNames list them.
	Hosts     int      `json:"hosts"`
	Racks     int      `json:"racks"`
	HostNames []string `json:"host_names"`
	RackNames []string `json:"rack_names"`
	// DuplicateJobs counts records of a job id met before, which are
	// dropped; FailedJobs the kept jobs whose outcome is not success.
	DuplicateJobs int `json:"duplicate_jobs"`
	FailedJobs    int `json:"failed_jobs"`
	// TasksWithoutSuccess counts map and reduce tasks with no successful
	// attempt; FailedAttempts and KilledAttempts the attempts that ended so.
	TasksWithoutSuccess int64 `json:"tasks_without_success"`
	FailedAttempts      int64 `json:"failed_attempts"`
	KilledAttempts      int64 `json:"killed_attempts"`
	// FirstSubmitMS and LastSubmitMS bound the kept jobs' submit times as
	// recorded (ms; Unknown with no job that records one).
	FirstSubmitMS int64 `json:"first_submit_ms"`
	LastSubmitMS  int64 `json:"last_submit_ms"`
	// Configured counts the kept jobs whose configuration the trace
	// recorded (Job.Configured).
	Configured int `json:"configured_jobs"`
}

// Collector adds up jobs into Stats, dropping repeated job ids: the rule
// on duplicates is that a job id's first record is kept and every later
// one dropped and counted, since a trace assembled from overlapping logs
// repeats a job whole, and replaying it twice would double its load.
type Collector struct {
	s            Stats
	seen         map[string]bool
	hosts, racks map[string]bool
}

// NewCollector starts stats of a trace in format f.
func NewCollector(f Format) *Collector {
	return &Collector{s: Stats{Format: f, FirstSubmitMS: Unknown, LastSubmitMS: Unknown},
		seen: map[string]bool{}, hosts: map[string]bool{}, racks: map[string]bool{}}
}

// Add counts j, and reports false (counting a duplicate) when its id was
// met before. A job without an id is always kept.
func (c *Collector) Add(j *Job) bool {
	s := &c.s
	if j.ID != "" {
		if c.seen[j.ID] {
			s.DuplicateJobs++
			return false
		}
		c.seen[j.ID] = true
	}
	s.Jobs++
	s.Maps += int64(len(j.Maps))
	s.Reduces += int64(len(j.Reduces))
	s.OtherTasks += int64(j.Other)
	if j.BytesModelled {
		s.BytesModelled = true
	} else {
		s.InputBytes += j.InputBytes()
		s.ShuffleBytes += j.ShuffleBytes()
		s.OutputBytes += j.OutputBytes()
	}
	if !j.Succeeded() {
		s.FailedJobs++
	}
	if j.Configured {
		s.Configured++
	}
	if j.Submit >= 0 {
		if s.FirstSubmitMS < 0 || j.Submit < s.FirstSubmitMS {
			s.FirstSubmitMS = j.Submit
		}
		if j.Submit > s.LastSubmitMS {
			s.LastSubmitMS = j.Submit
		}
	}
	for _, ts := range [][]Task{j.Maps, j.Reduces} {
		for i := range ts {
			t := &ts[i]
			if _, ok := t.Success(); !ok {
				s.TasksWithoutSuccess++
			}
			for _, a := range t.Attempts {
				switch a.Result {
				case Failed:
					s.FailedAttempts++
				case Killed:
					s.KilledAttempts++
				}
				if a.Loc.Host != "" {
					c.hosts[a.Loc.Host] = true
				}
				if a.Loc.Rack != "" {
					c.racks[a.Loc.Rack] = true
				}
			}
		}
	}
	return true
}

// Stats is what the collector has added up.
func (c *Collector) Stats() Stats {
	s := c.s
	s.HostNames = slices.Sorted(maps.Keys(c.hosts))
	s.RackNames = slices.Sorted(maps.Keys(c.racks))
	s.Hosts, s.Racks = len(s.HostNames), len(s.RackNames)
	return s
}

// Write prints s as a two-column table.
func (s Stats) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "format\t%s\n", s.Format)
	fmt.Fprintf(tw, "jobs\t%d\n", s.Jobs)
	fmt.Fprintf(tw, "maps\t%d\n", s.Maps)
	fmt.Fprintf(tw, "reduces\t%d\n", s.Reduces)
	fmt.Fprintf(tw, "setup and cleanup tasks\t%d (not maps)\n", s.OtherTasks)
	if s.BytesModelled {
		fmt.Fprintf(tw, "bytes\tmodelled, not traced (the format records none)\n")
	} else {
		fmt.Fprintf(tw, "input\t%d bytes\n", s.InputBytes)
		fmt.Fprintf(tw, "shuffle\t%d bytes\n", s.ShuffleBytes)
		fmt.Fprintf(tw, "output\t%d bytes\n", s.OutputBytes)
	}
	fmt.Fprintf(tw, "hosts\t%d\n", s.Hosts)
	fmt.Fprintf(tw, "racks\t%d\n", s.Racks)
	if s.FirstSubmitMS >= 0 {
		span := float64(s.LastSubmitMS-s.FirstSubmitMS) / 1000
		fmt.Fprintf(tw, "arrivals\tspan %.1f s (%.2f h)\n", span, span/3600)
	}
	fmt.Fprintf(tw, "duplicate job ids\t%d (later records dropped)\n", s.DuplicateJobs)
	fmt.Fprintf(tw, "failed or killed jobs\t%d (replayed as traced)\n", s.FailedJobs)
	fmt.Fprintf(tw, "tasks without a successful attempt\t%d\n", s.TasksWithoutSuccess)
	fmt.Fprintf(tw, "failed attempts\t%d\n", s.FailedAttempts)
	fmt.Fprintf(tw, "killed attempts\t%d\n", s.KilledAttempts)
	switch s.Format {
	case FormatJhist:
		fmt.Fprintf(tw, "job configurations\t%d (a <job id>_conf.xml beside the history)\n", s.Configured)
	case FormatRumen:
		fmt.Fprintf(tw, "job configurations\t%d (jobProperties)\n", s.Configured)
	}
	return tw.Flush()
}

// StatsOf reads the trace at path (format sniffed when "") and adds it up.
func StatsOf(path string, format Format) (Stats, error) {
	if format == "" {
		var err error
		if format, err = SniffPath(path); err != nil {
			return Stats{}, err
		}
	}
	c := NewCollector(format)
	err := ScanPath(path, format, func(j *Job) error { c.Add(j); return nil })
	return c.Stats(), err
}
