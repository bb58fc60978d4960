package harness

import "testing"

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
