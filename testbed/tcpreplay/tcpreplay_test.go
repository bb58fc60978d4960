package tcpreplay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric"
)

func needFabric(t *testing.T, s fabric.Spec) *fabric.Fabric {
	t.Helper()
	if err := fabric.CheckPrivileges(); err != nil {
		t.Skipf("skipped: needs the privilege to create network namespaces: %v", err)
	}
	f, err := fabric.Build(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

// TestRunTimesEveryFlow replays flows of different sizes and start times on
// one rack and checks that each finishes no sooner than its NIC allows (a
// 20 Mbit/s link cannot carry its bytes faster, one frame of burst aside),
// not absurdly later (three times, plus 100 ms), and in the order its start
// implies; a flow of no bytes finishes when it starts. The flows share no
// queue, not even with another flow's acknowledgements, so that the bound
// tests the replay and not TCP: measured, a flow whose ACKs waited behind
// another flow's data in a 100-frame queue (60 ms at this rate) took over
// five times its NIC's time, and two flows into one NIC's queue lost
// frames and stalled for retransmission timeouts (200 ms each). Every flow
// that sent bytes reports its sender's round-trip times, the minimum no
// more than the smoothed one (every sample the smoothing averages is at
// least the minimum); the empty flow, which opened no connection, reports
// none.
func TestRunTimesEveryFlow(t *testing.T) {
	const rate = 20e6
	f := needFabric(t, fabric.Spec{Racks: 1, NodesPerRack: 4, NICBitsPerSec: rate, UplinkBitsPerSec: rate})
	flows := []Flow{
		{ID: "big", Src: 0, Dst: 1, Bytes: 1 << 20},
		{ID: "other", Src: 2, Dst: 3, Bytes: 256 << 10, Start: 100 * time.Millisecond},
		{ID: "empty", Src: 1, Dst: 0, Bytes: 0, Start: 50 * time.Millisecond},
		{ID: "late", Src: 3, Dst: 2, Bytes: 64 << 10, Start: 700 * time.Millisecond},
	}
	res, err := Run(context.Background(), f, flows, Options{CongestionControl: "reno"})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		fl := flows[i]
		d := r.Finish - r.Start
		floor := time.Duration(float64(fl.Bytes-fabric.FrameBytes) * 8 / rate * float64(time.Second))
		t.Logf("%-5s start %v finish %v (%v; the link needs at least %v); RTT min %d us, smoothed %d us", r.ID, r.Start.Round(time.Millisecond), r.Finish.Round(time.Millisecond), d.Round(time.Millisecond), floor.Round(time.Millisecond), r.MinRTTMicros, r.SRTTMicros)
		switch {
		case fl.Bytes == 0 && (r.SRTTMicros != 0 || r.MinRTTMicros != 0):
			t.Errorf("%s (no bytes) reports RTTs %d and %d us, want 0: it opened no connection to read them from", fl.ID, r.SRTTMicros, r.MinRTTMicros)
		case fl.Bytes > 0 && (r.MinRTTMicros == 0 || r.SRTTMicros < r.MinRTTMicros):
			t.Errorf("%s: RTT min %d us, smoothed %d us; want a positive minimum no larger than the smoothed RTT", fl.ID, r.MinRTTMicros, r.SRTTMicros)
		}
		switch {
		case r.ID != fl.ID:
			t.Errorf("result %d is %q, want %q", i, r.ID, fl.ID)
		case r.Start < fl.Start:
			t.Errorf("%s started at %v, before its start %v", fl.ID, r.Start, fl.Start)
		case fl.Bytes == 0 && d != 0:
			t.Errorf("%s (no bytes) took %v, want 0", fl.ID, d)
		case fl.Bytes > 0 && d < floor:
			t.Errorf("%s took %v, faster than its %.0f Mbit/s NIC allows (%v)", fl.ID, d, rate/1e6, floor)
		case fl.Bytes > 0 && d > 3*floor+100*time.Millisecond:
			t.Errorf("%s took %v, over three times what its NIC allows (%v)", fl.ID, d, floor)
		}
	}
	if res[3].Finish < res[1].Finish {
		t.Errorf("late (64 KB from 0.7 s) finished at %v, before other (256 KB from 0.1 s) at %v", res[3].Finish, res[1].Finish)
	}
}

func TestRunRefusesBadFlowsAndStopsWhenCancelled(t *testing.T) {
	f := needFabric(t, fabric.Spec{Racks: 1, NodesPerRack: 2, NICBitsPerSec: 1e6, UplinkBitsPerSec: 1e6})
	for _, c := range []struct {
		name string
		fl   Flow
	}{
		{"to itself", Flow{ID: "x", Src: 1, Dst: 1, Bytes: 1}},
		{"no such node", Flow{ID: "x", Src: 0, Dst: 2, Bytes: 1}},
		{"negative bytes", Flow{ID: "x", Src: 0, Dst: 1, Bytes: -1}},
	} {
		if _, err := Run(context.Background(), f, []Flow{c.fl}, Options{}); err == nil || !strings.Contains(err.Error(), "flow 0 (x)") {
			t.Errorf("%s: Run: %v, want an error naming flow 0 (x)", c.name, err)
		}
	}
	// 10 MB at 1 Mbit/s would take 80 s: cancel after 200 ms.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := Run(ctx, f, []Flow{{ID: "slow", Src: 0, Dst: 1, Bytes: 10 << 20}}, Options{})
	if err == nil || time.Since(t0) > 2*time.Second {
		t.Errorf("Run with a cancelled context: %v after %v, want an error within 2 s", err, time.Since(t0))
	}
}
