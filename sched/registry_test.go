package sched_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/sched"
)

// yamlDecode is a Decode over a YAML document, strict about unknown fields
// as the scenario loader is.
func yamlDecode(doc string) sched.Decode {
	return func(into any) error {
		dec := yaml.NewDecoder(strings.NewReader(doc))
		dec.KnownFields(true)
		return dec.Decode(into)
	}
}

func TestNewPolicy(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name     string
		policy   string
		decode   sched.Decode
		wantName string
		wantErr  []string // substrings; nil means success
		wantIs   error
	}{
		{name: "fifo without parameters", policy: "fifo", wantName: "fifo"},
		{name: "fair without parameters", policy: "fair", wantName: "fair"},
		{name: "fifo ignores its decoder", policy: "fifo", decode: func(any) error { return errBoom }, wantName: "fifo"},
		{
			name: "fair with pools from YAML", policy: "fair", wantName: "fair",
			decode: yamlDecode("pools:\n  - name: prod\n    min_maps: 10\n    min_reduces: 2\n    weight: 2\n  - name: adhoc\n    mode: fifo\n"),
		},
		{name: "unknown policy lists the known ones", policy: "lottery", wantErr: []string{`unknown policy "lottery"`, "fifo, fair"}},
		{name: "names are case-sensitive", policy: "FIFO", wantErr: []string{`unknown policy "FIFO"`}},
		{
			name: "decode error propagates", policy: "fair",
			decode: func(any) error { return errBoom }, wantErr: []string{"policy fair", "boom"}, wantIs: errBoom,
		},
		{
			name: "unknown parameter is an error", policy: "fair",
			decode: yamlDecode("pool:\n  - name: x\n"), wantErr: []string{"policy fair", "pool"},
		},
		{
			name: "invalid parameters are an error", policy: "fair",
			decode: yamlDecode("pools:\n  - name: x\n    mode: lifo\n"), wantErr: []string{"policy fair", "pools[0].mode"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := checkNewPolicy(t, tc.policy, tc.decode, tc.wantErr)
			if p != nil && p.Name() != tc.wantName {
				t.Errorf("NewPolicy(%q).Name() = %q, want %q", tc.policy, p.Name(), tc.wantName)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("NewPolicy(%q) error %q does not wrap the decoder's error", tc.policy, err)
			}
		})
	}
}

// checkNewPolicy builds a policy by name with dec and checks the outcome:
// with wantErr nil it must build (the policy is returned), otherwise it
// must fail with an error containing every string of wantErr (the error
// is returned, the policy is nil).
func checkNewPolicy(t *testing.T, policy string, dec sched.Decode, wantErr []string) (sched.Policy, error) {
	t.Helper()
	p, err := sched.NewPolicy(policy, dec)
	if wantErr == nil {
		if err != nil {
			t.Fatalf("NewPolicy(%q) = %v, want a policy", policy, err)
		}
		return p, nil
	}
	if err == nil {
		t.Fatalf("NewPolicy(%q) succeeded, want an error containing %q", policy, wantErr)
	}
	for _, s := range wantErr {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("NewPolicy(%q) error %q does not contain %q", policy, err, s)
		}
	}
	return nil, err
}

// checkParams is checkNewPolicy for parameters written as YAML (none when
// empty); a policy that builds must keep its name and observe jobs and
// tasks.
// paramsCase is a policy built from YAML parameters, and what its error
// must say (nothing: it builds).
type paramsCase struct {
	name    string
	policy  string
	params  string // YAML; "" builds with no parameters
	wantErr []string
}

// checkParamsCases runs checkParams on each case as a subtest.
func checkParamsCases(t *testing.T, cases []paramsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkParams(t, tc.policy, tc.params, tc.wantErr) })
	}
}

func checkParams(t *testing.T, policy, params string, wantErr []string) {
	t.Helper()
	var dec sched.Decode
	if params != "" {
		dec = yamlDecode(params)
	}
	p, _ := checkNewPolicy(t, policy, dec, wantErr)
	if p == nil {
		return
	}
	if p.Name() != policy {
		t.Errorf("Name() = %q, want %q", p.Name(), policy)
	}
	observers(t, p)
}

func TestNewPolicyFairUsesDecodedPools(t *testing.T) {
	// Pool "a" has a min share of 4 map slots; with it, a runs 3 and is
	// needy, so it goes before pool b although b runs less.
	p, err := sched.NewPolicy("fair", yamlDecode("pools:\n  - name: a\n    min_maps: 4\n"))
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	topo := smallTopo(t)
	c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.MapSlot: 10}}
	ja := newJob(t, topo, 0, "a", 10, 1)
	jb := newJob(t, topo, 1, "b", 10, 1)
	c.jobs = []*sched.Job{ja, jb}
	jo := p.(sched.JobObserver)
	to := p.(sched.TaskObserver)
	jo.JobAdded(c, ja)
	jo.JobAdded(c, jb)
	c.epoch++
	startMaps(t, ja, 3)
	startMaps(t, jb, 1)
	for range 3 {
		to.TaskLaunched(c, ja, sched.MapTask, 0)
	}
	to.TaskLaunched(c, jb, sched.MapTask, 0)
	d, ok := p.Assign(c, sched.Offer{Node: 0, Slot: sched.MapSlot})
	if !ok || d.Job != ja {
		t.Errorf("Assign = (job %v, %v), want job 0: pool a is below its decoded min_maps 4", jobIndex(d.Job), ok)
	}
}

func TestPolicyListing(t *testing.T) {
	if got, want := sched.PolicyNames(), []string{"fifo", "fair", "delay", "fifo-delay", "drf",
		"sw-fair", "sw-drf", "sw-relaxed", "sw-delay", "sw-nass", "sw-nass-sarp",
		"nas", "nas-mts", "nas-mts-carts", "nas-no-tt", "nas-no-tt-crrts", "td"}; !slices.Equal(got, want) {
		t.Errorf("PolicyNames() = %v, want %v in registry order", got, want)
	}
	entries := sched.Policies()
	for i, e := range entries {
		if e.Summary == "" || e.New == nil {
			t.Errorf("entry %d (%s) lacks a summary or a factory", i, e.Name)
		}
	}
	entries[0].Name = "mutated"
	if sched.PolicyNames()[0] != "fifo" {
		t.Errorf("mutating the slice Policies() returned changed the registry: it must return a copy")
	}
}
