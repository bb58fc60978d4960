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
