package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sched/allocations"
)

// writeScenario writes a scenario beside examples/hadoop's files, so that
// its relative paths name them.
func writeScenario(t *testing.T, body string) *Config {
	t.Helper()
	dir, err := filepath.Abs("../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadBytes([]byte(body), "s.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rackOfFour is a rack of four nodes with containers a node, or map and
// reduce slots when containers is 0.
func rackOfFour(t *testing.T, containers int) *cluster.Topology {
	t.Helper()
	topo, err := cluster.New(cluster.Config{Racks: 1, NodesPerRack: 4, Containers: containers})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// mustAllocations reads an allocation file's text.
func mustAllocations(t *testing.T, file string) *allocations.Config {
	t.Helper()
	a, err := allocations.Parse(strings.NewReader(file), "fair-scheduler.xml")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeTraceScenario writes a SWIM trace as t.tsv and a scenario beside it
// as s.yaml in a new directory, and returns the scenario's path.
func writeTraceScenario(t *testing.T, tsv, scenario string) string {
	t.Helper()
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "t.tsv"), tsv)
	path := filepath.Join(dir, "s.yaml")
	testfile.Write(t, path, scenario)
	return path
}

// runYAML parses a scenario given as YAML (named s.yaml in errors) and
// runs it.
func runYAML(t *testing.T, src string) *Result {
	t.Helper()
	cfg, err := Parse(strings.NewReader(src), "s.yaml")
	return mustRun(t, cfg, err)
}

// mustRun runs a scenario that loaded with err (nil: it loaded).
func mustRun(t *testing.T, cfg *Config, err error) *Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// summaryOf runs a scenario given as YAML and returns its summary.json,
// decoded.
func summaryOf(t *testing.T, src string) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := metrics.WriteSummaryJSON(&b, runYAML(t, src).Summary); err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// runTraceScenario loads the scenario writeTraceScenario writes and runs
// it.
func runTraceScenario(t *testing.T, tsv, scenario string) *Result {
	t.Helper()
	cfg, err := Load(writeTraceScenario(t, tsv, scenario))
	return mustRun(t, cfg, err)
}

// TestHeterogeneousClusterEveryPolicy runs a cluster whose racks and nodes
// differ under every registered policy with the engine's invariants on:
// an SLS nodes file (nodes of 2 to 16 containers) in the container model,
// and a table of racks of 1 and 3 nodes in the slot model.
func TestHeterogeneousClusterEveryPolicy(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "uneven.data")
	testfile.Write(t, table, "node1 /rackA\nnode2 /rackA\nnode3 /rackA\nnode4 /rackB\n")
	for _, tc := range []struct{ name, body string }{
		{"sls nodes, containers", "cluster: {topology: sls-nodes.json, containers: 8}\nworkload: {trace: sls-jobs.json}\nengine: {check_invariants: true}\n"},
		{"uneven racks, slots", "cluster: {topology: " + table + "}\nworkload: {trace: job-trace.json}\nengine: {check_invariants: true}\n"},
	} {
		for _, name := range sched.PolicyNames() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				c := writeScenario(t, tc.body+"policy: {name: "+name+"}\n")
				res := mustRun(t, c, nil)
				if s := res.Summary; s.JobsCompleted != s.JobsSubmitted || s.JobsSubmitted == 0 {
					t.Errorf("%d of %d jobs completed; want every one on a cluster of unequal nodes", s.JobsCompleted, s.JobsSubmitted)
				}
			})
		}
	}
}

// TestTopologyFromFiles: racks of any size, and an SLS node's containers
// from its memory and vcores (1024 MB, 1 vcore a container); a node
// without resources takes cluster.containers.
func TestTopologyFromFiles(t *testing.T) {
	c := writeScenario(t, "cluster: {topology: sls-nodes.json, containers: 8}\nworkload: {trace: sls-jobs.json}\npolicy: {name: fifo}\n")
	topo, _, _, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"node1": 8, "node2": 8, "node3": 4, "node4": 16, "node5": 8, "node6": 2}
	for host, n := range want {
		id, ok := topo.NodeByName(host)
		if !ok || topo.Slots(id)[2] != n {
			t.Errorf("%s: %v containers; want %d", host, topo.Slots(id), n)
		}
	}
	if topo.NumRacks() != 2 || topo.TotalSlots()[2] != 46 {
		t.Errorf("%d racks, %d containers; want 2 racks and 46 containers", topo.NumRacks(), topo.TotalSlots()[2])
	}
	// Without a topology, the trace's hosts are the cluster.
	c = writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fifo}\n")
	topo, _, _, err = c.Build()
	if err != nil {
		t.Fatal(err)
	}
	if topo.NumNodes() != 6 || topo.NumRacks() != 2 {
		t.Errorf("trace hosts: %d nodes on %d racks; want the 6 hosts on 2 racks the trace names", topo.NumNodes(), topo.NumRacks())
	}
}

// TestAllocationsPlaceJobsAndShowInSummary: jobs go to queues by the
// file's placement rules, the fair policy takes the file's queues, and the
// summary lists every queue with its name as the file gives it.
func TestAllocationsPlaceJobsAndShowInSummary(t *testing.T) {
	c := writeScenario(t, "cluster: {topology: topology.data, containers: 4}\nworkload: {trace: job-trace.json}\npolicy: {name: fair, allocations: fair-scheduler.xml}\n")
	_, jobs, _, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	pools := map[string]string{}
	for _, j := range jobs {
		pools[j.UserName+"@"+j.Queue] = j.Pool
	}
	for key, want := range map[string]string{"alice@prod.etl": "prod.etl", "carol@dev": "dev", "dave@default": "default"} {
		if pools[key] != want {
			t.Errorf("job of %s in pool %q; want %q (specified, then default)", key, pools[key], want)
		}
	}
	res := mustRun(t, c, nil)
	a := res.Summary.Config.(Effective).Policy.Allocations
	if a == nil || len(a.Queues) != 5 {
		t.Fatalf("summary's allocations %+v; want the file's 5 queues", a)
	}
	if q := a.Queues[1]; q.Name != "etl" || q.Path != "prod.etl" || q.Weight != 3 || q.MinShare != "4096 mb, 4 vcores" {
		t.Errorf("queue %+v; want etl (prod.etl), weight 3, min share as written", q)
	}
}

// TestAllocationLimits pins the running-job limits read from an
// allocation file: Hadoop 1's per pool and poolMaxJobsDefault for the
// rest; YARN's per queue, with queueMaxAppsDefault for every queue
// without its own, parents and root included, as canAppBeRunnable asks
// getQueueMaxApps of each.
func TestAllocationLimits(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       sched.JobLimits
	}{
		{"hadoop 1", `<allocations><pool name="a"><maxRunningJobs>2</maxRunningJobs></pool><pool name="b"/><poolMaxJobsDefault>5</poolMaxJobsDefault></allocations>`,
			sched.JobLimits{Pools: map[string]int{"a": 2}, PoolDefault: 5}},
		{"hadoop 1 without limits", `<allocations><pool name="a"/></allocations>`, sched.JobLimits{}},
		{"yarn", `<allocations><queue name="prod"><maxRunningApps>4</maxRunningApps><queue name="etl"><maxRunningApps>1</maxRunningApps></queue><queue name="adhoc"/></queue></allocations>`,
			sched.JobLimits{Pools: map[string]int{"prod": 4, "prod.etl": 1}}},
		{"yarn default", `<allocations><queue name="prod"><queue name="etl"><maxRunningApps>1</maxRunningApps></queue></queue><queueMaxAppsDefault>3</queueMaxAppsDefault></allocations>`,
			sched.JobLimits{Pools: map[string]int{"root": 3, "prod": 3, "prod.etl": 1}, PoolDefault: 3}},
		{"yarn zero", `<allocations><queue name="prod"><maxRunningApps>0</maxRunningApps></queue></allocations>`, sched.JobLimits{}},
		{"hadoop 1 users", `<allocations><pool name="a"/><user name="sam"><maxRunningJobs>2</maxRunningJobs></user><userMaxJobsDefault>4</userMaxJobsDefault></allocations>`,
			sched.JobLimits{Users: map[string]int{"sam": 2}, UserDefault: 4}},
		{"yarn users", `<allocations><queue name="a"/><user name="sam"><maxRunningApps>2</maxRunningApps></user><user name="kim"><maxRunningJobs>9</maxRunningJobs></user><userMaxAppsDefault>4</userMaxAppsDefault></allocations>`,
			sched.JobLimits{Users: map[string]int{"sam": 2}, UserDefault: 4}},
		{"hadoop 1's defaults in a yarn file", `<allocations><queue name="a"/><poolMaxJobsDefault>3</poolMaxJobsDefault><userMaxJobsDefault>3</userMaxJobsDefault></allocations>`, sched.JobLimits{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustAllocations(t, tc.file)
			if got := allocationLimits(a); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("limits %+v; want %+v", got, tc.want)
			}
			if zero := strings.Contains(strings.Join(a.Warnings, "\n"), "0 would keep the jobs of"); zero != (tc.name == "yarn zero") {
				t.Errorf("warnings %q: a limit of 0, and only that, is named", a.Warnings)
			}
		})
	}
	// The file's limits reach the run: queue dev takes one job at a time.
	dir := t.TempDir()
	testfile.Write(t, filepath.Join(dir, "a.xml"), `<allocations><queue name="dev"><maxRunningApps>1</maxRunningApps></queue><queuePlacementPolicy><rule name="default" queue="dev"/></queuePlacementPolicy></allocations>`)
	c := writeScenario(t, "cluster: {racks: 2, nodes_per_rack: 5}\nworkload: {trace: FB-2009, max_jobs: 200}\npolicy: {name: fair, allocations: "+filepath.Join(dir, "a.xml")+"}\n")
	res := mustRun(t, c, nil)
	lim, _ := res.Summary.Config.(Effective).Policy.Params["job_limits"].(map[string]any)
	if lim == nil || !reflect.DeepEqual(lim["pools"], map[string]int{"dev": 1}) {
		t.Errorf("the run's job_limits %v; want dev's 1", lim)
	}
	if res.Summary.TimeBreakdown.HeldByS[sched.HoldJobLimit] <= 0 {
		t.Errorf("held by %v; want time held by %s: every job goes to dev, one at a time", res.Summary.TimeBreakdown.HeldByS, sched.HoldJobLimit)
	}
}

// TestAllocationTimeouts pins the pools' own preemption timeouts read
// from an allocation file: Hadoop 1's per pool; YARN's per queue, a queue
// without its own taking its nearest parent's.
func TestAllocationTimeouts(t *testing.T) {
	topo := rackOfFour(t, 0)
	for _, tc := range []struct {
		name, file string
		want       map[string][2]float64 // pool: min-share and fair-share timeouts
	}{
		{"hadoop 1", `<allocations><pool name="a"><minSharePreemptionTimeout>30</minSharePreemptionTimeout></pool><pool name="b"/></allocations>`,
			map[string][2]float64{"a": {30, 0}, "b": {0, 0}}},
		{"yarn", `<allocations><queue name="prod"><minSharePreemptionTimeout>20</minSharePreemptionTimeout><fairSharePreemptionTimeout>100</fairSharePreemptionTimeout>` +
			`<queue name="etl"><minSharePreemptionTimeout>5</minSharePreemptionTimeout></queue><queue name="adhoc"/></queue><queue name="dev"/></allocations>`,
			map[string][2]float64{"prod.etl": {5, 100}, "prod.adhoc": {20, 100}, "dev": {0, 0}}},
	} {
		a := mustAllocations(t, tc.file)
		got := map[string][2]float64{}
		for _, pc := range allocationPools(a, topo) {
			got[pc.Name] = [2]float64{pc.MinShareTimeoutS, pc.FairShareTimeoutS}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: timeouts %v; want %v (0: the file-wide ones)", tc.name, got, tc.want)
		}
		if w := strings.Join(a.Warnings, "\n"); strings.Contains(w, "PreemptionTimeout") {
			t.Errorf("%s: warnings %q; the per-queue timeouts are modelled", tc.name, w)
		}
	}
}

// TestAllocationCaps pins the caps on running tasks read from an
// allocation file: Hadoop 1's maxMaps and maxReduces as written; a YARN
// leaf's maxResources as the tasks of 1024 MB that fit whole, at least
// one; none for a queue without one.
func TestAllocationCaps(t *testing.T) {
	topo := rackOfFour(t, 6)
	for _, tc := range []struct {
		name, file string
		want       map[string][3]int // pool: max maps, reduces, containers
	}{
		{"hadoop 1", `<allocations><pool name="a"><maxMaps>5</maxMaps><maxReduces>2</maxReduces></pool><pool name="b"/></allocations>`,
			map[string][3]int{"a": {5, 2, 0}, "b": {0, 0, 0}}},
		{"yarn", `<allocations><queue name="half"><maxResources>50%</maxResources></queue><queue name="mb"><maxResources>5000 mb, 8 vcores</maxResources></queue>` +
			`<queue name="tiny"><maxResources>512 mb, 1 vcores</maxResources></queue><queue name="open"/></allocations>`,
			map[string][3]int{"half": {0, 0, 12}, "mb": {0, 0, 4}, "tiny": {0, 0, 1}, "open": {0, 0, 0}}},
	} {
		a := mustAllocations(t, tc.file)
		got := map[string][3]int{}
		for _, pc := range allocationPools(a, topo) {
			got[pc.Name] = [3]int{pc.MaxMaps, pc.MaxReduces, pc.MaxShare}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: caps %v; want %v (24 containers: 50%% is 12; 5000 mb holds 4 whole 1024 mb tasks; below one task, one)", tc.name, got, tc.want)
		}
	}
	// A parent's maxResources caps its queues' tasks together; root's
	// every task.
	a := mustAllocations(t, `<allocations><queue name="root"><maxResources>75%</maxResources>`+
		`<queue name="prod"><maxResources>25%</maxResources><queue name="a"/><queue name="b"/></queue><queue name="dev"/></queue></allocations>`)
	want := []sched.QueueCap{{Path: "root", MaxShare: 18}, {Path: "prod", MaxShare: 6}}
	if got := queueCaps(a, topo); !reflect.DeepEqual(got, want) {
		t.Errorf("queue caps %+v; want %+v: 75%% and 25%% of 24 containers", got, want)
	}
}

// TestAllocationThresholds pins the fraction of its fair share below
// which a pool is starved, as the cluster's scheduler has it: Hadoop 1's
// half; YARN's defaultFairSharePreemptionThreshold, else 0.5, and a
// queue's own, or its nearest parent's.
func TestAllocationThresholds(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		file0      float64
		pools      map[string]float64
	}{
		{"hadoop 1", `<allocations><pool name="a"/></allocations>`, 0.5, map[string]float64{"a": 0}},
		{"yarn's default", `<allocations><queue name="a"/></allocations>`, 0.5, map[string]float64{"a": 0}},
		{"yarn", `<allocations><queue name="prod"><fairSharePreemptionThreshold>0.3</fairSharePreemptionThreshold><queue name="etl"/></queue><queue name="dev"/>` +
			`<defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold></allocations>`, 0.8, map[string]float64{"prod.etl": 0.3, "dev": 0}},
	} {
		a := mustAllocations(t, tc.file)
		if got := allocationThreshold(a); got != tc.file0 {
			t.Errorf("%s: the file's threshold %v; want %v", tc.name, got, tc.file0)
		}
		for _, q := range a.Queues {
			if want, ok := tc.pools[q.Name]; ok && queueThreshold(a, q) != want {
				t.Errorf("%s: queue %s's threshold %v; want %v (0: the file's)", tc.name, q.Name, queueThreshold(a, q), want)
			}
		}
	}
}

// TestAllocationPreemptableQueues: a YARN queue with allowPreemptionFrom
// false, and every queue below it, keeps its tasks from preemption.
func TestAllocationPreemptableQueues(t *testing.T) {
	topo := rackOfFour(t, 0)
	a := mustAllocations(t, `<allocations><queue name="prod"><allowPreemptionFrom>false</allowPreemptionFrom>`+
		`<queue name="etl"/></queue><queue name="dev"><allowPreemptionFrom>true</allowPreemptionFrom></queue></allocations>`)
	got := map[string]bool{}
	for _, pc := range allocationPools(a, topo) {
		got[pc.Name] = pc.AllowPreemptionFrom == nil || *pc.AllowPreemptionFrom
	}
	if want := map[string]bool{"prod.etl": false, "dev": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("preemptable %v; want %v: prod's false holds below it", got, want)
	}
}

// TestAllocationDefaults pins the settings of the queues placement makes
// and of declared queues without their own: Hadoop 1's
// defaultPoolSchedulingMode; YARN's queueMaxResourcesDefault, a queue's
// maximum where it gives none, or its minimum where that is larger.
func TestAllocationDefaults(t *testing.T) {
	topo := rackOfFour(t, 6)
	for _, tc := range []struct {
		name, file string
		defaults   sched.PoolConfig
		caps       map[string]int // declared pools' max_share
	}{
		{"hadoop 1 fifo", `<allocations><pool name="a"/><defaultPoolSchedulingMode>fifo</defaultPoolSchedulingMode></allocations>`,
			sched.PoolConfig{Mode: "fifo"}, map[string]int{"a": 0}},
		{"yarn max default", `<allocations><queue name="a"/><queue name="b"><minResources>10240 mb, 10 vcores</minResources></queue>` +
			`<queue name="c"><maxResources>2048 mb, 2 vcores</maxResources></queue><queueMaxResourcesDefault>25%</queueMaxResourcesDefault></allocations>`,
			sched.PoolConfig{MaxShare: 6}, map[string]int{"a": 6, "b": 10, "c": 2}},
	} {
		a := mustAllocations(t, tc.file)
		if got := poolDefaults(a, topo); got != tc.defaults {
			t.Errorf("%s: the defaults %+v; want %+v", tc.name, got, tc.defaults)
		}
		got := map[string]int{}
		for _, pc := range allocationPools(a, topo) {
			got[pc.Name] = pc.MaxShare
		}
		if !reflect.DeepEqual(got, tc.caps) {
			t.Errorf("%s: caps %v; want %v (25%% of 24 containers is 6; b's minimum of 10 is larger)", tc.name, got, tc.caps)
		}
		if w := strings.Join(a.Warnings, "\n"); strings.Contains(w, "not modelled") {
			t.Errorf("%s: warnings %q; the defaults are modelled", tc.name, w)
		}
	}
}

func TestOwnClusterBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xml")
	testfile.Write(t, bad, "<allocations>\n<queue name=\"a\"><weight>x</weight></queue></allocations>")
	badTrace := filepath.Join(dir, "bad.json")
	testfile.Write(t, badTrace, "{\"jobID\":\"j\",\n\"submitTime\":\"yesterday\"}")
	for _, tc := range []struct{ body, want string }{
		{"workload: {trace: job-trace.json}\npolicy: {name: fair, allocations: " + bad + "}\n", "bad.xml:2: <weight>"},
		{"workload: {trace: " + badTrace + "}\npolicy: {name: fair}\n", `bad.json:2: job j, field "submitTime"`},
		{"workload: {trace: job-trace.json, format: parquet}\npolicy: {name: fair}\n", "workload.format"},
		{"workload: {trace: job-trace.json}\npolicy: {name: fair, allocations: fair-scheduler.xml, params: {pools: [{name: a}]}}\n", "not both"},
		{"workload: {trace: job-trace.json, source_nodes: 10}\npolicy: {name: fair}\n", "workload.source_nodes"},
		{"workload: {trace: job-trace.json, start_s: 63700, end_s: 64150}\npolicy: {name: fair}\n",
			"workload.start_s, end_s: no jobs: none of the trace's 8 jobs (submitted over 140 s) submits in the window [63700, 64150) s"},
	} {
		c := writeScenario(t, tc.body)
		_, _, _, err := c.Build()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.yaml") {
			t.Errorf("%q: error %v; want one naming s.yaml and %q", tc.body, err, tc.want)
		}
	}
}

// TestNodeGroupsAndRackUplinks: groups give the nodes they name other
// slots and links, per group; racks take their own uplinks; a bad value
// is refused at its line, under its entry's path.
func TestNodeGroupsAndRackUplinks(t *testing.T) {
	c := writeScenario(t, `cluster:
  racks: 2
  nodes_per_rack: 3
  node_groups:
    - {hosts: "r0n*", map_slots: 8, nic_mbps: 1000}
    - {hosts: r1n2, disk_mbps: 100}
  rack_uplinks: {/rack1: 2000}
workload: {trace: FB-2009, max_jobs: 20}
policy: {name: fair}
engine: {check_invariants: true}
`)
	res := mustRun(t, c, nil)
	if s := res.Summary; s.JobsCompleted != 20 {
		t.Errorf("%d jobs completed; want 20", s.JobsCompleted)
	}
	topo, _, _, err := c.Build()
	if err != nil {
		t.Fatal(err)
	}
	caps := topo.LinkCapacities()
	r0n0, _ := topo.NodeByName("r0n0")
	r1n2, _ := topo.NodeByName("r1n2")
	if topo.Slots(r0n0) != [3]int{8, 2, 0} || caps[topo.NICUp(r0n0)] != 1000e6/8 || caps[topo.DiskLink(r1n2)] != 100e6 || caps[topo.UplinkUp(1)] != 2000e6/8 {
		t.Errorf("r0n0 slots %v NIC %v, r1n2 disk %v, rack 1 uplink %v; want the groups' and the rack's own", topo.Slots(r0n0), caps[topo.NICUp(r0n0)], caps[topo.DiskLink(r1n2)], caps[topo.UplinkUp(1)])
	}
	for _, tc := range []struct{ body, want string }{
		{"cluster:\n  node_groups:\n    - {hosts: x, nic_mbps: 0}\nworkload: {trace: FB-2009}\npolicy: {name: fair}\n", "line 3: cluster.node_groups[0].nic_mbps"},
		{"cluster:\n  rack_uplinks: {/rack0: -5}\nworkload: {trace: FB-2009}\npolicy: {name: fair}\n", "cluster.rack_uplinks./rack0"},
		{"cluster:\n  node_groups: [{hosts: nosuch, containers: 2}]\nworkload: {trace: FB-2009}\npolicy: {name: fair}\n", "matches no host"},
	} {
		dir, _ := filepath.Abs("../examples/hadoop")
		c, err := LoadBytes([]byte(tc.body), "s.yaml", dir)
		if err == nil {
			_, _, _, err = c.Build()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v; want one naming %q", tc.body, err, tc.want)
		}
	}
}

// TestAllocationsReachEveryPolicyWithPools: the policies whose
// parameters hold the fair order's pools, directly or inlined, take the
// file's; the others run without them and a warning says so.
func TestAllocationsReachEveryPolicyWithPools(t *testing.T) {
	for _, name := range sched.PolicyNames() {
		c := writeScenario(t, "cluster: {topology: topology.data, containers: 4}\nworkload: {trace: job-trace.json}\npolicy: {name: "+name+", allocations: fair-scheduler.xml}\n")
		res, err := c.Run(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		params := res.Summary.Config.(Effective).Policy.Params
		pools, has := params["pools"].([]map[string]any)
		warned := false
		for _, w := range c.InputWarnings() {
			warned = warned || strings.Contains(w, "policy "+name+" has no pools")
		}
		switch {
		case has && len(pools) != 4:
			t.Errorf("%s: pools %v; want the file's 4 leaf queues", name, pools)
		case !has && !warned:
			t.Errorf("%s: no pools and no warning; a policy the file does not apply to must be named", name)
		}
	}
}

// TestSiteLocalityWaits: a site file's Fair Scheduler locality settings
// set the delay policy's waits unless its parameters do.
func TestSiteLocalityWaits(t *testing.T) {
	site := testfile.Site(t, "mapred-site.xml", "mapred.fairscheduler.locality.delay", "7000")
	for _, tc := range []struct {
		params string
		t1     float64
	}{{"", 7}, {", params: {t1_s: 3}", 3}} {
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: delay, site: "+site+tc.params+"}\n")
		res := mustRun(t, c, nil)
		p := res.Summary.Config.(Effective).Policy.Params
		if p["t1_s"] != tc.t1 || p["t2_s"] != 7.0 {
			t.Errorf("params %q: t1_s %v, t2_s %v; want %v and the site's 7 s", tc.params, p["t1_s"], p["t2_s"], tc.t1)
		}
	}
}

// TestSitePreemption: a site file's preemption switch turns the fair
// policies' preemption on unless the scenario says whether it is on, and
// a policy without preemption is named in a warning.
func TestSitePreemption(t *testing.T) {
	site := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.preemption", " True ")
	for _, tc := range []struct {
		name, policy string
		want         any // the run's preemption.enabled; nil for a policy without it
		why          string
	}{
		{"fair", "{name: fair, site: " + site + "}", true, "the site file turns it on, as in YARN"},
		{"fair, scenario says off", "{name: fair, site: " + site + ", preemption: {enabled: false}}", false, "what the scenario writes wins"},
		{"fair, scenario says off in params", "{name: fair, site: " + site + ", params: {preemption: {enabled: false}}}", false, "the same, written under params"},
		{"fifo", "{name: fifo, site: " + site + "}", nil, "fifo has no preemption: a warning names it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: "+tc.policy+"\n")
			res := mustRun(t, c, nil)
			p := res.Summary.Config.(Effective).Policy.Params
			var got any
			if pre, ok := p["preemption"].(map[string]any); ok {
				got = pre["enabled"]
			}
			if got != tc.want {
				t.Errorf("preemption.enabled %v; want %v: %s", got, tc.want, tc.why)
			}
			warned := strings.Join(c.InputWarnings(), "\n")
			if hasNote := strings.Contains(warned, "has no preemption"); hasNote != (tc.want == nil) {
				t.Errorf("warnings %q; want a note that the policy has no preemption only for a policy without it", warned)
			}
		})
	}
}

// TestSitePreemptionUtilization: a YARN site file that sets preemption
// gates it on the cluster's use, at its threshold or YARN's 0.8; Hadoop
// 1's has no such gate.
func TestSitePreemptionUtilization(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, props string
		want        any
	}{
		{"yarn's default", "<property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>", 0.8},
		{"yarn's own", "<property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>" +
			"<property><name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name><value>0.5</value></property>", 0.5},
		{"hadoop 1", "<property><name>mapred.fairscheduler.preemption</name><value>true</value></property>", nil},
	} {
		site := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".xml")
		testfile.Write(t, site, "<configuration>"+tc.props+"</configuration>")
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+site+"}\n")
		res := mustRun(t, c, nil)
		pre, _ := res.Summary.Config.(Effective).Policy.Params["preemption"].(map[string]any)
		if got := pre["cluster_utilization_threshold"]; got != tc.want {
			t.Errorf("%s: the run's cluster_utilization_threshold %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestSizeBasedWeightReachesTheRun: the cluster's size-based weight,
// written in the scenario or given by a site file (YARN's switch: by
// memory), is every fair policy's, and one the scenario writes stays.
func TestSizeBasedWeightReachesTheRun(t *testing.T) {
	site := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.sizebasedweight", "true")
	for _, tc := range []struct{ policy, want string }{
		{"{name: delay, size_based_weight: tasks}", "tasks"},
		{"{name: fair, site: " + site + "}", "memory"},
		{"{name: fair, site: " + site + ", size_based_weight: none}", ""},
	} {
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: "+tc.policy+"\n")
		res := mustRun(t, c, nil)
		got, _ := res.Summary.Config.(Effective).Policy.Params["size_based_weight"].(string)
		if got != tc.want {
			t.Errorf("policy %s: the run's size_based_weight %q; want %q", tc.policy, got, tc.want)
		}
	}
}

// TestExampleSiteFile: examples/hadoop/yarn-site.xml reads with no
// warning but the note that its nodes' containers replace the slots, and
// gives the run all it sets: waits of half a 1 s heartbeat, preemption
// gated at 80% use, two launches a heartbeat, slow start 0.8, 4
// containers of 4 GB and 4 vcores a node.
func TestExampleSiteFile(t *testing.T) {
	c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: delay, site: yarn-site.xml}\n")
	res := mustRun(t, c, nil)
	if w := c.InputWarnings(); len(w) != 1 || !strings.Contains(w[0], "cluster.containers: 4 a node") {
		t.Errorf("warnings %q; want only the note of the site's containers: the example sets only what the model takes", w)
	}
	if cl := res.Summary.Config.(Effective).Cluster; cl.Containers != 4 || cl.MemoryGB != 4 || cl.CPUCores != 4 {
		t.Errorf("cluster: %d containers, %v GB, %v cores; want the site's 4, 4 and 4", cl.Containers, cl.MemoryGB, cl.CPUCores)
	}
	eff := res.Summary.Config.(Effective)
	p, eng := eff.Policy.Params, eff.Engine
	pre, _ := p["preemption"].(map[string]any)
	if p["t1_s"] != 0.5 || p["t2_s"] != 0.5 || pre["enabled"] != true || pre["cluster_utilization_threshold"] != 0.8 {
		t.Errorf("policy params %v; want waits of 0.5 s and preemption on, gated at 0.8", p)
	}
	if eng.HeartbeatS != 1 || eng.LaunchesPerHeartbeat != 2 || eng.SlowStart == nil || *eng.SlowStart != 0.8 {
		t.Errorf("engine: heartbeat %v s, %d launches, slow start %v; want 1 s, 2 and 0.8", eng.HeartbeatS, eng.LaunchesPerHeartbeat, eng.SlowStart)
	}
}

// TestSiteOfTheOtherModel: a site file of one scheduler beside the other's
// cluster model is named: a YARN file on slots, a Hadoop 1 file on
// containers; a file of the cluster's own model is not.
func TestSiteOfTheOtherModel(t *testing.T) {
	yarn := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.preemption", "true")
	mr1 := testfile.Site(t, "mapred-site.xml", "mapred.fairscheduler.preemption", "true")
	for _, tc := range []struct {
		name, cluster, site, want string
	}{
		{"yarn on slots", "", yarn, "is YARN's, but the cluster runs map and reduce slots"},
		{"yarn on containers", "cluster: {containers: 4}\n", yarn, ""},
		{"hadoop 1 on containers", "cluster: {containers: 4}\n", mr1, "is Hadoop 1's, but the cluster runs containers"},
		{"hadoop 1 on slots", "", mr1, ""},
	} {
		c := writeScenario(t, tc.cluster+"workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+tc.site+"}\n")
		mustRun(t, c, nil)
		w := strings.Join(c.InputWarnings(), "\n")
		if tc.want == "" && strings.Contains(w, "the cluster runs") || !strings.Contains(w, tc.want) {
			t.Errorf("%s: warnings %q; want one holding %q", tc.name, w, tc.want)
		}
	}
}

// TestWithPolicyCopiesShareWarnings: what a comparison's copies of a
// scenario could not apply reaches the scenario's own warnings, which
// compare prints, one warning for the policies that lack the same, named
// in order whichever copy ran first; before, each copy read the files
// again into its own warnings, and the notes were lost.
func TestWithPolicyCopiesShareWarnings(t *testing.T) {
	site := testfile.Site(t, "mapred-site.xml", "mapred.fairscheduler.preemption", "true")
	for _, tc := range []struct {
		policies []string
		want     string
	}{
		{[]string{"td"}, "policy.site: policy td has no preemption; the site file's preemption switch does not apply to it"},
		{[]string{"td", "fifo", "drf", "td"}, "policy.site: policies drf, fifo and td have no preemption; the site file's preemption switch does not apply to them"},
	} {
		base := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+site+"}\n")
		for _, name := range tc.policies {
			mustRun(t, base.WithPolicy(name), nil)
		}
		if got := base.InputWarnings(); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("runs of %v: warnings %q; want only %q", tc.policies, got, tc.want)
		}
	}
}

// TestSitePlacementSettings: a site file's placement settings reach the
// allocation file's placement, and without an allocation file a warning
// says they do not apply.
func TestSitePlacementSettings(t *testing.T) {
	site := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.user-as-default-queue", "false")
	for _, tc := range []struct{ policy, want string }{
		{"{name: fair, site: " + site + "}", "yarn-site.xml:2: yarn.scheduler.fair.user-as-default-queue: read only with an allocation file"},
		{"{name: fair, site: " + site + ", allocations: fair-scheduler.xml}", "yarn-site.xml:2: yarn.scheduler.fair.user-as-default-queue: not read: the allocation file's queuePlacementPolicy places jobs"},
	} {
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: "+tc.policy+"\n")
		mustRun(t, c, nil)
		if got := strings.Join(c.InputWarnings(), "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("policy %s: warnings %q; want one holding %q", tc.policy, got, tc.want)
		}
	}
}

// wantNotApplied checks that c's warnings hold want, or, where want is
// "", name no site setting as not applied.
func wantNotApplied(t *testing.T, c *Config, want string) {
	t.Helper()
	warned := strings.Join(c.InputWarnings(), "\n")
	if want == "" && strings.Contains(warned, "not applied") || !strings.Contains(warned, want) {
		t.Errorf("warnings %q; want one holding %q", warned, want)
	}
}

// TestSiteEngineSettings: a site file's job and node settings (slow
// start, YARN's heartbeat) are the run's where the scenario does not write
// them, over its profile's; one the scenario writes stays, and a warning
// names the site's as not applied.
func TestSiteEngineSettings(t *testing.T) {
	site := testfile.Site(t, "yarn-site.xml", "mapreduce.job.reduce.slowstart.completedmaps", "0.8", "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "500")
	for _, tc := range []struct {
		name, engine string
		slowStart    float64
		heartbeatS   float64
		warning      string
	}{
		{"the site's", "", 0.8, 0.5, ""},
		{"over the profile's", "cluster: {profile: yarn-hdd, containers: 4}\n", 0.8, 0.5, ""},
		{"the scenario's own", "engine: {slow_start: 0.1}\n", 0.1, 0.5, "yarn-site.xml:2: mapreduce.job.reduce.slowstart.completedmaps: not applied: the scenario sets engine.slow_start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+site+"}\n"+tc.engine)
			res := mustRun(t, c, nil)
			eng := res.Summary.Config.(Effective).Engine
			if eng.SlowStart == nil || *eng.SlowStart != tc.slowStart || eng.HeartbeatS != tc.heartbeatS {
				t.Errorf("slow start %v, heartbeat %v s; want %v and %v", eng.SlowStart, eng.HeartbeatS, tc.slowStart, tc.heartbeatS)
			}
			wantNotApplied(t, c, tc.warning)
		})
	}
	// YARN's dynamic max assign, with assignmultiple, in place of the
	// profile's one launch a heartbeat; a scenario's own count, or its
	// own switch, keeps the site's out.
	multi := testfile.Site(t, "yarn-site.xml", "yarn.scheduler.fair.assignmultiple", "true")
	for _, tc := range []struct {
		name, engine string
		launches     int
		dynamic      bool
		warning      string
	}{
		{"dynamic over the profile's one", "", 0, true, ""},
		{"the scenario's count", "engine: {launches_per_heartbeat: 3}\n", 3, false, "yarn-site.xml:2: yarn.scheduler.fair.assignmultiple: not applied: the scenario sets engine.launches_per_heartbeat"},
		{"the scenario's switch", "engine: {dynamic_max_assign: false}\n", 1, false, "not applied: the scenario sets engine.dynamic_max_assign"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, "cluster: {profile: yarn-hdd, containers: 4}\nworkload: {trace: job-trace.json}\npolicy: {name: fair, site: "+multi+"}\n"+tc.engine)
			eng := mustRun(t, c, nil).Summary.Config.(Effective).Engine
			if eng.LaunchesPerHeartbeat != tc.launches || eng.DynamicMaxAssign != tc.dynamic {
				t.Errorf("%d launches a heartbeat, dynamic %v; want %d and %v", eng.LaunchesPerHeartbeat, eng.DynamicMaxAssign, tc.launches, tc.dynamic)
			}
			wantNotApplied(t, c, tc.warning)
		})
	}
	both := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair}\nengine:\n  launches_per_heartbeat: 2\n  dynamic_max_assign: true\n")
	if _, err := both.Run(nil); err == nil || !strings.Contains(err.Error(), "engine.dynamic_max_assign") || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("error %v; want one at line 5 naming engine.dynamic_max_assign: a count of launches and dynamic max assign are one setting", err)
	}

	// The preemption interval: the site's, unless the scenario writes it.
	every := testfile.Site(t, "mapred-site.xml", "mapred.fairscheduler.preemption", "true", "mapred.fairscheduler.preemption.interval", "15000")
	for _, tc := range []struct {
		engine   string
		interval float64
		warning  string
	}{
		{"", 15, ""},
		{"engine: {preemption_interval_s: 2}\n", 2, "mapred-site.xml:3: mapred.fairscheduler.preemption.interval: not applied: the scenario sets engine.preemption_interval_s"},
	} {
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+every+"}\n"+tc.engine)
		if eng := mustRun(t, c, nil).Summary.Config.(Effective).Engine; eng.PreemptionIntervalS != tc.interval {
			t.Errorf("%q: preemption every %v s; want %v", tc.engine, eng.PreemptionIntervalS, tc.interval)
		}
		wantNotApplied(t, c, tc.warning)
	}

	// A YARN node's containers: from the site's NodeManager resources
	// over its map container, unless the scenario writes the cluster's
	// containers or slots; an SLS nodes file's nodes by the site's
	// container too.
	nm := testfile.Site(t, "yarn-site.xml", "yarn.nodemanager.resource.memory-mb", "12288", "mapreduce.map.memory.mb", "2048")
	for _, tc := range []struct {
		name, cluster string
		containers    int
		slots         [2]int
		memoryGB      float64
		warning       string
	}{
		{"the site's", "cluster: {topology: topology.data}\n", 6, [2]int{0, 0}, 12, ""},
		{"the scenario's containers", "cluster: {topology: topology.data, containers: 3}\n", 3, [2]int{0, 0}, 12,
			"yarn-site.xml:2: yarn.nodemanager.resource.memory-mb: not applied: the scenario sets cluster.containers"},
		{"the scenario's slots", "cluster: {topology: topology.data, map_slots: 2}\n", 0, [2]int{2, 2}, 12, "not applied: the scenario sets cluster.map_slots"},
		{"the scenario's memory", "cluster: {topology: topology.data, memory_gb: 64}\n", 6, [2]int{0, 0}, 64, "not applied: the scenario sets cluster.memory_gb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, tc.cluster+"workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+nm+"}\n")
			cl := mustRun(t, c, nil).Summary.Config.(Effective).Cluster
			if cl.Containers != tc.containers || cl.MapSlots != tc.slots[0] || cl.ReduceSlots != tc.slots[1] || cl.MemoryGB != tc.memoryGB {
				t.Errorf("%d containers, %d and %d slots, %v GB; want %d, %v, %v GB", cl.Containers, cl.MapSlots, cl.ReduceSlots, cl.MemoryGB, tc.containers, tc.slots, tc.memoryGB)
			}
			wantNotApplied(t, c, tc.warning)
		})
	}
	// A Hadoop 1 TaskTracker's slots: from mapred-site.xml, unless the
	// scenario writes them, or runs containers.
	tt := testfile.Site(t, "mapred-site.xml", "mapred.tasktracker.map.tasks.maximum", "6", "mapred.tasktracker.reduce.tasks.maximum", "3")
	for _, tc := range []struct {
		name, cluster string
		slots         [2]int
		containers    int
		warning       string
	}{
		{"the site's", "cluster: {topology: topology.data}\n", [2]int{6, 3}, 0, ""},
		{"the scenario's map slots", "cluster: {topology: topology.data, map_slots: 2}\n", [2]int{2, 3}, 0,
			"mapred-site.xml:2: mapred.tasktracker.map.tasks.maximum: not applied: the scenario sets cluster.map_slots"},
		{"the scenario's containers", "cluster: {topology: topology.data, containers: 4}\n", [2]int{0, 0}, 4,
			"mapred-site.xml:3: mapred.tasktracker.reduce.tasks.maximum: not applied: the scenario sets cluster.containers"},
	} {
		t.Run("tasktracker, "+tc.name, func(t *testing.T) {
			c := writeScenario(t, tc.cluster+"workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+tt+"}\n")
			cl := mustRun(t, c, nil).Summary.Config.(Effective).Cluster
			if cl.MapSlots != tc.slots[0] || cl.ReduceSlots != tc.slots[1] || cl.Containers != tc.containers {
				t.Errorf("%d and %d slots, %d containers; want %v and %d: mapred.tasktracker.*.tasks.maximum are a node's slots", cl.MapSlots, cl.ReduceSlots, cl.Containers, tc.slots, tc.containers)
			}
			wantNotApplied(t, c, tc.warning)
		})
	}
	for _, v := range []string{"0", "x", "2.5"} {
		c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+testfile.Site(t, "mapred-site.xml", "mapred.tasktracker.map.tasks.maximum", v)+"}\n")
		if _, err := c.Run(nil); err == nil || !strings.Contains(err.Error(), "mapred-site.xml:2") {
			t.Errorf("map slots %q: %v; want an error at the property's line", v, err)
		}
	}

	// A reduce's shuffle buffer from the heap the site's java options
	// give, under a profile that models reduce merges.
	heap := testfile.Site(t, "mapred-site.xml", "mapred.child.java.opts", "-Xmx512m")
	if eng := mustRun(t, writeScenario(t, "cluster: {profile: hadoop1-hdd}\nworkload: {trace: job-trace.json}\npolicy: {name: fair, site: "+heap+"}\n"), nil).Summary.Config.(Effective).Engine; eng.ReduceBufferMB != 512*0.7 {
		t.Errorf("-Xmx512m: a reduce's shuffle buffer of %v MB; want 358.4, 0.70 of the heap", eng.ReduceBufferMB)
	}

	// Hadoop 1 without the out-of-band heartbeat: freed slots wait for
	// the node's next heartbeat.
	oob := testfile.Site(t, "mapred-site.xml", "mapreduce.tasktracker.outofband.heartbeat", "false")
	if eng := mustRun(t, writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+oob+"}\n"), nil).Summary.Config.(Effective).Engine; !eng.HeartbeatOffersOnly {
		t.Errorf("mapreduce.tasktracker.outofband.heartbeat false: heartbeat offers only %v; want true", eng.HeartbeatOffersOnly)
	}

	// A map's sort buffer and the merge factor: the run's where it models
	// spills and merges (a profile that does), named as not applied where
	// it does not, and kept out by the scenario's own.
	sort := testfile.Site(t, "mapred-site.xml", "io.sort.mb", "256", "mapreduce.task.io.sort.factor", "50")
	for _, tc := range []struct {
		name, cluster, engine string
		buffer                float64
		factor                int
		warning               string
	}{
		{"under a profile that spills", "cluster: {profile: hadoop1-hdd}\n", "", 256, 50, ""},
		{"in the fluid model", "", "", 0, 0, "mapred-site.xml:2: io.sort.mb: not applied: the run models no map spills or merges"},
		{"the scenario's buffer", "cluster: {profile: hadoop1-hdd}\n", "engine: {sort_buffer_mb: 64}\n", 64, 50, "io.sort.mb: not applied: the scenario sets engine.sort_buffer_mb"},
	} {
		t.Run("sort buffer, "+tc.name, func(t *testing.T) {
			c := writeScenario(t, tc.cluster+tc.engine+"workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+sort+"}\n")
			eng := mustRun(t, c, nil).Summary.Config.(Effective).Engine
			if eng.SortBufferMB != tc.buffer || eng.MergeFactor != tc.factor {
				t.Errorf("sort buffer %v MB, merge factor %d; want %v and %d", eng.SortBufferMB, eng.MergeFactor, tc.buffer, tc.factor)
			}
			wantNotApplied(t, c, tc.warning)
		})
	}

	// The embedded default, whose slots are its defaults, takes them
	// (compare -site on no scenario file).
	d := Default()
	d.Policy.Site = nm
	if err := d.checkSettings(); err != nil || !d.ContainerModel() || d.Cluster.Containers != 6 {
		t.Errorf("the default with the site: %v, %d containers; want 6 a node, in place of its slots", err, d.Cluster.Containers)
	}
	if _, err := d.Topology(); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(d.InputWarnings(), "\n"); !strings.Contains(w, "cluster.containers: 6 a node, from "+nm+":2 (yarn.nodemanager.resource.memory-mb): the container model, in place of map and reduce slots") {
		t.Errorf("warnings %q; want the change from slots to the site's containers named", w)
	}
	sls := writeScenario(t, "cluster: {topology: sls-nodes.json}\nworkload: {trace: sls-jobs.json}\npolicy: {name: fair, site: "+nm+"}\n")
	topo, err := sls.Topology()
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for n := range topo.NumNodes() {
		got = append(got, topo.Slots(cluster.NodeID(n))[sched.AnySlot])
	}
	// node1-3: 8192, 8192 and 4096 MB over 2048; node4's 16384 MB;
	// node5 without resources takes the site's 6; node6's 2 vcores bind.
	if want := []int{4, 4, 2, 8, 6, 2}; !slices.Equal(got, want) {
		t.Errorf("containers by node %v; want %v: each node's memory over the site's 2048 MB container", got, want)
	}

	// A site's value the engine refuses is an error naming the site's
	// property, where the scenario's own would name its line.
	bad := testfile.Site(t, "yarn-site.xml", "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "100000000000")
	c := writeScenario(t, "workload: {trace: job-trace.json}\npolicy: {name: fair, site: "+bad+"}\n")
	if _, err := c.Run(nil); err == nil || !strings.Contains(err.Error(), "engine.heartbeat_s") || !strings.Contains(err.Error(), "yarn-site.xml:2: yarn.resourcemanager.nodemanagers.heartbeat-interval-ms") {
		t.Errorf("error %v; want one naming engine.heartbeat_s and the site file's property at its line", err)
	}
}

// TestHistoryExamples: the example job histories replay on the example
// topology under the allocation file of their scheduler, each job in the
// queue or pool its history and configuration give it:
// examples/hadoop/history, a YARN JobHistory done directory, in
// containers under the YARN file, each job in its recorded queue; and
// examples/hadoop/history-mr1, Hadoop 1 JobTracker histories with their
// _conf.xml, on slots under the Hadoop 1 file, as PoolManager.getPoolName
// places them: the first job names its pool (mapred.fairscheduler.pool);
// the second goes to its user's pool by default, and to the pool its
// pool.name property names (${team}, dev) under the example
// mapred-site.xml's poolnameproperty.
func TestHistoryExamples(t *testing.T) {
	for _, tc := range []struct {
		name, trace, cluster, policy string
		pools                        []string
	}{
		{"yarn", "history", "{topology: topology.data, containers: 4}", "name: fair, allocations: fair-scheduler.xml", []string{"prod.etl", "prod.adhoc", "dev"}},
		{"hadoop 1", "history-mr1", "{topology: topology.data}", "name: fair, allocations: mr1-fair-scheduler.xml", []string{"prod.etl", "dave"}},
		{"hadoop 1, pools by pool.name", "history-mr1", "{topology: topology.data}", "name: delay, allocations: mr1-fair-scheduler.xml, site: mapred-site.xml", []string{"prod.etl", "dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, "cluster: "+tc.cluster+"\nworkload: {trace: "+tc.trace+"}\nengine: {check_invariants: true}\npolicy: {"+tc.policy+"}\n")
			res, err := c.Run(nil)
			if err != nil {
				t.Fatal(err)
			}
			if s := res.Summary; s.JobsCompleted != len(tc.pools) || s.JobsSubmitted != len(tc.pools) {
				t.Errorf("%d of %d jobs completed; want the histories' %d", s.JobsCompleted, s.JobsSubmitted, len(tc.pools))
			}
			var pools []string
			for _, r := range res.Collector.Jobs() {
				pools = append(pools, r.Pool)
			}
			if !slices.Equal(pools, tc.pools) {
				t.Errorf("pools %q; want %q, the queues the histories record", pools, tc.pools)
			}
			if w := c.InputWarnings(); len(w) != 0 {
				t.Errorf("warnings %q; want none: the files are in formats the readers know whole, every split on a node of the topology", w)
			}
		})
	}
	// A trace that records no job configuration cannot say a job's
	// pool.name: the jobs go where PoolFor puts them, and a warning says
	// how many.
	c := writeScenario(t, "cluster: {topology: topology.data}\nworkload: {trace: job-trace.json}\npolicy: {name: delay, allocations: mr1-fair-scheduler.xml, site: mapred-site.xml}\n")
	mustRun(t, c, nil)
	site, err := os.ReadFile("../examples/hadoop/mapred-site.xml")
	if err != nil {
		t.Fatal(err)
	}
	line := slices.IndexFunc(strings.Split(string(site), "\n"), func(l string) bool { return strings.Contains(l, ">mapred.fairscheduler.poolnameproperty<") }) + 1
	wantNotApplied(t, c, fmt.Sprintf(`mapred-site.xml:%d: mapred.fairscheduler.poolnameproperty: "pool.name": 8 of 8 jobs' traces record no job configuration`, line))
}

// TestHadoopExamplesRun: the example scenarios of examples/hadoop run,
// every job completing with the engine's invariants on.
func TestHadoopExamplesRun(t *testing.T) {
	for _, f := range []string{"../examples/hadoop/mycluster.yaml", "../examples/hadoop/sls.yaml"} {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Run(nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if s := res.Summary; s.JobsCompleted != s.JobsSubmitted || s.JobsSubmitted == 0 {
			t.Errorf("%s: %d of %d jobs; want all", f, s.JobsCompleted, s.JobsSubmitted)
		}
	}
}

// TestTraceHostsTheClusterLacks: a trace's preferred locations on hosts
// the cluster has no node for are placed by HDFS's rule, and a warning
// names them, the topology and the maps they touch, so that a topology
// of another cluster, or a table of names beside a trace of addresses,
// does not lose the trace's locality without a word.
func TestTraceHostsTheClusterLacks(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.data")
	testfile.Write(t, other, "h1 /r1\nh2 /r1\nh3 /r2\n")
	// The example trace with its hosts named by address: the example
	// table gives addresses a rack, and no node, beside its names.
	trace, err := os.ReadFile("../examples/hadoop/job-trace.json")
	if err != nil {
		t.Fatal(err)
	}
	byAddress := filepath.Join(dir, "by-address.json")
	testfile.Write(t, byAddress, regexp.MustCompile(`"node(\d)"`).ReplaceAllString(string(trace), `"10.1.0.$1"`))
	for _, tc := range []struct {
		name, scenario string
		want           string // "" for no such warning
	}{
		{"the example's own table", "cluster: {topology: topology.data}\nworkload: {trace: job-trace.json}\n", ""},
		{"the trace's hosts as the cluster", "workload: {trace: job-trace.json}\n", ""},
		{"another cluster's table", "cluster: {topology: " + other + "}\nworkload: {trace: job-trace.json}\n",
			"workload.trace: 6 hosts the trace puts map inputs on are not nodes of cluster.topology's " + other + " (node6, node1, node5 and 3 more); the replicas it names there, for 30 maps, are placed by HDFS's rule"},
		{"racks of the scenario's own", "cluster: {racks: 2, nodes_per_rack: 3}\nworkload: {trace: job-trace.json}\n",
			"6 hosts the trace puts map inputs on are not nodes of the cluster of cluster.racks x cluster.nodes_per_rack"},
		{"a trace of addresses beside a table of names", "cluster: {topology: topology.data}\nworkload: {trace: " + byAddress + "}\n",
			"(10.1.0.6, 10.1.0.1, 10.1.0.5 and 3 more); the replicas it names there, for 30 maps, are placed by HDFS's rule; 6 of the names are addresses the file gives a rack and no node, since it names its hosts by name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := writeScenario(t, tc.scenario+"policy: {name: fifo}\n")
			mustRun(t, c, nil)
			warned := strings.Join(c.InputWarnings(), "\n")
			if tc.want == "" && strings.Contains(warned, "workload.trace: ") {
				t.Errorf("warnings %q; want none about the trace's hosts, every one of which is a node", warned)
			}
			if tc.want != "" && !strings.Contains(warned, tc.want) {
				t.Errorf("warnings %q; want one holding %q: those hosts' replicas cannot be where the trace says", warned, tc.want)
			}
		})
	}
}

// TestGzippedInputs: a gzip-compressed trace or topology, as Rumen writes
// one when its output's name ends in .gz, runs as the same file
// uncompressed does, whatever its name: Rumen, JobHistory, SLS and SWIM
// traces, and table, Rumen and SLS topologies.
func TestGzippedInputs(t *testing.T) {
	dir := t.TempDir()
	gzipped := func(src, name string) string {
		t.Helper()
		body, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		testfile.Write(t, path, testfile.Gzip(t, body))
		return path
	}
	hadoop := func(f string) string { return filepath.Join("../examples/hadoop", f) }
	swim := "FB-2009_samples_24_times_1hr_0.tsv"
	for _, tc := range []struct{ name, plain, gz string }{
		{"rumen trace, table",
			"cluster: {topology: topology.data}\nworkload: {trace: job-trace.json}\n",
			"cluster: {topology: " + gzipped(hadoop("topology.data"), "topology") + "}\nworkload: {trace: " + gzipped(hadoop("job-trace.json"), "job-trace.json.gz") + "}\n"},
		{"rumen topology",
			"cluster: {topology: topology.json}\nworkload: {trace: job-trace.json}\n",
			"cluster: {topology: " + gzipped(hadoop("topology.json"), "topology.json.gz") + "}\nworkload: {trace: job-trace.json}\n"},
		{"sls jobs and nodes",
			"cluster: {topology: sls-nodes.json, containers: 8}\nworkload: {trace: sls-jobs.json}\n",
			"cluster: {topology: " + gzipped(hadoop("sls-nodes.json"), "sls-nodes.json.gz") + ", containers: 8}\nworkload: {trace: " + gzipped(hadoop("sls-jobs.json"), "sls-jobs.json.gz") + "}\n"},
		{"a jhist file",
			"workload: {trace: history/job_1700000100000_0003-1700000130000-carol-wordcount-1700000142600-1-1-SUCCEEDED-root.dev-1700000131500.jhist}\n",
			"workload: {trace: " + gzipped(hadoop("history/job_1700000100000_0003-1700000130000-carol-wordcount-1700000142600-1-1-SUCCEEDED-root.dev-1700000131500.jhist"), "one.jhist.gz") + "}\n"},
		{"swim",
			"workload: {trace: ../../traces/" + swim + ", max_jobs: 40, source_nodes: 600}\n",
			"workload: {trace: " + gzipped(filepath.Join("../traces", swim), "fb.tsv.gz") + ", max_jobs: 40, source_nodes: 600}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sums [2]string
			for i, body := range []string{tc.plain, tc.gz} {
				c := writeScenario(t, body+"policy: {name: fair}\n")
				topo, err := c.Topology()
				if err != nil {
					t.Fatal(err)
				}
				s := mustRun(t, c, nil).Summary
				sums[i] = fmt.Sprintf("%d/%d jobs, mean turnaround %.6f s, %d nodes in %d racks", s.JobsCompleted, s.JobsSubmitted, s.Turnaround.Mean, topo.NumNodes(), topo.NumRacks())
			}
			if sums[0] != sums[1] || strings.HasPrefix(sums[0], "0/") {
				t.Errorf("compressed: %s; want what the plain files give: %s", sums[1], sums[0])
			}
		})
	}
}
