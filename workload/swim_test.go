package workload

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/traces"
)

// unscaled returns options that keep trace bytes as they are.
func unscaled(sourceNodes int) SWIMOptions {
	return SWIMOptions{SourceNodes: sourceNodes, TargetNodes: sourceNodes, BlockBytes: 128 * MiB, Users: 200, Seed: 1}
}

func TestEmbeddedTracesLoad(t *testing.T) {
	tests := []struct {
		name       string
		wantJobs   int
		wantFirst  string
		wantSubmit float64 // first job's submit time
	}{
		{traces.FB2009Name, 5894, "job0", 49},
		{traces.FB2010Name, 24442, "job0", 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, nodes, ok := traces.Embedded(tc.name)
			if !ok {
				t.Fatalf("traces.Embedded(%q) not found", tc.name)
			}
			jobs, err := ParseSWIM(bytes.NewReader(data), tc.name, unscaled(nodes))
			if err != nil {
				t.Fatalf("ParseSWIM(%s): %v", tc.name, err)
			}
			if len(jobs) != tc.wantJobs {
				t.Errorf("%s has %d jobs, want %d (one per trace line)", tc.name, len(jobs), tc.wantJobs)
			}
			if err := Validate(jobs); err != nil {
				t.Errorf("loaded jobs fail Validate: %v", err)
			}
			if jobs[0].Name != tc.wantFirst || jobs[0].Submit != tc.wantSubmit || jobs[0].Kind != KindSWIM {
				t.Errorf("first job = %q at %v s kind %q, want %q at %v s kind %q",
					jobs[0].Name, jobs[0].Submit, jobs[0].Kind, tc.wantFirst, tc.wantSubmit, KindSWIM)
			}
			if last := jobs[len(jobs)-1].Submit; last < 86000 || last > 86500 {
				t.Errorf("last submit %v s, want about 86,400 s (the traces span 24 hours)", last)
			}
		})
	}
}

func TestFB2010ClassSplit(t *testing.T) {
	// NAS paper Fig. 2 and the traces README: light < 1 MB, medium 1-100 MB, heavy > 100 MB
	// split FB-2010 68.6% / 12.6% / 18.8%, by the trace's own (unscaled) bytes.
	jobs, err := ParseSWIM(bytes.NewReader(traces.FB2010()), traces.FB2010Name, unscaled(traces.FB2010SourceNodes))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(jobs)
	want := [NumClasses]float64{68.6, 12.6, 18.8}
	for c := ClassLight; c < NumClasses; c++ {
		if got := s.ClassPercent(c); math.Abs(got-want[c]) > 0.05 {
			t.Errorf("FB-2010 shuffle-%s share = %.3f%%, want %.1f%% within 0.05 points (the NAS paper's split)", c, got, want[c])
		}
	}
}

const tinyTrace = "job0\t10\t10\t1000\t500\t250\n" +
	"job1\t20\t10\t0\t0\t7\n" +
	"job2\t20\t0\t3000000000\t6000000000\t30\n"

func TestScalingMultipliesBytes(t *testing.T) {
	type bytes3 struct{ in, sh, out int64 }
	orig := []bytes3{{1000, 500, 250}, {0, 0, 7}, {3_000_000_000, 6_000_000_000, 30}}
	tests := []struct {
		name   string
		source int
		target int
		scale  float64
		want   []bytes3
	}{
		{"same size keeps bytes", 600, 600, 0, orig},
		{"600 to 100 nodes divides by 6, truncating as SWIM does", 600, 100, 0,
			[]bytes3{{166, 83, 41}, {0, 0, 1}, {500_000_000, 1_000_000_000, 5}}},
		{"3000 to 600 nodes is a fifth", 3000, 600, 0,
			[]bytes3{{200, 100, 50}, {0, 0, 1}, {600_000_000, 1_200_000_000, 6}}},
		{"Scale overrides the node ratio", 600, 100, 2.5,
			[]bytes3{{2500, 1250, 625}, {0, 0, 17}, {7_500_000_000, 15_000_000_000, 75}}},
		{"Scale 1 is exact", 3000, 600, 1, orig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := SWIMOptions{SourceNodes: tc.source, TargetNodes: tc.target, Scale: tc.scale, BlockBytes: 1000, Users: 1}
			jobs, err := ParseSWIM(strings.NewReader(tinyTrace), "tiny.tsv", opt)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				j := jobs[i]
				if got := (bytes3{j.InputBytes, j.ShuffleBytes, j.OutputBytes}); got != w {
					t.Errorf("job %d bytes (input, shuffle, output) = %v, want %v", i, got, w)
				}
				if wantMaps := MapCount(w.in, 1000); j.NumMaps != wantMaps {
					t.Errorf("job %d has %d maps, want %d: maps count the scaled input", i, j.NumMaps, wantMaps)
				}
			}
		})
	}
}

func TestReducesUseScaledBytes(t *testing.T) {
	// 6 GB shuffle + 30 B output at full scale is 89 reduces of 64 MiB, under 600
	// nodes; scaled to 100 nodes it is 1 GB, 15 reduces.
	for _, tc := range []struct {
		target int
		want   int
	}{{600, 89}, {100, 15}} {
		opt := SWIMOptions{SourceNodes: 600, TargetNodes: tc.target, BlockBytes: 64 * MiB, Users: 1}
		jobs, err := ParseSWIM(strings.NewReader(tinyTrace), "tiny.tsv", opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := jobs[2].NumReduces; got != tc.want {
			t.Errorf("target %d nodes: job2 has %d reduces, want %d (SWIM rule on scaled bytes)", tc.target, got, tc.want)
		}
	}
}

func TestUserAssignment(t *testing.T) {
	load := func(seed uint64, users int, start, end float64) []Job {
		t.Helper()
		opt := unscaled(traces.FB2010SourceNodes)
		opt.Seed, opt.Users, opt.StartS, opt.EndS = seed, users, start, end
		jobs, err := ParseSWIM(bytes.NewReader(traces.FB2010()), "FB-2010", opt)
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	a, b, c := load(7, 200, 0, 0), load(7, 200, 0, 0), load(8, 200, 0, 0)
	seen := make([]int, 200)
	same, differ := true, 0
	for i := range a {
		if a[i].User != b[i].User || a[i].Pool != b[i].Pool {
			same = false
		}
		if a[i].User != c[i].User {
			differ++
		}
		if a[i].Pool != fmt.Sprintf("user%d", a[i].User) {
			t.Fatalf("job %d pool %q, want user%d", i, a[i].Pool, a[i].User)
		}
		seen[a[i].User]++
	}
	if !same {
		t.Errorf("same seed gave different users: assignment must be deterministic")
	}
	if differ < len(a)/2 {
		t.Errorf("seeds 7 and 8 agree on %d of %d users; a different seed should reshuffle them", len(a)-differ, len(a))
	}
	for u, n := range seen {
		// 24,442 jobs over 200 users is 122 each on average; a uniform draw leaves none near 0.
		if n < 60 {
			t.Errorf("user %d has %d jobs, want about 122: users must be uniform and all used", u, n)
		}
	}
	// A window keeps each job's user: draws are per trace line, not per kept job.
	w := load(7, 200, 3600, 7200)
	byName := make(map[string]int, len(a))
	for _, j := range a {
		byName[j.Name] = j.User
	}
	for _, j := range w {
		if byName[j.Name] != j.User {
			t.Fatalf("%s has user %d in the window but %d in the full trace", j.Name, j.User, byName[j.Name])
		}
	}
}

func TestWindowAndMaxJobs(t *testing.T) {
	trace := "a\t0\t0\t1\t1\t1\nb\t10\t10\t1\t1\t1\nc\t20\t10\t1\t1\t1\nd\t30\t10\t1\t1\t1\n"
	tests := []struct {
		name        string
		start, end  float64
		max         int
		wantNames   string
		wantSubmits []float64
	}{
		{"everything", 0, 0, 0, "a b c d", []float64{0, 10, 20, 30}},
		{"start shifts submit times", 10, 0, 0, "b c d", []float64{0, 10, 20}},
		{"end is exclusive", 10, 30, 0, "b c", []float64{0, 10}},
		{"max jobs takes the first", 0, 0, 2, "a b", []float64{0, 10}},
		{"max jobs inside a window", 10, 0, 1, "b", []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 1, Users: 1, StartS: tc.start, EndS: tc.end, MaxJobs: tc.max}
			jobs, err := ParseSWIM(strings.NewReader(trace), "w.tsv", opt)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for i, j := range jobs {
				names = append(names, j.Name)
				if j.ID != i {
					t.Errorf("job %s has ID %d, want %d (dense after filtering)", j.Name, j.ID, i)
				}
				if i < len(tc.wantSubmits) && j.Submit != tc.wantSubmits[i] {
					t.Errorf("job %s submits at %v, want %v (trace time minus StartS)", j.Name, j.Submit, tc.wantSubmits[i])
				}
			}
			if got := strings.Join(names, " "); got != tc.wantNames {
				t.Errorf("kept jobs %q, want %q", got, tc.wantNames)
			}
		})
	}
	opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 1, Users: 1, StartS: 100}
	_, err := ParseSWIM(strings.NewReader(trace), "w.tsv", opt)
	if !errors.Is(err, ErrNoJobs) {
		t.Errorf("a window with no job gave %v, want an error wrapping ErrNoJobs", err)
	}
}

func TestProfileOption(t *testing.T) {
	base := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 64 * MiB, Users: 1}
	jobs, err := ParseSWIM(strings.NewReader(tinyTrace), "p.tsv", base)
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Profile != DefaultProfile() || jobs[0].Weight != 1 {
		t.Errorf("zero Profile option gave %+v weight %v, want DefaultProfile() and weight 1", jobs[0].Profile, jobs[0].Weight)
	}
	custom := Profile{MapSecPerByte: 1e-6, ReduceSecPerByte: 2e-6}
	base.Profile = custom
	if jobs, err = ParseSWIM(strings.NewReader(tinyTrace), "p.tsv", base); err != nil {
		t.Fatal(err)
	}
	if jobs[0].Profile != custom {
		t.Errorf("Profile option %+v not applied, got %+v", custom, jobs[0].Profile)
	}
}

func TestParseSWIMMalformed(t *testing.T) {
	const ok = "job0\t10\t10\t1000\t500\t250\n"
	tests := []struct {
		name      string
		input     string
		wantLine  int
		wantField string // "" when the line as a whole is wrong
		wantText  string
	}{
		{"non-numeric shuffle", ok + "job1\t20\t10\t1\tabc\t1\n", 2, "shuffle_bytes", `"abc" is not a non-negative integer`},
		{"negative input", "job0\t10\t10\t-5\t1\t1\n", 1, "map_input_bytes", `"-5" is not a non-negative integer`},
		{"fractional bytes", "job0\t10\t10\t1.5\t1\t1\n", 1, "map_input_bytes", "not a non-negative integer"},
		{"bytes overflow int64", "job0\t10\t10\t1\t1\t99999999999999999999\n", 1, "reduce_output_bytes", "out of range"},
		{"NaN submit", "job0\tNaN\t10\t1\t1\t1\n", 1, "submit_time_seconds", "not a non-negative finite number"},
		{"infinite gap", "job0\t10\tInf\t1\t1\t1\n", 1, "inter_job_submit_gap_seconds", "not a non-negative finite number"},
		{"negative submit", "job0\t-1\t0\t1\t1\t1\n", 1, "submit_time_seconds", "not a non-negative finite number"},
		{"too few columns", ok + "job1\t20\t10\t1\t1\t1\n" + "job2\t30\t10\t1\t1\n", 3, "", "has 5 tab-separated fields, want 6"},
		{"too many columns", "job0\t10\t10\t1\t1\t1\t1\n", 1, "", "has 7 tab-separated fields, want 6"},
		{"spaces instead of tabs", "job0 10 10 1 1 1\n", 1, "", "has 1 tab-separated fields"},
		{"empty name", "\t10\t10\t1\t1\t1\n", 1, "new_unique_job_id", "empty job name"},
		{"submit goes back", ok + "job1\t5\t0\t1\t1\t1\n", 2, "submit_time_seconds", "earlier than the previous job's 10 (line 1)"},
		{"gap disagrees", ok + "job1\t20\t3\t1\t1\t1\n", 2, "inter_job_submit_gap_seconds", "disagrees with the submit times, 20 - 10 = 10"},
		{"bad line after blank lines counts them", ok + "\n\njob1\t20\t10\tx\t1\t1\n", 4, "map_input_bytes", `"x"`},
		{"overflow after scaling", "job0\t10\t10\t9000000000000000000\t1\t1\n", 1, "map_input_bytes", "overflows"},
		{"too many maps", "job0\t10\t10\t9000000000000000\t1\t1\n", 1, "map_input_bytes", "maps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 64 * MiB, Users: 1}
			if tc.name == "overflow after scaling" {
				opt.TargetNodes = 2
			}
			_, err := ParseSWIM(strings.NewReader(tc.input), "bad.tsv", opt)
			if err == nil {
				t.Fatalf("ParseSWIM accepted %q, want an error at line %d", tc.input, tc.wantLine)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is %T, want *ParseError", err, err)
			}
			if pe.Line != tc.wantLine || pe.Field != tc.wantField || pe.File != "bad.tsv" {
				t.Errorf("error at %s:%d field %q, want bad.tsv:%d field %q (err: %v)", pe.File, pe.Line, pe.Field, tc.wantLine, tc.wantField, err)
			}
			prefix := fmt.Sprintf("bad.tsv:%d: ", tc.wantLine)
			if tc.wantField != "" {
				prefix += fmt.Sprintf("field %q: ", tc.wantField)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.wantText) {
				t.Errorf("error %q, want it to start %q and contain %q", msg, prefix, tc.wantText)
			}
		})
	}
}

func TestParseSWIMAcceptsVariants(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  int
	}{
		{"CRLF line ends", "job0\t10\t10\t1\t1\t1\r\njob1\t20\t10\t1\t1\t1\r\n", 2},
		{"no final newline", "job0\t10\t10\t1\t1\t1", 1},
		{"blank lines skipped", "\njob0\t10\t10\t1\t1\t1\n\n", 1},
		{"fractional seconds", "job0\t0.5\t0.5\t1\t1\t1\njob1\t1.25\t0.75\t1\t1\t1\n", 2},
		{"first gap need not match (trace excerpt)", "job9\t100\t3\t1\t1\t1\n", 1},
		{"equal submit times", "a\t5\t5\t1\t1\t1\nb\t5\t0\t1\t1\t1\n", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 1, Users: 1}
			jobs, err := ParseSWIM(strings.NewReader(tc.input), "ok.tsv", opt)
			if err != nil {
				t.Fatalf("ParseSWIM: %v", err)
			}
			if len(jobs) != tc.want {
				t.Errorf("got %d jobs, want %d", len(jobs), tc.want)
			}
		})
	}
}

func TestParseSWIMEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "  \n"} {
		opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 1, Users: 1}
		_, err := ParseSWIM(strings.NewReader(in), "empty.tsv", opt)
		if !errors.Is(err, ErrNoJobs) || !strings.HasPrefix(fmt.Sprint(err), "empty.tsv: ") {
			t.Errorf("ParseSWIM(%q) error = %v, want one naming empty.tsv and wrapping ErrNoJobs", in, err)
		}
	}
}

func TestParseSWIMLongLine(t *testing.T) {
	in := "job0\t1\t1\t1\t1\t1\n" + strings.Repeat("x", MaxSWIMLineBytes+1) + "\n"
	opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 1, Users: 1}
	_, err := ParseSWIM(strings.NewReader(in), "long.tsv", opt)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("over-long line 2 gave %v, want a ParseError at line 2", err)
	}
}

func TestSWIMOptionsInvalid(t *testing.T) {
	valid := SWIMOptions{SourceNodes: 600, TargetNodes: 100, BlockBytes: 64 * MiB, Users: 30}
	tests := []struct {
		name   string
		modify func(*SWIMOptions)
		want   string
	}{
		{"source nodes", func(o *SWIMOptions) { o.SourceNodes = 0 }, "SourceNodes"},
		{"target nodes", func(o *SWIMOptions) { o.TargetNodes = -1 }, "TargetNodes"},
		{"negative scale", func(o *SWIMOptions) { o.Scale = -1 }, "Scale"},
		{"NaN scale", func(o *SWIMOptions) { o.Scale = math.NaN() }, "Scale"},
		{"block bytes", func(o *SWIMOptions) { o.BlockBytes = 0 }, "BlockBytes"},
		{"bytes per reduce", func(o *SWIMOptions) { o.BytesPerReduce = -1 }, "BytesPerReduce"},
		{"users", func(o *SWIMOptions) { o.Users = 0 }, "Users"},
		{"max jobs", func(o *SWIMOptions) { o.MaxJobs = -1 }, "MaxJobs"},
		{"start", func(o *SWIMOptions) { o.StartS = -5 }, "StartS"},
		{"end", func(o *SWIMOptions) { o.EndS = math.Inf(1) }, "EndS"},
		{"empty window", func(o *SWIMOptions) { o.StartS, o.EndS = 10, 10 }, "EndS 10: not after the window's start 10"},
		{"half a profile", func(o *SWIMOptions) { o.Profile = Profile{MapSecPerByte: 1} }, "ReduceSecPerByte"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := valid
			tc.modify(&o)
			_, err := ParseSWIM(strings.NewReader(tinyTrace), "opts.tsv", o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseSWIM with bad %s gave error %v, want one naming %s", tc.name, err, tc.want)
			}
		})
	}
	if _, err := ParseSWIM(strings.NewReader(tinyTrace), "opts.tsv", valid); err != nil {
		t.Errorf("valid options rejected: %v", err)
	}
}

func TestLoadSWIMFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.tsv")
	testfile.Write(t, path, tinyTrace+"job3\t30\t10\tzz\t1\t1\n")
	opt := SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 64 * MiB, Users: 1}
	_, err := LoadSWIMFile(path, opt)
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") {
		t.Errorf("LoadSWIMFile error = %v, want it to name %s:4", err, path)
	}
	if _, err := LoadSWIMFile(filepath.Join(dir, "missing.tsv"), opt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file gave %v, want os.ErrNotExist", err)
	}
}
