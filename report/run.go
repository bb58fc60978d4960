package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mrsched/mrsched/metrics"
)

// Run is one simulation's results as the report draws them: what a run
// directory holds, or what a run left in memory.
type Run struct {
	// Label names the run in figures and tables: its policy, unless
	// several runs share a policy (see Label).
	Label string
	// Dir is the run directory it was read from; empty for a run in memory.
	Dir string
	// Scenario is the scenario text the run recorded (scenario.yaml).
	Scenario []byte
	Summary  metrics.Summary
	Jobs     []metrics.JobRecord
	Series   []metrics.TimeseriesRow
	// Uplinks and Pools are empty for runs written before they were
	// recorded; the figures that need them say so instead.
	Uplinks []metrics.UplinkSample
	Pools   []metrics.PoolSample
}

// RunFiles are the files of a run directory, in the order they are written.
// summary.json is the one a directory must have to be read as a run.
var RunFiles = []string{"scenario.yaml", "summary.json", "jobs.csv", "timeseries.csv", "uplinks.csv", "pools.csv", "perf.json"}

// FromCollector makes a Run of a finished simulation in memory.
func FromCollector(scenario []byte, s metrics.Summary, c *metrics.Collector) *Run {
	return &Run{Label: s.Policy, Scenario: scenario, Summary: s, Jobs: c.Jobs(), Series: c.Timeseries(),
		Uplinks: c.Uplinks(), Pools: c.Pools()}
}

// Output is what WriteRunDir writes of a finished simulation.
type Output struct {
	// Scenario is the text written to scenario.yaml: the scenario as read,
	// with a comment saying where from.
	Scenario  []byte
	Summary   metrics.Summary
	Collector *metrics.Collector
	// Perf, when not nil, is written as perf.json: what the run cost on
	// this machine, kept apart from summary.json, whose bytes depend only
	// on the inputs and seed.
	Perf any
}

// WriteRunDir writes a run directory: scenario.yaml, summary.json,
// jobs.csv, timeseries.csv, uplinks.csv, pools.csv and perf.json. Every
// command that writes runs (simulate, compare -out, sweeps) writes them
// through here, so that one reader (LoadRun) reads them all.
func WriteRunDir(dir string, o Output) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		fh, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return fh.Close()
	}
	files := []struct {
		name string
		f    func(io.Writer) error
	}{
		{"scenario.yaml", func(w io.Writer) error { _, err := w.Write(o.Scenario); return err }},
		{"summary.json", func(w io.Writer) error { return metrics.WriteSummaryJSON(w, o.Summary) }},
		{"jobs.csv", o.Collector.WriteJobsCSV},
		{"timeseries.csv", o.Collector.WriteTimeseriesCSV},
		{"uplinks.csv", o.Collector.WriteUplinksCSV},
		{"pools.csv", o.Collector.WritePoolsCSV},
	}
	if o.Perf != nil {
		files = append(files, struct {
			name string
			f    func(io.Writer) error
		}{"perf.json", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(o.Perf)
		}})
	}
	for _, f := range files {
		if err := write(f.name, f.f); err != nil {
			return err
		}
	}
	return nil
}

// IsRunDir reports whether dir holds a run (a summary.json).
func IsRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "summary.json"))
	return err == nil && st.Mode().IsRegular()
}

// LoadRun reads a run directory. summary.json is required; the other
// files are read when present, so that a directory written before a file
// existed still loads. A file that is there but malformed is an error
// naming it and its line.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, metrics.NotARun(dir, err)
		}
		return nil, err
	}
	if err := json.Unmarshal(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	r.Label = r.Summary.Policy
	if b, err := os.ReadFile(filepath.Join(dir, "scenario.yaml")); err == nil {
		r.Scenario = b
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	readers := []struct {
		name string
		read func(io.Reader) error
	}{
		{"jobs.csv", func(rd io.Reader) (err error) { r.Jobs, err = readJobs(rd); return }},
		{"timeseries.csv", func(rd io.Reader) (err error) { r.Series, err = readSeries(rd); return }},
		{"uplinks.csv", func(rd io.Reader) (err error) { r.Uplinks, err = readUplinks(rd); return }},
		{"pools.csv", func(rd io.Reader) (err error) { r.Pools, err = readPools(rd); return }},
	}
	for _, f := range readers {
		path := filepath.Join(dir, f.name)
		fh, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		err = f.read(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return r, nil
}
