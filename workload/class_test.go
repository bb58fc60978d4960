package workload

import "testing"

func TestClassOf(t *testing.T) {
	tests := []struct {
		shuffle int64
		want    ShuffleClass
	}{
		{0, ClassLight},
		{999_999, ClassLight},
		{1_000_000, ClassMedium}, // "1-100 MB" includes 1 MB
		{1 << 20, ClassMedium},   // decimal thresholds: 1 MiB is already medium
		{100_000_000, ClassMedium},
		{100_000_001, ClassHeavy}, // heavy is strictly "> 100 MB"
		{1 << 40, ClassHeavy},
	}
	for _, tc := range tests {
		if got := ClassOf(tc.shuffle); got != tc.want {
			t.Errorf("ClassOf(%d) = %v, want %v (light < 1e6 <= medium <= 1e8 < heavy)", tc.shuffle, got, tc.want)
		}
	}
}

func TestShuffleClassString(t *testing.T) {
	for c, want := range map[ShuffleClass]string{ClassLight: "light", ClassMedium: "medium", ClassHeavy: "heavy", 7: "ShuffleClass(7)"} {
		if got := c.String(); got != want {
			t.Errorf("ShuffleClass(%d).String() = %q, want %q", int(c), got, want)
		}
		if c < NumClasses {
			back, err := ParseShuffleClass(want)
			if err != nil || back != c {
				t.Errorf("ParseShuffleClass(%q) = %v, %v; want %v", want, back, err, c)
			}
		}
	}
	if _, err := ParseShuffleClass("huge"); err == nil {
		t.Errorf("ParseShuffleClass(\"huge\") succeeded, want an error")
	}
}

func TestSWIMReduceCount(t *testing.T) {
	const mb64 = 64 << 20
	tests := []struct {
		name            string
		shuffle, output int64
		perReduce       int64
		nodes           int
		want            int
	}{
		{"nothing to reduce still gets one", 0, 0, mb64, 100, 1},
		{"under half a reduce rounds to the minimum of 1", 10, 10, mb64, 100, 1},
		{"exactly one reduce's worth", mb64 / 2, mb64 / 2, mb64, 100, 1},
		{"1.49 rounds down", mb64, mb64 * 49 / 100, mb64, 100, 1},
		{"1.5 rounds half up like Java Math.round", mb64, mb64 / 2, mb64, 100, 2},
		{"ten reduces", 5 * mb64, 5 * mb64, mb64, 100, 10},
		{"equal to the node count is kept", 50 * mb64, 50 * mb64, mb64, 100, 100},
		{"over the node count drops to nodes/5", 60 * mb64, 41 * mb64, mb64, 100, 20},
		{"cap on a tiny cluster is at least 1", 10 * mb64, 0, mb64, 3, 1},
		{"0 bytes per reduce means the 64 MiB default", 10 * mb64, 0, 0, 100, 10},
		{"largest sums do not overflow", math64, math64, mb64, 600, 120},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SWIMReduceCount(tc.shuffle, tc.output, tc.perReduce, tc.nodes)
			if got != tc.want {
				t.Errorf("SWIMReduceCount(%d, %d, %d, %d) = %d, want %d (round((shuffle+output)/perReduce), >= 1, nodes/5 past nodes)",
					tc.shuffle, tc.output, tc.perReduce, tc.nodes, got, tc.want)
			}
		})
	}
}

const math64 = 1<<63 - 1
