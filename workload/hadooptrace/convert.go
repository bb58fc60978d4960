package hadooptrace

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mrsched/mrsched/workload"
)

// SLSByteModel gives the bytes of jobs whose trace records none (SLS):
// each map reads MapInputBytes, and a job shuffles ShuffleRatio times its
// input and writes OutputRatio times its shuffle (a map-only job: times
// its input).
type SLSByteModel struct {
	MapInputBytes             int64
	ShuffleRatio, OutputRatio float64
}

// DefaultSLSByteModel is the byte model an SLS trace is read with unless a
// scenario says otherwise: a map reads one HDFS block of blockBytes, the
// split a map gets by default (FileInputFormat makes one split a block),
// and shuffle and output equal the input, the neutral ratio 1 (the
// boundary ShuffleWatcher draws between shuffle-light and shuffle-heavy
// jobs); SLS itself simulates containers, not bytes, and has no model.
func DefaultSLSByteModel(blockBytes int64) SLSByteModel {
	return SLSByteModel{MapInputBytes: blockBytes, ShuffleRatio: 1, OutputRatio: 1}
}

// ConvertOptions say how Convert makes the simulator's jobs.
type ConvertOptions struct {
	// Profile is the jobs' CPU profile (per-byte costs, task memory).
	Profile workload.Profile
	// Bytes is the byte model of jobs without bytes (SLS).
	Bytes SLSByteModel
	// MaxJobs keeps the first jobs by submit time (0: all); StartS and
	// EndS keep those submitted in [StartS, EndS) seconds from the first
	// job (EndS 0: no end), their submit times then counted from StartS.
	MaxJobs      int
	StartS, EndS float64
	// Scale multiplies every byte count (0 or 1: as traced).
	Scale float64
}

// ConvertStats counts what Convert dropped or assumed, by rule.
type ConvertStats struct {
	Duplicates int // later records of a job id, dropped
	NoMaps     int // jobs without a map, given one empty map
	MapOnly    int // jobs without a reduce, given one empty reduce
	Modelled   int // jobs whose bytes come from the byte model
}

// Convert makes the simulator's jobs from traced ones, in submit order
// (file order among equal times), IDs dense. Rules:
//
//   - Submit times are seconds from the earliest kept job's submit.
//     A job that records none takes its launch time, else its first
//     attempt's start; a job with none of them is an error naming it.
//   - A repeated job id is dropped (its first record is kept).
//   - Failed and killed jobs are kept and replayed as submitted: their
//     tasks ran and loaded the cluster. Their traced durations do not
//     count in replay fidelity (Measured.Succeeded).
//   - NumMaps is the traced maps, NumReduces the traced reduces; a job
//     without maps gets one map of no input and a map-only job one reduce
//     of no shuffle, since the engine runs every job through a reduce:
//     the reduce then writes the job's output, which its maps wrote.
//   - A task without a successful attempt is kept: its input counts (its
//     maps read it), its shuffle and output are 0, its measured time
//     unknown.
//   - Map inputs are each map's traced input (MapInputs); bytes are
//     Job.InputBytes, ShuffleBytes and OutputBytes, scaled by Scale.
//   - Users are numbered in order of first appearance; the pool is the
//     user's name ("default" without one), Hadoop 1's default pool;
//     UserName and Queue keep the traced names for an allocation file.
//   - A task's memory (Rumen's jobMapMB, jobReduceMB) sets the profile's
//     per-task memory.
func Convert(traced []*Job, opt ConvertOptions) ([]workload.Job, ConvertStats, error) {
	var st ConvertStats
	type rec struct {
		j      *Job
		submit int64
		order  int
	}
	seen := map[string]bool{}
	var recs []rec
	for i, j := range traced {
		if j.ID != "" {
			if seen[j.ID] {
				st.Duplicates++
				continue
			}
			seen[j.ID] = true
		}
		sub := j.Submit
		if sub < 0 {
			sub = j.Launch
		}
		if sub < 0 {
			sub = firstStart(j)
		}
		if sub < 0 {
			return nil, st, &ParseError{File: j.File, Line: j.Line, Job: j.ID, Field: "submitTime", Err: fmt.Errorf("the job records no submit, launch or attempt start time")}
		}
		recs = append(recs, rec{j, sub, i})
	}
	if len(recs) == 0 {
		return nil, st, workload.ErrNoJobs
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return cmp.Compare(a.submit, b.submit) })
	origin := recs[0].submit
	scale := opt.Scale
	if scale <= 0 {
		scale = 1
	}
	sc := func(b int64) int64 {
		if scale == 1 {
			return b
		}
		return int64(math.Floor(float64(b) * scale))
	}
	users := map[string]int{}
	var jobs []workload.Job
	for _, r := range recs {
		t := float64(r.submit-origin) / 1000
		if t < opt.StartS || (opt.EndS > 0 && t >= opt.EndS) {
			continue
		}
		if opt.MaxJobs > 0 && len(jobs) >= opt.MaxJobs {
			break
		}
		j := r.j
		w := workload.Job{
			ID: len(jobs), Name: j.ID, Kind: "trace", Submit: t - opt.StartS,
			UserName: j.User, Queue: j.Queue, Profile: opt.Profile, Weight: workload.DefaultWeight,
		}
		if w.Name == "" {
			w.Name = fmt.Sprintf("%s:%d", j.File, j.Line)
		}
		u, ok := users[j.User]
		if !ok {
			u = len(users)
			users[j.User] = u
		}
		w.User = u
		w.Pool = j.User
		if w.Pool == "" {
			w.Pool = "default"
		}
		if j.MapMB > 0 {
			w.Profile.MapMemGB = float64(j.MapMB) / 1024
		}
		if j.ReduceMB > 0 {
			w.Profile.ReduceMemGB = float64(j.ReduceMB) / 1024
		}
		w.NumMaps, w.NumReduces = max(len(j.Maps), 1), max(len(j.Reduces), 1)
		if len(j.Maps) == 0 {
			st.NoMaps++
		}
		if len(j.Reduces) == 0 {
			st.MapOnly++
		}
		m := &workload.Measured{DurationS: -1, Succeeded: j.Succeeded(), MapInputs: make([]int64, w.NumMaps),
			MapS: make([]float64, w.NumMaps), ReduceS: make([]float64, w.NumReduces), MapHost: make([]string, w.NumMaps), Conf: j.Conf}
		w.Measured = m
		var hosts [][]string
		for i := range j.Maps {
			t := &j.Maps[i]
			if j.BytesModelled {
				m.MapInputs[i] = sc(opt.Bytes.MapInputBytes)
			} else {
				m.MapInputs[i] = sc(t.InputBytes())
			}
			w.InputBytes += m.MapInputs[i]
			if len(t.Preferred) > 0 {
				if hosts == nil {
					hosts = make([][]string, w.NumMaps)
				}
				for _, l := range t.Preferred {
					hosts[i] = append(hosts[i], l.Host)
				}
			}
		}
		m.MapHosts = hosts
		if j.BytesModelled {
			st.Modelled++
			w.ShuffleBytes = int64(math.Floor(float64(w.InputBytes) * opt.Bytes.ShuffleRatio))
			if len(j.Reduces) == 0 {
				w.ShuffleBytes = 0
				w.OutputBytes = int64(math.Floor(float64(w.InputBytes) * opt.Bytes.OutputRatio))
			} else {
				w.OutputBytes = int64(math.Floor(float64(w.ShuffleBytes) * opt.Bytes.OutputRatio))
			}
		} else {
			w.ShuffleBytes, w.OutputBytes = sc(j.ShuffleBytes()), sc(j.OutputBytes())
		}
		if d, ok := j.DurationS(); ok {
			m.DurationS = d
		}
		for i := range m.MapS {
			m.MapS[i] = -1
			if i < len(j.Maps) {
				if a, ok := j.Maps[i].Success(); ok {
					m.MapHost[i] = a.Loc.Host
					if d, ok := a.Duration(); ok {
						m.MapS[i] = d
					}
				}
			}
		}
		m.ReduceFnS = make([]float64, w.NumReduces)
		for i := range m.ReduceS {
			m.ReduceS[i], m.ReduceFnS[i] = -1, -1
			if i < len(j.Reduces) {
				if a, ok := j.Reduces[i].Success(); ok {
					if d, ok := a.Duration(); ok {
						m.ReduceS[i] = d
					}
					if d, ok := a.ReduceS(); ok {
						m.ReduceFnS[i] = d
					}
				}
			}
		}
		jobs = append(jobs, w)
	}
	if len(jobs) == 0 {
		end := "end"
		if opt.EndS > 0 {
			end = strconv.FormatFloat(opt.EndS, 'g', -1, 64)
		}
		span := float64(recs[len(recs)-1].submit-origin) / 1000
		return nil, st, fmt.Errorf("%w: none of the trace's %d jobs (submitted over %s s) submits in the window [%s, %s) s",
			workload.ErrNoJobs, len(recs), strconv.FormatFloat(span, 'g', -1, 64), strconv.FormatFloat(opt.StartS, 'g', -1, 64), end)
	}
	return jobs, st, nil
}

// firstStart is the earliest attempt start of a job, Unknown when none
// records one.
func firstStart(j *Job) int64 {
	first := int64(Unknown)
	for _, ts := range [][]Task{j.Maps, j.Reduces} {
		for i := range ts {
			for _, a := range ts[i].Attempts {
				if a.Start >= 0 && (first < 0 || a.Start < first) {
					first = a.Start
				}
			}
		}
	}
	return first
}

// ReadAll reads every job of the trace at path (format sniffed when ""),
// keeping the job configuration properties keep names (ScanPathKeeping).
func ReadAll(path string, format Format, keep ...string) ([]*Job, Format, error) {
	if format == "" {
		var err error
		if format, err = SniffPath(path); err != nil {
			return nil, "", err
		}
	}
	var jobs []*Job
	err := ScanPathKeeping(path, format, keep, func(j *Job) error { jobs = append(jobs, j); return nil })
	return jobs, format, err
}

// Hosts lists the hosts and their racks that ran the jobs' attempts or
// hold their input (preferred locations), each once, in order of first
// appearance: the cluster a trace implies when no topology is given, as
// SLS builds its nodes from a trace's hosts. A host named without a rack
// is on DefaultRack.
func Hosts(jobs []*Job) []Location {
	seen := map[string]int{}
	var out []Location
	add := func(l Location) {
		if l.Host == "" {
			return
		}
		if l.Rack == "" {
			l.Rack = DefaultRack
		}
		if i, ok := seen[l.Host]; ok {
			if out[i].Rack == DefaultRack && l.Rack != DefaultRack {
				out[i].Rack = l.Rack // a later record knows its rack
			}
			return
		}
		seen[l.Host] = len(out)
		out = append(out, l)
	}
	for _, j := range jobs {
		for _, ts := range [][]Task{j.Maps, j.Reduces} {
			for i := range ts {
				for _, a := range ts[i].Attempts {
					add(a.Loc)
				}
				for _, l := range ts[i].Preferred {
					add(l)
				}
			}
		}
	}
	return out
}

// DefaultRack is the rack of a host a trace names without one, as
// Hadoop's NetworkTopology.DEFAULT_RACK.
const DefaultRack = "/default-rack"
