package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

type randFlow struct {
	path []LinkID
	cap  float64 // +Inf when uncapped
}

// randomScenario draws link capacities and flows. Capacities and caps come
// partly from a small integer set to provoke ties between bottlenecks.
func randomScenario(rng *rand.Rand) ([]float64, []randFlow) {
	value := func() float64 {
		if rng.IntN(2) == 0 {
			return float64(1 + rng.IntN(4))
		}
		return 0.1 + 10*rng.Float64()
	}
	caps := make([]float64, 1+rng.IntN(25))
	for i := range caps {
		caps[i] = value()
	}
	flows := make([]randFlow, 1+rng.IntN(150))
	for i := range flows {
		perm := rng.Perm(len(caps))
		k := min(len(perm), rng.IntN(6))
		path := make([]LinkID, k)
		for j := range k {
			path[j] = LinkID(perm[j])
		}
		c := math.Inf(1)
		if k == 0 || rng.IntN(4) == 0 {
			c = value() / 3
		}
		flows[i] = randFlow{path, c}
	}
	return caps, flows
}

// checkMaxMin verifies the max-min optimality conditions for rates:
// feasibility (caps and link capacities respected) and that every flow is
// at its cap or crosses a saturated link on which no flow is faster.
func checkMaxMin(t *testing.T, caps []float64, flows []randFlow, rates []float64) {
	t.Helper()
	load := make([]float64, len(caps))
	maxRate := make([]float64, len(caps))
	for i, f := range flows {
		if !(rates[i] > 0) {
			t.Errorf("flow %d rate %v; want > 0 (every link has spare capacity to share)", i, rates[i])
		}
		if rates[i] > f.cap*(1+relEps) {
			t.Errorf("flow %d rate %v exceeds its cap %v", i, rates[i], f.cap)
		}
		for _, l := range f.path {
			load[l] += rates[i]
			maxRate[l] = max(maxRate[l], rates[i])
		}
	}
	for l, c := range caps {
		if load[l] > c*(1+relEps) {
			t.Errorf("link %d load %v exceeds capacity %v", l, load[l], c)
		}
	}
	for i, f := range flows {
		if rates[i] >= f.cap*(1-relEps) {
			continue
		}
		ok := false
		for _, l := range f.path {
			if load[l] >= caps[l]*(1-relEps) && rates[i] >= maxRate[l]*(1-relEps) {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("flow %d (rate %v, cap %v, path %v) is below its cap and has no saturated link where it is the fastest: not max-min fair", i, rates[i], f.cap, f.path)
		}
	}
}

// referenceRates is a deliberately naive O(iterations*(L+F)) progressive
// filling, used as an independent oracle for the heap-based solver.
func referenceRates(caps []float64, flows []randFlow) []float64 {
	rates := make([]float64, len(flows))
	frozen := make([]bool, len(flows))
	rem := append([]float64(nil), caps...)
	for {
		cnt := make([]int, len(caps))
		any := false
		for i, f := range flows {
			if frozen[i] {
				continue
			}
			any = true
			for _, l := range f.path {
				cnt[l]++
			}
		}
		if !any {
			return rates
		}
		level, link := math.Inf(1), -1
		for l := range caps {
			if cnt[l] > 0 && rem[l]/float64(cnt[l]) < level {
				level, link = rem[l]/float64(cnt[l]), l
			}
		}
		capFlow := -1
		for i, f := range flows {
			if !frozen[i] && f.cap < level {
				level, capFlow = f.cap, i
			}
		}
		for i, f := range flows {
			if frozen[i] {
				continue
			}
			hit := i == capFlow
			for _, l := range f.path {
				hit = hit || (capFlow < 0 && int(l) == link)
			}
			if hit {
				frozen[i], rates[i] = true, level
				for _, l := range f.path {
					rem[l] -= level
				}
			}
		}
	}
}

func TestMaxMinProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(20240601, 7))
	for trial := range 300 {
		caps, flows := randomScenario(rng)
		n := mustNew(t, caps...)
		ids := make([]FlowID, len(flows))
		for i, f := range flows {
			ids[i] = mustAdd(t, n, 0, f.path, 1000, f.cap)
		}
		rates := make([]float64, len(flows))
		for i, id := range ids {
			rates[i] = n.Rate(id)
		}
		checkMaxMin(t, caps, flows, rates)
		ref := referenceRates(caps, flows)
		for i := range flows {
			if !approx(rates[i], ref[i]) {
				t.Errorf("trial %d flow %d: rate %v, naive reference %v (max-min allocation is unique)", trial, i, rates[i], ref[i])
			}
		}
		for l := range caps {
			var sum float64
			for i, f := range flows {
				for _, m := range f.path {
					if int(m) == l {
						sum += rates[i]
					}
				}
			}
			if got := n.LinkLoad(LinkID(l)); !approx(got, sum) {
				t.Errorf("trial %d link %d: LinkLoad %v, want sum of its flow rates %v", trial, l, got, sum)
			}
		}
		// Remove half the flows and re-check the survivors' allocation.
		var rest []randFlow
		var restIDs []FlowID
		for i, id := range ids {
			if rng.IntN(2) == 0 {
				n.Remove(0, id)
			} else {
				rest = append(rest, flows[i])
				restIDs = append(restIDs, id)
			}
		}
		rates = rates[:0]
		for _, id := range restIDs {
			rates = append(rates, n.Rate(id))
		}
		checkMaxMin(t, caps, rest, rates)
		if t.Failed() {
			t.Fatalf("trial %d failed (caps %v)", trial, caps)
		}
	}
}

// churnTrace runs a random add/complete/remove workload and records every
// observable number, to check that runs are bit-for-bit reproducible.
func churnTrace(seed uint64) []float64 { return churnTraceWith(seed, func(*Network[any]) {}) }

// churnTraceWith is churnTrace with setup applied to the fresh network.
func churnTraceWith(seed uint64, setup func(*Network[any])) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	caps, flows := randomScenario(rng)
	n, _ := New[any](caps)
	setup(n)
	var out []float64
	var ids []FlowID
	now := 0.0
	for step := range 400 {
		f := flows[step%len(flows)]
		id, _ := n.AddFlow(now, f.path, 1+100*rng.Float64(), f.cap, step)
		ids = append(ids, id)
		if rng.IntN(5) == 0 {
			tr, _ := n.Remove(now, ids[rng.IntN(len(ids))])
			out = append(out, tr)
		}
		if tc, ok := n.NextCompletion(); ok && rng.IntN(2) == 0 {
			now = tc
			for _, c := range n.PopCompleted(now) {
				out = append(out, float64(c.ID), c.Finish)
			}
		}
		now += rng.Float64()
		n.Advance(now)
	}
	for _, c := range n.PopCompleted(math.Inf(1)) {
		out = append(out, float64(c.ID), c.Finish)
	}
	for l := range caps {
		out = append(out, n.LinkBytes(LinkID(l)))
	}
	out = append(out, n.Now())
	return out
}

func TestDeterministic(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		a, b := churnTrace(seed), churnTrace(seed)
		if len(a) != len(b) {
			t.Fatalf("seed %d: trace lengths %d and %d differ; want identical runs", seed, len(a), len(b))
		}
		for i := range a {
			if math.IsNaN(a[i]) || math.IsInf(a[i], 0) {
				t.Fatalf("seed %d: trace[%d] = %v; want finite values", seed, i, a[i])
			}
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("seed %d: trace[%d] = %v then %v; want bit-identical runs", seed, i, a[i], b[i])
			}
		}
	}
}
