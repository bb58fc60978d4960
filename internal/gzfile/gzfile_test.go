package gzfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// gz compresses each of parts as a gzip member of its own, one after
// another, as `gzip -c a b` writes them.
func gz(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b []byte
	for _, p := range parts {
		b = append(b, testfile.Gzip(t, p)...)
	}
	return b
}

// TestOpenReadsContent: a plain file reads as it is, a gzip file as its
// content, every member of it, whatever the file's name.
func TestOpenReadsContent(t *testing.T) {
	dir := t.TempDir()
	whole := gz(t, "first\n", "second\n")
	for _, tc := range []struct {
		name       string
		file       []byte
		want       string
		compressed bool
	}{
		{"plain.json", []byte("{\"a\":1}\n"), "{\"a\":1}\n", false},
		{"trace.json.gz", gz(t, "{\"a\":1}\n"), "{\"a\":1}\n", true},
		{"no-suffix", gz(t, "h1 /r1\n"), "h1 /r1\n", true},
		{"two-members.gz", whole, "first\nsecond\n", true},
		{"empty", nil, "", false},
		{"one byte of the magic", []byte{0x1f}, "\x1f", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := io.ReadAll(f)
			if err != nil || string(got) != tc.want || f.Compressed() != tc.compressed {
				t.Errorf("read %q (compressed %v), %v; want %q (compressed %v)", got, f.Compressed(), err, tc.want, tc.compressed)
			}
		})
	}
}

// TestOpenNamesTheFileInGzipErrors: a damaged compressed file is an
// error naming the file and the compression, at open or at the read
// that meets the damage.
func TestOpenNamesTheFileInGzipErrors(t *testing.T) {
	dir := t.TempDir()
	good := gz(t, strings.Repeat("line\n", 1000))
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"a header cut short", good[:5]},
		{"a body cut short", good[:len(good)/2]},
		{"a damaged checksum", append(append([]byte{}, good[:len(good)-8]...), 0, 0, 0, 0, 0, 0, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "t.gz")
			if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err == nil {
				_, err = io.ReadAll(f)
				f.Close()
			}
			if err == nil || !strings.Contains(err.Error(), path+": gzip: ") {
				t.Errorf("error %v; want one naming %s and gzip", err, path)
			}
		})
	}
}
