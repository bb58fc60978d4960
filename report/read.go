package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

// csvTable reads a CSV file with a header and finds columns by name, so
// that columns added later do not break the reader.
type csvTable struct {
	r    *csv.Reader
	cols map[string]int // lookup only
	rec  []string
	line int
	err  error
}

func newCSVTable(rd io.Reader, need ...string) (*csvTable, error) {
	r := csv.NewReader(rd)
	r.ReuseRecord = true
	h, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("empty file: want a header line")
	}
	if err != nil {
		return nil, err
	}
	t := &csvTable{r: r, cols: map[string]int{}, line: 1}
	for i, c := range h {
		t.cols[c] = i
	}
	for _, c := range need {
		if _, ok := t.cols[c]; !ok {
			return nil, fmt.Errorf("line 1: no column %q", c)
		}
	}
	return t, nil
}

// next reads a row; it returns false at the end or on an error (see err).
func (t *csvTable) next() bool {
	rec, err := t.r.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		t.err = err
		return false
	}
	t.rec = rec
	t.line++
	return t.err == nil
}

func (t *csvTable) str(col string) string {
	i, ok := t.cols[col]
	if !ok || i >= len(t.rec) {
		return ""
	}
	return t.rec[i]
}

// num parses a column as a number; a missing column reads def.
func (t *csvTable) num(col string, def float64) float64 {
	i, ok := t.cols[col]
	if !ok {
		return def
	}
	if i >= len(t.rec) {
		t.fail(col, "missing")
		return def
	}
	v, err := strconv.ParseFloat(t.rec[i], 64)
	if err != nil {
		t.fail(col, fmt.Sprintf("%q is not a number", t.rec[i]))
		return def
	}
	return v
}

func (t *csvTable) int(col string) int { return int(t.num(col, 0)) }

func (t *csvTable) fail(col, msg string) {
	if t.err == nil {
		t.err = fmt.Errorf("line %d, column %s: %s", t.line, col, msg)
	}
}

func readJobs(rd io.Reader) ([]metrics.JobRecord, error) {
	t, err := newCSVTable(rd, "submit_s", "finish_s")
	if err != nil {
		return nil, err
	}
	var out []metrics.JobRecord
	for t.next() {
		j := metrics.JobRecord{
			ID: t.int("id"), Name: t.str("name"), Kind: t.str("kind"), Pool: t.str("pool"),
			Submit: t.num("submit_s", 0), FirstLaunch: t.num("first_launch_s", -1), Finish: t.num("finish_s", -1),
			Maps: t.int("maps"), Reduces: t.int("reduces"),
			InputBytes: int64(t.num("input_bytes", 0)), ShuffleBytes: int64(t.num("shuffle_bytes", 0)), OutputBytes: int64(t.num("output_bytes", 0)),
			Locality:                 [3]int{t.int("maps_node_local"), t.int("maps_rack_local"), t.int("maps_off_rack")},
			MapProgressAtFirstReduce: t.num("map_progress_at_first_reduce", -1), Slowdown: t.num("slowdown", -1),
		}
		j.Class = workload.ClassOf(j.ShuffleBytes)
		// A number, or the name a Hadoop trace records.
		if u, err := strconv.Atoi(t.str("user")); err == nil {
			j.User = u
		} else {
			j.UserName = t.str("user")
		}
		if t.str(critpath.Queued.Column()) != "" {
			// A completed job of a run that recorded where its time went.
			b := &critpath.Breakdown{HeldBy: t.str("held_by")}
			for p := range critpath.NumParts {
				b.Parts[p] = t.num(p.Column(), 0)
			}
			j.Time = b
		}
		if t.str("status") == "failed" {
			j.Failed, j.Reason = true, t.str("reason")
		}
		out = append(out, j)
	}
	return out, t.err
}

func readSeries(rd io.Reader) ([]metrics.TimeseriesRow, error) {
	t, err := newCSVTable(rd, "t_s")
	if err != nil {
		return nil, err
	}
	var out []metrics.TimeseriesRow
	for t.next() {
		r := metrics.TimeseriesRow{T: t.num("t_s", 0),
			RunningMaps: t.int("running_maps"), RunningReduces: t.int("running_reduces"),
			PendingMaps: t.int("pending_maps"), ActiveJobs: t.int("active_jobs"),
			CongestedUplinks: t.int("congested_uplinks"), MaxUplinkUtil: t.num("max_uplink_util", 0),
			CrossRackTotalBytes: t.num("cross_rack_total_bytes", 0)}
		r.CrossRackBps[metrics.RemoteMap] = t.num("cross_rack_remote_map_Bps", 0)
		r.CrossRackBps[metrics.Shuffle] = t.num("cross_rack_shuffle_Bps", 0)
		r.CrossRackBps[metrics.Output] = t.num("cross_rack_output_Bps", 0)
		out = append(out, r)
	}
	return out, t.err
}

// readUplinks groups uplinks.csv's rows (one per sample and rack) into
// samples; racks are numbered from 0 and each sample lists them all.
func readUplinks(rd io.Reader) ([]metrics.UplinkSample, error) {
	t, err := newCSVTable(rd, "t_s", "rack", "up_util", "down_util")
	if err != nil {
		return nil, err
	}
	var out []metrics.UplinkSample
	for t.next() {
		ts, rack := t.num("t_s", 0), t.int("rack")
		u := [2]float64{t.num("up_util", 0), t.num("down_util", 0)}
		if t.err != nil {
			break
		}
		if rack == 0 {
			out = append(out, metrics.UplinkSample{T: ts})
		}
		if len(out) == 0 || out[len(out)-1].T != ts || rack != len(out[len(out)-1].Util) {
			t.fail("rack", fmt.Sprintf("rack %d at t=%v out of order: each sample lists racks 0, 1, ... in turn", rack, ts))
			break
		}
		s := &out[len(out)-1]
		s.Util = append(s.Util, u)
	}
	return out, t.err
}

func readPools(rd io.Reader) ([]metrics.PoolSample, error) {
	t, err := newCSVTable(rd, "t_s", "pool", "share", "fair_share")
	if err != nil {
		return nil, err
	}
	var out []metrics.PoolSample
	for t.next() {
		out = append(out, metrics.PoolSample{T: t.num("t_s", 0), Pool: t.str("pool"),
			Running: t.int("running_tasks"), Demand: t.int("demand_tasks"),
			Share: t.num("share", 0), FairShare: t.num("fair_share", 0)})
	}
	return out, t.err
}
