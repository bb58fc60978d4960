package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock advances a second each time it is read.
func fakeClock() func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// TestProgressToAFile: not on a terminal, progress writes one plain line
// per ten percent and a last one, and no carriage return.
func TestProgressToAFile(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, "compare", 2, jobSpan{first: 0, last: 1000, jobs: 100}, false)
	p.clock, p.start = fakeClock(), time.Unix(0, 0)
	for step := 0; step <= 100; step++ {
		for i := range 2 {
			p.sim(i, float64(10*step), step, 100)
		}
	}
	p.finish()
	out := b.String()
	if strings.Contains(out, "\r") {
		t.Errorf("output to a file has carriage returns:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 10 {
		t.Errorf("%d lines, want 10 (10%% ... 90%% and the closing 100%%):\n%s", len(lines), out)
	}
	if !strings.HasPrefix(lines[0], "compare:  10%") || !strings.Contains(lines[0], "left") {
		t.Errorf("first line %q, want the label, 10%% and an estimate of the time left", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "100%") || !strings.Contains(last, "done in") || !strings.Contains(last, "200/200 jobs") {
		t.Errorf("last line %q, want 100%%, the time taken and every job finished", last)
	}
}

func TestProgressQuietAndTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, "fair", 1, jobSpan{}, true)
	p.sim(0, 5, 1, 2)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("-q wrote %q, want nothing", b.String())
	}
	p = newProgress(&b, "fair", 1, jobSpan{jobs: 10}, false)
	p.tty, p.clock, p.start = true, fakeClock(), time.Unix(0, 0)
	for k := 1; k <= 10; k++ {
		p.sim(0, 0, k, 10)
	}
	p.finish()
	out := b.String()
	if !strings.HasPrefix(out, "\rfair [") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\r") < 10 {
		t.Errorf("on a terminal, want a bar redrawn in place with \\r and a final newline, got %q", out)
	}
}

// TestProgressFraction pins how far a run is: the mean of simulated time
// over the submission span and the jobs finished.
func TestProgressFraction(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, "x", 1, jobSpan{first: 100, last: 300, jobs: 10}, false)
	cases := []struct {
		now             float64
		finished, total int
		want            float64
		why             string
	}{
		{100, 0, 10, 0, "nothing done at the first submit"},
		{200, 5, 10, 0.5, "half the span and half the jobs"},
		{400, 8, 10, 0.9, "past the last submit time counts as all of it; jobs lag"},
		{400, 10, 10, 1, "done"},
	}
	for _, c := range cases {
		if got := p.fraction(c.now, c.finished, c.total); got != c.want {
			t.Errorf("fraction(%v, %d, %d) = %v, want %v: %s", c.now, c.finished, c.total, got, c.want, c.why)
		}
	}
	p = newProgress(&bytes.Buffer{}, "x", 1, jobSpan{}, false)
	if got := p.fraction(12345, 3, 4); got != 0.75 {
		t.Errorf("without a span, fraction = %v, want jobs alone (0.75)", got)
	}
}
