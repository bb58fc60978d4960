package sched

import (
	"encoding/json"
	"testing"
)

// TestEveryPolicyReportsItsEffectiveParameters: a run records the
// parameters its policy used, defaults filled; so every policy that takes
// parameters decodes them into a struct that says them (Effective), and
// the defaults read as documented.
func TestEveryPolicyReportsItsEffectiveParameters(t *testing.T) {
	for _, e := range Policies() {
		t.Run(e.Name, func(t *testing.T) {
			var into any
			if _, err := e.New(func(v any) error { into = v; return nil }); err != nil {
				t.Fatal(err)
			}
			if into == nil {
				return // takes no parameters (fifo)
			}
			eff, ok := into.(interface{ Effective() map[string]any })
			if !ok {
				t.Fatalf("%s decodes its parameters into %T, which has no Effective method: its runs could not say what they ran", e.Name, into)
			}
			m := eff.Effective()
			if _, err := json.Marshal(m); err != nil || len(m) == 0 {
				t.Errorf("Effective() = %v (%v), want a non-empty map that JSON can write", m, err)
			}
		})
	}
	d := FairDelayParams{}.Effective()
	if d["t1_s"] != DefaultDelayT1S || d["io_min_maps"] != DefaultIOMinMaps || d["preemption"].(map[string]any)["fair_share_timeout_s"] != float64(DefaultFairShareTimeoutS) {
		t.Errorf("delay's effective parameters %v: want t1_s %v, io_min_maps %v and fair_share_timeout_s %v, the documented defaults", d, DefaultDelayT1S, DefaultIOMinMaps, DefaultFairShareTimeoutS)
	}
	f := FairParams{Pools: []PoolConfig{{Name: "a"}}}.Effective()
	if p := f["pools"].([]map[string]any)[0]; p["weight"] != 1.0 || p["mode"] != "fair" {
		t.Errorf("a pool without weight or mode: %v, want weight 1 and mode fair", p)
	}
}
