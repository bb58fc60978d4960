package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// intKeep is the kind of the kept ints, as a cache of a real experiment
// keeps its runs.
const intKeep = "test"

// A stopped experiment resumes: the runs one process finished and kept
// are read back by the next (a fresh cache) instead of running again,
// and a run kept under another key is never handed back.
func TestKeptRunsResumeAStoppedExperiment(t *testing.T) {
	dir := t.TempDir()
	o := Options{Parallel: 2, KeepDir: dir}
	var ran []string
	exec := func(s string) (int, error) {
		ran = append(ran, s)
		return len(s), nil
	}
	first := Cache[string, int]{Keep: intKeep, Exec: exec}
	if _, err := first.Runs(Options{Parallel: 1, KeepDir: dir}, []string{"a", "bb"}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "test-") || filepath.Ext(e.Name()) != ".gob" {
			t.Errorf("keep directory holds %s; want only test-*.gob (no temporaries left)", e.Name())
		}
		if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r-- as every other output", e.Name(), info.Mode(), err)
		}
	}
	if len(ents) != 2 {
		t.Errorf("keep directory holds %d files, want 2: one per finished run", len(ents))
	}
	ran = nil
	second := Cache[string, int]{Keep: intKeep, Exec: exec} // a new process
	got, err := second.Runs(o, []string{"ccc", "a", "bb"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("results %v, want %v in the order asked for", got, want)
	}
	if want := []string{"ccc"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want only %v: the first process kept the others", ran, want)
	}
	// Without a keep directory nothing is read from disk.
	ran = nil
	third := Cache[string, int]{Keep: intKeep, Exec: exec}
	if _, err := third.Runs(Options{Parallel: 1}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 {
		t.Errorf("ran %v without -keep, want the run made again", ran)
	}
}

// A file at a run's path whose header names another key (a hash
// collision, or an edited file) is not that run: it is run again.
func TestKeptRunOfAnotherKeyIsRunAgain(t *testing.T) {
	dir := t.TempDir()
	if err := storeKept(dir, intKeep, "other", 7); err != nil {
		t.Fatal(err)
	}
	// Move the kept "other" to where "mine" would be.
	if err := os.Rename(keepPath(dir, intKeep, "other"), keepPath(dir, intKeep, "mine")); err != nil {
		t.Fatal(err)
	}
	_, ok, err := loadKept[int](dir, intKeep, "mine")
	if err != nil || ok {
		t.Errorf("loadKept = ok %v, err %v; want no run and no error: the file holds another key's run", ok, err)
	}
}

// A file that is not a kept run is an error naming it, not a silent
// re-run over it: it sits in the directory the user named.
func TestKeptFileThatIsNotARunIsAnError(t *testing.T) {
	dir := t.TempDir()
	path := keepPath(dir, intKeep, "k")
	if err := os.WriteFile(path, []byte("not gob"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := loadKept[int](dir, intKeep, "k")
	if err == nil || !strings.Contains(err.Error(), filepath.Base(path)) {
		t.Errorf("loadKept of a garbage file: error %v, want one naming %s", err, filepath.Base(path))
	}
}

// TestSourceHashTracksGoSourceOnly pins what keys kept runs: the same Go
// files give the same hash; a change to a built .go file, a file added or
// renamed, changes it; test files and docs do not, so a docs-only commit
// keeps the runs.
func TestSourceHashTracksGoSourceOnly(t *testing.T) {
	base := fstest.MapFS{
		"sim/engine.go":      {Data: []byte("package sim\n")},
		"sim/engine_test.go": {Data: []byte("package sim\n// a test\n")},
		"sched/fair.go":      {Data: []byte("package sched\n")},
		"sched/README.md":    {Data: []byte("# notes\n")},
	}
	with := func(edit func(fstest.MapFS)) fstest.MapFS {
		m := fstest.MapFS{}
		for k, v := range base {
			m[k] = &fstest.MapFile{Data: slices.Clone(v.Data)}
		}
		edit(m)
		return m
	}
	cases := []struct {
		name string
		fsys fstest.MapFS
		same bool
	}{
		{"the same files again", with(func(fstest.MapFS) {}), true},
		{"a test file changed", with(func(m fstest.MapFS) { m["sim/engine_test.go"].Data = []byte("package sim\n// another\n") }), true},
		{"a doc changed", with(func(m fstest.MapFS) { m["sched/README.md"].Data = []byte("# other notes\n") }), true},
		{"a test file added", with(func(m fstest.MapFS) { m["sched/fair_test.go"] = &fstest.MapFile{Data: []byte("package sched\n")} }), true},
		{"a .go file changed", with(func(m fstest.MapFS) { m["sched/fair.go"].Data = []byte("package sched\n\nconst x = 1\n") }), false},
		{"a .go file added", with(func(m fstest.MapFS) { m["sim/net.go"] = &fstest.MapFile{Data: []byte("package sim\n")} }), false},
		{"a .go file renamed", with(func(m fstest.MapFS) { m["sched/fair2.go"] = m["sched/fair.go"]; delete(m, "sched/fair.go") }), false},
		{"a .go file removed", with(func(m fstest.MapFS) { delete(m, "sim/engine.go") }), false},
	}
	want, err := sourceHash(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		got, err := sourceHash(tc.fsys)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (got == want) != tc.same {
			t.Errorf("%s: hash equal to the original's = %v, want %v (only built .go files key kept runs)", tc.name, got == want, tc.same)
		}
	}
	if _, err := sourceHash(fstest.MapFS{"README.md": {Data: []byte("x")}}); err == nil {
		t.Error("no Go source: no error; want one, as a key of nothing would match every build")
	}
}
