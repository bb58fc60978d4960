package cluster

import "math/rand/v2"

// NoWriter marks a file written from outside the cluster, so HDFS places its
// first replica on a random node rather than the writer's.
const NoWriter NodeID = -1

// Placer puts HDFS block replicas on nodes with Hadoop's default rack-aware
// policy (BlockPlacementPolicyDefault): the first replica on the writer's
// node (a random node when the writer is outside the cluster), the second on
// a random node of another rack, the third on another node of the second's
// rack, and any further ones on random nodes not yet used. With one rack the
// second replica goes to another node of the same rack; with one node per
// rack the third goes to a third rack. A Placer is seeded and deterministic.
type Placer struct {
	topo *Topology
	rng  *rand.Rand
	used []NodeID
}

// NewPlacer returns a placer drawing from its own seeded stream.
func NewPlacer(t *Topology, seed uint64) *Placer { return newPlacer(t, seed, placerStream) }

func newPlacer(t *Topology, seed, stream uint64) *Placer {
	return &Placer{topo: t, rng: rand.New(rand.NewPCG(seed, stream))}
}

// Replication is the number of replicas each block gets.
func (p *Placer) Replication() int { return p.topo.cfg.Replication }

// PlaceBlock appends one block's replicas to dst and returns it.
func (p *Placer) PlaceBlock(dst []NodeID, writer NodeID) []NodeID {
	t := p.topo
	repl := t.cfg.Replication
	p.used = p.used[:0]
	first := writer
	if first < 0 || int(first) >= t.nodes {
		first = NodeID(p.rng.IntN(t.nodes))
	}
	p.used = append(p.used, first)
	if repl >= 2 {
		p.used = append(p.used, p.pick(func(n NodeID) bool {
			return t.racks == 1 || t.Rack(n) != t.Rack(first)
		}))
	}
	if repl >= 3 {
		second := p.used[1]
		if _, count := t.RackNodes(t.Rack(second)); count == 1 {
			p.used = append(p.used, p.pick(func(NodeID) bool { return true }))
		} else {
			p.used = append(p.used, p.pickInRack(t.Rack(second)))
		}
	}
	for len(p.used) < repl {
		p.used = append(p.used, p.pick(func(NodeID) bool { return true }))
	}
	return append(dst, p.used...)
}

// pick draws a random unused node satisfying ok, falling back to any unused
// node when none does (Validate guarantees enough nodes exist).
func (p *Placer) pick(ok func(NodeID) bool) NodeID {
	t := p.topo
	// Rejection sampling is fast when the constraint admits a good share of
	// the cluster, which it does for every rule above on real topologies.
	for range 64 {
		n := NodeID(p.rng.IntN(t.nodes))
		if ok(n) && !p.isUsed(n) {
			return n
		}
	}
	start := p.rng.IntN(t.nodes)
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < t.nodes; i++ {
			n := NodeID((start + i) % t.nodes)
			if !p.isUsed(n) && (pass == 1 || ok(n)) {
				return n
			}
		}
	}
	return NodeID(start) // unreachable when replication <= nodes
}

// pickInRack is pick with the rule "in rack r", drawing the same numbers
// and choosing the same node; only its fallback differs, scanning the
// rack's nodes alone in the order pick's scan of the cluster meets them.
// On a cluster of many racks the rejection draws rarely land in the rack,
// and a scan of every node for every block made a million-node cluster
// spend minutes placing its blocks.
func (p *Placer) pickInRack(r RackID) NodeID {
	t := p.topo
	for range 64 {
		n := NodeID(p.rng.IntN(t.nodes))
		if t.Rack(n) == r && !p.isUsed(n) {
			return n
		}
	}
	start := NodeID(p.rng.IntN(t.nodes))
	first, count := t.RackNodes(r)
	end := first + NodeID(count)
	for n := max(first, start); n < end; n++ { // from start to the end of the cluster
		if !p.isUsed(n) {
			return n
		}
	}
	for n := first; n < min(start, end); n++ { // then, wrapped, from node 0
		if !p.isUsed(n) {
			return n
		}
	}
	for i := 0; i < t.nodes; i++ { // the rack is full: any unused node
		if n := NodeID((int(start) + i) % t.nodes); !p.isUsed(n) {
			return n
		}
	}
	return start // unreachable when replication <= nodes
}

func (p *Placer) isUsed(n NodeID) bool {
	for _, u := range p.used {
		if u == n {
			return true
		}
	}
	return false
}

// File is a stored file: its blocks' replicas, the same number a block,
// block i's replicas at Replicas[i*r : (i+1)*r] with r = len(Replicas)/Blocks;
// or, once nodes were lost (Without), as Ends says.
type File struct {
	Blocks   int
	Replicas []NodeID
	// Ends, when set, is where each block's replicas end in Replicas
	// (block i's start where block i-1's end, block 0's at 0), for a file
	// whose blocks lost different numbers of replicas. Nil: the same
	// number a block.
	Ends []int32
}

// Without returns f without the replicas on the nodes gone reports, as
// HDFS's namenode forgets a lost datanode's blocks. f and its replica
// slices are not modified, so a reader holding them keeps a consistent
// view; the result shares nothing with f.
func (f *File) Without(gone func(NodeID) bool) File {
	g := File{Blocks: f.Blocks, Replicas: make([]NodeID, 0, len(f.Replicas)), Ends: make([]int32, f.Blocks)}
	for i := 0; i < f.Blocks; i++ {
		for _, n := range f.BlockReplicas(i) {
			if !gone(n) {
				g.Replicas = append(g.Replicas, n)
			}
		}
		g.Ends[i] = int32(len(g.Replicas))
	}
	return g
}

// PlaceFile places a file of n blocks written by writer.
func (p *Placer) PlaceFile(n int, writer NodeID) File {
	r := p.topo.cfg.Replication
	f := File{Blocks: n, Replicas: make([]NodeID, 0, n*r)}
	for i := 0; i < n; i++ {
		f.Replicas = p.PlaceBlock(f.Replicas, writer)
	}
	return f
}

// BlockReplicas returns block i's replicas; the caller must not modify them.
// The slice's capacity ends with the block, so an append cannot overwrite
// the next block's replicas.
func (f *File) BlockReplicas(i int) []NodeID {
	if f.Ends != nil {
		lo, hi := int32(0), f.Ends[i]
		if i > 0 {
			lo = f.Ends[i-1]
		}
		return f.Replicas[lo:hi:hi]
	}
	r := len(f.Replicas) / f.Blocks
	return f.Replicas[i*r : (i+1)*r : (i+1)*r]
}
