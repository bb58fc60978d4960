package sched

import "github.com/mrsched/mrsched/cluster"

// MapIndex finds a job's pending map tasks by where their input lives, in
// amortised constant time: Hadoop keeps the same per-node and per-rack
// caches (JobInProgress.nonRunningMapCache). Lists hold candidates; the
// pending flag is the truth, and stale heads are dropped as they are met.
// Within a list, maps come in index order, except that a map returned after
// its attempt was killed goes to the front, as Hadoop's failMap does, so it
// is retried first. Choices are deterministic.
type MapIndex struct {
	pending []bool
	count   int
	byNode  map[cluster.NodeID][]int32
	byRack  [][]int32
	all     []int32
	topo    *cluster.Topology
	file    *cluster.File
}

// NewMapIndex indexes the maps of a job reading file f, one map a block, all
// pending.
func NewMapIndex(t *cluster.Topology, f *cluster.File) *MapIndex {
	x := &MapIndex{
		pending: make([]bool, f.Blocks),
		count:   f.Blocks,
		byNode:  make(map[cluster.NodeID][]int32),
		byRack:  make([][]int32, t.NumRacks()),
		all:     make([]int32, f.Blocks),
		topo:    t,
		file:    f,
	}
	for i := 0; i < f.Blocks; i++ {
		x.pending[i] = true
		x.all[i] = int32(i)
		x.add(i, false)
	}
	return x
}

func (x *MapIndex) add(i int, front bool) {
	put := func(l []int32) []int32 {
		if front {
			return append([]int32{int32(i)}, l...)
		}
		return append(l, int32(i))
	}
	reps := x.file.BlockReplicas(i)
	for k, n := range reps {
		x.byNode[n] = put(x.byNode[n])
		r := x.topo.Rack(n)
		dup := false
		for _, m := range reps[:k] {
			if x.topo.Rack(m) == r {
				dup = true
				break
			}
		}
		if !dup {
			x.byRack[r] = put(x.byRack[r])
		}
	}
}

// Pending is the number of pending maps.
func (x *MapIndex) Pending() int { return x.count }

// IsPending reports whether map i waits to be launched.
func (x *MapIndex) IsPending(i int) bool { return x.pending[i] }

// first returns the first pending entry of l, dropping stale heads.
func (x *MapIndex) first(l *[]int32) (int, bool) {
	s := *l
	for len(s) > 0 && !x.pending[s[0]] {
		s = s[1:]
	}
	*l = s
	if len(s) == 0 {
		return 0, false
	}
	return int(s[0]), true
}

// NodeLocal returns a pending map with a replica on node n.
func (x *MapIndex) NodeLocal(n cluster.NodeID) (int, bool) {
	l, ok := x.byNode[n]
	if !ok {
		return 0, false
	}
	if len(l) > 0 && x.pending[l[0]] {
		return int(l[0]), true // nothing stale to drop: no write back
	}
	i, found := x.first(&l)
	if len(l) == 0 {
		delete(x.byNode, n)
	} else {
		x.byNode[n] = l
	}
	return i, found
}

// RackLocal returns a pending map with a replica in rack r.
func (x *MapIndex) RackLocal(r cluster.RackID) (int, bool) { return x.first(&x.byRack[r]) }

// Any returns the first pending map: a returned one, else the lowest-indexed.
func (x *MapIndex) Any() (int, bool) { return x.first(&x.all) }

// Closest returns the pending map whose input is nearest to node n (node,
// then rack, then anywhere) and how far it is.
func (x *MapIndex) Closest(n cluster.NodeID) (int, cluster.Reach, bool) {
	if i, ok := x.NodeLocal(n); ok {
		return i, cluster.NodeLocal, true
	}
	if i, ok := x.RackLocal(x.topo.Rack(n)); ok {
		return i, cluster.RackLocal, true
	}
	i, ok := x.Any()
	return i, cluster.OffRack, ok
}

// Reach tells how far map i's nearest replica is from node n.
func (x *MapIndex) Reach(i int, n cluster.NodeID) cluster.Reach {
	best := cluster.OffRack
	for _, m := range x.file.BlockReplicas(i) {
		if r := x.topo.ReachOf(m, n); r < best {
			best = r
		}
	}
	return best
}

// Take marks map i launched. It is for the engine.
func (x *MapIndex) Take(i int) {
	if x.pending[i] {
		x.pending[i] = false
		x.count--
	}
}

// Return marks map i pending again after its attempt was killed or its
// output lost. It is for the engine.
func (x *MapIndex) Return(i int) {
	if x.pending[i] {
		return
	}
	x.pending[i] = true
	x.count++
	x.all = append([]int32{int32(i)}, x.all...)
	x.add(i, true)
}

// DropNode forgets node n as a holder of the job's input, once the engine
// has replaced the file's replicas with ones that no longer list it (a
// lost node: cluster.File.Without). Its maps are no longer node-local to
// n, nor rack-local to n's rack unless another replica is there. It is for
// the engine.
func (x *MapIndex) DropNode(n cluster.NodeID) {
	delete(x.byNode, n)
	r := x.topo.Rack(n)
	l := x.byRack[r][:0:0]
	for _, i := range x.byRack[r] {
		for _, m := range x.file.BlockReplicas(int(i)) {
			if x.topo.Rack(m) == r {
				l = append(l, i)
				break
			}
		}
	}
	x.byRack[r] = l
}
