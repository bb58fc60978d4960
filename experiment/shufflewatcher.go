package experiment

// ShuffleWatcher's evaluation (Ahmad et al., "ShuffleWatcher: Shuffle-aware
// Scheduling in Multi-tenant MapReduce Clusters", USENIX ATC 2014,
// papers/shufflewatcher.txt, sections 4 and 5): the 100-node, 10-rack
// cluster, 30 users, the Table 1 / Table 2 workload at a mean inter-arrival
// of 40 s, under Fair, Delay, DRF and ShuffleWatcher on each. The set-up,
// the calibration of job sizes and every difference from the paper are
// written down in README-shufflewatcher.md.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

var swExperiments = []Experiment{
	{Name: "shufflewatcher/main", Fast: true, Source: "ShuffleWatcher paper, sections 4 and 5.2, Fig. 8 and 11", DefaultSeeds: 3,
		Summary: "Fair, Delay, DRF vs SW-fair, SW-relaxed, SW-DRF on 100 nodes: throughput, turnaround, cross-rack traffic, jobs made slower",
		Measure: func(o Options) (*Result, error) { return runSWMain(o, swDefault) }},
	{Name: "shufflewatcher/traffic", Fast: true, Source: "ShuffleWatcher paper, section 5.1, Table 3", DefaultSeeds: 3,
		Summary: "traffic volume by job class under Fair: shuffle, cross-rack shuffle, cross-rack remote map, total (with and without reduce output)",
		Measure: func(o Options) (*Result, error) { return runSWTraffic(o, swDefault) }},
	{Name: "shufflewatcher/breakdown", Source: "ShuffleWatcher paper, section 5.3, Fig. 12-13", DefaultSeeds: 3,
		Summary: "NASS, +SARP, +SAMP (sw-nass, sw-nass-sarp, sw-fair) over Fair by job class: throughput and cross-rack traffic",
		Measure: func(o Options) (*Result, error) { return runSWBreakdown(o, swDefault) }},
	{Name: "shufflewatcher/mix", Source: "ShuffleWatcher paper, section 5.5, Fig. 14(b)", DefaultSeeds: 3,
		Summary: "SW-fair over Fair for 60% heavy, the default (40/20/40) and 60% light job mixes",
		Measure: func(o Options) (*Result, error) { return runSWMix(o, swDefault) }},
	{Name: "shufflewatcher/timeseries", Source: "ShuffleWatcher paper, Fig. 1 and 10", DefaultSeeds: 1,
		Summary: "cross-rack traffic over time under Fair and SW-fair (CSV: one row a minute); the table summarises its balance",
		Measure: func(o Options) (*Result, error) { return runSWTimeseries(o, swDefault) },
		Plot:    swTimeseriesFigure},
	{Name: "shufflewatcher/concurrency", Fast: true, Source: "ShuffleWatcher paper, section 5.2, Fig. 9", DefaultSeeds: 3,
		Summary: "intra-job concurrency (a job's running maps and reduces over its user's running tasks) by third of the job's life, Fair and SW-fair",
		Measure: func(o Options) (*Result, error) { return runSWConcurrency(o, swDefault) }},
	{Name: "shufflewatcher/users", Source: "ShuffleWatcher paper, section 5.4, Fig. 14(a)", DefaultSeeds: 3,
		Summary: "SW-fair over Fair at 1 (per-job fairness), 9, 12 (default) and 18 jobs per user, same arrivals",
		Measure: func(o Options) (*Result, error) { return runSWUsers(o, swDefault) }},
	{Name: "shufflewatcher/placement", Fast: true, Source: "ShuffleWatcher paper, sections 3.2-3.3 and 4.2 (diagnostic)", DefaultSeeds: 3,
		Summary: "do SAMP's and SARP's preferences take effect: preferred racks, maps and reduces on them, shuffle kept in a rack, NASS's choice",
		Measure: func(o Options) (*Result, error) { return runSWPlacement(o, swDefault) }},
	{Name: "shufflewatcher/main-table3", Fast: true, Source: "ShuffleWatcher paper, sections 5.1-5.2 (job sizes at Table 3's volume)", DefaultSeeds: 3,
		Summary: "shufflewatcher/main with job sizes scaled to Table 3's shuffle volume (1344 GB in 4 h) instead of the uplinks' capacity",
		Measure: func(o Options) (*Result, error) { return runSWMain(o, swTable3) }},
	{Name: "shufflewatcher/main-4h", Source: "ShuffleWatcher paper, sections 4.3 and 5.2 (the paper's 4-hour steady state)", DefaultSeeds: 3,
		Summary: "shufflewatcher/main with the paper's 4 h steady window (6 h of arrivals); about 10 CPU-seconds a seed",
		Measure: func(o Options) (*Result, error) { return runSWMain(o, swPaper4h) }},
	{Name: "shufflewatcher/regime", Source: "ShuffleWatcher paper, sections 4.3 and 5.2, in its regime (README-shufflewatcher.md)", DefaultSeeds: 3,
		Summary: "Fig. 8's pairs at Table 3's bytes under the hadoop1-hdd costs, along a sweep of task cost with section 4.3's operating point, at 30, 10 and 3 users, inputs from outside and written in the cluster",
		Measure: runSWRegime},
	{Name: "shufflewatcher/map", Source: "beyond the ShuffleWatcher paper: where SW-fair gains over Fair", DefaultSeeds: 3,
		Summary: "SW-fair over Fair across task cost (the slots' load) and rack uplink speed (over-subscription), the paper's point marked",
		Measure: runSWMap,
		Plot:    swMapFigure},
}

// ---------------------------------------------------------------------
// Set-up

// swConfig is the arrival schedule and measurement window of a run: jobs
// arrive for RampS + WindowS + RampS; the steady state is the window
// [RampS, RampS + WindowS). Jobs submitted in the window are the measured
// jobs (turnaround, traffic); throughput is jobs finishing in the window per
// hour. The trailing ramp keeps the window's jobs under full load until the
// window ends (the paper "ignore[s] the load ramp-up and ramp-down").
type swConfig struct {
	Name    string
	RampS   float64
	WindowS float64
	// Volume is how Table 2's sizes are scaled (swScaleOf).
	Volume swVolume
}

// swVolume names a calibration of job sizes (README-shufflewatcher.md,
// "Calibration of job sizes").
type swVolume int

const (
	// swVolumeUplinks offers a Delay schedule's cross-rack bytes at the
	// uplinks' capacity (swCalibrationScale): the cluster "utilize[d]
	// maximally for the base case" of section 4.3. The default.
	swVolumeUplinks swVolume = iota
	// swVolumeTable3 offers the shuffle volume Table 3 measured under Fair
	// (swTable3Scale): about a quarter of the default's.
	swVolumeTable3
)

// scale is the factor on Table 2's sizes for this configuration.
func (c swConfig) scale() float64 {
	if c.Volume == swVolumeTable3 {
		return swTable3Scale(workload.DefaultSWMix())
	}
	return swCalibrationScale(swCluster(), workload.DefaultSWMix())
}

var (
	// swDefault is the default: 30 min of ramp-up, a 1-hour steady window,
	// 30 min of ramp-down arrivals (2 h of arrivals, about 180 jobs, 90
	// measured), chosen so that shufflewatcher/main with three seeds runs
	// in about 5 minutes on 2 cores (README-shufflewatcher.md, Runtime).
	swDefault = swConfig{Name: "1h", RampS: 1800, WindowS: 3600, Volume: swVolumeUplinks}
	// swPaper4h is the paper's 4-hour steady state, with 1 h of ramp on
	// each side (6 h of arrivals, about 540 jobs, 360 measured).
	swPaper4h = swConfig{Name: "4h", RampS: 3600, WindowS: 4 * 3600, Volume: swVolumeUplinks}
	// swTable3 is swDefault with job sizes scaled to Table 3's shuffle
	// volume instead of the uplinks' capacity.
	swTable3 = swConfig{Name: "1h-table3", RampS: 1800, WindowS: 3600, Volume: swVolumeTable3}
)

func (c swConfig) arrivalsS() float64 { return 2*c.RampS + c.WindowS }

// inWindow reports whether a submit (or finish) time lies in the steady window.
func (c swConfig) inWindow(t float64) bool { return t >= c.RampS && t < c.RampS+c.WindowS }

// Paper section 4: 30 users, mean inter-arrival 40 s, 64 MB blocks.
const (
	swUsers             = 30
	swMeanInterarrivalS = 40.0
)

// swCluster is the paper's testbed (section 4.1): 100 nodes in 10 racks of
// 10, 4 map + 2 reduce slots a node, 500 Mbps a rack across racks, 250 Mbps
// a node within a rack (5:1), 64 MB blocks, replication 3.
func swCluster() cluster.Config {
	return cluster.Config{Racks: 10, NodesPerRack: 10, MapSlots: 4, ReduceSlots: 2,
		NICMbps: 250, RackUplinkMbps: 500, BlockMB: 64, Replication: 3}
}

// swCalibrationScale is the factor applied to Table 2's input sizes.
//
// Table 2 as printed (mean input about 176 GiB a job, one job every 40 s)
// asks the cluster to move about 56 TB of input in 4 hours and, with the
// mix's shuffle and output, about 3.6 GB/s across racks: six times the
// 10 x 500 Mbps the racks' uplinks carry. The paper says (section 4.3) it
// chose the arrival rate "to utilize the cluster maximally for the base case
// (Delay Scheduler)", and that its dedicated-cluster runs (section 5.6)
// "scaled down job arrival rate, job sizes" without giving the sizes. We
// keep the arrival rate and Table 2's shape and scale every size by one
// factor chosen so that the base case's bottleneck, the rack uplinks, is
// offered exactly its capacity: the expected cross-rack bytes a second of a
// Delay schedule (node-local maps, so no remote map reads; reduces spread
// over the racks, so (racks-1)/racks of the shuffle crosses; every reduce
// output's second replica goes off-rack) equals racks x uplink. The factor
// is computed from the mix and the bins in closed form, not from any
// simulated result, and is about 0.12 for the default mix.
func swCalibrationScale(cl cluster.Config, mix []workload.MixEntry) float64 {
	cl = cl.WithDefaults()
	meanIn, sum := swMeanInput(), 0.0
	var shuffle, output float64
	for _, e := range mix {
		sum += e.Percent
		shuffle += e.Percent * e.Benchmark.ShuffleRatio
		output += e.Percent * e.Benchmark.ShuffleRatio * e.Benchmark.OutputRatio
	}
	shuffle /= sum
	output /= sum
	racks := float64(cl.Racks)
	crossPerInput := shuffle*(racks-1)/racks + output
	demand := meanIn * crossPerInput / swMeanInterarrivalS // bytes/s at scale 1
	capacity := racks * cl.RackUplinkMbps * 1e6 / 8
	return capacity / demand
}

// swMeanInput is Table 2's mean input, each bin's draw log-uniform.
func swMeanInput() float64 {
	var meanIn float64
	for _, b := range workload.InputSizeBins() {
		lo, hi := float64(b.MinBytes), float64(b.MaxBytes)
		meanIn += b.Percent / 100 * (hi - lo) / math.Log(hi/lo) // mean of a log-uniform draw
	}
	return meanIn
}

// swTable3Shuffle is Table 3's total shuffle under Fair (1261 + 70 + 13 GB,
// taken as 10^9 bytes) over the paper's 4-hour steady state.
const (
	swTable3ShuffleBytes = 1344e9
	swTable3S            = 4 * 3600
)

// swTable3Scale is the factor on Table 2's sizes at which the expected
// shuffle bytes a second of the workload (mean input x the mix's mean
// shuffle ratio / mean inter-arrival) equal Table 3's: 1344 GB in 4 hours.
// The shuffle volume is the one Table 3 quantity that does not depend on
// the scheduler (shuffle = input x ratio, wherever tasks run), so it fixes
// the workload alone. Closed form, like swCalibrationScale; about 0.03.
func swTable3Scale(mix []workload.MixEntry) float64 {
	meanIn := swMeanInput()
	var ratio, sum float64
	for _, e := range mix {
		sum += e.Percent
		ratio += e.Percent * e.Benchmark.ShuffleRatio
	}
	ratio /= sum
	return swTable3ShuffleBytes / swTable3S * swMeanInterarrivalS / (meanIn * ratio)
}

// swMixes are Fig. 14(b)'s job mixes, as (light, medium, heavy) percent of
// jobs; each class's percent is spread over its benchmarks in Table 1's
// proportions. "default" is Table 1 (mix2).
var swMixes = []swMixSpec{
	{"60% heavy (mix1)", 20, 20, 60, "1.31"},
	{"default (mix2)", 40, 20, 40, "1.39"},
	{"60% light (mix3)", 60, 20, 20, "1.22"},
}

// swMixSpec is a job mix of Fig. 14(b) and the throughput factor the
// paper gives for it.
type swMixSpec struct {
	Name                  string
	Light, Medium, Heavy  float64
	PaperThroughputFactor string
}

// swMix returns Table 1's benchmarks with class percentages light, medium,
// heavy (each class's benchmarks keep Table 1's proportions within it).
func swMix(light, medium, heavy float64) []workload.MixEntry {
	mix := workload.DefaultSWMix()
	var classSum [workload.NumClasses]float64
	for _, e := range mix {
		classSum[e.Benchmark.Class] += e.Percent
	}
	want := [workload.NumClasses]float64{}
	want[workload.ClassLight], want[workload.ClassMedium], want[workload.ClassHeavy] = light, medium, heavy
	for i := range mix {
		c := mix[i].Benchmark.Class
		mix[i].Percent = mix[i].Percent / classSum[c] * want[c]
	}
	return mix
}

// The workload's size calibration is fixed by the default mix, so that the
// mixes of Fig. 14(b) change the mix alone ("the same job arrival rates",
// and the same sizes).
//
// users is the number of users jobs are spread over (section 4.3: 30), or
// swUserPerJob for per-job fairness: every job its own user (Fig. 14(a)'s
// "one job per user"). The arrivals, benchmarks and sizes do not depend on
// it (the generator draws users from a stream of their own).
func swWorkload(cfg swConfig, mix []workload.MixEntry, seed uint64, users int) ([]workload.Job, error) {
	cl := swCluster().WithDefaults()
	n := users
	if users == swUserPerJob {
		n = 1
	}
	jobs, err := workload.GenerateShuffleWatcher(workload.SWGenOptions{
		Users: n, MeanInterarrivalS: swMeanInterarrivalS, DurationS: cfg.arrivalsS(),
		BlockBytes: cl.BlockBytes(), Seed: seed, Mix: mix, TargetNodes: cl.Racks * cl.NodesPerRack,
		SizeBins: workload.ScaledSizeBins(cfg.scale()),
	})
	if err != nil {
		return nil, err
	}
	if users == swUserPerJob {
		for i := range jobs {
			jobs[i].User = jobs[i].ID
			jobs[i].Pool = workload.PoolOf(jobs[i].ID)
		}
	}
	return jobs, nil
}

// swUserPerJob asks swWorkload for one user per job.
const swUserPerJob = -1

// The schedulers, as the paper names them (paper parameters are the
// policies' defaults: threshold 0.8, map completion 0.15, relaxed 5 s,
// starvation window 600 s).
var (
	swFair      = harness.PolicySpec{Label: "Fair", Name: "fair"}
	swDelay     = harness.PolicySpec{Label: "Delay", Name: "delay"}
	swDRF       = harness.PolicySpec{Label: "DRF", Name: "drf"}
	swSWFair    = harness.PolicySpec{Label: "SW-fair", Name: "sw-fair"}
	swSWRelaxed = harness.PolicySpec{Label: "SW-relaxed", Name: "sw-relaxed"}
	swSWDRF     = harness.PolicySpec{Label: "SW-DRF", Name: "sw-drf"}
	swNASS      = harness.PolicySpec{Label: "NASS", Name: "sw-nass"}
	swNASSSARP  = harness.PolicySpec{Label: "NASS+SARP", Name: "sw-nass-sarp"}
	swMainPols  = []harness.PolicySpec{swFair, swDelay, swDRF, swSWFair, swSWRelaxed, swSWDRF}
	swBreakPols = []harness.PolicySpec{swFair, swNASS, swNASSSARP, swSWFair}
	// swPair is SW-fair beside its baseline, Fair.
	swPair = []harness.PolicySpec{swFair, swSWFair}
)

// ---------------------------------------------------------------------
// Runs, with per-job traffic attribution

// swRun is one simulation of the ShuffleWatcher experiments, named in
// swCache by its values: a policy on one seed's arrivals of a
// configuration, a mix (nil: Table 1's) and users (swUsers, another count
// or swUserPerJob), and, when its Factor is set, a regime's costs and
// inputs (shufflewatcher_regime.go).
type swRun struct {
	Policy harness.PolicySpec
	Cfg    swConfig
	Mix    []workload.MixEntry
	Users  int
	Seed   uint64
	Regime swRegime
}

// swOutcome is what the experiments keep of a run.
type swOutcome struct {
	cfg     swConfig
	jobs    []metrics.JobRecord
	summary metrics.Summary
	probe   *probe.Traffic
	series  []metrics.TimeseriesRow
	wallS   float64
}

// swCache holds the ShuffleWatcher experiments' runs (see harness.Cache).
var swCache = harness.Cache[swRun, *swOutcome]{Exec: swRun.exec}

// exec runs r's jobs, through the traffic probe, measuring its
// configuration's window.
func (r swRun) exec() (*swOutcome, error) {
	start := time.Now()
	jobs, err := swWorkload(r.Cfg, r.Mix, r.Seed, r.Users)
	if err != nil {
		return nil, err
	}
	cl, eng := swCluster(), sim.Params{}
	if g := r.Regime; g.Factor > 0 {
		for i := range jobs {
			jobs[i].Profile.MapSecPerByte *= g.Factor
			jobs[i].Profile.ReduceSecPerByte *= g.Factor
			jobs[i].Placement = g.Placement
		}
		cl, eng = swRegimeCluster(g)
	}
	var pr *probe.Traffic
	lo, hi := r.Cfg.RampS, r.Cfg.RampS+r.Cfg.WindowS
	res, err := harness.Run{Setup: harness.Setup{Cluster: cl, Engine: eng, Seed: r.Seed}, Jobs: jobs, Policy: r.Policy,
		Probe: func(p sched.Policy, t *cluster.Topology) sched.Policy {
			pr = probe.NewTraffic(p, t, len(jobs), lo, hi)
			return pr
		},
		Steady: scenario.MetricsSpec{SteadyStartS: lo, SteadyEndS: hi}}.Simulate()
	if err != nil {
		return nil, err
	}
	col := res.Collector
	out := &swOutcome{cfg: r.Cfg, jobs: col.Jobs(), summary: res.Summary, probe: pr, series: col.Timeseries(), wallS: time.Since(start).Seconds()}
	pr.RemoteMaps(out.jobs)
	return out, nil
}

// at is r under policy p on seed.
func (r swRun) at(p harness.PolicySpec, seed uint64) swRun {
	r.Policy, r.Seed = p, seed
	return r
}

// swGrid runs (or takes from swCache) every policy of pols on every seed
// of o, the rest of each run as run declares it (30 users when it says
// none); res[p][s].
func swGrid(o Options, run swRun, pols ...harness.PolicySpec) ([][]*swOutcome, error) {
	if run.Users == 0 {
		run.Users = swUsers
	}
	return swCache.Grid(o, pols, run.at)
}

// ---------------------------------------------------------------------
// Measures of one run

// measured lists the jobs of class c (swAllClasses: all) submitted in the
// steady window.
func (r *swOutcome) measured(c workload.ShuffleClass) []int {
	var idx []int
	for i := range r.jobs {
		if r.cfg.inWindow(r.jobs[i].Submit) && (c == swAllClasses || swClassOf(&r.jobs[i]) == c) {
			idx = append(idx, i)
		}
	}
	return idx
}

// classOf is the job's class in the paper's sense: its benchmark's (Table 1).
func swClassOf(jr *metrics.JobRecord) workload.ShuffleClass {
	if b, ok := workload.BenchmarkByName(jr.Kind); ok {
		return b.Class
	}
	return jr.Class
}

const swAllClasses = -1

// swThroughput is a run's jobs finishing in the steady window, per hour.
func swThroughput(r *swOutcome) float64 { return r.throughput(swAllClasses) }

// throughput is the jobs of class c (swAllClasses: all) finishing in the
// steady window, per hour.
func (r *swOutcome) throughput(c workload.ShuffleClass) float64 {
	n := 0
	for i := range r.jobs {
		jr := &r.jobs[i]
		if jr.Finish >= 0 && r.cfg.inWindow(jr.Finish) && (c == swAllClasses || swClassOf(jr) == c) {
			n++
		}
	}
	return float64(n) / r.cfg.WindowS * 3600
}

// turnaround is the mean turnaround of the measured jobs.
func (r *swOutcome) turnaround() float64 {
	var v []float64
	for _, i := range r.measured(swAllClasses) {
		v = append(v, r.jobs[i].Turnaround())
	}
	return harness.MeanOf(v)
}

// traffic sums the measured jobs' traffic of class c.
func (r *swOutcome) trafficOf(c workload.ShuffleClass) probe.JobTraffic {
	var s probe.JobTraffic
	for _, i := range r.measured(c) {
		s.Add(r.probe.ByJob[i])
	}
	return s
}

func swGB(b float64) float64 { return b / 1e9 }

func (c swConfig) describe(o Options) string {
	return fmt.Sprintf("%d seed(s) from %d; arrivals for %s h, steady window [%s h, %s h) (%s)",
		o.Seeds, o.Seed, swHours(c.arrivalsS()), swHours(c.RampS), swHours(c.RampS+c.WindowS), c.Name)
}

func swHours(s float64) string { return strconv.FormatFloat(s/3600, 'f', -1, 64) }

func swWallNote(rs ...[][]*swOutcome) string {
	return harness.WallNote(func(r *swOutcome) float64 { return r.wallS }, rs...)
}

// ---------------------------------------------------------------------
// shufflewatcher/main

// swPaperFig8 is Fig. 8 as the text gives it: SW-fair over Fair and
// SW-relaxed over Delay; SW-DRF over DRF "similar to SW-fair". Fair and
// DRF, the figure's baselines, are 1 by its normalisation.
var swPaperFig8 = map[string][3]string{
	"SW-fair":    {"1.39", "0.73", "0.64"},
	"SW-relaxed": {"1.46", "0.68", "0.52"},
	"SW-DRF":     {"~1.39", "~0.73", "~0.64"},
	"Fair":       {"1.00", "1.00", "1.00"},
	"DRF":        {"1.00", "1.00", "1.00"},
}

// swBaseOf is the baseline each ShuffleWatcher variant is normalised to.
var swBaseOf = map[string]string{"SW-fair": "Fair", "SW-relaxed": "Delay", "SW-DRF": "DRF",
	"Fair": "Fair", "Delay": "Fair", "DRF": "DRF"}

// runSWMain is Fig. 8 and the section 5.2 claim of Fig. 11.
func runSWMain(o Options, cfg swConfig) (*Result, error) {
	res, err := swGrid(o, swRun{Cfg: cfg}, swMainPols...)
	if err != nil {
		return nil, err
	}
	type R = harness.RunsRow[*swOutcome] // ref: the baseline's runs
	cross := func(r *swOutcome) float64 { return swGB(r.trafficOf(swAllClasses).CrossNoOutput()) }
	crossAll := func(r *swOutcome) float64 { return swGB(r.trafficOf(swAllClasses).CrossAll()) }
	fig8 := func(k int) func(R) string {
		return func(r R) string {
			if pp, ok := swPaperFig8[r.Label]; ok {
				return pp[k]
			}
			return "-"
		}
	}
	// slower counts the jobs submitted in the window whose turnaround is
	// longer than under the baseline, and those jobs, over the seeds.
	slower := func(r R) (slower, measured int) {
		for s := range r.Rs {
			for _, i := range r.Rs[s].measured(swAllClasses) {
				measured++
				if r.Rs[s].jobs[i].Turnaround() > r.Ref[s].jobs[i].Turnaround()+1e-6 {
					slower++
				}
			}
		}
		return slower, measured
	}
	return harness.Table[R]{
		Title: "shufflewatcher/main: 100 nodes in 10 racks, 30 users, Table 1 mix, Table 2 sizes x " +
			harness.Num(cfg.scale(), 3) + ", mean inter-arrival 40 s (paper Fig. 8); " + cfg.describe(o),
		Cols: []harness.Column[R]{
			harness.Key("scheduler", "scheduler", func(r R) string { return r.Label }),
			harness.Key("vs", "baseline", func(r R) string { return swBaseOf[r.Label] }),
			harness.Spread("jobs/h in window", "throughput_jph", 1, 3, harness.OverOf(swThroughput)),
			harness.X("throughput x", "throughput_x", swThroughput),
			harness.Paper("paper", "paper_throughput_x", fig8(0)),
			harness.Spread("mean turnaround (s)", "turnaround_s", 0, 1, harness.OverOf((*swOutcome).turnaround)),
			harness.X("turnaround x", "turnaround_x", (*swOutcome).turnaround),
			harness.Paper("paper", "paper_turnaround_x", fig8(1)),
			harness.Spread("cross-rack GB (shuffle+map)", "cross_rack_gb", 0, 2, harness.OverOf(cross)),
			harness.X("cross-rack x", "cross_rack_x", cross),
			harness.Paper("paper", "paper_cross_rack_x", fig8(2)),
			harness.X("x incl. output", "cross_rack_incl_output_x", crossAll),
			{Head: "slower than base", Text: func(r R) string {
				if r.Label == swBaseOf[r.Label] {
					return "-"
				}
				n, of := slower(r)
				return fmt.Sprintf("%d of %d", n, of)
			}, CSV: []string{"jobs_slower", "jobs_measured"}, Cells: func(r R) []string { n, of := slower(r); return []string{strconv.Itoa(n), strconv.Itoa(of)} }},
		},
		Notes: []string{
			"mean (min-max over seeds). x = ratio to the baseline in 'vs' on the same seed (the paper's normalisation: SW-fair and Delay",
			"to Fair, SW-relaxed to Delay, SW-DRF to DRF). Throughput: jobs finishing in the window per hour; turnaround and traffic: jobs",
			"submitted in the window. Cross-rack: the paper's measure (shuffle + remote map reads); 'incl. output' adds reduce output",
			"replicas, which cross racks too. 'slower than base': jobs submitted in the window whose turnaround is longer than under the",
			"baseline, summed over seeds (paper: none of 300 for SW-fair vs Fair).",
			swShufflePerHour(res[0]),
		},
		Wall: swWallNote(res),
	}.Result(harness.Against(swMainPols, res, swBaseOf)), nil
}

// ---------------------------------------------------------------------
// shufflewatcher/traffic

// swPaperTable3 is Table 3 by class: shuffle, cross-rack shuffle,
// cross-rack remote map and their total, GB.
var swPaperTable3 = map[workload.ShuffleClass][4]string{
	workload.ClassHeavy:  {"1261", "1108", "187", "1295"},
	workload.ClassMedium: {"70", "63", "38", "101"},
	workload.ClassLight:  {"13", "11", "48", "59"},
	swAllClasses:         {"1344", "1182", "273", "1455"},
}

// swClasses are Table 1's classes, heaviest first; swAllAndClasses puts
// all jobs before them.
var (
	swClasses       = []workload.ShuffleClass{workload.ClassHeavy, workload.ClassMedium, workload.ClassLight}
	swAllAndClasses = append([]workload.ShuffleClass{swAllClasses}, swClasses...)
)

// swClassName names a class in tables, swAllClasses "all".
func swClassName(cl workload.ShuffleClass) string {
	if cl == swAllClasses {
		return "all"
	}
	return cl.String()
}

// runSWTraffic is Table 3: traffic volume by job class under Fair.
func runSWTraffic(o Options, cfg swConfig) (*Result, error) {
	res, err := swGrid(o, swRun{Cfg: cfg}, swFair)
	if err != nil {
		return nil, err
	}
	rs := res[0]
	type R = workload.ShuffleClass // or swAllClasses
	rows := append(slices.Clone(swClasses), swAllClasses)
	// Check the attribution against the engine's own byte counts (all jobs).
	var dev harness.Stat
	for _, r := range rs {
		var sum probe.JobTraffic
		for _, tr := range r.probe.ByJob {
			sum.Add(tr)
		}
		if b := r.summary.Bytes.CrossRackTotal; b > 0 {
			dev.Add(sum.CrossAll()/b - 1)
		}
	}
	// gb is a class's bytes over seeds, in GB.
	gb := func(head, csv string, v func(probe.JobTraffic) float64) harness.Column[R] {
		return harness.Spread(head, csv, 0, 2, func(cl R) harness.Stat {
			return harness.OverSeeds(rs, func(r *swOutcome) float64 { return swGB(v(r.trafficOf(cl))) })
		})
	}
	raw := func(k int) harness.Column[R] {
		return harness.Verbatim("paper", []string{"paper_shuffle_gb", "paper_cross_shuffle_gb", "paper_cross_map_gb", "paper_cross_total_gb"}[k],
			func(cl R) string { return swPaperTable3[cl][k] })
	}
	return harness.Table[R]{
		Title: "shufflewatcher/traffic: traffic volume (GB) by job class under Fair (paper Table 3, 4 h); " + cfg.describe(o),
		Cols: []harness.Column[R]{
			harness.Key("class", "class", swClassName),
			gb("shuffle", "shuffle_gb", func(t probe.JobTraffic) float64 { return t.ShuffleTotal }), raw(0),
			gb("cross-rack shuffle", "cross_shuffle_gb", func(t probe.JobTraffic) float64 { return t.ShuffleCross }), raw(1),
			gb("cross-rack remote map", "cross_map_gb", func(t probe.JobTraffic) float64 { return t.RemoteMapCross }), raw(2),
			gb("cross-rack total", "cross_total_gb", probe.JobTraffic.CrossNoOutput), raw(3),
			gb("cross-rack output", "cross_output_gb", func(t probe.JobTraffic) float64 { return t.OutputCross }),
			gb("total incl. output", "cross_total_incl_output_gb", probe.JobTraffic.CrossAll),
			harness.Shown("cross-rack shuffle share", func(cl R) string {
				return harness.OverSeeds(rs, func(r *swOutcome) float64 {
					tr := r.trafficOf(cl)
					if tr.ShuffleTotal == 0 {
						return 0
					}
					return tr.ShuffleCross / tr.ShuffleTotal
				}).Pct() + "%"
			}),
		},
		Notes: []string{
			"jobs submitted in the window, attributed from where their tasks ran; class by benchmark (Table 1). The paper's",
			"'total cross-rack' is cross-rack shuffle + remote map (its columns add up so); reduce output writes (replica 2 goes",
			"off-rack) are not in it, so they are shown apart. Our window is " + swHours(cfg.WindowS) + " h against the paper's 4 h: compare shares, not GB.",
			"attributed cross-rack bytes of all jobs vs the engine's count: " + dev.Scale(100).Text(2) + "% off",
		},
		Wall: swWallNote(res),
	}.Result(rows), nil
}

// ---------------------------------------------------------------------
// shufflewatcher/breakdown

// runSWBreakdown is Fig. 12 (throughput) and Fig. 13 (cross-rack traffic)
// by class, for NASS, NASS+SARP and NASS+SARP+SAMP (sw-fair), over Fair.
func runSWBreakdown(o Options, cfg swConfig) (*Result, error) {
	res, err := swGrid(o, swRun{Cfg: cfg}, swBreakPols...)
	if err != nil {
		return nil, err
	}
	// paper is the text of Fig. 12-13, by policy and class.
	paper := map[string]string{"NASS/all": "traffic x ~1.00", "NASS+SARP/all": "traffic x 0.85 (heavy 0.84, medium 0.87, light 0.96)",
		"SW-fair/all": "traffic x 0.64 (total); throughput 1.39"}
	type R struct {
		label string
		cl    workload.ShuffleClass
		rs    []*swOutcome
	}
	var rows []R
	for pi, p := range swBreakPols[1:] {
		for _, cl := range swAllAndClasses {
			rows = append(rows, R{p.Label, cl, res[pi+1]})
		}
	}
	// x is the ratio over seeds of num, of the row's runs, to den, of
	// Fair's on the same seed, each read for the row's class.
	x := func(head, csv string, num, den func(*swOutcome, workload.ShuffleClass) float64) harness.Column[R] {
		return harness.Spread(head, csv, 2, 4, func(r R) harness.Stat {
			return harness.RatioOf(r.rs, res[0], func(o *swOutcome) float64 { return num(o, r.cl) }, func(o *swOutcome) float64 { return den(o, r.cl) })
		})
	}
	traffic := func(v func(probe.JobTraffic) float64) func(*swOutcome, workload.ShuffleClass) float64 {
		return func(o *swOutcome, cl workload.ShuffleClass) float64 { return v(o.trafficOf(cl)) }
	}
	total, all := traffic(probe.JobTraffic.CrossNoOutput), traffic(probe.JobTraffic.CrossAll)
	return harness.Table[R]{
		Title: "shufflewatcher/breakdown: NASS, +SARP, +SAMP over Fair by job class (paper Fig. 12-13); " + cfg.describe(o),
		Cols: []harness.Column[R]{
			harness.Key("policy", "policy", func(r R) string { return r.label }),
			harness.Key("class", "class", func(r R) string { return swClassName(r.cl) }),
			x("throughput x", "throughput_x", (*swOutcome).throughput, (*swOutcome).throughput),
			x("cross-rack x", "cross_rack_x", total, total),
			x("cross-rack shuffle x", "cross_shuffle_x", traffic(func(t probe.JobTraffic) float64 { return t.ShuffleCross }), total),
			x("cross-rack map x", "cross_map_x", traffic(func(t probe.JobTraffic) float64 { return t.RemoteMapCross }), total),
			x("x incl. output", "cross_incl_output_x", all, all),
			harness.Shown("paper", func(r R) string { return harness.PaperIn(paper, r.label+"/"+swClassName(r.cl)) }),
		},
		Notes: []string{
			"x = ratio to Fair on the same seed, mean (min-max over seeds); cross-rack = shuffle + remote map of jobs submitted in the window,",
			"normalised to Fair's total for the class (so shuffle x + map x parts add to the total). Paper (Fig. 13 text): NASS does not",
			"reduce traffic; SARP cuts heavy/medium/light cross-rack traffic 16/13/4% (total 15%); SAMP a further 38/23/4% (total 36%);",
			"Fig. 12: every technique raises throughput, more for light jobs.",
		},
		Wall: swWallNote(res),
	}.Result(rows), nil
}

// ---------------------------------------------------------------------
// shufflewatcher/mix

// runSWMix is Fig. 14(b): SW-fair over Fair for three job mixes.
func runSWMix(o Options, cfg swConfig) (*Result, error) {
	type R = harness.RunsRow[*swOutcome] // SW-fair's runs, ref Fair's
	var rows []R
	var all [][]*swOutcome
	for _, m := range swMixes {
		var mix []workload.MixEntry // Table 1's, as every other experiment runs it
		if m.Light != 40 || m.Medium != 20 || m.Heavy != 40 {
			mix = swMix(m.Light, m.Medium, m.Heavy)
		}
		res, err := swGrid(o, swRun{Cfg: cfg, Mix: mix}, swPair...)
		if err != nil {
			return nil, err
		}
		all = append(all, res...)
		rows = append(rows, R{Label: m.Name, Rs: res[1], Ref: res[0]})
	}
	mixOf := func(r R) swMixSpec {
		return swMixes[slices.IndexFunc(swMixes, func(m swMixSpec) bool { return m.Name == r.Label })]
	}
	return harness.Table[R]{
		Title: "shufflewatcher/mix: SW-fair over Fair by job mix, light/medium/heavy percent of jobs (paper Fig. 14(b)); " + cfg.describe(o),
		Cols: []harness.Column[R]{
			harness.Key("mix", "mix", func(r R) string { return r.Label }),
			{Head: "light/medium/heavy %", Text: func(r R) string { m := mixOf(r); return fmt.Sprintf("%g/%g/%g", m.Light, m.Medium, m.Heavy) },
				CSV: []string{"light_pct", "medium_pct", "heavy_pct"},
				Cells: func(r R) []string {
					m := mixOf(r)
					return []string{harness.Num(m.Light, 0), harness.Num(m.Medium, 0), harness.Num(m.Heavy, 0)}
				}},
			harness.Shown("Fair jobs/h", func(r R) string { return harness.OverSeeds(r.Ref, swThroughput).Text(1) }),
			harness.Shown("SW-fair jobs/h", func(r R) string { return harness.OverSeeds(r.Rs, swThroughput).Text(1) }),
			harness.X("throughput x", "throughput_x", swThroughput),
			harness.Verbatim("paper", "paper_throughput_x", func(r R) string { return mixOf(r).PaperThroughputFactor }),
			harness.X("turnaround x", "turnaround_x", (*swOutcome).turnaround),
			harness.X("cross-rack x", "cross_rack_x", func(r *swOutcome) float64 { return r.trafficOf(swAllClasses).CrossNoOutput() }),
			harness.X("x incl. output", "cross_incl_output_x", func(r *swOutcome) float64 { return r.trafficOf(swAllClasses).CrossAll() }),
		},
		Notes: []string{"same arrivals and size calibration for every mix (the default mix's); x = SW-fair / Fair on the same seed, mean (min-max)."},
		Wall:  swWallNote(all),
	}.Result(rows), nil
}

// ---------------------------------------------------------------------
// shufflewatcher/timeseries

// runSWTimeseries is Fig. 1 (Fair) and Fig. 10 (SW-fair): cross-rack
// traffic over time, one row a minute, for the first seed. The table
// summarises each run's steady window: mean and peak cross-rack shuffle
// rate and its coefficient of variation (the paper's point: ShuffleWatcher's
// profile is "relatively balanced").
func runSWTimeseries(o Options, cfg swConfig) (*Result, error) {
	o.Seeds = 1
	res, err := swGrid(o, swRun{Cfg: cfg}, swPair...)
	if err != nil {
		return nil, err
	}
	t := &report.Table{
		Title: "shufflewatcher/timeseries: cross-rack traffic over time, Fair (paper Fig. 1) and SW-fair (Fig. 10), seed " +
			strconv.FormatUint(o.Seed, 10) + "; " + cfg.describe(o),
		Headers: []string{"scheduler", "shuffle Mb/s mean", "peak", "CV", "all causes Mb/s mean", "peak", "CV", "minutes with a congested uplink"},
		Notes: []string{"steady window only; CV = standard deviation / mean of the one-minute rates; capacity across racks: 5000 Mb/s.",
			"-out writes every minute of the whole run (policy, t, rates by cause in Mb/s, running tasks, congested uplinks)."},
	}
	c := &report.Table{Headers: []string{"policy", "t_s", "cross_rack_shuffle_mbps", "cross_rack_remote_map_mbps", "cross_rack_output_mbps",
		"running_maps", "running_reduces", "pending_maps", "active_jobs", "congested_uplinks", "max_uplink_util"}}
	for i, p := range swPair {
		r := res[i][0]
		var sh, tot []float64
		congested := 0
		for _, s := range r.series {
			mb := func(bps float64) float64 { return bps * 8 / 1e6 }
			c.AddRow(p.Label, harness.Num(s.T, 0), harness.Num(mb(s.CrossRackBps[metrics.Shuffle]), 2), harness.Num(mb(s.CrossRackBps[metrics.RemoteMap]), 2),
				harness.Num(mb(s.CrossRackBps[metrics.Output]), 2), strconv.Itoa(s.RunningMaps), strconv.Itoa(s.RunningReduces),
				strconv.Itoa(s.PendingMaps), strconv.Itoa(s.ActiveJobs), strconv.Itoa(s.CongestedUplinks), harness.Num(s.MaxUplinkUtil, 3))
			if cfg.inWindow(s.T) {
				sh = append(sh, mb(s.CrossRackBps[metrics.Shuffle]))
				tot = append(tot, mb(s.CrossRackBps[metrics.Shuffle]+s.CrossRackBps[metrics.RemoteMap]+s.CrossRackBps[metrics.Output]))
				if s.CongestedUplinks > 0 {
					congested++
				}
			}
		}
		t.AddRow(p.Label, harness.Num(harness.MeanOf(sh), 0), harness.Num(harness.MaxOf(sh), 0), harness.Num(harness.CV(sh), 2), harness.Num(harness.MeanOf(tot), 0), harness.Num(harness.MaxOf(tot), 0), harness.Num(harness.CV(tot), 2),
			fmt.Sprintf("%d of %d", congested, len(sh)))
	}
	return &Result{Table: t, CSV: c, Wall: swWallNote(res)}, nil
}
