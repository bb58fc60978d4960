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
	"slices"

	"github.com/mrsched/mrsched/experiment/harness"
)

// Options control one experiment run (harness.Options).
type Options = harness.Options

// Result is a finished experiment's table and CSV (harness.Result).
type Result = harness.Result

// Experiment is a registered experiment (harness.Experiment).
type Experiment = harness.Experiment

// registry lists every experiment, paper by paper.
var registry = harness.Registry(slices.Concat(fairDelayExperiments, swExperiments, nasExperiments, tdExperiments))

// fairDelayExperiments are the Fair Scheduler paper's (E3).
var fairDelayExperiments = []Experiment{
	{Name: "fair-delay/fifo-vs-fair", Fast: true, Source: "Fair Scheduler paper, section 5.3, Fig. 7", DefaultSeeds: 1,
		Summary: "two jobs of 100 s maps + 100 s CPU-bound reduces: FIFO finishes the batch at 300 s, fair at 400 s",
		Measure: runFIFOvsFair},
	{Name: "fair-delay/zipf", Fast: true, Source: "Fair Scheduler paper, section 5.3, Fig. 8-9", DefaultSeeds: 20,
		Summary: "30 Zipf-sized jobs on 10 nodes: slowdowns and batch response time of FIFO, fair, fair+CCS, fair+preemption",
		Measure: runZipf},
	{Name: "fair-delay/bm", Source: "Fair Scheduler paper, section 6.1, Table 2, Fig. 10-11", DefaultSeeds: 3,
		Summary: "the 50-job BM benchmark on 100 nodes: response-time gain over FIFO and node locality per size bin",
		Measure: runBM},
	{Name: "fair-delay/small-jobs", Source: "Fair Scheduler paper, section 6.2.1, Table 3, Fig. 12", DefaultSeeds: 3,
		Summary: "3-, 10- and 100-map scan jobs on 4 racks: locality and throughput with and without delay scheduling",
		Measure: runSmallJobs(false),
		Plot:    smallJobsFigure},
	{Name: "fair-delay/sticky-slots", Fast: true, Source: "Fair Scheduler paper, section 6.2.2, Fig. 13-14", DefaultSeeds: 3,
		Summary: "5 to 50 concurrent scans of one data set under fair sharing: locality and throughput with and without delay scheduling",
		Measure: runStickySlots(false)},
	{Name: "fair-delay/io-rate-biasing", Fast: true, Source: "Fair Scheduler paper, section 6.2.4, Fig. 15", DefaultSeeds: 10,
		Summary: "a 2 GB hot file read by 10 compute and 10 scan workers: jobs done in 10 minutes without delay, with delay, with IO-rate biasing",
		Measure: runIORateBiasing(false)},
	{Name: "fair-delay/small-jobs-hdd", Source: "Fair Scheduler paper, section 6.2.1, Table 3, Fig. 12, on the hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "small-jobs beside itself on hard disks (one 138 MB/s drive a node, 4 s start-up, spills, merges, backups): locality, throughput gain, map time by locality",
		Measure: runSmallJobs(true)},
	{Name: "fair-delay/sticky-slots-hdd", Source: "Fair Scheduler paper, section 6.2.2, Fig. 13-14, on the hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "sticky-slots beside itself on hard disks: locality, throughput gain of delay, map time node-local and remote",
		Measure: runStickySlots(true)},
	{Name: "fair-delay/io-rate-biasing-hdd", Source: "Fair Scheduler paper, section 6.2.4, Fig. 15, on the hadoop1-hdd cost profile", DefaultSeeds: 10,
		Summary: "io-rate-biasing beside itself on hard disks (speculation off): jobs done in 10 min per class, map time node-local and remote",
		Measure: runIORateBiasing(true)},
	{Name: "fair-delay/map", Source: "beyond the paper: small-jobs (section 6.2.1) on a grid, hadoop1-hdd cost profile", DefaultSeeds: 3,
		Summary: "FIFO + delay over FIFO on small-jobs' batches by maps per job (3-100) x task start-up (0-4 s), the hdd profile's other costs on",
		Measure: harness.MapOf(fdMap),
		Plot:    fdMapFigure()},
}

// All lists the registered experiments in order.
func All() []Experiment { return registry.All() }

// Names lists the registered experiments' names.
func Names() []string { return registry.Names() }

// Lookup finds an experiment by its full name, or by its short name when
// that is unambiguous ("zipf" for "fair-delay/zipf"). An unknown name is an
// error that lists the known ones.
func Lookup(name string) (Experiment, error) { return registry.Lookup(name) }

// Select resolves names to experiments: a full or short name, or a paper
// prefix ("fair-delay") for all of that paper's experiments.
func Select(names []string) ([]Experiment, error) { return registry.Select(names) }

// WithFigures lists the experiments that have a figure, in registry order.
func WithFigures() []string { return registry.WithFigures() }
