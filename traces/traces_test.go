package traces

import (
	"bytes"
	"testing"
)

func TestEmbedded(t *testing.T) {
	tests := []struct {
		name      string
		wantOK    bool
		wantNodes int
		wantLines int
	}{
		{"FB-2009", true, 600, 5894},
		{"fb2009", true, 600, 5894},
		{"Fb-2009", true, 600, 5894},
		{"FB-2010", true, 3000, 24442},
		{"fb2010", true, 3000, 24442},
		{"FB2010", true, 3000, 24442},
		{"FB-2010-paths", true, 3000, 25428},
		{"fb2010-paths", true, 3000, 25428},
		{"FB-2010-Paths", true, 3000, 25428},
		{"FB-2010paths", false, 0, 0},
		{"FB-2011", false, 0, 0},
		{"", false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, nodes, ok := Embedded(tc.name)
			if ok != tc.wantOK {
				t.Fatalf("Embedded(%q) ok = %v, want %v", tc.name, ok, tc.wantOK)
			}
			if nodes != tc.wantNodes {
				t.Errorf("Embedded(%q) sourceNodes = %d, want %d (the traced cluster's size)", tc.name, nodes, tc.wantNodes)
			}
			if got := bytes.Count(data, []byte("\n")); got != tc.wantLines {
				t.Errorf("Embedded(%q) has %d lines, want %d (one job a line, as SWIM ships it)", tc.name, got, tc.wantLines)
			}
		})
	}
}

func TestAccessorsMatchEmbedded(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{{FB2009Name, FB2009()}, {FB2010Name, FB2010()}, {FB2010PathsName, FB2010Paths()}} {
		got, _, ok := Embedded(tc.name)
		if !ok || !bytes.Equal(got, tc.data) {
			t.Errorf("Embedded(%q) does not return the same bytes as its accessor", tc.name)
		}
		if len(tc.data) == 0 {
			t.Errorf("%s: embedded trace is empty; the go:embed file is missing", tc.name)
		}
	}
	if n := len(Names()); n != 3 {
		t.Errorf("Names() has %d entries, want 3, one an embedded trace", n)
	}
	for _, name := range Names() {
		if got := SynthesisPaths(name); got != (name == FB2010PathsName) {
			t.Errorf("SynthesisPaths(%q) = %v; only %s has WorkloadSynthesis.pl's path names", name, got, FB2010PathsName)
		}
	}
}
