package fabric

import (
	"fmt"
	"slices"

	"github.com/vishvananda/netlink"
)

// Counters are read from the root HTB qdisc of each shaped interface. Its
// byte and packet counts are what left the queue for the wire, and its drop
// count includes every frame its leaf queue refused when full (HTB counts a
// leaf's refusal as its own drop). The interface's own statistics would miss
// those: a frame dropped at the qdisc never reaches the device.

// Links lists every shaped link: for each rack its uplink up and down, then
// for each node its NIC up and down.
func (f *Fabric) Links() []Link {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.links)
}

// Counters reads every shaped link's kernel counters, in the order of Links.
func (f *Fabric) Counters() ([]LinkCounters, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	byNetns := map[string]map[int]*netlink.QdiscStatistics{} // namespace -> ifindex -> stats
	ifindex := map[string]map[string]int{}                   // namespace -> iface -> ifindex
	out := make([]LinkCounters, len(f.links))
	for i, l := range f.links {
		if byNetns[l.Netns] == nil {
			sp := f.space(l.Netns)
			st, idx, err := readRootStats(sp)
			if err != nil {
				return nil, err
			}
			byNetns[l.Netns], ifindex[l.Netns] = st, idx
		}
		st := byNetns[l.Netns][ifindex[l.Netns][l.Iface]]
		if st == nil {
			return nil, fmt.Errorf("fabric: %s: no htb qdisc on %s", l.Netns, l.Iface)
		}
		out[i] = LinkCounters{Link: l,
			Bytes: st.Basic.Bytes, Packets: uint64(st.Basic.Packets),
			Drops: uint64(st.Queue.Drops), Overlimits: uint64(st.Queue.Overlimits), Requeues: uint64(st.Queue.Requeues),
			BacklogBytes: uint64(st.Queue.Backlog), BacklogPackets: uint64(st.Queue.Qlen)}
	}
	return out, nil
}

// UplinkBytes reads, for every rack, the bytes its uplink has carried up
// (to the core) and down (from the core) since Build: one netlink dump per
// rack namespace and one in the core, for a monitor that samples often.
func (f *Fabric) UplinkBytes() (up, down []uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, errClosed
	}
	core, coreIdx, err := readRootStats(f.core)
	if err != nil {
		return nil, nil, err
	}
	up = make([]uint64, len(f.racks))
	down = make([]uint64, len(f.racks))
	for r, rk := range f.racks {
		st, idx, err := readRootStats(rk)
		if err != nil {
			return nil, nil, err
		}
		u, d := st[idx[uplinkIface]], core[coreIdx[corePortIface(r)]]
		if u == nil || d == nil {
			return nil, nil, fmt.Errorf("fabric: rack %d: uplink qdisc missing", r)
		}
		up[r], down[r] = u.Basic.Bytes, d.Basic.Bytes
	}
	return up, down, nil
}

func (f *Fabric) space(name string) *space {
	for _, sp := range f.all {
		if sp.name == name {
			return sp
		}
	}
	return nil
}

// readRootStats dumps the qdiscs of sp's namespace and returns the root HTB
// qdiscs' statistics by interface index, and the interfaces' indexes by name.
func readRootStats(sp *space) (map[int]*netlink.QdiscStatistics, map[string]int, error) {
	if sp == nil || sp.nl == nil {
		return nil, nil, fmt.Errorf("fabric: namespace not built")
	}
	links, err := sp.nl.LinkList()
	if err != nil {
		return nil, nil, fmt.Errorf("fabric: %s: list links: %w", sp.name, err)
	}
	idx := make(map[string]int, len(links))
	for _, l := range links {
		idx[l.Attrs().Name] = l.Attrs().Index
	}
	qs, err := sp.nl.QdiscList(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fabric: %s: list qdiscs: %w", sp.name, err)
	}
	st := map[int]*netlink.QdiscStatistics{}
	for _, q := range qs {
		a := q.Attrs()
		if q.Type() == "htb" && a.Parent == netlink.HANDLE_ROOT && a.Statistics != nil {
			st[a.LinkIndex] = a.Statistics
		}
	}
	return st, idx, nil
}
