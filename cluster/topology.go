package cluster

import (
	"fmt"

	"github.com/mrsched/mrsched/network"
)

// NodeID names a node; nodes are numbered rack by rack, so node i sits in
// rack i / NodesPerRack.
type NodeID int32

// RackID names a rack.
type RackID int32

// Topology is a validated cluster: its nodes, racks and links. It is
// immutable once built and safe to share between the engine and policies.
type Topology struct {
	cfg   Config
	nodes int
	racks int
	caps  []float64
	// hosts is set for a cluster built from a host list (NewHosts): racks
	// of any size and nodes that differ. Nil: racks of cfg.NodesPerRack
	// identical nodes.
	hosts *hostLayout
}

// hostLayout is the per-node and per-rack state of a cluster whose racks
// or nodes differ.
type hostLayout struct {
	rackOf    []RackID
	rackFirst []NodeID
	rackCount []int
	slots     [][3]int // map, reduce, containers
	cpu, mem  []float64
	names     []string
	rackNames []string
	byName    map[string]NodeID
	maxSlots  [3]int
	total     [3]int
}

// Link layout: each node owns three links (disk, NIC up, NIC down), then each
// rack owns two (uplink up to the core, downlink from the core).
const linksPerNode = 3

// New builds a topology from cfg after filling defaults and validating it.
func New(cfg Config) (*Topology, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Topology{cfg: cfg, nodes: cfg.Racks * cfg.NodesPerRack, racks: cfg.Racks}
	const mbit = 1e6 / 8
	t.caps = make([]float64, t.nodes*linksPerNode+t.racks*2)
	for n := 0; n < t.nodes; n++ {
		t.caps[n*linksPerNode] = cfg.DiskMBps * 1e6
		t.caps[n*linksPerNode+1] = cfg.NICMbps * mbit
		t.caps[n*linksPerNode+2] = cfg.NICMbps * mbit
	}
	for r := 0; r < t.racks; r++ {
		t.caps[t.nodes*linksPerNode+2*r] = cfg.RackUplinkMbps * mbit
		t.caps[t.nodes*linksPerNode+2*r+1] = cfg.RackUplinkMbps * mbit
	}
	return t, nil
}

// Config returns the configuration the topology was built from, defaults filled.
func (t *Topology) Config() Config { return t.cfg }

// NumNodes is the number of nodes.
func (t *Topology) NumNodes() int { return t.nodes }

// NumRacks is the number of racks.
func (t *Topology) NumRacks() int { return t.racks }

// Rack returns the rack a node sits in.
func (t *Topology) Rack(n NodeID) RackID {
	if t.hosts != nil {
		return t.hosts.rackOf[n]
	}
	return RackID(int(n) / t.cfg.NodesPerRack)
}

// RackNodes returns the first node of rack r and the number of nodes in
// it; a rack's nodes are numbered together.
func (t *Topology) RackNodes(r RackID) (first NodeID, count int) {
	if t.hosts != nil {
		return t.hosts.rackFirst[r], t.hosts.rackCount[r]
	}
	return NodeID(int(r) * t.cfg.NodesPerRack), t.cfg.NodesPerRack
}

// Slots is node n's map slots, reduce slots and containers.
func (t *Topology) Slots(n NodeID) [3]int {
	if t.hosts != nil {
		return t.hosts.slots[n]
	}
	return [3]int{t.cfg.MapSlots, t.cfg.ReduceSlots, t.cfg.Containers}
}

// MaxSlots is the most map slots, reduce slots and containers any node has.
func (t *Topology) MaxSlots() [3]int {
	if t.hosts != nil {
		return t.hosts.maxSlots
	}
	return [3]int{t.cfg.MapSlots, t.cfg.ReduceSlots, t.cfg.Containers}
}

// TotalSlots is the cluster's map slots, reduce slots and containers.
func (t *Topology) TotalSlots() [3]int {
	if t.hosts != nil {
		return t.hosts.total
	}
	return [3]int{t.cfg.MapSlots * t.nodes, t.cfg.ReduceSlots * t.nodes, t.cfg.Containers * t.nodes}
}

// Resources is node n's CPU cores and memory (GB).
func (t *Topology) Resources(n NodeID) (cpu, memGB float64) {
	if t.hosts != nil {
		return t.hosts.cpu[n], t.hosts.mem[n]
	}
	return t.cfg.CPUCores, t.cfg.MemoryGB
}

// Uniform reports whether every rack has NodesPerRack identical nodes,
// as a cluster built by New has.
func (t *Topology) Uniform() bool { return t.hosts == nil }

// NodeName is node n's host name: the one its host list gives, else
// "rRnN" (node N of rack R, from 0), as faults name nodes.
func (t *Topology) NodeName(n NodeID) string {
	if t.hosts != nil && t.hosts.names[n] != "" {
		return t.hosts.names[n]
	}
	r := t.Rack(n)
	first, _ := t.RackNodes(r)
	return fmt.Sprintf("r%dn%d", r, n-first)
}

// RackName is rack r's name: its host list's, else "/rackR".
func (t *Topology) RackName(r RackID) string {
	if t.hosts != nil && t.hosts.rackNames[r] != "" {
		return t.hosts.rackNames[r]
	}
	return fmt.Sprintf("/rack%d", r)
}

// NodeByName finds a node by its host name (a host list's names only).
func (t *Topology) NodeByName(name string) (NodeID, bool) {
	if t.hosts == nil {
		return 0, false
	}
	n, ok := t.hosts.byName[name]
	return n, ok
}

// ContainerModel reports whether nodes run containers (any task kind) rather
// than separate map and reduce slots.
func (t *Topology) ContainerModel() bool { return t.cfg.Containers > 0 }

// LinkCapacities returns every link's capacity in bytes per second, indexed
// by network.LinkID. The caller must not modify it.
func (t *Topology) LinkCapacities() []float64 { return t.caps }

// DiskStreamBps is a node's disk rate with two or more streams, in bytes
// a second, and whether it differs from its one-stream rate (the disk
// link's capacity): true only for a Disk of kind hdd with a seek.
func (t *Topology) DiskStreamBps() (float64, bool) {
	d := t.cfg.Disk
	if d == nil {
		return 0, false
	}
	m := d.MultiStreamBps()
	return m, m < t.caps[0]
}

// DiskLink is node n's disk.
func (t *Topology) DiskLink(n NodeID) network.LinkID {
	return network.LinkID(int(n) * linksPerNode)
}

// NICUp is node n's transmit side.
func (t *Topology) NICUp(n NodeID) network.LinkID { return network.LinkID(int(n)*linksPerNode + 1) }

// NICDown is node n's receive side.
func (t *Topology) NICDown(n NodeID) network.LinkID { return network.LinkID(int(n)*linksPerNode + 2) }

// UplinkUp is rack r's link from its top-of-rack switch to the core.
func (t *Topology) UplinkUp(r RackID) network.LinkID {
	return network.LinkID(t.nodes*linksPerNode + 2*int(r))
}

// UplinkDown is rack r's link from the core to its top-of-rack switch.
func (t *Topology) UplinkDown(r RackID) network.LinkID {
	return network.LinkID(t.nodes*linksPerNode + 2*int(r) + 1)
}

// LinkKind is what a link of the topology is.
type LinkKind uint8

// The kinds of links: a node's disk, one side of its NIC, a rack's
// uplink or downlink (and any link past them).
const (
	DiskKind LinkKind = iota
	NICKind
	UplinkKind
)

// KindOf is link l's kind.
func (t *Topology) KindOf(l network.LinkID) LinkKind {
	switch {
	case int(l) >= t.nodes*linksPerNode:
		return UplinkKind
	case int(l)%linksPerNode == 0:
		return DiskKind
	}
	return NICKind
}

// Reach classifies how far a transfer travels.
type Reach uint8

// The reaches a transfer or a map's input read can have, nearest first.
const (
	NodeLocal Reach = iota
	RackLocal
	OffRack
)

func (r Reach) String() string {
	switch r {
	case NodeLocal:
		return "node"
	case RackLocal:
		return "rack"
	case OffRack:
		return "off"
	}
	return fmt.Sprintf("Reach(%d)", uint8(r))
}

// ReachOf tells how far a transfer from src to dst travels.
func (t *Topology) ReachOf(src, dst NodeID) Reach {
	switch {
	case src == dst:
		return NodeLocal
	case t.Rack(src) == t.Rack(dst):
		return RackLocal
	}
	return OffRack
}

// Path appends to buf the links a transfer from src to dst crosses and
// returns it. readDisk adds src's disk (data read from storage), writeDisk
// adds dst's disk (data written to storage). A node-local transfer crosses
// only the disks; a rack-local one adds both NICs; an off-rack one also
// crosses src's rack uplink and dst's rack downlink.
func (t *Topology) Path(buf []network.LinkID, src, dst NodeID, readDisk, writeDisk bool) []network.LinkID {
	if readDisk {
		buf = append(buf, t.DiskLink(src))
	}
	if src != dst {
		buf = append(buf, t.NICUp(src))
		if rs, rd := t.Rack(src), t.Rack(dst); rs != rd {
			buf = append(buf, t.UplinkUp(rs), t.UplinkDown(rd))
		}
		buf = append(buf, t.NICDown(dst))
	}
	if writeDisk && (!readDisk || src != dst) {
		buf = append(buf, t.DiskLink(dst))
	}
	return buf
}
