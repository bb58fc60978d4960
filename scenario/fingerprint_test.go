package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestWorkloadFingerprint(t *testing.T) {
	dir := t.TempDir()
	trace := "job0\t0\t0\t100\t10\t10\n"
	for _, f := range []string{"a.tsv", "copy.tsv"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "other.tsv"), []byte(trace+"job1\t5\t0\t100\t10\t10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fp := func(doc string) string {
		t.Helper()
		c, err := LoadBytes([]byte(doc), "fp.yaml", dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.WorkloadFingerprint()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := fp("seed: 1\npolicy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 50}\n")
	tests := []struct {
		name, doc string
		same      bool
	}{
		{"another seed", "seed: 2\npolicy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 50}\n", true},
		{"another policy", "seed: 1\npolicy: {name: delay}\nworkload: {trace: FB-2009, max_jobs: 50}\n", true},
		{"the trace by another spelling", "seed: 1\npolicy: {name: fair}\nworkload: {trace: fb2009, max_jobs: 50}\n", true},
		{"the default cluster written out", "policy: {name: fair}\ncluster: {racks: 10, nodes_per_rack: 10}\nworkload: {trace: FB-2009, max_jobs: 50}\n", true},
		{"engine settings", "policy: {name: fair}\nengine: {heartbeat_s: 1}\nworkload: {trace: FB-2009, max_jobs: 50}\n", true},
		{"another job count", "seed: 1\npolicy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 51}\n", false},
		{"another trace", "seed: 1\npolicy: {name: fair}\nworkload: {trace: FB-2010, max_jobs: 50}\n", false},
		{"another cluster size", "policy: {name: fair}\ncluster: {racks: 5}\nworkload: {trace: FB-2009, max_jobs: 50}\n", false},
		{"another uplink", "policy: {name: fair}\ncluster: {rack_uplink_mbps: 1000}\nworkload: {trace: FB-2009, max_jobs: 50}\n", false},
	}
	for _, tc := range tests {
		if got := fp(tc.doc); (got == base) != tc.same {
			t.Errorf("%s: fingerprint %s against %s; want the same: %v", tc.name, got, base, tc.same)
		}
	}
	files := "policy: {name: fair}\nworkload: {trace: %s, source_nodes: 600}\n"
	if a, b := fp(fmt.Sprintf(files, "a.tsv")), fp(fmt.Sprintf(files, "copy.tsv")); a != b {
		t.Errorf("a trace file and its copy fingerprint %s and %s: the content, not the path, is the workload", a, b)
	}
	if a, b := fp(fmt.Sprintf(files, "a.tsv")), fp(fmt.Sprintf(files, "other.tsv")); a == b {
		t.Errorf("trace files with different jobs share fingerprint %s", a)
	}
	by := func(line string) string {
		return fp("policy: {name: td}\nworkload:\n  trace: FB-2009\n" + line + "  demand: {default: 5}\n")
	}
	if by("") != by("\n\n") {
		t.Errorf("the line a demand is written on changed the fingerprint")
	}
}
