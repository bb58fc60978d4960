package harness

import (
	"strings"
	"testing"
)

// A policy's parameters are decoded strictly, as a scenario file's are: a
// misspelt one is an error, not a silent default.
func TestPolicySpecRejectsUnknownParams(t *testing.T) {
	if _, err := (PolicySpec{Name: "fair", Params: map[string]any{"bogus": 1}}).Build(); err == nil {
		t.Error("a misspelt parameter was accepted")
	}
	if _, err := (PolicySpec{Name: "delay", Params: map[string]any{"t1_s": 10.0}}).Build(); err != nil {
		t.Errorf("delay with t1_s: %v, want it built", err)
	}
}

// TestDiskProfileErrors: the regimes' profile, looked up by name, is an
// error naming it when it is unknown or models no disk (fluid), not a
// panic; hadoop1-hdd is found.
func TestDiskProfileErrors(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"hadoop1-hdd", true},
		{"no-such-profile", false},
		{"fluid", false},
	}
	for _, tc := range cases {
		p, err := DiskProfile(tc.name)
		if tc.ok && (err != nil || p.Disk == nil) {
			t.Errorf("%s: %v, disk %v; want the profile with its disk", tc.name, err, p.Disk)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.name)) {
			t.Errorf("%s: error %v, want one naming the profile", tc.name, err)
		}
	}
}
