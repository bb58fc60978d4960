package sim

import (
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// preempt asks a preempting policy which attempts to kill, and has the
// job tracker kill them.
func (e *Engine) preempt(p sched.Preempter) {
	if !e.jt.Preempt(p) {
		return
	}
	if e.jt.Finished() < len(e.specs) {
		e.events.push(event{t: e.now + e.p.PreemptionIntervalS, kind: evPreempt})
	}
}

// cancelMapFlows removes the flows of map attempt m: its read, spill or
// merge.
func (e *Engine) cancelMapFlows(m *mapTask) {
	switch m.state {
	case tsRunning:
		e.removeFlow(&m.flow)
		e.cancelDiskFlow(&m.spill, 1, metrics.Spill)
	case tsMerging:
		e.cancelDiskFlow(&m.flow, 2, metrics.Merge)
	}
}

// cancelReduceFlows removes the flows of reduce attempt r: its fetches,
// its merge or its output pipeline.
func (e *Engine) cancelReduceFlows(r *reduceTask) {
	for k := range r.from {
		if r.from[k].state == hostFetching {
			e.removeFlow(&r.from[k].flow)
			e.cancelFetch(r, int32(k))
		}
	}
	switch r.state {
	case tsMerging:
		e.cancelReduceMerge(r)
	case tsWriting:
		e.removeFlow(&r.write)
	}
}

// removeFlow removes the flow *id from the network, unless it is gone
// already (a transfer that broke when a node died), and clears *id.
func (e *Engine) removeFlow(id *network.FlowID) {
	if *id != 0 {
		e.net.Remove(e.now, *id)
		*id = 0
	}
}
