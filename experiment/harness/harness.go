// Package harness runs the papers' experiments as they declare them. An
// experiment states its scenarios, the policies and their parameters, the
// seeds and the columns of its table (the paper's numbers beside ours);
// the harness runs the grid of scenarios x seeds x policies, o.Parallel at
// a time (RunGrid), keeps runs a process or a later invocation shares
// (Cache, KeepDir), watches the engine's decisions through policy wrappers
// (PassThrough, MapRuns, the closed-loop gate) and fills the table and its
// CSV from the declared columns (Table). Package experiment holds the
// papers' declarations.
//
// Every run is deterministic for its seed, and independent runs execute in
// parallel without changing any result.
package harness

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/report"
)

// Options control one experiment run. Zero values take the experiment's
// defaults.
type Options struct {
	// Seeds is how many seeded schedules (workload draws and block
	// placements) to average over; 0 is the experiment's default.
	Seeds int
	// Seed is the first seed; schedules use Seed, Seed+1, ... Default 1.
	Seed uint64
	// Parallel is how many simulations run at once; default GOMAXPROCS.
	Parallel int
	// Progress, when set, is called after each simulation with the number
	// done and the total; calls are serialised.
	Progress func(done, total int)
	// KeepDir, when set, is a directory where each finished simulation of
	// the experiments that keep runs (nas/*) is written as it finishes and
	// read back by the next invocation of a build of the same source: a stopped
	// experiment resumes where it stopped (keep.go).
	KeepDir string
}

// WithDefaults fills the zero options: seeds schedules, the first seed 1,
// GOMAXPROCS at once.
func (o Options) WithDefaults(seeds int) Options {
	if o.Seeds <= 0 {
		o.Seeds = seeds
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	return o
}

// SeedList lists the schedules' seeds: Seed, Seed+1, ... (Seeds of them).
func (o Options) SeedList() []uint64 {
	s := make([]uint64, o.Seeds)
	for i := range s {
		s[i] = o.Seed + uint64(i)
	}
	return s
}

// Result is a finished experiment: a table for people, with the paper's
// numbers in their own columns, and the same rows as plain numbers for CSV.
type Result struct {
	// Name is the experiment's (Experiment.Name).
	Name string
	// Table is printed; CSV is written by -out.
	Table *report.Table
	CSV   *report.Table
	// Wall, when set, says what the simulations took in wall time. It is
	// the machine's and the hour's, not the experiment's, so it stays out
	// of the table (whose text the write-ups hold and diff): the command
	// prints it on stderr with the progress.
	Wall string
}

// Experiment is a registered experiment.
type Experiment struct {
	// Name is "<paper>/<name>", e.g. "fair-delay/zipf".
	Name string
	// Source is where in the paper the experiment comes from.
	Source string
	// Summary is one line for -list.
	Summary string
	// DefaultSeeds is the number of schedules run when Options.Seeds is 0
	// (1 for deterministic set-ups that have nothing to average).
	DefaultSeeds int
	// QuantumS is the network quantum the experiment's runs use, 0 for the
	// exact network. Comparisons run exact unless a quantum is shown not
	// to move their effects beyond the exact network's own spread over
	// seeds (docs/performance.md, Its error on the papers' effects); every
	// table says which.
	QuantumS float64
	// Fast marks an experiment whose default run takes at most about 15
	// CPU-seconds (measured with /usr/bin/time on the 2-core reference
	// machine, docs/experiments.md): the write-ups' test reruns the
	// generated blocks of fast experiments and fails on any difference
	// (cmd/mrsched, writeups.go); the others' blocks are checked only by
	// mrsched experiment -check.
	Fast bool
	// Measure runs the experiment's simulations with the options'
	// defaults filled (Run) and tabulates them.
	Measure func(Options) (*Result, error)
	// Plot, when set, is how the experiment's CSV rows are drawn beside
	// the paper's figure.
	Plot *report.TableFigure
}

// Run runs the experiment.
func (e Experiment) Run(o Options) (*Result, error) {
	o = o.WithDefaults(e.DefaultSeeds)
	r, err := e.Measure(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name, err)
	}
	r.Name = e.Name
	if r.Table != nil {
		r.Table.Notes = append(r.Table.Notes, e.networkNote())
	}
	return r, nil
}

// Figure is how the experiment's CSV rows are drawn beside the paper's
// figure, or nil if it has no figure.
func (e Experiment) Figure() *report.TableFigure { return e.Plot }

// networkNote says which network the experiment's runs used.
func (e Experiment) networkNote() string {
	if e.QuantumS == 0 {
		return "network: exact (engine.network_quantum_s 0)"
	}
	return fmt.Sprintf("network: quantized, engine.network_quantum_s %g, which moves the papers' effects no more than the exact network's own spread over seeds (docs/performance.md)", e.QuantumS)
}

// Registry is the experiments, paper by paper, in the order -list shows
// them.
type Registry []Experiment

// Names lists the registered experiments' names.
func (r Registry) Names() []string {
	n := make([]string, len(r))
	for i, e := range r {
		n[i] = e.Name
	}
	return n
}

// Lookup finds an experiment by its full name, or by its short name when
// that is unambiguous ("zipf" for "fair-delay/zipf"). An unknown name is an
// error that lists the known ones.
func (r Registry) Lookup(name string) (Experiment, error) {
	var short []Experiment
	for _, e := range r {
		if e.Name == name {
			return e, nil
		}
		if _, s, ok := strings.Cut(e.Name, "/"); ok && s == name {
			short = append(short, e)
		}
	}
	if len(short) == 1 {
		return short[0], nil
	}
	return Experiment{}, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// Select resolves names to experiments: a full or short name, or a paper
// prefix ("fair-delay") for all of that paper's experiments.
func (r Registry) Select(names []string) ([]Experiment, error) {
	var out []Experiment
	for _, n := range names {
		var group []Experiment
		for _, e := range r {
			if strings.HasPrefix(e.Name, strings.TrimSuffix(n, "/")+"/") {
				group = append(group, e)
			}
		}
		if len(group) > 0 {
			out = append(out, group...)
			continue
		}
		e, err := r.Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// WithFigures lists the experiments that have a figure, in registry order.
func (r Registry) WithFigures() []string {
	var out []string
	for _, e := range r {
		if e.Plot != nil {
			out = append(out, e.Name)
		}
	}
	return out
}

// All lists the registered experiments in order, as a copy.
func (r Registry) All() []Experiment { return slices.Clone(r) }
