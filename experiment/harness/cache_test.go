package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Runs must run each spec once per process and return results in the
// order of the specs asked for, whether cached or fresh: experiments that
// share runs index the results by position.
func TestCachedRunsRunsEachKeyOnce(t *testing.T) {
	var ran []string
	c := Cache[string, string]{Exec: func(s string) (string, error) {
		ran = append(ran, s)
		return "run-" + s, nil
	}}
	o := Options{Parallel: 1}
	tests := []struct {
		specs   []string
		want    []string
		wantRan []string // executions this call adds
	}{
		{[]string{"a", "b"}, []string{"run-a", "run-b"}, []string{"a", "b"}},
		{[]string{"c", "a", "b"}, []string{"run-c", "run-a", "run-b"}, []string{"c"}},
		{[]string{"b"}, []string{"run-b"}, nil},
	}
	for i, tc := range tests {
		before := len(ran)
		got, err := c.Runs(o, tc.specs)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("call %d: results %v, want %v (in the order asked for)", i, got, tc.want)
		}
		if added := ran[before:]; !slices.Equal(added, tc.wantRan) {
			t.Errorf("call %d: ran %v, want %v (cached keys must not run again)", i, added, tc.wantRan)
		}
	}
}

// A failed run is reported and nothing from that call is cached, so a
// later call runs it again rather than returning a half-made result.
func TestCachedRunsDoesNotCacheFailures(t *testing.T) {
	fail := errors.New("boom")
	calls := 0
	c := Cache[string, int]{Exec: func(s string) (int, error) {
		calls++
		if s == "bad" && calls == 1 {
			return 0, fail
		}
		return len(s), nil
	}}
	o := Options{Parallel: 1}
	if _, err := c.Runs(o, []string{"bad"}); !errors.Is(err, fail) {
		t.Fatalf("first call: error %v, want %v", err, fail)
	}
	got, err := c.Runs(o, []string{"bad"})
	if err != nil || got[0] != 3 || calls != 2 {
		t.Errorf("second call: %v, %v after %d runs; want [3] from a fresh run (2 runs)", got, err, calls)
	}
}

// A spec that holds a pointer or a function would be named by an address,
// another in every process: it is an error naming the field, before any
// run; nil ones, maps and slices of values are values.
func TestCacheRefusesSpecsThatAreNotValues(t *testing.T) {
	type spec struct {
		Name   string
		Params map[string]any
		Disk   *int
		Pick   func() int
	}
	ran := 0
	c := Cache[spec, int]{Exec: func(spec) (int, error) { ran++; return 1, nil }}
	o := Options{Parallel: 1}
	one := 1
	for _, tc := range []struct {
		spec  spec
		field string
	}{
		{spec{Name: "ok", Params: map[string]any{"t1_s": 5.0, "nested": map[string]any{"on": true}}}, ""},
		{spec{Name: "pointer", Disk: &one}, ".Disk"},
		{spec{Name: "func", Pick: func() int { return 1 }}, ".Pick"},
		{spec{Name: "pointer in params", Params: map[string]any{"p": &one}}, ".Params[p]"},
	} {
		ran = 0
		_, err := c.Runs(o, []spec{tc.spec})
		switch {
		case tc.field == "" && (err != nil || ran != 1):
			t.Errorf("%s: %v after %d runs, want the run made", tc.spec.Name, err, ran)
		case tc.field != "" && (err == nil || !strings.Contains(err.Error(), tc.field) || ran != 0):
			t.Errorf("%s: error %v after %d runs, want one naming %s before any run", tc.spec.Name, err, ran, tc.field)
		}
	}
}
