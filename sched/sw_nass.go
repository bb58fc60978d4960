package sched

import "github.com/mrsched/mrsched/cluster"

// nassLine is the line of Fig. 3 that picked a task.
type nassLine uint8

// The lines of Fig. 3 that pick a task. Line 5 and 17 ("local Map task")
// explore node-local, then rack-local maps, and record which.
const (
	lineNone nassLine = iota
	line4
	line5Node
	line5Rack
	line6
	line7
	line8
	line9
	line13
	line14
	line15
	line16
	line17Node
	line17Rack
	line18
)

// nassRules are the Decision.Rule of each line; the "+window" forms mark a
// task whose job took precedence by the starvation window (sw_window.go).
var (
	nassRules = [...]string{"", "nass-4", "nass-5-node", "nass-5-rack", "nass-6", "nass-7", "nass-8", "nass-9",
		"nass-13", "nass-14", "nass-15", "nass-16", "nass-17-node", "nass-17-rack", "nass-18"}
	nassWindowRules = [...]string{"", "nass-4+window", "nass-5-node+window", "nass-5-rack+window", "nass-6+window",
		"nass-7+window", "nass-8+window", "nass-9+window", "nass-13+window", "nass-14+window", "nass-15+window",
		"nass-16+window", "nass-17-node+window", "nass-17-rack+window", "nass-18+window"}
)

// nassGroup is Fig. 3, lines 2-19, over jobs g of the selected user, in
// arrival order, for the offer being served. On a saturated rack it
// prefers maps (lines 4-6), then reduces by increasing shuffle (7-9);
// otherwise reduces, shuffle-heavy first (13-15), then maps (16-18, the
// order of 4-6). In the slot model a slot takes one kind, so only that
// kind's lines apply.
func (p *ShuffleWatcher) nassGroup(g []*Job) (Decision, nassLine, bool) {
	if p.call.sat {
		if d, l, ok := p.mapLines(g, line4); ok {
			return d, l, true
		}
		return p.reduceLines(g, true)
	}
	if d, l, ok := p.reduceLines(g, false); ok {
		return d, l, true
	}
	return p.mapLines(g, line16)
}

// mapLines are lines 4-6 (base line4) or 16-18 (base line16): a map of a
// job for which the rack is in PreferredMapRacks; then a node-local map of
// any job; then a rack-local one; then any map. Within a line, jobs in
// arrival order. In line 4 the job's map is the one whose input is
// nearest the node: node-local, rack-local, else its first pending map,
// read remotely ("SAMP may explicitly decide that incurring some remote
// Map tasks reduces the total traffic. Such Map tasks are covered in
// SAMP's PreferredMapRacks"); that map may be one whose input is on
// another of the job's preferred racks (finding one that is not would
// need another index, for little gain). Under sw-delay each job's maps are
// limited to the locality its delay-scheduling level allows.
func (p *ShuffleWatcher) mapLines(g []*Job, base nassLine) (Decision, nassLine, bool) {
	k := &p.call
	if !k.maps {
		return Decision{}, lineNone, false
	}
	n, r := k.o.Node, k.rack
	if p.cfg.SAMP {
		for _, j := range g {
			if s := &p.jobs[j.Index]; s.mapRacks != nil && s.mapRacks[r] && p.mapRunnable(j) {
				if i, reach, ok := pickMap(p.topo, j, n, p.level(j)); ok {
					return p.mapDecision(j, i, reach), base, true
				}
			}
		}
	}
	for _, j := range g {
		if p.mapRunnable(j) {
			if i, ok := j.Maps.NodeLocal(n); ok {
				return p.mapDecision(j, i, cluster.NodeLocal), base + 1, true
			}
		}
	}
	for _, j := range g {
		if p.mapRunnable(j) && p.level(j) >= 1 {
			if i, ok := j.Maps.RackLocal(r); ok {
				return p.mapDecision(j, i, cluster.RackLocal), base + 2, true
			}
		}
	}
	for _, j := range g {
		if !p.mapRunnable(j) {
			continue
		}
		if p.level(j) < 2 {
			p.skip(j) // sw-delay: held back by its locality level
			continue
		}
		if i, ok := j.Maps.Any(); ok {
			return p.mapDecision(j, i, cluster.OffRack), base + 3, true
		}
	}
	return Decision{}, lineNone, false
}

// mapRunnable reports whether job j has a pending map that may run on the
// offered node (and, for resource-aware orders, fits it).
func (p *ShuffleWatcher) mapRunnable(j *Job) bool {
	if j.PendingMaps() == 0 {
		return false
	}
	k := &p.call
	return !p.cfg.ResourceFit || Fits(j, MapSlot, k.cpu, k.mem, k.nodeCPU, k.nodeMem)
}

func (p *ShuffleWatcher) mapDecision(j *Job, i int, reach cluster.Reach) Decision {
	p.delayChose(j, reach)
	return Decision{Job: j, Kind: MapTask, Map: i}
}

// reduceLines are lines 7-9 (saturated) or 13-15: with the network
// saturated, a reduce of a shuffle-light job, then of a shuffle-heavy job
// for which SARP wants more reduces on this rack, then any; otherwise the
// SARP-preferred shuffle-heavy reduce, then any shuffle-heavy one, then
// any. Within a line, jobs in arrival order.
func (p *ShuffleWatcher) reduceLines(g []*Job, sat bool) (Decision, nassLine, bool) {
	k := &p.call
	if !k.reduces {
		return Decision{}, lineNone, false
	}
	var light, wanted, heavy *Job
	for _, j := range g {
		s := &p.jobs[j.Index]
		if !p.reduceRunnable(j, s) {
			continue
		}
		if !s.heavy() {
			if light == nil {
				light = j
			}
			continue
		}
		if heavy == nil {
			heavy = j
		}
		if wanted == nil && s.sarpWants(k.rack) {
			wanted = j
		}
	}
	pick := func(j *Job, l nassLine) (Decision, nassLine, bool) {
		return Decision{Job: j, Kind: ReduceTask}, l, true
	}
	switch {
	case sat && light != nil:
		return pick(light, line7)
	case sat && wanted != nil:
		return pick(wanted, line8)
	case sat && heavy != nil:
		return pick(heavy, line9)
	case !sat && wanted != nil:
		return pick(wanted, line13)
	case !sat && heavy != nil:
		return pick(heavy, line14)
	case !sat && light != nil:
		return pick(light, line15)
	}
	return Decision{}, lineNone, false
}

// reduceRunnable reports whether a reduce of job j may launch on the
// offered node: reduces enabled (by the engine's slow-start and
// ShuffleWatcher's rule), one pending, admissible under copy-compute
// splitting, not a container node's last free container while the job
// still has maps pending (the deadlock guard of Job.KindAt), and, for
// resource-aware orders, fitting.
func (p *ShuffleWatcher) reduceRunnable(j *Job, s *swJob) bool {
	if j.PendingReduces() <= 0 || !p.reducesEnabled(j, s) {
		return false
	}
	k := &p.call
	if k.lastContainer && j.PendingMaps() > 0 {
		return false
	}
	if !k.c.ReduceAdmissible(j, k.o.Node) {
		return false
	}
	return !p.cfg.ResourceFit || Fits(j, ReduceSlot, k.cpu, k.mem, k.nodeCPU, k.nodeMem)
}
