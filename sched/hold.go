package sched

// Holder is a policy, or a part of one, that can name the rule by which
// it declined an offer a pending task of kind k could have taken: delay
// scheduling's locality wait, NAS's holds, ShuffleWatcher's deferrals,
// TD's admission. A container offer (AnySlot) holds maps and reduces,
// each by its own rule. Where a job's time goes (package critpath) names
// the time a free slot sat idle while jobs waited by it. It returns ""
// when it has no name for the decline.
type Holder interface {
	HoldRule(o Offer, k TaskKind) string
}

// HoldRule names why policy p declined offer o for tasks of kind k: what
// p says as a Holder, else p's name.
func HoldRule(p Policy, o Offer, k TaskKind) string {
	if h, ok := p.(Holder); ok {
		if r := h.HoldRule(o, k); r != "" {
			return r
		}
	}
	return p.Name()
}

// HoldRule asks the placer, then the order.
func (p *Composed) HoldRule(o Offer, k TaskKind) string {
	for _, part := range [2]any{p.placer, p.order} {
		if h, ok := part.(Holder); ok {
			if r := h.HoldRule(o, k); r != "" {
				return r
			}
		}
	}
	return ""
}

// Rules by which the papers' placers decline offers.
const (
	HoldDelay        = "delay-wait"       // delay scheduling waits for a local map (Fair Scheduler paper, section 3)
	HoldNASMap       = "nas-mts-hold"     // MTS waits D^m skips for a qualified map (NAS, section III-C)
	HoldNASReduce    = "nas-crrts-hold"   // CR-RTS holds reduces while the network is congested (NAS, section III-D)
	HoldNASRackMaps  = "nas-crrts-maps"   // MTS holds medium and heavy maps on a rack CR-RTS marked congested (Algorithm 4's note)
	HoldSWMap        = "sw-map-defer"     // ShuffleWatcher's map placement defers (SAMP, section 4.2)
	HoldSWReduce     = "sw-shuffle-defer" // ShuffleWatcher's NASS/SARP defer shuffles (sections 4.1, 4.3)
	HoldTD           = "td-status"        // TD admits by job status (Algorithms 1-3)
	HoldResourcesFit = "no-fit"           // no waiting task fits the node's free cores and memory
	HoldJobLimit     = "job-limit"        // jobs wait past a running-job limit (maxRunningJobs, maxRunningApps)
	HoldLoadCap      = "load-cap"         // Hadoop 1's load manager leaves a node's slots free (engine.load_cap)
)

// HoldRule names the running-job limits while jobs wait past one.
func (f *FairOrder) HoldRule(Offer, TaskKind) string {
	if f.admit != nil && len(f.admit.classes) > 0 {
		return HoldJobLimit
	}
	return ""
}

// HoldRule names delay scheduling's locality wait for maps.
func (p *DelayPlacer) HoldRule(_ Offer, k TaskKind) string {
	if k == ReduceTask {
		return ""
	}
	return HoldDelay
}

// HoldRule names CR-RTS's hold for reduces; for maps, CR-RTS's note
// when the offer's rack is marked congested (MTS then holds medium and
// heavy maps there), else MTS's wait.
func (p *NAS) HoldRule(o Offer, k TaskKind) string {
	switch {
	case k == ReduceTask:
		return HoldNASReduce
	case p.topo != nil && p.cfg.CRRTS && p.hold[p.topo.Rack(o.Node)]:
		return HoldNASRackMaps
	}
	return HoldNASMap
}

// HoldRule names ShuffleWatcher's deferral.
func (p *ShuffleWatcher) HoldRule(_ Offer, k TaskKind) string {
	if k == ReduceTask {
		return HoldSWReduce
	}
	return HoldSWMap
}

// HoldRule names TD's admission.
func (p *TD) HoldRule(Offer, TaskKind) string { return HoldTD }

// HoldRule names a decline for resources.
func (f *ResourceFit) HoldRule(Offer, TaskKind) string { return HoldResourcesFit }
