package sim

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// monitor samples every rack uplink's utilisation averaged over the last
// period, from the network's per-link byte counters. Policies read the last
// sample (NetSat); the collector counts congestion occurrences.
func (e *Engine) monitor() {
	e.net.Advance(e.now)
	period := e.p.MonitorPeriodS
	congested := 0
	for r := range e.uplink {
		ids := [2]network.LinkID{e.topo.UplinkUp(cluster.RackID(r)), e.topo.UplinkDown(cluster.RackID(r))}
		for d := 0; d < 2; d++ {
			b := e.net.LinkBytes(ids[d])
			util := (b - e.lastUp[r][d]) / (period * e.linkCaps[ids[d]])
			e.lastUp[r][d] = b
			e.uplink[r][d] = util
			if util >= e.p.CongestionThreshold {
				congested++
			}
		}
	}
	e.col.MonitorSample(congested)
	e.col.UplinkMonitorSample(e.uplink)
	if e.faults != nil {
		e.jt.StarvedMaps()
	}
	e.checkStall() // heartbeats stop on full nodes; the monitor always runs
	e.checkRunaway()
	e.lastCongested = congested
	if e.jt.Finished() < len(e.specs) {
		e.events.push(event{t: e.now + period, kind: evMonitor})
	}
}

// series appends a timeseries row: cross-rack byte rates by cause over the
// period, read from the accounting links, and the cluster's load.
func (e *Engine) series() {
	e.net.Advance(e.now)
	dt := e.now - e.lastSer
	row := metrics.TimeseriesRow{T: e.now, ActiveJobs: len(e.jt.Jobs()), CongestedUplinks: e.lastCongested}
	for c := range e.acct {
		b := e.net.LinkBytes(e.acct[c])
		if dt > 0 {
			row.CrossRackBps[c] = (b - e.lastAcct[c]) / dt
		}
		e.lastAcct[c] = b
		row.CrossRackTotalBytes += b
	}
	AddLoad(&row, e.jt.Jobs(), e.uplink)
	e.col.AddTimeseries(row)
	e.col.EndUplinkPeriod(e.now, len(e.uplink))
	e.col.AddPoolSamples(e.poolSamples())
	e.lastSer = e.now
	if e.jt.Finished() < len(e.specs) {
		e.events.push(event{t: e.now + e.p.TimeseriesPeriodS, kind: evSeries})
	}
}

// AddLoad adds the cluster's load to a timeseries row: the active jobs'
// running and pending tasks, and the busiest rack uplink's utilisation in
// either direction at the last monitor sample (uplink holds each rack's
// up and down). The testbed's master records the same series with it.
func AddLoad(row *metrics.TimeseriesRow, active []*sched.Job, uplink [][2]float64) {
	for _, j := range active {
		row.RunningMaps += j.RunningMaps
		row.RunningReduces += j.RunningReduces
		row.PendingMaps += j.PendingMaps()
	}
	for r := range uplink {
		row.MaxUplinkUtil = math.Max(row.MaxUplinkUtil, math.Max(uplink[r][0], uplink[r][1]))
	}
}

// poolSamples returns each pool's running tasks, demand and shares now.
func (e *Engine) poolSamples() []metrics.PoolSample {
	return PoolSamples(e.now, e.jt.Jobs(), e.jt.SlotTotals())
}

// checkEnd verifies, once every job is done, that nothing is left running
// and that every shuffle byte produced was fetched exactly once.
func (e *Engine) checkEnd() error {
	if e.jt.RunningAttempts() != 0 || e.net.ActiveFlows() != 0 {
		return fmt.Errorf("invariant: all jobs finished but %d tasks and %d flows remain", e.jt.RunningAttempts(), e.net.ActiveFlows())
	}
	if lm, lr := e.jt.Launchable(); lm != 0 || lr != 0 {
		return fmt.Errorf("invariant: all jobs finished but %d maps and %d reduces are counted launchable", lm, lr)
	}
	if !e.p.CheckInvariants {
		return nil
	}
	if d := math.Abs(e.shuffleProduced - e.shuffleFetched); d > 1e-6*math.Max(1, e.shuffleProduced) {
		return fmt.Errorf("invariant: %.0f shuffle bytes produced but %.0f fetched", e.shuffleProduced, e.shuffleFetched)
	}
	if err := e.checkDiskLedger(); err != nil {
		return err
	}
	for n := range e.nodes {
		id := cluster.NodeID(n)
		want := e.jt.SlotsOf(id)
		if e.jt.Gone(id) {
			want = [3]int{} // its slots left the cluster
		}
		free := [3]int{e.jt.FreeSlots(id, 0), e.jt.FreeSlots(id, 1), e.jt.FreeSlots(id, 2)}
		if free != want || e.nodes[n].computing != 0 {
			return fmt.Errorf("invariant: node %d ends with free slots %v", n, free)
		}
	}
	return nil
}

// ShuffleBytes returns the shuffle bytes produced by maps and fetched by
// reduces so far; they are equal at the end of a run.
func (e *Engine) ShuffleBytes() (produced, fetched float64) {
	return e.shuffleProduced, e.shuffleFetched
}
