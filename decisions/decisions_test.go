package decisions

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// TestRoundTrip: what Writer writes, Read gives back, in order.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl.gz")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{T: 1.5, Node: "r0n1", Slot: "map", Job: 3, Task: "map", Map: 7, Rule: "node-local", Reach: "node", Considered: []int{2, 3},
			Passed: []Pass{{Job: 2, Why: "no pending map"}}},
		{T: 2, Node: "r1n0", Slot: "reduce", Job: 2, Task: "reduce", Map: -1, Rule: "reduce", Considered: []int{2}, MoreConsidered: 70},
	}
	for i := range recs {
		w.Write(&recs[i])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Records() != 2 {
		t.Errorf("Records() = %d, want 2", w.Records())
	}
	var got []Record
	if err := Read(path, func(r *Record) bool { got = append(got, *r); return true }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("read back %+v, want %+v", got, recs)
	}
}

// TestReadNamesWhatIsWrong: a file that is not a log, or a record that
// is not one, is an error naming the file (and the record).
func TestReadNamesWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		gz            bool
		want          string
	}{
		{"plain text", "hello", false, "not a gzip-compressed decisions log"},
		{"a bad record", `{"t":1}` + "\n" + `{"t":"x"}`, true, "record 2"},
		{"an unknown field", `{"t":1,"colour":"red"}`, true, `unknown field "colour"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			b := []byte(tc.content)
			if tc.gz {
				b = testfile.Gzip(t, b)
			}
			testfile.Write(t, path, b)
			err := Read(path, func(*Record) bool { return true })
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s and saying %q", err, path, tc.want)
			}
		})
	}
}

// FuzzRead: no file makes Read panic or hang.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"t":1,"node":"r0n0","slot":"map","job":0,"task":"map","map":0,"rule":"node-local"}`))
	f.Add([]byte(`{"passed":[{"job":1,"why":"x"}]}` + "\n" + `[`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f")
		testfile.Write(t, path, testfile.Gzip(t, b))
		n := 0
		_ = Read(path, func(*Record) bool { n++; return n < 1000 })
	})
}
