package cluster_test

import (
	"fmt"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/network"
)

// Use the network model alone, on a cluster's links: two racks of three
// nodes, 1 Gbps NICs and 1 Gbps rack uplinks. Two flows leave rack 0 and
// share its uplink (62.5 MB/s each); a flow inside rack 0 uses NICs no
// other flow does and runs at their full 125 MB/s. NICs and uplinks are
// full duplex: a link each way. This is what `mrsched netsim` does
// with a JSON file.
func ExampleTopology_Path() {
	topo, err := cluster.New(cluster.Config{Racks: 2, NodesPerRack: 3, MapSlots: 1, ReduceSlots: 1,
		NICMbps: 1000, RackUplinkMbps: 1000, Replication: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	flow := func(id string, src, dst cluster.NodeID, mb float64) network.TimedFlow {
		// Path lists the links between two nodes (disks left out here):
		// NICs, and the two racks' uplinks when it crosses racks.
		return network.TimedFlow{ID: id, Bytes: mb * 1e6, Path: topo.Path(nil, src, dst, false, false)}
	}
	flows := []network.TimedFlow{
		flow("0->3 across", 0, 3, 125),
		flow("1->4 across", 1, 4, 125),
		flow("2->0 in rack 0", 2, 0, 125),
	}
	res, makespan, err := network.Replay(topo.LinkCapacities(), flows)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%-14s ends at %.2f s\n", r.ID, r.Finish)
	}
	fmt.Printf("all done at %.2f s\n", makespan)
	// Output:
	// 0->3 across    ends at 2.00 s
	// 1->4 across    ends at 2.00 s
	// 2->0 in rack 0 ends at 1.00 s
	// all done at 2.00 s
}
