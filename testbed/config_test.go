package testbed

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

func parse(t *testing.T, src string) *scenario.Config {
	t.Helper()
	c, err := scenario.Parse(strings.NewReader(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSpecDefaultsKeepTheScenarioHeartbeat(t *testing.T) {
	s, err := LoadSpec(parse(t, "workload: {trace: FB-2009}\npolicy: {name: fair}\nengine: {heartbeat_s: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.BandwidthScale != DefaultBandwidthScale || s.ByteScale != DefaultByteScale || s.HopDelayMS != DefaultHopDelayMS {
		t.Errorf("defaults %+v; want bandwidth %v, byte %v, hop delay %v", s, DefaultBandwidthScale, DefaultByteScale, DefaultHopDelayMS)
	}
	// 2 s of scenario time at time scale 0.01/0.1 = 0.1 is 0.2 wall seconds.
	if d := s.HeartbeatS - 0.2; d > 1e-12 || d < -1e-12 {
		t.Errorf("heartbeat %v wall s; want engine.heartbeat_s x time scale = 0.2", s.HeartbeatS)
	}
}

func TestBadSpecsNameFileLineAndField(t *testing.T) {
	head := "workload: {trace: FB-2009}\npolicy: {name: fair}\ntestbed:\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"zero bandwidth scale", "  bandwidth_scale: 0\n", "s.yaml: line 4: testbed.bandwidth_scale: want a factor in (0, 1], got 0"},
		{"bandwidth scale above 1", "  bandwidth_scale: 2\n", "testbed.bandwidth_scale"},
		{"negative byte scale", "  byte_scale: -0.1\n", "s.yaml: line 4: testbed.byte_scale"},
		{"zero queue", "  queue_packets: 0\n", "s.yaml: line 4: testbed.queue_packets: want a number of frames >= 1"},
		{"zero heartbeat", "  heartbeat_s: 0\n", "testbed.heartbeat_s: want a period in wall seconds > 0"},
		{"huge delay", "  hop_delay_ms: 5000\n", "testbed.hop_delay_ms"},
		{"zero stall bound", "  stall_s: 0\n", "s.yaml: line 4: testbed.stall_s: want wall seconds > 0, got 0"},
		{"negative stall bound", "  stall_s: -5\n", "s.yaml: line 4: testbed.stall_s: want wall seconds > 0, got -5"},
		{"unknown field", "  byte_scael: 0.1\n", "s.yaml: testbed: line 4: byte_scael: no such field; testbed has bandwidth_scale, byte_scale"},
		{"a congestion control that is no name", "  congestion_control: \"cubic; rm\"\n", "s.yaml: line 4: testbed.congestion_control: want an algorithm name"},
		{"a fraction of a packet", "  queue_packets: 2.5\n", "s.yaml: line 4: testbed.queue_packets: 2.5 is not a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSpec(parse(t, head+tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadSpec: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestCostsTheTestbedDoesNotEmulateAreRefused: a scenario whose cost model
// the testbed cannot emulate is refused at the field that asks for it (or
// the profile that sets it), not run as if it had none.
func TestCostsTheTestbedDoesNotEmulateAreRefused(t *testing.T) {
	head := "workload: {trace: FB-2009}\npolicy: {name: fair}\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"bandwidth only", "", ""},
		{"start-up and launch limits, which it emulates", "engine: {task_startup_s: 1, launches_per_heartbeat: 1}\n", ""},
		{"a profile", "cluster: {profile: hadoop1-hdd}\n", "s.yaml: line 3: cluster.profile: hadoop1-hdd: the testbed does not emulate cluster.disk (disks that seek), engine.sort_buffer_mb"},
		{"the fluid profile", "cluster: {profile: fluid}\n", ""},
		{"spills", "engine:\n  sort_buffer_mb: 100\n", "s.yaml: line 4: engine.sort_buffer_mb: the testbed does not emulate engine.sort_buffer_mb (map spills and merges)"},
		{"backups, which it runs", "engine: {speculative: true}\n", ""},
		{"offers at heartbeats only", "engine:\n  heartbeat_offers_only: true\n", "s.yaml: line 4: engine.heartbeat_offers_only: the testbed does not emulate engine.heartbeat_offers_only (a worker reports an attempt's end at once)"},
		{"random task failures", "engine: {}\n", "s.yaml: line 1: workload.task_failure_rate: the testbed does not emulate workload.task_failure_rate (random task failures)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := head
			if tc.name == "random task failures" {
				h = "workload: {trace: FB-2009, task_failure_rate: 0.1}\npolicy: {name: fair}\n"
			}
			c := parse(t, h+tc.body)
			err := notEmulated(c, c.Engine.WithDefaults())
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v; the testbed runs it", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v; want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestDefaultStallIsAFewMinutesAndOutlastsWhatTheRunSurvives pins the
// stall watch's default: the submissions' span in wall time, within 60 to
// 300 s, and never under twice the heartbeat expiry or the shuffle's
// connect timeout.
func TestDefaultStallIsAFewMinutesAndOutlastsWhatTheRunSurvives(t *testing.T) {
	spec := Spec{BandwidthScale: 0.1, ByteScale: 0.01, HeartbeatS: 0.3} // time scale 0.1
	jobs := func(span float64) []workload.Job { return []workload.Job{{Submit: 100}, {Submit: 100 + span}} }
	engine := sim.Params{}.WithDefaults() // node_expiry_s 600: 60 s of wall time
	tests := []struct {
		name   string
		jobs   []workload.Job
		engine sim.Params
		want   float64
	}{
		{"a short workload: twice the expiry", jobs(100), engine, 120},
		{"a workload of 40 minutes: its span", jobs(2400), engine, 240},
		{"a workload of hours: five minutes", jobs(20000), engine, 300},
		{"a short expiry: a minute", jobs(10), sim.Params{NodeExpiryS: 60, HeartbeatS: 3}, 60},
		{"a long expiry: twice it", jobs(20000), sim.Params{NodeExpiryS: 3000, HeartbeatS: 3}, 600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultStall(tc.jobs, tc.engine, spec); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("DefaultStall = %v s, want %v s", got, tc.want)
			}
		})
	}
}
