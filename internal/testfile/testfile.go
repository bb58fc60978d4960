// Package testfile writes the files tests read. A test whose input could
// not be written stops there, rather than failing later for a reason that
// is not the one it checks.
package testfile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes body to path, making path's directory if need be, and
// stops the test if it cannot.
func Write[B string | []byte](tb testing.TB, path string, body B) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Gzip is body compressed as one gzip member, as gzip writes a file,
// for the tests of readers that take compressed input.
func Gzip[B string | []byte](tb testing.TB, body B) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(body)); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// Site writes a Hadoop site file named file (yarn-site.xml,
// mapred-site.xml) in a new temporary directory, of the given property
// names and values in turn, one property a line from line 2, and returns
// its path.
func Site(tb testing.TB, file string, nameValues ...string) string {
	tb.Helper()
	if len(nameValues)%2 != 0 {
		tb.Fatalf("testfile.Site: %d names and values; want them in pairs", len(nameValues))
	}
	var b strings.Builder
	b.WriteString("<configuration>\n")
	for i := 0; i < len(nameValues); i += 2 {
		fmt.Fprintf(&b, "<property><name>%s</name><value>%s</value></property>\n", nameValues[i], nameValues[i+1])
	}
	b.WriteString("</configuration>\n")
	path := filepath.Join(tb.TempDir(), file)
	Write(tb, path, b.String())
	return path
}
