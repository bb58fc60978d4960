// Package rundir writes the output directory of one run, as `mrsched
// simulate -out` and each run of a sweep leave it: scenario.yaml (the
// scenario that ran), summary.json, jobs.csv, timeseries.csv and
// perf.json. `diff`, `report` and `sweep collect` read such directories.
package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
)

// Files are the files Write writes, in the order it writes them.
var Files = []string{"scenario.yaml", "summary.json", "jobs.csv", "timeseries.csv", "perf.json"}

// Write writes a finished run's files into dir, creating it. scenarioYAML
// is the scenario as it ran, with a comment saying where it came from.
func Write(dir string, scenarioYAML []byte, res *scenario.Result, perf Perf) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	writers := []func(io.Writer) error{
		func(w io.Writer) error { _, err := w.Write(scenarioYAML); return err },
		func(w io.Writer) error { return metrics.WriteSummaryJSON(w, res.Summary) },
		res.Collector.WriteJobsCSV,
		res.Collector.WriteTimeseriesCSV,
		func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(perf)
		},
	}
	for i, name := range Files {
		if err := writeFile(filepath.Join(dir, name), writers[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile creates path and fills it with write, naming path in an error.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// CheckDir makes dir, if it is missing, and checks that files can be
// created in it: a command that writes its results at the end of a long
// run calls it first, so that a directory it cannot write is an error
// before the run, not after it.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// CheckFile checks that path can be written, without changing a file that
// is there: for an output file asked for at the start of a long run.
func CheckFile(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		return os.Remove(path)
	}
	return nil
}
