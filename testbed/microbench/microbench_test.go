package microbench

import (
	"math"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/tcpreplay"
)

func TestFitLineRecoversFixedCostAndRate(t *testing.T) {
	const rate = 10e6 // bits/s on the wire
	tests := []struct {
		name              string
		fixed, payloadBps float64
	}{
		{"no fixed cost, full rate", 0, rate / 8},
		{"5 ms a transfer, 95% of the rate", 0.005, 0.95 * rate / 8},
		{"a large fixed cost", 0.2, 0.5 * rate / 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ts []Transfer
			for _, b := range []int64{1 << 10, 64 << 10, 1 << 20, 4 << 20} {
				ts = append(ts, Transfer{Bytes: b, MedianS: tc.fixed + float64(b)/tc.payloadBps})
			}
			f := fitLine("rack", rate, ts)
			if math.Abs(f.FixedS-tc.fixed) > 1e-9 || math.Abs(f.PayloadBytesPerSec/tc.payloadBps-1) > 1e-9 {
				t.Errorf("fit: fixed %v s, %v B/s; want %v s, %v B/s: the points lie on that line", f.FixedS, f.PayloadBytesPerSec, tc.fixed, tc.payloadBps)
			}
			if want := tc.payloadBps * 8 / rate; math.Abs(f.BandwidthFactor-want) > 1e-9 {
				t.Errorf("bandwidth factor %v, want %v: payload rate over the shaped rate", f.BandwidthFactor, want)
			}
			if f.WorstResidualPct > 1e-6 {
				t.Errorf("worst residual %v%%, want 0: the points lie on the line", f.WorstResidualPct)
			}
		})
	}
}

func TestIncastCountsStallsAndGoodput(t *testing.T) {
	const nic = 8e6 // 1 MB/s
	s := func(a, b float64) tcpreplay.Result {
		return tcpreplay.Result{Start: time.Duration(a * float64(time.Second)), Finish: time.Duration(b * float64(time.Second)), Retransmits: 1}
	}
	tests := []struct {
		name        string
		r           []tcpreplay.Result
		goodput     float64
		stalled     int
		retransmits uint64
	}{
		// Two senders of 1 MB: the fluid model ends both at 2 s.
		{"both at the fluid time", []tcpreplay.Result{s(0, 2), s(0, 2)}, 1, 0, 2},
		{"one a timeout late", []tcpreplay.Result{s(0, 1.5), s(0, 2.5)}, 0.8, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := incastOf(2, 1e6, nic, tc.r, 3)
			if math.Abs(in.Goodput-tc.goodput) > 1e-9 || in.Stalled != tc.stalled || in.Retransmits != tc.retransmits || in.Drops != 3 {
				t.Errorf("incast %+v; want goodput %v, %d stalled, %d retransmits, 3 drops", in, tc.goodput, tc.stalled, tc.retransmits)
			}
		})
	}
}

func TestConfigValidateNamesWhatIsWrong(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"the defaults", func(*Config) {}, true},
		{"no rate", func(c *Config) { c.NICBitsPerSec = 0 }, false},
		{"one size cannot fit a line", func(c *Config) { c.Sizes = []int64{1 << 20} }, false},
		{"no two sizes large enough to fit", func(c *Config) { c.Sizes = []int64{1 << 10, 1 << 20} }, false},
		{"a fan-in of 0", func(c *Config) { c.Fanins = []int{0} }, false},
		{"no repeats", func(c *Config) { c.Repeats = 0 }, false},
		{"an RTT case of no bytes", func(c *Config) { c.RTTBytes = 0 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.edit(&c)
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v; want ok %v", err, tc.ok)
			}
		})
	}
}

// TestSplitSharedDerivesTheOtherSendersBytes pins the RTT case's split of
// a shared NIC on hand-computed cases: 1 MB each, the near sender alone
// at 1 MB/s, the far one (held by a slower uplink) at 0.8 MB/s.
func TestSplitSharedDerivesTheOtherSendersBytes(t *testing.T) {
	const bytes, nearSolo, farSolo = 1e6, 1e6, 0.8e6
	tests := []struct {
		name        string
		nearS, farS float64
		want        Split
	}{
		// Both end together: neither had time alone, each moved 1 MB.
		{"an even split", 2, 2, Split{First: "near", OtherBytes: 1e6, NearShare: 0.5, NearFarRatio: 1, RatioKnown: true}},
		// Far alone for 0.5 s at 0.8 MB/s moved 0.4 MB, so 0.6 MB while
		// shared: near 1 / 1.6 of the bytes, 1 / 0.6 of far's rate.
		{"near first", 1.5, 2, Split{First: "near", OtherBytes: 0.6e6, NearShare: 0.625, NearFarRatio: 1 / 0.6, RatioKnown: true}},
		// Near alone for 0.5 s at 1 MB/s moved 0.5 MB, so 0.5 MB while
		// shared against far's 1 MB.
		{"far first", 2, 1.5, Split{First: "far", OtherBytes: 0.5e6, NearShare: 1.0 / 3, NearFarRatio: 0.5, RatioKnown: true}},
		// Far alone 1.5 s at 0.8 MB/s would have moved 1.2 MB, more than
		// it had: it got nothing measurable while shared.
		{"near first, far starved or stalled", 1, 2.5, Split{First: "near", NearShare: 1}},
		// Near alone 1 s at 1 MB/s moved all of its 1 MB.
		{"far first, near starved or stalled", 2, 1, Split{First: "far"}},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := splitShared(bytes, tc.nearS, tc.farS, nearSolo, farSolo)
			w := tc.want
			if got.First != w.First || got.RatioKnown != w.RatioKnown || !near(got.OtherBytes, w.OtherBytes) || !near(got.NearShare, w.NearShare) || !near(got.NearFarRatio, w.NearFarRatio) {
				t.Errorf("near %v s, far %v s: %+v; want %+v (the second finisher's time alone at its path's rate taken off its bytes)", tc.nearS, tc.farS, got, w)
			}
		})
	}
}

func TestMaxMinRatioHoldsTheFarSenderToItsUplink(t *testing.T) {
	tests := []struct {
		name        string
		nic, uplink float64
		want        float64
	}{
		{"the validations' scaled rates: half the NIC fits the uplink", 12.5e6, 10e6, 1},
		{"unscaled: 125 of 250 Mbit/s fits 200", 250e6, 200e6, 1},
		{"half the NIC is exactly the uplink", 20e6, 10e6, 1},
		{"a narrow uplink: far 5, near 15 of 20 Mbit/s", 20e6, 5e6, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := maxMinRatio(tc.nic, tc.uplink); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("maxMinRatio(%g, %g) = %v, want %v", tc.nic, tc.uplink, got, tc.want)
			}
		})
	}
}

func TestSoloRateTakesTheFittedSlopeElseTheShapedPayload(t *testing.T) {
	tests := []struct {
		name string
		fit  Fit
		want float64 // bytes/s
	}{
		{"a fitted slope", Fit{PayloadBytesPerSec: 1.2e6}, 1.2e6},
		// 10 Mbit/s of frames: 1,448 payload bytes in each 1,514.
		// fitLine leaves the rate 0 where the slope is not positive.
		{"no slope: the shaped rate's payload", Fit{FixedS: 1}, 10e6 / 8 * 1448 / 1514},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := soloRate(tc.fit, 10e6); math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("soloRate(%+v, 10 Mbit/s) = %v B/s, want %v", tc.fit, got, tc.want)
			}
		})
	}
}
