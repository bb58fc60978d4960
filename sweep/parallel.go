package sweep

import "sync"

// Parallel calls run for 0..n-1, parallel at a time, and returns the
// results in index order, or the first error in index order. Every call
// is made, even after one fails, so that independent runs all finish.
// progress, when set, is called after each call with the number done and
// n; its calls are serialised. Runs that share nothing give results that
// do not depend on parallel: this is how a sweep's runs and the papers'
// experiments execute on one machine.
func Parallel[T any](n, parallel int, progress func(done, total int), run func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	sem := make(chan struct{}, max(1, parallel))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = run(i)
			if progress != nil {
				mu.Lock()
				done++
				progress(done, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
