package cluster

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// PlaceInput places the input file of the job named name, blocks blocks
// long, as every engine must for the run with this seed: from a stream of
// its own keyed by the job's name, so that a job's blocks sit in the same
// places whatever else runs (a job replayed alone for its slowdown, or on
// the testbed, reads the same replicas as in the simulated run). The
// writer is outside the cluster. It is Input{Job: name}.Place.
func PlaceInput(t *Topology, seed uint64, name string, blocks int) File {
	return Input{Job: name}.Place(t, seed, blocks)
}

// Input names the file a job reads and says who wrote it: what placing
// the file takes besides the topology and the seed.
type Input struct {
	// Job is the job's name. A job without a data set reads a file of its
	// own, placed from a stream keyed by this name.
	Job string
	// DataSet is the path of the file the job reads, when the workload
	// names one (SWIM's input-path column): jobs that name one path read
	// one file, placed from a stream keyed by the path (a stream apart
	// from every job's, so a job and a path of one name never share it).
	DataSet string
	// Writer reports that a node of the cluster wrote the file, so that
	// HDFS put the first replica of every block on the writer's node
	// (Hadoop 0.20's ReplicationTargetChooser.chooseLocalNode). The node
	// is drawn once a file, uniformly over the cluster, from the file's
	// stream. Otherwise the file came from outside the cluster and each
	// block's first replica is on a random node.
	Writer bool
}

// Streams of the placers of input files: a job's own file keeps the
// stream every Placer has, so that runs without data sets place as they
// always did; a data set's file has one of its own.
const (
	placerStream  = 0x68646673 // "hdfs"
	dataSetStream = 0x64617461 // "data"
)

// Place returns the first blocks blocks of the input file, as every
// engine places them for the run with this seed. Block i's replicas are
// drawn after those of blocks 0..i-1 and before those of later blocks, so
// the first k blocks sit where they would in a file of any length: jobs
// that read different amounts of one data set read the same blocks as far
// as they both read, the file being as large as its largest read, and
// placing it at each read puts it where placing it once at its first read
// would.
func (in Input) Place(t *Topology, seed uint64, blocks int) File {
	key, stream := in.Job, uint64(placerStream)
	if in.DataSet != "" {
		key, stream = in.DataSet, dataSetStream
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	p := newPlacer(t, seed^h.Sum64(), stream)
	writer := NoWriter
	if in.Writer {
		writer = NodeID(p.rng.IntN(t.nodes))
	}
	return p.PlaceFile(blocks, writer)
}

// ReplicaChoice names the rule by which a map picks the replica of its
// block it reads (ReadOrder). The zero value is NearestRandom.
type ReplicaChoice string

// The replica choices.
const (
	// NearestRandom reads the nearest replica (node-local, then
	// rack-local, then off-rack), a random one among equally near ones:
	// what Hadoop 2's NetworkTopology.sortByDistance does, which shuffles
	// the replicas at each distance. It is the model's default.
	NearestRandom ReplicaChoice = "nearest-random"
	// Hadoop020 orders the replicas as Hadoop 0.20's namenode does for a
	// reader (NetworkTopology.pseudoSortByDistance, called by
	// FSNamesystem.getBlockLocations for the client's host) and reads the
	// first, as its DFSClient.bestNode does: the reader's own replica, else
	// the first listed replica in its rack, so that every reader of a rack
	// reads the same replica of a block; else a random one. See
	// pseudoSortByDistance for the exact rule and its quirk.
	Hadoop020 ReplicaChoice = "hadoop-0.20"
)

// ReplicaChoices lists the choices' names, the default first.
func ReplicaChoices() []string { return []string{string(NearestRandom), string(Hadoop020)} }

// Validate reports a name that is no replica choice, under its YAML field.
func (c ReplicaChoice) Validate() error {
	switch c {
	case "", NearestRandom, Hadoop020:
		return nil
	}
	return fmt.Errorf("cluster.replica_choice: %q; want one of %s", string(c), strings.Join(ReplicaChoices(), ", "))
}

// NearestReplica picks the replica a reader on node n reads under
// NearestRandom: the nearest, and among equally near ones a random one
// drawn from rng. Always taking the first listed would send every remote
// reader of a block to the same node and make it a hot spot; Hadoop 0.20
// did so for readers in one rack (Hadoop020).
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

// ReadOrder appends to dst the replicas reps of a block in the order a map
// on node n tries them under the topology's replica choice, and returns
// it: the map reads from the first and, should that node die, from the
// next. src, when not negative, is a replica the policy chose
// (sched.Decision.Source); it comes first. rng draws what the choice
// leaves to chance. The simulator (through ReadReplica) and the testbed's
// master both order reads here, so that they read alike.
//
// NearestRandom: the replica NearestReplica picks, then the others
// nearest first, ties in their listed order. Hadoop020: the replicas as
// pseudoSortByDistance leaves them, src moved to the front when given.
func ReadOrder(dst []NodeID, t *Topology, reps []NodeID, n, src NodeID, rng *rand.Rand) []NodeID {
	start := len(dst)
	if t.cfg.ReplicaChoice == Hadoop020 {
		dst = append(dst, reps...)
		order := dst[start:]
		pseudoSortByDistance(t, order, n, rng)
		if src >= 0 {
			if i := slices.Index(order, src); i >= 0 {
				copy(order[1:i+1], order[:i])
				order[0] = src
			} else {
				dst = slices.Insert(dst, start, src)
			}
		}
		return dst
	}
	first := src
	if first < 0 {
		first = NearestReplica(t, reps, n, rng)
	}
	dst = append(dst, first)
	for _, r := range reps {
		if r != first {
			dst = append(dst, r)
		}
	}
	slices.SortStableFunc(dst[start+1:], func(a, b NodeID) int {
		return cmp.Compare(t.ReachOf(a, n), t.ReachOf(b, n))
	})
	return dst
}

// ReadReplica is the replica among reps, which must not be empty, that a
// map on node n reads under the topology's replica choice, passing over
// the nodes down reports (nil: none is down). When every replica is down
// it is the one the map would read were they up, from which the read
// fails.
//
// NearestRandom draws among the live replicas only. Hadoop020 orders them
// all and takes the first live one, as 0.20's DFSClient.bestNode skips the
// nodes it found dead in the order the namenode gave: a rack-local reader
// whose rack's first listed replica is dead goes to the next listed,
// which may be off-rack although another replica is in its rack.
func ReadReplica(t *Topology, reps []NodeID, n NodeID, down func(NodeID) bool, rng *rand.Rand) NodeID {
	if t.cfg.ReplicaChoice == Hadoop020 {
		var buf [8]NodeID
		order := ReadOrder(buf[:0], t, reps, n, -1, rng)
		for _, r := range order {
			if down == nil || !down(r) {
				return r
			}
		}
		return order[0]
	}
	if down != nil {
		var live []NodeID
		for _, r := range reps {
			if !down(r) {
				live = append(live, r)
			}
		}
		if len(live) > 0 {
			reps = live
		}
	}
	return NearestReplica(t, reps, n, rng)
}

// pseudoSortByDistance reorders nodes, a block's replicas as the namenode
// lists them, for a reader on node reader, as Hadoop 0.20.2's
// NetworkTopology.pseudoSortByDistance does (src/core/org/apache/hadoop/
// net/NetworkTopology.java). It scans the list once: the reader's own
// replica, if any, is swapped to position 0, and the first replica in the
// reader's rack (other than its own) to the position after it. When
// neither moved, a replica drawn uniformly from rng is swapped to
// position 0; the rest of the list is left as it was.
//
// Its quirk, kept here because 0.20 has it: a rack-local replica found at
// position 0 is "moved" to where it already is, which 0.20 does not count
// as a move, so a reader without a replica of its own whose rack's first
// listed replica heads the list reads a random replica, off-rack ones
// included. Later Hadoop releases test that no rack-local replica was
// found before drawing.
//
// The namenode lists a block's replicas in the order their datanodes
// reported them; the model takes the order they were placed in (writer,
// then the other rack's two, HDFS's pipeline order).
func pseudoSortByDistance(t *Topology, nodes []NodeID, reader NodeID, rng *rand.Rand) {
	temp, localRack := 0, -1
	for i := range nodes {
		if temp == 0 && nodes[i] == reader {
			nodes[0], nodes[i] = nodes[i], nodes[0]
			temp = 1
			if localRack != -1 {
				if localRack == 0 {
					localRack = i // the rack-local replica moved to where the local one was
				}
				break
			}
		} else if localRack == -1 && t.Rack(nodes[i]) == t.Rack(reader) {
			localRack = i
			if temp != 0 {
				break
			}
		}
	}
	if localRack != -1 && localRack != temp {
		nodes[temp], nodes[localRack] = nodes[localRack], nodes[temp]
		temp++
	}
	if temp == 0 && len(nodes) != 0 {
		r := rng.IntN(len(nodes))
		nodes[0], nodes[r] = nodes[r], nodes[0]
	}
}
