package fabric

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Fabric is a built emulated network. Its methods may be called from any
// goroutine.
type Fabric struct {
	spec   Spec
	runID  string
	subnet netip.Prefix
	leaf   leaf
	report Report
	links  []Link

	mu     sync.Mutex
	closed bool
	// dir is netnsDir as it was when the fabric was built: Close removes
	// the names through it, whatever is mounted over netnsDir since.
	dir     *os.File
	core    *space   // created first and removed last; its handle holds the run's lock
	racks   []*space // by rack
	nodes   []*space // by node
	all     []*space // in creation order
	closers []interface{ Close() error }
}

// space is one network namespace of the fabric.
type space struct {
	name string
	h    netns.NsHandle
	id   nsID
	nl   *netlink.Handle // for reading counters without entering the namespace
}

// RunID is the run's id, as given in Spec or drawn by Build.
func (f *Fabric) RunID() string { return f.runID }

// Spec is the spec the fabric was built from, defaults filled in.
func (f *Fabric) Spec() Spec { return f.spec }

// Subnet is the IPv4 subnet every node address is in.
func (f *Fabric) Subnet() netip.Prefix { return f.subnet }

// NodeAddr is node n's IPv4 address: in rack r = n / NodesPerRack at index
// k = n % NodesPerRack it is the subnet's base + 256r + k + 1. It panics if n
// is not a node, as a slice index would.
func (f *Fabric) NodeAddr(n int) netip.Addr {
	if n < 0 || n >= f.spec.Nodes() {
		panic(fmt.Sprintf("fabric: node %d of %d", n, f.spec.Nodes()))
	}
	b := f.subnet.Addr().As4()
	r, k := n/f.spec.NodesPerRack, n%f.spec.NodesPerRack
	b[2] += byte(r)
	b[3] += byte(k + 1)
	return netip.AddrFrom4(b)
}

// NodeNetns is the name of node n's network namespace, for `ip netns exec`.
func (f *Fabric) NodeNetns(n int) string { return f.nsName(fmt.Sprintf("n%d", n)) }

func (f *Fabric) nsName(role string) string { return Prefix + f.runID + "-" + role }

// Interface names. They exist only inside the fabric's namespaces, which are
// removed with everything in them, so they carry no run prefix; they are
// short so that `tc -s qdisc` output reads easily.
const (
	nodeIface   = "eth0" // a node's end of its link to the rack switch
	bridgeIface = "br0"  // the switch in a rack or core namespace
	uplinkIface = "up"   // a rack switch's end of its link to the core
)

func rackPortIface(node int) string { return fmt.Sprintf("n%d", node) } // in the rack namespace
func corePortIface(rack int) string { return fmt.Sprintf("r%d", rack) } // in the core namespace

// subnetCandidates are tried in order; Build takes the first that overlaps no
// route of the host's own namespace. The fabric's addresses exist only in its
// namespaces, which have no route to the host, so an overlap would not break
// anything; avoiding it keeps `ip route` on the host and in a node from
// naming the same addresses. 198.18.0.0/15 is reserved for benchmarking
// network devices (RFC 2544) and is rarely configured on hosts; 10.x, 172.16/12
// and 192.168/16 are where hosts, VPCs and container runtimes put theirs.
var subnetCandidates = []netip.Prefix{
	netip.MustParsePrefix("198.18.0.0/16"),
	netip.MustParsePrefix("198.19.0.0/16"),
	netip.MustParsePrefix("10.254.0.0/16"),
	netip.MustParsePrefix("172.30.0.0/16"),
}

// pickSubnet reads the host's IPv4 routes (changing nothing) and returns the
// first candidate none of them overlaps, ignoring default routes.
func pickSubnet() (netip.Prefix, error) {
	routes, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: unix.RT_TABLE_UNSPEC}, netlink.RT_FILTER_TABLE)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("fabric: read the host's routes: %w", err)
	}
	var used []netip.Prefix
	for _, r := range routes {
		if r.Dst == nil {
			continue
		}
		ones, _ := r.Dst.Mask.Size()
		a, ok := netip.AddrFromSlice(r.Dst.IP.To4())
		if !ok || ones == 0 {
			continue
		}
		used = append(used, netip.PrefixFrom(a, ones).Masked())
	}
next:
	for _, c := range subnetCandidates {
		for _, u := range used {
			if c.Overlaps(u) {
				continue next
			}
		}
		return c, nil
	}
	return netip.Prefix{}, fmt.Errorf("fabric: every candidate subnet %v overlaps a route of the host", subnetCandidates)
}

func randomRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// Build creates the network s describes and returns it. It checks privileges
// first and changes nothing without them. On any error, and when ctx is
// cancelled while it works, it removes everything it built before returning.
// The caller must Close the fabric.
func Build(ctx context.Context, s Spec) (f *Fabric, err error) {
	if err := CheckPrivileges(); err != nil {
		return nil, err
	}
	s, err = s.validate()
	if err != nil {
		return nil, err
	}
	feats, err := Available()
	if err != nil {
		return nil, err
	}
	subnet, err := pickSubnet()
	if err != nil {
		return nil, err
	}
	f = &Fabric{spec: s, runID: s.RunID, subnet: subnet}
	if f.runID == "" {
		f.runID = randomRunID()
	}
	f.spec.RunID = f.runID
	if f.leaf, err = chooseLeaf(s, feats); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if cerr := f.Close(); cerr != nil {
				err = errors.Join(err, cerr)
			}
			f = nil
		}
	}()
	if err := f.build(ctx); err != nil {
		return f, err
	}
	f.report = f.makeReport(feats)
	return f, nil
}

// chooseLeaf picks the queue under each HTB class.
func chooseLeaf(s Spec, feats Features) (leaf, error) {
	if s.HopDelay > 0 && feats.Has("netem") {
		limit := s.QueuePackets
		if s.QueueBytes > 0 { // netem counts frames only
			limit = (s.QueueBytes + FrameBytes - 1) / FrameBytes
		}
		return leaf{kind: "netem", limit: uint32(limit), latency: s.HopDelay}, nil
	}
	need := "pfifo"
	l := leaf{kind: "pfifo", limit: uint32(s.QueuePackets)}
	if s.QueueBytes > 0 {
		need = "bfifo"
		l = leaf{kind: "bfifo", limit: uint32(s.QueueBytes)}
	}
	for _, k := range []string{"htb", need} {
		if !feats.Has(k) {
			return leaf{}, fmt.Errorf("fabric: the kernel has no %s qdisc (it offers %s)", k, strings.Join(feats.Qdiscs, ", "))
		}
	}
	return l, nil
}

// build does Build's work; on error the caller removes what it made.
func (f *Fabric) build(ctx context.Context) error {
	s := f.spec
	newSpace := func(role string, lock bool) (*space, error) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("fabric: build interrupted: %w", err)
		}
		name := f.nsName(role)
		h, err := createNamedNetns(name, lock)
		if err != nil {
			return nil, err
		}
		sp := &space{name: name, h: h}
		f.mu.Lock()
		f.all = append(f.all, sp)
		f.mu.Unlock()
		if sp.id, err = nsIDOfHandle(h); err != nil {
			return nil, fmt.Errorf("fabric: %s: %w", name, err)
		}
		if sp.nl, err = netlink.NewHandleAt(h); err != nil {
			return nil, fmt.Errorf("fabric: netlink socket in %s: %w", name, err)
		}
		return sp, nil
	}
	var err error
	if f.dir, err = openNetnsDir(); err != nil {
		return fmt.Errorf("fabric: %w", err)
	}
	// The core first, locked: the run's lock, held while this process
	// lives and released by the kernel when it dies, so that Clean can tell
	// a killed run from a live one.
	if f.core, err = newSpace("core", true); err != nil {
		return err
	}
	if err := inNetns(f.core.h, func() error { return prepare(true) }); err != nil {
		return fmt.Errorf("fabric: %s: %w", f.core.name, err)
	}
	for r := range s.Racks {
		rk, err := newSpace(fmt.Sprintf("r%d", r), false)
		if err != nil {
			return err
		}
		f.racks = append(f.racks, rk)
		if err := inNetns(rk.h, func() error { return prepare(true) }); err != nil {
			return fmt.Errorf("fabric: %s: %w", rk.name, err)
		}
		up := Link{Kind: UplinkUp, Node: -1, Rack: r, BitsPerSec: s.UplinkBitsPerSec, Netns: rk.name, Iface: uplinkIface}
		down := Link{Kind: UplinkDown, Node: -1, Rack: r, BitsPerSec: s.UplinkBitsPerSec, Netns: f.core.name, Iface: corePortIface(r)}
		if err := f.connect(rk, f.core, up, down, netip.Prefix{}); err != nil {
			return err
		}
	}
	for n := range s.Nodes() {
		r := n / s.NodesPerRack
		nd, err := newSpace(fmt.Sprintf("n%d", n), false)
		if err != nil {
			return err
		}
		f.nodes = append(f.nodes, nd)
		up := Link{Kind: NICUp, Node: n, Rack: r, BitsPerSec: s.NICBitsPerSec, Netns: nd.name, Iface: nodeIface}
		down := Link{Kind: NICDown, Node: n, Rack: r, BitsPerSec: s.NICBitsPerSec, Netns: f.racks[r].name, Iface: rackPortIface(n)}
		if err := f.connect(nd, f.racks[r], up, down, netip.PrefixFrom(f.NodeAddr(n), f.subnet.Bits())); err != nil {
			return err
		}
	}
	return f.waitUp(ctx)
}

// waitUp waits until the kernel reports every veth end of the fabric
// operationally up, which it does once it has handled the carrier change
// (and, in the same step, told the bridge to forward on the port).
func (f *Fabric) waitUp(ctx context.Context) error {
	deadline := time.Now().Add(linkUpTimeout)
	for {
		var down []string
		for _, sp := range f.all {
			links, err := sp.nl.LinkList()
			if err != nil {
				return fmt.Errorf("fabric: %s: list links: %w", sp.name, err)
			}
			for _, l := range links {
				if l.Type() == "veth" && l.Attrs().OperState != netlink.OperUp {
					down = append(down, sp.name+"/"+l.Attrs().Name)
				}
			}
		}
		if len(down) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fabric: links still down after %v: %s", linkUpTimeout, strings.Join(down, ", "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("fabric: build interrupted: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// linkUpTimeout bounds waitUp. The kernel may take up to a second to handle
// a carrier change it does not consider urgent.
const linkUpTimeout = 3 * time.Second

// prepare readies the calling thread's new namespace: no IPv6 (so that no
// router solicitations, duplicate address detection or MLD reports cross the
// shaped links and their counters), loopback up, and for a switch the bridge.
func prepare(isSwitch bool) error {
	for _, key := range []string{"all", "default"} {
		path := "/proc/sys/net/ipv6/conf/" + key + "/disable_ipv6"
		if err := os.WriteFile(path, []byte("1"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return err
	}
	if err := netlink.LinkSetUp(lo); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	if isSwitch {
		if err := addBridge(bridgeIface); err != nil {
			return fmt.Errorf("add bridge: %w", err)
		}
	}
	return nil
}

// connect makes the veth pair between a (a node or a rack) and its switch sw:
// a's end named up.Iface, shaped at up's rate, and sw's end named
// down.Iface, shaped at down's rate and made a port of sw's bridge. The pair
// is created inside a with its peer placed directly in sw, so neither end is
// ever in the host's namespace. addr, if valid, is given to a's end (a node);
// otherwise a's end becomes a port of a's bridge (a rack's uplink).
func (f *Fabric) connect(a, sw *space, up, down Link, addr netip.Prefix) error {
	isNode := addr.IsValid()
	err := inNetns(a.h, func() error {
		if isNode {
			if err := prepare(false); err != nil {
				return err
			}
			if cc := f.spec.CongestionControl; cc != "" {
				if err := setCongestionControl(cc); err != nil {
					return err
				}
			}
		}
		veth := &netlink.Veth{
			LinkAttrs:     netlink.LinkAttrs{Name: up.Iface, Index: vethIndex},
			PeerName:      down.Iface,
			PeerNamespace: netlink.NsFd(int(sw.h)),
		}
		if err := netlink.LinkAdd(veth); err != nil {
			return fmt.Errorf("add veth %s/%s: %w", up.Iface, down.Iface, err)
		}
		link, err := netlink.LinkByName(up.Iface)
		if err != nil {
			return err
		}
		if isNode {
			if err := netlink.AddrAdd(link, &netlink.Addr{IPNet: &net.IPNet{IP: addr.Addr().AsSlice(), Mask: net.CIDRMask(addr.Bits(), 32)}}); err != nil {
				return fmt.Errorf("address %v on %s: %w", addr, up.Iface, err)
			}
		} else if err := enslave(link); err != nil {
			return err
		}
		return f.finish(link, up)
	})
	if err != nil {
		return fmt.Errorf("fabric: %s: %w", a.name, err)
	}
	err = inNetns(sw.h, func() error {
		link, err := netlink.LinkByName(down.Iface)
		if err != nil {
			return err
		}
		if err := enslave(link); err != nil {
			return err
		}
		return f.finish(link, down)
	})
	if err != nil {
		return fmt.Errorf("fabric: %s: %w", sw.name, err)
	}
	return nil
}

// setCongestionControl makes cc the default TCP congestion control of the
// calling thread's namespace.
func setCongestionControl(cc string) error {
	err := os.WriteFile("/proc/sys/net/ipv4/tcp_congestion_control", []byte(cc), 0)
	if err == nil {
		return nil
	}
	avail, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	allowed, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
	return fmt.Errorf("TCP congestion control %q cannot be a node's default (%v): the kernel has %q and lets namespaces default only to the host's allowed %q; choose one of those, or set it per socket with TCP_CONGESTION",
		cc, err, strings.TrimSpace(string(avail)), strings.TrimSpace(string(allowed)))
}

// vethIndex is the interface index of the end of every veth pair that is
// created in its own namespace (a node's eth0, a rack's uplink port). The
// peer's index is assigned in its namespace, counting up from 1, so it is
// never this. The kernel handles a veth's carrier change at once only if the
// veth's index differs from its peer's (linkwatch_urgent_event); otherwise it
// may wait up to a second, and a bridge port stays disabled, dropping
// frames, until it does.
const vethIndex = 1000

func enslave(link netlink.Link) error {
	br, err := netlink.LinkByName(bridgeIface)
	if err != nil {
		return err
	}
	if err := netlink.LinkSetMaster(link, br); err != nil {
		return fmt.Errorf("%s into %s: %w", link.Attrs().Name, bridgeIface, err)
	}
	return nil
}

// finish switches off link's offloads, shapes its egress as l says, records
// l and brings the link up.
func (f *Fabric) finish(link netlink.Link, l Link) error {
	name := link.Attrs().Name
	if err := disableOffloads(name); err != nil {
		return err
	}
	// TCP builds multi-segment packets even on a device with GSO off (it
	// segments them after the qdisc); one segment per packet is what makes
	// the node's own queue hold frames.
	if err := netlink.LinkSetGSOMaxSegs(link, 1); err != nil {
		return fmt.Errorf("%s: gso_max_segs: %w", name, err)
	}
	if err := shape(link, l.BitsPerSec, f.leaf); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if f.leaf.kind == "bfifo" {
		l.QueueBytes = int(f.leaf.limit)
	} else {
		l.QueuePackets = int(f.leaf.limit)
	}
	f.mu.Lock()
	f.links = append(f.links, l)
	f.mu.Unlock()
	if err := netlink.LinkSetUp(link); err != nil {
		return fmt.Errorf("%s up: %w", name, err)
	}
	return nil
}
