package hostmap

import (
	"errors"
	"strings"
	"testing"
)

// fuzzMap checks that no input panics a reader and that every rejection
// is a *ParseError naming the file. `go test` runs the seeds only.
func fuzzMap(f *testing.F, read func(string) (*Map, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := read(in)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "f") {
				t.Errorf("error %v (%T); want a *ParseError naming the file", err, err)
			}
			return
		}
		for _, n := range m.Nodes {
			if n.Host == "" || !strings.HasPrefix(n.Rack, "/") {
				t.Errorf("node %+v: want a name and a rack starting with /", n)
			}
		}
	})
}

func FuzzReadTable(f *testing.F) {
	fuzzMap(f, func(s string) (*Map, error) { return ReadTable(strings.NewReader(s), "f") }, "h1 /r1\n# c\n10.0.0.1 r2\nx\n")
}

func FuzzReadRumen(f *testing.F) {
	fuzzMap(f, func(s string) (*Map, error) { return ReadRumen(strings.NewReader(s), "f") }, rumenTopology, `{"name":"a"}`)
}

func FuzzReadSLS(f *testing.F) {
	fuzzMap(f, func(s string) (*Map, error) { return ReadSLS(strings.NewReader(s), "f") }, slsNodes)
}
