package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/testbed/fabric"
)

// TestTestbedNetsimExample replays examples/netsim-two-racks.json on an
// emulated network at the default bandwidth scale (1 Gbit/s links at
// 100 Mbit/s) and a twentieth of the bytes, so it takes about a second.
// Every flow must finish, beside the model's answer (a and b at 2 s, c at
// 1 s); rack 0's uplink must have carried flows a's and b's bytes; and the
// makespan, which the measured yardstick put within 5% of max-min, must be
// within 25% (a bound for a loaded 2-core host: this is a check that the
// replay works, not a measurement). Without the privilege to build the
// network it must fail naming what is missing.
func TestTestbedNetsimExample(t *testing.T) {
	var out, errOut bytes.Buffer
	err := cmdTestbedNetsim([]string{"-byte-scale", "0.05", "../../examples/netsim-two-racks.json"}, &out, &errOut)
	if perr := fabric.CheckPrivileges(); perr != nil {
		if !errors.Is(err, fabric.ErrPrivilege) || !strings.Contains(err.Error(), "CAP_NET_ADMIN") {
			t.Fatalf("without privileges: %v, want the privilege error naming what is missing", err)
		}
		t.Skipf("skipped the replay: %v", perr)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	t.Logf("%s", errOut.String())
	var got testbedNetsimOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	model := map[string]float64{"a": 2, "b": 2, "c": 1}
	if len(got.Flows) != 3 {
		t.Fatalf("%d flows in the output, want 3:\n%s", len(got.Flows), out.String())
	}
	for _, f := range got.Flows {
		if f.ModelFinishS != model[f.ID] {
			t.Errorf("flow %s: model_finish_s %v, want the model's %v", f.ID, f.ModelFinishS, model[f.ID])
		}
		if !(f.FinishS > 0) || f.DurationErrorPct == nil {
			t.Errorf("flow %s: finish_s %v, error %v: want a measured finish and its error", f.ID, f.FinishS, f.DurationErrorPct)
			continue
		}
		t.Logf("flow %s: %.3f s, model %.3f s: %+.1f%%", f.ID, f.FinishS, f.ModelFinishS, *f.DurationErrorPct)
	}
	t.Logf("makespan %.3f s, model %.3f s: %+.1f%%; mean |flow error| %.1f%%", got.MakespanS, got.ModelMakespanS, got.MakespanErrorPct, got.MeanAbsFlowErrorPct)
	if math.Abs(got.MakespanErrorPct) > 25 {
		t.Errorf("makespan %.3f s is %+.1f%% from the model's %.3f s, want within 25%%", got.MakespanS, got.MakespanErrorPct, got.ModelMakespanS)
	}
	if got.BandwidthScale != 0.1 || got.TimeScale != 0.5 {
		t.Errorf("bandwidth scale %v, time scale %v: want 0.1 (1 Gbit/s to 100 Mbit/s) and 0.05/0.1", got.BandwidthScale, got.TimeScale)
	}
	const ab = 2 * 125e6 * 0.05 // flows a and b cross rack 0's uplink
	for _, l := range got.Links {
		if l.Link.Kind == fabric.UplinkUp && l.Link.Rack == 0 && float64(l.Bytes) < ab {
			t.Errorf("rack 0's uplink carried %d bytes, less than flows a and b's %.0f", l.Bytes, ab)
		}
	}
}

func TestTestbedNetsimRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-byte-scale", "0", "f.json"},
		{"-bandwidth-scale", "-1", "f.json"},
		{"-queue-packets", "0", "f.json"},
	} {
		var out, errOut bytes.Buffer
		if err := cmdTestbedNetsim(args, &out, &errOut); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v, want an error naming %s", args, err, args[0])
		}
	}
	var out, errOut bytes.Buffer
	if err := cmdTestbedNetsim(nil, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("no file: %v, want the usage", err)
	}
}
