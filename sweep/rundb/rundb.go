// Package rundb writes a collected sweep into one SQLite database, for
// queries across its runs: every run's summary, its cell's settings and
// every job of every run. It uses modernc.org/sqlite, a translation of
// SQLite to Go, so mrsched still builds without cgo.
//
// The schema (docs/sweeps.md shows queries over it):
//
//	runs     one row a run: run (its index in the plan), cell, policy,
//	         seed, workload (the workload's fingerprint), dir (its output
//	         directory), the summary's main figures in columns named as
//	         summary.json names them, and summary (summary.json whole)
//	settings one row a run and axis: run, path, value (a number when
//	         it reads as one, so value = 250 finds 250)
//	jobs     one row a job of every run: run, then every column of the
//	         run's jobs.csv under its own name
package rundb

import (
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sweep"
)

// runColumns are the runs table's columns after the run's identity, each
// with the summary figure it holds.
var runColumns = []struct {
	name, typ string
	get       func(*metrics.Summary) any
}{
	{"jobs_submitted", "INTEGER", func(s *metrics.Summary) any { return s.JobsSubmitted }},
	{"jobs_completed", "INTEGER", func(s *metrics.Summary) any { return s.JobsCompleted }},
	{"makespan_s", "REAL", func(s *metrics.Summary) any { return s.MakespanS }},
	{"throughput_jobs_per_hour", "REAL", func(s *metrics.Summary) any { return s.ThroughputJobsPerHour }},
	{"steady_jobs_per_hour", "REAL", func(s *metrics.Summary) any { return s.SteadyState.JobsPerHour }},
	{"turnaround_mean_s", "REAL", func(s *metrics.Summary) any { return s.Turnaround.Mean }},
	{"turnaround_median_s", "REAL", func(s *metrics.Summary) any { return s.Turnaround.Median }},
	{"turnaround_p95_s", "REAL", func(s *metrics.Summary) any { return s.Turnaround.P95 }},
	{"turnaround_max_s", "REAL", func(s *metrics.Summary) any { return s.Turnaround.Max }},
	{"locality_node", "REAL", func(s *metrics.Summary) any { return s.Locality.Node }},
	{"locality_rack", "REAL", func(s *metrics.Summary) any { return s.Locality.Rack }},
	{"locality_off", "REAL", func(s *metrics.Summary) any { return s.Locality.Off }},
	{"shuffle_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.ShuffleTotal }},
	{"shuffle_cross_rack_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.ShuffleCrossRack }},
	{"remote_map_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.RemoteMapTotal }},
	{"remote_map_cross_rack_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.RemoteMapCrossRack }},
	{"output_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.OutputTotal }},
	{"output_cross_rack_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.OutputCrossRack }},
	{"cross_rack_bytes", "REAL", func(s *metrics.Summary) any { return s.Bytes.CrossRackTotal }},
	{"congestion_occurrences", "INTEGER", func(s *metrics.Summary) any { return s.CongestionOccurrences }},
	{"tasks_killed", "INTEGER", func(s *metrics.Summary) any { return s.TasksKilled }},
	{"wasted_task_s", "REAL", func(s *metrics.Summary) any { return s.WastedTaskS }},
	{"reduce_wait_s", "REAL", func(s *metrics.Summary) any { return s.ReduceWaitS }},
}

// jobTypes are the SQL types of jobs.csv's columns; a column not listed
// (a newer mrsched's) is stored as its values read: integers, reals or text.
var jobTypes = map[string]string{
	"id": "INTEGER", "name": "TEXT", "kind": "TEXT", "user": "INTEGER", "pool": "TEXT",
	"submit_s": "REAL", "first_launch_s": "REAL", "finish_s": "REAL", "turnaround_s": "REAL",
	"maps": "INTEGER", "reduces": "INTEGER", "input_bytes": "INTEGER", "shuffle_bytes": "INTEGER",
	"output_bytes": "INTEGER", "class": "TEXT", "maps_node_local": "INTEGER", "maps_rack_local": "INTEGER",
	"maps_off_rack": "INTEGER", "map_progress_at_first_reduce": "REAL", "slowdown": "REAL",
}

// Write writes the collection's runs to a new SQLite database at path,
// replacing any file there only once the database is complete.
func Write(path string, c *sweep.Collection) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpName)
	if err := write(tmpName, c); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmpName, path)
}

func write(path string, c *sweep.Collection) (err error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	header, err := jobsHeader(c)
	if err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	for _, stmt := range schema(header) {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	names := []string{"run", "cell", "policy", "seed", "workload", "dir"}
	for _, col := range runColumns {
		names = append(names, col.name)
	}
	names = append(names, "summary")
	insRun, err := tx.Prepare(insert("runs", names))
	if err != nil {
		return err
	}
	insSetting, err := tx.Prepare(insert("settings", []string{"run", "path", "value"}))
	if err != nil {
		return err
	}
	insJob, err := tx.Prepare(insert("jobs", append([]string{"run"}, header...)))
	if err != nil {
		return err
	}
	for _, r := range c.Runs {
		vals := []any{r.Run.Index, r.Run.Cell, r.Run.Policy, int64(r.Run.Seed), r.Run.Workload, r.Dir}
		for _, col := range runColumns {
			vals = append(vals, col.get(&r.Summary))
		}
		vals = append(vals, string(r.SummaryJSON))
		if _, err := insRun.Exec(vals...); err != nil {
			return fmt.Errorf("run %d: %w", r.Run.Index, err)
		}
		for _, s := range r.Run.Settings {
			if _, err := insSetting.Exec(r.Run.Index, s.Path, value("", s.Value)); err != nil {
				return fmt.Errorf("run %d: %w", r.Run.Index, err)
			}
		}
		if err := insertJobs(insJob, r, header); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// schema is the statements that make the tables, jobs with header's
// columns.
func schema(header []string) []string {
	runs := []string{
		"run INTEGER PRIMARY KEY", "cell INTEGER NOT NULL", "policy TEXT NOT NULL",
		"seed INTEGER NOT NULL", "workload TEXT NOT NULL", "dir TEXT NOT NULL",
	}
	for _, col := range runColumns {
		runs = append(runs, quote(col.name)+" "+col.typ)
	}
	runs = append(runs, "summary TEXT NOT NULL")
	jobs := []string{"run INTEGER NOT NULL REFERENCES runs(run)"}
	for _, h := range header {
		jobs = append(jobs, strings.TrimSpace(quote(h)+" "+jobTypes[h]))
	}
	if slices.Contains(header, "id") {
		jobs = append(jobs, "PRIMARY KEY (run, id)")
	}
	return []string{
		"CREATE TABLE runs (\n  " + strings.Join(runs, ",\n  ") + "\n)",
		"CREATE TABLE settings (\n  run INTEGER NOT NULL REFERENCES runs(run),\n  path TEXT NOT NULL,\n  value NOT NULL,\n  PRIMARY KEY (run, path)\n)",
		"CREATE TABLE jobs (\n  " + strings.Join(jobs, ",\n  ") + "\n)",
		"CREATE INDEX runs_by_cell ON runs (cell, policy)",
	}
}

// plainName is a column name SQL reads without quotes.
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// quote returns a column name as SQL must read it: as it is when plain,
// quoted otherwise (a future jobs.csv column could be any text).
func quote(name string) string {
	if plainName.MatchString(name) && !reserved[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// reserved are SQL keywords a column might be named after.
var reserved = map[string]bool{"order": true, "group": true, "index": true, "table": true, "select": true,
	"from": true, "where": true, "key": true, "default": true, "check": true, "references": true}

func insert(table string, cols []string) string {
	q := make([]string, len(cols))
	marks := make([]string, len(cols))
	for i, c := range cols {
		q[i], marks[i] = quote(c), "?"
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(q, ", "), strings.Join(marks, ", "))
}

// jobsHeader returns the header every run's jobs.csv shares; runs written
// by different versions of mrsched with different columns are refused.
func jobsHeader(c *sweep.Collection) ([]string, error) {
	var first []string
	var firstPath string
	for _, r := range c.Runs {
		path := filepath.Join(r.Dir, "jobs.csv")
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		h, err := csv.NewReader(f).Read()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if first == nil {
			first, firstPath = h, path
			continue
		}
		if !slices.Equal(h, first) {
			return nil, fmt.Errorf("%s has columns %v, %s has %v: runs of different versions of mrsched cannot share a jobs table",
				path, h, firstPath, first)
		}
	}
	return first, nil
}

func insertJobs(ins *sql.Stmt, r *sweep.Collected, header []string) error {
	path := filepath.Join(r.Dir, "jobs.csv")
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = len(header)
	if _, err := cr.Read(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	vals := make([]any, 1+len(header))
	vals[0] = r.Run.Index
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for i, cell := range rec {
			vals[1+i] = value(jobTypes[header[i]], cell)
		}
		if _, err := ins.Exec(vals...); err != nil {
			line, _ := cr.FieldPos(0)
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
}

// value converts a CSV cell to its column's type; an untyped column's
// cell becomes a number when it reads as one.
func value(typ, cell string) any {
	switch typ {
	case "TEXT":
		return cell
	case "INTEGER":
		if v, err := strconv.ParseInt(cell, 10, 64); err == nil {
			return v
		}
	case "REAL":
		if v, err := strconv.ParseFloat(cell, 64); err == nil {
			return v
		}
	default:
		if v, err := strconv.ParseInt(cell, 10, 64); err == nil {
			return v
		}
		if v, err := strconv.ParseFloat(cell, 64); err == nil {
			return v
		}
	}
	return cell
}
