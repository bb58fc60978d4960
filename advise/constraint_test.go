package advise

import (
	"strings"
	"testing"
)

func TestParseConstraint(t *testing.T) {
	for _, c := range []struct {
		in, err string
		bound   float64
	}{
		{in: "p95-turnaround<=1.1", bound: 1.1},
		{in: "throughput>=0.95", bound: 0.95},
		{in: "throughput<=1.1", err: "bound it with >="},
		{in: "mean-turnaround>=1", err: "bound it with <="},
		{in: "p95<=1.1", err: "unknown objective"},
		{in: "p95-turnaround<=-1", err: "positive multiple"},
		{in: "p95-turnaround", err: "want NAME<=X"},
	} {
		got, err := ParseConstraint(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseConstraint(%q) = %v, %v; want an error saying %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || got.Bound != c.bound):
			t.Errorf("ParseConstraint(%q) = %v, %v; want bound %v", c.in, got, err, c.bound)
		}
	}
}

// FuzzParseConstraint: any text is a constraint or an error, never a
// panic, and a constraint prints back as one that parses to itself.
func FuzzParseConstraint(f *testing.F) {
	for _, s := range []string{"p95-turnaround<=1.1", "throughput>=0.9", "x", "<=", "worst-pool<=1e309", ">=>="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConstraint(s)
		if err != nil {
			return
		}
		again, err := ParseConstraint(c.String())
		if err != nil || again.Bound != c.Bound || again.Objective != c.Objective {
			t.Errorf("%q parsed to %v, which reads back as %v, %v", s, c, again, err)
		}
	})
}
