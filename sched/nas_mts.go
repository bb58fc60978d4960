package sched

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// MTS rules, by Algorithm 2's line.
const (
	RuleNASLocal     = "nas-mts-4"  // data-local and shuffle-qualified
	RuleNASCategory  = "nas-mts-8"  // after D^m skips: shuffle-qualified, by category, MapCost, fit
	RuleNASLocalOver = "nas-mts-15" // after D^m skips, none qualified: data-local, smallest output
	RuleNASSmallest  = "nas-mts-16" // after D^m skips, none qualified: smallest output
)

// TrafficThreshold is MTS's per-node shuffle threshold (section III-C,
// equation 3): m * sum(S_i) / sum(K_i) over the jobs in the cluster, where
// S_i is job J_i's predicted shuffle size (ShuffleSize: predicted per-map
// output times its maps), K_i its number of map tasks and m the containers
// (map slots, in the slot model) per node. It is the shuffle one wave of
// maps produces on one node if the total shuffle is spread evenly over the
// N*m-container waves. Jobs in the cluster are Cluster.Jobs(): submitted
// and unfinished. It is computed afresh here; the placer refreshes its own
// copy every threshold_period_s (3 s).
func (p *NAS) TrafficThreshold(c Cluster) float64 {
	p.init(c)
	m := mapSlotsPerNode(p.topo)
	var s, k float64
	for _, j := range c.Jobs() {
		if j.Index >= len(p.jobs) || !p.jobs[j.Index].active {
			continue
		}
		s += p.ShuffleSize(j)
		k += float64(j.NumMaps)
	}
	if k == 0 {
		return 0
	}
	return m * s / k
}

// mapSlotsPerNode is m of Equation 3, the containers (map slots, in the
// slot model) a node has: the nodes' own count when they are alike, else
// their mean, so that N x m is still the cluster's total.
func mapSlotsPerNode(t *cluster.Topology) float64 {
	k := mapSlotKind(t)
	if t.Uniform() {
		return float64(t.Slots(0)[k])
	}
	return float64(t.TotalSlots()[k]) / float64(t.NumNodes())
}

// nodeShare is node n's part of a per-node quantity computed for a mean
// node: its own containers (map slots) over the mean. 1 where nodes are
// alike, so that uniform clusters compute exactly as before.
func nodeShare(t *cluster.Topology, n cluster.NodeID) float64 {
	if t.Uniform() {
		return 1
	}
	return float64(t.Slots(n)[mapSlotKind(t)]) / mapSlotsPerNode(t)
}

// mapSlotKind is the index in Topology.Slots of what runs maps: the
// containers, or in the slot model the map slots.
func mapSlotKind(t *cluster.Topology) int {
	if t.ContainerModel() {
		return 2
	}
	return 0
}

// AvailableShuffle is node n's available shuffle space (Algorithm 2 line
// 1): its TrafficThreshold (as last refreshed) minus the predicted output
// of the maps running on it, each the current prediction of its job's
// per-map output. +Inf without TrafficThreshold.
func (p *NAS) AvailableShuffle(c Cluster, n cluster.NodeID) float64 {
	p.init(c)
	if p.cfg.NoTrafficThreshold {
		return math.Inf(1)
	}
	now := c.Now()
	if !p.ttSet || now-p.ttAt >= p.cfg.period {
		p.tt, p.ttAt, p.ttSet = p.TrafficThreshold(c), now, true
	}
	a := p.tt
	if s := nodeShare(p.topo, n); s != 1 {
		a *= s // a node with more containers runs more maps' output at once
	}
	for _, x := range p.running[n] {
		a -= p.jobs[x].out
	}
	return a
}

// Algorithm 2 (MTS), served by mtsUser for each user in turn. How it reads
// the pseudocode:
//
//   - Line 3's candidates are the user's data-local maps whose predicted
//     output fits the available space; among them an unpredicted job's map
//     goes first (so the job becomes predicted sooner), then the output
//     closest to the space (the largest that fits), then the order's
//     sequence. Maps of one job are taken as having one predicted output
//     (the job's per-map prediction).
//   - Lines 6-16 (the user was skipped D^m times, or with wait_s for
//     wait_s seconds) serve that same user and always launch: its
//     shuffle-qualified maps of any locality by category (small-input
//     unpredicted, small-input predicted, large-input unpredicted,
//     large-input predicted), then MapCost = v * input (v 0 node-local, 1
//     rack-local, 2 off-rack; each job offers its closest map), then
//     closest fit (lines 7-12); if none is qualified, its data-local map
//     with the smallest output (line 15), else its map with the smallest
//     output anywhere (line 16, ties by closeness). The prose describes
//     lines 13-16 as "no shuffle-qualified map from all the users"; the
//     pseudocode puts them inside the user's branch, which is what keeps
//     D^m a bound on the user's wait, so that is what is done.
//   - Line 18: a user with maps but no line-3 map, not yet relaxed, is
//     skipped and its counter incremented (a wait_s spell starts); any
//     launch of the user resets the counter and ends the spell.
//   - While CR-RTS holds back maps on the node's rack, the maps of medium
//     and heavy jobs are not candidates at all (and a user with only such
//     jobs is passed without a skip).
//
// mapEligible is false for a map CR-RTS holds back. plan asks it only
// while the offer's rack is held, so it tests the class alone.
func (p *NAS) mapEligible(j *Job) bool { return p.Class(j) == NASLight }

// mtsUser serves one user's map-wanting jobs g; it returns true on a launch.
func (p *NAS) mtsUser(u int32, g []*Job) bool {
	k := &p.call
	n := k.o.Node
	us := &p.users[u]
	// Line 3: data-local and shuffle-qualified.
	var best *Job
	bi, bunp, bgap := 0, false, 0.0
	for _, j := range g {
		// The output test first: it reads the job's own state, while
		// the map index's lookup searches the job's nodes, and on a
		// loaded node most jobs' outputs do not fit.
		s := &p.jobs[j.Index]
		if s.out > k.avail {
			continue
		}
		i, ok := j.Maps.NodeLocal(n)
		if !ok {
			continue
		}
		unp, gap := !s.predicted, fitGap(k.avail, s.out)
		if best == nil || (unp && !bunp) || (unp == bunp && gap < bgap) {
			best, bi, bunp, bgap = j, i, unp, gap
		}
	}
	if best != nil {
		return p.launchMap(us, best, bi, RuleNASLocal)
	}
	if !p.relaxed(us.maps, p.cfg.mapSkips) {
		p.skipMaps(us)
		return false
	}
	// Lines 7-12: shuffle-qualified, any locality.
	bcat, bcost := 0, 0.0
	for _, j := range g {
		s := &p.jobs[j.Index]
		if s.out > k.avail {
			continue
		}
		i, reach, ok := j.Maps.Closest(n)
		if !ok {
			continue
		}
		cat := 0
		if !p.smallInput(j) {
			cat = 2
		}
		if s.predicted {
			cat++
		}
		cost := float64(reach) * p.mapInput(j, i)
		gap := fitGap(k.avail, s.out)
		if best == nil || cat < bcat || (cat == bcat && (cost < bcost || (cost == bcost && gap < bgap))) {
			best, bi, bcat, bcost, bgap = j, i, cat, cost, gap
		}
	}
	if best != nil {
		return p.launchMap(us, best, bi, RuleNASCategory)
	}
	// Line 15: data-local, smallest output.
	bout := 0.0
	for _, j := range g {
		if i, ok := j.Maps.NodeLocal(n); ok {
			if o := p.jobs[j.Index].out; best == nil || o < bout {
				best, bi, bout = j, i, o
			}
		}
	}
	if best != nil {
		return p.launchMap(us, best, bi, RuleNASLocalOver)
	}
	// Line 16: smallest output anywhere, then closest.
	var breach cluster.Reach
	for _, j := range g {
		i, reach, ok := j.Maps.Closest(n)
		if !ok {
			continue
		}
		if o := p.jobs[j.Index].out; best == nil || o < bout || (o == bout && reach < breach) {
			best, bi, bout, breach = j, i, o, reach
		}
	}
	if best != nil {
		return p.launchMap(us, best, bi, RuleNASSmallest)
	}
	return false
}

// skipMaps skips user us for this map request (line 18).
func (p *NAS) skipMaps(us *nasUser) { p.skip(&us.maps) }

// fitGap is how far an output of out falls below the space avail: the
// closest fit has the smallest gap. With no threshold every fit is equal.
func fitGap(avail, out float64) float64 {
	if math.IsInf(avail, 1) {
		return 0
	}
	return avail - out
}

// mapInput is map i's input bytes.
func (p *NAS) mapInput(j *Job, i int) float64 {
	if j.Spec == nil {
		return 0
	}
	return float64(j.Spec.MapInputBytes(i, p.topo.Config().BlockBytes()))
}

func (p *NAS) launchMap(us *nasUser, j *Job, i int, rule string) bool {
	us.maps = skipCount{}
	p.call.d, p.call.ok = Decision{Job: j, Kind: MapTask, Map: i, Rule: rule}, true
	return true
}
