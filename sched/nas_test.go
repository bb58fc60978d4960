package sched_test

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

func f64(v float64) *float64 { return &v }
func iptr(v int) *int        { return &v }
func sptr(v string) *string  { return &v }

// nasPolicy composes a FIFO order (users in submit order, so a test says
// whose turn it is) with a NAS placer.
func nasPolicy(t *testing.T, p sched.NASParams, o sched.NASOptions) (sched.Policy, *sched.NAS) {
	t.Helper()
	n, err := sched.NewNAS(p, o)
	if err != nil {
		t.Fatalf("NewNAS: %v", err)
	}
	return sched.Compose("nas-test", sched.FIFOOrder{}, n), n
}

var nasAll = sched.NASOptions{CARTS: true, CRRTS: true}

// Shuffle ratios that, on one 64 MB block, make a job of each class.
const (
	lightRatio  = 0.001 // 0.064 MB
	mediumRatio = 0.5   // 32 MB
	heavyRatio  = 4     // 256 MB
)

// TestNASTrafficThreshold checks equation 3, TrafficThreshold = m *
// sum(S_i) / sum(K_i), on hand-built job sets (m = 4 containers a node).
func TestNASTrafficThreshold(t *testing.T) {
	topo := swTopo(t)
	B := float64(topo.Config().BlockBytes())
	n0, n3 := []cluster.NodeID{0, 3}, []cluster.NodeID{1, 4}
	tests := []struct {
		name      string
		recurring float64
		build     func() []*sched.Job
		want      float64
		why       string
	}{
		{"unpredicted", 0, func() []*sched.Job {
			return []*sched.Job{swJob(t, topo, 0, "a", 0.25, n0, n3), swJob(t, topo, 1, "b", 2, n0, n3, n0)}
		}, 4 * (2*B + 3*B) / 5, "unpredicted jobs have ratio 1: S_i = input (2B + 3B), K = 5"},
		{"recurring", 1, func() []*sched.Job {
			return []*sched.Job{swJob(t, topo, 0, "a", 0.25, n0, n3), swJob(t, topo, 1, "b", 2, n0, n3, n0)}
		}, 4 * (0.5*B + 6*B) / 5, "recurring jobs know S_i at submission: 0.25*2B + 2*3B"},
		{"predicted", 0, func() []*sched.Job {
			a := swJob(t, topo, 0, "a", 0.25, n0, n3)
			finishMaps(a, 0.1*B, 0.3*B)
			return []*sched.Job{a, swJob(t, topo, 1, "b", 2, n0, n3, n0)}
		}, 4 * (0.4*B + 3*B) / 5, "a's two finished maps produced 0.4B: S_a = 0.4B; b is unpredicted, 3B"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(tc.recurring)}, nasAll)
			addJobs(t, c, c.fakeCluster, pol, tc.build()...)
			if got := nas.TrafficThreshold(c); !near(got, tc.want) {
				t.Errorf("TrafficThreshold = %.4g B, want %.4g B (%s)", got/B, tc.want/B, tc.why)
			}
		})
	}
}

// TestNASMTSShuffleQualified: MTS refuses a data-local map whose predicted
// output would overflow the node's shuffle space while another user's
// local map fits (Algorithm 2 line 3), unless TrafficThreshold is off.
func TestNASMTSShuffleQualified(t *testing.T) {
	topo := swTopo(t)
	B := float64(topo.Config().BlockBytes())
	far := []cluster.NodeID{4, 5}
	tests := []struct {
		name      string
		opt       sched.NASOptions
		wantJob   int
		wantSkipA int
		why       string
	}{
		{"with TT", nasAll, 1, 1, "TT = 4*(8B+0.5B)/16 = 2.1B: heavy job 0's 8B map overflows node 0, light job 1's 0.5B fits; user a is skipped"},
		{"without TT", sched.NASOptions{CARTS: true, CRRTS: true, NoTrafficThreshold: true}, 0, 0, "without TrafficThreshold every map qualifies: the first user's local map runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(1)}, tc.opt)
			heavy := swJob(t, topo, 0, "a", 8, []cluster.NodeID{0, 3})
			light := swJob(t, topo, 1, "b", 0.5, []cluster.NodeID{0, 4})
			blocks := make([][]cluster.NodeID, 14)
			for i := range blocks {
				blocks[i] = far
			}
			filler := swJob(t, topo, 2, "c", 0, blocks...)
			addJobs(t, c, c.fakeCluster, pol, heavy, light, filler)
			if tc.opt.NoTrafficThreshold == false {
				if got, want := nas.AvailableShuffle(c, 0), 4*8.5*B/16; !near(got, want) {
					t.Fatalf("AvailableShuffle(node 0) = %.3g B, want %.3g B (no map runs there)", got/B, want/B)
				}
			}
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot, Freed: true})
			if jobIdx(d, ok) != tc.wantJob || d.Rule != sched.RuleNASLocal {
				t.Fatalf("Assign = job %d rule %q, want job %d rule %q: %s", jobIdx(d, ok), d.Rule, tc.wantJob, sched.RuleNASLocal, tc.why)
			}
			if got := nas.MapSkips("a"); got != tc.wantSkipA {
				t.Errorf("user a's map skips = %d, want %d: %s", got, tc.wantSkipA, tc.why)
			}
			// The launched map takes its predicted output from the space.
			launch(t, c, pol, d, 0)
			if !tc.opt.NoTrafficThreshold {
				if got, want := nas.AvailableShuffle(c, 0), 4*8.5*B/16-0.5*B; !near(got, want) {
					t.Errorf("AvailableShuffle after launching the 0.5B map = %.3g B, want %.3g B", got/B, want/B)
				}
			}
		})
	}
}

// TestNASMapSkipCounter: a user with no local map is skipped D^m times
// (or for wait_s seconds), then gets a non-local shuffle-qualified map by
// category (line 8), and its counter resets.
func TestNASMapSkipCounter(t *testing.T) {
	topo := swTopo(t)
	tests := []struct {
		name  string
		p     sched.NASParams
		times []float64 // offer times
		want  []bool    // launch at each
		idle  []bool    // offers of an idle slot (not Freed); nil: every offer is a freed slot's
		why   string
	}{
		{"skips", sched.NASParams{MapSkips: iptr(3)}, []float64{0, 0, 0, 0}, []bool{false, false, false, true}, nil,
			"D^m = 3: three skips, then the fourth offer launches"},
		{"idle re-offers are not requests", sched.NASParams{MapSkips: iptr(2)}, []float64{0, 0, 0, 0, 0}, []bool{false, false, false, false, true},
			[]bool{false, true, true, false, true},
			"D^m = 2 counts requests (slots just freed): the two idle re-offers skip the user without counting, the fourth offer is its second skip, and the fifth, idle, launches"},
		{"every offer counts with skips_on: every-offer", sched.NASParams{MapSkips: iptr(2), SkipsOn: sptr(sched.NASSkipsOnEveryOffer)},
			[]float64{0, 0, 0}, []bool{false, false, true}, []bool{true, true, true},
			"skips_on: every-offer counts the idle re-offers: two skips, then the third offer launches"},
		{"default 135", sched.NASParams{}, nil, nil, nil, "D^m = 135 by default"},
		{"wait_s", sched.NASParams{WaitS: f64(5)}, []float64{0, 2, 4.9, 5}, []bool{false, false, false, true}, nil,
			"wait_s = 5: the spell starts at the first skip (t = 0) and the user is relaxed at t = 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.times == nil {
				for range sched.DefaultNASMapSkips {
					tc.times, tc.want = append(tc.times, 0), append(tc.want, false)
				}
				tc.times, tc.want = append(tc.times, 0), append(tc.want, true)
			}
			c := newSWCluster(topo)
			pol, nas := nasPolicy(t, tc.p, nasAll)
			j := swJob(t, topo, 0, "a", 0.5, []cluster.NodeID{3, 4}, []cluster.NodeID{4, 5})
			addJobs(t, c, c.fakeCluster, pol, j)
			for i, now := range tc.times {
				c.now = now
				freed := tc.idle == nil || !tc.idle[i]
				d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot, Freed: freed})
				if ok != tc.want[i] {
					t.Fatalf("offer %d at t=%v: launched %v, want %v (%s)", i, now, ok, tc.want[i], tc.why)
				}
				if ok && d.Rule != sched.RuleNASCategory {
					t.Errorf("offer %d: rule %q, want %q (a shuffle-qualified non-local map after the skips)", i, d.Rule, sched.RuleNASCategory)
				}
			}
			if got := nas.MapSkips("a"); got != 0 {
				t.Errorf("map skips after the launch = %d, want 0 (a launch resets D^m)", got)
			}
		})
	}
}

// TestNASReduceNum checks equation 4: ReduceNum = TotalReduceNum *
// MapOutputPortion.
func TestNASReduceNum(t *testing.T) {
	topo := swTopo(t)
	tests := []struct {
		name   string
		out    []float64
		want0  float64
		want1  float64
		reason string
	}{
		{"3:1", []float64{3e6, 1e6}, 7.5, 2.5, "3/4 of the output on rack 0: 10 * 0.75"},
		{"all on rack 1", []float64{0, 5e6}, 0, 10, "no output on rack 0"},
		{"no output yet", []float64{0, 0}, 5, 5, "no output: an even split"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, nas := nasPolicy(t, sched.NASParams{}, nasAll)
			j := swJob(t, topo, 0, "a", 1, []cluster.NodeID{0, 3})
			j.NumReduces, j.Spec.NumReduces = 10, 10
			copy(j.MapOutputByRack, tc.out)
			if g0, g1 := nas.ReduceNum(j, 0), nas.ReduceNum(j, 1); !near(g0, tc.want0) || !near(g1, tc.want1) {
				t.Errorf("ReduceNum = (%v, %v), want (%v, %v): %s", g0, g1, tc.want0, tc.want1, tc.reason)
			}
		})
	}
}

// nasReduceJob is a job of one user with its maps done and reduces
// enabled, of the given shuffle ratio; onRack0 puts its output on rack 0
// (ReduceNum on rack 0 = its reduces, not reached) or on rack 1 (ReduceNum
// on rack 0 = 0, reached).
func nasReduceJob(t *testing.T, topo *cluster.Topology, index int, pool string, ratio float64, onRack0 bool) *sched.Job {
	j := swJob(t, topo, index, pool, ratio, []cluster.NodeID{0, 3})
	j.NumReduces, j.Spec.NumReduces = 4, 4
	if onRack0 {
		finishMaps(j, 1e6, 0)
	} else {
		finishMaps(j, 0, 1e6)
	}
	return j
}

// TestNASCARTSCategories: each of Algorithm 3's six categories fires when
// no earlier category has a job (all jobs of one user, rack 0 uncongested).
func TestNASCARTSCategories(t *testing.T) {
	topo := swTopo(t)
	type spec struct {
		ratio   float64
		notDone bool // ReduceNum on rack 0 not reached
	}
	L, M, H := lightRatio, mediumRatio, float64(heavyRatio)
	tests := []struct {
		name string
		jobs []spec
		want int // index of the job expected
		rule string
	}{
		{"1 heavy not reached", []spec{{L, true}, {M, true}, {H, false}, {H, true}}, 3, "nas-carts-1"},
		{"2 medium not reached", []spec{{L, true}, {H, false}, {M, true}}, 2, "nas-carts-2"},
		{"3 light not reached", []spec{{H, false}, {M, false}, {L, false}, {L, true}}, 3, "nas-carts-3"},
		{"4 light reached", []spec{{H, false}, {M, false}, {L, false}}, 2, "nas-carts-4"},
		{"5 medium reached", []spec{{H, false}, {M, false}}, 1, "nas-carts-5"},
		{"6 heavy reached", []spec{{H, false}}, 0, "nas-carts-6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			pol, _ := nasPolicy(t, sched.NASParams{RecurringShare: f64(1)}, nasAll)
			var jobs []*sched.Job
			for i, s := range tc.jobs {
				jobs = append(jobs, nasReduceJob(t, topo, i, "u", s.ratio, s.notDone))
			}
			addJobs(t, c, c.fakeCluster, pol, jobs...)
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot})
			if jobIdx(d, ok) != tc.want || d.Rule != tc.rule || d.Kind != sched.ReduceTask {
				t.Errorf("Assign = job %d %v rule %q, want job %d's reduce by %q: the earlier categories have no job", jobIdx(d, ok), d.Kind, d.Rule, tc.want, tc.rule)
			}
		})
	}
}

// TestNASCRRTS: on a congested rack only shuffle-light reduces launch;
// a user with none is skipped (its medium/heavy reduces tagged delayed)
// until it has been skipped D^r times, then it gets any reduce.
func TestNASCRRTS(t *testing.T) {
	topo := swTopo(t)
	c := newSWCluster(topo)
	c.util[0] = 0.9
	pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(1), ReduceSkips: iptr(2)}, nasAll)
	heavy := nasReduceJob(t, topo, 0, "a", heavyRatio, true)
	light := nasReduceJob(t, topo, 1, "b", lightRatio, true)
	light.NumReduces, light.Spec.NumReduces = 10, 10
	addJobs(t, c, c.fakeCluster, pol, heavy, light)
	steps := []struct {
		job   int
		rule  string
		skips int
		why   string
	}{
		{1, sched.RuleNASLightReduce, 1, "user a has only a heavy job: skipped (1 of 2), user b's light reduce runs"},
		{1, sched.RuleNASLightReduce, 2, "user a skipped again (2 of 2)"},
		{0, sched.RuleNASAnyReduce, 0, "user a reached D^r = 2: any reduce of it runs, its counter resets"},
	}
	for i, s := range steps {
		d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.ReduceSlot, Freed: true})
		if jobIdx(d, ok) != s.job || d.Rule != s.rule {
			t.Fatalf("step %d: Assign = job %d rule %q, want job %d rule %q: %s", i, jobIdx(d, ok), d.Rule, s.job, s.rule, s.why)
		}
		if got := nas.ReduceSkips("a"); got != s.skips {
			t.Errorf("step %d: user a's reduce skips = %d, want %d: %s", i, got, s.skips, s.why)
		}
		if i == 0 && nas.Delayed(heavy) != 4 {
			t.Errorf("after a's skip its heavy job has %d delayed reduces, want its 4 pending", nas.Delayed(heavy))
		}
		launch(t, c, pol, d, 0)
	}
	// Rack 1 is not congested: CA-RTS serves it, user a first.
	if d, ok := pol.Assign(c, sched.Offer{Node: 3, Slot: sched.ReduceSlot}); jobIdx(d, ok) != 0 || d.Rule[:9] != "nas-carts" {
		t.Errorf("uncongested rack 1: Assign = job %d rule %q, want job 0 by CA-RTS (congestion is per rack)", jobIdx(d, ok), d.Rule)
	}
}

// TestNASCRRTSHoldsMaps: once CR-RTS ran on a congested rack, MTS does not
// start medium or heavy maps there until the congestion clears.
func TestNASCRRTSHoldsMaps(t *testing.T) {
	c, pol := nasHeldRack(t)
	if d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot}); jobIdx(d, ok) != 1 {
		t.Errorf("congested rack 0: map went to job %d, want light job 1 (heavy job 0's maps are held back)", jobIdx(d, ok))
	}
	c.util[0] = 0.1
	if d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot}); jobIdx(d, ok) != 0 {
		t.Errorf("congestion cleared: map went to job %d, want heavy job 0 (first in order, no longer held)", jobIdx(d, ok))
	}
}

// nasHeldRack returns nas (CR-RTS on, no TrafficThreshold) on a cluster
// whose rack 0 is congested (utilisation 0.9), after a reduce offer there
// made CR-RTS hold the rack's medium and heavy maps. Job 0 is heavy and
// job 1 light, both with maps on nodes 0 and 3; job 2 has a heavy reduce.
func nasHeldRack(t *testing.T) (*swCluster, sched.Policy) {
	t.Helper()
	topo := swTopo(t)
	c := newSWCluster(topo)
	c.util[0] = 0.9
	pol, _ := nasPolicy(t, sched.NASParams{RecurringShare: f64(1)}, sched.NASOptions{CARTS: true, CRRTS: true, NoTrafficThreshold: true})
	heavy := swJob(t, topo, 0, "a", heavyRatio, []cluster.NodeID{0, 3})
	light := swJob(t, topo, 1, "b", lightRatio, []cluster.NodeID{0, 3})
	red := nasReduceJob(t, topo, 2, "c", heavyRatio, true)
	addJobs(t, c, c.fakeCluster, pol, heavy, light, red)
	if _, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.ReduceSlot}); ok {
		t.Fatalf("a heavy reduce launched on a congested rack before any skip")
	}
	return c, pol
}

// TestNASIdleOfferLiftsHold: an offer nothing could take, seen while the
// rack is uncongested, lifts CR-RTS's hold as Assign would; one seen while
// it is still congested does not.
func TestNASIdleOfferLiftsHold(t *testing.T) {
	for _, tc := range []struct {
		name     string
		idleUtil float64 // the rack's utilisation when the idle offer comes
		want     int
		why      string
	}{
		{"cleared", 0.1, 0, "the idle offer found rack 0 uncongested and lifted the hold: heavy job 0, first in order, gets the map"},
		{"still congested", 0.9, 1, "the idle offer found rack 0 congested: heavy job 0's maps stay held, light job 1 gets the map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pol := nasHeldRack(t)
			idle := sched.IdleOffersOf(pol)
			if idle == nil {
				t.Fatal("nas with CR-RTS does not want idle offers; its hold could outlive the congestion")
			}
			c.util[0] = tc.idleUtil
			idle.OfferIdle(c, sched.Offer{Node: 1, Slot: sched.ReduceSlot})
			c.util[0] = 0.9
			if d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot}); jobIdx(d, ok) != tc.want {
				t.Errorf("map went to job %d, want job %d: %s", jobIdx(d, ok), tc.want, tc.why)
			}
		})
	}
}

// TestNASWantsIdleOffersOnlyWithCRRTS: only CR-RTS keeps state that an
// offer nothing could take changes.
func TestNASWantsIdleOffersOnlyWithCRRTS(t *testing.T) {
	for _, tc := range []struct {
		opt  sched.NASOptions
		want bool
	}{
		{sched.NASOptions{}, false},
		{sched.NASOptions{CARTS: true}, false},
		{sched.NASOptions{CARTS: true, CRRTS: true}, true},
	} {
		pol, _ := nasPolicy(t, sched.NASParams{}, tc.opt)
		if got := sched.IdleOffersOf(pol) != nil; got != tc.want {
			t.Errorf("%+v: wants idle offers = %v, want %v", tc.opt, got, tc.want)
		}
	}
}

// TestNASDelayedReducesFirst: once congestion clears, CA-RTS prefers a job
// whose reduces CR-RTS delayed over an earlier job of the same category.
func TestNASDelayedReducesFirst(t *testing.T) {
	topo := swTopo(t)
	for _, congestedFirst := range []bool{true, false} {
		c := newSWCluster(topo)
		pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(1)}, nasAll)
		early := swJob(t, topo, 0, "a", heavyRatio, []cluster.NodeID{0, 3})
		early.NumReduces, early.Spec.NumReduces = 4, 4
		late := nasReduceJob(t, topo, 1, "a", heavyRatio, true)
		addJobs(t, c, c.fakeCluster, pol, early, late)
		if congestedFirst {
			c.util[0] = 0.9
			if _, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.ReduceSlot}); ok {
				t.Fatalf("a heavy reduce launched under congestion before D^r skips")
			}
			if nas.Delayed(late) == 0 {
				t.Fatalf("CR-RTS skipped user a but did not tag job 1's reduces delayed")
			}
			c.util[0] = 0
		}
		finishMaps(early, 1e6, 0)
		want, why := 0, "no job is delayed: both heavy, ReduceNum not reached, maps done; the earlier job goes first"
		if congestedFirst {
			want, why = 1, "job 1's reduces were delayed by CR-RTS: within category 1 they go first"
		}
		d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.ReduceSlot})
		if jobIdx(d, ok) != want || d.Rule != "nas-carts-1" {
			t.Errorf("congested first %v: Assign = job %d rule %q, want job %d by nas-carts-1: %s", congestedFirst, jobIdx(d, ok), d.Rule, want, why)
		}
		if congestedFirst {
			before := nas.Delayed(late)
			launch(t, c, pol, d, 0)
			if nas.Delayed(late) != before-1 {
				t.Errorf("launching a delayed reduce left %d tags, want %d", nas.Delayed(late), before-1)
			}
		}
	}
}

// TestNASSkipAnalysis checks section III-C's example: with p = 0.1, q =
// 0.5 and three jobs, the chance of a data-local, shuffle-qualified map
// within d skips is 1 - prod (1 - p q)^d = 1 - 0.95^(3d): 78.5% at 10,
// 99.8% at 40.
func TestNASSkipAnalysis(t *testing.T) {
	p, q := []float64{0.1, 0.1, 0.1}, []float64{0.5, 0.5, 0.5}
	for _, tc := range []struct {
		d    int
		want float64 // the paper's percentage
	}{{10, 78.5}, {40, 99.8}} {
		got := sched.NASLocalMapProbability(p, q, tc.d)
		closed := 1 - math.Pow(0.95, float64(3*tc.d))
		if !near(got, closed) {
			t.Errorf("d=%d: %v, want the closed form 1 - 0.95^%d = %v", tc.d, got, 3*tc.d, closed)
		}
		if math.Round(got*1000)/10 != tc.want {
			t.Errorf("d=%d: %.2f%%, want the paper's %.1f%%", tc.d, 100*got, tc.want)
		}
	}
}

// TestNASRecurringShare: the recurring share picks a deterministic set of
// jobs whose ratio is known at submission.
func TestNASRecurringShare(t *testing.T) {
	topo := swTopo(t)
	for _, tc := range []struct {
		share  float64
		lo, hi int
	}{{0, 0, 0}, {0.5, 35, 65}, {1, 100, 100}} {
		c := newSWCluster(topo)
		pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(tc.share)}, nasAll)
		n := 0
		for i := range 100 {
			j := swJob(t, topo, i, "a", 0.25, []cluster.NodeID{0, 3})
			addJobs(t, c, c.fakeCluster, pol, j)
			if nas.Predicted(j) {
				n++
				if !near(nas.Ratio(j), 0.25) {
					t.Errorf("recurring job %d has ratio %v, want its specification's 0.25", i, nas.Ratio(j))
				}
			} else if nas.Ratio(j) != 1 {
				t.Errorf("unpredicted job %d has ratio %v, want 1 (section III-A)", i, nas.Ratio(j))
			}
		}
		if n < tc.lo || n > tc.hi {
			t.Errorf("share %v: %d of 100 jobs recurring, want %d-%d", tc.share, n, tc.lo, tc.hi)
		}
	}
}

// TestNASParamsRejected: bad or meaningless parameters are errors.
func TestNASParamsRejected(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    sched.NASFairParams
		new  func(sched.NASFairParams) (sched.Policy, error)
	}{
		{"negative threshold", sched.NASFairParams{NASParams: sched.NASParams{CongestionThreshold: f64(-1)}}, sched.NewNASFair},
		{"share above 1", sched.NASFairParams{NASParams: sched.NASParams{RecurringShare: f64(2)}}, sched.NewNASFair},
		{"heavy below light", sched.NASFairParams{NASParams: sched.NASParams{LightMB: f64(10), HeavyMB: f64(5)}}, sched.NewNASFair},
		{"wait and skips", sched.NASFairParams{NASParams: sched.NASParams{WaitS: f64(5), MapSkips: iptr(3)}}, sched.NewNASFair},
		{"reduce skips without CR-RTS", sched.NASFairParams{NASParams: sched.NASParams{ReduceSkips: iptr(3)}}, sched.NewNASMTSCARTS},
	} {
		if _, err := tc.new(tc.p); err == nil {
			t.Errorf("%s: accepted, want an error", tc.name)
		}
	}
}

// TestNASContainerRequest: in the container model the request is what the
// order's first candidate wants (job.KindAt's ramp); when that algorithm
// launches nothing, the other kind's is asked.
func TestNASContainerRequest(t *testing.T) {
	topo := swTopo(t)
	far := []cluster.NodeID{4, 5}
	tests := []struct {
		name     string
		mapFirst bool
		want     int
		kind     sched.TaskKind
		skipsA   int
		why      string
	}{
		{"map request skipped, reduce served", true, 1, sched.ReduceTask, 1,
			"job 0 (first) wants a map but has none local to node 0: MTS skips user a, then CA-RTS gives job 1 a reduce"},
		{"reduce request", false, 0, sched.ReduceTask, 0,
			"job 0 (first) has its maps done: the container is a reduce request, served by CA-RTS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSWCluster(topo)
			pol, nas := nasPolicy(t, sched.NASParams{}, nasAll)
			var a, b *sched.Job
			if tc.mapFirst {
				a = swJob(t, topo, 0, "a", 1, far)
				b = nasReduceJob(t, topo, 1, "b", 1, true)
			} else {
				a = nasReduceJob(t, topo, 0, "a", 1, true)
				b = swJob(t, topo, 1, "b", 1, far)
			}
			addJobs(t, c, c.fakeCluster, pol, a, b)
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot, Freed: true})
			if jobIdx(d, ok) != tc.want || d.Kind != tc.kind {
				t.Errorf("Assign = job %d %v (rule %q), want job %d %v: %s", jobIdx(d, ok), d.Kind, d.Rule, tc.want, tc.kind, tc.why)
			}
			if got := nas.MapSkips("a"); got != tc.skipsA {
				t.Errorf("user a's map skips = %d, want %d: %s", got, tc.skipsA, tc.why)
			}
		})
	}
}

// TestNASPlaceAllocatesNothing: once its tables have grown, Place
// allocates nothing, on every path (MTS skip and fallback, CA-RTS, CR-RTS).
func TestNASPlaceAllocatesNothing(t *testing.T) {
	topo := swTopo(t)
	c := newSWCluster(topo)
	pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(0.5)}, nasAll)
	addJobs(t, c, c.fakeCluster, pol,
		swJob(t, topo, 0, "a", 1, []cluster.NodeID{4, 5}, []cluster.NodeID{0, 3}),
		nasReduceJob(t, topo, 1, "b", heavyRatio, true),
		nasReduceJob(t, topo, 2, "c", lightRatio, false))
	for _, util := range []float64{0, 0.9} {
		c.util[0] = util
		for _, slot := range []sched.SlotKind{sched.AnySlot, sched.MapSlot, sched.ReduceSlot} {
			o := sched.Offer{Node: 1, Slot: slot}
			seq := func(yield func(*sched.Job) bool) {
				for _, j := range c.jobs {
					if !yield(j) {
						return
					}
				}
			}
			nas.Place(c, o, seq)
			if n := testing.AllocsPerRun(100, func() { nas.Place(c, o, seq) }); n != 0 {
				t.Errorf("util %v, %v offer: Place allocates %v times per call, want 0", util, slot, n)
			}
		}
	}
}

// TestNASHoldSetByTheSameOffer: a container whose first candidate wants a
// reduce on a congested rack is a reduce request; CR-RTS skips the user
// and holds the rack, and the map request that follows in the same offer
// already sees the hold: a heavy job's node-local map is passed over for a
// light one's. The hold is read once a map request, so this pins that it
// is read after the reduce request set it.
func TestNASHoldSetByTheSameOffer(t *testing.T) {
	for _, tc := range []struct {
		name string
		util float64 // rack 0's utilisation
		want int
		kind sched.TaskKind
		why  string
	}{
		{"congested", 0.9, 2, sched.MapTask,
			"CR-RTS skipped user a's heavy reduce and held rack 0, so MTS passed heavy job 1's local map and ran light job 2's"},
		{"uncongested", 0.1, 0, sched.ReduceTask,
			"rack 0 is below the congestion threshold: CA-RTS runs job 0's reduce, first in order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := swTopo(t)
			c := newSWCluster(topo)
			c.util[0] = tc.util
			pol, nas := nasPolicy(t, sched.NASParams{RecurringShare: f64(1)}, sched.NASOptions{CARTS: true, CRRTS: true, NoTrafficThreshold: true})
			red := nasReduceJob(t, topo, 0, "a", heavyRatio, true)
			heavy := swJob(t, topo, 1, "b", heavyRatio, []cluster.NodeID{0, 3})
			light := swJob(t, topo, 2, "c", lightRatio, []cluster.NodeID{0, 3})
			addJobs(t, c, c.fakeCluster, pol, red, heavy, light)
			d, ok := pol.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot, Freed: true})
			if jobIdx(d, ok) != tc.want || d.Kind != tc.kind {
				t.Errorf("Assign = job %d %v (rule %q), want job %d %v: %s", jobIdx(d, ok), d.Kind, d.Rule, tc.want, tc.kind, tc.why)
			}
			wantSkips := 0
			if tc.util >= sched.DefaultNASCongestionThreshold {
				wantSkips = 1
			}
			if got := nas.ReduceSkips("a"); got != wantSkips {
				t.Errorf("user a's reduce skips = %d, want %d: %s", got, wantSkips, tc.why)
			}
		})
	}
}
