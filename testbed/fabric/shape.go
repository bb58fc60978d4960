package fabric

import (
	"fmt"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Handles of the qdiscs on every shaped interface: HTB at the root with one
// class, 1:1, holding all traffic, and a leaf queue under it.
var (
	htbHandle   = netlink.MakeHandle(1, 0)
	classHandle = netlink.MakeHandle(1, 1)
	leafHandle  = netlink.MakeHandle(0x10, 0) // "10:" in tc
)

// htbQuantum is the class quantum, in bytes. With a single class the quantum
// shares nothing; it is set so that the kernel does not derive it from
// rate / r2q and warn that it is too big (fast links) or too small (slow ones).
const htbQuantum = FrameBytes

// htbBurst is the class's bucket (buffer and cbuffer), in bytes: one full
// frame, so that a link never sends faster than its rate for longer than one
// frame, as a real link serialises one frame at a time. tc's default,
// rate/HZ + 1600 bytes, comes to about the same with the high-resolution
// timers of current kernels (HZ read as 10^9 from /proc/net/psched). Measured
// here (one TCP flow, 50 to 200 Mbit/s, three runs each), a bucket of 1 ms of
// the rate gave the same goodput within 0.5% and more drops.
const htbBurst = FrameBytes

// leaf says what queue sits under each HTB class.
type leaf struct {
	kind    string // "pfifo", "bfifo" or "netem"
	limit   uint32 // frames for pfifo and netem, bytes for bfifo
	latency time.Duration
}

// shape puts HTB at rate bitsPerSec on the egress of link, with q under it.
// It runs in link's namespace.
func shape(link netlink.Link, bitsPerSec float64, q leaf) error {
	idx := link.Attrs().Index
	htb := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: idx, Handle: htbHandle, Parent: netlink.HANDLE_ROOT})
	htb.Defcls = 1
	if err := netlink.QdiscAdd(htb); err != nil {
		return fmt.Errorf("add htb: %w", err)
	}
	class := netlink.NewHtbClass(
		netlink.ClassAttrs{LinkIndex: idx, Parent: htbHandle, Handle: classHandle},
		netlink.HtbClassAttrs{Rate: uint64(bitsPerSec), Ceil: uint64(bitsPerSec), Buffer: htbBurst, Cbuffer: htbBurst, Quantum: htbQuantum})
	if err := netlink.ClassAdd(class); err != nil {
		return fmt.Errorf("add htb class: %w", err)
	}
	attrs := netlink.QdiscAttrs{LinkIndex: idx, Handle: leafHandle, Parent: classHandle}
	switch q.kind {
	case "netem":
		ne := netlink.NewNetem(attrs, netlink.NetemQdiscAttrs{
			Latency: uint32(q.latency.Microseconds()), Limit: q.limit})
		if err := netlink.QdiscAdd(ne); err != nil {
			return fmt.Errorf("add netem: %w", err)
		}
	case "pfifo", "bfifo":
		if err := addFifo(attrs, q.kind, q.limit); err != nil {
			return fmt.Errorf("add %s: %w", q.kind, err)
		}
	default:
		return fmt.Errorf("unknown leaf queue %q", q.kind)
	}
	return nil
}

// addFifo adds a pfifo or bfifo qdisc with the given limit. The netlink
// package has no type for them (its GenericQdisc carries no options), so the
// request is built here: tc_fifo_qopt is a single u32 limit.
func addFifo(attrs netlink.QdiscAttrs, kind string, limit uint32) error {
	req := nl.NewNetlinkRequest(unix.RTM_NEWQDISC, unix.NLM_F_CREATE|unix.NLM_F_EXCL|unix.NLM_F_ACK)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(attrs.LinkIndex), Handle: attrs.Handle, Parent: attrs.Parent})
	req.AddData(nl.NewRtAttr(nl.TCA_KIND, nl.ZeroTerminated(kind)))
	req.AddData(nl.NewRtAttr(nl.TCA_OPTIONS, nl.Uint32Attr(limit)))
	_, err := req.Execute(unix.NETLINK_ROUTE, 0)
	return err
}

// addBridge creates an up bridge named name with STP off, forward delay 0
// and multicast snooping off, so a port forwards the moment it is up and the
// bridge sends nothing of its own. The netlink package's Bridge type has no
// STP or forward-delay field, so the request is built here.
func addBridge(name string) error {
	req := nl.NewNetlinkRequest(unix.RTM_NEWLINK, unix.NLM_F_CREATE|unix.NLM_F_EXCL|unix.NLM_F_ACK)
	msg := nl.NewIfInfomsg(unix.AF_UNSPEC)
	msg.Flags = unix.IFF_UP
	msg.Change = unix.IFF_UP
	req.AddData(msg)
	req.AddData(nl.NewRtAttr(unix.IFLA_IFNAME, nl.ZeroTerminated(name)))
	info := nl.NewRtAttr(unix.IFLA_LINKINFO, nil)
	info.AddRtAttr(nl.IFLA_INFO_KIND, nl.NonZeroTerminated("bridge"))
	data := info.AddRtAttr(nl.IFLA_INFO_DATA, nil)
	data.AddRtAttr(nl.IFLA_BR_STP_STATE, nl.Uint32Attr(0))
	data.AddRtAttr(nl.IFLA_BR_FORWARD_DELAY, nl.Uint32Attr(0))
	data.AddRtAttr(nl.IFLA_BR_MCAST_SNOOPING, nl.Uint8Attr(0))
	req.AddData(info)
	_, err := req.Execute(unix.NETLINK_ROUTE, 0)
	return err
}
