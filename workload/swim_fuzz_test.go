package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzParseSWIM checks that no input panics the parser, that every accepted
// trace gives valid jobs, and that every rejection names the file and, unless
// the trace simply has no job, the line. `go test` runs the seed corpus only.
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
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := SWIMOptions{SourceNodes: 3000, TargetNodes: 600, BlockBytes: 128 << 20, Users: 7, Seed: 3}
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
		for _, j := range jobs {
			if j.User < 0 || j.User >= opt.Users {
				t.Fatalf("job %d user %d outside 0..%d", j.ID, j.User, opt.Users-1)
			}
		}
	})
}
