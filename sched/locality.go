package sched

import (
	"iter"

	"github.com/mrsched/mrsched/cluster"
)

// Rules a locality-first placement reports.
const (
	RuleNodeLocal = "node-local"
	RuleRackLocal = "rack-local"
	RuleOffRack   = "off-rack"
	RuleReduce    = "reduce"
)

// LocalityFirst is Hadoop's default placement: the first candidate job with
// work for the slot gets it, and a map is the one whose input is closest to
// the offered node (node-local, then rack-local, then any). It never
// declines while a candidate exists, which is what makes Hadoop's FIFO and
// Fair schedulers lose locality on small jobs (Fair Scheduler paper,
// section 4.1).
type LocalityFirst struct{}

var _ Placer = LocalityFirst{}

// Place gives the slot to the first candidate.
func (LocalityFirst) Place(c Cluster, o Offer, jobs iter.Seq[*Job]) (Decision, bool) {
	for j := range jobs {
		if d, ok := PlaceInJob(c, j, o); ok {
			return d, true
		}
	}
	return Decision{}, false
}

// PlaceInJob picks job j's task for the offer without waiting: the closest
// map, or a reduce, as j.KindAt decides.
func PlaceInJob(c Cluster, j *Job, o Offer) (Decision, bool) {
	kind, ok := j.KindAt(c, o)
	if !ok {
		return Decision{}, false
	}
	if kind == ReduceTask {
		return Decision{Job: j, Kind: ReduceTask, Rule: RuleReduce}, true
	}
	i, reach, ok := j.Maps.Closest(o.Node)
	if !ok {
		return Decision{}, false
	}
	return Decision{Job: j, Kind: MapTask, Map: i, Rule: reachRule(reach)}, true
}

func reachRule(r cluster.Reach) string {
	switch r {
	case cluster.NodeLocal:
		return RuleNodeLocal
	case cluster.RackLocal:
		return RuleRackLocal
	}
	return RuleOffRack
}
