package cluster

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
)

// nineNodes is three racks of three nodes: rack 0 holds nodes 0-2, rack 1
// nodes 3-5, rack 2 nodes 6-8.
func nineNodes(t *testing.T, choice ReplicaChoice) *Topology {
	return mustTopology(t, Config{Racks: 3, NodesPerRack: 3, ReplicaChoice: choice})
}

// drewNothing reports whether rng is where a fresh stream of seed is: the
// order was decided without a draw.
func drewNothing(rng *rand.Rand, seed uint64) bool {
	return rng.Uint64() == rand.New(rand.NewPCG(seed, 0)).Uint64()
}

// TestHadoop020OrderWithoutChance: where 0.20's pseudoSortByDistance finds
// the reader's own replica, or a rack-local one after position 0, the
// order is fixed, hand-traced through the 0.20 code, and nothing is drawn.
func TestHadoop020OrderWithoutChance(t *testing.T) {
	topo := nineNodes(t, Hadoop020)
	tests := []struct {
		name   string
		reps   []NodeID
		reader NodeID
		want   []NodeID
	}{
		{"the writer reads its own replica; no other replica in its rack", []NodeID{0, 3, 4}, 0, []NodeID{0, 3, 4}},
		{"own replica last: swapped to the front, rack-local 3 stays second", []NodeID{0, 3, 4}, 4, []NodeID{4, 3, 0}},
		{"own replica second: to the front, then the rack's next one after it", []NodeID{0, 3, 4}, 3, []NodeID{3, 4, 0}},
		{"no own replica: the rack's first listed (3, not 4) to the front", []NodeID{0, 3, 4}, 5, []NodeID{3, 0, 4}},
		{"rack-local at the head, own replica second: own first, rack-local second", []NodeID{3, 4, 0}, 4, []NodeID{4, 3, 0}},
		{"rack-local at the head, own replica last: own first, the head moves to second", []NodeID{3, 0, 4}, 4, []NodeID{4, 3, 0}},
		{"one replica, the reader's", []NodeID{7}, 7, []NodeID{7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 0))
			got := ReadOrder(nil, topo, tc.reps, tc.reader, -1, rng)
			if !slices.Equal(got, tc.want) {
				t.Errorf("replicas %v read from node %d: order %v, want %v (0.20's swaps, hand-traced)", tc.reps, tc.reader, got, tc.want)
			}
			if !drewNothing(rng, 9) {
				t.Errorf("replicas %v read from node %d: the order drew from rng; 0.20 draws only when no own or moved rack-local replica exists", tc.reps, tc.reader)
			}
		})
	}
}

// TestHadoop020RackLocalReadersPileOnOneReplica: every reader of rack 1
// without a replica of its own reads the rack's first listed replica (3),
// never the other (4), where nearest-random spreads them over both.
func TestHadoop020RackLocalReadersPileOnOneReplica(t *testing.T) {
	reps := []NodeID{0, 3, 4}
	for _, tc := range []struct {
		choice ReplicaChoice
		want   map[NodeID]bool
	}{
		{Hadoop020, map[NodeID]bool{3: true}},
		{NearestRandom, map[NodeID]bool{3: true, 4: true}},
	} {
		topo := nineNodes(t, tc.choice)
		rng := rand.New(rand.NewPCG(1, 2))
		got := map[NodeID]bool{}
		for range 200 {
			got[ReadReplica(topo, reps, 5, nil, rng)] = true
		}
		if !mapsEqual(got, tc.want) {
			t.Errorf("%s: 200 reads of replicas %v from node 5 (rack 1, no replica) read from %v, want %v", tc.choice, reps, keys(got), keys(tc.want))
		}
	}
}

// TestHadoop020RemoteReaderDrawsUniformlyAndSeeded: a reader with no
// replica in its rack reads a replica 0.20 swaps to the front at random:
// each of the three about a third of the time, the same sequence for the
// same seed, another for another seed. The quirk gives a reader whose
// rack's only replica heads the list the same draw, off-rack replicas
// included.
func TestHadoop020RemoteReaderDrawsUniformlyAndSeeded(t *testing.T) {
	topo := nineNodes(t, Hadoop020)
	reps := []NodeID{0, 3, 4}
	reads := func(reader NodeID, seed uint64) []NodeID {
		rng := rand.New(rand.NewPCG(seed, 0))
		out := make([]NodeID, 3000)
		for i := range out {
			out[i] = ReadReplica(topo, reps, reader, nil, rng)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		reader NodeID
	}{
		{"off-rack reader (rack 2)", 7},
		{"rack-local replica at the head (rack 0, node 1): 0.20's quirk", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := reads(tc.reader, 5)
			count := map[NodeID]int{}
			for _, r := range a {
				count[r]++
			}
			for _, r := range reps {
				// 1000 expected; 3000 draws keep each count within
				// +-150 (over 5 standard deviations).
				if c := count[r]; c < 850 || c > 1150 {
					t.Errorf("replica %d read %d times of 3000 from node %d, want about 1000: 0.20 swaps a uniformly drawn replica to the front", r, c, tc.reader)
				}
			}
			if !slices.Equal(a, reads(tc.reader, 5)) {
				t.Error("two runs with seed 5 read different replicas: the draw must come from the seeded stream")
			}
			if slices.Equal(a, reads(tc.reader, 6)) {
				t.Error("seeds 5 and 6 read the same 3000 replicas: the seed must drive the draw")
			}
		})
	}
}

// TestReadOrderPutsThePolicysSourceFirst: a source the policy chose is
// read first; the rest keep the order the choice gives them, the
// fallbacks a read takes when its node dies.
func TestReadOrderPutsThePolicysSourceFirst(t *testing.T) {
	tests := []struct {
		choice ReplicaChoice
		reps   []NodeID
		reader NodeID
		src    NodeID
		want   []NodeID
	}{
		// 0.20 orders [0 3 4] for node 5 as [3 0 4]; source 4 goes first.
		{Hadoop020, []NodeID{0, 3, 4}, 5, 4, []NodeID{4, 3, 0}},
		{Hadoop020, []NodeID{0, 3, 4}, 5, 3, []NodeID{3, 0, 4}},
		// nearest-random: source, then the others nearest first (4 is
		// rack-local to node 5, 0 off-rack).
		{NearestRandom, []NodeID{0, 3, 4}, 5, 3, []NodeID{3, 4, 0}},
		{NearestRandom, []NodeID{0, 3, 4}, 5, 0, []NodeID{0, 3, 4}},
		// A source no replica holds (the engines refuse one) still comes
		// first, the replicas after it as the choice orders them.
		{Hadoop020, []NodeID{0, 3, 4}, 5, 7, []NodeID{7, 3, 0, 4}},
		{NearestRandom, []NodeID{0, 3, 4}, 5, 7, []NodeID{7, 3, 4, 0}},
	}
	for _, tc := range tests {
		got := ReadOrder(nil, nineNodes(t, tc.choice), tc.reps, tc.reader, tc.src, rand.New(rand.NewPCG(1, 1)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: replicas %v, reader %d, source %d: order %v, want %v", tc.choice, tc.reps, tc.reader, tc.src, got, tc.want)
		}
	}
}

// TestNearestRandomOrderReadsWhatNearestReplicaPicks: the default's first
// replica is NearestReplica's, drawn from the same stream in the same
// way, so that runs before the setting existed read the same replicas.
func TestNearestRandomOrderReadsWhatNearestReplicaPicks(t *testing.T) {
	topo := nineNodes(t, "")
	reps := []NodeID{0, 3, 4}
	a, b := rand.New(rand.NewPCG(3, 3)), rand.New(rand.NewPCG(3, 3))
	for i := range 500 {
		reader := NodeID(i % 9)
		order := ReadOrder(nil, topo, reps, reader, -1, a)
		if want := NearestReplica(topo, reps, reader, b); order[0] != want {
			t.Fatalf("read %d from node %d: ReadOrder reads %d, NearestReplica %d: the default must read what it always read", i, reader, order[0], want)
		}
		if got := ReadReplica(topo, reps, reader, nil, a); got != NearestReplica(topo, reps, reader, b) {
			t.Fatalf("read %d from node %d: ReadReplica drew differently from NearestReplica", i, reader)
		}
	}
}

// TestReadReplicaPassesOverDeadNodes: nearest-random draws among the live
// replicas; 0.20 walks its order, as its client skips dead nodes, which
// can send a rack-local reader off-rack; with none live, the read goes to
// the replica it would have read.
func TestReadReplicaPassesOverDeadNodes(t *testing.T) {
	reps := []NodeID{0, 3, 4}
	dead := func(ns ...NodeID) func(NodeID) bool {
		return func(n NodeID) bool { return slices.Contains(ns, n) }
	}
	tests := []struct {
		name   string
		choice ReplicaChoice
		down   func(NodeID) bool
		want   NodeID
	}{
		{"nearest-random: the rack's live replica", NearestRandom, dead(3), 4},
		{"hadoop-0.20: next in [3 0 4] is off-rack 0, though 4 shares the rack", Hadoop020, dead(3), 0},
		{"hadoop-0.20: all dead reads the head of the order", Hadoop020, dead(0, 3, 4), 3},
	}
	for _, tc := range tests {
		rng := rand.New(rand.NewPCG(4, 4))
		if got := ReadReplica(nineNodes(t, tc.choice), reps, 5, tc.down, rng); got != tc.want {
			t.Errorf("%s: node 5 reads %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPlaceInputIsTheJobsOwnFileFromOutside pins the default placement:
// a job's own file, from the job's name's stream, no writer. Every run
// before data sets and writers existed placed blocks so.
func TestPlaceInputIsTheJobsOwnFileFromOutside(t *testing.T) {
	topo := mustTopology(t, Config{})
	h := fnv.New64a()
	h.Write([]byte("job17"))
	want := NewPlacer(topo, 7^h.Sum64()).PlaceFile(40, NoWriter)
	for _, got := range []File{PlaceInput(topo, 7, "job17", 40), Input{Job: "job17"}.Place(topo, 7, 40)} {
		if !slices.Equal(got.Replicas, want.Replicas) {
			t.Fatalf("job17's input moved: the default placement must stay byte for byte what it was")
		}
	}
}

// TestWriterPlacement: with a writer in the cluster, every block's first
// replica is on one node, the writer; the writer is drawn per file from
// the seed, and files spread their writers over the cluster.
func TestWriterPlacement(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 4, NodesPerRack: 5})
	f := Input{Job: "a", Writer: true}.Place(topo, 1, 30)
	w := f.BlockReplicas(0)[0]
	for i := range 30 {
		reps := f.BlockReplicas(i)
		if reps[0] != w {
			t.Fatalf("block %d's first replica is on node %d, block 0's on %d: one writer wrote the file, and HDFS puts the first replica on it", i, reps[0], w)
		}
		if topo.Rack(reps[1]) == topo.Rack(w) || topo.Rack(reps[2]) != topo.Rack(reps[1]) {
			t.Fatalf("block %d: replicas %v: want the second on another rack than the writer's, the third on the second's", i, reps)
		}
	}
	if again := (Input{Job: "a", Writer: true}).Place(topo, 1, 30); !slices.Equal(again.Replicas, f.Replicas) {
		t.Error("the same file placed twice with seed 1 moved: placement is seeded")
	}
	writers := map[NodeID]bool{}
	for i := range 200 {
		g := Input{Job: "job" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Writer: true}.Place(topo, 1, 1)
		writers[g.BlockReplicas(0)[0]] = true
	}
	// 200 files over 20 nodes miss a given node with probability
	// (19/20)^200 < 4e-5: every node writes some file.
	if len(writers) != topo.NumNodes() {
		t.Errorf("200 files had %d distinct writers, want all %d nodes: the writer is drawn uniformly over the cluster", len(writers), topo.NumNodes())
	}
	outside := Input{Job: "a"}.Place(topo, 1, 30)
	firsts := map[NodeID]bool{}
	for i := range 30 {
		firsts[outside.BlockReplicas(i)[0]] = true
	}
	if len(firsts) < 5 {
		t.Errorf("written from outside, 30 blocks' first replicas sit on %d nodes, want many: each block's first replica is a random node", len(firsts))
	}
}

// TestDataSetsShareBlocks: jobs naming one data set read the same blocks
// as far as both read, whatever their names, their sizes, or who reads
// first; another data set, or a job's own file of the same name, is
// elsewhere.
func TestDataSetsShareBlocks(t *testing.T) {
	topo := mustTopology(t, Config{})
	for _, writer := range []bool{false, true} {
		small := Input{Job: "job3", DataSet: "inputPath7", Writer: writer}.Place(topo, 2, 3)
		large := Input{Job: "job9", DataSet: "inputPath7", Writer: writer}.Place(topo, 2, 12)
		if !slices.Equal(small.Replicas, large.Replicas[:len(small.Replicas)]) {
			t.Errorf("writer %v: job3 (3 blocks) and job9 (12 blocks) of inputPath7 read different first blocks: %v vs %v; one data set is one file",
				writer, small.Replicas, large.Replicas[:len(small.Replicas)])
		}
		other := Input{Job: "job3", DataSet: "inputPath8", Writer: writer}.Place(topo, 2, 12)
		own := Input{Job: "inputPath7", Writer: writer}.Place(topo, 2, 12)
		if slices.Equal(other.Replicas, large.Replicas) || slices.Equal(own.Replicas, large.Replicas) {
			t.Errorf("writer %v: inputPath8, or a job's own file named inputPath7, sits where inputPath7 does: files are placed apart", writer)
		}
	}
}

func mapsEqual(a, b map[NodeID]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[NodeID]bool) []NodeID {
	var out []NodeID
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
