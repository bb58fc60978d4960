package sim

import (
	"cmp"
	"slices"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
)

// PoolSamples returns each pool's running tasks, demand and shares at
// now, pools by name, from the active jobs and the cluster's slots by kind
// (map, reduce, container); see metrics.PoolSample for the definitions.
// The testbed's master records the same series with it.
func PoolSamples(now float64, active []*sched.Job, slotTotal [3]int) []metrics.PoolSample {
	if len(active) == 0 {
		return nil
	}
	type pool struct {
		name    string
		running int
		demand  [3]int // by slot kind
	}
	var pools []pool
	index := map[string]int{} // lookup only; the order is the sort below
	for _, j := range active {
		i, ok := index[j.Pool]
		if !ok {
			i = len(pools)
			index[j.Pool] = i
			pools = append(pools, pool{name: j.Pool})
		}
		p := &pools[i]
		p.running += j.RunningMaps + j.RunningReduces
		for k := range p.demand {
			if slotTotal[k] > 0 {
				p.demand[k] += j.Demand(sched.SlotKind(k))
			}
		}
	}
	slices.SortFunc(pools, func(a, b pool) int { return cmp.Compare(a.name, b.name) })
	slots := 0
	fair := make([]float64, len(pools))
	reqs := make([]sched.ShareRequest, len(pools))
	for k, total := range slotTotal {
		if total == 0 {
			continue
		}
		slots += total
		for i := range pools {
			reqs[i] = sched.ShareRequest{Demand: float64(pools[i].demand[k]), Weight: 1}
		}
		for i, s := range sched.FairShares(float64(total), reqs) {
			fair[i] += s
		}
	}
	out := make([]metrics.PoolSample, len(pools))
	for i, p := range pools {
		out[i] = metrics.PoolSample{T: now, Pool: p.name, Running: p.running, Demand: p.demand[0] + p.demand[1] + p.demand[2],
			Share: float64(p.running) / float64(slots), FairShare: fair[i] / float64(slots)}
	}
	return out
}
