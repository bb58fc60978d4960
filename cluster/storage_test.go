package cluster

import (
	"slices"
	"testing"
)

// distinct reports whether no node repeats among reps.
func distinct(reps []NodeID) bool {
	seen := map[NodeID]bool{}
	for _, n := range reps {
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

func TestPlacerFollowsHadoopDefaultPolicy(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"ShuffleWatcher cluster", Config{}},
		{"small racks", Config{Racks: 4, NodesPerRack: 2}},
		{"five replicas", Config{Racks: 3, NodesPerRack: 4, Replication: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopology(t, tc.cfg)
			p := NewPlacer(topo, 42)
			repl := topo.Config().Replication
			for b := 0; b < 2000; b++ {
				writer := NodeID(b % topo.NumNodes())
				reps := p.PlaceBlock(nil, writer)
				if len(reps) != repl {
					t.Fatalf("block %d: %d replicas, want replication %d", b, len(reps), repl)
				}
				if reps[0] != writer {
					t.Fatalf("block %d: replica 0 on node %d, want the writer %d", b, reps[0], writer)
				}
				if topo.Rack(reps[1]) == topo.Rack(reps[0]) {
					t.Fatalf("block %d: replicas %v: replica 1 in rack %d, the writer's rack; want another rack so a rack failure keeps a copy",
						b, reps, topo.Rack(reps[1]))
				}
				if topo.Rack(reps[2]) != topo.Rack(reps[1]) {
					t.Fatalf("block %d: replicas %v: replica 2 in rack %d, want replica 1's rack %d (the third copy costs no extra uplink traffic)",
						b, reps, topo.Rack(reps[2]), topo.Rack(reps[1]))
				}
				if !distinct(reps) {
					t.Fatalf("block %d: replicas %v repeat a node, want distinct nodes", b, reps)
				}
				for _, n := range reps {
					if n < 0 || int(n) >= topo.NumNodes() {
						t.Fatalf("block %d: replica on node %d, outside the cluster's %d nodes", b, n, topo.NumNodes())
					}
				}
			}
		})
	}
}

func TestPlacerSecondReplicaSpreadsOverOtherRacks(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 4, NodesPerRack: 5})
	p := NewPlacer(topo, 7)
	hits := make([]int, topo.NumNodes())
	for b := 0; b < 5000; b++ {
		reps := p.PlaceBlock(nil, 0)
		hits[reps[1]]++
	}
	for n, h := range hits {
		inWriterRack := topo.Rack(NodeID(n)) == topo.Rack(0)
		switch {
		case inWriterRack && h > 0:
			t.Errorf("node %d (writer's rack) got replica 1 %d times, want 0", n, h)
		case !inWriterRack && (h < 5000/15/2 || h > 5000/15*2):
			t.Errorf("node %d got replica 1 %d times over 5000 blocks, want about %d: replica 1 is uniform over the 15 nodes of other racks",
				n, h, 5000/15)
		}
	}
}

func TestPlacerNoWriterIsUniform(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 4, NodesPerRack: 5})
	p := NewPlacer(topo, 1)
	const blocks = 10000
	nodes := topo.NumNodes()
	first := make([]int, nodes)
	for b := 0; b < blocks; b++ {
		reps := p.PlaceBlock(nil, NoWriter)
		first[reps[0]]++
		if topo.Rack(reps[1]) == topo.Rack(reps[0]) || topo.Rack(reps[2]) != topo.Rack(reps[1]) || !distinct(reps) {
			t.Fatalf("block %d: replicas %v break the rack rules with no writer", b, reps)
		}
	}
	expected := float64(blocks) / float64(nodes)
	chi2 := 0.0
	for n, c := range first {
		if c == 0 {
			t.Errorf("node %d never got a first replica over %d blocks: with no writer the first replica is a random node", n, blocks)
		}
		d := float64(c) - expected
		chi2 += d * d / expected
	}
	// 19 degrees of freedom: P(chi2 > 43.8) = 0.001. The seed is fixed, so
	// this is deterministic; the bound only says "uniform, not skewed".
	if chi2 > 43.8 {
		t.Errorf("first-replica counts %v have chi-square %.1f > 43.8 (19 df, p=0.001): want a uniform random node", first, chi2)
	}
}

func TestPlacerIsDeterministicPerSeed(t *testing.T) {
	topo := mustTopology(t, Config{})
	a := NewPlacer(topo, 99).PlaceFile(300, NoWriter)
	b := NewPlacer(topo, 99).PlaceFile(300, NoWriter)
	if !slices.Equal(a.Replicas, b.Replicas) {
		t.Errorf("two placers seeded 99 placed the same file differently: a run must be reproducible from its seed")
	}
	c := NewPlacer(topo, 100).PlaceFile(300, NoWriter)
	if slices.Equal(a.Replicas, c.Replicas) {
		t.Errorf("placers seeded 99 and 100 placed 300 blocks identically: the seed must drive placement")
	}
}

func TestPlacerDegenerateTopologies(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		writer NodeID
		check  func(t *testing.T, topo *Topology, reps []NodeID)
	}{
		{
			name: "one rack: distinct nodes of that rack", cfg: Config{Racks: 1, NodesPerRack: 5}, writer: 2,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if reps[0] != 2 {
					t.Errorf("replicas %v: replica 0 = %d, want the writer 2", reps, reps[0])
				}
			},
		},
		{
			name: "one rack, no writer", cfg: Config{Racks: 1, NodesPerRack: 3}, writer: NoWriter,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				// 3 replicas on 3 nodes: every node is used.
				if s := slices.Sorted(slices.Values(reps)); !slices.Equal(s, []NodeID{0, 1, 2}) {
					t.Errorf("replicas %v, want all three nodes of the only rack", reps)
				}
			},
		},
		{
			name: "one node per rack: three racks", cfg: Config{Racks: 5, NodesPerRack: 1}, writer: 3,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				racks := map[RackID]bool{}
				for _, n := range reps {
					racks[topo.Rack(n)] = true
				}
				if len(racks) != 3 {
					t.Errorf("replicas %v span %d racks, want 3: with one node a rack the third replica goes to a third rack", reps, len(racks))
				}
				if reps[0] != 3 {
					t.Errorf("replicas %v: replica 0 = %d, want the writer 3", reps, reps[0])
				}
			},
		},
		{
			name: "replication 1: the writer only", cfg: Config{Racks: 2, NodesPerRack: 3, Replication: 1}, writer: 4,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if !slices.Equal(reps, []NodeID{4}) {
					t.Errorf("replicas %v, want [4]: one replica, on the writer", reps)
				}
			},
		},
		{
			name: "replication 2: writer plus another rack", cfg: Config{Racks: 2, NodesPerRack: 3, Replication: 2}, writer: 1,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if reps[0] != 1 || topo.Rack(reps[1]) != 1 {
					t.Errorf("replicas %v, want [1, a node of rack 1]", reps)
				}
			},
		},
		{
			name: "replication 5: rules for the first three, then any unused node", cfg: Config{Racks: 3, NodesPerRack: 2, Replication: 5}, writer: 0,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if reps[0] != 0 || topo.Rack(reps[1]) == 0 || topo.Rack(reps[2]) != topo.Rack(reps[1]) {
					t.Errorf("replicas %v break the writer / other rack / same rack as second rules", reps)
				}
			},
		},
		{
			name: "replication equal to node count uses every node", cfg: Config{Racks: 2, NodesPerRack: 2, Replication: 4}, writer: NoWriter,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if s := slices.Sorted(slices.Values(reps)); !slices.Equal(s, []NodeID{0, 1, 2, 3}) {
					t.Errorf("replicas %v, want all four nodes", reps)
				}
			},
		},
		{
			name: "writer outside the node range is treated as no writer", cfg: Config{Racks: 2, NodesPerRack: 2, Replication: 2}, writer: 1000,
			check: func(t *testing.T, topo *Topology, reps []NodeID) {
				if reps[0] < 0 || reps[0] >= 4 {
					t.Errorf("replicas %v: replica 0 = %d, want a node of the cluster", reps, reps[0])
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := mustTopology(t, tc.cfg)
			p := NewPlacer(topo, 5)
			repl := topo.Config().Replication
			if p.Replication() != repl {
				t.Errorf("Replication() = %d, want the config's %d", p.Replication(), repl)
			}
			for b := 0; b < 200; b++ {
				reps := p.PlaceBlock(nil, tc.writer)
				if len(reps) != repl || !distinct(reps) {
					t.Fatalf("block %d: replicas %v, want %d distinct nodes", b, reps, repl)
				}
				tc.check(t, topo, reps)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func TestPlaceBlockAppendsToDst(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 3})
	p := NewPlacer(topo, 3)
	dst := []NodeID{77}
	got := p.PlaceBlock(dst, 2)
	if len(got) != 4 || got[0] != 77 || got[1] != 2 {
		t.Errorf("PlaceBlock([77], writer 2) = %v, want [77 2 x y]: it appends the block's replicas to dst", got)
	}
}

func TestFileBlockReplicas(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 3, NodesPerRack: 3})
	tests := []struct {
		name   string
		blocks int
	}{
		{"empty file", 0},
		{"one block", 1},
		{"several blocks", 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewPlacer(topo, 11).PlaceFile(tc.blocks, 4)
			if f.Blocks != tc.blocks {
				t.Errorf("Blocks = %d, want %d", f.Blocks, tc.blocks)
			}
			if len(f.Replicas) != 3*tc.blocks {
				t.Errorf("len(Replicas) = %d, want %d: 3 replicas a block", len(f.Replicas), 3*tc.blocks)
			}
			for i := 0; i < tc.blocks; i++ {
				got := f.BlockReplicas(i)
				if want := f.Replicas[3*i : 3*i+3]; !slices.Equal(got, want) {
					t.Errorf("BlockReplicas(%d) = %v, want Replicas[%d:%d] = %v", i, got, 3*i, 3*i+3, want)
				}
				if got[0] != 4 {
					t.Errorf("BlockReplicas(%d)[0] = %d, want the writer 4", i, got[0])
				}
			}
		})
	}
}

func TestFileBlockReplicasIsAViewOfReplicas(t *testing.T) {
	// Tests in other packages build files with chosen replicas by placing
	// one and overwriting Replicas; this pins that BlockReplicas reads it.
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 3, Replication: 2})
	f := NewPlacer(topo, 1).PlaceFile(2, NoWriter)
	copy(f.Replicas, []NodeID{0, 3, 5, 4})
	for i, want := range [][]NodeID{{0, 3}, {5, 4}} {
		if got := f.BlockReplicas(i); !slices.Equal(got, want) {
			t.Errorf("after overwriting Replicas, BlockReplicas(%d) = %v, want %v", i, got, want)
		}
	}
}

// TestFileWithoutLostNodes: a file without some nodes' replicas lists each
// block's remaining replicas in their order, a block may be left with none,
// and the original file is untouched.
func TestFileWithoutLostNodes(t *testing.T) {
	topo := mustTopology(t, Config{Racks: 2, NodesPerRack: 3})
	f := NewPlacer(topo, 1).PlaceFile(3, NoWriter)
	copy(f.Replicas, []NodeID{0, 3, 4, 1, 4, 5, 2, 3, 4})
	before := slices.Clone(f.Replicas)
	gone := map[NodeID]bool{3: true, 4: true}
	g := f.Without(func(n NodeID) bool { return gone[n] })
	for i, want := range [][]NodeID{{0}, {1, 5}, {2}} {
		if got := g.BlockReplicas(i); !slices.Equal(got, want) {
			t.Errorf("block %d without nodes 3, 4 has %v, want %v", i, got, want)
		}
	}
	if !slices.Equal(f.Replicas, before) {
		t.Errorf("Without modified the original replicas: %v, was %v", f.Replicas, before)
	}
	h := g.Without(func(n NodeID) bool { return n != 5 })
	for i, want := range [][]NodeID{nil, {5}, nil} {
		if got := h.BlockReplicas(i); !slices.Equal(got, want) || cap(got) != len(got) {
			t.Errorf("block %d with only node 5 left has %v (cap %d), want %v with no room to append into the next block", i, got, cap(got), want)
		}
	}
}

// TestPickInRackIsPick: the in-rack draw chooses the node the general
// draw with an in-rack rule chooses, on the same stream, whether the
// rejection draws land in the rack (few racks) or its fallback scans
// (many racks, a nearly full rack); only its cost differs.
func TestPickInRackIsPick(t *testing.T) {
	for _, tc := range []struct {
		name         string
		racks, nodes int
		used         int // nodes of the rack already used
	}{
		{"few racks", 4, 10, 1},
		{"many racks: the fallback", 400, 4, 1},
		{"the rack all but full", 300, 3, 2},
		{"the rack full: any node", 300, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := New(Config{Racks: tc.racks, NodesPerRack: tc.nodes}.WithDefaults())
			if err != nil {
				t.Fatal(err)
			}
			a, b := NewPlacer(topo, 7), NewPlacer(topo, 7)
			for i := range 200 {
				r := RackID(i % tc.racks)
				first, _ := topo.RackNodes(r)
				a.used, b.used = a.used[:0], b.used[:0]
				for k := range tc.used {
					a.used = append(a.used, first+NodeID(k))
					b.used = append(b.used, first+NodeID(k))
				}
				got := a.pickInRack(r)
				want := b.pick(func(n NodeID) bool { return topo.Rack(n) == r })
				if got != want {
					t.Fatalf("draw %d in rack %d: pickInRack chose node %d, pick node %d; they must choose alike, so that placements stay as they were", i, r, got, want)
				}
			}
		})
	}
}
