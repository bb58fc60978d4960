// Package cluster models the datacenter a MapReduce scheduler runs on: racks of
// nodes with task slots or containers, CPU and memory, the full-duplex links
// between them, and HDFS-style replicated block storage.
package cluster

import (
	"fmt"
	"math"
)

// Config describes a two-tier cluster: racks of identical nodes behind
// per-rack uplinks to a non-blocking core. It is what a user writes in a
// scenario's `cluster:` section.
//
// Units are chosen to match how operators quote them: NIC and uplink speeds in
// megabits per second, disk in megabytes per second, block size in megabytes
// (2^20 bytes, as HDFS counts).
type Config struct {
	Racks        int `yaml:"racks"`
	NodesPerRack int `yaml:"nodes_per_rack"`

	// MapSlots and ReduceSlots select Hadoop-1's slot model. Containers,
	// when positive, selects the YARN container model instead: a container
	// runs a task of either kind. Exactly one model must be chosen.
	MapSlots    int `yaml:"map_slots"`
	ReduceSlots int `yaml:"reduce_slots"`
	Containers  int `yaml:"containers"`

	// CPUCores and MemoryGB are the node's resources, read by
	// resource-aware policies such as DRF.
	CPUCores float64 `yaml:"cpu_cores"`
	MemoryGB float64 `yaml:"memory_gb"`

	DiskMBps       float64 `yaml:"disk_mbps"`
	NICMbps        float64 `yaml:"nic_mbps"`
	RackUplinkMbps float64 `yaml:"rack_uplink_mbps"`

	BlockMB     int `yaml:"block_mb"`
	Replication int `yaml:"replication"`
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
	deff(&c.DiskMBps, DefaultDiskMBps)
	deff(&c.NICMbps, DefaultNICMbps)
	deff(&c.RackUplinkMbps, DefaultRackUplinkMbps)
	def(&c.BlockMB, DefaultBlockMB)
	def(&c.Replication, DefaultReplication)
	return c
}

// MaxNodes is the most nodes a cluster may have. Node IDs are 32-bit, and
// the per-node state of a simulation (links, slots, host indexes) is
// allocated up front, so a mistyped size must be refused rather than
// allocated; the largest cluster measured in docs/performance.md has 10,000 nodes.
const MaxNodes = 1 << 20

// Validate reports the first impossible setting, naming its YAML field.
func (c Config) Validate() error {
	pos := []struct {
		name string
		v    int
	}{
		{"racks", c.Racks}, {"nodes_per_rack", c.NodesPerRack},
		{"block_mb", c.BlockMB}, {"replication", c.Replication},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("cluster.%s: must be positive, got %d", p.name, p.v)
		}
	}
	if c.Racks > MaxNodes || c.NodesPerRack > MaxNodes || c.Racks*c.NodesPerRack > MaxNodes {
		return fmt.Errorf("cluster.racks, cluster.nodes_per_rack: %d racks of %d nodes; at most %d nodes in all are supported",
			c.Racks, c.NodesPerRack, MaxNodes)
	}
	posf := []struct {
		name string
		v    float64
	}{
		{"cpu_cores", c.CPUCores}, {"memory_gb", c.MemoryGB}, {"disk_mbps", c.DiskMBps},
		{"nic_mbps", c.NICMbps}, {"rack_uplink_mbps", c.RackUplinkMbps},
	}
	for _, p := range posf {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return fmt.Errorf("cluster.%s: must be a positive finite number, got %v", p.name, p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"map_slots", c.MapSlots}, {"reduce_slots", c.ReduceSlots}, {"containers", c.Containers}} {
		if p.v < 0 {
			return fmt.Errorf("cluster.%s: must not be negative, got %d", p.name, p.v)
		}
	}
	switch {
	case c.Containers > 0 && (c.MapSlots > 0 || c.ReduceSlots > 0):
		return fmt.Errorf("cluster: set either containers (YARN model) or map_slots/reduce_slots (slot model), not both")
	case c.Containers == 0 && (c.MapSlots == 0 || c.ReduceSlots == 0):
		return fmt.Errorf("cluster: the slot model needs map_slots > 0 and reduce_slots > 0 (or set containers)")
	}
	if c.Replication > c.Racks*c.NodesPerRack {
		return fmt.Errorf("cluster.replication: %d replicas need at least that many nodes, the cluster has %d",
			c.Replication, c.Racks*c.NodesPerRack)
	}
	if c.BlockMB > 1<<20 {
		return fmt.Errorf("cluster.block_mb: %d MB is not a plausible block size", c.BlockMB)
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
