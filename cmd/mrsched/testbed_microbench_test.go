package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
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

func TestParseSizesReadsSuffixesAndNamesTheBadItem(t *testing.T) {
	tests := []struct {
		list string
		want []int64
		err  string // part of the error; "" for none
	}{
		{"64K,1M,16M,256M", []int64{64 << 10, 1 << 20, 16 << 20, 256 << 20}, ""},
		{"1024, 4k ,2m", []int64{1024, 4 << 10, 2 << 20}, ""},
		{"1", []int64{1}, ""},
		{"", nil, "item 1 is empty"},
		{"64K,,1M", nil, "item 2 is empty"},
		{"64K,1M,", nil, "item 3 is empty"},
		{"64K,16Q", nil, `item 2, "16Q": want a positive whole number`},
		{"64KB", nil, `item 1, "64KB"`},
		{"1.5M", nil, `item 1, "1.5M"`},
		{"0", nil, `item 1, "0"`},
		{"-4K", nil, `item 1, "-4K"`},
		{"K", nil, `item 1, "K"`},
		{"9223372036854775807M", nil, "more bytes than a transfer can count"},
		{"1M,1024K", nil, `item 2, "1024K": 1048576 bytes are listed twice`},
	}
	for _, tc := range tests {
		got, err := parseSizes(tc.list)
		switch {
		case tc.err == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("parseSizes(%q) = %v, %v; want %v", tc.list, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseSizes(%q) = %v, %v; want an error with %q naming the bad item", tc.list, got, err, tc.err)
		}
	}
}

// TestTestbedMicrobenchRefusesBadSizes checks that a bad -sizes list is a
// usage error naming the flag, before anything needs root; so is a list
// Config.Validate refuses (too few sizes to fit a line through).
func TestTestbedMicrobenchRefusesBadSizes(t *testing.T) {
	tests := []struct {
		sizes, want string
	}{
		{"64K,big", `-sizes: item 2, "big"`},
		{"1K,4K", "want at least 2 to fit a line"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		err := cmdTestbedMicrobench([]string{"-q", "-sizes", tc.sizes}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-sizes %s: %v; want an error with %q", tc.sizes, err, tc.want)
		}
	}
}

// FuzzParseSizes feeds -sizes arbitrary lists: each must give sizes of at
// least one byte, none twice, one per item, or an error naming the flag's
// item by number, never a panic.
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"64K,1M,16M,256M", "", ",", "1", "0", "-1K", "9223372036854775807", "8796093022207M", "1M,1024K", " 2k , 3m "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		got, err := parseSizes(list)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "item ") {
				t.Errorf("parseSizes(%q): %v; want an error naming the item", list, err)
			}
			return
		}
		if len(got) != strings.Count(list, ",")+1 {
			t.Errorf("parseSizes(%q) = %v: %d sizes for %d items", list, got, len(got), strings.Count(list, ",")+1)
		}
		for i, s := range got {
			if s < 1 || slices.Contains(got[:i], s) {
				t.Errorf("parseSizes(%q) = %v: size %d is below a byte or listed twice", list, got, s)
			}
		}
	})
}

// TestWriteMicrobenchSaysWhenNoShortTransferMetTheLongOne pins the
// short-behind-long line at fast rates, where the long transfer ends
// before the first short one starts: it says so instead of a NaN median.
func TestWriteMicrobenchSaysWhenNoShortTransferMetTheLongOne(t *testing.T) {
	for _, c := range []struct {
		name   string
		shorts []float64
		want   string
	}{
		{"none met it", nil, "the 4194304-byte transfer ended before the first short transfer started; none met it"},
		{"two met it", []float64{0.03, 0.05}, "2 short transfers of 10240 bytes into a NIC a 4194304-byte transfer fills: median 0.0400 s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &microbench.Result{Config: microbench.Defaults()}
			r.ShortBehindLong = microbench.ShortBehindLong{ShortBytes: 10 << 10, LongBytes: 4 << 20, ShortS: c.shorts, MedianS: 0.04}
			var b strings.Builder
			writeMicrobench(&b, r)
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("output lacks %q (the short-behind-long line must say what was measured):\n%s", c.want, b.String())
			}
			if strings.Contains(b.String(), "NaN") {
				t.Errorf("output prints NaN; want words:\n%s", b.String())
			}
		})
	}
}
