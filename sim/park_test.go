package sim_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
)

// TestParkedHeartbeatsChangeNothing runs scenarios with heartbeats parked
// (park.go) and with every heartbeat queued, and checks that they are the
// same run: every job's finish to the bit, the same summary bytes, and the
// same count of events handled, the virtual heartbeats counted as the
// queued ones are. The cases cover runs with long idle spells (the
// FB-2009 day's first hours on 100 nodes, the pools example), policies
// that wait (delay, sw-delay, TD's status wait), preemption, and failed
// attempts returned to pending; where a case parks nothing, it says so,
// since parking is off for it by design (speculation, NAS's idle offers).
func TestParkedHeartbeatsChangeNothing(t *testing.T) {
	day := []string{"workload.end_s=21600"}
	for _, tc := range []struct {
		name  string
		file  string
		set   []string
		parks bool // the run parks heartbeats
	}{
		{"fb2009 fair", "fb2009-fair.yaml", day, true},
		{"fb2009 fifo", "fb2009-fair.yaml", append([]string{"policy.name=fifo"}, day...), true},
		{"fb2009 delay", "fb2009-fair.yaml", append([]string{"policy.name=delay"}, day...), true},
		{"fb2009 drf", "fb2009-fair.yaml", append([]string{"policy.name=drf"}, day...), true},
		{"fb2009 td", "fb2009-fair.yaml", append([]string{"policy.name=td"}, day...), true},
		{"fb2009 sw-delay", "fb2009-fair.yaml", append([]string{"policy.name=sw-delay"}, day...), true},
		{"fb2009 sw-relaxed", "fb2009-fair.yaml", append([]string{"policy.name=sw-relaxed"}, day...), true},
		{"fb2009 failed attempts", "fb2009-fair.yaml", append([]string{"workload.task_failure_rate=0.05"}, day...), true},
		{"pools with preemption", "fair-pools.yaml", []string{"policy.params.preemption.enabled=true",
			"policy.params.preemption.min_share_timeout_s=5", "policy.params.preemption.fair_share_timeout_s=10"}, true},
		{"testbed small", "testbed/small.yaml", nil, true},
		{"nas: idle offers, parking off", "fb2009-fair.yaml", append([]string{"policy.name=nas"}, day...), false},
		{"speculation: parking off", "fb2009-fair.yaml", append([]string{"engine.speculative=true"}, day...), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short")
			}
			run := func(queued bool) *scenario.Result {
				t.Helper()
				c := loadWith(t, filepath.Join("..", "examples", tc.file), tc.set)
				*sim.NoParking = queued
				defer func() { *sim.NoParking = false }()
				r, err := c.Run(nil)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			got, want := run(false), run(true)
			if p := got.Engine.ParkedBeats; (p > 0) != tc.parks {
				t.Fatalf("%d heartbeats parked; want parking %v for this case", p, tc.parks)
			}
			if want.Engine.ParkedBeats != 0 {
				t.Fatalf("%d heartbeats parked with parking off", want.Engine.ParkedBeats)
			}
			if got.Engine.Events != want.Engine.Events {
				t.Errorf("%d events handled with heartbeats parked, %d with every one queued; a parked beat must count as the queued one does",
					got.Engine.Events, want.Engine.Events)
			}
			gj, wj := got.Collector.Jobs(), want.Collector.Jobs()
			if len(gj) != len(wj) {
				t.Fatalf("%d jobs parked, %d queued", len(gj), len(wj))
			}
			for i := range gj {
				if gj[i].Finish != wj[i].Finish {
					t.Fatalf("job %d finishes at %.17g with heartbeats parked, at %.17g with every one queued; want the same run",
						gj[i].ID, gj[i].Finish, wj[i].Finish)
				}
			}
			gs, _ := json.Marshal(got.Summary)
			ws, _ := json.Marshal(want.Summary)
			if string(gs) != string(ws) {
				t.Errorf("summaries differ:\nparked %s\nqueued %s", gs, ws)
			}
			t.Logf("%d jobs, %d events, %d of them parked heartbeats", len(gj), got.Engine.Events, got.Engine.ParkedBeats)
		})
	}
}
