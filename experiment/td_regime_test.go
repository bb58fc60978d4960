package experiment

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

// TestTDRegimeSetUps pins td/regime's seven set-ups: td/queues' own, each
// cost alone, and all on, with every value README-td.md's rules give.
func TestTDRegimeSetUps(t *testing.T) {
	hdd := cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 138, SeekMs: 12.4, ChunkKB: 4096}
	base := tdCluster()
	type want struct {
		racks, perRack int
		uplinkMbps     float64
		disk           *cluster.Disk
		diskMBps       float64
		replica        cluster.ReplicaChoice
		hbOnly         bool
		startupS       float64
	}
	none := want{1, 50, base.RackUplinkMbps, nil, base.DiskMBps, "", false, 0}
	with := func(f func(*want)) want { w := none; f(&w); return w }
	cases := []struct {
		name string
		want want
	}{
		{"none (td/queues)", none},
		{"2 racks, 5:1", with(func(w *want) { w.racks, w.perRack, w.uplinkMbps = 2, 25, 5000 })},
		{"hdd", with(func(w *want) { w.disk, w.diskMBps = &hdd, 138 })},
		{"0.20 replicas", with(func(w *want) { w.replica = cluster.Hadoop020 })},
		{"3 s heartbeats only", with(func(w *want) { w.hbOnly = true })},
		{"4 s start-up", with(func(w *want) { w.startupS = 4 })},
		{"all on", want{2, 25, 5000, &hdd, 138, cluster.Hadoop020, true, 4}},
		{"all on, 20:1 (td/map)", want{2, 25, 1250, &hdd, 138, cluster.Hadoop020, true, 4}},
	}
	regs, err := tdRegimes()
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) != len(cases) {
		t.Fatalf("%d set-ups, want %d", len(regs), len(cases))
	}
	for i, tc := range cases {
		r := regs[i]
		if r.name != tc.name {
			t.Errorf("set-up %d is %q, want %q", i, r.name, tc.name)
			continue
		}
		c := tdCluster()
		r.apply(&c)
		w := tc.want
		if c.Racks != w.racks || c.NodesPerRack != w.perRack || c.RackUplinkMbps != w.uplinkMbps {
			t.Errorf("%s: %d racks of %d, uplink %v Mbit/s; want %d of %d, %v", r.name, c.Racks, c.NodesPerRack, c.RackUplinkMbps, w.racks, w.perRack, w.uplinkMbps)
		}
		if over := float64(c.NodesPerRack) * c.NICMbps / c.RackUplinkMbps; c.Racks == 2 && over != 5 && i != len(cases)-1 {
			t.Errorf("%s: over-subscription %v:1, want 5:1", r.name, over)
		}
		if (c.Disk == nil) != (w.disk == nil) || (c.Disk != nil && *c.Disk != *w.disk) || c.DiskMBps != w.diskMBps {
			t.Errorf("%s: disk %+v at %v MB/s, want %+v at %v", r.name, c.Disk, c.DiskMBps, w.disk, w.diskMBps)
		}
		if c.ReplicaChoice != w.replica || r.heartbeatOnly != w.hbOnly {
			t.Errorf("%s: replica choice %q, heartbeats only %v; want %q, %v", r.name, c.ReplicaChoice, r.heartbeatOnly, w.replica, w.hbOnly)
		}
		e := r.engine().WithDefaults()
		if e.HeartbeatS != 3 || e.TaskStartupS != w.startupS || e.Speculative || e.SortBufferMB != 0 {
			t.Errorf("%s: engine %+v; want 3 s heartbeats, %v s start-up, no other cost", r.name, e, w.startupS)
		}
		if c.MapSlots != 2 || c.ReduceSlots != 2 || c.NICMbps != 1000 || c.BlockMB != 64 || c.Replication != 3 {
			t.Errorf("%s: changed what td/queues fixes: %+v", r.name, c)
		}
		if _, err := cluster.New(c); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
}

// TestTDMapGrid: the map's axes, its cells' set-ups and its marks.
func TestTDMapGrid(t *testing.T) {
	m, err := tdMap()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Xs) != 5 || len(m.Ys) != 4 || m.Policy.Name != "td" || m.Baseline.Name != "fifo" {
		t.Fatalf("map %v x %v, %s over %s", m.Xs, m.Ys, m.Policy.Name, m.Baseline.Name)
	}
	want := map[[2]int]string{{0, 2}: "paper's hardware, one switch", {2, 2}: "td/regime all on"}
	if len(m.Marks) != len(want) {
		t.Errorf("marks %v, want %v", m.Marks, want)
	}
	for k, v := range want {
		if m.Marks[k] != v {
			t.Errorf("mark at %v = %q, want %q", k, m.Marks[k], v)
		}
	}
	r := tdMapRegime(mustHDD(t), 10, 24.8)
	c := tdCluster()
	r.apply(&c)
	if c.RackUplinkMbps != 2500 || c.Disk.SeekMs != 24.8 || c.Disk.SeqMBps != 138 || !r.heartbeatOnly || r.startupS != 4 || c.ReplicaChoice != cluster.Hadoop020 {
		t.Errorf("cell 10:1, 24.8 ms: %+v, disk %+v, %+v", c, c.Disk, r)
	}
	if all := tdAllOn(mustHDD(t)); all.disk.SeekMs != 12.4 {
		t.Errorf("tdMapRegime changed the all-on set-up's disk: %+v", all.disk)
	}
	if f := tdMapFigure(); f == nil || f.Heat == nil || f.Heat.Value != "throughput_ratio" {
		t.Errorf("td/map's figure %+v: want a heat figure of the throughput ratio", f)
	}
}

// launchClock records when each map and reduce launched, by node.
type launchClock struct {
	sched.Policy
	at []struct {
		node cluster.NodeID
		t    float64
	}
}

func (l *launchClock) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	if o, ok := l.Policy.(sched.TaskObserver); ok {
		o.TaskLaunched(c, j, k, n)
	}
	l.at = append(l.at, struct {
		node cluster.NodeID
		t    float64
	}{n, c.Now()})
}

func (l *launchClock) JobAdded(c sched.Cluster, j *sched.Job) {
	if o, ok := l.Policy.(sched.JobObserver); ok {
		o.JobAdded(c, j)
	}
}

func (l *launchClock) JobRemoved(c sched.Cluster, j *sched.Job) {
	if o, ok := l.Policy.(sched.JobObserver); ok {
		o.JobRemoved(c, j)
	}
}

func (l *launchClock) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if o, ok := l.Policy.(sched.TaskObserver); ok {
		o.TaskEnded(c, j, k, n, killed)
	}
}

// TestHeartbeatOnlyLaunchesOnBeats: with the wrapper every task launches at
// one of its node's heartbeats, as the engine lays them out; without it
// some launch at once when a task ends.
func TestHeartbeatOnlyLaunchesOnBeats(t *testing.T) {
	jobs := smallTDQueue(t)
	const period, nodes = 3.0, 50
	offBeat := func(l *launchClock) int {
		n := 0
		for _, a := range l.at {
			phase := period * float64(a.node) / nodes
			k := math.Round((a.t - phase) / period)
			if math.Abs(a.t-(phase+k*period)) > probe.HeartbeatTolS {
				n++
			}
		}
		return n
	}
	for _, hb := range []bool{true, false} {
		r := tdRegime{name: "heartbeats", heartbeatOnly: hb}
		var l *launchClock
		_, err := tdSim{jobs: jobs, policy: tdFIFO, seed: 1, setup: r}.simulate("FIFO", func(p sched.Policy) sched.Policy {
			l = &launchClock{Policy: p}
			return l
		})
		if err != nil {
			t.Fatal(err)
		}
		switch n := offBeat(l); {
		case len(l.at) == 0:
			t.Fatalf("heartbeats only %v: no launch recorded", hb)
		case hb && n > 0:
			t.Errorf("heartbeats only: %d of %d launches between a node's heartbeats", n, len(l.at))
		case !hb && n == 0:
			t.Errorf("with the out-of-band offer no launch fell between heartbeats (%d launches): the test sees nothing", len(l.at))
		}
	}
}

// TestTDRegimeRuns runs a 20 GB small queue under td/regime's set-ups:
// td/queues' own gives what td/queues' run gives, and all on finishes
// every job under each scheduler, with probe.HotWatch's hotspot count, under
// 0.20's replica order and two racks, equal to TD's own.
func TestTDRegimeRuns(t *testing.T) {
	jobs := smallTDQueue(t)
	regs, err := tdRegimes()
	if err != nil {
		t.Fatal(err)
	}
	none, all := regs[0], regs[len(regs)-2]
	for _, p := range tdPolicies {
		old, err := tdSim{jobs: jobs, policy: p, seed: 1}.run(p.Label, true, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tdSim{jobs: jobs, policy: p, seed: 1, setup: none}.run(p.Label, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if got.completionS != old.completionS || got.localRatio != old.localRatio {
			t.Errorf("%s: td/regime's %q gives %.3f s, %.4f local; td/queues' run %.3f s, %.4f", p.Label, none.name,
				got.completionS, got.localRatio, old.completionS, old.localRatio)
		}
		out, err := tdSim{jobs: jobs, policy: p, seed: 1, setup: all}.run(p.Label, true, true)
		if err != nil {
			t.Fatal(err)
		}
		checkHotspots(t, out, "all on, TD")
		if out.stretchL < 1 || out.completionS <= old.completionS {
			t.Errorf("%s all on: stretch %.3f, completion %.1f s against %.1f s: the costs should only slow it", p.Label, out.stretchL, out.completionS, old.completionS)
		}
	}
}

// mustHDD is the hadoop1-hdd profile the regimes take, or the test's end.
func mustHDD(t *testing.T) scenario.Profile {
	t.Helper()
	p, err := hddProfile()
	if err != nil {
		t.Fatalf("the built-in profile the regimes need: %v", err)
	}
	return p
}

// TestSWRegimePolicyIndexNamesMissingPolicy: a pair naming a policy the
// runs leave out is an error naming it, returned before any run, not a
// panic after them.
func TestSWRegimePolicyIndexNamesMissingPolicy(t *testing.T) {
	pols := []harness.PolicySpec{swFair, swDelay, swDRF, swSWFair, swSWRelaxed, swSWDRF}
	cases := []struct {
		name    string
		pols    []harness.PolicySpec
		pairs   [][2]harness.PolicySpec
		missing string
	}{
		{"every policy present", pols, swRegimePairs, ""},
		{"a pair's variant missing", pols[:5], swRegimePairs, swSWDRF.Label},
		{"Delay missing, which the operating point reads", []harness.PolicySpec{swFair, swSWFair}, [][2]harness.PolicySpec{{swSWFair, swFair}}, swDelay.Label},
	}
	for _, tc := range cases {
		idx, err := swRegimePolicyIndex(tc.pols, tc.pairs)
		switch {
		case tc.missing == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.missing == "" && idx[swSWDRF.Label] != 5:
			t.Errorf("%s: index %v, want each label at its place in the list", tc.name, idx)
		case tc.missing != "" && (err == nil || !strings.Contains(err.Error(), strconv.Quote(tc.missing))):
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.missing)
		}
	}
}
