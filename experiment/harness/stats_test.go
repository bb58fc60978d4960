package harness

import "testing"

// TestStatText pins a sample's text: "-" when empty, the mean alone for
// one value, the mean and its range for more, and the range in percent.
func TestStatText(t *testing.T) {
	var s Stat
	if got := s.Text(1); got != "-" {
		t.Errorf("empty stat = %q, want -", got)
	}
	s.Add(2)
	if got := s.Text(1); got != "2.0" {
		t.Errorf("one value = %q, want 2.0", got)
	}
	s.Add(4)
	if got := s.Text(1); got != "3.0 (2.0-4.0)" {
		t.Errorf("two values = %q, want 3.0 (2.0-4.0)", got)
	}
	if got := s.Pct(); got != "300 (200-400)" {
		t.Errorf("pct = %q, want 300 (200-400): the range in percent", got)
	}
}
