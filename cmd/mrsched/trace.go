package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mrsched/mrsched/workload"
	"github.com/mrsched/mrsched/workload/hadooptrace"
)

// traceStatsUsage is trace stats' usage line.
const traceStatsUsage = "usage: mrsched trace stats FILE|DIR|FB-2009|FB-2010|FB-2010-paths [-json] [-format swim|rumen|jhist|sls] [-source-nodes N]"

// hadoopTraceStats prints the stats of a Rumen, JobHistory or SLS trace,
// and reports false when path is none of those (a SWIM file, which the
// SWIM reader takes).
func hadoopTraceStats(path string, format hadooptrace.Format, asJSON bool, stdout io.Writer) (bool, error) {
	if format == "" {
		f, err := hadooptrace.SniffPath(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return false, nil
			}
			return true, err
		}
		format = f
	}
	if format == hadooptrace.FormatSWIM {
		return false, nil
	}
	s, err := hadooptrace.StatsOf(path, format)
	if err != nil {
		return true, err
	}
	if asJSON {
		return true, writeJSON(stdout, s)
	}
	return true, s.Write(stdout)
}

// swimStatsJSON is a SWIM trace's stats under the keys trace stats -json
// gives every format; a SWIM trace names no hosts or racks.
func swimStatsJSON(w io.Writer, s workload.Stats) error {
	return writeJSON(w, map[string]any{
		"format": "swim", "jobs": s.Jobs, "maps": s.Maps, "reduces": s.Reduces,
		"input_bytes": s.InputBytes, "shuffle_bytes": s.ShuffleBytes, "output_bytes": s.OutputBytes,
		"hosts": 0, "racks": 0, "bytes_modelled": false,
	})
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
