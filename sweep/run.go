package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
)

// Sweep is a planned sweep directory.
type Sweep struct {
	Dir  string
	Plan *Plan
	// id identifies the plan (planID), recorded in each run's run.json.
	id string

	// mu guards the temporary directories this process writes runs into,
	// so that Abandon removes every one and no run is renamed into place
	// after it. A temporary directory is created and recorded under the
	// lock, and a run's files are written and renamed under its read
	// side: Abandon, which takes it whole, then never races a directory
	// being made or a writer re-creating one it has just removed.
	mu        sync.RWMutex
	temps     map[string]bool
	abandoned bool
}

// errAbandoned is a run's error once Abandon has been called.
var errAbandoned = errors.New("abandoned: the sweep was interrupted")

// Abandon removes the temporary directories of the runs this process has
// under way, and stops any of them being kept: for a process told to stop
// (SIGINT, or SIGTERM from a batch system), which would otherwise leave
// them behind, hidden, in runs/. Finished runs stay.
func (s *Sweep) Abandon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abandoned = true
	for t := range s.temps {
		os.RemoveAll(t)
	}
	s.temps = nil
}

// Finished counts the runs that have finished.
func (s *Sweep) Finished() int { return len(s.Plan.Runs) - len(s.Pending()) }

// newTemp makes a hidden directory in runs for a run named name and
// records it as under way, both under the lock; errAbandoned once the
// sweep is abandoned.
func (s *Sweep) newTemp(runs, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.abandoned {
		return "", errAbandoned
	}
	tmp, err := os.MkdirTemp(runs, "."+name+"-*")
	if err != nil {
		return "", err
	}
	if s.temps == nil {
		s.temps = map[string]bool{}
	}
	s.temps[tmp] = true
	return tmp, nil
}

func (s *Sweep) untrack(tmp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.temps, tmp)
}

// Open reads the plan in dir.
func Open(dir string) (*Sweep, error) {
	b, err := os.ReadFile(filepath.Join(dir, planFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no sweep plan (no %s): plan one with mrsched sweep plan -grid FILE -out %s", dir, planFile, dir)
	}
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, planFile), err)
	}
	if p.Version != 1 {
		return nil, fmt.Errorf("%s: plan version %d, this mrsched reads version 1", filepath.Join(dir, planFile), p.Version)
	}
	for i, r := range p.Runs {
		if r.Index != i {
			return nil, fmt.Errorf("%s: runs[%d] has index %d", filepath.Join(dir, planFile), i, r.Index)
		}
	}
	return &Sweep{Dir: dir, Plan: &p, id: planID(b)}, nil
}

// Spec is the path of run i's scenario file.
func (s *Sweep) Spec(i int) string {
	return filepath.Join(s.Dir, specsDir, specName(i, len(s.Plan.Runs)))
}

// RunDir is where run i's outputs are once it has finished.
func (s *Sweep) RunDir(i int) string {
	return filepath.Join(s.Dir, runsDir, runName(i, len(s.Plan.Runs)))
}

// Done reports whether run i has finished. A run's directory appears
// whole, renamed from a temporary one when every file is written, so a run
// that crashed or was preempted has none and runs again.
func (s *Sweep) Done(i int) bool {
	_, err := os.Stat(s.RunDir(i))
	return err == nil
}

// Pending lists the runs that have not finished, in index order.
func (s *Sweep) Pending() []int {
	var out []int
	for i := range s.Plan.Runs {
		if !s.Done(i) {
			out = append(out, i)
		}
	}
	return out
}

// record is a finished run's run.json: the planned run and the plan's id.
type record struct {
	Plan string `json:"plan"`
	Run
}

const recordFile = "run.json"

// Outcome is what Execute did with a run.
type Outcome struct {
	Run Run
	// Skipped is set when the run had already finished (or another
	// process finished it first); nothing ran.
	Skipped bool
	Summary metrics.Summary
	Perf    scenario.Perf
}

// Execute runs run i unless it has finished, and writes its outputs (as
// `simulate -out` does, with report.WriteRunDir, plus run.json) to RunDir(i) atomically. A run whose
// workload is no longer the one planned (its trace file was changed) is
// refused. progress may be nil.
func (s *Sweep) Execute(i int, progress sim.Progress) (*Outcome, error) {
	if i < 0 || i >= len(s.Plan.Runs) {
		return nil, fmt.Errorf("run %d: out of range: the plan in %s has %d runs, 0 to %d", i, s.Dir, len(s.Plan.Runs), len(s.Plan.Runs)-1)
	}
	r := s.Plan.Runs[i]
	out := &Outcome{Run: r}
	if s.Done(i) {
		out.Skipped = true
		return out, nil
	}
	src, err := os.ReadFile(s.Spec(i))
	if err != nil {
		return nil, err
	}
	if h := textHash(specBody(src)); h != r.Scenario {
		return nil, fmt.Errorf("run %d (%s): %s changed since the plan (its scenario is %s, planned as %s); plan the sweep again in a new directory",
			i, r.Describe(), s.Spec(i), h, r.Scenario)
	}
	c, err := scenario.LoadBytes(src, s.Spec(i), filepath.Dir(s.Spec(i)))
	if err != nil {
		return nil, err
	}
	fp, err := workloadOf(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Spec(i), err)
	}
	if fp != r.Workload {
		return nil, fmt.Errorf("run %d (%s): its workload is %s, planned as %s: a file it reads changed since the plan; plan the sweep again in a new directory",
			i, r.Describe(), fp, r.Workload)
	}
	tmp, err := s.newTemp(filepath.Join(s.Dir, runsDir), runName(i, len(s.Plan.Runs)))
	if err != nil {
		return nil, err
	}
	defer s.untrack(tmp)
	defer os.RemoveAll(tmp) // nothing left once renamed
	start := time.Now()
	res, err := c.Run(progress)
	if err != nil {
		return nil, fmt.Errorf("run %d (%s): %w", i, r.Describe(), err)
	}
	out.Summary = res.Summary
	out.Perf = scenario.NewPerf(res.Summary.Policy, res.Cost, res.Engine, time.Since(start))
	if err := s.keep(tmp, s.RunDir(i), func() error {
		head := fmt.Sprintf("# The scenario of run %d of the sweep in %s, as read from %s (paths in it are relative to that file's directory).\n",
			i, s.Dir, filepath.Join(specsDir, filepath.Base(s.Spec(i))))
		scen := append([]byte(head), c.Source()...)
		if err := report.WriteRunDir(tmp, report.Output{Scenario: scen, Summary: res.Summary, Collector: res.Collector, Perf: out.Perf}); err != nil {
			return err
		}
		b, err := json.MarshalIndent(record{Plan: s.id, Run: r}, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, recordFile), append(b, '\n'), 0o644)
	}); err != nil {
		if !errors.Is(err, errAbandoned) && s.Done(i) { // another task ran it too and finished first
			out.Skipped = true
			return out, nil
		}
		return nil, err
	}
	return out, nil
}

// keep writes a run's files into tmp with write and renames tmp to dir,
// holding the lock's read side so that Abandon waits for it and then
// removes what it wrote; errAbandoned if the sweep was abandoned first.
func (s *Sweep) keep(tmp, dir string, write func() error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.abandoned {
		return errAbandoned
	}
	if err := write(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// RunAll executes every run that has not finished, parallel at a time,
// calling report (when set) after each, one call at a time, with the
// number done, the number pending, the run's index and what came of it. It
// goes on past a failed run and returns an error naming every run that
// failed.
func (s *Sweep) RunAll(parallel int, report func(done, total, index int, o *Outcome, err error)) error {
	pending := s.Pending()
	errs := make([]error, len(pending))
	var (
		mu   sync.Mutex
		done int
	)
	_, _ = Parallel(len(pending), parallel, nil, func(k int) (struct{}, error) {
		o, err := s.Execute(pending[k], nil)
		errs[k] = err
		if report != nil {
			mu.Lock()
			done++
			report(done, len(pending), pending[k], o, err)
			mu.Unlock()
		}
		return struct{}{}, nil
	})
	var failed []int
	for k, err := range errs {
		if err != nil {
			failed = append(failed, pending[k])
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d runs failed (%s); run again to retry them", len(failed), len(pending), ranges(failed))
	}
	return nil
}

// ranges writes sorted indexes compactly: "0-3, 7, 9-10".
func ranges(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(v[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
