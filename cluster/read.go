package cluster

import (
	"hash/fnv"
	"math/rand/v2"
)

// PlaceInput places the input file of the job named name, blocks blocks
// long, as every engine must for the run with this seed: from a stream of
// its own keyed by the job's name, so that a job's blocks sit in the same
// places whatever else runs (a job replayed alone for its slowdown, or on
// the testbed, reads the same replicas as in the simulated run). The
// writer is outside the cluster.
func PlaceInput(t *Topology, seed uint64, name string, blocks int) File {
	h := fnv.New64a()
	h.Write([]byte(name))
	return NewPlacer(t, seed^h.Sum64()).PlaceFile(blocks, NoWriter)
}

// NearestReplica picks the replica a reader on node n reads from: the
// nearest, and among equally near ones a random one drawn from rng, as
// HDFS's client does (NetworkTopology.pseudoSortByDistance shuffles
// replicas at equal distance). Always taking the first listed would send
// every remote reader of a block to the same node and make it a hot spot
// no real cluster has.
func NearestReplica(t *Topology, reps []NodeID, n NodeID, rng *rand.Rand) NodeID {
	best, ties := OffRack+1, 0
	var pick NodeID
	for _, r := range reps {
		switch rr := t.ReachOf(r, n); {
		case rr < best:
			best, ties, pick = rr, 1, r
		case rr == best:
			// Reservoir sampling: each of the k tied replicas ends up
			// chosen with probability 1/k.
			ties++
			if rng.IntN(ties) == 0 {
				pick = r
			}
		}
	}
	return pick
}
