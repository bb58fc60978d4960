package allocations

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/realinputs"
	"github.com/mrsched/mrsched/sched"
)

// hadoop1 is a Hadoop 1 allocation file written from the Fair Scheduler's
// documentation (fair_scheduler.html of Hadoop 1.2.1): every pool setting
// and every top-level one.
const hadoop1 = `<?xml version="1.0"?>
<allocations>
  <pool name="research">
    <minMaps>5</minMaps>
    <minReduces>3</minReduces>
    <maxMaps>25</maxMaps>
    <maxReduces>20</maxReduces>
    <maxRunningJobs>10</maxRunningJobs>
    <weight>2.0</weight>
    <schedulingMode>fifo</schedulingMode>
    <minSharePreemptionTimeout>300</minSharePreemptionTimeout>
  </pool>
  <pool name="ads"/>
  <user name="sam"><maxRunningJobs>6</maxRunningJobs></user>
  <poolMaxJobsDefault>20</poolMaxJobsDefault>
  <userMaxJobsDefault>3</userMaxJobsDefault>
  <fairSharePreemptionTimeout>600</fairSharePreemptionTimeout>
  <defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
</allocations>`

func TestHadoop1(t *testing.T) {
	c, err := Parse(strings.NewReader(hadoop1), "h1.xml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != Hadoop1 || len(c.Queues) != 2 {
		t.Fatalf("kind %s with %d pools; want hadoop1 with 2", c.Kind, len(c.Queues))
	}
	r := c.Queues[0]
	if r.Name != "research" || r.MinMaps != 5 || r.MinReduces != 3 || r.MaxMaps != 25 || r.MaxReduces != 20 || r.MaxRunning != 10 ||
		r.Weight != 2 || r.Mode != "fifo" || r.MinSharePreemptionTimeoutS != 300 {
		t.Errorf("pool %+v; want every setting as written", r)
	}
	if a := c.Queues[1]; a.Weight != 1 || a.Mode != "fair" {
		t.Errorf("pool ads %+v; want the defaults, weight 1 and fair", a)
	}
	if c.UserMaxRunning["sam"] != 6 || c.PoolMaxJobsDefault != 20 || c.UserMaxJobsDefault != 3 ||
		c.FairSharePreemptionTimeoutS != 600 || c.DefaultMinSharePreemptionTimeoutS != 120 {
		t.Errorf("top-level settings %+v; want them as written", c)
	}
	// Every setting of the file is modelled (caps, running-job limits,
	// a pool's own timeout): nothing to warn of.
	if len(c.Warnings) > 0 {
		t.Errorf("warnings %q; want none: the file sets nothing the model lacks", c.Warnings)
	}
	for _, tc := range []struct{ user, queue, want string }{
		{"alice", "research", "research"}, // the queue names a declared pool
		{"alice", "default", "alice"},     // else the user's pool (poolnameproperty user.name)
		{"", "", "default"},
	} {
		if got, err := c.PoolFor(tc.user, tc.queue); err != nil || got != tc.want {
			t.Errorf("PoolFor(%q, %q) = %q, %v; want %q", tc.user, tc.queue, got, err, tc.want)
		}
	}
}

// yarn is a YARN allocation file after FairScheduler.md's example: nested
// queues, every resource-string form, and a placement policy.
const yarn = `<?xml version="1.0"?>
<allocations>
  <queue name="prod">
    <weight>3</weight>
    <minResources>10240 mb, 10 vcores</minResources>
    <maxResources>90%</maxResources>
    <schedulingPolicy>drf</schedulingPolicy>
    <queue name="etl">
      <minResources>vcores=2, memory-mb=4096</minResources>
      <maxResources>memory-mb=50%, vcores=50%</maxResources>
      <maxRunningApps>5</maxRunningApps>
    </queue>
    <queue name="adhoc">
      <maxResources>40% memory, 60% cpu</maxResources>
      <schedulingPolicy>fifo</schedulingPolicy>
    </queue>
  </queue>
  <queue name="dev">
    <minResources>2048.7mb,1vcores</minResources>
    <maxResources>vcores=4</maxResources>
    <fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold>
  </queue>
  <defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="primaryGroup" create="false"/>
    <rule name="nestedUserQueue"><rule name="default" queue="dev"/></rule>
    <rule name="default" queue="prod.adhoc"/>
  </queuePlacementPolicy>
</allocations>`

func TestYARNQueuesAndResources(t *testing.T) {
	c, err := Parse(strings.NewReader(yarn), "y.xml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != YARN {
		t.Fatalf("kind %s; want yarn", c.Kind)
	}
	names := []string{}
	for _, q := range c.Queues {
		names = append(names, q.Name)
	}
	if got := strings.Join(names, " "); got != "prod prod.etl prod.adhoc dev" {
		t.Errorf("queues %s; want the tree in file order, nested names dotted", got)
	}
	for _, tc := range []struct {
		queue string
		min   bool
		want  Resource
	}{
		{"prod", true, Resource{MemoryMB: 10240, VCores: 10}},
		{"prod", false, Resource{MemoryMB: 0.9, VCores: 0.9, Percent: true}},
		{"prod.etl", true, Resource{MemoryMB: 4096, VCores: 2}},
		{"prod.etl", false, Resource{MemoryMB: 0.5, VCores: 0.5, Percent: true}},
		{"prod.adhoc", false, Resource{MemoryMB: 0.4, VCores: 0.6, Percent: true}},
		{"dev", true, Resource{MemoryMB: 2048, VCores: 1}},
		{"dev", false, Resource{VCores: 4, MemUnset: true}},
	} {
		q := c.Queue(tc.queue)
		r := q.MaxResources
		if tc.min {
			r = q.MinResources
		}
		got := *r
		got.Text = ""
		if math.Abs(got.MemoryMB-tc.want.MemoryMB) > 1e-12 || math.Abs(got.VCores-tc.want.VCores) > 1e-12 ||
			got.Percent != tc.want.Percent || got.MemUnset != tc.want.MemUnset || got.CPUUnset != tc.want.CPUUnset {
			t.Errorf("%s %s (%q) read as %+v; want %+v", tc.queue, map[bool]string{true: "min", false: "max"}[tc.min], r.Text, got, tc.want)
		}
	}
	if c.Queue("prod").Mode != "drf" || c.Queue("prod.adhoc").Mode != "fifo" || c.Queue("dev").Mode != "fair" {
		t.Errorf("policies %s %s %s; want drf, fifo and the default fair", c.Queue("prod").Mode, c.Queue("prod.adhoc").Mode, c.Queue("dev").Mode)
	}
	for _, tc := range []struct{ user, queue, want string }{
		{"ann", "prod.etl", "prod.etl"},      // specified, and declared
		{"ann", "root.prod.etl", "prod.etl"}, // "root." is optional
		{"ann", "nosuch", "dev.ann"},         // specified may not create: nested user queue under default's dev
		{"a.b", "default", "dev.a_dot_b"},    // "default" is unspecified; a '.' in a user name becomes _dot_
		{"", "", "prod.adhoc"},               // no user: the last rule
	} {
		if got, err := c.PoolFor(tc.user, tc.queue); err != nil || got != tc.want {
			t.Errorf("PoolFor(%q, %q) = %q, %v; want %q", tc.user, tc.queue, got, err, tc.want)
		}
	}
	if _, err := c.PoolFor("ann", "prod"); err == nil || !strings.Contains(err.Error(), "parent queue") {
		t.Errorf("placing in a parent queue: %v; want an error saying jobs run in leaf queues", err)
	}
}

func TestYARNDefaultPlacement(t *testing.T) {
	c, err := Parse(strings.NewReader(`<allocations><queue name="a"/></allocations>`), "y.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ user, queue, want string }{{"u", "a", "a"}, {"u", "b", "b"}, {"u", "default", "u"}, {"u", "", "u"}} {
		if got, err := c.PoolFor(tc.user, tc.queue); err != nil || got != tc.want {
			t.Errorf("PoolFor(%q, %q) = %q, %v; want %q (specified, then the user's queue, both created)", tc.user, tc.queue, got, err, tc.want)
		}
	}
	c, _ = Parse(strings.NewReader(`<allocations><queue name="a"/><queuePlacementPolicy><rule name="specified" create="false"/><rule name="reject"/></queuePlacementPolicy></allocations>`), "y.xml")
	if _, err := c.PoolFor("u", "b"); err == nil || !strings.Contains(err.Error(), "reject") {
		t.Errorf("reject rule: %v; want an error naming it", err)
	}
}

func TestBadInputNamesLineAndElement(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<allocations>\n<pool name=\"a\">\n<weight>heavy</weight></pool></allocations>", "f.xml:3: <weight>"},
		{"<allocations>\n<queue name=\"a\">\n<minResources>10 mb</minResources></queue></allocations>", "f.xml:3: <minResources>"},
		{"<allocations>\n<queue name=\"a\"><maxResources>memory-mb=-5</maxResources></queue></allocations>", "f.xml:2: <maxResources>"},
		{"<allocations>\n<queue name=\"a\"><maxResources>memory-mb=50%, vcores=2</maxResources></queue></allocations>", "percentage"},
		// ParseFloat takes these; they ran as shares no queue can have.
		{"<allocations>\n<queue name=\"a\"><maxResources>memory-mb=nan%, vcores=50%</maxResources></queue></allocations>", "f.xml:2: <maxResources>"},
		{"<allocations>\n<queue name=\"a\"><maxResources>memory-mb=inf%, vcores=50%</maxResources></queue></allocations>", "f.xml:2: <maxResources>"},
		{"<allocations><pool name=\"a\"><schedulingMode>lottery</schedulingMode></pool></allocations>", "want fair or fifo"},
		// Hadoop reads a timeout with Long.parseLong and fails on a fraction.
		{"<allocations>\n<pool name=\"a\"><minSharePreemptionTimeout>30.5</minSharePreemptionTimeout></pool></allocations>", "f.xml:2: <minSharePreemptionTimeout>"},
		{"<allocations>\n<fairSharePreemptionTimeout>-1</fairSharePreemptionTimeout></allocations>", "want whole seconds"},
		{"<allocations><queue name=\"a\"/><defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy></allocations>", "refuses fifo as the default policy"},
		{"<allocations><queue name=\"a\"/><defaultQueueSchedulingMode>FIFO</defaultQueueSchedulingMode></allocations>", "refuses fifo as the default policy"},
		{"<allocations><pool><weight>1</weight></pool></allocations>", "without its name"},
		{"<allocations><queue name=\"a\"/><queue name=\"a\"/></allocations>", "declared twice"},
		{"<configuration/>", "want <allocations>"},
		{"<allocations><pool name=\"a\">", "f.xml:1"},
		{"<allocations><queuePlacementPolicy><rule name=\"guess\"/></queuePlacementPolicy><queue name=\"q\"/></allocations>", "unknown placement rule"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "f.xml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v; want one containing %q", tc.in, err, tc.want)
		}
	}
}

// TestPreemptionValuesWarned pins the preemption settings the model
// reads otherwise than the scheduler: each is named at its line.
func TestPreemptionValuesWarned(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
		warning  string
	}{
		{"hadoop 1 pool timeout 0", `<pool name="a"><minSharePreemptionTimeout>0</minSharePreemptionTimeout></pool>`, 3,
			"<minSharePreemptionTimeout> 0 preempts as soon as a pool is starved, which is not modelled"},
		{"yarn default timeout 0", `<queue name="a"/><defaultMinSharePreemptionTimeout>0</defaultMinSharePreemptionTimeout>`, 3,
			"<defaultMinSharePreemptionTimeout> 0 preempts as soon"},
		{"yarn threshold 0", `<queue name="a"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold></queue>`, 3,
			"0 turns fair-share preemption off"},
		{"yarn threshold above 1", `<queue name="a"/><defaultFairSharePreemptionThreshold>1.5</defaultFairSharePreemptionThreshold>`, 3,
			"1.5 is above 1, which YARN reads as 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader("<allocations>\n\n"+tc.in+"\n</allocations>"), "f.xml")
			if err != nil {
				t.Fatalf("%v; want the file read, with a warning", err)
			}
			want := fmt.Sprintf("f.xml:%d: ", tc.line)
			if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], want) || !strings.Contains(c.Warnings[0], tc.warning) {
				t.Errorf("warnings %q; want one at %q holding %q", c.Warnings, want, tc.warning)
			}
		})
	}
}

// TestTwoLevelFairShare checks a hand computation on a two-level tree of
// 100 containers: root has a (weight 1) and b (weight 3); a has a1 and a2
// (weights 1, a2 with a minimum of 20 containers); b has b1.
// Level 1: R x 1 + R x 3 = 100, so a gets 25 and b 75. Level 2 under a:
// R + max(R, 20) = 25 gives R = 5: a1 5, a2 20. b1 gets b's 75. Flat, the
// three leaves of weight 1 would get 26.7, 26.7 and 46.7 (a2's minimum
// first); the tree is not flattened.
func TestTwoLevelFairShare(t *testing.T) {
	c, err := Parse(strings.NewReader(`<allocations>
  <queue name="a"><weight>1</weight>
    <queue name="a1"/>
    <queue name="a2"><minResources>20480 mb, 20 vcores</minResources></queue>
  </queue>
  <queue name="b"><weight>3</weight><queue name="b1"/></queue>
</allocations>`), "tree.xml")
	if err != nil {
		t.Fatal(err)
	}
	tree := c.Tree(Units{TaskMemoryMB: 1024})
	pools := []string{"a.a1", "a.a2", "b.b1"}
	reqs := make([]sched.ShareRequest, len(pools))
	for i, p := range pools {
		q := c.Queue(p)
		reqs[i] = sched.ShareRequest{Demand: 100, Weight: q.Weight, MinShare: Units{TaskMemoryMB: 1024}.Slots(q.MinResources, 100, false)}
	}
	got := tree.PoolShares(nil, 100, pools, reqs)
	want := []float64{5, 20, 75}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("%s's share %v; want %v (hand-computed down the tree)", pools[i], got[i], want[i])
		}
	}
	// Only b's leaf active: b takes everything, a inactive gets nothing.
	got = tree.PoolShares(nil, 100, []string{"b.b1"}, reqs[2:])
	if math.Abs(got[0]-100) > 1e-9 {
		t.Errorf("b.b1 alone gets %v; want all 100 (inactive queues get no share)", got[0])
	}
	// An undeclared leaf hangs under the queue its name says.
	got = tree.PoolShares(nil, 100, []string{"a.zed", "b.b1"}, []sched.ShareRequest{{Weight: 1}, {Weight: 1}})
	if math.Abs(got[0]-25) > 1e-9 || math.Abs(got[1]-75) > 1e-9 {
		t.Errorf("a.zed and b.b1 get %v; want 25 and 75: a.zed is a's child", got)
	}
}

func TestComputeSharesMaxAndWeights(t *testing.T) {
	for _, tc := range []struct {
		name           string
		total          float64
		ws, mins, maxs []float64
		want           []float64
	}{
		{"weights", 60, []float64{1, 2}, []float64{0, 0}, []float64{inf, inf}, []float64{20, 40}},
		{"a maximum caps, the rest flows on", 60, []float64{1, 1}, []float64{0, 0}, []float64{10, inf}, []float64{10, 50}},
		{"all capped: total unused", 60, []float64{1, 1}, []float64{0, 0}, []float64{10, 5}, []float64{10, 5}},
		{"weight 0 gets its minimum", 60, []float64{0, 1}, []float64{7, 0}, []float64{inf, inf}, []float64{7, 53}},
		{"maximum 0 gets nothing", 60, []float64{1, 1}, []float64{5, 0}, []float64{0, inf}, []float64{0, 60}},
	} {
		got := ComputeShares(tc.total, tc.ws, tc.mins, tc.maxs)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%s: shares %v; want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

var inf = math.Inf(1)

func TestRealAllocationFiles(t *testing.T) {
	dir := realinputs.Dir(t)
	c, err := Load(filepath.Join(dir, "yarn-fair-scheduler-allocation.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != YARN || len(c.Queues) != 3 || c.Queues[2].Name != "sls_queue_3" || c.Queues[2].Weight != 0.5 ||
		c.Queues[0].MinResources.MemoryMB != 1024 || c.Queues[0].MinResources.VCores != 1 || len(c.UserMaxRunning) != 0 || c.UserMaxJobsDefault != 1000 {
		t.Errorf("YARN file: %+v; want 3 queues (sls_queue_3 weight 0.5), min 1024 mb 1 vcores, userMaxAppsDefault 1000, and no limit of jenkins's own (YARN reads maxRunningApps under <user>, not the file's maxRunningJobs)", c)
	}
	c, err = Load(filepath.Join(dir, "mr1-fair-scheduler.xml"))
	if err != nil {
		t.Fatal(err)
	}
	q := c.Queues[0]
	if c.Kind != Hadoop1 || len(c.Queues) != 2 || q.Name != "queue1" || q.MinMaps != 1 || q.MaxReduces != 1 || q.Weight != 1 || q.Mode != "fifo" ||
		q.MinSharePreemptionTimeoutS != 300 || c.FairSharePreemptionTimeoutS != 60 || c.DefaultMinSharePreemptionTimeoutS != 60 {
		t.Errorf("Hadoop 1 file: %+v, pool %+v; want facts.py's values", c, q)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{hadoop1, yarn, "<allocations/>", "<allocations><queue name=\"a\"><minResources>1%</minResources></queue></allocations>",
		"<allocations><queue name=\"a\"><maxResources>memory-mb=50%, vcores=50%</maxResources></queue></allocations>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse(strings.NewReader(in), "f.xml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.xml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		finite := func(r *Resource) bool {
			return r == nil || !math.IsNaN(r.MemoryMB) && !math.IsNaN(r.VCores) && !math.IsInf(r.MemoryMB, 0) && !math.IsInf(r.VCores, 0)
		}
		for _, q := range c.Queues {
			if q.Name == "" || !(q.Weight >= 0) {
				t.Errorf("queue %+v: want a name and a weight of 0 or more", q)
			}
			if !finite(q.MinResources) || !finite(q.MaxResources) {
				t.Errorf("queue %s: resources %+v, %+v; want finite ones", q.Name, q.MinResources, q.MaxResources)
			}
			_, _ = c.PoolFor("u", q.Name)
		}
	})
}

// TestSiteLocalityWaits pins how a site file's locality settings become
// the delay policy's waits, by Hadoop's rules: Hadoop 1.2.1's and its
// per-level releases' FairScheduler.start and update, YARN's
// FSAppAttempt.getAllowedLocalityLevel and getAllowedLocalityLevelByTime.
// A wait of -1 below means the file sets none.
func TestSiteLocalityWaits(t *testing.T) {
	prop := func(name, value string) string {
		return "<property><name>" + name + "</name><value>" + value + "</value></property>\n"
	}
	const (
		h1, h1Node, h1Rack = "mapred.fairscheduler.locality.delay", "mapred.fairscheduler.locality.delay.nodelocal", "mapred.fairscheduler.locality.delay.racklocal"
		thNode, thRack     = "yarn.scheduler.fair.locality.threshold.node", "yarn.scheduler.fair.locality.threshold.rack"
		cont               = "yarn.scheduler.fair.continuous-scheduling-enabled"
		msNode, msRack     = "yarn.scheduler.fair.locality-delay-node-ms", "yarn.scheduler.fair.locality-delay-rack-ms"
	)
	for _, tc := range []struct {
		name, props string
		heartbeatS  float64
		node, rack  float64
		warning     string // what a warning must say; "" for none
		why         string
	}{
		{"hadoop 1 delay", prop(h1, "5000"), 3, 5, 5, "", "one wait in ms for both levels"},
		{"hadoop 1 -1", prop(h1, "-1"), 3, 4.5, 4.5, "", "autoComputeLocalityDelay: 1.5 heartbeats"},
		{"hadoop 1 -1 capped", prop(h1, "-1"), 20, 15, 15, "", "the automatic wait is at most MAX_AUTOCOMPUTED_LOCALITY_DELAY, 15 s"},
		{"hadoop 1 -1 with one level set", prop(h1, "-1") + prop(h1Rack, "1000"), 3, 4.5, 4.5, "",
			"the delay -1 and the node level left at it: both levels are computed, the rack's 1000 ms is overwritten"},
		{"hadoop 1 both levels set", prop(h1, "-1") + prop(h1Node, "2000") + prop(h1Rack, "3000"), 3, 2, 3, "", "no level is -1: no automatic wait"},
		{"hadoop 1 one level over the delay", prop(h1, "2000") + prop(h1Node, "500"), 3, 0.5, 2, "", "a level left out takes the delay"},
		{"hadoop 1 other negatives", prop(h1, "-5"), 3, 0, 0, "", "only -1 is automatic; any time waited passes -5 ms"},
		{"hadoop 1 hexadecimal, spaces", prop(h1, " 0x3e8 "), 3, 1, 1, "", "Configuration.getLong trims and reads 0x as hexadecimal"},
		{"yarn thresholds", prop(thNode, "0.5") + prop(thRack, "0.25"), 3, 1.5, 0.75, "", "threshold x heartbeat"},
		{"yarn node threshold alone", prop(thNode, "0.5"), 3, 0, 0, "no wait: YARN does no delay scheduling at either level while " + thRack + " is left at its default, -1",
			"the rack threshold defaults to -1, and either below 0 turns delay scheduling off"},
		{"yarn rack threshold -1", prop(thNode, "0.5") + prop(thRack, "-1"), 3, 0, 0, thRack + " is -1", "as above, written out"},
		{"yarn threshold above 1", prop(thNode, "2") + prop(thRack, "0"), 3, 3, 0, "above 1, which YARN reads as 1", "YARN caps a threshold at 1"},
		{"continuous", prop(cont, "true") + prop(msNode, "2000") + prop(msRack, "1000"), 3, 2, 1, "", "YARN then waits by time"},
		{"continuous, node alone", prop(cont, " TRUE ") + prop(msNode, "2000"), 3, 0, 0, msRack + " is left at its default, -1", "the rack delay defaults to -1, which turns delay scheduling off"},
		{"continuous, no delays", prop(cont, "true"), 3, 0, 0, "no wait: with continuous scheduling", "both delays default to -1"},
		{"continuous ignores thresholds", prop(cont, "true") + prop(thNode, "0.5") + prop(msNode, "0") + prop(msRack, "0"), 3, 0, 0,
			thNode + ": not read with continuous scheduling", "continuous scheduling reads the ms delays only"},
		{"delays without continuous", prop(msNode, "2000") + prop(thNode, "1") + prop(thRack, "1"), 3, 3, 3,
			msNode + ": read only with " + cont + " true", "without continuous scheduling YARN reads the thresholds"},
		{"hadoop 1 beside yarn", prop(h1, "9000") + prop(thNode, "1") + prop(thRack, "1"), 3, 3, 3, h1 + ": Hadoop 1's locality settings beside YARN's; YARN's are used", "one file, one scheduler"},
		{"none", prop("yarn.resourcemanager.hostname", "rm"), 3, -1, -1, "", "no locality setting: the policy keeps its own waits"},
		{"hadoop 1 fair scheduler, no delay set", prop("mapred.jobtracker.taskScheduler", " org.apache.hadoop.mapred.FairScheduler "), 3, 4.5, 4.5, "",
			"a JobTracker that runs the Fair Scheduler with no delay set computes it: 1.5 heartbeats"},
		{"hadoop 1 fifo, no delay set", prop("mapred.jobtracker.taskScheduler", "org.apache.hadoop.mapred.JobQueueTaskScheduler"), 3, -1, -1, "",
			"no Fair Scheduler, no locality setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSite(strings.NewReader("<configuration>\n"+tc.props+"</configuration>"), "site.xml")
			if err != nil {
				t.Fatalf("%v; want the file read", err)
			}
			node, rack := s.LocalityWaits(tc.heartbeatS)
			got := func(p *float64) float64 {
				if p == nil {
					return -1
				}
				return *p
			}
			if math.Abs(got(node)-tc.node) > 1e-12 || math.Abs(got(rack)-tc.rack) > 1e-12 {
				t.Errorf("waits %v, %v at a %v s heartbeat; want %v, %v: %s", got(node), got(rack), tc.heartbeatS, tc.node, tc.rack, tc.why)
			}
			warned := strings.Join(s.Warnings, "\n")
			if tc.warning == "" && warned != "" || !strings.Contains(warned, tc.warning) {
				t.Errorf("warnings %q; want one holding %q", warned, tc.warning)
			}
			if tc.warning != "" && !strings.HasPrefix(warned, "site.xml:") {
				t.Errorf("warning %q does not name the file and line", warned)
			}
		})
	}
	s, _ := ParseSite(strings.NewReader("<configuration>\n<property><name>yarn.scheduler.fair.update-interval-ms</name><value>500</value></property></configuration>"), "site.xml")
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "site.xml:2: yarn.scheduler.fair.update-interval-ms") {
		t.Errorf("warnings %q; want the Fair Scheduler property the model lacks named at its line", s.Warnings)
	}
	for _, bad := range []struct{ props, want string }{
		{prop(thNode, "soon"), `"soon" is not a finite number`},
		{prop(h1, "soon"), "not a whole number (Hadoop reads it as a long)"},
		// NaN and infinities parse as floats, but no wait can be one: they
		// reached the delay policy, whose error named neither file nor line.
		{prop(thNode, "NaN"), "not a finite number"},
		{prop(thRack, "-Inf"), "not a finite number"},
		{prop(msNode, "+Inf") + prop(cont, "true"), "not a whole number"},
		// Hadoop reads the millisecond delays as a long: a fraction or a
		// number past a long's range stops its daemon at start-up.
		{prop(h1Rack, "1.5"), "not a whole number"},
		{prop(h1, "1e300"), "not a whole number"},
		{prop(h1, "9223372036854775808"), "not a whole number"},
	} {
		_, err := ParseSite(strings.NewReader("<configuration>\n"+bad.props+"</configuration>"), "site.xml")
		if err == nil || !strings.Contains(err.Error(), "site.xml:2") || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v; want one at site.xml:2 saying %q", bad.props, err, bad.want)
		}
	}
}

// FuzzParseSite: a site file either fails with an error naming it, or
// gives locality waits that are each unset or a finite number of seconds,
// 0 or more, whatever the file holds.
func FuzzParseSite(f *testing.F) {
	for _, s := range []string{
		"<configuration><property><name>mapred.fairscheduler.locality.delay</name><value>-1</value></property></configuration>",
		"<configuration><property><name>yarn.scheduler.fair.locality.threshold.rack</name><value>0.5</value></property></configuration>",
		"<configuration><property><name>yarn.scheduler.fair.continuous-scheduling-enabled</name><value>true</value></property>" +
			"<property><name>yarn.scheduler.fair.locality-delay-rack-ms</name><value>2000</value></property></configuration>",
		"<configuration/>", "<allocations/>",
		"<configuration><property><name>yarn.scheduler.fair.allow-undeclared-pools</name><value>false</value></property>" +
			"<property><name>yarn.scheduler.fair.user-as-default-queue</name><value>false</value></property></configuration>",
		"<configuration><property><name>mapred.fairscheduler.poolnameproperty</name><value>mapred.job.queue.name</value></property></configuration>",
		"<configuration><property><name>yarn.nodemanager.resource.memory-mb</name><value>24576</value></property>" +
			"<property><name>yarn.scheduler.increment-allocation-mb</name><value>512</value></property>" +
			"<property><name>mapreduce.map.memory.mb</name><value>1600</value></property></configuration>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSite(strings.NewReader(in), "site.xml")
		if err == nil {
			node, rack := s.LocalityWaits(3)
			for _, w := range []*float64{node, rack} {
				if w != nil && !(*w >= 0 && !math.IsInf(*w, 1)) {
					t.Errorf("a wait of %v s; want a finite number of seconds, 0 or more, or an error at its line", *w)
				}
			}
		}
		if err != nil && !strings.HasPrefix(err.Error(), "site.xml") {
			t.Errorf("error %q does not name the file", err)
		}
		if err != nil {
			return
		}
		for _, e := range s.Engine() {
			if e.Path == "cluster.containers" && !(e.Value >= 1) {
				t.Errorf("%v containers a node; want 1 or more, or an error at the node's property", e.Value)
			}
		}
		// Whatever the file's placement settings, a job goes to a pool.
		for _, alloc := range []string{"<allocations><pool name=\"p\"/></allocations>", "<allocations><queue name=\"p\"/></allocations>"} {
			c, err := Parse(strings.NewReader(alloc), "fair-scheduler.xml")
			if err != nil {
				t.Fatal(err)
			}
			c.UseSite(s)
			if pool, err := c.PoolFor("u", "q"); err != nil || pool == "" {
				t.Errorf("%s kind: PoolFor = %q, %v; want a pool", c.Kind, pool, err)
			}
		}
	})
}

// TestSitePlacement pins where jobs go when a site file holds the
// placement settings the allocation file leaves to it: Hadoop 1's
// mapred.fairscheduler.poolnameproperty (PoolManager.getPoolName), and
// YARN's user-as-default-queue and allow-undeclared-pools
// (QueuePlacementPolicy.fromConfiguration), for a file without a
// queuePlacementPolicy.
func TestSitePlacement(t *testing.T) {
	const (
		h1File    = "<allocations><pool name=\"etl\"/></allocations>"
		yarnFile  = "<allocations><queue name=\"prod\"/></allocations>"
		rulesFile = "<allocations><queue name=\"prod\"/><queuePlacementPolicy><rule name=\"specified\"/></queuePlacementPolicy></allocations>"
	)
	prop := func(name, value string) string {
		return "<property><name>" + name + "</name><value>" + value + "</value></property>"
	}
	type place struct{ user, queue, want string }
	for _, tc := range []struct {
		name, alloc, site string
		places            []place
		warning           string // what a warning must say; "" for none
		why               string
	}{
		{"hadoop 1, site without the property", h1File, prop("mapred.fairscheduler.preemption", "false"),
			[]place{{"alice", "etl", "alice"}, {"", "etl", "default"}}, "", "Hadoop 1's default poolnameproperty is user.name"},
		{"hadoop 1, pools by queue", h1File, prop("mapred.fairscheduler.poolnameproperty", "mapred.job.queue.name"),
			[]place{{"alice", "etl", "etl"}, {"alice", "adhoc", "adhoc"}, {"alice", "", "default"}}, "", "a pool no file declares is made for its queue"},
		{"hadoop 1, a property traces lack", h1File, prop("mapred.fairscheduler.poolnameproperty", "pool.name"),
			[]place{{"alice", "etl", "etl"}, {"alice", "adhoc", "alice"}}, "", "without the job's configuration, the rule without a site file stays (PoolForJob reads it where the trace has it)"},
		{"hadoop 1, a yarn site file", h1File, prop("yarn.scheduler.fair.preemption", "true"),
			[]place{{"alice", "etl", "etl"}}, "", "a YARN site file says nothing of Hadoop 1's pools: the rule without one"},
		{"hadoop 1, yarn's switch", h1File, prop("mapred.fairscheduler.preemption", "false") + prop("yarn.scheduler.fair.user-as-default-queue", "false"),
			[]place{{"alice", "", "alice"}}, "is Hadoop 1's, which does not read it", "YARN's switch does not apply to Hadoop 1"},
		{"yarn defaults", yarnFile, prop("yarn.scheduler.fair.preemption", "true"),
			[]place{{"alice", "prod", "prod"}, {"alice", "", "alice"}, {"alice", "x", "x"}}, "", "specified, then user, both creating"},
		{"yarn, user not the default queue", yarnFile, prop("yarn.scheduler.fair.user-as-default-queue", "false"),
			[]place{{"alice", "prod", "prod"}, {"alice", "", "default"}, {"alice", "x", "x"}}, "", "specified, then default"},
		{"yarn, no undeclared queues", yarnFile, prop("yarn.scheduler.fair.allow-undeclared-pools", "false"),
			[]place{{"alice", "prod", "prod"}, {"alice", "x", "default"}, {"prod", "", "prod"}}, "",
			"specified and user place only in declared queues; default takes the rest"},
		{"yarn, a placement policy", rulesFile, prop("yarn.scheduler.fair.user-as-default-queue", "false"),
			[]place{{"alice", "x", "x"}}, "not read: the allocation file's queuePlacementPolicy places jobs", "the file's rules decide"},
		{"yarn, hadoop 1's property", yarnFile, prop("mapred.fairscheduler.poolnameproperty", "mapred.job.queue.name"),
			[]place{{"alice", "", "alice"}}, "is YARN's, which does not read it", "Hadoop 1's property does not apply to YARN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.alloc), "fair-scheduler.xml")
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseSite(strings.NewReader("<configuration>"+tc.site+"</configuration>"), "site.xml")
			if err != nil {
				t.Fatal(err)
			}
			warned := strings.Join(c.UseSite(s), "\n")
			if tc.warning == "" && warned != "" || !strings.Contains(warned, tc.warning) {
				t.Errorf("warnings %q; want one holding %q", warned, tc.warning)
			}
			for _, p := range tc.places {
				if got, err := c.PoolFor(p.user, p.queue); err != nil || got != p.want {
					t.Errorf("PoolFor(%q, %q) = %q, %v; want %q: %s", p.user, p.queue, got, err, p.want, tc.why)
				}
			}
		})
	}
}

// TestYARNReadsHadoop1Modes: YARN's loader reads schedulingMode as
// schedulingPolicy, and defaultQueueSchedulingMode as
// defaultQueueSchedulingPolicy, so a YARN file that keeps Hadoop 1's
// names sets its queues' policies with them.
func TestYARNReadsHadoop1Modes(t *testing.T) {
	c, err := Parse(strings.NewReader(`<allocations><queue name="a"><schedulingMode>fifo</schedulingMode></queue><queue name="b"/>`+
		`<defaultQueueSchedulingMode>drf</defaultQueueSchedulingMode></allocations>`), "fair-scheduler.xml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != YARN || c.Queues[0].Mode != "fifo" || c.Queues[1].Mode != "drf" || len(c.Warnings) > 1 {
		t.Errorf("kind %s, modes %s and %s, warnings %q; want YARN, fifo and drf, and only drf's note", c.Kind, c.Queues[0].Mode, c.Queues[1].Mode, c.Warnings)
	}
}

// TestSiteEngineSettings pins the job and node settings a site file gives
// the engine, as Hadoop reads them: Hadoop 2's name over Hadoop 1's, one
// attempt limit for both kinds, map backups only, YARN's heartbeat in ms,
// and the Fair Scheduler's launches a heartbeat.
func TestSiteEngineSettings(t *testing.T) {
	prop := func(name, value string) string {
		return "<property><name>" + name + "</name><value>" + value + "</value></property>\n"
	}
	for _, tc := range []struct {
		name, props string
		want        map[string]float64
		warning     string
	}{
		{"hadoop 1 mapred-site", prop("mapred.reduce.slowstart.completed.maps", "0.8") + prop("mapred.reduce.parallel.copies", "10") +
			prop("mapred.map.max.attempts", "2") + prop("mapred.map.tasks.speculative.execution", "false"),
			map[string]float64{"engine.slow_start": 0.8, "engine.parallel_copies": 10, "engine.max_attempts": 2, "engine.speculative": 0}, ""},
		{"hadoop 2's name over hadoop 1's", prop("mapred.reduce.slowstart.completed.maps", "0.8") + prop("mapreduce.job.reduce.slowstart.completedmaps", "0.3"),
			map[string]float64{"engine.slow_start": 0.3}, ""},
		{"reduce attempts apart", prop("mapreduce.map.maxattempts", "4") + prop("mapreduce.reduce.maxattempts", "6"),
			map[string]float64{"engine.max_attempts": 4}, "one limit for maps and reduces"},
		{"reduce attempts alone", prop("mapreduce.reduce.maxattempts", "6"), map[string]float64{"engine.max_attempts": 6}, ""},
		{"reduce backups", prop("mapreduce.reduce.speculative", "true"), map[string]float64{}, "backups of slow reduces are not modelled"},
		{"yarn heartbeat", prop("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "500"), map[string]float64{"engine.heartbeat_s": 0.5}, ""},
		{"sort buffer and merge factor", prop("io.sort.mb", "200") + prop("mapreduce.task.io.sort.mb", "256") + prop("io.sort.factor", "25"),
			map[string]float64{"engine.sort_buffer_mb": 256, "engine.merge_factor": 25}, ""},
		{"a reduce's shuffle buffer from its heap", prop("mapred.child.java.opts", "-Xmx1g -Xmx512m -verbose:gc"),
			map[string]float64{"engine.reduce_buffer_mb": 512 * 0.7}, ""},
		{"from the share, on the default heap", prop("mapred.job.shuffle.input.buffer.percent", "0.5"),
			map[string]float64{"engine.reduce_buffer_mb": 100}, ""},
		{"a heap past 2 GiB counts as 2 GiB", prop("mapreduce.reduce.java.opts", "-Xmx4g") + prop("mapred.child.java.opts", "-Xmx300m"),
			map[string]float64{"engine.reduce_buffer_mb": float64(math.MaxInt32) / (1 << 20) * 0.7}, ""},
		{"java options without a heap", prop("mapred.child.java.opts", "-XX:+UseG1GC"), map[string]float64{}, ""},
		{"hadoop 1 without the out-of-band heartbeat", prop("mapreduce.tasktracker.outofband.heartbeat", "false"),
			map[string]float64{"engine.heartbeat_offers_only": 1}, ""},
		{"hadoop 1 with it", prop("mapreduce.tasktracker.outofband.heartbeat", "true"),
			map[string]float64{"engine.heartbeat_offers_only": 0}, ""},
		{"tasktracker slots", prop("mapred.tasktracker.map.tasks.maximum", "6") + prop("mapred.tasktracker.reduce.tasks.maximum", "3"),
			map[string]float64{"cluster.map_slots": 6, "cluster.reduce_slots": 3}, ""},
		{"yarn one a heartbeat", prop("yarn.scheduler.fair.max.assign", "4"), map[string]float64{"engine.launches_per_heartbeat": 1}, ""},
		{"yarn assign multiple, dynamic by default", prop("yarn.scheduler.fair.assignmultiple", "true"),
			map[string]float64{"engine.dynamic_max_assign": 1}, ""},
		{"yarn max assign under dynamic", prop("yarn.scheduler.fair.assignmultiple", "true") + prop("yarn.scheduler.fair.max.assign", "4"),
			map[string]float64{"engine.dynamic_max_assign": 1}, "max.assign: not read while yarn.scheduler.fair.dynamic.max.assign is true"},
		{"yarn max assign", prop("yarn.scheduler.fair.assignmultiple", "true") + prop("yarn.scheduler.fair.dynamic.max.assign", "false") + prop("yarn.scheduler.fair.max.assign", "4"),
			map[string]float64{"engine.launches_per_heartbeat": 4}, ""},
		{"yarn assign all", prop("yarn.scheduler.fair.assignmultiple", "true") + prop("yarn.scheduler.fair.dynamic.max.assign", "false"),
			map[string]float64{"engine.launches_per_heartbeat": 0}, ""},
		{"yarn dynamic without assign multiple", prop("yarn.scheduler.fair.dynamic.max.assign", "true"), map[string]float64{"engine.launches_per_heartbeat": 1}, ""},
		{"hadoop 1 assign one", prop("mapred.fairscheduler.assignmultiple", "false"), map[string]float64{"engine.launches_per_heartbeat": 1}, ""},
		{"hadoop 1 capped", prop("mapred.fairscheduler.assignmultiple.maps", "2") + prop("mapred.fairscheduler.assignmultiple.reduces", "1"),
			map[string]float64{"engine.launches_per_heartbeat": 3}, "caps a heartbeat's tasks of both kinds together, at 3"},
		// A YARN node's containers: its memory and vcores over a map's
		// container, as the Fair Scheduler allocates it.
		{"node memory, vcores at their default", prop("yarn.nodemanager.resource.memory-mb", "16384"), map[string]float64{"cluster.containers": 8, "cluster.memory_gb": 16},
			""}, // 16 containers of 1024 MB, but 8 vcores hold 8
		{"node and map container", prop("yarn.nodemanager.resource.memory-mb", "24576") + prop("yarn.nodemanager.resource.cpu-vcores", "16") + prop("mapreduce.map.memory.mb", "2048"),
			map[string]float64{"cluster.containers": 12, "cluster.memory_gb": 24, "cluster.cpu_cores": 16}, ""},
		{"container raised and rounded", prop("yarn.nodemanager.resource.memory-mb", "8192") + prop("yarn.scheduler.minimum-allocation-mb", "1536") + prop("yarn.scheduler.increment-allocation-mb", "512") + prop("mapreduce.map.memory.mb", "1600"),
			map[string]float64{"cluster.containers": 4, "cluster.memory_gb": 8}, ""}, // max(1600, 1536) rounds up to 2048
		{"vcores bind", prop("yarn.nodemanager.resource.cpu-vcores", "4") + prop("mapreduce.map.cpu.vcores", "2"), map[string]float64{"cluster.containers": 2, "cluster.cpu_cores": 4}, ""},
		{"detect the hardware", prop("yarn.nodemanager.resource.memory-mb", "-1"), map[string]float64{"cluster.containers": 8, "cluster.memory_gb": 8}, "-1 (detect the hardware) is read as YARN's default, 8192"},
		{"reduces of another size", prop("yarn.nodemanager.resource.memory-mb", "8192") + prop("mapreduce.reduce.memory.mb", "3072"),
			map[string]float64{"cluster.containers": 8, "cluster.memory_gb": 8}, "mapreduce.reduce.memory.mb: 3072 MB; the engine has one container size, the maps' 1024 MB"},
		{"map memory alone is no node", prop("mapreduce.map.memory.mb", "2048"), map[string]float64{}, ""},
		// Hadoop 1's load manager.
		{"hadoop 1's load manager", prop("mapred.fairscheduler.loadmanager", " org.apache.hadoop.mapred.CapBasedLoadManager "), map[string]float64{"engine.load_cap": 1}, ""},
		{"another load manager", prop("mapred.fairscheduler.loadmanager", "com.example.QuietLoad"), map[string]float64{"engine.load_cap": 0},
			`"com.example.QuietLoad"; only org.apache.hadoop.mapred.CapBasedLoadManager is modelled`},
		// How often the Fair Scheduler preempts: in its update, once the
		// interval has passed.
		{"hadoop 1 preemption interval", prop("mapred.fairscheduler.preemption.interval", "15000"), map[string]float64{"engine.preemption_interval_s": 15}, ""},
		{"yarn 2 preemption interval", prop("yarn.scheduler.fair.preemptionInterval", "5000"), map[string]float64{"engine.preemption_interval_s": 5}, ""},
		{"an interval of 0 is every update", prop("mapred.fairscheduler.preemption.interval", "0"), map[string]float64{"engine.preemption_interval_s": 0.5}, ""},
		{"no shorter than the update", prop("mapred.fairscheduler.preemption.interval", "100") + prop("mapred.fairscheduler.update.interval", "2500"),
			map[string]float64{"engine.preemption_interval_s": 2.5}, "mapred.fairscheduler.update.interval: read only as the shortest preemption interval"},
		{"updates without pause", prop("yarn.scheduler.fair.preemptionInterval", "0") + prop("yarn.scheduler.fair.update-interval-ms", "0"),
			map[string]float64{"engine.preemption_interval_s": 0.001}, "update-interval-ms: read only as"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSite(strings.NewReader("<configuration>\n"+tc.props+"</configuration>"), "site.xml")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, e := range s.Engine() {
				got[e.Path] = e.Value
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("engine settings %v; want %v", got, tc.want)
			}
			warned := strings.Join(s.Warnings, "\n")
			if tc.warning == "" && warned != "" || !strings.Contains(warned, tc.warning) {
				t.Errorf("warnings %q; want one holding %q", warned, tc.warning)
			}
		})
	}
	for _, bad := range []struct{ props, want string }{
		{prop("mapreduce.job.reduce.slowstart.completedmaps", "1.5"), "want a fraction of the job's maps"},
		{prop("mapred.reduce.parallel.copies", "0"), "want the fetches a reduce makes at once"},
		{prop("mapreduce.map.maxattempts", "two"), "not a whole number"},
		{prop("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "0"), "heartbeat interval"},
		{prop("yarn.nodemanager.resource.memory-mb", "512"), "a node of 512 MB and 8 vcores holds no map container of 1024 MB"},
		{prop("yarn.nodemanager.resource.cpu-vcores", "0"), "want the node's resource"},
		{prop("yarn.nodemanager.resource.memory-mb", "lots"), "not a whole number"},
		{prop("mapred.fairscheduler.preemption.interval", "-5"), "want the interval in ms"},
		{prop("io.sort.mb", "2048"), "want a map's sort buffer in MB, 1 to 2047"},
		{prop("mapreduce.task.io.sort.factor", "1"), "want the segments a merge pass reads, 2 or more"},
		{prop("mapred.tasktracker.reduce.tasks.maximum", "0"), "want a node's slots"},
		{prop("mapreduce.reduce.shuffle.input.buffer.percent", "1.5"), "want a share of the reduce's heap"},
	} {
		_, err := ParseSite(strings.NewReader("<configuration>\n"+bad.props+"</configuration>"), "site.xml")
		if err == nil || !strings.Contains(err.Error(), "site.xml:2") || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v; want one at site.xml:2 saying %q", bad.props, err, bad.want)
		}
	}
}

// TestSiteSwitches pins how the site file's switches read: true or false
// in any case; any other value is Hadoop's default, with a warning; and
// YARN's preemption gate is a fraction of the cluster.
func TestSiteSwitches(t *testing.T) {
	prop := func(name, value string) string {
		return "<property><name>" + name + "</name><value>" + value + "</value></property>\n"
	}
	for _, tc := range []struct {
		name, props     string
		preempt, set    bool
		utilization     float64
		weight, warning string
	}{
		{"on, any case", prop("yarn.scheduler.fair.preemption", " TRUE "), true, true, 0.8, "", ""},
		{"a word Hadoop reads as false", prop("yarn.scheduler.fair.preemption", "yes"), false, true, 0.8, "", `"yes" is neither true nor false; Hadoop reads it as false`},
		{"hadoop 1's switch, no gate", prop("mapred.fairscheduler.preemption", "true"), true, true, 0, "", ""},
		{"hadoop 1 only logs", prop("mapred.fairscheduler.preemption", "true") + prop("mapred.fairscheduler.preemption.only.log", "true"), false, true, 0, "",
			"site.xml:3: mapred.fairscheduler.preemption.only.log: true logs the tasks Hadoop 1 would preempt and kills none; read as preemption off"},
		{"hadoop 1 logs and kills", prop("mapred.fairscheduler.preemption", "true") + prop("mapred.fairscheduler.preemption.only.log", "false"), true, true, 0, "", ""},
		{"the gate alone", prop("yarn.scheduler.fair.preemption.cluster-utilization-threshold", "0.6"), false, false, 0.6, "", ""},
		{"size-based weight by memory", prop("yarn.scheduler.fair.sizebasedweight", "true"), false, false, 0, "memory", ""},
		{"size-based weight off", prop("mapred.fairscheduler.sizebasedweight", "false"), false, false, 0, "none", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSite(strings.NewReader("<configuration>\n"+tc.props+"</configuration>"), "site.xml")
			if err != nil {
				t.Fatal(err)
			}
			on, set := s.Preemption()
			u, _ := s.PreemptionUtilization()
			w, _ := s.SizeBasedWeight()
			if on != tc.preempt || set != tc.set || u != tc.utilization || w != tc.weight {
				t.Errorf("preemption %v (set %v), gate %v, weight %q; want %v (%v), %v, %q", on, set, u, w, tc.preempt, tc.set, tc.utilization, tc.weight)
			}
			warned := strings.Join(s.Warnings, "\n")
			if tc.warning == "" && warned != "" || !strings.Contains(warned, tc.warning) {
				t.Errorf("warnings %q; want one holding %q", warned, tc.warning)
			}
		})
	}
	_, err := ParseSite(strings.NewReader("<configuration>\n"+prop("yarn.scheduler.fair.preemption.cluster-utilization-threshold", "1.5")+"</configuration>"), "site.xml")
	if err == nil || !strings.Contains(err.Error(), "site.xml:2") || !strings.Contains(err.Error(), "want a fraction of the cluster") {
		t.Errorf("a gate of 1.5: error %v; want one at site.xml:2", err)
	}
}

// TestPoolForJobReadsTheJobsConfiguration: a Hadoop 1 job whose trace
// recorded its configuration goes to its pool as PoolManager.getPoolName
// puts it: mapred.fairscheduler.pool, else the property poolnameproperty
// names, else "default"; a job without one is placed as PoolFor places
// it, which UnrecordedPoolProperty names when the property is one traces
// lack. YARN reads no job property.
func TestPoolForJobReadsTheJobsConfiguration(t *testing.T) {
	h1 := "<allocations><pool name=\"etl\"/></allocations>"
	yarn := "<allocations><queue name=\"etl\"/></allocations>"
	site := func(prop string) string {
		return "<configuration><property><name>mapred.fairscheduler.poolnameproperty</name><value>" + prop + "</value></property></configuration>"
	}
	for _, tc := range []struct {
		name, alloc, site string
		user, queue       string
		conf              map[string]string
		want              string
		props             []string
	}{
		{"the explicit pool", h1, site("pool.name"), "alice", "etl", map[string]string{"mapred.fairscheduler.pool": "adhoc", "pool.name": "research"}, "adhoc",
			[]string{"mapred.fairscheduler.pool", "pool.name"}},
		{"the pool property", h1, site("pool.name"), "alice", "etl", map[string]string{"pool.name": " research "}, "research", nil},
		{"neither: the default pool", h1, site("pool.name"), "alice", "etl", map[string]string{}, "default", nil},
		{"no configuration: the declared queue's pool", h1, site("pool.name"), "alice", "etl", nil, "etl", nil},
		{"no configuration, no declared pool: the user's", h1, site("pool.name"), "alice", "adhoc", nil, "alice", nil},
		{"user.name, by default", h1, "<configuration/>", "alice", "etl", map[string]string{"user.name": "bob"}, "bob", []string{"mapred.fairscheduler.pool", "user.name"}},
		{"user.name not in the configuration: the trace's user", h1, "<configuration/>", "alice", "etl", map[string]string{}, "alice", nil},
		{"yarn reads the queue, not the configuration", yarn, "<configuration/>", "alice", "etl", map[string]string{"mapred.fairscheduler.pool": "adhoc"}, "etl", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.alloc), "fair-scheduler.xml")
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseSite(strings.NewReader(tc.site), "mapred-site.xml")
			if err != nil {
				t.Fatal(err)
			}
			c.UseSite(s)
			if got, err := c.PoolForJob(tc.user, tc.queue, tc.conf); err != nil || got != tc.want {
				t.Errorf("PoolForJob(%q, %q, %v) = %q, %v; want %q", tc.user, tc.queue, tc.conf, got, err, tc.want)
			}
			if tc.props != nil && !slices.Equal(c.PoolProperties(), tc.props) {
				t.Errorf("PoolProperties() = %q; want %q, what PoolForJob reads", c.PoolProperties(), tc.props)
			}
		})
	}
	c, err := Parse(strings.NewReader(h1), "fair-scheduler.xml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSite(strings.NewReader(site("pool.name")), "mapred-site.xml")
	if err != nil {
		t.Fatal(err)
	}
	c.UseSite(s)
	if got, want := c.UnrecordedPoolProperty(2, 5), `mapred-site.xml:1: mapred.fairscheduler.poolnameproperty: "pool.name": 2 of 5 jobs' traces record no job configuration`; !strings.HasPrefix(got, want) {
		t.Errorf("UnrecordedPoolProperty(2, 5) = %q; want it to begin %q", got, want)
	}
	if got := c.UnrecordedPoolProperty(0, 5); got != "" {
		t.Errorf("UnrecordedPoolProperty(0, 5) = %q; want nothing: every job recorded its configuration", got)
	}
}

// TestXmx reads a JVM's -Xmx as the JVM does: bytes, or k, m, g in either
// case; the last one given wins; none, or a malformed one, is no heap.
func TestXmx(t *testing.T) {
	for _, tc := range []struct {
		opts string
		mb   float64
		ok   bool
	}{
		{"-Xmx200m", 200, true}, {"-Xmx2G", 2048, true}, {"-Xmx1048576", 1, true}, {"-Xmx512k", 0.5, true},
		{"-Xmx1g -Xmx300M", 300, true}, {"-Xms100m -verbose:gc", 0, false}, {"-Xmx", 0, false}, {"-Xmxlots", 0, false}, {"-Xmx0m", 0, false},
	} {
		mb, ok := xmxMB(tc.opts)
		if mb != tc.mb || ok != tc.ok {
			t.Errorf("xmxMB(%q) = %v, %v; want %v, %v", tc.opts, mb, ok, tc.mb, tc.ok)
		}
	}
}
