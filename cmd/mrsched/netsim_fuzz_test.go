package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// FuzzNetsim feeds `mrsched netsim` arbitrary input files, seeded with the
// shipped example and a few malformed ones: every input must give a result
// or an error naming the file, never a panic.
func FuzzNetsim(f *testing.F) {
	ex, err := os.ReadFile(filepath.Join("..", "..", "examples", "netsim-two-racks.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ex)
	for _, s := range []string{
		"", "{}", "[]", `{"racks": 2, "nodes_per_rack": 2, "nic_gbps": 1, "rack_uplink_gbps": 1, "flows": []}`,
		`{"racks": 2, "nodes_per_rack": 2, "nic_gbps": 1, "rack_uplink_gbps": 1, "flows": [{"id": "a", "src": 0, "dst": 3, "bytes": 1e9}]}`,
		`{"racks": 2, "nodes_per_rack": 2, "nic_gbps": 1, "rack_uplink_gbps": 1, "flows": [{"id": "a", "src": 0, "dst": 0, "bytes": 1}]}`,
		`{"racks": 1e9, "nodes_per_rack": 1e9, "nic_gbps": 1, "rack_uplink_gbps": 1}`,
		`{"racks": 2, "nodes_per_rack": 2, "nic_gbps": -1}`, `{"racks": "two"}`, `{"flows": [{"id": 1}]}`,
		`{"racks": 2.5, "nodes_per_rack": 2, "nic_gbps": 1e300, "rack_uplink_gbps": 1}{"racks": 1}`,
		`{"racks": 1, "racks": 2, "flows": [{"id": "a", "srcc": 1}]}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in.json")
		testfile.Write(t, path, data)
		err := cmdNetsim([]string{path}, io.Discard, io.Discard)
		if err == nil {
			return
		}
		if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, "Go ") || strings.Contains(msg, "main.") || strings.Contains(msg, "Unlimited") {
			t.Errorf("error %q: want one naming the input file, in the input's words", msg)
		}
	})
}
