// Package realinputs finds the public files in the formats operators hold
// (Rumen, JobHistory, topologies, allocation files) that tests check the
// readers against. They live beside the project, never in it, at
// ../shared/real-inputs from the module root: a test that needs them
// skips where they are absent, as a user's clone has none.
package realinputs

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir is the real inputs' directory, or skips tb when there is none.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(filepath.Dir(dir), "shared", "real-inputs")
			if _, err := os.Stat(p); err != nil {
				tb.Skip("../shared/real-inputs absent")
			}
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Skip("module root not found")
		}
		dir = up
	}
}
