package experiment

import (
	"fmt"
	"go/build"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mrsched/mrsched"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
)

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
	o := Options{Parallel: 1, KeepDir: t.TempDir()}
	keeper := harness.Cache[string, *nasOutcome]{Keep: nasCache.Keep, Exec: func(string) (*nasOutcome, error) { return r, nil }}
	if _, err := keeper.Runs(o, []string{"k"}); err != nil {
		t.Fatal(err)
	}
	reader := harness.Cache[string, *nasOutcome]{Keep: nasCache.Keep, Exec: func(string) (*nasOutcome, error) { // a new process
		return nil, fmt.Errorf("the kept run was made again")
	}}
	kept, err := reader.Runs(o, []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	got := kept[0]
	// NaN != NaN: compare the slowdowns apart.
	if !math.IsNaN(got.Jobs[0].Slowdown) {
		t.Errorf("slowdown %v, want NaN kept", got.Jobs[0].Slowdown)
	}
	got.Jobs[0].Slowdown, r.Jobs[0].Slowdown = 0, 0
	if !reflect.DeepEqual(got, r) {
		t.Errorf("kept run read back as\n%+v\nwant\n%+v", got, r)
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
