package sched

import "github.com/mrsched/mrsched/cluster"

// NetSat is ShuffleWatcher's network monitor (section 3.1): it compares
// each rack's cross-rack traffic, from the shuffle, remote map reads and
// reduce output writes, with the rack's cross-rack capacity, and flags the
// network saturated when the ratio exceeds NWSaturationThreshold (default
// 0.8).
//
// The flag is per rack, not cluster-wide. NASS is "invoked when a worker
// on rack r requests a task" (Fig. 3), NetSat measures "each node's
// cross-rack traffic" against "the cross-rack bandwidth available to the
// node", and section 4.2 calls NWSaturationThreshold "the per-rack link
// utilization threshold" (400 of the 500 Mbps that tc allowed each
// sub-cluster in aggregate, so a node's cross-rack bandwidth is its rack's).
// So NetworkSaturated is read for the requesting worker's rack: a task
// launched there adds its traffic to that rack's uplink.
//
// The measurement is the engine's network monitor
// (Cluster.UplinkUtilization): every engine.monitor_period_s (default 3 s,
// the paper's "periodically") it averages each rack uplink's use in each
// direction over the period. In the model every byte crossing a rack
// uplink is shuffle, remote map input or reduce output, exactly NetSat's
// three causes, so no separate accounting is needed, and NetSat's period is
// the monitor's. The uplink is full duplex; the rack counts as saturated
// when either direction is above the threshold (the larger of up and
// down): a reduce or remote map launched on the rack loads its downlink,
// and the map output and reduce output it produces load its uplink, so
// either direction being full throttles what NASS would add.
type NetSat struct {
	// Threshold is NWSaturationThreshold, a fraction of capacity.
	Threshold float64
}

// Saturated reports NetworkSaturated for rack r: its uplink utilisation
// over the monitor's last period, in either direction, exceeds the
// threshold.
func (n NetSat) Saturated(c Cluster, r cluster.RackID) bool {
	up, down := c.UplinkUtilization(r)
	return max(up, down) > n.Threshold
}

// NetworkSaturated reports the flag NASS reads for an offer on rack r
// (see NetSat.Saturated).
func (p *ShuffleWatcher) NetworkSaturated(c Cluster, r cluster.RackID) bool {
	return p.netsat.Saturated(c, r)
}
