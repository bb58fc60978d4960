package network

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveLeast is the link a shareQueue must yield: the least by (key,
// index) among finite keys, by a scan; -1 if none.
func naiveLeast(key []float64) int32 {
	best := int32(-1)
	for l, k := range key {
		if math.IsInf(k, 1) {
			continue
		}
		if best < 0 || k < key[best] {
			best = int32(l)
		}
	}
	return best
}

// TestShareQueueYieldsLeastByKeyThenIndex drives the queue as a solve
// does (take the least link, then raise its key or take it out; other
// links' keys only leave) and checks every answer against a scan. Keys are
// drawn from a few values so that ties are common: the progressive
// filling's result depends on ties going to the lower link index.
func TestShareQueueYieldsLeastByKeyThenIndex(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		links := 1 + rng.IntN(300)
		values := []float64{0, 1, 1.5, 2, 3, 1e6, 125e6 / 7}
		key := make([]float64, links)
		var q shareQueue
		q.reset()
		for l := range key {
			key[l] = math.Inf(1)
			if rng.IntN(5) > 0 {
				key[l] = values[rng.IntN(len(values))] * (1 + float64(rng.IntN(3)))
				q.push(int32(l), key[l])
			}
		}
		for step := 0; ; step++ {
			want := naiveLeast(key)
			got := q.least(key)
			if got != want {
				t.Fatalf("seed %d step %d: least link %d, want %d (key %v): ties must go to the lower index",
					seed, step, got, want, key)
			}
			if got < 0 {
				break
			}
			switch rng.IntN(4) {
			case 0, 1: // a refresh: the least link's share rose
				key[got] += values[1+rng.IntN(len(values)-1)] * float64(1+rng.IntN(2))
				q.push(got, key[got])
			case 2: // the least link binds and leaves
				key[got] = math.Inf(1)
			case 3: // another link emptied elsewhere leaves without being least
				key[rng.IntN(links)] = math.Inf(1)
			}
		}
	}
}
