package cluster

import (
	"fmt"
	"math"
	"path"
)

// NodeSpec is one node of a cluster whose racks or nodes differ: its name,
// its rack, and what it has. A zero count or rate takes the Config's.
type NodeSpec struct {
	Name string
	Rack string
	// MapSlots, ReduceSlots and Containers as in Config; all 0 takes the
	// Config's model and counts.
	MapSlots, ReduceSlots, Containers int
	CPUCores, MemoryGB                float64
	DiskMBps, NICMbps                 float64
}

// NewHosts builds a topology from a list of nodes: racks in the order
// their first node is listed, each rack's nodes in list order, so that a
// rack's nodes are numbered together; racks may have any size. cfg gives
// what a node does not (slots, resources, disk, NIC) and every rack's
// uplink; uplinks overrides the uplink of the racks it names (Mbit/s).
// cfg's Racks and NodesPerRack are replaced by the number of racks and
// the largest rack's size.
func NewHosts(cfg Config, nodes []NodeSpec, uplinks map[string]float64) (*Topology, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("cluster: a host list without hosts")
	}
	if len(nodes) > MaxNodes {
		return nil, fmt.Errorf("cluster: %d hosts; at most %d are supported", len(nodes), MaxNodes)
	}
	// Order the nodes rack by rack.
	rackIdx := map[string]int{}
	var rackNames []string
	var byRack [][]int
	for i, n := range nodes {
		r, ok := rackIdx[n.Rack]
		if !ok {
			r = len(rackNames)
			rackIdx[n.Rack] = r
			rackNames = append(rackNames, n.Rack)
			byRack = append(byRack, nil)
		}
		byRack[r] = append(byRack[r], i)
	}
	largest := 0
	for _, b := range byRack {
		largest = max(largest, len(b))
	}
	cfg.Racks, cfg.NodesPerRack = len(rackNames), largest
	cfg = cfg.WithDefaults()
	cfg.Racks, cfg.NodesPerRack = len(rackNames), largest
	if err := cfg.Validate(); err != nil && !(cfg.Replication > len(nodes)) {
		return nil, err
	}
	if cfg.Replication > len(nodes) {
		return nil, fmt.Errorf("cluster.replication: %d replicas need at least that many nodes, the host list has %d", cfg.Replication, len(nodes))
	}
	for r := range uplinks {
		if _, ok := rackIdx[r]; !ok {
			return nil, fmt.Errorf("cluster: an uplink for rack %q, which no host is on", r)
		}
	}
	h := &hostLayout{byName: map[string]NodeID{}}
	t := &Topology{cfg: cfg, nodes: len(nodes), racks: len(rackNames), hosts: h}
	const mbit = 1e6 / 8
	t.caps = make([]float64, t.nodes*linksPerNode+t.racks*2)
	for r, members := range byRack {
		h.rackFirst = append(h.rackFirst, NodeID(len(h.names)))
		h.rackCount = append(h.rackCount, len(members))
		for _, i := range members {
			n := nodes[i]
			id := NodeID(len(h.names))
			if n.Name != "" {
				if _, dup := h.byName[n.Name]; dup {
					return nil, fmt.Errorf("cluster: host %q is listed twice", n.Name)
				}
				h.byName[n.Name] = id
			}
			slots := [3]int{cfg.MapSlots, cfg.ReduceSlots, cfg.Containers}
			if n.MapSlots != 0 || n.ReduceSlots != 0 || n.Containers != 0 {
				slots = [3]int{n.MapSlots, n.ReduceSlots, n.Containers}
			}
			if (cfg.Containers > 0) != (slots[2] > 0) {
				return nil, fmt.Errorf("cluster: host %q: its slots %v are of another model than the cluster's (containers %d)", n.Name, slots, cfg.Containers)
			}
			for k, v := range slots {
				if v < 0 || v > MaxSlotsPerNode {
					return nil, fmt.Errorf("cluster: host %q: %d slots of kind %d; want 0 to %d", n.Name, v, k, MaxSlotsPerNode)
				}
				h.maxSlots[k] = max(h.maxSlots[k], v)
				h.total[k] += v
			}
			cpu, mem, disk, nic := orF(n.CPUCores, cfg.CPUCores), orF(n.MemoryGB, cfg.MemoryGB), orF(n.DiskMBps, cfg.DiskMBps), orF(n.NICMbps, cfg.NICMbps)
			for _, v := range []struct {
				name   string
				v      float64
				lo, hi float64
			}{{"cpu_cores", cpu, 0, MaxCPUCores}, {"memory_gb", mem, 0, MaxMemoryGB}, {"disk_mbps", disk, MinBandwidth, MaxDiskMBps}, {"nic_mbps", nic, MinBandwidth, MaxNICMbps}} {
				if !(v.v > 0 && v.v >= v.lo && v.v <= v.hi) || math.IsInf(v.v, 0) {
					return nil, fmt.Errorf("cluster: host %q: %s %v; want a number > 0, at least %v and at most %v", n.Name, v.name, v.v, v.lo, v.hi)
				}
			}
			h.slots = append(h.slots, slots)
			h.cpu, h.mem = append(h.cpu, cpu), append(h.mem, mem)
			h.names = append(h.names, n.Name)
			h.rackOf = append(h.rackOf, RackID(r))
			t.caps[int(id)*linksPerNode] = disk * 1e6
			t.caps[int(id)*linksPerNode+1] = nic * mbit
			t.caps[int(id)*linksPerNode+2] = nic * mbit
		}
		up := cfg.RackUplinkMbps
		if u, ok := uplinks[rackNames[r]]; ok {
			if !(u >= MinBandwidth && u <= MaxRackUplinkMbps) {
				return nil, fmt.Errorf("cluster: rack %s's uplink %v Mbit/s; want %v to %v", rackNames[r], u, MinBandwidth, MaxRackUplinkMbps)
			}
			up = u
		}
		t.caps[t.nodes*linksPerNode+2*r] = up * mbit
		t.caps[t.nodes*linksPerNode+2*r+1] = up * mbit
	}
	h.rackNames = rackNames
	if h.total == [3]int{} {
		return nil, fmt.Errorf("cluster: the hosts have no slots or containers")
	}
	return t, nil
}

func orF(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// UniformHosts lists the nodes of cfg's racks x nodes_per_rack, named
// rRnN on racks "/rackR", in the order New numbers them: for giving some
// of them other settings (node groups, rack uplinks).
func UniformHosts(cfg Config) []NodeSpec {
	cfg = cfg.WithDefaults()
	out := make([]NodeSpec, 0, cfg.Racks*cfg.NodesPerRack)
	for r := range cfg.Racks {
		for n := range cfg.NodesPerRack {
			out = append(out, NodeSpec{Name: fmt.Sprintf("r%dn%d", r, n), Rack: fmt.Sprintf("/rack%d", r)})
		}
	}
	return out
}

// ApplyGroups gives each node the settings of the first group whose
// pattern matches its name; a field the group leaves 0 keeps the node's.
// A group that matches no node, or a pattern path.Match cannot read, is
// an error naming the group.
func ApplyGroups(cfg Config, nodes []NodeSpec, groups []NodeGroup) error {
	cfg = cfg.WithDefaults()
	used := make([]bool, len(groups))
	for i := range nodes {
		n := &nodes[i]
		for g, grp := range groups {
			ok, err := path.Match(grp.Hosts, n.Name)
			if err != nil {
				return fmt.Errorf("cluster.node_groups[%d].hosts: %q is not a pattern: %v", g, grp.Hosts, err)
			}
			if !ok {
				continue
			}
			used[g] = true
			if grp.MapSlots != 0 || grp.ReduceSlots != 0 || grp.Containers != 0 {
				if n.MapSlots == 0 && n.ReduceSlots == 0 && n.Containers == 0 {
					n.MapSlots, n.ReduceSlots, n.Containers = cfg.MapSlots, cfg.ReduceSlots, cfg.Containers
				}
				for _, f := range []struct {
					into *int
					v    int
				}{{&n.MapSlots, grp.MapSlots}, {&n.ReduceSlots, grp.ReduceSlots}, {&n.Containers, grp.Containers}} {
					if f.v != 0 {
						*f.into = f.v
					}
				}
			}
			for _, f := range []struct {
				into *float64
				v    float64
			}{{&n.CPUCores, grp.CPUCores}, {&n.MemoryGB, grp.MemoryGB}, {&n.DiskMBps, grp.DiskMBps}, {&n.NICMbps, grp.NICMbps}} {
				if f.v != 0 {
					*f.into = f.v
				}
			}
			break
		}
	}
	for g, u := range used {
		if !u {
			return fmt.Errorf("cluster.node_groups[%d].hosts: %q matches no host of the cluster", g, groups[g].Hosts)
		}
	}
	return nil
}
