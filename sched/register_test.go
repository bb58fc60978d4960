package sched

import (
	"slices"
	"strings"
	"testing"
)

// withRegistry restores the registry after a test that adds to it, so
// that other tests see the built-in policies only.
func withRegistry(t *testing.T) {
	t.Helper()
	mu.Lock()
	saved := slices.Clone(registry)
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		registry = saved
		mu.Unlock()
	})
}

func TestRegisterRefusesBadEntries(t *testing.T) {
	withRegistry(t)
	factory := func(Decode) (Policy, error) { return NewFIFO(), nil }
	if err := Register(Entry{Name: "mine", Summary: "a plug-in", New: factory}); err != nil {
		t.Fatalf("Register(mine) = %v, want success", err)
	}
	tests := []struct {
		name  string
		entry Entry
		want  string
	}{
		{"empty name", Entry{New: factory}, `name ""`},
		{"upper case", Entry{Name: "Mine2", New: factory}, `name "Mine2"`},
		{"space", Entry{Name: "my policy", New: factory}, `name "my policy"`},
		{"leading digit", Entry{Name: "2fair", New: factory}, `name "2fair"`},
		{"trailing hyphen", Entry{Name: "fair-", New: factory}, `name "fair-"`},
		{"double hyphen", Entry{Name: "fair--x", New: factory}, `name "fair--x"`},
		{"comma, which would split a -policies list", Entry{Name: "a,b", New: factory}, `name "a,b"`},
		{"too long", Entry{Name: strings.Repeat("a", 41), New: factory}, "at most 40"},
		{"no factory", Entry{Name: "nofactory"}, "no factory"},
		{"a built-in name", Entry{Name: "fair", New: factory}, "fair is already registered"},
		{"a name registered before", Entry{Name: "mine", New: factory}, "mine is already registered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := PolicyNames()
			err := Register(tc.entry)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Register(%q) = %v, want an error containing %q", tc.entry.Name, err, tc.want)
			}
			if got := PolicyNames(); !slices.Equal(got, before) {
				t.Errorf("a refused entry changed the registry: %v, was %v", got, before)
			}
		})
	}
}

func TestRegisteredPoliciesFollowTheBuiltIns(t *testing.T) {
	withRegistry(t)
	builtIn := PolicyNames()
	mainBuiltIn := MainPolicyNames()
	made := 0
	factory := func(Decode) (Policy, error) { made++; return NewFIFO(), nil }
	for _, e := range []Entry{
		{Name: "zeta", Summary: "registered first", New: factory},
		{Name: "alpha", Summary: "registered second", New: factory},
		{Name: "alpha-ablation", Summary: "an ablation", New: factory, Ablation: true},
	} {
		if err := Register(e); err != nil {
			t.Fatalf("Register(%s): %v", e.Name, err)
		}
	}
	if got, want := PolicyNames(), append(slices.Clone(builtIn), "zeta", "alpha", "alpha-ablation"); !slices.Equal(got, want) {
		t.Errorf("PolicyNames() = %v, want the built-ins then the registered ones in registration order %v", got, want)
	}
	if got, want := MainPolicyNames(), append(slices.Clone(mainBuiltIn), "zeta", "alpha"); !slices.Equal(got, want) {
		t.Errorf("MainPolicyNames() = %v, want %v: a registered ablation runs only when asked for", got, want)
	}
	if _, err := NewPolicy("alpha", nil); err != nil || made != 1 {
		t.Errorf("NewPolicy(alpha) = %v after %d factory calls, want the registered factory called once", err, made)
	}
}

// TestRegisterConcurrently registers one name from many goroutines while
// others build policies: exactly one registration wins. Run with -race to
// check the locking.
func TestRegisterConcurrently(t *testing.T) {
	withRegistry(t)
	factory := func(Decode) (Policy, error) { return NewFIFO(), nil }
	const n = 8
	errs := make(chan error, n)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			if _, err := NewPolicy("fair", nil); err != nil {
				t.Errorf("NewPolicy(fair) during registration: %v", err)
				return
			}
		}
	}()
	for range n {
		go func() { errs <- Register(Entry{Name: "racer", New: factory}) }()
	}
	won := 0
	for range n {
		if <-errs == nil {
			won++
		}
	}
	<-done
	if won != 1 {
		t.Errorf("%d of %d concurrent registrations of one name succeeded, want exactly 1", won, n)
	}
}
