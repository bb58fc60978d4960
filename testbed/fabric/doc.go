// Package fabric builds, observes and removes an emulated two-tier cluster
// network on one Linux host, for the testbed: real processes exchange real
// bytes over real TCP, and the kernel shapes every NIC and rack uplink.
//
// # What it emulates
//
// Racks of nodes under a non-blocking core, as the simulator models them
// (see package cluster). Each node is a network namespace with one
// interface, eth0, holding the node's address. Each rack switch is a
// namespace with a Linux bridge (STP off, forward delay 0); so is the core.
// veth pairs join each node to its rack and each rack to the core. Four
// kinds of link are shaped, each direction on the egress of one veth end,
// because egress is where a qdisc queues:
//
//	NICUp       node's eth0                       node -> rack switch
//	NICDown     rack switch's port to the node    rack switch -> node
//	UplinkUp    rack switch's port to the core    rack -> core
//	UplinkDown  core's port to the rack           core -> rack
//
// Each shaped link is HTB with a single class at the link's rate (ceil =
// rate, a one-frame bucket, an explicit quantum so that the kernel does not
// warn) and a bounded drop-tail queue under it: pfifo of QueuePackets frames
// (default 100) or bfifo of QueueBytes. HTB rather than TBF because its class
// takes any leaf, so the same tree carries netem for a hop delay where the
// kernel has netem, as Mininet's links do, and because it was the qdisc of
// the testbed's first measurement. Rates count Ethernet frames as the kernel
// sees them, header included, preamble, FCS and inter-frame gap not: a full
// TCP segment carries 1448 payload bytes in 1514, so one TCP flow's goodput
// is 95.6% of the rate. Acknowledgements share each direction's queue with
// the data going that way, as on a real full-duplex NIC and switch port, so
// flows in opposite directions through one NIC slow each other.
//
// Segmentation offloads are off on every veth end (tso, gso and gro, through
// the SIOCETHTOOL ioctl) and gso_max_segs is 1, so that every queue holds and
// every counter counts wire-sized frames. Measured here, one TCP flow across
// a 50 Mbit/s uplink with 100-frame queues: with the veth defaults the uplink
// queue held 400 KB in 8 packets (50 KB aggregates) and never dropped, so its
// "100 packets" meant 6 MB; with tso, gso and gro off the uplink queued
// frames (151400 bytes in 100 packets) but the sender's own NIC queue still
// held 9-frame aggregates, since current kernels build multi-segment TCP
// packets whatever the device's gso setting and split them after the qdisc;
// gso_max_segs 1 makes those single frames too.
//
// Node addresses are in one private /16, 198.18.0.0/16 unless a route of the
// host overlaps it (then the next of a short list; see Fabric.Subnet): the
// RFC 2544 range for benchmarking network devices, which hosts rarely
// configure. Node n in rack r = n / NodesPerRack at index k gets base +
// 256r + k + 1. Nothing is created in, or routed to, the host's own
// namespace: each veth pair is created inside a fabric namespace with its peer
// placed directly in another, so no crash can leave an interface on the host.
// IPv6 is disabled in the fabric's namespaces so that no neighbour discovery
// or MLD traffic crosses the shaped links; ARP is the only traffic a fabric
// makes of its own.
//
// # What it does not emulate
//
// Propagation and switching delay: without netem (the project's machines
// have none) a path's base round trip is tens of microseconds, all of it
// software, and queueing dominates. Switch buffers shared between ports, ECN,
// and any fair-queueing in switches: every link is one FIFO. CPU: all nodes
// share the host's cores, so a busy host slows the nodes' processes, not the
// links; a run should report the host's CPU load. The TCP stack is the
// host's, with the host's default congestion control unless
// Spec.CongestionControl says otherwise (this project's machines default to
// BBR, which at this base round trip can starve one of two competing flows;
// CUBIC, the default of the measured clusters' kernels, can be chosen only
// per socket here because the host allows namespaces only reno and bbr).
//
// # Names, lifetime and cleaning
//
// Every namespace is named Prefix + run id + "-" + role (core, r<rack>,
// n<node>), bind-mounted under /run/netns as `ip netns` does, so `ip netns
// exec mrs<id>-n0 ...` works for looking around. Interfaces are named eth0,
// br0, up, n<node> and r<rack> inside those namespaces only. Build takes a
// lock (flock) on the run's core namespace before the namespace gets its
// name, and keeps it until Close; the kernel drops it when the process dies
// however it dies, so Clean removes
// exactly the namespaces of dead runs, and the processes left inside them,
// and never a live fabric or a namespace that is not a fabric's. Close kills
// every process inside the fabric's namespaces (found through
// /proc/PID/ns/net), closes the sockets opened through Listen and DialContext
// and removes the namespaces, which takes their interfaces, bridges and
// qdiscs with them. Build removes what it made on any error, and when its
// context is cancelled.
//
// # Counters
//
// Counters and UplinkBytes read the root HTB qdisc of each shaped interface:
// bytes and packets that left its queue, and drops, which include the leaf
// queue's overflows (the interface's own statistics never see a frame the
// qdisc dropped).
//
// Everything here needs CAP_NET_ADMIN and CAP_SYS_ADMIN (root);
// CheckPrivileges says what is missing without changing anything.
package fabric
