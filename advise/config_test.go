package advise

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sched/allocations"
)

// The delay waits as YARN thresholds and Hadoop 1's delay, against a hand
// computation: 100 nodes heartbeating every 3 s give an application
// 100 / 3 = 33.3 scheduling opportunities a second; a 1 s node wait is
// 33.3 opportunities, 0.33 of the 100 nodes; a 2 s rack wait 66.7, 0.67.
// Hadoop 1 takes the node wait in ms: 1000.
func TestDelayConfigLinesMatchHandComputation(t *testing.T) {
	cl := Cluster{Nodes: 100, HeartbeatS: 3}
	c := Candidate{Policy: "delay", Settings: []Setting{{"t1_s", "1"}, {"t2_s", "2"}}}
	wantLines(t, "delay t1_s=1 t2_s=2 on 100 nodes at 3 s heartbeats", ConfigLines(c, cl),
		"<name>yarn.scheduler.fair.locality.threshold.node</name><value>0.33</value>",
		"<name>yarn.scheduler.fair.locality.threshold.rack</name><value>0.67</value>",
		"<name>mapred.fairscheduler.locality.delay</name><value>1000</value>",
		"<name>mapred.jobtracker.taskScheduler</name><value>org.apache.hadoop.mapred.FairScheduler</value>",
		"t2_s = 2 s cannot be set apart")
	// The defaults, 15 s each, are 5 heartbeats: thresholds of 5, which
	// YARN caps at 1, so the lines use its time-based delays.
	wantLines(t, "delay defaults", ConfigLines(Candidate{Policy: "delay"}, cl),
		"<name>yarn.scheduler.fair.continuous-scheduling-enabled</name><value>true</value>",
		"<name>yarn.scheduler.fair.locality-delay-node-ms</name><value>15000</value>",
		"<name>yarn.scheduler.fair.locality-delay-rack-ms</name><value>15000</value>",
		"<name>mapred.fairscheduler.locality.delay</name><value>15000</value>")
	if th, ok := LocalityThreshold(1, 3); !ok || math.Abs(th-1.0/3) > 1e-12 {
		t.Errorf("LocalityThreshold(1 s, 3 s) = %v, %v; want 1/3, true", th, ok)
	}
}

// TestConfigLinesReadBack: the site lines advise prints, read back as the
// site file a cluster would hold, give the waits advised: YARN's within
// the rounding of a threshold to two places (0.005 heartbeats), Hadoop
// 1.2.1's the node wait at both levels, as it has one delay.
func TestConfigLinesReadBack(t *testing.T) {
	cl := Cluster{Nodes: 100, HeartbeatS: 3}
	for _, c := range []struct {
		t1, t2 string
	}{{"1", "2"}, {"0.5", "3"}, {"15", "15"}, {"2", "30"}, {"0", "0"}} {
		cand := Candidate{Policy: "delay", Settings: []Setting{{"t1_s", c.t1}, {"t2_s", c.t2}}}
		lines := ConfigLines(cand, cl)
		t1, t2 := num(c.t1, -1), num(c.t2, -1)
		for _, f := range []struct {
			file       string
			node, rack float64
			tol        float64
		}{{"yarn-site.xml", t1, t2, 0.005 * cl.HeartbeatS}, {"mapred-site.xml", t1, t1, 0}} {
			var xml strings.Builder
			xml.WriteString("<configuration>\n")
			for _, l := range lines {
				if v, ok := strings.CutPrefix(strings.TrimSpace(l), f.file+": "); ok {
					xml.WriteString(v + "\n")
				}
			}
			xml.WriteString("</configuration>\n")
			site, err := allocations.ParseSite(strings.NewReader(xml.String()), f.file)
			if err != nil {
				t.Fatalf("%s, %s: %v", cand.Label(), f.file, err)
			}
			node, rack := site.LocalityWaits(cl.HeartbeatS)
			// The allocation file's path is named, as read from -allocations
			// instead; any other warning is a line that does not apply.
			others := slices.DeleteFunc(slices.Clone(site.Warnings), func(w string) bool { return strings.Contains(w, ".allocation.file:") })
			if node == nil || rack == nil || math.Abs(*node-f.node) > f.tol+1e-12 || math.Abs(*rack-f.rack) > f.tol+1e-12 || len(others) > 0 {
				t.Errorf("%s: %s read back gives waits %v, %v, warnings %q; want %v, %v (within %v s), no warning but the allocation file's:\n%s",
					cand.Label(), f.file, deref(node), deref(rack), others, f.node, f.rack, f.tol, xml.String())
			}
			if on, set := site.Preemption(); !set || on {
				t.Errorf("%s: %s read back gives preemption %v (set %v); want it set, off", cand.Label(), f.file, on, set)
			}
		}
	}
}

// TestConfigLinesKeepJobLimits: the cluster's running-job limits are in
// the allocation files advise prints, and read back as they were: a
// pool's limit in its element, a limit of a name no pool has in its own,
// the default as poolMaxJobsDefault (Hadoop 1) and queueMaxAppsDefault
// (YARN), and the users' in <user> elements and the users' default.
func TestConfigLinesKeepJobLimits(t *testing.T) {
	keep := false
	cl := Cluster{Nodes: 10, HeartbeatS: 3, Pools: sched.PoolSettings{
		Pools:  []sched.PoolConfig{{Name: "etl", MinMaps: 2, MinShareTimeoutS: 30, FairShareTimeoutS: 90, AllowPreemptionFrom: &keep}},
		Limits: sched.JobLimits{Pools: map[string]int{"etl": 2, "adhoc": 1}, PoolDefault: 4, Users: map[string]int{"sam": 3}, UserDefault: 5},
	}}
	lines := ConfigLines(Candidate{Policy: "fair"}, cl)
	var files []string
	var cur *strings.Builder
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "<allocations>":
			cur = &strings.Builder{}
			cur.WriteString(l)
		case cur != nil && strings.HasPrefix(l, "<"):
			cur.WriteString(l)
			if l == "</allocations>" {
				files, cur = append(files, cur.String()), nil
			}
		}
	}
	if len(files) != 2 {
		t.Fatalf("%d allocation files in the lines; want Hadoop 1's and YARN's:\n%s", len(files), strings.Join(lines, "\n"))
	}
	for i, f := range files {
		a, err := allocations.Parse(strings.NewReader(f), "fair-scheduler.xml")
		if err != nil {
			t.Fatalf("file %d: %v\n%s", i, err, f)
		}
		got := map[string]int{}
		for _, q := range a.Queues {
			got[q.Name] = q.MaxRunning
			if q.Name != "etl" {
				continue
			}
			// The pool's own timeouts: YARN has both; Hadoop 1 the
			// min-share one, and a note says the other cannot be set.
			wantFair := 90.0
			if a.Kind == allocations.Hadoop1 {
				wantFair = 0
			}
			if q.MinSharePreemptionTimeoutS != 30 || q.FairSharePreemptionTimeoutS != wantFair {
				t.Errorf("%s file: etl's timeouts %v, %v; want 30, %v", a.Kind, q.MinSharePreemptionTimeoutS, q.FairSharePreemptionTimeoutS, wantFair)
			}
			if q.NoPreemptionFrom != (a.Kind == allocations.YARN) {
				t.Errorf("%s file: etl keeps its tasks from preemption: %v; want it in YARN's file, which can say so", a.Kind, q.NoPreemptionFrom)
			}
		}
		if got["etl"] != 2 || got["adhoc"] != 1 || a.PoolMaxJobsDefault != 4 || a.UserMaxRunning["sam"] != 3 || a.UserMaxJobsDefault != 5 || len(a.Warnings) > 0 {
			t.Errorf("%s file: limits %v, default %d, users %v, default %d, warnings %q; want etl 2, adhoc 1, default 4, sam 3, default 5, no warning:\n%s",
				a.Kind, got, a.PoolMaxJobsDefault, a.UserMaxRunning, a.UserMaxJobsDefault, a.Warnings, f)
		}
	}
}

// TestConfigLinesKeepTheOperatorsAllocationFile: when the runs read the
// operator's own allocation file, the lines keep it and name what to set
// in it, rather than print a new file without its pools.
func TestConfigLinesKeepTheOperatorsAllocationFile(t *testing.T) {
	cl := Cluster{Nodes: 10, HeartbeatS: 3, AllocationFile: "conf/fair-scheduler.xml"}
	for _, tc := range []struct {
		cand       Candidate
		want, lack []string
	}{
		{Candidate{Policy: "fair"}, []string{"keep conf/fair-scheduler.xml as it is"}, []string{"<allocations>", "allocation.file"}},
		{Candidate{Policy: "drf"}, []string{"keep conf/fair-scheduler.xml (the runs read its pools, placement and limits), and set in <allocations>:", "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"},
			[]string{"<allocations>", "allocation.file"}},
		{Candidate{Policy: "fair", Settings: []Setting{{"preemption.enabled", "true"}, {"preemption.min_share_timeout_s", "10"}, {"preemption.fair_share_timeout_s", "60"}}},
			[]string{"<defaultMinSharePreemptionTimeout>10</defaultMinSharePreemptionTimeout>", "<fairSharePreemptionTimeout>60</fairSharePreemptionTimeout>", "<defaultFairSharePreemptionTimeout>60<"},
			[]string{"<allocations>"}},
	} {
		lines := ConfigLines(tc.cand, cl)
		wantLines(t, tc.cand.Label(), lines, tc.want...)
		for _, l := range lines {
			for _, no := range tc.lack {
				if strings.TrimSpace(l) == no || strings.Contains(l, "<name>") && strings.Contains(l, no) {
					t.Errorf("%s: line %q; want none with %q: the operator's file stays, named where it is", tc.cand.Label(), l, no)
				}
			}
		}
	}
}

// TestConfigLinesFIFODelayOnYARN: YARN refuses fifo as the default
// policy, so FIFO with delay scheduling is one queue that orders by
// submission, every job placed in it; the printed file reads back so.
func TestConfigLinesFIFODelayOnYARN(t *testing.T) {
	lines := ConfigLines(Candidate{Policy: "fifo-delay"}, Cluster{Nodes: 10, HeartbeatS: 3})
	var f strings.Builder
	in := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "YARN (fair-scheduler.xml):" {
			in = true
		}
		if in && strings.HasPrefix(l, "<") {
			f.WriteString(l)
		}
	}
	a, err := allocations.Parse(strings.NewReader(f.String()), "fair-scheduler.xml")
	if err != nil {
		t.Fatalf("YARN's file for fifo-delay: %v; want one YARN loads:\n%s", err, f.String())
	}
	if pool, err := a.PoolFor("alice", "etl"); err != nil || pool != "default" || len(a.Queues) != 1 || a.Queues[0].Mode != "fifo" {
		t.Errorf("jobs go to %q (%v), queues %d; want every job in default, one queue, fifo:\n%s", pool, err, len(a.Queues), f.String())
	}
}

func deref(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func TestConfigLinesPerPolicy(t *testing.T) {
	cl := Cluster{Nodes: 10, HeartbeatS: 1}
	for _, c := range []struct {
		cand Candidate
		want []string
	}{
		{Candidate{Policy: "fifo"}, []string{"JobQueueTaskScheduler", "fifo.FifoScheduler"}},
		{Candidate{Policy: "fair"}, []string{"<value>0</value>", "fair.FairScheduler", "<defaultQueueSchedulingPolicy>fair<"}},
		{Candidate{Policy: "fair", Settings: []Setting{{"preemption.enabled", "true"}, {"preemption.min_share_timeout_s", "10"}, {"preemption.fair_share_timeout_s", "60"}}},
			[]string{"mapred.fairscheduler.preemption</name><value>true", "<fairSharePreemptionTimeout>60<", "<defaultFairSharePreemptionTimeout>60<", "yarn.scheduler.fair.preemption</name><value>true",
				// The runs starved a pool below its whole fair share, the
				// paper's rule; YARN's default is half, Hadoop 1's fixed.
				"<defaultFairSharePreemptionThreshold>1</defaultFairSharePreemptionThreshold>", "Hadoop 1 starves a pool below half its fair share; these runs did below 1 of it",
				"yarn.scheduler.fair.preemption.cluster-utilization-threshold</name><value>0<"}},
		{Candidate{Policy: "drf"}, []string{"has no dominant resource fairness", "<defaultQueueSchedulingPolicy>drf<"}},
		{Candidate{Policy: "nas", Settings: []Setting{{"wait_s", "5"}}}, []string{"Stock Hadoop has no nas scheduler", "NAS", "wait_s = 5"}},
	} {
		lines := ConfigLines(c.cand, cl)
		wantLines(t, c.cand.Label(), lines, c.want...)
		if slices.Contains(lines, "") {
			t.Errorf("%s: an empty line", c.cand.Label())
		}
	}
}

// wantLines checks that the configuration lines for what hold each of
// wants somewhere, and shows them all when one is missing.
func wantLines(t *testing.T, what string, lines []string, wants ...string) {
	t.Helper()
	all := strings.Join(lines, "\n")
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("%s: lines lack %q; got\n%s", what, w, all)
		}
	}
}

// TestConfigLinesKeepSizeBasedWeight: the runs' weighing of jobs by
// demand is in both site files, with a note where the scheduler weighs
// by the other measure.
func TestConfigLinesKeepSizeBasedWeight(t *testing.T) {
	cl := Cluster{Nodes: 10, HeartbeatS: 3, Pools: sched.PoolSettings{SizeBasedWeight: "tasks"}}
	wantLines(t, "fair, sized by tasks", ConfigLines(Candidate{Policy: "fair"}, cl),
		"<name>mapred.fairscheduler.sizebasedweight</name><value>true</value>",
		"<name>yarn.scheduler.fair.sizebasedweight</name><value>true</value>",
		"YARN weighs a job by its memory demand")
}
