package sched

import (
	"iter"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// MapIndex finds a job's pending map tasks by where their input lives, in
// amortised constant time: Hadoop keeps the same per-node and per-rack
// caches (JobInProgress.nonRunningMapCache). Lists hold candidates; the
// pending flag is the truth, and stale heads are dropped as they are met.
// Within a list, maps come in index order, except that a map returned after
// its attempt was killed goes to the front, as Hadoop's failMap does, so it
// is retried first. Choices are deterministic.
type MapIndex struct {
	// misses, when set, remembers the nodes NodeLocal found nothing on,
	// under the job's slot there.
	misses  *LocalMisses
	slot    int32
	pending []bool
	count   int
	// The maps with a replica on each node, as one table rather than a
	// list per node, which cost a map entry and an allocation a node for
	// every queued job: nodes are the nodes holding a replica, sorted;
	// node k's maps, in index order, are lists[start[k]:start[k+1]], and
	// those before head[k] were found launched. A map returned to pending
	// goes on front[n], read before the table, newest first.
	nodes  []cluster.NodeID
	start  []int32
	head   []int32
	lists  []int32
	front  map[cluster.NodeID][]int32 // nil until a map is returned
	byRack [][]int32
	all    []int32
	topo   *cluster.Topology
	file   *cluster.File
}

// NewMapIndex indexes the maps of a job reading file f, one map a block, all
// pending.
func NewMapIndex(t *cluster.Topology, f *cluster.File) *MapIndex {
	x := &MapIndex{
		pending: make([]bool, f.Blocks),
		count:   f.Blocks,
		byRack:  make([][]int32, t.NumRacks()),
		all:     make([]int32, f.Blocks),
		topo:    t,
		file:    f,
	}
	// (node, map) pairs sorted by node, then map: the table's rows, sized
	// for as many replicas a block as the first has (growing them was two
	// fifths of a job's indexing).
	var pairs []uint64
	if f.Blocks > 0 {
		pairs = make([]uint64, 0, f.Blocks*len(f.BlockReplicas(0)))
	}
	for i := 0; i < f.Blocks; i++ {
		x.pending[i] = true
		x.all[i] = int32(i)
		x.addRack(i, false)
		for _, n := range f.BlockReplicas(i) {
			pairs = append(pairs, uint64(uint32(n))<<32|uint64(uint32(i)))
		}
	}
	slices.Sort(pairs)
	x.lists = make([]int32, len(pairs))
	for k, p := range pairs {
		n := cluster.NodeID(int32(uint32(p >> 32)))
		if len(x.nodes) == 0 || x.nodes[len(x.nodes)-1] != n {
			x.nodes = append(x.nodes, n)
			x.start = append(x.start, int32(k))
		}
		x.lists[k] = int32(uint32(p))
	}
	x.start = append(x.start, int32(len(pairs)))
	x.head = slices.Clone(x.start[:len(x.nodes)])
	return x
}

// addRack puts map i on the lists of the racks that hold a replica of its
// block, at the front for a returned map.
func (x *MapIndex) addRack(i int, front bool) {
	for r := range blockRacks(x.topo, x.file, i) {
		if front {
			x.byRack[r] = append([]int32{int32(i)}, x.byRack[r]...)
		} else {
			x.byRack[r] = append(x.byRack[r], int32(i))
		}
	}
}

// blockRacks yields each rack that holds a replica of block i of f, once,
// in the order of the block's replicas.
func blockRacks(topo *cluster.Topology, f *cluster.File, i int) iter.Seq[cluster.RackID] {
	return func(yield func(cluster.RackID) bool) {
		reps := f.BlockReplicas(i)
		for k, n := range reps {
			r := topo.Rack(n)
			if slices.ContainsFunc(reps[:k], func(m cluster.NodeID) bool { return topo.Rack(m) == r }) {
				continue
			}
			if !yield(r) {
				return
			}
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
	if x.misses != nil && x.misses.has(n, x.slot) {
		return 0, false
	}
	i, ok := x.nodeLocal(n)
	if !ok && x.misses != nil {
		x.misses.set(n, x.slot)
	}
	return i, ok
}

// nodeLocal is NodeLocal read from the job's own lists.
func (x *MapIndex) nodeLocal(n cluster.NodeID) (int, bool) {
	if l := x.front[n]; len(l) > 0 {
		i, ok := x.first(&l)
		if len(l) == 0 {
			delete(x.front, n)
		} else {
			x.front[n] = l
		}
		if ok {
			return i, true
		}
	}
	k, ok := slices.BinarySearch(x.nodes, n)
	if !ok {
		return 0, false
	}
	h, end := x.head[k], x.start[k+1]
	for h < end && !x.pending[x.lists[h]] {
		h++
	}
	x.head[k] = h
	if h == end {
		return 0, false
	}
	return int(x.lists[h]), true
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
	x.addRack(i, true)
	if x.front == nil {
		x.front = map[cluster.NodeID][]int32{}
	}
	for _, n := range x.file.BlockReplicas(i) {
		x.front[n] = append([]int32{int32(i)}, x.front[n]...)
		if x.misses != nil {
			x.misses.clear(n, x.slot)
		}
	}
}

// UseMisses has the index remember in m the nodes it found no pending
// node-local map on, under a slot of m's that it holds until Release.
// The job tracker gives every job's index one LocalMisses.
func (x *MapIndex) UseMisses(m *LocalMisses) {
	x.misses, x.slot = m, m.take()
}

// Release gives the index's slot in its LocalMisses back, when the job
// leaves.
func (x *MapIndex) Release() {
	if x.misses != nil {
		x.misses.release(x.slot)
		x.misses = nil
	}
}

// LocalMisses remembers, node by node across the jobs that use it, which
// jobs had no pending map with a replica on the node when NodeLocal last
// asked. An offer asks job after job about one node, and each job's own
// lists lie elsewhere in memory: most of a backlog has nothing on the
// node, and the answer is one bit of a row the offer keeps reading. A
// remembered miss holds until a map of the job is returned to pending
// with a replica on the node (Return): launches only take maps away, and
// a lost node only drops replicas (DropNode), so no other change can give
// the node a map. Jobs hold slots, reused once their jobs leave, so the
// rows grow with the jobs at once, not with the run's.
type LocalMisses struct {
	rows [][]uint64 // rows[n]: bit s is the job in slot s
	free []int32    // slots given back, reused last first
	next int32      // slots handed out so far
}

// NewLocalMisses returns an empty LocalMisses for a cluster of the given
// number of nodes.
func NewLocalMisses(nodes int) *LocalMisses {
	return &LocalMisses{rows: make([][]uint64, nodes)}
}

// take returns a free slot, with no miss remembered in it.
func (m *LocalMisses) take() int32 {
	if k := len(m.free); k > 0 {
		s := m.free[k-1]
		m.free = m.free[:k-1]
		for n := range m.rows {
			m.clear(cluster.NodeID(n), s)
		}
		return s
	}
	m.next++
	return m.next - 1
}

// release gives slot s back.
func (m *LocalMisses) release(s int32) { m.free = append(m.free, s) }

func (m *LocalMisses) has(n cluster.NodeID, s int32) bool {
	r := m.rows[n]
	return int(s>>6) < len(r) && r[s>>6]&(1<<(s&63)) != 0
}

func (m *LocalMisses) set(n cluster.NodeID, s int32) {
	r := m.rows[n]
	for int(s>>6) >= len(r) {
		r = append(r, 0)
	}
	r[s>>6] |= 1 << (s & 63)
	m.rows[n] = r
}

func (m *LocalMisses) clear(n cluster.NodeID, s int32) {
	if r := m.rows[n]; int(s>>6) < len(r) {
		r[s>>6] &^= 1 << (s & 63)
	}
}

// DropNode forgets node n as a holder of the job's input, once the engine
// has replaced the file's replicas with ones that no longer list it (a
// lost node: cluster.File.Without). Its maps are no longer node-local to
// n, nor rack-local to n's rack unless another replica is there. It is for
// the engine.
func (x *MapIndex) DropNode(n cluster.NodeID) {
	delete(x.front, n)
	if k, ok := slices.BinarySearch(x.nodes, n); ok {
		x.head[k] = x.start[k+1]
	}
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
