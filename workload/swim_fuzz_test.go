package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseSWIM checks that no input panics the parser, that every accepted
// trace gives valid jobs, and that every rejection names the file and, unless
// the trace simply has no job, the line. Inputs of odd length are read with
// SynthesisPaths, so that the renumbering of input paths is fuzzed too; a
// six-column trace names no data set either way. `go test` runs the seed
// corpus only.
func FuzzParseSWIM(f *testing.F) {
	for _, seed := range []string{
		"job0\t49\t49\t740773\t2339561\t627471\n",
		"job0\t9\t9\t1762\t0\t14347\njob1\t18\t9\t970\t609\t697\n",
		"job0\t10\t10\t1\tabc\t1\n",
		"job0\t10\t10\t-1\t1\t1\n",
		"job0\t10\t1\t1\t1\n",
		"job0\t20\t20\t1\t1\t1\njob1\t10\t0\t1\t1\t1\n",
		"job0\tNaN\t0\t1\t1\t1\n",
		"job0\t1e308\t1e308\t9223372036854775807\t9223372036854775807\t9223372036854775807\n",
		"",
		"\r\n\t\t\t\t\t\n",
		// Nine columns: SWIM's trace with input paths.
		"job0\t1\t1\t2267942\t0\t1937944\tinputPath1\t\t\njob1\t2\t1\t20791551476\t12295202125\t1491950225\tinputPath2\t\t\n",
		"job0\t1\t1\t1\t1\t1\tinputPath1\t\t\njob1\t2\t1\t1\t1\t1\tinputPath1\t\t\njob2\t3\t1\t1\t1\t1\tinputPath0\t\t\n",
		"job0\t1\t1\t1\t1\t1\tinputPath18446744073709551615\toutputPath3\t\r\n",
		"job0\t1\t1\t1\t1\t1\t\t\t\njob1\t2\t1\t1\t1\t1\n",
		"job0\t1\t1\t1\t1\t1\tinputPath1\t\tx\n",
		"job0\t1\t1\t1\t1\t1\tinputPath1\t\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := SWIMOptions{SourceNodes: 3000, TargetNodes: 600, BlockBytes: 128 << 20, Users: 7, Seed: 3, SynthesisPaths: len(data)%2 == 1}
		jobs, err := ParseSWIM(bytes.NewReader(data), "fuzz.tsv", opt)
		if err != nil {
			if errors.Is(err, ErrNoJobs) {
				if !strings.HasPrefix(err.Error(), "fuzz.tsv: ") {
					t.Fatalf("no-jobs error %q does not name the file", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %q (%T) does not name a line", err, err)
			}
			if want := fmt.Sprintf("fuzz.tsv:%d: ", pe.Line); !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
			return
		}
		if err := Validate(jobs); err != nil {
			t.Fatalf("accepted trace gave invalid jobs: %v", err)
		}
		nine := bytes.Count(bytes.SplitN(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"), 2)[0], []byte("\t")) == 8
		for _, j := range jobs {
			if j.User < 0 || j.User >= opt.Users {
				t.Fatalf("job %d user %d outside 0..%d", j.ID, j.User, opt.Users-1)
			}
			if !utf8.ValidString(j.DataSet) || strings.Contains(j.DataSet, "\t") {
				t.Fatalf("job %d reads data set %q, not a field of the trace", j.ID, j.DataSet)
			}
			if j.DataSet != "" && !nine {
				t.Fatalf("job %d reads data set %q from a trace whose first line has not nine columns", j.ID, j.DataSet)
			}
		}
	})
}
