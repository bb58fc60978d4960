package cluster

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestWithDefaults(t *testing.T) {
	shuffleWatcher := Config{
		Racks: 10, NodesPerRack: 10,
		MapSlots: 4, ReduceSlots: 2,
		CPUCores: 4, MemoryGB: 15,
		DiskMBps: 400, NICMbps: 250, RackUplinkMbps: 500,
		BlockMB: 64, Replication: 3,
	}
	tests := []struct {
		name string
		in   Config
		want Config
		why  string
	}{
		{
			name: "zero config becomes the ShuffleWatcher testbed",
			in:   Config{},
			want: shuffleWatcher,
			why:  "section 4.1: 10x10 nodes, 4+2 slots, 250/500 Mbps, 64 MB blocks, 3 replicas",
		},
		{
			name: "container model keeps slots at zero",
			in:   Config{Containers: 8},
			want: func() Config {
				c := shuffleWatcher
				c.MapSlots, c.ReduceSlots, c.Containers = 0, 0, 8
				return c
			}(),
			why: "filling map/reduce slots would make a container config fail Validate (both models set)",
		},
		{
			name: "explicit values are kept",
			in: Config{Racks: 2, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 5, CPUCores: 16, MemoryGB: 64,
				DiskMBps: 100, NICMbps: 1000, RackUplinkMbps: 10000, BlockMB: 128, Replication: 2},
			want: Config{Racks: 2, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 5, CPUCores: 16, MemoryGB: 64,
				DiskMBps: 100, NICMbps: 1000, RackUplinkMbps: 10000, BlockMB: 128, Replication: 2},
			why: "only zero fields are defaulted",
		},
		{
			name: "one slot kind set, the other defaulted",
			in:   Config{MapSlots: 8},
			want: func() Config {
				c := shuffleWatcher
				c.MapSlots = 8
				return c
			}(),
			why: "reduce_slots left at zero gets the default 2",
		},
		{
			name: "negative values are not defaulted",
			in:   Config{Racks: -1, NICMbps: -5},
			want: func() Config {
				c := shuffleWatcher
				c.Racks, c.NICMbps = -1, -5
				return c
			}(),
			why: "a negative value is a user error Validate must see, not a request for the default",
		},
		{
			name: "the default replica choice has one spelling, empty",
			in:   Config{ReplicaChoice: NearestRandom},
			want: shuffleWatcher,
			why:  "a written nearest-random must configure what an absent one does, byte for byte in every output",
		},
		{
			name: "another replica choice is kept",
			in:   Config{ReplicaChoice: Hadoop020},
			want: func() Config {
				c := shuffleWatcher
				c.ReplicaChoice = Hadoop020
				return c
			}(),
			why: "only the default is rewritten",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.WithDefaults(); got != tc.want {
				t.Errorf("WithDefaults(%+v)\n got  %+v\n want %+v\n(%s)", tc.in, got, tc.want, tc.why)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	base := Config{}.WithDefaults()
	with := func(f func(*Config)) Config {
		c := base
		f(&c)
		return c
	}
	tests := []struct {
		name      string
		cfg       Config
		wantField []string // substrings the error must contain; nil means valid
	}{
		{"defaults are valid", base, nil},
		{"container model is valid", with(func(c *Config) { c.MapSlots, c.ReduceSlots, c.Containers = 0, 0, 8 }), nil},
		{"replication equal to node count is valid", with(func(c *Config) { c.Racks, c.NodesPerRack, c.Replication = 1, 3, 3 }), nil},
		{"zero racks", with(func(c *Config) { c.Racks = 0 }), []string{"cluster.racks"}},
		{"negative nodes per rack", with(func(c *Config) { c.NodesPerRack = -2 }), []string{"cluster.nodes_per_rack"}},
		{"the most nodes supported is valid", with(func(c *Config) { c.Racks, c.NodesPerRack = 1024, MaxNodes/1024 }), nil},
		{"one rack too many", with(func(c *Config) { c.Racks, c.NodesPerRack = 1025, MaxNodes/1024 }), []string{"cluster.racks", "at most"}},
		{"racks whose product with nodes overflows", with(func(c *Config) { c.Racks, c.NodesPerRack = 1<<32, 1<<32 }), []string{"cluster.racks", "at most"}},
		{"nodes per rack alone too many", with(func(c *Config) { c.Racks, c.NodesPerRack = 1, MaxNodes+1 }), []string{"cluster.nodes_per_rack", "at most"}},
		{"zero block size", with(func(c *Config) { c.BlockMB = 0 }), []string{"cluster.block_mb"}},
		{"implausible block size", with(func(c *Config) { c.BlockMB = 1<<20 + 1 }), []string{"cluster.block_mb"}},
		{"zero replication", with(func(c *Config) { c.Replication = 0 }), []string{"cluster.replication"}},
		{"replication above node count", with(func(c *Config) { c.Racks, c.NodesPerRack, c.Replication = 1, 2, 3 }), []string{"cluster.replication"}},
		{"zero cpu cores", with(func(c *Config) { c.CPUCores = 0 }), []string{"cluster.cpu_cores"}},
		{"negative memory", with(func(c *Config) { c.MemoryGB = -1 }), []string{"cluster.memory_gb"}},
		{"NaN disk", with(func(c *Config) { c.DiskMBps = math.NaN() }), []string{"cluster.disk_mbps"}},
		{"negative nic", with(func(c *Config) { c.NICMbps = -250 }), []string{"cluster.nic_mbps"}},
		{"infinite uplink", with(func(c *Config) { c.RackUplinkMbps = math.Inf(1) }), []string{"cluster.rack_uplink_mbps"}},
		{"both containers and slots", with(func(c *Config) { c.Containers = 8 }), []string{"containers", "map_slots"}},
		{"slot model with zero reduce slots", with(func(c *Config) { c.ReduceSlots = 0 }), []string{"reduce_slots"}},
		{"slot model with zero map slots", with(func(c *Config) { c.MapSlots = 0 }), []string{"map_slots"}},
		{"negative map slots", with(func(c *Config) { c.MapSlots = -1 }), []string{"map_slots"}},
		{"negative reduce slots", with(func(c *Config) { c.ReduceSlots = -1 }), []string{"reduce_slots"}},
		{"negative containers", with(func(c *Config) { c.MapSlots, c.ReduceSlots, c.Containers = 0, 0, -4 }), []string{"containers"}},
		{"more slots than any node has", with(func(c *Config) { c.MapSlots = MaxSlotsPerNode + 1 }), []string{"cluster.map_slots", "at most 4096"}},
		{"replication above HDFS's dfs.replication.max", with(func(c *Config) { c.Racks, c.NodesPerRack, c.Replication = 100, 100, 513 }), []string{"cluster.replication", "at most 512"}},
		{"a NIC below 1 Mbit/s", with(func(c *Config) { c.NICMbps = 1e-9 }), []string{"cluster.nic_mbps", "at least 1"}},
		{"a NIC past any hardware, near the network's Unlimited", with(func(c *Config) { c.NICMbps = 1e300 }), []string{"cluster.nic_mbps", "at most"}},
		{"a terabyte block is valid", with(func(c *Config) { c.BlockMB = MaxBlockMB }), nil},
		{"hadoop-0.20 replica choice is valid", with(func(c *Config) { c.ReplicaChoice = Hadoop020 }), nil},
		{"nearest-random written out is valid", with(func(c *Config) { c.ReplicaChoice = NearestRandom }), nil},
		{"an unknown replica choice", with(func(c *Config) { c.ReplicaChoice = "hadoop-2" }), []string{"cluster.replica_choice", `"hadoop-2"`, "nearest-random, hadoop-0.20"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.wantField == nil {
				if err != nil {
					t.Fatalf("Validate(%+v) = %v, want nil: every field is in range", tc.cfg, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want an error naming %q", tc.cfg, tc.wantField)
			}
			for _, f := range tc.wantField {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("Validate error %q does not name %q: errors must name the YAML field the user has to fix", err, f)
				}
			}
		})
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	if _, err := New(Config{Replication: 200}); err == nil || !strings.Contains(err.Error(), "cluster.replication") {
		t.Errorf("New(replication 200 on the default 100 nodes) error = %v, want one naming cluster.replication", err)
	}
	topo, err := New(Config{})
	if err != nil {
		t.Fatalf("New(Config{}) = %v, want the defaulted cluster to be valid", err)
	}
	if got, want := topo.Config(), (Config{}).WithDefaults(); got != want {
		t.Errorf("New(Config{}).Config() = %+v, want the defaulted config %+v", got, want)
	}
}

func TestOversubscription(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want float64
	}{
		{"ShuffleWatcher defaults are 5:1", Config{}.WithDefaults(), 5},                               // 10 x 250 / 500
		{"non-blocking rack is 1:1", Config{NodesPerRack: 4, NICMbps: 1000, RackUplinkMbps: 4000}, 1}, // 4 x 1000 / 4000
		{"20 gigabit nodes on a 10G uplink are 2:1", Config{NodesPerRack: 20, NICMbps: 1000, RackUplinkMbps: 10000}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Oversubscription(); got != tc.want {
				t.Errorf("Oversubscription = %v, want %v: nodes_per_rack (%d) x nic_mbps (%v) / rack_uplink_mbps (%v)",
					got, tc.want, tc.cfg.NodesPerRack, tc.cfg.NICMbps, tc.cfg.RackUplinkMbps)
			}
		})
	}
}

func TestBlockBytesCountsMebibytes(t *testing.T) {
	tests := []struct {
		mb   int
		want int64
	}{
		{64, 67108864},
		{128, 134217728},
		{1, 1 << 20},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.mb)+"MB", func(t *testing.T) {
			if got := (Config{BlockMB: tc.mb}).BlockBytes(); got != tc.want {
				t.Errorf("BlockBytes for block_mb %d = %d, want %d: HDFS counts a MB as 2^20 bytes", tc.mb, got, tc.want)
			}
		})
	}
}
