package experiment

// NAS's evaluation (Lin et al., "NAS: A Network-Aware Scheduler for
// MapReduce", papers/nas-network-aware-scheduler.txt, section IV): the
// FB-2010 trace on 600 nodes under Fair, Delay, SW-delay and NAS with its
// ablations (Fig. 3 and 5(a)), and the paper's 40-node real cluster (Fig. 4
// and 5(b)). The set-ups, the trace windows and every difference from the
// paper are written down in README-nas.md.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

var nasExperiments = []Experiment{
	// E2 as the paper ran it: the whole FB-2010 day.
	{Name: "nas/main", QuantumS: nasDayQuantumS, Source: "NAS paper, section IV-B, Fig. 3(a)-(g)", DefaultSeeds: 3,
		Summary: "the whole FB-2010 day (24,442 jobs) on 600 nodes, 200 users, quantized network (1 s): throughput, job time, cross-rack traffic, map progress at first reduce, nodes over TrafficThreshold, congestion, for Fair, Delay, SW-delay and NAS's variants; about a CPU-minute a run",
		Measure: func(o Options) (*Result, error) { return runNASMain(o, nasDay) }},
	{Name: "nas/classes", QuantumS: nasDayQuantumS, Source: "NAS paper, section IV-B, Fig. 5(a)", DefaultSeeds: 3,
		Summary: "nas/main's runs by shuffle class (light, medium, heavy): throughput and job time over Fair",
		Measure: func(o Options) (*Result, error) { return runNASClasses(o, nasDay) }},
	{Name: "nas/users", QuantumS: nasDayQuantumS, Source: "NAS paper, section IV-B, Fig. 3(h)", DefaultSeeds: 3,
		Summary: "NAS with 25, 50, 100, 200, 400 users over Fair with 200 users, on the whole FB-2010 day",
		Measure: func(o Options) (*Result, error) { return runNASUsers(o, nasDay) }},
	{Name: "nas/diagnose", QuantumS: nasDayQuantumS, Source: "NAS paper, sections III-C (Algorithm 2), III-E and IV-B (diagnostic)", DefaultSeeds: 3,
		Summary: "why NAS is slower than Delay on the day: Delay, MTS and NAS with the paper's skip counts and with Delay's 15 s as a wait; job time by class, map locality, reducer-seconds waiting for maps",
		Measure: func(o Options) (*Result, error) { return runNASDiagnose(o, nasDay) }},
	{Name: "nas/cluster40", Source: "NAS paper, section IV-A (real cluster), Fig. 4 and 5(b)", DefaultSeeds: 3,
		Summary: "200 FB-2010 jobs, exponential arrivals (mean 14 s), on 8 racks of 5 nodes with 16 containers; NAS waits 5 s instead of skip counts",
		Measure: func(o Options) (*Result, error) { return runNASMain(o, nasCluster40) },
		Plot:    nasCluster40Figure},
	{Name: "nas/cluster40-classes", Source: "NAS paper, section IV-B, Fig. 5(b)", DefaultSeeds: 3,
		Summary: "nas/cluster40's runs by shuffle class: throughput and job time over Fair",
		Measure: func(o Options) (*Result, error) { return runNASClasses(o, nasCluster40) }},
	// The trace's first 30 minutes on the exact network: a group of its
	// own, for quick looks and for checking the day's quantized runs
	// against exact ones (README-nas.md, Windows).
	{Name: "nas-window/main", Source: "NAS paper, section IV-B, Fig. 3(a)-(g) (the trace's first 30 min)", DefaultSeeds: 2,
		Summary: "nas/main on the first " + strconv.FormatFloat(nasSlice.EndS/60, 'f', -1, 64) + " min of FB-2010 (437 jobs), exact network",
		Measure: func(o Options) (*Result, error) { return runNASMain(o, nasSlice) }},
	{Name: "nas-window/classes", Source: "NAS paper, section IV-B, Fig. 5(a) (the trace's first 30 min)", DefaultSeeds: 2,
		Summary: "nas/classes on nas-window/main's runs",
		Measure: func(o Options) (*Result, error) { return runNASClasses(o, nasSlice) }},
	{Name: "nas-window/users", Source: "NAS paper, section IV-B, Fig. 3(h) (the trace's first 30 min)", DefaultSeeds: 2,
		Summary: "nas/users on nas-window/main's trace window",
		Measure: func(o Options) (*Result, error) { return runNASUsers(o, nasSlice) }},
	// The paper's own regime, the day unscaled, and where NAS wins
	// (nas_regime.go; README-nas.md, The paper's regime).
	{Name: "nas/regime", QuantumS: nasDayQuantumS, Source: "NAS paper, sections III-C and IV-A (the simulation unscaled; the real cluster's 5 s wait)", DefaultSeeds: nasRegimeSeeds,
		Summary: "the FB-2010 day with its bytes as traced (about 5x nas/main's load per node) on 600 nodes, 200 users: Fair, Delay, SW-delay, MTS, NAS w/o CR-RTS and NAS at the paper's parameters, then Delay, SW-delay, MTS and NAS all waiting 5 s; the paper's and steady-state throughput, job time by class, NAS over each; 4 to 6 CPU-minutes a run, 2.3 to 3.5 GB each: use -keep",
		Measure: func(o Options) (*Result, error) { return runNASRegime(o, nasRegimeDay, nasRegimeScale) }},
	{Name: "nas/map", QuantumS: nasDayQuantumS, Source: "beyond the paper: section IV-A's NAS and Delay on a grid of regimes", DefaultSeeds: 2,
		Summary: "NAS over Delay on offered load (FB-2010 bytes x 0.2, 0.5, 1) x users (25, 200), jobs of the trace's first 2 hours, with the paper's operating point marked; a heat figure",
		Measure: func(o Options) (*Result, error) { return harness.RunMap(o, nasMap) },
		Plot:    nasMapFigure},
}

// ---------------------------------------------------------------------
// Set-ups

// nasSetup is a cluster and a workload the schedulers run on.
type nasSetup struct {
	// Name keys the run cache.
	Name string
	// MainName, ClassesName and UsersName are the experiments that show
	// the set-up's runs, for table titles.
	MainName, ClassesName, UsersName string
	// Describe says what the set-up is, for table titles.
	Describe string
	Cluster  cluster.Config
	// Users is the default number of users (200, section IV-A).
	Users int
	// EndS is the FB-2010 window's end (jobs submitted in [0, EndS)); 0 is
	// the whole day. Scale is SWIM's byte scale (0: target over source
	// nodes, the project's rule). Trace set-ups only.
	EndS, Scale float64
	// WaitS, when > 0, replaces NAS's skip counts by a wait (the real
	// cluster's 5 s).
	WaitS float64
	// NetworkQuantumS, when > 0, runs the quantized network
	// (docs/performance.md): the day exactly takes 3 to 10 CPU-minutes a
	// policy, about 6 times the quantized network's.
	NetworkQuantumS float64
	// Paper holds the paper's numbers for this set-up.
	Paper nasPaper
	// Draw, when > 0, is the real cluster's workload: that many of the
	// day's jobs, drawn (nasCluster40Jobs); otherwise the trace's window
	// (nasTraceJobs).
	Draw int
}

// jobs is the set-up's workload for users and seed.
func (s nasSetup) jobs(users int, seed uint64) ([]workload.Job, error) {
	if s.Draw > 0 {
		return nasCluster40Jobs(s, users, seed)
	}
	return nasTraceJobs(s, users, seed)
}

// nasPaper is what the paper reports for a set-up, normalised to Fair as
// its figures are. Ratios are derived from the text's "NAS vs X" gains:
// with NAS/Fair = a and NAS/X = b, X/Fair = a/b. Empty: not reported.
type nasPaper struct {
	Throughput, JobTime map[string]string
	Congestion          map[string]string
	// Gains are the text's NAS-vs-X sentences, by X.
	ThroughputGain, JobTimeCut map[string]string
}

// nasCluster600 is section IV-A's simulated cluster: 600 nodes in 30 racks
// of 20, 6 containers a node, 128 MB blocks, replication 3, 250 Mbps a node
// within the rack and 1 Gbps a rack across racks (50 Mbps a node, 5:1).
// Nodes get 8 cores and 16 GB so that the six 1-core, 1-GB containers are
// the only limit (examples/fb2010-nas600.yaml).
func nasCluster600() cluster.Config {
	return cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6, CPUCores: 8, MemoryGB: 16,
		NICMbps: 250, RackUplinkMbps: 1000, BlockMB: 128, Replication: 3}
}

// nasCluster40Config is the real cluster (section IV-A): 40 nodes in 8
// racks of 5 on 1 Gbps Ethernet, 1 Gbps between racks (5:1), 16
// containers a node, replication 3, and, "other settings ... the same as
// the simulation", 128 MB blocks. Nodes get 16 cores and 32 GB so that the
// containers are the only limit.
func nasCluster40Config() cluster.Config {
	return cluster.Config{Racks: 8, NodesPerRack: 5, Containers: 16, CPUCores: 16, MemoryGB: 32,
		NICMbps: 1000, RackUplinkMbps: 1000, BlockMB: 128, Replication: 3}
}

const (
	nasFB2010Source = 3000 // FB-2010 was traced on 3,000 nodes (SWIM)
	nasUsers        = 200  // section IV-A
	// nasCluster40Jobs and nasCluster40MeanGapS are the real cluster's
	// workload: 200 jobs, exponential inter-arrivals of mean 14 s.
	nasCluster40N        = 200
	nasCluster40MeanGapS = 14.0
	// nasWaitS is the real cluster's wait replacing D^m and D^r.
	nasWaitS = 5.0
	// nasDayQuantumS is the network quantum of the runs of the whole day,
	// whose exact runs take about 8 CPU-minutes each: 1 s moves the NAS,
	// SW-delay and TD effects on the day's first 2 hours by less than
	// their standard error over 8 seeds, where 2 s moved SW-delay's by
	// more than two (docs/performance.md).
	nasDayQuantumS = 1.0
)

var (
	// nasSlice is the short FB-2010 window: the trace's first 30 minutes
	// (437 jobs), on which one run of a policy takes a minute or two with
	// the exact network solver (README-nas.md, Runtime). Every table says
	// which window its numbers come from.
	nasSlice = nasSetup{Name: "fb2010-30min", MainName: "nas-window/main", ClassesName: "nas-window/classes", UsersName: "nas-window/users",
		Describe: "FB-2010 jobs submitted in [0, 30 min) on 600 nodes",
		Cluster:  nasCluster600(), Users: nasUsers, EndS: 1800, Paper: nasPaperSim}
	// nasDay is the whole day, as the paper ran it.
	nasDay = nasSetup{Name: "fb2010-day", MainName: "nas/main", ClassesName: "nas/classes", UsersName: "nas/users",
		Describe: "the whole FB-2010 day (24,442 jobs) on 600 nodes, network quantum 1 s",
		Cluster:  nasCluster600(), Users: nasUsers, NetworkQuantumS: nasDayQuantumS, Paper: nasPaperSim}
	// nasCluster40 is the real cluster's set-up.
	nasCluster40 = nasSetup{Name: "cluster40", MainName: "nas/cluster40", ClassesName: "nas/cluster40-classes",
		Describe: "200 FB-2010 jobs, exponential arrivals (mean 14 s), 8 racks of 5 nodes, 16 containers, NAS waits 5 s",
		Cluster:  nasCluster40Config(), Users: nasUsers, WaitS: nasWaitS, Paper: nasPaperReal, Draw: nasCluster40N}
)

// The paper's simulation results (section IV-B): NAS over Fair, Delay,
// SW-delay: throughput +56.9%, +45.8%, +34.8%; job time -44.3%, -33.9%,
// -25.4%; congestion occurrences NAS 3198, w/o TT 3901, w/o both 4197.
var nasPaperSim = nasPaper{
	Throughput:     map[string]string{"Fair": "1.00", "Delay": harness.Num(1.569/1.458, 2), "SW-delay": harness.Num(1.569/1.348, 2), "NAS": "1.57"},
	JobTime:        map[string]string{"Fair": "1.00", "Delay": harness.Num(0.557/0.661, 2), "SW-delay": harness.Num(0.557/0.746, 2), "NAS": "0.56"},
	Congestion:     map[string]string{"NAS": "3198", "w/o TT": "3901", "w/o both": "4197"},
	ThroughputGain: map[string]string{"Fair": "+56.9%", "Delay": "+45.8%", "SW-delay": "+34.8%"},
	JobTimeCut:     map[string]string{"Fair": "-44.3%", "Delay": "-33.9%", "SW-delay": "-25.4%"},
}

// The real cluster's (section IV-B): NAS over Fair and Delay, throughput
// +62.5%, +52.1%; job time -44.6%, -32.1%.
var nasPaperReal = nasPaper{
	Throughput:     map[string]string{"Fair": "1.00", "Delay": harness.Num(1.625/1.521, 2), "NAS": "1.63"},
	JobTime:        map[string]string{"Fair": "1.00", "Delay": harness.Num(0.554/0.679, 2), "NAS": "0.55"},
	ThroughputGain: map[string]string{"Fair": "+62.5%", "Delay": "+52.1%"},
	JobTimeCut:     map[string]string{"Fair": "-44.6%", "Delay": "-32.1%"},
}

// nasTraceJobs is FB-2010 as the project replays it (scenario workload
// `trace: FB-2010`): bytes scaled by 600/3000 (or Scale), jobs to users
// uniformly at random from the seed, the default CPU profile, submit
// times as traced; the window [0, EndS) when EndS > 0.
func nasTraceJobs(s nasSetup, users int, seed uint64) ([]workload.Job, error) {
	cl := s.Cluster.WithDefaults()
	return workload.ParseSWIM(strings.NewReader(string(traces.FB2010())), traces.FB2010Name, workload.SWIMOptions{
		SourceNodes: nasFB2010Source, TargetNodes: cl.Racks * cl.NodesPerRack, Scale: s.Scale, BlockBytes: cl.BlockBytes(),
		Users: users, Seed: seed, EndS: s.EndS})
}

// nasCluster40Jobs draws the real cluster's 200 jobs: "generated using
// the Facebook workload synthesized execution framework [SWIM]" with "the
// distribution of job types ... the same as shown in Figure 2", which is
// the FB-2010 trace's own (68.7% shuffle-light below 1 MB, 18.8% heavy
// above 100 MB): the class bounds are absolute, so the jobs keep the
// trace's bytes unscaled (any scaling would move jobs into lighter
// classes). We draw 200 jobs of the day uniformly without replacement,
// keep their trace order, and give them exponential gaps of mean 14 s,
// the first at time 0. Users: 200, uniformly at random, as in the
// simulation ("other settings are the same").
func nasCluster40Jobs(s nasSetup, users int, seed uint64) ([]workload.Job, error) {
	cl := s.Cluster.WithDefaults()
	day, err := workload.ParseSWIM(strings.NewReader(string(traces.FB2010())), traces.FB2010Name, workload.SWIMOptions{
		SourceNodes: nasFB2010Source, TargetNodes: cl.Racks * cl.NodesPerRack, Scale: 1,
		BlockBytes: cl.BlockBytes(), Users: users, Seed: seed})
	if err != nil {
		return nil, err
	}
	r := harness.RNG(seed, 0x4e4153) // "NAS"
	pick := r.Perm(len(day))[:s.Draw]
	slices.Sort(pick)
	jobs := make([]workload.Job, len(pick))
	t := 0.0
	for i, k := range pick {
		j := day[k]
		j.ID, j.Submit = i, t
		jobs[i] = j
		t += r.ExpFloat64() * nasCluster40MeanGapS
	}
	return jobs, nil
}

// The schedulers (section IV-A): Fair, Delay, ShuffleWatcher on Delay, and
// NAS with its additive ablations and the TrafficThreshold ablations of
// Fig. 3(g). Every parameter is the paper's default (congestion threshold
// 0.8, D^m = D^r = 135); on the real cluster NAS's variants wait 5 s.
var nasPolicies = []harness.PolicySpec{
	{Label: "Fair", Name: "fair"},
	{Label: "Delay", Name: "delay"},
	{Label: "SW-delay", Name: "sw-delay"},
	{Label: "MTS", Name: "nas-mts"},
	{Label: "MTS+CA-RTS", Name: "nas-mts-carts"},
	{Label: "NAS", Name: "nas"},
	{Label: "w/o TT", Name: "nas-no-tt"},
	{Label: "w/o both", Name: "nas-no-tt-crrts"},
}

// nasPolicy is the scheduler labelled label in nasPolicies.
func nasPolicy(label string) harness.PolicySpec {
	i := slices.IndexFunc(nasPolicies, func(p harness.PolicySpec) bool { return p.Label == label })
	return nasPolicies[i]
}

// policy is spec adapted to the set-up (the wait replacing skip counts).
func (s nasSetup) policy(p harness.PolicySpec) harness.PolicySpec {
	if s.WaitS > 0 && strings.HasPrefix(p.Name, "nas") {
		p.Params = map[string]any{"wait_s": s.WaitS}
	}
	return p
}

// ---------------------------------------------------------------------
// Runs

// nasOutcome is what the experiments keep of a run (exported, so that a
// keep directory holds it whole).
type nasOutcome struct {
	Jobs    []metrics.JobRecord
	Summary metrics.Summary
	Load    sched.NASLoadStats
	WallS   float64
}

// nasRun is one simulation of the NAS experiments, named in nasCache by
// its values: a policy on a set-up with users users and a seed.
type nasRun struct {
	Setup  nasSetup
	Policy harness.PolicySpec
	Users  int
	Seed   uint64
}

// nasCache holds the NAS experiments' runs (see harness.Cache), and keeps
// them in Options.KeepDir: a run of the unscaled day takes tens of minutes.
var nasCache = harness.Cache[nasRun, *nasOutcome]{Keep: "nas", Exec: nasRun.exec}

// exec runs r with NAS's load meter around its policy.
func (r nasRun) exec() (*nasOutcome, error) {
	start := time.Now()
	jobs, err := r.Setup.jobs(r.Users, r.Seed)
	if err != nil {
		return nil, err
	}
	var metered sched.Policy
	res, err := harness.Run{Setup: harness.Setup{Cluster: r.Setup.Cluster, Engine: sim.Params{NetworkQuantumS: r.Setup.NetworkQuantumS}, Seed: r.Seed},
		Jobs: jobs, Policy: r.Setup.policy(r.Policy),
		Probe: func(p sched.Policy, _ *cluster.Topology) sched.Policy {
			metered = sched.WithNASMeter(p, 0)
			return metered
		}}.Simulate()
	if err != nil {
		return nil, fmt.Errorf("%d users: %w", r.Users, err)
	}
	// The summary's free-form parts (the effective configuration, extras)
	// are read by no NAS experiment and hold values a kept run could not
	// carry: they are dropped here, so a kept run and a fresh one agree.
	res.Summary.Config, res.Summary.Extra = nil, nil
	return &nasOutcome{Jobs: res.Collector.Jobs(), Summary: res.Summary,
		Load: metered.(sched.NASLoadReporter).NASLoad(), WallS: time.Since(start).Seconds()}, nil
}

// nasGrid runs every policy on every seed of o with users users; res[p][s].
func nasGrid(o Options, s nasSetup, users int, pols []harness.PolicySpec) ([][]*nasOutcome, error) {
	return nasCache.Grid(o, pols, func(p harness.PolicySpec, seed uint64) nasRun { return nasRun{s, p, users, seed} })
}

// ---------------------------------------------------------------------
// Measures of one run

// nasClassOf is a job's shuffle class by the predictor's thresholds
// (section III-A: light < 1 MB, heavy > 100 MB, in MB of 2^20 bytes as
// sched.NAS counts them) applied to its true shuffle: the class NAS's
// predictor converges to once the job's maps have run.
func nasClassOf(j *metrics.JobRecord) sched.NASClass {
	const mb = 1 << 20
	switch s := float64(j.ShuffleBytes); {
	case s < sched.DefaultNASLightMB*mb:
		return sched.NASLight
	case s > sched.DefaultNASHeavyMB*mb:
		return sched.NASHeavy
	}
	return sched.NASMedium
}

var nasClasses = []sched.NASClass{sched.NASLight, sched.NASMedium, sched.NASHeavy}

// nasTput and nasJobTime are the paper's throughput and mean job time of
// a run (harness.Throughput, harness.JobTime).
func nasTput(r *nasOutcome) float64    { return harness.Throughput(r.Jobs, nil) }
func nasJobTime(r *nasOutcome) float64 { return harness.JobTime(r.Jobs, nil) }

// nasClassJT is the mean job time of a run's jobs of class cl.
func nasClassJT(cl sched.NASClass) func(*nasOutcome) float64 {
	return func(r *nasOutcome) float64 {
		return harness.JobTime(r.Jobs, func(j *metrics.JobRecord) bool { return nasClassOf(j) == cl })
	}
}

// nasSteady, nasCongestion and nasCompleted read a run's summary: its
// steady-state jobs an hour, congestion occurrences, jobs completed.
func nasSteady(r *nasOutcome) float64     { return r.Summary.SteadyState.JobsPerHour }
func nasCongestion(r *nasOutcome) float64 { return float64(r.Summary.CongestionOccurrences) }
func nasCompleted(r *nasOutcome) float64  { return float64(r.Summary.JobsCompleted) }

func (s nasSetup) describe(o Options, users int) string {
	return fmt.Sprintf("%s, %d users; %d seed(s) from %d", s.Describe, users, o.Seeds, o.Seed)
}

func nasWallNote(rs ...[][]*nasOutcome) string {
	return harness.WallNote(func(r *nasOutcome) float64 { return r.WallS }, rs...)
}

// ---------------------------------------------------------------------
// nas/main, nas/cluster40

// runNASMain is Fig. 3(a)-(g) (and, on the real cluster's set-up, Fig.
// 4(a)-(d)): every scheduler normalised to Fair on the same seed.
func runNASMain(o Options, s nasSetup) (*Result, error) {
	pols := nasPolicies
	res, err := nasGrid(o, s, s.Users, pols)
	if err != nil {
		return nil, err
	}
	by := harness.ByLabel(pols, res)
	type R = harness.RunsRow[*nasOutcome]
	notes := []string{
		"mean (min-max over seeds); x Fair = ratio to Fair on the same seed. jobs/h: jobs / (last finish - first submit), the paper's",
		"throughput; job time: finish - submit; cross-rack: all bytes that crossed a rack uplink (shuffle, remote map input, output",
		"replicas). Map progress: share of a job's maps finished when its first reduce launched (Fig. 3d; paper: SW-delay > NAS >",
		"Delay ~ Fair). Nodes over TT: mean share of nodes whose running maps' output exceeds TrafficThreshold, sampled every 3 s",
		"with true outputs, and as NAS's predictor sees them (Fig. 3e; paper: NAS very small, SW-delay > Fair, Delay). Congestion:",
		"(3 s monitor sample, uplink direction) pairs at or above 80%; the paper's counts are for the whole day, period unstated.",
		"Steady jobs/h: jobs finished between the first and the last submission per hour of that span (summary.json steady_state),",
		"which the last job to finish does not set: equal figures mean every scheduler keeps up with the arrivals.",
	}
	for _, base := range []string{"Fair", "Delay", "SW-delay"} {
		notes = append(notes, fmt.Sprintf("NAS vs %s: throughput %s (paper %s), mean job time %s (paper %s)", base,
			harness.RatioSeeds(by["NAS"], by[base], nasTput).Gain(), harness.PaperIn(s.Paper.ThroughputGain, base),
			harness.RatioSeeds(by["NAS"], by[base], nasJobTime).Gain(), harness.PaperIn(s.Paper.JobTimeCut, base)))
	}
	cross := func(r *nasOutcome) float64 { return r.Summary.Bytes.CrossRackTotal / 1e9 }
	return harness.Table[R]{
		Title: s.MainName + ": " + s.describe(o, s.Users) + " (paper Fig. 3(a)-(g) / Fig. 4)",
		Cols: []harness.Column[R]{
			harness.Key("scheduler", "scheduler", func(r R) string { return r.Label }),
			harness.Written(func(R) []string { return []string{s.Name, strconv.Itoa(s.Users)} }, "window", "users"),
			harness.Spread("jobs/h", "throughput_jph", 1, 3, harness.OverOf(nasTput)),
			harness.X("x Fair", "throughput_x", nasTput),
			harness.Paper("paper", "paper_throughput_x", func(r R) string { return harness.PaperIn(s.Paper.Throughput, r.Label) }),
			harness.Shown("steady jobs/h", func(r R) string { return harness.OverOf(nasSteady)(r).Text(1) }),
			harness.Spread("mean job time (s)", "job_time_s", 0, 1, harness.OverOf(nasJobTime)),
			harness.X("x Fair", "job_time_x", nasJobTime),
			harness.Paper("paper", "paper_job_time_x", func(r R) string { return harness.PaperIn(s.Paper.JobTime, r.Label) }),
			harness.Spread("cross-rack GB", "cross_rack_gb", 0, 2, harness.OverOf(cross)),
			harness.X("x Fair", "cross_rack_x", cross),
			harness.Spread("map progress at 1st reduce", "map_progress", 2, 4, harness.OverOf(func(r *nasOutcome) float64 { return harness.MapProgress(r.Jobs) })),
			harness.Spread("nodes over TT %", "nodes_over_tt", 1, 2, harness.OverOf(func(r *nasOutcome) float64 { return 100 * r.Load.MeanShareTrue })),
			harness.Spread("(as predicted)", "nodes_over_tt_predicted", 1, 2, harness.OverOf(func(r *nasOutcome) float64 { return 100 * r.Load.MeanShare })),
			harness.Spread("congestion occurrences", "congestion", 0, 0, harness.OverOf(nasCongestion)),
			harness.Paper("paper", "paper_congestion", func(r R) string { return harness.PaperIn(s.Paper.Congestion, r.Label) }),
			harness.Written(func(r R) []string {
				return append([]string{strconv.Itoa(len(r.Rs[0].Jobs)), harness.Num(harness.OverOf(nasCompleted)(r).Mean(), 0)}, harness.OverOf(nasSteady)(r).CSV(3)...)
			},
				"jobs", "jobs_completed", "steady_jph", "steady_jph_min", "steady_jph_max"),
		},
		Notes: notes,
		Wall:  nasWallNote(res),
	}.Result(harness.Labelled(pols, res, res[0])), nil
}

// ---------------------------------------------------------------------
// nas/classes

// runNASClasses is Fig. 5: each scheduler's throughput (and job time) per
// shuffle class over Fair's for the same class and seed.
func runNASClasses(o Options, s nasSetup) (*Result, error) {
	pols := nasPolicies
	res, err := nasGrid(o, s, s.Users, pols)
	if err != nil {
		return nil, err
	}
	fair := res[0]
	var count [3]int
	for i := range fair[0].Jobs {
		count[nasClassOf(&fair[0].Jobs[i])]++
	}
	t := &report.Table{
		Title:   s.ClassesName + ": throughput and mean job time per shuffle class over Fair (paper Fig. 5); " + s.describe(o, s.Users),
		Headers: []string{"scheduler", "light tput x", "medium tput x", "heavy tput x", "light job time x", "medium job time x", "heavy job time x"},
		Notes: []string{
			fmt.Sprintf("classes by true shuffle, the predictor's bounds (light < 1 MB, heavy > 100 MB): %d light, %d medium, %d heavy jobs (seed %d).",
				count[sched.NASLight], count[sched.NASMedium], count[sched.NASHeavy], o.Seed),
			"class throughput: the class's jobs / (their last finish - their first submit); x = ratio to Fair for the same class and seed,",
			"mean (min-max over seeds). Paper (Fig. 5, no numbers in the text): every class gains under NAS, light most, then medium, then heavy.",
		},
	}
	c := &report.Table{Headers: harness.Row("scheduler", "window", "class", "jobs",
		[]string{"throughput_x", "throughput_x_min", "throughput_x_max"}, []string{"job_time_x", "job_time_x_min", "job_time_x_max"})}
	for i, p := range pols {
		cells := []string{p.Label}
		var jts []string
		for _, cl := range nasClasses {
			keep := func(j *metrics.JobRecord) bool { return nasClassOf(j) == cl }
			tx := harness.RatioSeeds(res[i], fair, func(r *nasOutcome) float64 { return harness.Throughput(r.Jobs, keep) })
			jx := harness.RatioSeeds(res[i], fair, func(r *nasOutcome) float64 { return harness.JobTime(r.Jobs, keep) })
			cells = append(cells, tx.Text(2))
			jts = append(jts, jx.Text(2))
			c.AddRow(harness.Row(p.Label, s.Name, cl.String(), strconv.Itoa(count[cl]), tx.CSV(4), jx.CSV(4))...)
		}
		t.AddRow(append(cells, jts...)...)
	}
	return &Result{Table: t, CSV: c, Wall: nasWallNote(res)}, nil
}

// ---------------------------------------------------------------------
// nas/diagnose

// nasDiagnoseWaitS is delay scheduling's node-local wait (t1, 15 s), given
// to the NAS variants as wait_s in place of D^m and D^r.
const nasDiagnoseWaitS = 15.0

// nasDiagnosePolicies are nas/main's Delay, MTS and NAS, then MTS and NAS
// with Delay's wait instead of skip counts.
var nasDiagnosePolicies = []harness.PolicySpec{
	nasPolicy("Delay"), nasPolicy("MTS"), nasPolicy("NAS"),
	{Label: "MTS, 15 s wait", Name: "nas-mts", Params: map[string]any{"wait_s": nasDiagnoseWaitS}},
	{Label: "NAS, 15 s wait", Name: "nas", Params: map[string]any{"wait_s": nasDiagnoseWaitS}},
}

// runNASDiagnose separates the two things that make NAS slower than Delay
// on the day (README-nas.md): MTS's locality wait, D^m = 135 skips, which
// on 600 nodes heartbeating every 3 s passes in about a second where Delay
// waits 15 s, and CR-RTS's holds on medium and heavy jobs. Giving MTS and
// NAS Delay's 15 s as a wait removes the first; what remains is the
// second.
func runNASDiagnose(o Options, s nasSetup) (*Result, error) {
	pols := nasDiagnosePolicies
	res, err := nasGrid(o, s, s.Users, pols)
	if err != nil {
		return nil, err
	}
	type R = harness.RunsRow[*nasOutcome]
	part := func(name string) func(*nasOutcome) float64 {
		return func(r *nasOutcome) float64 { return harness.PathPart(&r.Summary, name) }
	}
	return harness.Table[R]{
		Title: "nas/diagnose: Delay, MTS and NAS with skip counts (D^m = D^r = 135) and with Delay's " +
			strconv.FormatFloat(nasDiagnoseWaitS, 'f', -1, 64) + " s as a wait; " + s.describe(o, s.Users),
		Cols: []harness.Column[R]{
			harness.Key("scheduler", "scheduler", func(r R) string { return r.Label }),
			harness.Written(func(R) []string { return []string{s.Name} }, "window"),
			harness.Spread("mean job time (s)", "job_time_s", 1, 2, harness.OverOf(nasJobTime)),
			harness.X("x Delay", "job_time_x_delay", nasJobTime),
			harness.Spread("light (s)", "light_s", 1, 2, harness.OverOf(nasClassJT(sched.NASLight))),
			harness.Spread("medium (s)", "medium_s", 1, 2, harness.OverOf(nasClassJT(sched.NASMedium))),
			harness.Spread("heavy (s)", "heavy_s", 0, 1, harness.OverOf(nasClassJT(sched.NASHeavy))),
			harness.Spread("node-local maps %", "node_local_pct", 1, 2, harness.OverOf(func(r *nasOutcome) float64 { return 100 * r.Summary.Locality.Node })),
			harness.Spread("off-rack maps %", "off_rack_pct", 1, 2, harness.OverOf(func(r *nasOutcome) float64 { return 100 * r.Summary.Locality.Off })),
			harness.Spread("jobs with a non-local map %", "jobs_non_local_pct", 0, 1, harness.OverOf(func(r *nasOutcome) float64 { return 100 * harness.NonLocalJobShare(r.Jobs) })),
			harness.Spread("reducer-s waiting for maps (M)", "reduce_wait_ms", 1, 2, harness.OverOf(func(r *nasOutcome) float64 { return r.Summary.ReduceWaitS / 1e6 })),
			harness.Spread("held (s)", "held_s", 1, 2, harness.OverOf(part("held"))),
			harness.Spread("queued (s)", "queued_s", 1, 2, harness.OverOf(part("queued"))),
			harness.Verbatim("held most by", "held_most_by", func(r R) string {
				return harness.HeldMostBy(r.Rs, func(x *nasOutcome) *metrics.Summary { return &x.Summary })
			}),
		},
		Notes: []string{
			"mean (min-max over seeds); x Delay = ratio to Delay on the same seed. Classes by true shuffle (light < 1 MB, heavy > 100 MB).",
			"Reducer-seconds waiting: time launched reduces spent waiting for their job's maps (summary.json reduce_wait_s).",
			"held, queued: a job's mean seconds on its critical path waiting while a slot it could take sat free (held by the policy) or while none did",
			"(docs/time.md); held most by: over the seeds, the rule under which most held time falls, each job's counted under the rule that held it longest.",
		},
		Wall: nasWallNote(res),
	}.Result(harness.Labelled(pols, res, res[0])), nil
}

// ---------------------------------------------------------------------
// nas/users

// nasUserCounts are Fig. 3(h)'s.
var nasUserCounts = []int{25, 50, 100, 200, 400}

// runNASUsers is Fig. 3(h): NAS's throughput with 25-400 users over Fair's
// with 200 users. Fair runs at every count too, to tell NAS's gain from
// what fewer users do to any scheduler.
func runNASUsers(o Options, s nasSetup) (*Result, error) {
	fair200, err := nasGrid(o, s, nasUsers, []harness.PolicySpec{nasPolicy("Fair")})
	if err != nil {
		return nil, err
	}
	all := [][]*nasOutcome{fair200[0]}
	type R struct {
		users     int
		fair, nas []*nasOutcome
	}
	var rows []R
	for _, u := range nasUserCounts {
		res, err := nasGrid(o, s, u, []harness.PolicySpec{nasPolicy("Fair"), nasPolicy("NAS")})
		if err != nil {
			return nil, err
		}
		all = append(all, res...)
		rows = append(rows, R{u, res[0], res[1]})
	}
	// x is a ratio over seeds of v, of the row's runs that runs picks over
	// those ref picks.
	x := func(head, csv string, runs, ref func(R) []*nasOutcome, v func(*nasOutcome) float64) harness.Column[R] {
		return harness.Spread(head, csv, 2, 4, func(r R) harness.Stat { return harness.RatioSeeds(runs(r), ref(r), v) })
	}
	nas, fair := func(r R) []*nasOutcome { return r.nas }, func(r R) []*nasOutcome { return r.fair }
	base := func(R) []*nasOutcome { return fair200[0] }
	return harness.Table[R]{
		Title: s.UsersName + ": NAS's throughput against the number of users, over Fair with 200 users (paper Fig. 3(h)); " +
			s.describe(o, nasUsers),
		Cols: []harness.Column[R]{
			harness.Key("users", "users", func(r R) string { return strconv.Itoa(r.users) }),
			harness.Written(func(R) []string { return []string{s.Name} }, "window"),
			harness.Spread("NAS jobs/h", "nas_throughput_jph", 1, 3, func(r R) harness.Stat { return harness.OverSeeds(r.nas, nasTput) }),
			x("x Fair(200)", "nas_throughput_x_fair200", nas, base, nasTput),
			x("NAS job time x Fair(200)", "nas_job_time_x_fair200", nas, base, nasJobTime),
			harness.Spread("Fair jobs/h", "fair_throughput_jph", 1, 3, func(r R) harness.Stat { return harness.OverSeeds(r.fair, nasTput) }),
			x("Fair x Fair(200)", "fair_throughput_x_fair200", fair, base, nasTput),
			x("NAS x Fair (same users)", "nas_throughput_x_fair", nas, fair, nasTput),
		},
		Notes: []string{
			"mean (min-max over seeds); every ratio on the same seed. Jobs are assigned to users uniformly at random (the trace has none).",
			"Paper (Fig. 3(h), no numbers in the text): NAS's throughput is higher with fewer users (more jobs per user).",
		},
		Wall: nasWallNote(all),
	}.Result(rows), nil
}
