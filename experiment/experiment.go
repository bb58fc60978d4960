// Package experiment holds the papers' experiments as code: each sets up the
// paper's cluster and workload, runs it under the paper's schedulers, and
// returns a table that puts our numbers beside the paper's.
//
// An experiment is named "<paper>/<name>" (fair-delay/zipf, ...). Where the
// paper leaves a choice open (map lengths, arrival rates, CPU costs, link
// speeds), the experiment's doc comment says what it chose and why; no
// constant is tuned to reproduce a paper's number. Experiments that average
// runs over submission schedules take Options.Seeds; every run is
// deterministic for its seed, and independent runs execute in parallel
// without changing any result.
package experiment

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

func (o Options) withDefaults(seeds int) Options {
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

// seeds lists the schedules' seeds.
func (o Options) seeds() []uint64 {
	s := make([]uint64, o.Seeds)
	for i := range s {
		s[i] = o.Seed + uint64(i)
	}
	return s
}

// Result is a finished experiment: a table for people, with the paper's
// numbers in their own columns, and the same rows as plain numbers for CSV.
type Result struct {
	Name  string
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
	run  func(Options) (*Result, error)
}

// Run runs the experiment.
func (e Experiment) Run(o Options) (*Result, error) {
	o = o.withDefaults(e.DefaultSeeds)
	r, err := e.run(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name, err)
	}
	r.Name = e.Name
	if r.Table != nil {
		r.Table.Notes = append(r.Table.Notes, e.networkNote())
	}
	return r, nil
}

// networkNote says which network the experiment's runs used.
func (e Experiment) networkNote() string {
	if e.QuantumS == 0 {
		return "network: exact (engine.network_quantum_s 0)"
	}
	return fmt.Sprintf("network: quantized, engine.network_quantum_s %g, which moves the papers' effects no more than the exact network's own spread over seeds (docs/performance.md)", e.QuantumS)
}

// registry lists every experiment, paper by paper.
var registry = slices.Concat(fairDelayExperiments, swExperiments, nasExperiments, tdExperiments)

// fairDelayExperiments are the Fair Scheduler paper's (E3).
var fairDelayExperiments = []Experiment{
	{Name: "fair-delay/fifo-vs-fair", Fast: true, Source: "Fair Scheduler paper, section 5.3, Fig. 7", DefaultSeeds: 1,
		Summary: "two jobs of 100 s maps + 100 s CPU-bound reduces: FIFO finishes the batch at 300 s, fair at 400 s",
		run:     runFIFOvsFair},
	{Name: "fair-delay/zipf", Fast: true, Source: "Fair Scheduler paper, section 5.3, Fig. 8-9", DefaultSeeds: 20,
		Summary: "30 Zipf-sized jobs on 10 nodes: slowdowns and batch response time of FIFO, fair, fair+CCS, fair+preemption",
		run:     runZipf},
	{Name: "fair-delay/bm", Source: "Fair Scheduler paper, section 6.1, Table 2, Fig. 10-11", DefaultSeeds: 3,
		Summary: "the 50-job BM benchmark on 100 nodes: response-time gain over FIFO and node locality per size bin",
		run:     runBM},
	{Name: "fair-delay/small-jobs", Source: "Fair Scheduler paper, section 6.2.1, Table 3, Fig. 12", DefaultSeeds: 3,
		Summary: "3-, 10- and 100-map scan jobs on 4 racks: locality and throughput with and without delay scheduling",
		run:     runSmallJobs(false)},
	{Name: "fair-delay/sticky-slots", Fast: true, Source: "Fair Scheduler paper, section 6.2.2, Fig. 13-14", DefaultSeeds: 3,
		Summary: "5 to 50 concurrent scans of one data set under fair sharing: locality and throughput with and without delay scheduling",
		run:     runStickySlots(false)},
	{Name: "fair-delay/io-rate-biasing", Fast: true, Source: "Fair Scheduler paper, section 6.2.4, Fig. 15", DefaultSeeds: 10,
		Summary: "a 2 GB hot file read by 10 compute and 10 scan workers: jobs done in 10 minutes without delay, with delay, with IO-rate biasing",
		run:     runIORateBiasing(false)},
	{Name: "fair-delay/small-jobs-hdd", Source: "Fair Scheduler paper, section 6.2.1, Table 3, Fig. 12, on the hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "small-jobs beside itself on hard disks (one 138 MB/s drive a node, 4 s start-up, spills, merges, backups): locality, throughput gain, map time by locality",
		run:     runSmallJobs(true)},
	{Name: "fair-delay/sticky-slots-hdd", Source: "Fair Scheduler paper, section 6.2.2, Fig. 13-14, on the hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "sticky-slots beside itself on hard disks: locality, throughput gain of delay, map time node-local and remote",
		run:     runStickySlots(true)},
	{Name: "fair-delay/io-rate-biasing-hdd", Source: "Fair Scheduler paper, section 6.2.4, Fig. 15, on the hadoop1-hdd cost profile", DefaultSeeds: 10,
		Summary: "io-rate-biasing beside itself on hard disks (speculation off): jobs done in 10 min per class, map time node-local and remote",
		run:     runIORateBiasing(true)},
	{Name: "fair-delay/map", Source: "beyond the paper: small-jobs (section 6.2.1) on a grid, hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "FIFO + delay over FIFO on small-jobs' batches by maps per job (3-100) x task start-up (0-4 s), the hdd profile's other costs on",
		run:     mapOf(fdMap)},
}

// All lists the registered experiments in order.
func All() []Experiment { return slices.Clone(registry) }

// Names lists the registered experiments' names.
func Names() []string {
	n := make([]string, len(registry))
	for i, e := range registry {
		n[i] = e.Name
	}
	return n
}

// Lookup finds an experiment by its full name, or by its short name when
// that is unambiguous ("zipf" for "fair-delay/zipf"). An unknown name is an
// error that lists the known ones.
func Lookup(name string) (Experiment, error) {
	var short []Experiment
	for _, e := range registry {
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
	return Experiment{}, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Select resolves names to experiments: a full or short name, or a paper
// prefix ("fair-delay") for all of that paper's experiments.
func Select(names []string) ([]Experiment, error) {
	var out []Experiment
	for _, n := range names {
		var group []Experiment
		for _, e := range registry {
			if strings.HasPrefix(e.Name, strings.TrimSuffix(n, "/")+"/") {
				group = append(group, e)
			}
		}
		if len(group) > 0 {
			out = append(out, group...)
			continue
		}
		e, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
