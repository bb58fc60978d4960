package sched

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
)

// tdAMTs gives each test job kind a default amt(j): io 2 s, mid 10 s,
// cpu 40 s.
var tdAMTs = TDParams{AMTByKindS: map[string]float64{"io": 2, "mid": 10, "cpu": 40}}

// TestTDAlgorithm2 checks AssignTask(n, s) on three adult jobs and an
// infantile one, all of demand 10 (so [L, H] x demand = [7, 13]):
//
//	io  (amt 2):  blocks on node 0 x2, node 1 x2
//	mid (amt 10): node 2 x3
//	cpu (amt 40): node 0 x1, node 1 x3, node 2 x1, node 3 x2
//	inf (amt 10): node 4 x2, infantile
//
// so the remaining work R_n = Σ amt x rs_jn is node 0: 2x2 + 40 = 44,
// node 1: 2x2 + 40x3 = 124, node 2: 10x3 + 40 = 70, node 3: 80, node 4: 20.
// T = 39 keeps the infantile job infantile (formula 3: 30 + 10 > 39).
func TestTDAlgorithm2(t *testing.T) {
	type setup struct {
		occ [3]int           // io, mid, cpu
		hot []cluster.NodeID // nodes at the connection limit
	}
	cases := []struct {
		name     string
		setup    setup
		node     cluster.NodeID
		wantJob  string // "" = decline
		wantRule string
		wantSrc  cluster.NodeID
		why      string
		// HSkips and IdleOffers the offer must count: adults (or the
		// infantile job) with a map on the node passed over at H x
		// demand, and a decline while maps remain.
		wantHSkips, wantIdle int
	}{
		{"local goes to the lowest-amt adult", setup{occ: [3]int{8, 8, 8}}, 0, "io", RuleTDLocal, 0,
			"lines 1-5: io and cpu have maps on node 0; io comes first in ascending amt", 0, 0},
		{"local skips an adult at H x demand", setup{occ: [3]int{13, 8, 8}}, 0, "cpu", RuleTDLocal, 0,
			"line 3: io holds 13 = H x demand slots", 1, 0},
		{"local falls to the infantile job", setup{occ: [3]int{8, 8, 8}}, 4, "inf", RuleTDInfantileLocal, 4,
			"lines 6-8: no adult has a map on node 4, the infantile job has", 0, 0},
		{"non-local goes to the highest-amt adult and the node with most work", setup{occ: [3]int{8, 8, 8}}, 5, "cpu", RuleTDNonLocal, 1,
			"lines 9-13: node 5 holds nothing; cpu is last in amt order; of its nodes, node 1 has the largest R_n (124)", 0, 0},
		{"non-local skips an adult at H x demand", setup{occ: [3]int{8, 8, 13}}, 5, "mid", RuleTDNonLocal, 2,
			"line 10: cpu is at H x demand, mid is next in reverse amt order; its only node is 2", 0, 0},
		{"non-local avoids a node at the connection limit", setup{occ: [3]int{8, 8, 8}, hot: []cluster.NodeID{1}}, 5, "cpu", RuleTDNonLocal, 3,
			"GetNonHotspotNode drops node 1 (θ connections); node 3 (R 80) beats node 2 (70) and node 0 (44)", 0, 0},
		{"non-local falls to the infantile job", setup{occ: [3]int{13, 13, 13}}, 5, "inf", RuleTDInfantileNonLocal, 4,
			"lines 14-16: every adult is at H x demand", 0, 0},
		{"declines when no node can serve", setup{occ: [3]int{13, 13, 13}, hot: []cluster.NodeID{4}}, 5, "", "", 0,
			"every adult is at H and the infantile job's only node is at the connection limit", 0, 1},
		{"H passes over every local adult", setup{occ: [3]int{13, 13, 13}}, 0, "inf", RuleTDInfantileNonLocal, 4,
			"io and cpu have maps on node 0 but hold H x demand; the infantile job has none there, so it reads from node 4", 2, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTDEnv(t, 39, tdAMTs)
			jobs := map[string]*Job{
				"io":  e.job("io", 10, 0, 0, 1, 1),
				"mid": e.job("mid", 10, 2, 2, 2),
				"cpu": e.job("cpu", 10, 0, 1, 1, 1, 2, 3, 3),
				"inf": e.job("mid", 10, 4, 4),
			}
			for k, name := range []string{"io", "mid", "cpu"} {
				e.put(jobs[name], TDAdult, c.setup.occ[k])
			}
			e.put(jobs["inf"], TDInfantile, 0)
			for _, n := range c.setup.hot {
				for range e.p.cfg.conn {
					e.p.hot.push(n, 0)
				}
			}
			d, ok := e.assign(c.node)
			if st := e.p.Stats(); st.HSkips != c.wantHSkips || st.IdleOffers != c.wantIdle {
				t.Errorf("counted %d H skips and %d idle offers, want %d and %d: %s", st.HSkips, st.IdleOffers, c.wantHSkips, c.wantIdle, c.why)
			}
			if c.wantJob == "" {
				if ok {
					t.Fatalf("TD assigned job %d (%s) on node %d, want a decline: %s", d.Job.Index, d.Rule, c.node, c.why)
				}
				return
			}
			if !ok {
				t.Fatalf("TD declined node %d, want %s: %s", c.node, c.wantJob, c.why)
			}
			if want := jobs[c.wantJob]; d.Job != want || d.Rule != c.wantRule || !d.SourceSet || d.Source != c.wantSrc {
				t.Errorf("got job %d by %s reading node %d (set %v), want %s (job %d) by %s reading node %d: %s",
					d.Job.Index, d.Rule, d.Source, d.SourceSet, c.wantJob, want.Index, c.wantRule, c.wantSrc, c.why)
			}
		})
	}
}

// TestTDAlgorithm1 checks the two rules ahead of Algorithm 2: a slot freed
// by a job below L x demand goes back to it (line 2, the sticky slot of
// Fig. 4), and otherwise a teenaged job comes first (line 19).
func TestTDAlgorithm1(t *testing.T) {
	cases := []struct {
		name     string
		cpuOcc   int // cpu's running maps before one ends on node 0
		teen     bool
		wantJob  string
		wantRule string
		why      string
	}{
		{"a freed slot goes back to its job below L", 7, false, "cpu", RuleTDStickyNonLocal,
			"cpu drops to 6 < L x demand = 7, so node 0's freed slot is its own (read from node 1) although io has a local map"},
		{"a freed slot of a job at L is free", 8, false, "io", RuleTDLocal,
			"cpu drops to 7, not below L x demand, and Algorithm 2 gives node 0 to io's local map"},
		{"a teenaged job comes before the adults", 8, true, "teen", RuleTDTeenagedNonLocal,
			"line 19: S_tee is not empty; its first job gets the slot by Algorithm 3, non-locally from node 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTDEnv(t, 100, tdAMTs)
			io, cpu := e.job("io", 10, 0, 0), e.job("cpu", 10, 1, 1)
			e.put(io, TDAdult, 8)
			e.put(cpu, TDAdult, c.cpuOcc)
			jobs := map[string]*Job{"io": io, "cpu": cpu}
			if c.teen {
				jobs["teen"] = e.job("mid", 10, 2, 2)
				e.put(jobs["teen"], TDTeenaged, 0)
			}
			e.end(0, cpu)
			d, ok := e.assign(0)
			if !ok || d.Job != jobs[c.wantJob] || d.Rule != c.wantRule {
				t.Fatalf("got %+v (ok %v), want %s by %s: %s", d, ok, c.wantJob, c.wantRule, c.why)
			}
		})
	}
}

// TestTDConnectionLimit checks the hot queue: with θ = 2 a node that
// serves two recorded non-local reads is never chosen as a source until a
// tuple expires, σθ/β after it was added (64 MiB x 2 / 31.25 MB/s =
// 4.29 s). The job's blocks: 20 on node 1, 20 on node 2, 10 on node 3;
// node 5 holds none, so every map it runs is non-local.
func TestTDConnectionLimit(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{ConnectionLimit: 2})
	var blocks []cluster.NodeID
	blocks = append(append(append(blocks, tdNodes(20, 1)...), tdNodes(20, 2)...), tdNodes(10, 3)...)
	j := e.job("x", 50, blocks...)
	e.put(j, TDAdult, 40)
	ttl := float64(64<<20) * 2 / (250e6 / 8)

	served := map[cluster.NodeID]int{}
	for {
		d, ok := e.assign(5)
		if !ok {
			break
		}
		e.launch(5, d)
		served[d.Source]++
	}
	want := map[cluster.NodeID]int{1: 2, 2: 2, 3: 2}
	for n, k := range want {
		if served[n] != k {
			t.Errorf("node %d served %d reads at t=0, want %d: every node holding the job's maps up to θ = 2, then none (served %v)", n, served[n], k, served)
		}
	}
	e.now = ttl * 0.999
	if d, ok := e.assign(5); ok {
		t.Errorf("t=%.3f s: TD read from node %d, want a decline: every node is at θ until the tuples of t=0 expire at %.3f s", e.now, d.Source, ttl)
	}
	e.now = ttl
	d, ok := e.assign(5)
	if !ok || d.Source != 1 {
		t.Errorf("t=%.3f s: got %+v (ok %v), want a read from node 1: the tuples are overdue (t + σθ/β <= t_cur) and node 1 has the most remaining work (R ties with node 2 go to the lower ID)", e.now, d, ok)
	}
}

// TestTDCountsHotspots checks the event-based occurrence count and its
// split over fifths of the run: with hot_threshold 1, a second concurrent
// non-local read from node 1 is an occurrence.
func TestTDCountsHotspots(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{HotThreshold: 1})
	j := e.job("x", 10, tdNodes(10, 1)...)
	e.put(j, TDAdult, 8)
	e.assignAndLaunch(5) // t=0: 1 read from node 1
	e.now = 1
	e.assignAndLaunch(4) // 2 reads: occurrence at t=1
	e.now = 2
	e.end(5, j) // 1 read
	e.now = 9
	e.assignAndLaunch(5) // 2 reads: occurrence at t=9
	e.now = 10
	e.end(4, j)
	s := e.p.Stats()
	if s.Hotspots != 2 || s.HotspotsByStage != [5]int{1, 0, 0, 0, 1} {
		t.Errorf("hotspots %d by stage %v, want 2 as [1 0 0 0 1]: occurrences at t=1 and t=9 of a run from 0 to its last event at 10", s.Hotspots, s.HotspotsByStage)
	}
	if s.LocalMaps != 0 || s.NonLocalMaps != 3 || s.LocalRatio() != 0 {
		t.Errorf("local %d, non-local %d, ratio %v; want 0, 3, 0: node 1 ran none of the maps", s.LocalMaps, s.NonLocalMaps, s.LocalRatio())
	}
}

// TestTDMeasuresAMT checks amt(j): the default for the job's kind until a
// map finishes, then the mean launch-to-end time of its finished maps,
// which reorders the adult jobs.
func TestTDMeasuresAMT(t *testing.T) {
	e := newTDEnv(t, 100, tdAMTs)
	a, b := e.job("io", 10, 0, 0, 1, 1), e.job("cpu", 10, 2, 2, 3, 3)
	e.put(a, TDAdult, 8)
	e.put(b, TDAdult, 8)
	if d, _ := e.assign(5); d.Job != b {
		t.Fatalf("non-local choice went to job %d, want cpu (job 1): amt 40 > 2 by default", d.Job.Index)
	}
	e.assignAndLaunch(0) // io, local on node 0, at t=0
	e.now = 10
	e.assignAndLaunch(0) // io again at t=10
	e.now = 50
	e.end(0, a)
	e.now = 70
	e.end(0, a)
	st := e.p.Stats().Jobs[a.Index]
	if st.AMTS != 55 || st.MeasuredMaps != 2 {
		t.Errorf("amt(io) = %v from %d maps, want 55 from 2: maps ran 0-50 and 10-70", st.AMTS, st.MeasuredMaps)
	}
	if d, _ := e.assign(5); d.Job != a {
		t.Errorf("non-local choice went to job %d, want io (job 0): its measured amt 55 now exceeds cpu's 40", d.Job.Index)
	}
}

// TestTDReducesFIFOAmongAdmitted: a reduce slot goes to the oldest job TD
// has admitted, never to a waiting one.
func TestTDReducesFIFOAmongAdmitted(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{})
	w, a, b := e.job("x", 10, 0), e.job("x", 10, 1), e.job("x", 10, 2)
	e.put(a, TDAdult, 8)
	e.put(b, TDAdult, 8)
	for _, j := range e.jobs {
		j.ReducesEnabled = true
	}
	d, ok := e.p.Assign(e, Offer{Node: 0, Slot: ReduceSlot})
	if !ok || d.Job != a || d.Kind != ReduceTask || d.Rule != RuleTDReduce {
		t.Errorf("got %+v (ok %v), want a reduce of job %d by %s: job %d is older but still waiting", d, ok, a.Index, RuleTDReduce, w.Index)
	}
}

// TestTDMaxH checks formula (1) against the paper's numbers.
func TestTDMaxH(t *testing.T) {
	cases := []struct {
		name          string
		T, L, D, dmax float64
		want          float64 // to two decimals
		why           string
	}{
		{"Fig. 3a example", 1000, 0.7, 950, 350, 1.66, "section IV-A.1: (1000 - 0.7 x 950)/350 + 0.7"},
		{"section V-B queue", 100, 0.7, 100, 35, 1.56, "demands <= 35 summing to the 100 map slots"},
	}
	for _, c := range cases {
		got := TDMaxH(c.T, c.L, c.D, c.dmax)
		if r := float64(int(got*100+0.5)) / 100; r != c.want {
			t.Errorf("%s: TDMaxH = %.4f, want %.2f: %s", c.name, got, c.want, c.why)
		}
	}
}

// TestTDReportsHViolation: when a job joins the co-scheduled jobs and H is
// at or above formula (1)'s bound, the run goes on and Stats says so.
func TestTDReportsHViolation(t *testing.T) {
	cases := []struct {
		name      string
		adult     int // demand of the adult job
		infant    int // demand of the infantile job promoted
		want      int
		wantBound float64
		why       string
	}{
		{"violated", 60, 40, 1, 1.2, "D = 100, d_max = 60: (100 - 70)/60 + 0.7 = 1.2 <= H = 1.3"},
		{"respected", 35, 35, 0, (100-0.7*70)/35 + 0.7, "D = 70, d_max = 35: (100 - 49)/35 + 0.7 = 2.16 > 1.3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTDEnv(t, 100, TDParams{})
			a, i := e.job("x", c.adult, tdNodes(100, 0)...), e.job("x", c.infant, tdNodes(100, 1)...)
			e.put(a, TDAdult, c.adult)
			e.put(i, TDInfantile, 0)
			tdOffer(e)
			s := e.p.Stats()
			if e.status(i) != TDTeenaged || s.HViolations != c.want || s.MinHBound-c.wantBound > 1e-9 || c.wantBound-s.MinHBound > 1e-9 {
				t.Errorf("status %v, %d violations, bound %.4f; want teenaged, %d, %.4f: %s", e.status(i), s.HViolations, s.MinHBound, c.want, c.wantBound, c.why)
			}
			if c.want > 0 && (len(s.HViolationSamples) != 1 || s.HViolationSamples[0].D != 100 || s.HViolationSamples[0].DMax != 60) {
				t.Errorf("samples %+v, want one with D = 100, DMax = 60", s.HViolationSamples)
			}
		})
	}
}

// TestTDTellsWhichReadEnded: TaskEnded does not name the map, so when a
// node runs a local and a non-local map of one job, TD must find out which
// ended to keep the source's read count right. Blocks: node 0 x1, node 1
// x3; hot_threshold 1.
func TestTDTellsWhichReadEnded(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{HotThreshold: 1})
	j := e.job("x", 10, 0, 1, 1, 1)
	e.put(j, TDAdult, 7)
	if d := e.assignAndLaunch(0); d.Source != 0 {
		t.Fatalf("first map on node 0 read node %d, want its local block", d.Source)
	}
	remote := e.assignAndLaunch(0) // reads node 1
	e.assignAndLaunch(2)           // a second read of node 1: hotspot 1
	e.endMap(0, j, remote.Map)     // the non-local map on node 0 ends first
	e.assignAndLaunch(3)           // two reads of node 1 again: hotspot 2
	if s := e.p.Stats(); s.Hotspots != 2 {
		t.Errorf("hotspots = %d, want 2: node 1's reads went 1, 2, 1, 2 (counting the local map as ended would leave 2, 2, 3)", s.Hotspots)
	}
}
