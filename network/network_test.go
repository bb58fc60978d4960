package network

import (
	"math"
	"strings"
	"testing"
	"unsafe"
)

const relEps = 1e-9

// approx reports whether got equals want to relEps relative (absolute near 0).
func approx(got, want float64) bool {
	if want == 0 {
		return math.Abs(got) <= relEps
	}
	return math.Abs(got-want) <= relEps*math.Abs(want)
}

func mustNew(t *testing.T, caps ...float64) *Network[any] {
	t.Helper()
	n, err := New[any](caps)
	if err != nil {
		t.Fatalf("New(%v): %v", caps, err)
	}
	return n
}

func mustAdd(t *testing.T, n *Network[any], now float64, path []LinkID, bytes, rateCap float64) FlowID {
	t.Helper()
	id, err := n.AddFlow(now, path, bytes, rateCap, nil)
	if err != nil {
		t.Fatalf("AddFlow(%v, %v, %v, %v): %v", now, path, bytes, rateCap, err)
	}
	return id
}

// replayCase is a hand-computed scenario: expected finish times per flow.
type replayCase struct {
	name     string
	caps     []float64
	flows    []TimedFlow
	want     []float64
	makespan float64
	why      string
}

func runReplayCases(t *testing.T, cases []replayCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, mk, err := Replay(tc.caps, tc.flows)
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			for i, r := range res {
				if r.ID != tc.flows[i].ID {
					t.Errorf("result %d has ID %q, want %q (results must be in input order)", i, r.ID, tc.flows[i].ID)
				}
				if !approx(r.Finish, tc.want[i]) {
					t.Errorf("flow %q finished at %v, want %v: %s", r.ID, r.Finish, tc.want[i], tc.why)
				}
			}
			if !approx(mk, tc.makespan) {
				t.Errorf("makespan %v, want %v: %s", mk, tc.makespan, tc.why)
			}
		})
	}
}

func TestSingleLink(t *testing.T) {
	runReplayCases(t, []replayCase{
		{
			name: "uncapped", caps: []float64{2},
			flows: []TimedFlow{{ID: "a", Path: []LinkID{0}, Bytes: 10}},
			want:  []float64{5}, makespan: 5, why: "10 bytes / 2 bytes/s",
		},
		{
			name: "cap below capacity", caps: []float64{2},
			flows: []TimedFlow{{ID: "a", Path: []LinkID{0}, Bytes: 10, Cap: 0.5}},
			want:  []float64{20}, makespan: 20, why: "the cap 0.5 binds before the link's 2",
		},
		{
			name: "cap above capacity", caps: []float64{2},
			flows: []TimedFlow{{ID: "a", Path: []LinkID{0}, Bytes: 10, Cap: 7}},
			want:  []float64{5}, makespan: 5, why: "the link's 2 binds before the cap 7",
		},
		{
			name: "infinite cap", caps: []float64{4},
			flows: []TimedFlow{{ID: "a", Path: []LinkID{0}, Bytes: 10, Cap: math.Inf(1)}},
			want:  []float64{2.5}, makespan: 2.5, why: "+Inf cap means uncapped",
		},
		{
			name: "empty path capped", caps: nil,
			flows: []TimedFlow{{ID: "a", Bytes: 9, Cap: 3}},
			want:  []float64{3}, makespan: 3, why: "only the cap 3 limits a pathless flow",
		},
	})
}

func TestEqualShareStaggered(t *testing.T) {
	const mb = 1e6
	runReplayCases(t, []replayCase{{
		name: "1-2-3MB on 1MB/s", caps: []float64{mb},
		flows: []TimedFlow{
			{ID: "1MB", Path: []LinkID{0}, Bytes: 1 * mb},
			{ID: "2MB", Path: []LinkID{0}, Bytes: 2 * mb},
			{ID: "3MB", Path: []LinkID{0}, Bytes: 3 * mb},
		},
		want: []float64{3, 5, 6}, makespan: 6,
		why: "1/3 MB/s each until 1MB done at 3s; then 1/2 each, 2MB has 1MB left -> 5s; 3MB has 1MB left alone -> 6s",
	}})

	t.Run("rates speed up", func(t *testing.T) {
		n := mustNew(t, mb)
		ids := []FlowID{mustAdd(t, n, 0, []LinkID{0}, mb, 0), mustAdd(t, n, 0, []LinkID{0}, 2*mb, 0), mustAdd(t, n, 0, []LinkID{0}, 3*mb, 0)}
		for _, id := range ids {
			if r := n.Rate(id); !approx(r, mb/3) {
				t.Errorf("flow %d rate %v, want 1/3 MB/s (three flows share one link)", id, r)
			}
		}
		tc, _ := n.NextCompletion()
		done := n.PopCompleted(tc)
		if len(done) != 1 || done[0].ID != ids[0] {
			t.Fatalf("PopCompleted(%v) = %+v, want only the 1MB flow", tc, done)
		}
		for _, id := range ids[1:] {
			if r := n.Rate(id); !approx(r, mb/2) {
				t.Errorf("flow %d rate %v after first completion, want 1/2 MB/s (two flows left)", id, r)
			}
		}
	})
}

func TestUnequalPaths(t *testing.T) {
	// Link A (0) cap 10 carries f1,f2,f3; f1 also crosses link B (1) cap 2.
	n := mustNew(t, 10, 2)
	f1 := mustAdd(t, n, 0, []LinkID{0, 1}, 10, 0)
	f2 := mustAdd(t, n, 0, []LinkID{0}, 8, 0)
	f3 := mustAdd(t, n, 0, []LinkID{0}, 8, 0)
	for _, c := range []struct {
		id   FlowID
		want float64
		why  string
	}{
		{f1, 2, "bottlenecked by link B (cap 2)"},
		{f2, 4, "shares A's remaining 8 with f3"},
		{f3, 4, "shares A's remaining 8 with f2"},
	} {
		if r := n.Rate(c.id); !approx(r, c.want) {
			t.Errorf("flow %d rate %v, want %v: %s", c.id, r, c.want, c.why)
		}
	}
	if l := n.LinkLoad(0); !approx(l, 10) {
		t.Errorf("link A load %v, want 10 (saturated)", l)
	}
	runReplayCases(t, []replayCase{{
		name: "finish times", caps: []float64{10, 2},
		flows: []TimedFlow{
			{ID: "f1", Path: []LinkID{0, 1}, Bytes: 10},
			{ID: "f2", Path: []LinkID{0}, Bytes: 8},
			{ID: "f3", Path: []LinkID{0}, Bytes: 8},
		},
		want: []float64{5, 2, 2}, makespan: 5,
		why: "f2,f3 at 4/s finish at 2s; f1 at 2/s has 6 left, still limited by B -> 2+3=5s",
	}})
}

func TestBindingCap(t *testing.T) {
	cases := []struct {
		name  string
		caps  []float64 // per-flow caps on one link of capacity 10
		rates []float64
		why   string
	}{
		{"binding cap frees capacity", []float64{1, 0, 0}, []float64{1, 4.5, 4.5}, "capped flow takes 1, the other two split 9"},
		{"non-binding cap", []float64{5, 0, 0}, []float64{10.0 / 3, 10.0 / 3, 10.0 / 3}, "fair share 10/3 is below the cap 5"},
		{"cap equal to share", []float64{2.5, 2.5, 0, 0}, []float64{2.5, 2.5, 2.5, 2.5}, "cap equals the fair share 10/4"},
		{"two caps", []float64{1, 2, 0}, []float64{1, 2, 7}, "caps 1 and 2 bind, the last flow gets the remaining 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := mustNew(t, 10)
			var ids []FlowID
			for _, c := range tc.caps {
				ids = append(ids, mustAdd(t, n, 0, []LinkID{0}, 100, c))
			}
			for i, id := range ids {
				if r := n.Rate(id); !approx(r, tc.rates[i]) {
					t.Errorf("flow %d (cap %v) rate %v, want %v: %s", i, tc.caps[i], r, tc.rates[i], tc.why)
				}
			}
		})
	}
}

// shuffle builds an all-to-all shuffle over racks x nodesPer nodes. Links:
// per node NIC-up 2i, NIC-down 2i+1; then per rack uplink-up, uplink-down.
func shuffle(racks, nodesPer int, nic, uplink, b float64) ([]float64, []TimedFlow, []bool) {
	nodes := racks * nodesPer
	var caps []float64
	for range nodes {
		caps = append(caps, nic, nic)
	}
	for range racks {
		caps = append(caps, uplink, uplink)
	}
	up := func(r int) LinkID { return LinkID(2*nodes + 2*r) }
	var flows []TimedFlow
	var cross []bool
	for s := range nodes {
		for d := range nodes {
			if s == d {
				continue
			}
			path := []LinkID{LinkID(2 * s)}
			rs, rd := s/nodesPer, d/nodesPer
			if rs != rd {
				path = append(path, up(rs), up(rd)+1)
			}
			path = append(path, LinkID(2*d+1))
			flows = append(flows, TimedFlow{ID: "", Path: path, Bytes: b})
			cross = append(cross, rs != rd)
		}
	}
	return caps, flows, cross
}

func TestShuffleOversubscribed(t *testing.T) {
	// 2 racks x 4 nodes, NIC 1/s, uplink 1/s (4:1). Each rack uplink carries
	// 4 nodes x 4 remote peers = 16 flows -> 1/16 each (the tightest share,
	// vs 1/7 on a NIC). Each NIC then has 1 - 4/16 = 3/4 left for its 3
	// intra-rack flows -> 1/4 each. With B = 2: intra flows finish at
	// B/(1/4) = 8. Cross flows have 2 - 8/16 = 1.5 left and stay limited by
	// the uplink's 1/16 -> 8 + 24 = 32 (= 16 flows x B / uplink 1).
	const b = 2.0
	caps, flows, cross := shuffle(2, 4, 1, 1, b)
	n := mustNew(t, caps...)
	var ids []FlowID
	for _, f := range flows {
		ids = append(ids, mustAdd(t, n, 0, f.Path, f.Bytes, 0))
	}
	for i, id := range ids {
		want, why := 0.25, "intra-rack: NIC left 3/4 after 4 cross flows, split by 3"
		if cross[i] {
			want, why = 1.0/16, "cross-rack: uplink 1 shared by 16 flows"
		}
		if r := n.Rate(id); !approx(r, want) {
			t.Errorf("flow %d rate %v, want %v (%s)", i, r, want, why)
		}
	}
	for i := range flows {
		flows[i].ID = "intra"
		if cross[i] {
			flows[i].ID = "cross"
		}
	}
	res, mk, err := Replay(caps, flows)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		want := 8.0
		if r.ID == "cross" {
			want = 32
		}
		if !approx(r.Finish, want) {
			t.Errorf("%s flow finished at %v, want %v (intra 4B, cross 16B with B=2)", r.ID, r.Finish, want)
		}
	}
	if !approx(mk, 32) {
		t.Errorf("makespan %v, want 32: 16 cross flows x 2 bytes through a 1/s uplink", mk)
	}
}

func TestReplayStaggeredStarts(t *testing.T) {
	runReplayCases(t, []replayCase{
		{
			name: "late joiner", caps: []float64{1},
			flows: []TimedFlow{
				{ID: "f1", Path: []LinkID{0}, Bytes: 4, Start: 0},
				{ID: "f2", Path: []LinkID{0}, Bytes: 2, Start: 1},
			},
			want: []float64{6, 5}, makespan: 6,
			why: "f1 alone sends 1 by t=1; both at 1/2 until f2's 2 bytes finish at 5; f1 has 1 left alone -> 6",
		},
		{
			name: "unsorted input", caps: []float64{1},
			flows: []TimedFlow{
				{ID: "late", Path: []LinkID{0}, Bytes: 1, Start: 10},
				{ID: "early", Path: []LinkID{0}, Bytes: 1, Start: 0},
			},
			want: []float64{11, 1}, makespan: 11,
			why: "disjoint in time: each alone at rate 1; results stay in input order",
		},
		{
			name: "zero-byte", caps: []float64{1},
			flows: []TimedFlow{
				{ID: "z", Path: []LinkID{0}, Bytes: 0, Start: 3},
				{ID: "a", Path: []LinkID{0}, Bytes: 2, Start: 0},
			},
			want: []float64{3, 2}, makespan: 3,
			why: "a 0-byte flow completes at its start",
		},
		{
			name: "no flows", caps: []float64{1},
			want: nil, makespan: 0, why: "nothing to run",
		},
	})
}

func TestRemove(t *testing.T) {
	n := mustNew(t, 1)
	f1 := mustAdd(t, n, 0, []LinkID{0}, 10, 0)
	f2 := mustAdd(t, n, 0, []LinkID{0}, 10, 0)
	got, ok := n.Remove(4, f1)
	if !ok || !approx(got, 2) {
		t.Errorf("Remove(4, f1) = %v, %v; want 2, true (rate 1/2 for 4s)", got, ok)
	}
	if _, ok := n.Remove(4, f1); ok {
		t.Errorf("second Remove of f1 returned ok; want false (already removed)")
	}
	if _, ok := n.Remove(4, 999); ok {
		t.Errorf("Remove of unknown flow returned ok; want false")
	}
	if r := n.Rate(f2); !approx(r, 1) {
		t.Errorf("f2 rate %v after removal, want 1 (alone on the link)", r)
	}
	tc, ok := n.NextCompletion()
	if !ok || !approx(tc, 12) {
		t.Errorf("NextCompletion = %v, %v; want 12, true (8 bytes left at rate 1 from t=4)", tc, ok)
	}
	if n.ActiveFlows() != 1 {
		t.Errorf("ActiveFlows = %d, want 1", n.ActiveFlows())
	}

	t.Run("finished but not popped", func(t *testing.T) {
		n := mustNew(t, 1)
		f := mustAdd(t, n, 0, []LinkID{0}, 3, 0)
		n.Advance(5)
		got, ok := n.Remove(5, f)
		if !ok || !approx(got, 3) {
			t.Errorf("Remove of a completed flow = %v, %v; want 3, true (its full size)", got, ok)
		}
		if c := n.PopCompleted(5); len(c) != 0 {
			t.Errorf("PopCompleted after Remove returned %+v; want nothing (removed flows are not reported)", c)
		}
	})
}

func TestZeroByteFlow(t *testing.T) {
	n := mustNew(t, 1)
	a := mustAdd(t, n, 0, []LinkID{0}, 4, 0)
	n.Advance(1)
	z, err := n.AddFlow(1, []LinkID{0}, 0, 0, "z")
	if err != nil {
		t.Fatal(err)
	}
	if tc, _ := n.NextCompletion(); tc != 1 {
		t.Errorf("NextCompletion = %v, want 1 (the 0-byte flow is pending now)", tc)
	}
	c := n.PopCompleted(1)
	if len(c) != 1 || c[0].ID != z || c[0].Finish != 1 || c[0].Start != 1 || c[0].Data != "z" {
		t.Fatalf("PopCompleted(1) = %+v, want only the 0-byte flow with Start=Finish=1", c)
	}
	if r := n.Rate(a); r != 1 {
		t.Errorf("rate of the other flow %v, want 1 (a 0-byte flow takes no bandwidth)", r)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps []float64
		want string
	}{
		{"zero", []float64{1, 0}, "link 1"},
		{"negative", []float64{-1}, "link 0"},
		{"NaN", []float64{1, 1, math.NaN()}, "link 2"},
		{"Inf", []float64{math.Inf(1)}, "link 0"},
	} {
		t.Run("New/"+tc.name, func(t *testing.T) {
			_, err := New[any](tc.caps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%v) error %v; want one naming %q", tc.caps, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		path  []LinkID
		bytes float64
		cap   float64
	}{
		{"negative bytes", []LinkID{0}, -1, 0},
		{"NaN bytes", []LinkID{0}, math.NaN(), 0},
		{"Inf bytes", []LinkID{0}, math.Inf(1), 0},
		{"unknown link", []LinkID{0, 3}, 1, 0},
		{"negative link", []LinkID{-1}, 1, 0},
		{"empty path uncapped", nil, 1, 0},
		{"empty path Inf cap", nil, 1, math.Inf(1)},
		{"NaN cap", []LinkID{0}, 1, math.NaN()},
		// Link 2 only counts bytes: it cannot bound a rate.
		{"Unlimited links only, uncapped", []LinkID{2, 2}, 1, 0},
		{"path longer than maxPath", make([]LinkID, maxPath+1), 1, 0},
	} {
		t.Run("AddFlow/"+tc.name, func(t *testing.T) {
			n := mustNew(t, 1, 1, Unlimited)
			if _, err := n.AddFlow(3, tc.path, tc.bytes, tc.cap, nil); err == nil {
				t.Errorf("AddFlow(path %v, bytes %v, cap %v) succeeded; want an error", tc.path, tc.bytes, tc.cap)
			}
			if n.ActiveFlows() != 0 || n.Now() != 0 {
				t.Errorf("failed AddFlow changed state (active %d, now %v); want no side effects", n.ActiveFlows(), n.Now())
			}
		})
	}
	t.Run("Replay/negative start", func(t *testing.T) {
		if _, _, err := Replay([]float64{1}, []TimedFlow{{ID: "x", Path: []LinkID{0}, Bytes: 1, Start: -1}}); err == nil {
			t.Errorf("Replay with Start -1 succeeded; want an error")
		}
	})
	t.Run("Replay/bad link", func(t *testing.T) {
		_, _, err := Replay([]float64{1}, []TimedFlow{{ID: "x", Path: []LinkID{5}, Bytes: 1}})
		if err == nil || !strings.Contains(err.Error(), `"x"`) {
			t.Errorf("Replay with link 5 error %v; want one naming flow \"x\"", err)
		}
	})
}

func TestAdvancePastCompletions(t *testing.T) {
	// Advancing straight past several completions must re-share bandwidth at
	// each exact completion time, giving the same 3,5,6 as stepping.
	n := mustNew(t, 1)
	for _, b := range []float64{1, 2, 3} {
		mustAdd(t, n, 0, []LinkID{0}, b, 0)
	}
	n.Advance(10)
	if n.ActiveFlows() != 0 {
		t.Errorf("ActiveFlows = %d after Advance(10), want 0", n.ActiveFlows())
	}
	if tc, ok := n.NextCompletion(); !ok || tc != 10 {
		t.Errorf("NextCompletion = %v, %v; want 10, true (pending completions are due now)", tc, ok)
	}
	c := n.PopCompleted(10)
	want := []float64{3, 5, 6}
	if len(c) != 3 {
		t.Fatalf("PopCompleted returned %d flows, want 3", len(c))
	}
	for i, x := range c {
		if x.ID != FlowID(i+1) || !approx(x.Finish, want[i]) {
			t.Errorf("completion %d = flow %d at %v; want flow %d at %v", i, x.ID, x.Finish, i+1, want[i])
		}
	}
	if b := n.LinkBytes(0); !approx(b, 6) {
		t.Errorf("LinkBytes = %v, want 6 (all bytes, none counted after completion)", b)
	}
}

func TestTimeClamp(t *testing.T) {
	n := mustNew(t, 1)
	n.Advance(5)
	n.Advance(3)
	n.Advance(math.NaN())
	if n.Now() != 5 {
		t.Fatalf("Now = %v after Advance(5), Advance(3), Advance(NaN); want 5 (backwards time is clamped)", n.Now())
	}
	id := mustAdd(t, n, 2, []LinkID{0}, 1, 0)
	c := n.PopCompleted(100)
	if len(c) != 1 || c[0].ID != id || c[0].Start != 5 || c[0].Finish != 6 {
		t.Errorf("got %+v; want the flow to start at the clamped time 5 and finish at 6", c)
	}
}

func TestLazySolve(t *testing.T) {
	n := mustNew(t, 1, 1)
	for i := range 50 {
		mustAdd(t, n, 0, []LinkID{LinkID(i % 2)}, 1, 0)
	}
	n.Rate(1)
	n.LinkLoad(0)
	n.NextCompletion()
	if n.solves != 1 {
		t.Errorf("%d solves for 50 adds at one instant and 3 queries; want 1", n.solves)
	}
}

func TestPopAtNextCompletionAwkwardFloats(t *testing.T) {
	// Sizes and rates that are not binary fractions: every NextCompletion
	// time must yield at least one flow from PopCompleted at that time.
	n := mustNew(t, 0.7, 0.3, 1.1)
	paths := [][]LinkID{{0}, {0, 1}, {1, 2}, {2}, {0, 2}}
	for i := range 40 {
		mustAdd(t, n, 0, paths[i%len(paths)], 0.1*float64(i+1)+0.2, float64(i%3)*0.13)
	}
	popped := 0
	for n.ActiveFlows() > 0 {
		tc, ok := n.NextCompletion()
		if !ok {
			t.Fatal("NextCompletion not ok with active flows")
		}
		c := n.PopCompleted(tc)
		if len(c) == 0 {
			t.Fatalf("PopCompleted(%v) returned nothing; want the flow due at that time", tc)
		}
		popped += len(c)
	}
	if popped != 40 {
		t.Errorf("popped %d flows, want 40", popped)
	}
}

func TestRepeatedLinkInPath(t *testing.T) {
	// Paths are not expected to repeat a link; if one does (e.g. a copy that
	// reads and writes the same disk), the flow uses the link twice.
	n := mustNew(t, 2, 10)
	a := mustAdd(t, n, 0, []LinkID{0, 1, 0}, 5, 0)
	b := mustAdd(t, n, 0, []LinkID{1}, 5, 0)
	if r := n.Rate(a); !approx(r, 1) {
		t.Errorf("rate %v, want 1: crossing link 0 (cap 2) twice consumes 2x the rate", r)
	}
	if l := n.LinkLoad(0); !approx(l, 2) {
		t.Errorf("LinkLoad(0) = %v, want 2 (two occurrences of a rate-1 flow)", l)
	}
	if r := n.Rate(b); !approx(r, 9) {
		t.Errorf("rate of b %v, want 9 (link 1's 10 minus a's 1)", r)
	}
}

// TestLinkFillsOneCacheLine pins the link struct at 64 bytes: a flow's
// start or end touches every link of its path, and a link that straddles
// two cache lines costs two misses instead of one.
func TestLinkFillsOneCacheLine(t *testing.T) {
	if got := unsafe.Sizeof(link{}); got != 64 {
		t.Errorf("link is %d bytes, want 64, one cache line: re-pad it after adding or removing a field", got)
	}
}

// TestFlowFillsTwoCacheLines pins the flow struct at 128 bytes, whatever
// the caller's value type: a solve visits every active flow three times,
// and the allocator lays 128-byte objects on 128-byte boundaries, so such
// a flow spans two cache lines and never three.
func TestFlowFillsTwoCacheLines(t *testing.T) {
	type big [48]int64
	for _, c := range []struct {
		name string
		size uintptr
	}{
		{"flow[any]", unsafe.Sizeof(flow[any]{})},
		{"flow[int32]", unsafe.Sizeof(flow[int32]{})},
		{"flow[384-byte value]", unsafe.Sizeof(flow[big]{})},
	} {
		if c.size != 128 {
			t.Errorf("%s is %d bytes, want 128, two cache lines: keep cold fields in slotEntry", c.name, c.size)
		}
	}
}
