package scenario_test

import (
	"fmt"
	"strings"

	"github.com/mrsched/mrsched/scenario"
)

// Run a scenario from Go and read its summary: the first 100 jobs of the
// embedded FB-2009 trace on 10 nodes, under delay scheduling. A scenario
// file is read with scenario.Load; the summary is what `mrsched simulate`
// writes to summary.json (metrics.WriteSummaryJSON), and res.Collector
// holds every job's record.
func ExampleConfig_Run() {
	c, err := scenario.Parse(strings.NewReader(`
cluster: {racks: 2, nodes_per_rack: 5}
workload: {trace: FB-2009, max_jobs: 100}
policy: {name: delay}
`), "example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Run(nil) // nil: no progress callback
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Summary
	fmt.Printf("%s finished %d of %d jobs\n", s.Policy, s.JobsCompleted, s.JobsSubmitted)
	fmt.Println("every map read its block on its own node:", s.Locality.Node == 1)
	fmt.Println("records of jobs:", len(res.Collector.Jobs()))
	// Output:
	// delay finished 100 of 100 jobs
	// every map read its block on its own node: true
	// records of jobs: 100
}

// Set a scenario's fields by their paths, as `simulate -set` and a sweep's
// axes do; the document keeps its comments.
func ExampleOverride() {
	src := []byte("cluster:\n  racks: 10 # racks of nodes_per_rack nodes\npolicy: {name: fair}\n")
	racks, err := scenario.ParseSetting("cluster.racks=4")
	if err != nil {
		fmt.Println(err)
		return
	}
	t1, _ := scenario.ParseSetting("policy.params.t1_s=5")
	out, err := scenario.Override(src, racks, t1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	_, err = scenario.Override(src, scenario.Setting{Path: "cluster.rackz", Value: racks.Value})
	fmt.Println(err)
	// Output:
	// cluster:
	//   racks: 4 # racks of nodes_per_rack nodes
	// policy: {name: fair, params: {t1_s: 5}}
	// cluster.rackz=4: cluster has no field rackz (its fields: racks, nodes_per_rack, map_slots, reduce_slots, containers, cpu_cores, memory_gb, disk_mbps, nic_mbps, rack_uplink_mbps, block_mb, replication, replica_choice, profile, disk, topology, node_groups, rack_uplinks)
}
