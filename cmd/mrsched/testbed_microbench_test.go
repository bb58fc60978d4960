package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/microbench"
)

// TestTestbedMicrobenchQuick takes the microbenchmarks' quick set (three
// sizes on each path, one and four senders into a NIC, two short
// transfers behind a long one), about a second: every case must be
// measured and written, and a transfer the fit reads can be no faster
// than its payload at the shaped rate allows (a shaper that let more
// through would make every fitted parameter wrong). Without the privilege
// to build the network it must fail naming what is missing.
func TestTestbedMicrobenchQuick(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mb.json")
	var stdout, stderr bytes.Buffer
	err := cmdTestbedMicrobench([]string{"-quick", "-q", "-out", out}, &stdout, &stderr)
	if perr := fabric.CheckPrivileges(); perr != nil {
		if !errors.Is(err, fabric.ErrPrivilege) {
			t.Fatalf("without privileges: %v, want the privilege error", err)
		}
		t.Skipf("skipped the measurement: %v", perr)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r microbench.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("-out is not the result's JSON: %v", err)
	}
	if len(r.Transfers) != 6 || len(r.Fits) != 2 || len(r.Incast) != 2 {
		t.Fatalf("%d transfers, %d fits, %d incast cases; want 6, 2, 2 (three sizes on two paths, fan-ins 1 and 4)", len(r.Transfers), len(r.Fits), len(r.Incast))
	}
	for _, tr := range r.Transfers {
		// The shaper's bucket lets a few frames through at once: a
		// transfer of a few frames may beat the rate, one the fit reads
		// may not, beyond a small burst.
		if tr.Bytes >= r.Config.FitFromBytes && tr.MedianS < 0.9*tr.IdealS {
			t.Errorf("%s, %d bytes: %.4f s, below the %.4f s its payload takes at the shaped rate", tr.Path, tr.Bytes, tr.MedianS, tr.IdealS)
		}
	}
	if !strings.Contains(stdout.String(), "| rack | 65536 |") || !strings.Contains(stdout.String(), "Incast") {
		t.Errorf("the printed tables lack a row or the incast table:\n%s", stdout.String())
	}
	t.Logf("%s", stdout.String())
}
