package fabric

import (
	"fmt"
	"regexp"
	"time"
)

// Prefix starts the name of every network namespace a fabric creates. A
// namespace is named Prefix + RunID + "-" + role, where role is "core",
// "r<rack>" or "n<node>", so that Clean can tell the fabric's namespaces from
// everything else on the host.
const Prefix = "mrs"

// DefaultQueuePackets is the drop-tail queue of every shaped link when Spec
// sets neither QueuePackets nor QueueBytes. 100 full-size frames (151 KB) is
// the queue of the testbed's first measurement (three TCP flows over a
// 20 Mbit/s HTB uplink, in the design notes) and the max_queue_size Mininet
// experiments commonly use; it is of the order of a commodity top-of-rack
// switch's buffer per port (the DCTCP paper, SIGCOMM 2010, describes a
// Broadcom Triumph sharing 4 MB among 48 1 Gbit/s ports: about 85 KB each).
const DefaultQueuePackets = 100

// FrameBytes is the largest frame on every emulated link: a 1500-byte IP MTU
// plus the 14-byte Ethernet header, which is what the kernel's qdiscs count
// (no preamble, frame check sequence or inter-frame gap).
const FrameBytes = 1514

// Limits on the topology: node addresses are laid out as one /24 per rack in
// a /16, so a rack holds at most 254 nodes and there are at most 256 racks.
const (
	MaxRacks        = 256
	MaxNodesPerRack = 254
)

// minBitsPerSec is the slowest link a fabric shapes: below it HTB's rate table
// loses precision and one frame takes longer than a second.
const minBitsPerSec = 64e3

// maxBitsPerSec is the fastest link a fabric shapes. HTB takes 64-bit rates,
// but a single host cannot forward much more than this through veth pairs;
// it bounds a typo, not the kernel.
const maxBitsPerSec = 100e9

// Spec describes the network to build: Racks racks of NodesPerRack nodes, each
// node's NIC and each rack's uplink to a non-blocking core shaped in both
// directions.
type Spec struct {
	// RunID names this fabric among others on the host: 1 to 8 lowercase
	// letters or digits. Empty means a random one, which Build reports in
	// Fabric.RunID.
	RunID string
	// Racks and NodesPerRack give the topology; node n sits in rack
	// n / NodesPerRack.
	Racks, NodesPerRack int
	// NICBitsPerSec is each node's NIC rate, each direction.
	NICBitsPerSec float64
	// UplinkBitsPerSec is each rack's uplink rate to the core, each direction.
	UplinkBitsPerSec float64
	// QueuePackets is the drop-tail queue of each shaped link in frames; 0
	// with QueueBytes 0 means DefaultQueuePackets.
	QueuePackets int
	// QueueBytes, if positive, bounds each shaped link's queue in bytes
	// instead (a bfifo); QueuePackets must then be 0.
	QueueBytes int
	// HopDelay is a one-way delay added on every shaped link (netem), so a
	// node-to-node path in one rack gets 2 x HopDelay and across racks 4 x
	// HopDelay each way. Zero adds none. Where the kernel has no netem qdisc
	// the delay is not applied and Fabric.Used says so; Build does not fail.
	HopDelay time.Duration
	// CongestionControl, if set, becomes the default TCP congestion control
	// of every node's namespace; "" keeps the kernel's default for new
	// namespaces (which it copies from the host's). The kernel lets a
	// namespace default only to an algorithm in the host's
	// net.ipv4.tcp_allowed_congestion_control; Build says so if it is not.
	// A process with CAP_NET_ADMIN can still choose any loaded algorithm per
	// socket (TCP_CONGESTION). Used reports what the nodes run.
	CongestionControl string
}

var (
	runIDPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)
	ccPattern    = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
)

// validate checks s and returns it with defaults filled in.
func (s Spec) validate() (Spec, error) {
	switch {
	case s.RunID != "" && !runIDPattern.MatchString(s.RunID):
		return s, fmt.Errorf("fabric: RunID %q: want 1 to 8 lowercase letters or digits", s.RunID)
	case s.Racks < 1 || s.Racks > MaxRacks:
		return s, fmt.Errorf("fabric: Racks %d: want 1..%d", s.Racks, MaxRacks)
	case s.NodesPerRack < 1 || s.NodesPerRack > MaxNodesPerRack:
		return s, fmt.Errorf("fabric: NodesPerRack %d: want 1..%d", s.NodesPerRack, MaxNodesPerRack)
	case !(s.NICBitsPerSec >= minBitsPerSec && s.NICBitsPerSec <= maxBitsPerSec):
		return s, fmt.Errorf("fabric: NICBitsPerSec %g: want %g..%g", s.NICBitsPerSec, minBitsPerSec, maxBitsPerSec)
	case !(s.UplinkBitsPerSec >= minBitsPerSec && s.UplinkBitsPerSec <= maxBitsPerSec):
		return s, fmt.Errorf("fabric: UplinkBitsPerSec %g: want %g..%g", s.UplinkBitsPerSec, minBitsPerSec, maxBitsPerSec)
	case s.QueuePackets < 0:
		return s, fmt.Errorf("fabric: QueuePackets %d: want a non-negative count", s.QueuePackets)
	case s.QueueBytes < 0:
		return s, fmt.Errorf("fabric: QueueBytes %d: want a non-negative count", s.QueueBytes)
	case s.QueuePackets > 0 && s.QueueBytes > 0:
		return s, fmt.Errorf("fabric: QueuePackets %d and QueueBytes %d: set at most one", s.QueuePackets, s.QueueBytes)
	case s.QueueBytes > 0 && s.QueueBytes < FrameBytes:
		return s, fmt.Errorf("fabric: QueueBytes %d: want at least one frame (%d bytes)", s.QueueBytes, FrameBytes)
	case s.CongestionControl != "" && !ccPattern.MatchString(s.CongestionControl):
		return s, fmt.Errorf("fabric: CongestionControl %q: not an algorithm name", s.CongestionControl)
	case s.HopDelay < 0 || s.HopDelay > time.Second:
		return s, fmt.Errorf("fabric: HopDelay %v: want 0..1s", s.HopDelay)
	}
	if s.QueuePackets == 0 && s.QueueBytes == 0 {
		s.QueuePackets = DefaultQueuePackets
	}
	return s, nil
}

// Nodes is the number of nodes the spec describes.
func (s Spec) Nodes() int { return s.Racks * s.NodesPerRack }

// LinkKind says which of a fabric's four kinds of shaped link a Link is.
type LinkKind int

// The four kinds of shaped link, named for the direction of the traffic they
// carry; each is shaped on the egress of one veth end.
const (
	// NICUp carries a node's sends: egress of the node's own veth end.
	NICUp LinkKind = iota
	// NICDown carries a node's receives: egress of the rack switch's port
	// towards the node.
	NICDown
	// UplinkUp carries a rack's traffic to other racks: egress of the rack
	// switch's port towards the core.
	UplinkUp
	// UplinkDown carries other racks' traffic into a rack: egress of the
	// core's port towards the rack.
	UplinkDown
)

func (k LinkKind) String() string {
	switch k {
	case NICUp:
		return "nic-up"
	case NICDown:
		return "nic-down"
	case UplinkUp:
		return "uplink-up"
	case UplinkDown:
		return "uplink-down"
	}
	return fmt.Sprintf("LinkKind(%d)", int(k))
}

// MarshalText makes a LinkKind read as its name in JSON.
func (k LinkKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a LinkKind from its name.
func (k *LinkKind) UnmarshalText(b []byte) error {
	for _, c := range []LinkKind{NICUp, NICDown, UplinkUp, UplinkDown} {
		if string(b) == c.String() {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("fabric: unknown link kind %q", b)
}

// Link is one shaped direction of one emulated link.
type Link struct {
	Kind LinkKind `json:"kind"`
	// Node is the node of a NIC link, -1 for an uplink.
	Node int `json:"node"`
	// Rack is the rack of the node or of the uplink.
	Rack int `json:"rack"`
	// BitsPerSec is the shaped rate, counted over Ethernet frames as the
	// kernel sees them (header included; preamble, FCS and gap not).
	BitsPerSec float64 `json:"bits_per_sec"`
	// QueuePackets or QueueBytes bounds the link's drop-tail queue.
	QueuePackets int `json:"queue_packets,omitempty"`
	QueueBytes   int `json:"queue_bytes,omitempty"`
	// Netns and Iface name the namespace and interface whose egress is shaped,
	// for looking at it with `ip netns exec NETNS tc -s qdisc show dev IFACE`.
	Netns string `json:"netns"`
	Iface string `json:"iface"`
}

// LinkCounters is what the kernel counted on one shaped link since Build.
type LinkCounters struct {
	Link Link `json:"link"`
	// Bytes and Packets left the link's queue onto the wire, Ethernet
	// headers included.
	Bytes   uint64 `json:"bytes"`
	Packets uint64 `json:"packets"`
	// Drops counts frames the link dropped, its queue's overflows included.
	Drops uint64 `json:"drops"`
	// Overlimits counts the times the shaper held a frame back for lack of
	// tokens; Requeues the frames the device handed back to the qdisc.
	Overlimits uint64 `json:"overlimits"`
	Requeues   uint64 `json:"requeues"`
	// BacklogBytes and BacklogPackets are queued at the moment of reading.
	BacklogBytes   uint64 `json:"backlog_bytes"`
	BacklogPackets uint64 `json:"backlog_packets"`
}
