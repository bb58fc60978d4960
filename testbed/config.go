package testbed

import (
	"fmt"
	"math"
	"regexp"

	"github.com/mrsched/mrsched/scenario"
)

// Spec is a scenario's `testbed:` section: how the scenario is scaled down
// to run in minutes on one host, and how the emulated links behave.
//
// Scaling keeps the scenario's dimensionless ratios. Every rate (NIC,
// uplink and disk bandwidth, task processing rates) is multiplied by
// BandwidthScale, every byte count (blocks, inputs, shuffles, outputs) by
// ByteScale, so every duration is multiplied by the time scale ByteScale /
// BandwidthScale: arrivals, heartbeats and monitor periods are replayed at
// that pace, and the offered load on each link (bytes over rate times
// time), the over-subscription (a ratio of rates) and the bytes a slot
// processes a second relative to the links all stay as the scenario has
// them. Results are reported in the scenario's unscaled seconds and bytes.
// What does not scale is TCP's own: round trips, the initial window and
// per-connection set-up weigh more as transfers shrink.
type Spec struct {
	// BandwidthScale multiplies every rate. Default 0.1: the default
	// cluster's 250 Mbit/s NICs and 500 Mbit/s uplinks become 25 and 50
	// Mbit/s, which the host forwards with little CPU.
	BandwidthScale float64 `yaml:"bandwidth_scale"`
	// ByteScale multiplies every byte count. Default 0.01 (64 MB blocks
	// become 671 KB), so the default time scale is 0.1: a scenario runs ten
	// times faster than real time.
	ByteScale float64 `yaml:"byte_scale"`
	// HopDelayMS is a one-way delay on every shaped link, added with netem
	// where the kernel has it (the run's testbed.json says whether it was).
	// Default 0.1 ms, a switch hop in a datacenter; negative means none.
	HopDelayMS float64 `yaml:"hop_delay_ms"`
	// QueuePackets is each shaped link's drop-tail queue in full-size
	// frames. Default 100 (fabric.DefaultQueuePackets).
	QueuePackets int `yaml:"queue_packets"`
	// HeartbeatS is the workers' heartbeat period in wall seconds. Default
	// engine.heartbeat_s times the time scale, so the testbed beats as the
	// simulated cluster does.
	HeartbeatS float64 `yaml:"heartbeat_s"`
	// CongestionControl is the TCP congestion control of every transfer.
	// Default cubic: Linux's default since 2.6.19, and what the clusters
	// of the papers ran; a host may default to another (bbr), which
	// treats shallow shaped queues very differently.
	CongestionControl string `yaml:"congestion_control"`
	// StallS ends a run with a diagnosis when nothing has progressed
	// (no byte moved, no task launched, ended or computing) for this many
	// wall seconds while jobs wait. Default DefaultStall.
	StallS float64 `yaml:"stall_s"`
	// WorkDir is where the nodes' block stores and map outputs go; the run
	// makes a directory of its own inside it and removes it at the end.
	// Default: the system's temporary directory.
	WorkDir string `yaml:"work_dir"`
}

// Defaults of Spec.
const (
	DefaultBandwidthScale = 0.1
	DefaultByteScale      = 0.01
	DefaultHopDelayMS     = 0.1
	DefaultCongestion     = "cubic"
)

// TimeScale is wall seconds per scenario second.
func (s Spec) TimeScale() float64 { return s.ByteScale / s.BandwidthScale }

var ccName = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)

// LoadSpec reads a scenario's testbed section, fills defaults and checks
// every value, naming the file, line and field of a bad one.
func LoadSpec(c *scenario.Config) (Spec, error) {
	var s Spec
	if err := c.DecodeSection(&c.Testbed, "testbed", &s); err != nil {
		return s, err
	}
	set := func(field string) bool { return c.LineOf("testbed."+field) > 0 }
	bad := func(field, want string, v any) error {
		where := c.Name()
		if line := c.LineOf("testbed." + field); line > 0 {
			where = fmt.Sprintf("%s: line %d", where, line)
		}
		return fmt.Errorf("%s: testbed.%s: want %s, got %v", where, field, want, v)
	}
	if !set("bandwidth_scale") {
		s.BandwidthScale = DefaultBandwidthScale
	}
	if !set("byte_scale") {
		s.ByteScale = DefaultByteScale
	}
	if !set("hop_delay_ms") {
		s.HopDelayMS = DefaultHopDelayMS
	}
	switch {
	case !(s.BandwidthScale > 0 && s.BandwidthScale <= 1):
		return s, bad("bandwidth_scale", "a factor in (0, 1]", s.BandwidthScale)
	case !(s.ByteScale > 0 && s.ByteScale <= 1):
		return s, bad("byte_scale", "a factor in (0, 1]", s.ByteScale)
	case math.IsNaN(s.HopDelayMS) || s.HopDelayMS > 1000:
		return s, bad("hop_delay_ms", "milliseconds up to 1000 (negative for none)", s.HopDelayMS)
	case s.QueuePackets < 0 || (set("queue_packets") && s.QueuePackets == 0):
		return s, bad("queue_packets", "a number of frames >= 1", s.QueuePackets)
	case s.StallS < 0 || math.IsNaN(s.StallS) || math.IsInf(s.StallS, 0) || (set("stall_s") && s.StallS == 0):
		return s, bad("stall_s", "wall seconds > 0", s.StallS)
	case s.HeartbeatS < 0 || math.IsNaN(s.HeartbeatS) || math.IsInf(s.HeartbeatS, 0) || (set("heartbeat_s") && s.HeartbeatS == 0):
		return s, bad("heartbeat_s", "a period in wall seconds > 0", s.HeartbeatS)
	}
	if s.CongestionControl == "" {
		s.CongestionControl = DefaultCongestion
	}
	if !ccName.MatchString(s.CongestionControl) {
		return s, bad("congestion_control", "an algorithm name (see /proc/sys/net/ipv4/tcp_available_congestion_control)", s.CongestionControl)
	}
	if s.HopDelayMS < 0 {
		s.HopDelayMS = 0
	}
	if s.HeartbeatS == 0 {
		s.HeartbeatS = c.Engine.WithDefaults().HeartbeatS * s.TimeScale()
	}
	return s, nil
}
