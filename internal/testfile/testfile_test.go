package testfile

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteMakesTheDirectoryAndWritesTheBody: a test may name a file in a
// directory that does not exist yet, and reads back exactly what it gave,
// as text or as bytes.
func TestWriteMakesTheDirectoryAndWritesTheBody(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, want string
		write            func(tb testing.TB, path string)
	}{
		{"text in a new directory", filepath.Join(dir, "a", "b", "s.yaml"), "policy: {name: fair}\n",
			func(tb testing.TB, path string) { Write(tb, path, "policy: {name: fair}\n") }},
		{"bytes in an existing directory", filepath.Join(dir, "d.bin"), "\x00\x01",
			func(tb testing.TB, path string) { Write(tb, path, []byte{0, 1}) }},
		{"nothing", filepath.Join(dir, "empty"), "",
			func(tb testing.TB, path string) { Write(tb, path, []byte(nil)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.write(t, tc.path)
			got, err := os.ReadFile(tc.path)
			if err != nil || string(got) != tc.want {
				t.Errorf("read back %q, %v; want %q, what Write was given", got, err, tc.want)
			}
		})
	}
}

// fatals is a test that records its Fatal calls instead of stopping.
type fatals struct {
	testing.TB
	calls int
}

func (f *fatals) Helper()           {}
func (f *fatals) Fatal(args ...any) { f.calls++ }

// TestWriteStopsTheTestItCannotWriteFor: a path below a file can be
// neither made nor written, and the test must stop there.
func TestWriteStopsTheTestItCannotWriteFor(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	Write(t, file, "")
	var f fatals
	Write(&f, filepath.Join(file, "sub", "s.yaml"), "x")
	if f.calls == 0 {
		t.Error("Write below a file did not stop the test; its input is not there")
	}
}

// TestSiteWritesOnePropertyALine: a site file's properties stand one a
// line from line 2, so that a test can name the line a reader reports.
func TestSiteWritesOnePropertyALine(t *testing.T) {
	path := Site(t, "yarn-site.xml", "a.b", "1", "c.d", " true ")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "<configuration>\n<property><name>a.b</name><value>1</value></property>\n" +
		"<property><name>c.d</name><value> true </value></property>\n</configuration>\n"
	if string(got) != want || filepath.Base(path) != "yarn-site.xml" {
		t.Errorf("%s holds %q; want %q", path, got, want)
	}
}

// TestGzipIsOneMember: Gzip's bytes read back as the body, as one gzip
// member, whatever the body's type.
func TestGzipIsOneMember(t *testing.T) {
	for _, body := range []string{"", "a line\n", strings.Repeat("x", 100000)} {
		r, err := gzip.NewReader(bytes.NewReader(Gzip(t, body)))
		if err != nil {
			t.Fatal(err)
		}
		r.Multistream(false)
		got, err := io.ReadAll(r)
		if err != nil || string(got) != body {
			t.Errorf("Gzip(%.20q) read back as %.20q, %v; want the body", body, got, err)
		}
		if !bytes.Equal(Gzip(t, []byte(body)), Gzip(t, body)) {
			t.Errorf("Gzip of %.20q differs as bytes and as a string", body)
		}
	}
}
