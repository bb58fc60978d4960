package network

import (
	"math/rand/v2"
	"testing"
)

// TestEntTableHoldsWhatAMapHolds puts, finds and deletes pairs at random,
// the table growing and keys wrapping past its end, and checks every
// answer against a Go map: a key lost by a deletion's shifting would
// leave a count entry unfound and the solution corrupt.
func TestEntTableHoldsWhatAMapHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var tab entTable
	ref := map[uint64]int32{}
	var keys []uint64
	for step := range 200000 {
		switch op := rng.IntN(10); {
		case op < 5 || len(keys) == 0:
			// Few links and groups, so keys collide on their homes.
			k := entKey(int32(rng.IntN(300)), int32(rng.IntN(300)))
			if _, ok := ref[k]; ok {
				continue
			}
			tab.put(k, int32(step))
			ref[k] = int32(step)
			keys = append(keys, k)
		case op < 8:
			i := rng.IntN(len(keys))
			k := keys[i]
			tab.del(k)
			delete(ref, k)
			keys[i] = keys[len(keys)-1]
			keys = keys[:len(keys)-1]
		default:
			k := entKey(int32(rng.IntN(300)), int32(rng.IntN(300)))
			e, ok := tab.get(k)
			if want, held := ref[k]; ok != held || e != want {
				t.Fatalf("step %d: get(%#x) = %d, %v; want %d, %v", step, k, e, ok, want, held)
			}
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: the table counts %d pairs; %d are held", step, tab.n, len(ref))
		}
	}
	for k, want := range ref {
		if e, ok := tab.get(k); !ok || e != want {
			t.Fatalf("at the end: get(%#x) = %d, %v; want %d, true", k, e, ok, want)
		}
	}
}
