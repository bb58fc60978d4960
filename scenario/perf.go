package scenario

import (
	"fmt"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sim"
)

// Perf is what a run cost on this machine: wall time and the wall time of
// the policy's decisions. It is written to perf.json and stderr, never into
// summary.json, whose bytes depend only on the inputs and seed.
type Perf struct {
	Policy string  `json:"policy"`
	WallS  float64 `json:"wall_s"`
	// AssignCalls counts every offer the policy answered, with a task or
	// with none; summary.json's decisions count only the launches.
	AssignCalls    int64   `json:"assign_calls"`
	DecisionMeanUS float64 `json:"decision_mean_us"`
	DecisionP99US  float64 `json:"decision_p99_us"`
	// What the run's cost grows with: engine events, completed flows,
	// full network solves, flow changes applied between solves in
	// quantized mode, and the most flows active at once. HandOffs counts
	// the flows a waiting line raised between solves with bandwidth an
	// ending flow freed (quantized mode): how much the line does.
	// ParkedBeats counts the heartbeats among Events that found nothing
	// to offer on a parked node and so cost no queued event (sim.Stats).
	Events         int64 `json:"events"`
	ParkedBeats    int64 `json:"parked_heartbeats"`
	Flows          int64 `json:"flows"`
	NetworkSolves  int   `json:"network_solves"`
	ProvisionalOps int   `json:"network_provisional_changes"`
	HandOffs       int   `json:"network_hand_offs"`
	PeakFlows      int   `json:"peak_concurrent_flows"`
}

// NewPerf gathers a run's cost: its policy's decision times, the
// engine's counters, and the wall time it took.
func NewPerf(policy string, cost *metrics.Latency, st sim.Stats, wall time.Duration) Perf {
	return Perf{
		Policy: policy, WallS: wall.Seconds(), AssignCalls: cost.Count(),
		DecisionMeanUS: float64(cost.Mean()) / 1e3, DecisionP99US: float64(cost.Quantile(0.99)) / 1e3,
		Events: st.Events, ParkedBeats: st.ParkedBeats, Flows: st.Flows, NetworkSolves: st.Network.Solves,
		ProvisionalOps: st.Network.Provisional, HandOffs: st.Network.HandOffs,
		PeakFlows: st.Network.PeakFlows,
	}
}

// Line is the cost on one line, for stderr.
func (p Perf) Line() string {
	return fmt.Sprintf("%s: %d Assign calls, mean %.2f µs, p99 %.2f µs; %d events, %d flows (peak %d at once), %d network solves; run %.1f s wall",
		p.Policy, p.AssignCalls, p.DecisionMeanUS, p.DecisionP99US, p.Events, p.Flows, p.PeakFlows, p.NetworkSolves, p.WallS)
}
