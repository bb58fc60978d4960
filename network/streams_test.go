package network

import (
	"math/rand/v2"
	"testing"
)

// streamModes are the ways a network can solve: every case below must come
// out the same in each (the quantized mode because every change in them
// falls at least a quantum after the previous solve).
var streamModes = []struct {
	name  string
	setup func(*Network[int])
}{
	{"exact", func(*Network[int]) {}},
	{"full solves", func(n *Network[int]) { n.fullOnly = true }},
	{"quantized 0.5 s", func(n *Network[int]) {
		if err := n.SetQuantum(0.5); err != nil {
			panic(err)
		}
	}},
}

// TestStreamCapacityHandCases drives a disk-like link (100 bytes/s for one
// stream, 60 for two or more) with 1, 2 and 4 streams, through a change of
// regime, with a capped stream and with a flow that crosses it twice, and
// checks every finish time against a hand computation.
func TestStreamCapacityHandCases(t *testing.T) {
	disk := []float64{100, 1000} // link 0 the disk, link 1 a roomy NIC
	d := []LinkID{0}
	cases := []struct {
		name  string
		flows []TimedFlow
		want  []float64
		why   string
	}{
		{"one stream", []TimedFlow{{ID: "a", Path: d, Bytes: 100}}, []float64{1},
			"alone on the disk a stream gets its sequential rate: 100 bytes at 100/s"},
		{"two streams", []TimedFlow{{ID: "a", Path: d, Bytes: 60}, {ID: "b", Path: d, Bytes: 60}}, []float64{2, 2},
			"two streams share the two-stream capacity, 60/s: 30/s each, 60 bytes in 2 s"},
		{"four streams", []TimedFlow{
			{ID: "a", Path: d, Bytes: 30}, {ID: "b", Path: d, Bytes: 30},
			{ID: "c", Path: d, Bytes: 30}, {ID: "d", Path: d, Bytes: 30}}, []float64{2, 2, 2, 2},
			"four streams share 60/s (not less: the capacity is the same for any n >= 2): 15/s each, 30 bytes in 2 s"},
		{"back to one stream", []TimedFlow{{ID: "a", Path: d, Bytes: 30}, {ID: "b", Path: d, Bytes: 90}}, []float64{1, 1.6},
			"both at 30/s until a ends at 1 s; b, alone, has 60 bytes left at 100/s: 0.6 s more"},
		{"a second stream arrives", []TimedFlow{{ID: "a", Path: d, Bytes: 130}, {ID: "b", Path: d, Bytes: 30, Start: 1}}, []float64{2, 2},
			"a alone moves 100 bytes in its first second; then both at 30/s: b's 30 and a's last 30 take 1 s"},
		{"a capped stream counts", []TimedFlow{{ID: "a", Path: d, Bytes: 10, Cap: 10}, {ID: "b", Path: d, Bytes: 100}}, []float64{1, 1.5},
			"a at its cap 10/s still makes two streams: b gets 60-10 = 50/s, 50 bytes by 1 s, then alone 50 bytes at 100/s"},
		{"read and write the same disk", []TimedFlow{{ID: "merge", Path: []LinkID{0, 0}, Bytes: 60}}, []float64{2},
			"a flow crossing the disk twice is two streams and carries its rate twice: 2r = 60, 60 bytes at 30/s"},
		{"other links unchanged", []TimedFlow{{ID: "a", Path: []LinkID{1}, Bytes: 1000}, {ID: "b", Path: []LinkID{1}, Bytes: 1000}}, []float64{2, 2},
			"a link without a stream capacity shares its full 1000/s between two flows"},
	}
	for _, m := range streamModes {
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				res, _, err := replayWith(disk, tc.flows, func(n *Network[int]) {
					m.setup(n)
					if err := n.SetStreamCapacity(0, 60); err != nil {
						t.Fatal(err)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range res {
					if !approx(r.Finish, tc.want[i]) {
						t.Errorf("flow %s finished at %v, want %v: %s", r.ID, r.Finish, tc.want[i], tc.why)
					}
				}
			})
		}
	}
}

// TestQuantizedStreamDropSolvesAtOnce pins the quantized mode's rule for a
// capacity that falls between solves: a second stream on a disk whose one
// flow runs above the two-stream capacity makes the next solve due at
// once, so that the disk is never over-subscribed.
func TestQuantizedStreamDropSolvesAtOnce(t *testing.T) {
	n, _ := New[int]([]float64{100})
	if err := n.SetQuantum(10); err != nil {
		t.Fatal(err)
	}
	if err := n.SetStreamCapacity(0, 60); err != nil {
		t.Fatal(err)
	}
	a, _ := n.AddFlow(0, []LinkID{0}, 1000, 0, 0)
	if r := n.Rate(a); !approx(r, 100) {
		t.Fatalf("a alone: rate %v, want 100", r)
	}
	b, _ := n.AddFlow(1, []LinkID{0}, 1000, 0, 1)
	n.NextCompletion() // a solve due now runs here
	if ra, rb := n.Rate(a), n.Rate(b); !approx(ra, 30) || !approx(rb, 30) {
		t.Errorf("after a second stream at t=1 (a quantum of 10 s after the last solve): rates %v and %v, want 30 and 30 at once: the disk's 60/s over two streams, never 100+ on a 60/s link", ra, rb)
	}
	if l := n.LinkLoad(0); l > 60*(1+1e-12) {
		t.Errorf("disk load %v above its two-stream capacity 60", l)
	}
}

// TestSetStreamCapacityErrors pins the refusals: after the first flow, on
// an unknown or a counting link, or a several-stream capacity above the
// one-stream capacity or not positive.
func TestSetStreamCapacityErrors(t *testing.T) {
	n, _ := New[int]([]float64{100, Unlimited})
	for _, c := range []struct {
		l     LinkID
		multi float64
		why   string
	}{
		{2, 50, "no link 2"},
		{1, 50, "an Unlimited link only counts bytes"},
		{0, 150, "several streams cannot be faster than one"},
		{0, 0, "a zero capacity would stall every flow"},
	} {
		if err := n.SetStreamCapacity(c.l, c.multi); err == nil {
			t.Errorf("SetStreamCapacity(%d, %v) accepted; want an error: %s", c.l, c.multi, c.why)
		}
	}
	if _, err := n.AddFlow(0, []LinkID{0}, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := n.SetStreamCapacity(0, 50); err == nil {
		t.Error("SetStreamCapacity after the first flow accepted; want an error: the flows already placed assumed the old capacity")
	}
}

// TestExactMatchesFullSolvesWithStreamCapacities runs the exact mode's
// churn check on small networks where some links lose capacity with a
// second stream: the incremental solver must follow capacity changes as
// full solves do, rate for rate.
func TestExactMatchesFullSolvesWithStreamCapacities(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		caps := make([]float64, 2+rng.IntN(6))
		for i := range caps {
			caps[i] = float64(1 + rng.IntN(4))
		}
		multi := make([]float64, len(caps))
		for i := range multi {
			if rng.IntN(2) == 0 {
				multi[i] = caps[i] * (0.3 + 0.6*rng.Float64())
			}
		}
		setup := func(n *Network[int]) {
			for l, m := range multi {
				if m > 0 {
					if err := n.SetStreamCapacity(LinkID(l), m); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		churnPairWith(t, seed, caps, 200, 3, setup, func(rng *rand.Rand) ([]LinkID, float64, float64) {
			p := randomPath(rng, len(caps), 3)
			c := 0.0
			if rng.IntN(3) == 0 {
				c = float64(1+rng.IntN(4)) / 4
			}
			return p, float64(1 + rng.IntN(20)), c
		})
	}
}

// TestQuantizedKeepsStreamLinksFeasible churns a quantized network with
// stream-dependent links and checks after every change that no link
// carries more than its current capacity.
func TestQuantizedKeepsStreamLinksFeasible(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		caps := []float64{4, 3, 2, 5}
		n, _ := New[int](caps)
		if err := n.SetQuantum(0.7); err != nil {
			t.Fatal(err)
		}
		for l := range caps {
			if err := n.SetStreamCapacity(LinkID(l), caps[l]/2); err != nil {
				t.Fatal(err)
			}
		}
		now := 0.0
		var ids []FlowID
		for step := range 300 {
			k := 1 + rng.IntN(3)
			p := make([]LinkID, k)
			for j, l := range rng.Perm(len(caps))[:k] {
				p[j] = LinkID(l)
			}
			id, err := n.AddFlow(now, p, float64(1+rng.IntN(10)), 0, step)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			if rng.IntN(4) == 0 {
				n.Remove(now, ids[rng.IntN(len(ids))])
			}
			if tc, ok := n.NextCompletion(); ok && rng.IntN(2) == 0 {
				now = tc
				n.PopCompleted(now)
			} else {
				now += rng.Float64()
				n.Advance(now)
			}
			for l := range caps {
				if load, c := n.LinkLoad(LinkID(l)), n.links[l].cap; load > c*(1+1e-9) {
					t.Fatalf("seed %d step %d: link %d carries %v, above its capacity %v with %d flows", seed, step, l, load, c, n.links[l].flows)
				}
			}
		}
	}
}
