package workload

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// pathOpts keeps bytes as they are, one user.
func pathOpts(synthesis bool) SWIMOptions {
	return SWIMOptions{SourceNodes: 1, TargetNodes: 1, BlockBytes: 64 * MiB, Users: 1, SynthesisPaths: synthesis}
}

// TestParseSWIMInputPaths: a nine-column line's seventh column is the data
// set the job reads; an empty one leaves the job a file of its own; the
// output path is read and not used; a six-column trace has no data sets.
func TestParseSWIMInputPaths(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // each job's DataSet
	}{
		{"nine columns as SWIM writes them", "job0\t1\t1\t100\t0\t10\tinputPath1\t\t\njob1\t2\t1\t100\t0\t10\tinputPath2\t\t\n",
			[]string{"inputPath1", "inputPath2"}},
		{"no input path: a file of its own", "job0\t1\t1\t100\t0\t10\t\t\t\n", []string{""}},
		{"an output path is taken and not used", "job0\t1\t1\t100\t0\t10\t/warehouse/a\toutputPath1\t\n", []string{"/warehouse/a"}},
		{"CRLF after the trailing tab", "job0\t1\t1\t100\t0\t10\tinputPath1\t\t\r\n", []string{"inputPath1"}},
		{"six columns: no data sets", "job0\t1\t1\t100\t0\t10\n", []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := ParseSWIM(strings.NewReader(tc.input), "paths.tsv", pathOpts(false))
			if err != nil {
				t.Fatalf("ParseSWIM: %v", err)
			}
			var got []string
			for _, j := range jobs {
				got = append(got, j.DataSet)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("data sets %q, want %q (the input_path column, as written)", got, tc.want)
			}
		})
	}
}

// TestParseSWIMInputPathsMalformed: a line of a trace with input paths
// that breaks the format is an error naming the file, the line and, where
// one column is wrong, the column.
func TestParseSWIMInputPathsMalformed(t *testing.T) {
	const nine = "job0\t1\t1\t100\t0\t10\tinputPath1\t\t\n"
	const six = "job0\t1\t1\t100\t0\t10\n"
	tests := []struct {
		name      string
		input     string
		wantLine  int
		wantField string
		wantText  string
	}{
		{"six columns after nine", nine + "job1\t2\t1\t1\t1\t1\n", 2, "", "has 6 tab-separated fields, want 9 as line 1 has"},
		{"nine columns after six", six + "job1\t2\t1\t1\t1\t1\tinputPath1\t\t\n", 2, "", "has 9 tab-separated fields, want 6 as line 1 has"},
		{"eight columns: the trailing tab is missing", "job0\t1\t1\t100\t0\t10\tinputPath1\t\n", 1, "", "want 6 (new_unique_job_id, submit_time_seconds"},
		{"something after the trailing tab", "job0\t1\t1\t100\t0\t10\tinputPath1\t\tx\n", 1, "trailing_tab", `"x"; want it empty`},
		{"an input path that is not UTF-8", "job0\t1\t1\t100\t0\t10\tinput\xffPath\t\t\n", 1, "input_path", "not valid UTF-8"},
		{"a bad byte count on a nine-column line", nine + "job1\t2\t1\t1\tmany\t1\tinputPath2\t\t\n", 2, "shuffle_bytes", `"many"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSWIM(strings.NewReader(tc.input), "bad.tsv", pathOpts(true))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseSWIM(%q) = %v, want a *ParseError at line %d", tc.input, err, tc.wantLine)
			}
			if pe.File != "bad.tsv" || pe.Line != tc.wantLine || pe.Field != tc.wantField {
				t.Errorf("error at %s:%d field %q, want bad.tsv:%d field %q (err: %v)", pe.File, pe.Line, pe.Field, tc.wantLine, tc.wantField, err)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %q does not say %q", err, tc.wantText)
			}
		})
	}
}

// TestSynthesisPathsRenumberRereads: WorkloadSynthesis.pl prints a path's
// first read as inputPathN and its later reads as inputPath(N-1); with
// SynthesisPaths the first line naming inputPathN reads data set N and
// later ones N+1, whatever window is taken; without it, names are data
// sets as written.
func TestSynthesisPathsRenumberRereads(t *testing.T) {
	const trace = "j0\t1\t1\t1\t1\t1\tinputPath1\t\t\n" + // first read of path 1
		"j1\t2\t1\t1\t1\t1\tinputPath2\t\t\n" + // first read of path 2
		"j2\t3\t1\t1\t1\t1\tinputPath1\t\t\n" + // a later read of path 2
		"j3\t4\t1\t1\t1\t1\tinputPath0\t\t\n" + // a later read of path 1
		"j4\t5\t1\t1\t1\t1\tinputPath3\t\t\n" + // first read of path 3
		"j5\t6\t1\t1\t1\t1\tinputPath2\t\t\n" + // a later read of path 3
		"j6\t7\t1\t1\t1\t1\tinputPath01\t\t\n" + // not the script's form: as written
		"j7\t8\t1\t1\t1\t1\t/user/hive/t\t\t\n" // not the script's form: as written
	tests := []struct {
		name      string
		synthesis bool
		startS    float64
		want      string
	}{
		{"renumbered", true, 0, "[inputPath1 inputPath2 inputPath2 inputPath1 inputPath3 inputPath3 inputPath01 /user/hive/t]"},
		{"renumbered in a window: lines before it still count", true, 3, "[inputPath2 inputPath1 inputPath3 inputPath3 inputPath01 /user/hive/t]"},
		{"as written", false, 0, "[inputPath1 inputPath2 inputPath1 inputPath0 inputPath3 inputPath2 inputPath01 /user/hive/t]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := pathOpts(tc.synthesis)
			opt.StartS = tc.startS
			jobs, err := ParseSWIM(strings.NewReader(trace), "synth.tsv", opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range jobs {
				got = append(got, j.DataSet)
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("data sets %s, want %s", s, tc.want)
			}
		})
	}
}
