package advise

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/sched"
)

// Cluster is what the configuration lines depend on: the node count, the
// heartbeat interval the nodes offer slots at, and the cluster's pools.
type Cluster struct {
	Nodes      int
	HeartbeatS float64
	Pools      sched.PoolSettings
	// AllocationFile is the operator's allocation file the scenario
	// reads (policy.allocations), "" for none: the lines then keep it and
	// say what to set in it, rather than write a new one without its
	// pools.
	AllocationFile string
	// Hadoop is the scheduler the operator's allocation or site file is
	// for, Hadoop1 or YARN: the lines then are that scheduler's alone.
	// "" writes both.
	Hadoop string
	// Waits are the delay policies' waits (t1_s, t2_s) where a candidate
	// sets none, as the runs took them from the operator's site file; nil
	// for the policies' defaults.
	Waits *[2]float64
}

// The schedulers Cluster.Hadoop names (allocations.Kind's values).
const (
	Hadoop1 = "hadoop1"
	YARN    = "yarn"
)

// The scheduler classes of stock Hadoop.
const (
	hadoop1FIFO = "org.apache.hadoop.mapred.JobQueueTaskScheduler"
	hadoop1Fair = "org.apache.hadoop.mapred.FairScheduler"
	yarnFIFO    = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
	yarnFair    = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
)

// papers names where a policy stock Hadoop lacks comes from.
var papers = map[string]string{
	"sw-fair":    "ShuffleWatcher (Ahmad et al., USENIX ATC 2014), sections 3.1-3.4, on the Fair Scheduler",
	"sw-drf":     "ShuffleWatcher (Ahmad et al., USENIX ATC 2014), section 4.2, on DRF",
	"sw-relaxed": "ShuffleWatcher (Ahmad et al., USENIX ATC 2014), section 5.2 (relaxed fairness)",
	"sw-delay":   "ShuffleWatcher on the Delay scheduler, as the NAS paper (Lin et al.) runs it, section IV",
	"nas":        "NAS: A Network-Aware Scheduler for MapReduce (Lin et al.), section III",
	"td":         "A Throughput Driven Task Scheduler (Wang et al., IEEE BigData Congress 2013), section IV",
}

// LocalityThreshold is YARN Fair Scheduler's locality threshold for a
// delay-scheduling wait of waitS seconds. FSAppAttempt.getAllowedLocalityLevel
// relaxes an application's locality once its scheduling opportunities
// (node heartbeats at which it was offered a container and passed, since
// it last launched or relaxed) exceed threshold x the cluster's nodes. Each
// of N nodes heartbeats every H seconds, so an application considered at
// every heartbeat passes N/H opportunities a second, and a wait of W
// seconds is W x N / H opportunities: threshold = W / H, whatever N. YARN
// caps a threshold at 1 (a wait of one heartbeat interval): ok is false for
// a longer wait, which needs YARN's time-based delays instead.
func LocalityThreshold(waitS, heartbeatS float64) (threshold float64, ok bool) {
	t := waitS / heartbeatS
	return t, t <= 1
}

// ConfigLines are the lines that put candidate c into effect on a cluster:
// for FIFO, Fair, delay scheduling and DRF, Hadoop 1's mapred-site.xml and
// fair-scheduler.xml and YARN's yarn-site.xml and fair-scheduler.xml; for
// the papers' policies, which stock Hadoop lacks, the paper and the
// parameters.
func ConfigLines(c Candidate, cl Cluster) []string {
	var l []string
	add := func(format string, args ...any) { l = append(l, fmt.Sprintf(format, args...)) }
	prop := func(file, name, value string) {
		add("  %s: <property><name>%s</name><value>%s</value></property>", file, name, value)
	}
	switch c.Policy {
	case "fifo":
		if cl.Hadoop != YARN {
			add("Hadoop 1 (mapred-site.xml; FIFO is the default):")
			prop("mapred-site.xml", "mapred.jobtracker.taskScheduler", hadoop1FIFO)
		}
		if cl.Hadoop != Hadoop1 {
			add("YARN (yarn-site.xml):")
			prop("yarn-site.xml", "yarn.resourcemanager.scheduler.class", yarnFIFO)
		}
		return l
	case "fair", "delay", "fifo-delay", "drf":
	default:
		what := papers[c.Policy]
		if what == "" {
			what = "a policy registered with this simulator"
		}
		add("Stock Hadoop has no %s scheduler: it is %s.", c.Policy, what)
		if len(c.Settings) == 0 {
			add("  Parameters: the paper's defaults (docs/policies.md).")
		}
		for _, s := range c.Settings {
			add("  Parameter %s = %s", s.Key, s.Value)
		}
		return l
	}
	t1, t2 := -1.0, -1.0 // no delay scheduling
	if c.Policy == "delay" || c.Policy == "fifo-delay" {
		d1, d2 := float64(sched.DefaultDelayT1S), float64(sched.DefaultDelayT2S)
		if w := cl.Waits; w != nil {
			d1, d2 = w[0], w[1]
		}
		t1, t2 = num(c.Value("t1_s"), d1), num(c.Value("t2_s"), d2)
	}
	pre := cl.Pools.Preemption
	if v := c.Value("preemption.enabled"); v != "" {
		pre.Enabled = v == "true"
		pre.MinShareTimeoutS = num(c.Value("preemption.min_share_timeout_s"), pre.MinShareTimeoutS)
		pre.FairShareTimeoutS = num(c.Value("preemption.fair_share_timeout_s"), pre.FairShareTimeoutS)
	}
	a := allocLines{add: add, cl: cl, pre: pre, setPre: c.Value("preemption.enabled") != "", fifoPools: c.Policy == "fifo-delay"}
	a.tmin, a.tfair = pre.MinShareTimeoutS, pre.FairShareTimeoutS
	if a.tmin == 0 {
		a.tmin = sched.DefaultMinShareTimeoutS
	}
	if a.tfair == 0 {
		a.tfair = sched.DefaultFairShareTimeoutS
	}

	// Hadoop 1.2.1: the Fair Scheduler contrib module.
	switch {
	case cl.Hadoop == YARN:
	case c.Policy == "drf":
		add("Hadoop 1: its Fair Scheduler has no dominant resource fairness; run YARN.")
	default:
		add("Hadoop 1 (mapred-site.xml):")
		prop("mapred-site.xml", "mapred.jobtracker.taskScheduler", hadoop1Fair)
		if cl.AllocationFile == "" { // else the cluster names its own already
			prop("mapred-site.xml", "mapred.fairscheduler.allocation.file", defaultAllocationPath)
		}
		prop("mapred-site.xml", "mapred.fairscheduler.preemption", strconv.FormatBool(pre.Enabled))
		if w := cl.Pools.SizeBasedWeight; w == "tasks" || w == "memory" {
			prop("mapred-site.xml", "mapred.fairscheduler.sizebasedweight", "true")
			if w == "memory" {
				add("  (Hadoop 1 weighs a job by its tasks; these runs weighed it by memory, as YARN)")
			}
		}
		if t1 < 0 {
			prop("mapred-site.xml", "mapred.fairscheduler.locality.delay", "0")
			add("  (0 turns delay scheduling off; unset, Hadoop 1 waits 1.5 heartbeats)")
		} else {
			prop("mapred-site.xml", "mapred.fairscheduler.locality.delay", ms(t1))
			if t1 != t2 {
				add("  (Hadoop 1.2.1 takes one wait, in ms, for both levels: t2_s = %s s cannot be set apart from t1_s)", fmtNum(t2))
			}
		}
		add("Hadoop 1 (fair-scheduler.xml):")
		a.hadoop1()
	}
	if cl.Hadoop == Hadoop1 {
		return l
	}

	// YARN (Hadoop 2 and later): the Fair Scheduler.
	add("YARN (yarn-site.xml):")
	prop("yarn-site.xml", "yarn.resourcemanager.scheduler.class", yarnFair)
	if cl.AllocationFile == "" {
		prop("yarn-site.xml", "yarn.scheduler.fair.allocation.file", defaultAllocationPath)
	}
	prop("yarn-site.xml", "yarn.scheduler.fair.preemption", strconv.FormatBool(pre.Enabled))
	if w := cl.Pools.SizeBasedWeight; w == "tasks" || w == "memory" {
		prop("yarn-site.xml", "yarn.scheduler.fair.sizebasedweight", "true")
		if w == "tasks" {
			add("  (YARN weighs a job by its memory demand; these runs weighed it by tasks, as Hadoop 1)")
		}
	}
	if pre.Enabled {
		// The runs killed at any use of the cluster, or above the
		// threshold they had; YARN's default gate is 0.8.
		prop("yarn-site.xml", "yarn.scheduler.fair.preemption.cluster-utilization-threshold", fmtNum(pre.ClusterUtilizationThreshold))
	}
	if t1 >= 0 {
		n1, ok1 := LocalityThreshold(t1, cl.HeartbeatS)
		n2, ok2 := LocalityThreshold(t2, cl.HeartbeatS)
		if ok1 && ok2 {
			prop("yarn-site.xml", "yarn.scheduler.fair.locality.threshold.node", fmt.Sprintf("%.2f", n1))
			prop("yarn-site.xml", "yarn.scheduler.fair.locality.threshold.rack", fmt.Sprintf("%.2f", n2))
			add("  (a wait of W s is W x %d nodes / %s s heartbeats scheduling opportunities, W / %s of the cluster: FSAppAttempt.getAllowedLocalityLevel)",
				cl.Nodes, fmtNum(cl.HeartbeatS), fmtNum(cl.HeartbeatS))
		} else {
			prop("yarn-site.xml", "yarn.scheduler.fair.continuous-scheduling-enabled", "true")
			prop("yarn-site.xml", "yarn.scheduler.fair.locality-delay-node-ms", ms(t1))
			prop("yarn-site.xml", "yarn.scheduler.fair.locality-delay-rack-ms", ms(t2))
			add("  (a wait longer than one %s s heartbeat is a threshold above 1, which YARN caps: the time-based delays of continuous scheduling say it)",
				fmtNum(cl.HeartbeatS))
		}
	}
	add("YARN (fair-scheduler.xml):")
	a.policy = "fair"
	if c.Policy == "drf" {
		a.policy = "drf"
	}
	a.yarn()
	return l
}

// allocLines writes the fair-scheduler.xml a candidate runs with: the
// cluster's pools, limits and preemption timeouts, or, where the
// scenario reads the operator's own allocation file, what to set in it.
type allocLines struct {
	add         func(format string, args ...any)
	cl          Cluster
	pre         sched.PreemptionParams
	setPre      bool // the candidate sets preemption
	tmin, tfair float64
	fifoPools   bool   // fifo-delay: FIFO order within pools
	policy      string // YARN's defaultQueueSchedulingPolicy
}

// defaultAllocationPath is where the lines put a new allocation file.
const defaultAllocationPath = "/etc/hadoop/fair-scheduler.xml"

// own writes, for the operator's allocation file, the elements to set in
// it, and reports whether the file is the operator's.
func (a allocLines) own(set []string) bool {
	if a.cl.AllocationFile == "" {
		return false
	}
	if len(set) == 0 {
		a.add("  keep %s as it is: the runs read its pools, placement and limits", a.cl.AllocationFile)
		return true
	}
	a.add("  keep %s (the runs read its pools, placement and limits), and set in <allocations>:", a.cl.AllocationFile)
	for _, e := range set {
		a.add("    %s", e)
	}
	return true
}

// dialect is one Fair Scheduler's names for the allocation file's
// elements that differ between Hadoop 1 and YARN.
type dialect struct {
	pool, max, poolDefault, userDefault, fairTimeout string
	// threshold is the fair-share preemption threshold's element, "" for
	// a scheduler that has none.
	threshold string
	// noParent says a limit of a queue above pools cannot be set.
	noParent string
}

var (
	hadoop1Elements = dialect{pool: "pool", max: "maxRunningJobs", poolDefault: "poolMaxJobsDefault", userDefault: "userMaxJobsDefault",
		fairTimeout: "fairSharePreemptionTimeout", noParent: "(Hadoop 1 has no queue %s above pools: its limit of %d running jobs cannot be set)"}
	yarnElements = dialect{pool: "queue", max: "maxRunningApps", poolDefault: "queueMaxAppsDefault", userDefault: "userMaxAppsDefault",
		fairTimeout: "defaultFairSharePreemptionTimeout", threshold: "defaultFairSharePreemptionThreshold", noParent: "(queue %s: <maxRunningApps>%d</maxRunningApps> in its element of your queue tree)"}
)

// preemption is the elements of the preemption timeouts, none while
// preemption is off.
func (a allocLines) preemption(e dialect) []string {
	if !a.pre.Enabled {
		return nil
	}
	out := []string{fmt.Sprintf("<defaultMinSharePreemptionTimeout>%s</defaultMinSharePreemptionTimeout>", fmtNum(a.tmin)),
		fmt.Sprintf("<%s>%s</%s>", e.fairTimeout, fmtNum(a.tfair), e.fairTimeout)}
	// The runs starved a pool below this fraction of its fair share; the
	// scheduler's own default is half.
	thr := a.pre.FairShareThreshold
	if thr == 0 {
		thr = 1
	}
	switch {
	case e.threshold != "":
		out = append(out, fmt.Sprintf("<%s>%s</%s>", e.threshold, fmtNum(thr), e.threshold))
	case thr != 0.5:
		out = append(out, fmt.Sprintf("(Hadoop 1 starves a pool below half its fair share; these runs did below %s of it)", fmtNum(thr)))
	}
	return out
}

// poolLimit is the element of a pool's limit n, none for no limit.
func (e dialect) poolLimit(n int) []string {
	if n <= 0 {
		return nil
	}
	return []string{fmt.Sprintf("<%s>%d</%s>", e.max, n, e.max)}
}

// limits writes the running-job limits no configured pool's element
// holds: of the pools and queues no configured pool has, the pools'
// default, the users' and the users' default, names sorted.
func (a allocLines) limits(e dialect) {
	lim := a.cl.Pools.Limits
	var pools, users []string
	for name := range lim.Pools {
		if !slices.ContainsFunc(a.cl.Pools.Pools, func(p sched.PoolConfig) bool { return p.Name == name }) {
			pools = append(pools, name)
		}
	}
	slices.Sort(pools)
	for _, name := range pools {
		if name == "root" || strings.Contains(name, ".") {
			a.add("    "+e.noParent, name, lim.Pools[name])
			continue
		}
		a.add("    <%s name=\"%s\"><%s>%d</%s></%s>", e.pool, name, e.max, lim.Pools[name], e.max, e.pool)
	}
	if lim.PoolDefault > 0 {
		a.add("    <%s>%d</%s>", e.poolDefault, lim.PoolDefault, e.poolDefault)
	}
	for u := range lim.Users {
		users = append(users, u)
	}
	slices.Sort(users)
	for _, u := range users {
		a.add("    <user name=\"%s\"><%s>%d</%s></user>", u, e.max, lim.Users[u], e.max)
	}
	if lim.UserDefault > 0 {
		a.add("    <%s>%d</%s>", e.userDefault, lim.UserDefault, e.userDefault)
	}
}

// hadoop1 writes Hadoop 1's allocation file.
func (a allocLines) hadoop1() {
	add, lim := a.add, a.cl.Pools.Limits
	var set []string
	if a.fifoPools {
		set = append(set, "<defaultPoolSchedulingMode>fifo</defaultPoolSchedulingMode>")
	}
	if a.setPre {
		set = append(set, a.preemption(hadoop1Elements)...)
	}
	if a.own(set) {
		return
	}
	if len(a.cl.Pools.Pools) == 0 {
		add("  (no pools configured: a pool a user, as mapred.fairscheduler.poolnameproperty user.name, the default)")
	}
	add("  <allocations>")
	var noFair, kept []string
	for _, p := range a.cl.Pools.Pools {
		var inner []string
		if p.MinMaps > 0 {
			inner = append(inner, fmt.Sprintf("<minMaps>%d</minMaps>", p.MinMaps))
		}
		if p.MinReduces > 0 {
			inner = append(inner, fmt.Sprintf("<minReduces>%d</minReduces>", p.MinReduces))
		}
		if p.MaxMaps > 0 {
			inner = append(inner, fmt.Sprintf("<maxMaps>%d</maxMaps>", p.MaxMaps))
		}
		if p.MaxReduces > 0 {
			inner = append(inner, fmt.Sprintf("<maxReduces>%d</maxReduces>", p.MaxReduces))
		}
		if p.Weight > 0 && p.Weight != 1 {
			inner = append(inner, "<weight>"+fmtNum(p.Weight)+"</weight>")
		}
		mode := p.Mode
		if a.fifoPools {
			mode = "fifo"
		}
		if mode != "" {
			inner = append(inner, "<schedulingMode>"+mode+"</schedulingMode>")
		}
		switch {
		case p.MinShareTimeoutS > 0:
			inner = append(inner, fmt.Sprintf("<minSharePreemptionTimeout>%s</minSharePreemptionTimeout>", fmtNum(p.MinShareTimeoutS)))
		case a.pre.Enabled && (p.MinMaps > 0 || p.MinReduces > 0):
			inner = append(inner, fmt.Sprintf("<minSharePreemptionTimeout>%s</minSharePreemptionTimeout>", fmtNum(a.tmin)))
		}
		if p.FairShareTimeoutS > 0 {
			noFair = append(noFair, fmt.Sprintf("%s's %s s", p.Name, fmtNum(p.FairShareTimeoutS)))
		}
		if p.AllowPreemptionFrom != nil && !*p.AllowPreemptionFrom {
			kept = append(kept, p.Name)
		}
		inner = append(inner, hadoop1Elements.poolLimit(lim.Pools[p.Name])...)
		add("    <pool name=\"%s\">%s</pool>", p.Name, strings.Join(inner, ""))
	}
	if len(noFair) > 0 {
		add("    (Hadoop 1 has no fair-share timeout per pool: %s cannot be set)", strings.Join(noFair, ", "))
	}
	if len(kept) > 0 {
		add("    (Hadoop 1 preempts from every pool: %s's keeping its tasks cannot be set)", strings.Join(kept, ", "))
	}
	a.limits(hadoop1Elements)
	if a.fifoPools {
		add("    <defaultPoolSchedulingMode>fifo</defaultPoolSchedulingMode>")
		add("    (FIFO order with delay scheduling: submit every job to one pool, as mapred.fairscheduler.poolnameproperty set to a constant)")
	}
	for _, e := range a.preemption(hadoop1Elements) {
		add("    %s", e)
	}
	add("  </allocations>")
}

// yarn writes YARN's allocation file.
func (a allocLines) yarn() {
	add, lim := a.add, a.cl.Pools.Limits
	// FIFO with delay scheduling is every job in one queue that orders
	// by submission: YARN refuses fifo as the default policy.
	const fifoQueue, allToIt = `<queue name="default"><schedulingPolicy>fifo</schedulingPolicy></queue>`, `<queuePlacementPolicy><rule name="default"/></queuePlacementPolicy>`
	var set []string
	if a.policy != "fair" {
		set = append(set, fmt.Sprintf("<defaultQueueSchedulingPolicy>%s</defaultQueueSchedulingPolicy> (and in each queue that sets its own schedulingPolicy)", a.policy))
	}
	if a.fifoPools {
		set = append(set, fifoQueue+", and in place of the placement policy "+allToIt+": every job in one queue, in submission order")
	}
	if a.setPre {
		set = append(set, a.preemption(yarnElements)...)
	}
	if a.own(set) {
		return
	}
	if len(a.cl.Pools.Pools) == 0 && !a.fifoPools {
		add("  (no queues configured: a queue a user, as yarn.scheduler.fair.user-as-default-queue true, the default)")
	}
	add("  <allocations>")
	add("    <defaultQueueSchedulingPolicy>%s</defaultQueueSchedulingPolicy>", a.policy)
	if a.fifoPools {
		add("    " + fifoQueue)
		add("    " + allToIt)
		add("    (FIFO order with delay scheduling: every job in one queue, in submission order; YARN refuses fifo as the default policy)")
	}
	pools := a.cl.Pools.Pools
	if a.fifoPools {
		pools = nil // every job goes to the one queue
	}
	for _, p := range pools {
		var inner []string
		if p.MinShare > 0 {
			inner = append(inner, fmt.Sprintf("<minResources>%d mb,%d vcores</minResources>", p.MinShare*1024, p.MinShare))
		}
		if p.MaxShare > 0 {
			inner = append(inner, fmt.Sprintf("<maxResources>%d mb,%d vcores</maxResources>", p.MaxShare*1024, p.MaxShare))
		}
		if p.Weight > 0 && p.Weight != 1 {
			inner = append(inner, "<weight>"+fmtNum(p.Weight)+"</weight>")
		}
		if p.Mode == "fifo" && !a.fifoPools {
			inner = append(inner, "<schedulingPolicy>fifo</schedulingPolicy>")
		}
		for _, t := range []struct {
			elem string
			s    float64
		}{{"minSharePreemptionTimeout", p.MinShareTimeoutS}, {"fairSharePreemptionTimeout", p.FairShareTimeoutS}} {
			if t.s > 0 {
				inner = append(inner, fmt.Sprintf("<%s>%s</%s>", t.elem, fmtNum(t.s), t.elem))
			}
		}
		if p.AllowPreemptionFrom != nil && !*p.AllowPreemptionFrom {
			inner = append(inner, "<allowPreemptionFrom>false</allowPreemptionFrom>")
		}
		inner = append(inner, yarnElements.poolLimit(lim.Pools[p.Name])...)
		add("    <queue name=\"%s\">%s</queue>", p.Name, strings.Join(inner, ""))
	}
	a.limits(yarnElements)
	if lim.PoolDefault > 0 && lim.Pools["root"] == 0 {
		add("    (YARN's queueMaxAppsDefault also caps each parent queue and root, at %d running apps in all, unless they set their own)", lim.PoolDefault)
	}
	for _, e := range a.preemption(yarnElements) {
		add("    %s", e)
	}
	add("  </allocations>")
	if slices.ContainsFunc(a.cl.Pools.Pools, func(p sched.PoolConfig) bool { return p.MinShare > 0 || p.MaxShare > 0 }) {
		add("  (minResources, maxResources: a container taken as 1024 mb and 1 vcore; scale to your containers)")
	}
}

// num reads a setting's value, or d when it is empty.
func num(v string, d float64) float64 {
	if v == "" {
		return d
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return d
	}
	return f
}

func ms(s float64) string { return strconv.FormatInt(int64(math.Round(s*1000)), 10) }

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
