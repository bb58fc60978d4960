package harness

import (
	"fmt"
	"reflect"
	"sync"
)

// Cache keeps finished runs for the life of the process, so that a
// group of experiments reading the same simulations (`mrsched experiment
// nas` runs nas/main, nas/classes and nas/users on shared runs) runs each
// once. Runs are deterministic, so a cached run is the run. A cache with
// a Keep kind also keeps its runs in Options.KeepDir (keep.go).
//
// A run is declared by a spec of type S and named by its values (its Go
// syntax, %#v): two specs with the same values are the same run, so a
// spec holds values alone; one that holds a pointer, a function or a
// channel, which %#v names by its address, is an error (valuesOnly).
type Cache[S, V any] struct {
	// Keep, when set, is the kind under which the cache's runs are kept
	// on disk with Options.KeepDir; the kept type V exports every field
	// it keeps (gob).
	Keep string
	// Exec makes the run a spec declares.
	Exec func(S) (V, error)

	mu sync.Mutex
	m  map[string]V
}

// Grid is Runs for every policy of pols on every seed of o: spec declares
// the run of a policy on a seed. It returns res[policy][seed].
func (c *Cache[S, V]) Grid(o Options, pols []PolicySpec, spec func(PolicySpec, uint64) S) ([][]V, error) {
	res, err := c.Grids(o, pols, []func(PolicySpec, uint64) S{spec})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// Grids is Grid for each of specs, in one batch of runs (o.Parallel at a
// time over all of them, counted as one): res[spec][policy][seed].
func (c *Cache[S, V]) Grids(o Options, pols []PolicySpec, specs []func(PolicySpec, uint64) S) ([][][]V, error) {
	var all []S
	for _, spec := range specs {
		for _, p := range pols {
			for _, seed := range o.SeedList() {
				all = append(all, spec(p, seed))
			}
		}
	}
	flat, err := c.Runs(o, all)
	if err != nil {
		return nil, err
	}
	res := make([][][]V, len(specs))
	for d := range specs {
		res[d] = make([][]V, len(pols))
		for i := range pols {
			k := (d*len(pols) + i) * o.Seeds
			res[d][i] = flat[k : k+o.Seeds]
		}
	}
	return res, nil
}

// Runs returns one result per spec in order, taking it from c when it is
// there (or, with o.KeepDir, kept on disk by this build) and running the
// rest with c.Exec, o.Parallel at a time. With o.KeepDir each run is
// written there as soon as it finishes.
func (c *Cache[S, V]) Runs(o Options, specs []S) ([]V, error) {
	for _, spec := range specs {
		if err := valuesOnly(reflect.ValueOf(spec), fmt.Sprintf("%T", spec)); err != nil {
			return nil, fmt.Errorf("a run's spec must hold values alone, to name the run in any process: %w", err)
		}
	}
	out := make([]V, len(specs))
	keep := o.KeepDir != "" && c.Keep != ""
	key := func(s S) string { return fmt.Sprintf("%#v", s) }
	var pending, kept []int
	c.mu.Lock()
	for i, s := range specs {
		if v, ok := c.m[key(s)]; ok {
			out[i] = v
			continue
		}
		if keep {
			v, ok, err := loadKept[V](o.KeepDir, c.Keep, key(s))
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
		v, err := c.Exec(s)
		if err == nil && keep {
			err = storeKept(o.KeepDir, c.Keep, key(s), v)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]V{}
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

// valuesOnly reports a pointer, function or channel that v (at path)
// holds, nil ones aside: %#v would print its address, another in every
// process, and the run it declares would be found again by none.
func valuesOnly(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			return fmt.Errorf("%s holds a %s", path, v.Kind())
		}
	case reflect.Interface:
		if !v.IsNil() {
			return valuesOnly(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if err := valuesOnly(v.Field(i), path+"."+v.Type().Field(i).Name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := valuesOnly(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := valuesOnly(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); err != nil {
				return err
			}
		}
	}
	return nil
}
