package harness

import (
	"fmt"
	"sync"
)

// Cache keeps finished runs for the life of the process, so that a
// group of experiments reading the same simulations (`mrsched experiment
// nas` runs nas/main, nas/classes and nas/users on shared runs) runs each
// once. Runs are deterministic, so a cached run is the run. A cache with
// a Keep kind also keeps its runs in Options.KeepDir (keep.go).
type Cache[K comparable, V any] struct {
	// Keep, when set, is the kind under which the cache's runs are kept
	// on disk with Options.KeepDir; the kept type V exports every field
	// it keeps (gob).
	Keep string

	mu sync.Mutex
	m  map[K]V
}

// CachedGrid is CachedRuns for every policy of pols on every seed of o:
// spec declares the run of a policy on a seed. It returns res[policy][seed].
func CachedGrid[K comparable, S, V any](o Options, c *Cache[K, V], pols []PolicySpec, spec func(PolicySpec, uint64) S, key func(S) K, exec func(S) (V, error)) ([][]V, error) {
	var specs []S
	for _, p := range pols {
		for _, seed := range o.SeedList() {
			specs = append(specs, spec(p, seed))
		}
	}
	flat, err := CachedRuns(o, c, specs, key, exec)
	if err != nil {
		return nil, err
	}
	res := make([][]V, len(pols))
	for i := range pols {
		res[i] = flat[i*o.Seeds : (i+1)*o.Seeds]
	}
	return res, nil
}

// CachedRuns returns one result per spec in order, taking it from c when
// its key is there (or, with o.KeepDir, kept on disk by this build) and
// running the rest with exec, o.Parallel at a time. With o.KeepDir each
// run is written there as soon as it finishes.
func CachedRuns[K comparable, S, V any](o Options, c *Cache[K, V], specs []S, key func(S) K, exec func(S) (V, error)) ([]V, error) {
	out := make([]V, len(specs))
	keep := o.KeepDir != "" && c.Keep != ""
	keyText := func(s S) string { return fmt.Sprintf("%#v", key(s)) }
	var pending, kept []int
	c.mu.Lock()
	for i, s := range specs {
		if v, ok := c.m[key(s)]; ok {
			out[i] = v
			continue
		}
		if keep {
			v, ok, err := loadKept[V](o.KeepDir, c.Keep, keyText(s))
			if err != nil {
				c.mu.Unlock()
				return nil, err
			}
			if ok {
				out[i] = v
				kept = append(kept, i)
				continue
			}
		}
		pending = append(pending, i)
	}
	c.mu.Unlock()
	ran, err := InParallel(o, len(pending), func(k int) (V, error) {
		s := specs[pending[k]]
		v, err := exec(s)
		if err == nil && keep {
			err = storeKept(o.KeepDir, c.Keep, keyText(s), v)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	for _, i := range kept { // later experiments of this process read them too
		c.m[key(specs[i])] = out[i]
	}
	for k, i := range pending {
		out[i] = ran[k]
		c.m[key(specs[i])] = ran[k]
	}
	c.mu.Unlock()
	return out, nil
}
