package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/microbench"
)

// TestTestbedMicrobenchQuick takes the microbenchmarks' quick set (three
// sizes on each path, one and four senders into a NIC, two short
// transfers behind a long one, one take of a near and a far sender of
// 1 MB each into one NIC), a few seconds: every case must be measured and
// written, and a transfer the fit reads can be no faster than its payload
// at the shaped rate allows (a shaper that let more through would make
// every fitted parameter wrong). The RTT case's times must be positive,
// both senders' round trips read, and its split of the NIC a finite
// share. Without the privilege to build the network it must fail naming
// what is missing.
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
	rt := r.RTTUnfairness
	if len(rt.Repeats) != 1 || rt.Bytes != 1<<20 || rt.MaxMinRatio != 1 {
		t.Fatalf("RTT case: %d repeats of %d bytes, max-min ratio %v; want 1 of 1 MB, max-min 1 (half the 12.5 Mbit/s NIC fits a 10 Mbit/s uplink)", len(rt.Repeats), rt.Bytes, rt.MaxMinRatio)
	}
	x := rt.Repeats[0]
	// 1 MB each through a shared 12.5 Mbit/s NIC: the first cannot be
	// done before its own bytes at the whole NIC's rate.
	floor := float64(rt.Bytes) * 8 / r.Config.NICBitsPerSec
	switch {
	case min(x.NearS, x.FarS) < 0.9*floor:
		t.Errorf("RTT case: near %v s, far %v s; neither can beat %.3f s, its bytes at the NIC's rate", x.NearS, x.FarS, floor)
	case x.NearMinRTTUs == 0 || x.NearSRTTUs == 0 || x.FarMinRTTUs == 0 || x.FarSRTTUs == 0:
		t.Errorf("RTT case: round trips near %d/%d µs, far %d/%d µs; want every one read (positive)", x.NearMinRTTUs, x.NearSRTTUs, x.FarMinRTTUs, x.FarSRTTUs)
	case x.First != "near" && x.First != "far":
		t.Errorf("RTT case: first done %q, want near or far", x.First)
	case !(x.NearShare >= 0 && x.NearShare <= 1):
		t.Errorf("RTT case: near's share %v, want a fraction", x.NearShare)
	case x.RatioKnown && !(x.NearFarRatio > 0 && !math.IsInf(x.NearFarRatio, 0)) || x.RatioKnown != (rt.RatiosKnown == 1):
		t.Errorf("RTT case: ratio %v (known %v, %d known); want a positive finite ratio where known, counted", x.NearFarRatio, x.RatioKnown, rt.RatiosKnown)
	}
	if !x.RatioKnown {
		// A retransmission timeout in a second's transfer can leave the
		// split untold; that is a measurement, not a failure.
		t.Logf("RTT case: the split could not be told (%+v)", x)
	}
	if !strings.Contains(stdout.String(), "| rack | 65536 |") || !strings.Contains(stdout.String(), "Incast") || !strings.Contains(stdout.String(), "| 1 | ") || !strings.Contains(stdout.String(), "near:far") {
		t.Errorf("the printed tables lack a row or the incast table:\n%s", stdout.String())
	}
	t.Logf("%s", stdout.String())
}
