package experiment

import (
	"go/build"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mrsched/mrsched"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
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
	key := func(s string) string { return s }
	var ran []string
	exec := func(s string) (int, error) {
		ran = append(ran, s)
		return len(s), nil
	}
	first := runCache[string, int]{keep: intKeep}
	if _, err := cachedRuns(Options{Parallel: 1, KeepDir: dir}, &first, []string{"a", "bb"}, key, exec); err != nil {
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
	second := runCache[string, int]{keep: intKeep} // a new process
	got, err := cachedRuns(o, &second, []string{"ccc", "a", "bb"}, key, exec)
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
	third := runCache[string, int]{keep: intKeep}
	if _, err := cachedRuns(Options{Parallel: 1}, &third, []string{"a"}, key, exec); err != nil {
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

// A NAS run kept and read back is the run: every figure the NAS
// experiments read survives, NaNs and the class map included.
func TestNASRunKeptIsTheRun(t *testing.T) {
	r := &nasOutcome{
		Jobs: []metrics.JobRecord{{ID: 1, Pool: "user-1", Submit: 3, Finish: 9.5, Maps: 4, Slowdown: math.NaN()},
			{ID: 2, Pool: "user-2", Submit: 4, Finish: -1, Failed: true, Reason: "lost"}},
		Summary: metrics.Summary{JobsCompleted: 1, MakespanS: 6.5,
			TurnaroundByClass: map[string]metrics.Distribution{"light": {Mean: 6.5}},
			ReduceWaitS:       12, CongestionOccurrences: 3},
		Load:  sched.NASLoadStats{PeriodS: 3, Samples: 10, Nodes: 600, MeanShare: 0.25},
		WallS: 42,
	}
	dir := t.TempDir()
	if err := storeKept(dir, nasCache.keep, "k", r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := loadKept[*nasOutcome](dir, nasCache.keep, "k")
	if err != nil || !ok {
		t.Fatalf("loadKept: ok %v, err %v", ok, err)
	}
	// NaN != NaN: compare the slowdowns apart.
	if !math.IsNaN(got.Jobs[0].Slowdown) {
		t.Errorf("slowdown %v, want NaN kept", got.Jobs[0].Slowdown)
	}
	got.Jobs[0].Slowdown, r.Jobs[0].Slowdown = 0, 0
	if !reflect.DeepEqual(got, r) {
		t.Errorf("kept run read back as\n%+v\nwant\n%+v", got, r)
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

// TestSourcesCoverExperiment: the embedded sources that key kept runs
// hold every non-test Go file of every package of this module that the
// experiment package imports, directly or not, so a new dependency cannot
// change results without changing the key.
func TestSourcesCoverExperiment(t *testing.T) {
	const module = "github.com/mrsched/mrsched"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	queue := []string{"experiment"}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(dir)), 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range pkg.GoFiles {
			if _, err := fs.Stat(mrsched.Sources, dir+"/"+f); err != nil {
				t.Errorf("%s/%s is not among mrsched.Sources: add %s/*.go to source.go's go:embed line", dir, f, dir)
			}
		}
		for _, imp := range pkg.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				queue = append(queue, rest)
			}
		}
	}
}
