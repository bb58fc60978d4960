package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mrsched/mrsched/internal/gzfile"
)

// SWIMColumns are the names of a SWIM trace's six tab-separated columns, as
// SWIM's workload suite README names them. Parse errors name the column.
var SWIMColumns = [6]string{
	"new_unique_job_id",            // job name: job0, job1, ...
	"submit_time_seconds",          // seconds from the workload start
	"inter_job_submit_gap_seconds", // seconds since the previous submission
	"map_input_bytes",
	"shuffle_bytes",
	"reduce_output_bytes",
}

// SWIMPathColumns are the three columns a SWIM trace with input paths
// (FB-2010_samples_24_times_1hr_withInputPaths_0.tsv) has after the six:
// SWIM's WorkloadSynthesis.pl writes each job's anonymised input path
// (inputPath1, inputPath2, ...) or nothing, its anonymised output path
// or nothing, each followed by a tab, so the line ends in an empty ninth
// column. The output path is read and not used (a job's output is a new
// file); the ninth column must be empty.
var SWIMPathColumns = [3]string{"input_path", "output_path", "trailing_tab"}

// MaxSWIMLineBytes bounds one trace line; SWIM lines are under 100 bytes, so a
// longer one is not a trace line (a binary file, a missing newline).
const MaxSWIMLineBytes = 1 << 20

// gapTolerance is how far a line's gap column may differ from the difference
// of consecutive submit times, in seconds: the SWIM traces agree exactly, and
// a trace with fractional times should agree to well under a millisecond.
const gapTolerance = 1e-3

// swimUserStream is the PCG stream of ParseSWIM's user assignment, so that a
// seed shared with other components does not give correlated draws.
const swimUserStream = 0x5357494d // "SWIM"

// SWIMOptions say how ParseSWIM turns a trace into jobs: how bytes scale to the
// simulated cluster, and how it fills what the trace lacks (users, task
// counts, CPU costs).
type SWIMOptions struct {
	SourceNodes    int     // nodes of the traced cluster (600 for FB-2009, 3000 for FB-2010); must be > 0
	TargetNodes    int     // nodes of the simulated cluster; bytes scale by TargetNodes/SourceNodes; must be > 0 (it also caps reduce counts)
	Scale          float64 // if > 0, overrides TargetNodes/SourceNodes as the byte scale factor
	BlockBytes     int64   // HDFS block size, determines NumMaps; must be > 0
	BytesPerReduce int64   // SWIM's reduce-count rule (SWIMReduceCount); 0 = DefaultBytesPerReduce
	Users          int     // jobs assigned to users uniformly at random, seeded; must be > 0
	Seed           uint64  // seeds the user assignment
	Profile        Profile // zero value -> DefaultProfile()
	MaxJobs        int     // 0 = all; else the first MaxJobs jobs (of the window)
	StartS, EndS   float64 // optional submit-time window [StartS, EndS) (EndS 0 = no end); submit times are kept as in the trace minus StartS
	// SynthesisPaths says the input paths are the anonymised names SWIM's
	// WorkloadSynthesis.pl gives (inputPathN), which ParseSWIM renumbers
	// (see there); false takes every path as written.
	SynthesisPaths bool
}

// Validate reports the first option that ParseSWIM cannot use, naming it
// (an *OptionError).
func (o SWIMOptions) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	bad := func(option string, format string, args ...any) error {
		return &OptionError{Option: option, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case o.SourceNodes <= 0:
		return bad("SourceNodes", "%d: must be positive (600 for FB-2009, 3000 for FB-2010)", o.SourceNodes)
	case o.TargetNodes <= 0:
		return bad("TargetNodes", "%d: must be positive (the simulated cluster's node count)", o.TargetNodes)
	case !finite(o.Scale) || o.Scale < 0:
		return bad("Scale", "%v: must be finite and non-negative (0 = target nodes / source nodes)", o.Scale)
	case o.BlockBytes <= 0:
		return bad("BlockBytes", "%d: must be positive (e.g. 64 or 128 MiB)", o.BlockBytes)
	case o.BytesPerReduce < 0:
		return bad("BytesPerReduce", "%d: must be non-negative (0 = %d)", o.BytesPerReduce, DefaultBytesPerReduce)
	case o.Users <= 0:
		return bad("Users", "%d: must be positive", o.Users)
	case o.MaxJobs < 0:
		return bad("MaxJobs", "%d: must be non-negative (0 = all)", o.MaxJobs)
	case !finite(o.StartS) || o.StartS < 0:
		return bad("StartS", "%v: must be finite and non-negative", o.StartS)
	case !finite(o.EndS) || o.EndS < 0:
		return bad("EndS", "%v: must be finite and non-negative (0 = no end)", o.EndS)
	case o.EndS != 0 && o.EndS <= o.StartS:
		return bad("EndS", "%v: not after the window's start %v, so the window is empty (0 = no end)", o.EndS, o.StartS)
	}
	if !o.Profile.IsZero() {
		if err := o.Profile.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// OptionError is an option of SWIMOptions that ParseSWIM cannot use.
// Option is the field's name, so that a caller that takes the option under
// another name (a scenario file's workload.max_jobs) can report it so.
type OptionError struct {
	Option string // the SWIMOptions field
	Msg    string // its value and the rule it breaks
}

// Error reads as the option, its value and the rule: "MaxJobs -5: must be ...".
func (e *OptionError) Error() string { return e.Option + " " + e.Msg }

// ParseError is a malformed or unusable trace line: File and the 1-based Line,
// the column (Field, empty when the line as a whole is wrong) and why. Line is
// 0 for errors about the trace as a whole (it has no job).
type ParseError struct {
	File  string
	Line  int
	Field string
	Err   error
}

// Error reads like a compiler's: `FB-2010.tsv:17: field "shuffle_bytes": "abc"
// is not a non-negative integer`.
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Field != "":
		return fmt.Sprintf("%s:%d: field %q: %v", e.File, e.Line, e.Field, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap gives the cause, so errors.Is(err, ErrNoJobs) works.
func (e *ParseError) Unwrap() error { return e.Err }

// swimRecord is one parsed trace line, before scaling.
type swimRecord struct {
	name                   string
	submit, gap            float64
	input, shuffle, output int64
	path                   string // input path, "" when the trace has none
}

// ParseSWIM reads a SWIM trace (see SWIMColumns and traces/README.md) and
// returns its jobs in submit order, IDs 0..n-1. name is the file name used in
// errors. What the trace lacks is filled as follows:
//
//   - Bytes scale by TargetNodes/SourceNodes (or Scale), truncated to whole
//     bytes, as SWIM's replay does; SWIM's minimum sizes (64 MiB input, 1 KiB
//     shuffle and output), which exist only to keep real Hadoop jobs non-empty,
//     are not applied, so the trace's many tiny jobs stay tiny.
//   - NumMaps = MapCount(scaled input, BlockBytes); NumReduces by
//     SWIMReduceCount on the scaled bytes.
//   - Users are drawn uniformly from 0..Users-1 by a PCG seeded with Seed, one
//     draw per trace line in file order, so a job keeps its user whatever
//     window or MaxJobs selects it. Pool is PoolOf(User); Weight is 1.
//   - Profile is opt.Profile, or DefaultProfile() if that is zero.
//   - DataSet is the line's input path, when the trace has them (nine
//     columns, SWIMPathColumns); a job without one reads a file of its
//     own. With SynthesisPaths, a path named inputPathN is renumbered:
//     WorkloadSynthesis.pl numbers a path by the count of paths seen when
//     it first meets it, and stores the count before the path was added,
//     so it prints a path's first read as inputPathN and every later read
//     of it as inputPath(N-1), the previous path's name. ParseSWIM gives
//     the first line naming inputPathN (N >= 1) data set inputPathN and
//     every later line naming it data set inputPath(N+1). In FB-2010's
//     trace with input paths every one of the 8,270 later reads of a name
//     comes after the next path's first read, for 241 names on the very
//     next line; were the names the paths, about as many would be re-read
//     before the next path appears (traces/README.md).
//
// Every line is checked, also outside the window: six tab-separated
// fields, or nine in a trace with input paths, every line as many as the
// first (spaces around a field and a trailing CR are ignored; blank lines
// are skipped), a non-empty name, a valid UTF-8 input path, an empty
// ninth column, non-negative finite times, non-negative integer
// bytes, submit times that never decrease (the SWIM traces are sorted; an
// unsorted trace is rejected rather than silently reordered), and a gap column
// that agrees with consecutive submit times (from the second line on: the first
// line's gap is from a trace start a trace excerpt may not include). Any
// violation is a *ParseError naming the file, line and column. A trace, or a
// window of one, without jobs is an error wrapping ErrNoJobs.
func ParseSWIM(r io.Reader, name string, opt SWIMOptions) ([]Job, error) {
	if name == "" {
		name = "<input>"
	}
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("%s: SWIM options: %w", name, err)
	}
	profile := opt.Profile
	if profile.IsZero() {
		profile = DefaultProfile()
	}
	scale := newScaler(opt)
	rng := rand.New(rand.NewPCG(opt.Seed, swimUserStream))

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxSWIMLineBytes)
	var (
		jobs            []Job
		lineNo, records int
		prevSubmit      float64
		prevLine        int
		cols, colsLine  int             // the first record's field count (6 or 9), and its line
		named           map[string]bool // synthesis path names met so far
	)
	if opt.SynthesisPaths {
		named = map[string]bool{}
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		perr := func(field string, format string, args ...any) error {
			return &ParseError{File: name, Line: lineNo, Field: field, Err: fmt.Errorf(format, args...)}
		}
		rec, n, err := parseSWIMLine(line, cols, colsLine)
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				return nil, perr(fe.field, "%s", fe.msg)
			}
			return nil, perr("", "%v", err)
		}
		if records > 0 {
			if rec.submit < prevSubmit {
				return nil, perr(SWIMColumns[1], "%s is earlier than the previous job's %s (line %d); a SWIM trace must be sorted by submit time",
					fmtSec(rec.submit), fmtSec(prevSubmit), prevLine)
			}
			if d := rec.submit - prevSubmit; math.Abs(rec.gap-d) > gapTolerance {
				return nil, perr(SWIMColumns[2], "%s disagrees with the submit times, %s - %s = %s (previous job on line %d)",
					fmtSec(rec.gap), fmtSec(rec.submit), fmtSec(prevSubmit), fmtSec(d), prevLine)
			}
		}
		if records == 0 {
			cols, colsLine = n, lineNo
		}
		records++
		prevSubmit, prevLine = rec.submit, lineNo
		user := rng.IntN(opt.Users)
		dataSet := rec.path
		if named != nil {
			dataSet = synthesisDataSet(rec.path, named)
		}

		if rec.submit < opt.StartS || (opt.EndS > 0 && rec.submit >= opt.EndS) {
			continue
		}
		if opt.MaxJobs > 0 && len(jobs) >= opt.MaxJobs {
			continue // keep checking the rest of the file
		}
		j := Job{
			ID:      len(jobs),
			Name:    rec.name,
			Kind:    KindSWIM,
			User:    user,
			Pool:    PoolOf(user),
			Submit:  rec.submit - opt.StartS,
			Profile: profile,
			Weight:  DefaultWeight,
			DataSet: dataSet,
		}
		for _, f := range []struct {
			col int
			in  int64
			out *int64
		}{{3, rec.input, &j.InputBytes}, {4, rec.shuffle, &j.ShuffleBytes}, {5, rec.output, &j.OutputBytes}} {
			v, ok := scale.apply(f.in)
			if !ok {
				return nil, perr(SWIMColumns[f.col], "%d scaled by %s overflows a 64-bit byte count", f.in, scale)
			}
			*f.out = v
		}
		if q := (j.InputBytes-1)/opt.BlockBytes + 1; j.InputBytes > 0 && q > MaxMapsPerJob {
			return nil, perr(SWIMColumns[3], "%d bytes (scaled) need %d maps of %d-byte blocks, more than the %d a job may have; raise BlockBytes or lower the scale",
				j.InputBytes, q, opt.BlockBytes, MaxMapsPerJob)
		}
		j.NumMaps = MapCount(j.InputBytes, opt.BlockBytes)
		j.NumReduces = SWIMReduceCount(j.ShuffleBytes, j.OutputBytes, opt.BytesPerReduce, opt.TargetNodes)
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{File: name, Line: lineNo + 1, Err: fmt.Errorf("line longer than %d bytes; not a SWIM trace line", MaxSWIMLineBytes)}
		}
		return nil, &ParseError{File: name, Line: lineNo + 1, Err: fmt.Errorf("read: %w", err)}
	}
	if records == 0 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: the trace has no job lines", ErrNoJobs)}
	}
	if len(jobs) == 0 {
		end := "end"
		if opt.EndS > 0 {
			end = fmtSec(opt.EndS)
		}
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: none of the trace's %d jobs submits in the window [%s, %s)", ErrNoJobs, records, fmtSec(opt.StartS), end)}
	}
	return jobs, nil
}

// LoadSWIMFile opens path, gzip-compressed or not, and parses it with
// ParseSWIM; errors name path.
func LoadSWIMFile(path string, opt SWIMOptions) ([]Job, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSWIM(f, path, opt)
}

// fieldError is a bad value in one column of a line.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return fmt.Sprintf("field %q: %s", e.field, e.msg) }

// parseSWIMLine splits and checks one non-blank line, and returns its
// field count. want is the count every line must have (the first line's,
// from line wantLine), or 0 for the first line, which may have six or
// nine.
func parseSWIMLine(line string, want, wantLine int) (swimRecord, int, error) {
	var rec swimRecord
	fields := strings.Split(line, "\t")
	six, nine := len(SWIMColumns), len(SWIMColumns)+len(SWIMPathColumns)
	switch n := len(fields); {
	case want == 0 && n != six && n != nine:
		return rec, n, fmt.Errorf("has %d tab-separated fields, want %d (%s) or, with input paths, %d (those and %s)",
			n, six, strings.Join(SWIMColumns[:], ", "), nine, strings.Join(SWIMPathColumns[:], ", "))
	case want != 0 && n != want:
		return rec, n, fmt.Errorf("has %d tab-separated fields, want %d as line %d has", n, want, wantLine)
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	rec.name = fields[0]
	switch {
	case rec.name == "":
		return rec, len(fields), &fieldError{SWIMColumns[0], "empty job name"}
	case !utf8.ValidString(rec.name):
		return rec, len(fields), &fieldError{SWIMColumns[0], fmt.Sprintf("%q is not valid UTF-8", rec.name)}
	}
	var err error
	if rec.submit, err = parseSeconds(SWIMColumns[1], fields[1]); err != nil {
		return rec, len(fields), err
	}
	if rec.gap, err = parseSeconds(SWIMColumns[2], fields[2]); err != nil {
		return rec, len(fields), err
	}
	for i, dst := range []*int64{&rec.input, &rec.shuffle, &rec.output} {
		if *dst, err = parseBytes(SWIMColumns[3+i], fields[3+i]); err != nil {
			return rec, len(fields), err
		}
	}
	if len(fields) == nine {
		rec.path = fields[six]
		if !utf8.ValidString(rec.path) {
			return rec, len(fields), &fieldError{SWIMPathColumns[0], fmt.Sprintf("%q is not valid UTF-8", rec.path)}
		}
		if last := fields[nine-1]; last != "" {
			return rec, len(fields), &fieldError{SWIMPathColumns[2], fmt.Sprintf("%q; want it empty: a line ends with a tab after the output path", last)}
		}
	}
	return rec, len(fields), nil
}

// synthesisPrefix is how WorkloadSynthesis.pl names anonymised paths.
const synthesisPrefix = "inputPath"

// synthesisDataSet is the data set a line naming path reads, given the
// synthesis path names met before it (SWIMOptions.SynthesisPaths), which
// it updates. A path not named inputPathN is taken as written.
func synthesisDataSet(path string, named map[string]bool) string {
	digits, ok := strings.CutPrefix(path, synthesisPrefix)
	n, err := strconv.ParseUint(digits, 10, 63)
	if !ok || err != nil || strconv.FormatUint(n, 10) != digits {
		return path
	}
	if n >= 1 && !named[path] {
		named[path] = true
		return path
	}
	return synthesisPrefix + strconv.FormatUint(n+1, 10)
}

func parseSeconds(field, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, &fieldError{field, fmt.Sprintf("%q is not a non-negative finite number of seconds", s)}
	}
	return v, nil
}

func parseBytes(field, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-") {
		return 0, &fieldError{field, fmt.Sprintf("%q is out of range (at most %d bytes)", s, int64(math.MaxInt64))}
	}
	if err != nil || v < 0 {
		return 0, &fieldError{field, fmt.Sprintf("%q is not a non-negative integer", s)}
	}
	return v, nil
}

// fmtSec prints seconds without float noise: "49", "12.5".
func fmtSec(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// scaler multiplies byte counts by the byte scale factor: exactly by the
// integer ratio TargetNodes/SourceNodes, truncating as SWIM's integer
// arithmetic does, or by the float Scale, truncated too.
type scaler struct {
	num, den uint64  // integer ratio, when factor == 0
	factor   float64 // Scale, when > 0
}

// newScaler takes validated options (positive node counts).
func newScaler(o SWIMOptions) scaler {
	if o.Scale > 0 {
		return scaler{factor: o.Scale}
	}
	return scaler{num: uint64(o.TargetNodes), den: uint64(o.SourceNodes)}
}

// apply scales b; ok is false on overflow.
func (s scaler) apply(b int64) (int64, bool) {
	if b == 0 {
		return 0, true
	}
	if s.factor > 0 {
		if s.factor == 1 {
			return b, true
		}
		v := math.Floor(float64(b) * s.factor)
		if v >= math.MaxInt64 { // float64(MaxInt64) is 2^63, itself out of range
			return 0, false
		}
		return int64(v), true
	}
	hi, lo := bits.Mul64(uint64(b), s.num)
	if hi >= s.den {
		return 0, false
	}
	q, _ := bits.Div64(hi, lo, s.den)
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// String prints the factor for error messages.
func (s scaler) String() string {
	if s.factor > 0 {
		return fmtSec(s.factor)
	}
	return fmt.Sprintf("%d/%d", s.num, s.den)
}
