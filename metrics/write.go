package metrics

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/mrsched/mrsched/critpath"
)

// WriteSummaryJSON writes s as indented JSON. Map keys are sorted by
// encoding/json, so the bytes are deterministic.
func WriteSummaryJSON(w io.Writer, s Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// WriteJobsCSV writes one row a job, by job ID.
func (c *Collector) WriteJobsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"id", "name", "kind", "user", "pool", "submit_s", "first_launch_s", "finish_s",
		"turnaround_s", "maps", "reduces", "input_bytes", "shuffle_bytes", "output_bytes", "class",
		"maps_node_local", "maps_rack_local", "maps_off_rack", "map_progress_at_first_reduce", "slowdown",
		"status", "reason"}
	if c.timeOn {
		for p := range critpath.NumParts {
			head = append(head, p.Column())
		}
		head = append(head, "held_by")
	}
	_ = cw.Write(head)
	row := make([]string, 0, len(head))
	for i := range c.jobs {
		r := &c.jobs[i]
		row = append(row[:0],
			strconv.Itoa(r.ID), r.Name, r.Kind, r.UserText(), r.Pool,
			ftoa(r.Submit), ftoa(r.FirstLaunch), ftoa(r.Finish), ftoa(r.Turnaround()),
			strconv.Itoa(r.Maps), strconv.Itoa(r.Reduces),
			strconv.FormatInt(r.InputBytes, 10), strconv.FormatInt(r.ShuffleBytes, 10), strconv.FormatInt(r.OutputBytes, 10),
			r.Class.String(), strconv.Itoa(r.Locality[0]), strconv.Itoa(r.Locality[1]), strconv.Itoa(r.Locality[2]),
			ftoa(r.MapProgressAtFirstReduce), ftoa(r.Slowdown), r.Status(), r.Reason,
		)
		if c.timeOn {
			for p := range critpath.NumParts {
				v := ""
				if r.Time != nil {
					v = ftoa(r.Time.Parts[p])
				}
				row = append(row, v)
			}
			if r.Time != nil {
				row = append(row, r.Time.HeldBy)
			} else {
				row = append(row, "")
			}
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteTimeseriesCSV writes the time series.
func (c *Collector) WriteTimeseriesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"t_s", "cross_rack_remote_map_Bps", "cross_rack_shuffle_Bps", "cross_rack_output_Bps",
		"cross_rack_total_bytes", "running_maps", "running_reduces", "pending_maps", "active_jobs",
		"congested_uplinks", "max_uplink_util"})
	for _, r := range c.series {
		_ = cw.Write([]string{
			ftoa(r.T), ftoa(r.CrossRackBps[RemoteMap]), ftoa(r.CrossRackBps[Shuffle]), ftoa(r.CrossRackBps[Output]),
			ftoa(r.CrossRackTotalBytes), strconv.Itoa(r.RunningMaps), strconv.Itoa(r.RunningReduces),
			strconv.Itoa(r.PendingMaps), strconv.Itoa(r.ActiveJobs), strconv.Itoa(r.CongestedUplinks), ftoa(r.MaxUplinkUtil),
		})
	}
	cw.Flush()
	return cw.Error()
}
