// Package testfile writes the files tests read. A test whose input could
// not be written stops there, rather than failing later for a reason that
// is not the one it checks.
package testfile

import (
	"os"
	"path/filepath"
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
