package advise

import (
	"math"
	"slices"
	"strings"
	"testing"
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

func TestConfigLinesPerPolicy(t *testing.T) {
	cl := Cluster{Nodes: 10, HeartbeatS: 1}
	for _, c := range []struct {
		cand Candidate
		want []string
	}{
		{Candidate{Policy: "fifo"}, []string{"JobQueueTaskScheduler", "fifo.FifoScheduler"}},
		{Candidate{Policy: "fair"}, []string{"<value>0</value>", "fair.FairScheduler", "<defaultQueueSchedulingPolicy>fair<"}},
		{Candidate{Policy: "fair", Settings: []Setting{{"preemption.enabled", "true"}, {"preemption.min_share_timeout_s", "10"}, {"preemption.fair_share_timeout_s", "60"}}},
			[]string{"mapred.fairscheduler.preemption</name><value>true", "<fairSharePreemptionTimeout>60<", "<defaultFairSharePreemptionTimeout>60<", "yarn.scheduler.fair.preemption</name><value>true"}},
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
