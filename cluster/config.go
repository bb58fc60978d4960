// Package cluster models the datacenter a MapReduce scheduler runs on: racks of
// nodes with task slots or containers, CPU and memory, the full-duplex links
// between them, and HDFS-style replicated block storage.
package cluster

import (
	"fmt"
)

// Config describes a two-tier cluster: racks of identical nodes behind
// per-rack uplinks to a non-blocking core. It is what a user writes in a
// scenario's `cluster:` section.
//
// Units are chosen to match how operators quote them: NIC and uplink speeds in
// megabits per second, disk in megabytes per second, block size in megabytes
// (2^20 bytes, as HDFS counts).
type Config struct {
	Racks        int `yaml:"racks" json:"racks"`
	NodesPerRack int `yaml:"nodes_per_rack" json:"nodes_per_rack"`

	// MapSlots and ReduceSlots select Hadoop-1's slot model. Containers,
	// when positive, selects the YARN container model instead: a container
	// runs a task of either kind. Exactly one model must be chosen.
	MapSlots    int `yaml:"map_slots" json:"map_slots"`
	ReduceSlots int `yaml:"reduce_slots" json:"reduce_slots"`
	Containers  int `yaml:"containers" json:"containers"`

	// CPUCores and MemoryGB are the node's resources, read by
	// resource-aware policies such as DRF.
	CPUCores float64 `yaml:"cpu_cores" json:"cpu_cores"`
	MemoryGB float64 `yaml:"memory_gb" json:"memory_gb"`

	DiskMBps       float64 `yaml:"disk_mbps" json:"disk_mbps"`
	NICMbps        float64 `yaml:"nic_mbps" json:"nic_mbps"`
	RackUplinkMbps float64 `yaml:"rack_uplink_mbps" json:"rack_uplink_mbps"`

	BlockMB     int `yaml:"block_mb" json:"block_mb"`
	Replication int `yaml:"replication" json:"replication"`

	// ReplicaChoice is how a map picks the replica of its block it reads
	// (ReadOrder). Empty is the default, NearestRandom, so that a
	// configuration written before the setting existed reads as it did.
	ReplicaChoice ReplicaChoice `yaml:"replica_choice" json:"replica_choice,omitempty"`
	// Profile names the cost model the cluster runs under: "fluid" (or
	// empty, the default), "hadoop1-hdd", "yarn-hdd" or "ssd". The
	// scenario package resolves it (scenario.Profiles) into Disk and the
	// engine's cost settings; here it is only recorded.
	Profile string `yaml:"profile" json:"profile,omitempty"`
	// Disk, when set, models each node's disk as a device whose rate
	// falls when streams interleave (Disk); DiskMBps then defaults to,
	// and must equal, its sequential rate. Nil keeps DiskMBps an ideal
	// bandwidth-only disk.
	Disk *Disk `yaml:"disk" json:"disk,omitempty"`
	// Topology is a file naming the cluster's hosts and racks (a Rumen
	// topology, a Hadoop table file or an SLS nodes file); the scenario
	// package reads it (NewHosts builds the cluster). Here it is only
	// recorded.
	Topology string `yaml:"topology" json:"topology,omitempty"`
	// NodeGroups give the hosts whose names match a group's pattern other
	// slots, resources, disk or NIC than the fields above: nodes that
	// differ, per node or per group. The first matching group applies.
	// (A pointer, as RackUplinks, so that a Config stays comparable.)
	NodeGroups *[]NodeGroup `yaml:"node_groups" json:"node_groups,omitempty"`
	// RackUplinks gives racks, by name ("/rack01"; "/rack0", "/rack1", ...
	// for a cluster of racks x nodes_per_rack), their own uplink in Mbit/s.
	RackUplinks *map[string]float64 `yaml:"rack_uplinks" json:"rack_uplinks,omitempty"`
}

// Groups is the node groups, none when unset.
func (c Config) Groups() []NodeGroup {
	if c.NodeGroups == nil {
		return nil
	}
	return *c.NodeGroups
}

// Uplinks is the racks' own uplinks, none when unset.
func (c Config) Uplinks() map[string]float64 {
	if c.RackUplinks == nil {
		return nil
	}
	return *c.RackUplinks
}

// NodeGroup is a group of nodes, by host name pattern, and what they have.
// A zero field keeps the cluster's value.
type NodeGroup struct {
	// Hosts is a shell pattern of host names (path.Match: "node*",
	// "r1n?"); a cluster of racks x nodes_per_rack names its nodes rRnN.
	Hosts       string  `yaml:"hosts" json:"hosts"`
	MapSlots    int     `yaml:"map_slots" json:"map_slots,omitempty"`
	ReduceSlots int     `yaml:"reduce_slots" json:"reduce_slots,omitempty"`
	Containers  int     `yaml:"containers" json:"containers,omitempty"`
	CPUCores    float64 `yaml:"cpu_cores" json:"cpu_cores,omitempty"`
	MemoryGB    float64 `yaml:"memory_gb" json:"memory_gb,omitempty"`
	DiskMBps    float64 `yaml:"disk_mbps" json:"disk_mbps,omitempty"`
	NICMbps     float64 `yaml:"nic_mbps" json:"nic_mbps,omitempty"`
}

// Defaults for fields a config leaves at zero. The shape follows the
// ShuffleWatcher testbed (section 4.1): 10 racks of 10 nodes, 4 map and 2
// reduce slots, 250 Mbps within a rack and 500 Mbps per rack across (5:1
// over-subscription), 64 MB blocks replicated three times.
const (
	DefaultRacks          = 10
	DefaultNodesPerRack   = 10
	DefaultMapSlots       = 4
	DefaultReduceSlots    = 2
	DefaultCPUCores       = 4
	DefaultMemoryGB       = 15 // an EC2 "extra-large" instance, as ShuffleWatcher used
	DefaultDiskMBps       = 400
	DefaultNICMbps        = 250
	DefaultRackUplinkMbps = 500
	DefaultBlockMB        = 64
	DefaultReplication    = 3
)

// WithDefaults returns c with every zero field set to its default. The slot
// model is the default; a config that sets Containers keeps slots at zero.
func (c Config) WithDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Racks, DefaultRacks)
	def(&c.NodesPerRack, DefaultNodesPerRack)
	if c.Containers == 0 {
		def(&c.MapSlots, DefaultMapSlots)
		def(&c.ReduceSlots, DefaultReduceSlots)
	}
	deff(&c.CPUCores, DefaultCPUCores)
	deff(&c.MemoryGB, DefaultMemoryGB)
	if c.Disk != nil {
		deff(&c.DiskMBps, c.Disk.SeqMBps)
	}
	deff(&c.DiskMBps, DefaultDiskMBps)
	deff(&c.NICMbps, DefaultNICMbps)
	deff(&c.RackUplinkMbps, DefaultRackUplinkMbps)
	def(&c.BlockMB, DefaultBlockMB)
	def(&c.Replication, DefaultReplication)
	if c.ReplicaChoice == NearestRandom {
		c.ReplicaChoice = "" // the default has one spelling: empty
	}
	return c
}

// MaxNodes is the most nodes a cluster may have. Node IDs are 32-bit, and
// the per-node state of a simulation (links, slots, host indexes) is
// allocated up front, so a mistyped size must be refused rather than
// allocated; the largest cluster measured in docs/performance.md has 10,000 nodes.
const MaxNodes = 1 << 20

// Limits of the other settings. They refuse typos and values no hardware
// has, far outside what the papers use; none is a model value.
const (
	// MaxSlotsPerNode bounds map_slots, reduce_slots and containers: the
	// papers' largest node runs 16 containers.
	MaxSlotsPerNode = 4096
	// MaxCPUCores and MaxMemoryGB bound a node's resources.
	MaxCPUCores = 4096
	MaxMemoryGB = 1 << 20
	// MinBandwidth is the least disk (MB/s), NIC or uplink (Mbit/s)
	// speed; MaxDiskMBps (1 TB/s), MaxNICMbps (10 Tbit/s) and
	// MaxRackUplinkMbps (1 Pbit/s) the most. They keep every link's
	// capacity a finite rate far below the network's Unlimited.
	MinBandwidth      = 1.0
	MaxDiskMBps       = 1e6
	MaxNICMbps        = 1e7
	MaxRackUplinkMbps = 1e9
	// MaxBlockMB is a terabyte block.
	MaxBlockMB = 1 << 20
	// MaxReplication is HDFS's own limit, dfs.replication.max (512).
	MaxReplication = 512
)

// Validate reports the first impossible setting, naming its YAML field and
// its valid range.
func (c Config) Validate() error {
	ints := []struct {
		name   string
		v      int
		lo, hi int
	}{
		{"racks", c.Racks, 1, MaxNodes}, {"nodes_per_rack", c.NodesPerRack, 1, MaxNodes},
		{"block_mb", c.BlockMB, 1, MaxBlockMB}, {"replication", c.Replication, 1, MaxReplication},
		{"map_slots", c.MapSlots, 0, MaxSlotsPerNode}, {"reduce_slots", c.ReduceSlots, 0, MaxSlotsPerNode},
		{"containers", c.Containers, 0, MaxSlotsPerNode},
	}
	for _, p := range ints {
		if p.v < p.lo || p.v > p.hi {
			return fmt.Errorf("cluster.%s: %d; want a whole number at least %d and at most %d", p.name, p.v, p.lo, p.hi)
		}
	}
	if c.Racks*c.NodesPerRack > MaxNodes {
		return fmt.Errorf("cluster.racks, cluster.nodes_per_rack: %d racks of %d nodes; at most %d nodes in all are supported",
			c.Racks, c.NodesPerRack, MaxNodes)
	}
	floats := []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"cpu_cores", c.CPUCores, 0, MaxCPUCores}, {"memory_gb", c.MemoryGB, 0, MaxMemoryGB},
		{"disk_mbps", c.DiskMBps, MinBandwidth, MaxDiskMBps}, {"nic_mbps", c.NICMbps, MinBandwidth, MaxNICMbps},
		{"rack_uplink_mbps", c.RackUplinkMbps, MinBandwidth, MaxRackUplinkMbps},
	}
	for _, p := range floats {
		if !(p.v > 0 && p.v >= p.lo && p.v <= p.hi) {
			if p.lo == 0 {
				return fmt.Errorf("cluster.%s: %v; want a number > 0 and at most %v", p.name, p.v, p.hi)
			}
			return fmt.Errorf("cluster.%s: %v; want a number at least %v and at most %v", p.name, p.v, p.lo, p.hi)
		}
	}
	switch {
	case c.Containers > 0 && (c.MapSlots > 0 || c.ReduceSlots > 0):
		return fmt.Errorf("cluster: set either containers (YARN model) or map_slots/reduce_slots (slot model), not both")
	case c.Containers == 0 && (c.MapSlots == 0 || c.ReduceSlots == 0):
		return fmt.Errorf("cluster: the slot model needs map_slots > 0 and reduce_slots > 0 (or set containers)")
	}
	if err := c.ReplicaChoice.Validate(); err != nil {
		return err
	}
	if c.Disk != nil {
		if err := c.Disk.Validate(); err != nil {
			return err
		}
		if c.DiskMBps != c.Disk.SeqMBps {
			return fmt.Errorf("cluster.disk_mbps: %v MB/s differs from cluster.disk.seq_mbps %v: with cluster.disk the disk's rate is its seq_mbps (leave disk_mbps out)",
				c.DiskMBps, c.Disk.SeqMBps)
		}
	}
	if c.Replication > c.Racks*c.NodesPerRack {
		return fmt.Errorf("cluster.replication: %d replicas need at least that many nodes, the cluster has %d",
			c.Replication, c.Racks*c.NodesPerRack)
	}
	return nil
}

// BlockBytes is the HDFS block size in bytes.
func (c Config) BlockBytes() int64 { return int64(c.BlockMB) << 20 }

// Oversubscription is the ratio of a rack's summed NIC capacity to its uplink
// capacity (5 means 5:1).
func (c Config) Oversubscription() float64 {
	return float64(c.NodesPerRack) * c.NICMbps / c.RackUplinkMbps
}
