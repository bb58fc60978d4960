package sched

// PoolOrder returns the pools, by name, that openPools yields for slot
// kind s: the order a placer reading f pool by pool sees.
func PoolOrder(f *FairOrder, c Cluster, s SlotKind) []string {
	var names []string
	for _, k := range f.openPools(c, s) {
		names = append(names, k.p.name)
	}
	return names
}

// PoolJobs returns the indexes of the jobs of pool name that have work
// for slot kind s, in the order a placer reading the pool sees them:
// yieldSome's over every job of the pool when some is set, yieldPool's
// otherwise. It brings the shares up to date first, as every reader does.
func PoolJobs(f *FairOrder, c Cluster, name string, s SlotKind, some bool) []int {
	f.update(c, s)
	p := f.pools[name]
	if p == nil || len(p.jobs) == 0 {
		return nil
	}
	var out []int
	collect := func(j *Job) bool { out = append(out, j.Index); return true }
	if some {
		ks := make([]int32, len(p.jobs))
		for k := range ks {
			ks[k] = int32(k)
		}
		f.yieldSome(p, s, ks, collect)
	} else {
		f.yieldPool(p, s, collect)
	}
	return out
}
