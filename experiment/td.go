package experiment

// The TD paper's experiments (Wang, Shen, Yu, Nie, Kou, "A Throughput Driven
// Task Scheduler for Improving MapReduce Performance in Job-intensive
// Environments", IEEE BigData Congress 2013; papers/td-throughput-driven.txt,
// section V): queues of word count, inverted index, grep and sort jobs on 50
// slaves, run under FIFO, Fair and TD. Every choice the paper leaves open is
// stated where it is made; none was tuned toward the paper's numbers.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

var tdExperiments = []Experiment{
	{Name: "td/queues", Fast: true, Source: "TD paper, section V-A, Fig. 7-8, Table I", DefaultSeeds: 5,
		Summary: "200 GB queues of small, mix and large jobs on 50 slaves: queue completion, local ratio and hotspots per fifth of the run under FIFO, Fair, TD",
		Measure: runTDQueues},
	{Name: "td/data-size", Fast: true, Source: "TD paper, section V-A, Fig. 7", DefaultSeeds: 3,
		Summary: "queue completion time of FIFO, Fair and TD against data size, 100 to 300 GB, for small, mix and large queues",
		Measure: runTDDataSize,
		Plot:    tdDataSizeFigure},
	{Name: "td/bounds", Fast: true, Source: "TD paper, section V-B, Fig. 9", DefaultSeeds: 3,
		Summary: "TD's queue completion time against its lower bound L (0.5-0.9) and upper bound H (1.1-1.5) on 200 GB queues",
		Measure: runTDBounds},
	{Name: "td/bounds-costly", Source: "TD paper, section V-B, Fig. 9 (td/diagnose's \"both\" set-up)", DefaultSeeds: 2,
		Summary: "td/bounds with 1 replica and 100 Mbit/s NICs, where a non-local read costs more than a map's compute",
		Measure: runTDBoundsCostly},
	{Name: "td/diagnose", Source: "TD paper, section V (why TD ties FIFO here)", DefaultSeeds: 2,
		Summary: "200 GB queues under FIFO, Fair, TD: map-slot use, idle slots while maps wait, non-local read cost, reduce tail, how often L and H bind; our set-up and costlier non-local reads",
		Measure: runTDDiagnose},
	{Name: "td/regime", Source: "TD paper, section V-A, on its Hadoop 0.20.1 cluster's costs (README-td.md, The paper's own regime)", DefaultSeeds: 5,
		Summary: "200 GB queues under FIFO, Fair, TD with two racks at 5:1, the hdd disk, 0.20's replica order, 3 s heartbeats without out-of-band offers, 4 s start-up: each alone, then all",
		Measure: runTDRegime},
	{Name: "td/map", Source: "beyond the paper: TD's gain over FIFO around its operating point", DefaultSeeds: 5,
		Summary: "TD / FIFO on small 200 GB queues over rack over-subscription (1-20:1) x disk seek (0-24.8 ms), td/regime's other costs on",
		Measure: harness.MapOf(tdMap),
		Plot:    tdMapFigure()},
}

// ---------------------------------------------------------------------
// Cluster and workload

// tdCluster is the paper's cluster: "1 master and 50 slaves. Each node has
// Core i7 870 CPU, 500G disk, 8G memory. Each slave node has 2 slots for map
// tasks and 2 for reduce tasks" (section V); splits are 64 MB. The paper
// gives no network; its Hadoop 0.20.1 without a topology script puts every
// node in /default-rack, and TD's non-local reads are confined to the rack
// (IV-A.2), so we model one rack of 50 nodes on 1 Gbit/s Ethernet behind a
// non-blocking switch. One 500 GB disk a node: 100 MB/s, a 7200 rpm SATA
// disk's sequential rate. Three replicas (HDFS's default).
func tdCluster() cluster.Config {
	return cluster.Config{Racks: 1, NodesPerRack: 50, MapSlots: 2, ReduceSlots: 2,
		NICMbps: 1000, RackUplinkMbps: 1000, DiskMBps: 100, BlockMB: 64, Replication: 3}
}

// TDKind is one of the paper's four applications as a job profile. The
// paper publishes no profile; every number is an ESTIMATE, and the
// shuffle and output ratios and the grep and sort rates are the project's
// own estimates for the same Hadoop examples in workload.Benchmarks (the
// ShuffleWatcher table), which were made for E1, not for this experiment:
//
//   - grep: only the matching lines' counts leave the map (shuffle 1e-3);
//     an IO-bound scan, 24 MiB/s a map (workload.Benchmarks "grep").
//   - sort: Hadoop's distributed sort example is the identity map and
//     identity reduce, so shuffle = input and output = shuffle (ratio 1;
//     terasort's 1.02 is its text framing). The map only
//     deserialises and partitions: 16 MiB/s, terasort's map rate in
//     workload.Benchmarks.
//   - word count: the combiner collapses each split to its distinct words
//     (shuffle 1e-2, output 0.5, workload.Benchmarks "wordcount"); the map
//     tokenises every line and updates a hash entry per token, the
//     CPU-heaviest of the four: 6 MiB/s, three quarters of the project's
//     default 8 MiB/s (workload.DefaultMapBytesPerSec).
//   - inverted index: one (word, doc) pair per distinct word of a
//     document (shuffle 0.3, output 0.8, workload.Benchmarks
//     "inverted-index"); it tokenises like word count but keeps a
//     per-document set, not a per-split table: the project's default
//     8 MiB/s, between sort and word count.
//
// Reduces process at the project's default 8 MiB/s of shuffle
// (workload.DefaultReduceBytesPerSec). With 64 MB splits a map computes
// for 2.7 s (grep), 4 s (sort), 8 s (inverted index) and 10.7 s (word
// count).
type TDKind struct {
	Name                  string
	ShuffleRatio          float64 // shuffle / input
	OutputRatio           float64 // output / shuffle
	MapMiBps, ReduceMiBps float64 // per-task processing rates
}

// TDKinds are the four applications, in the order the paper names them.
var TDKinds = []TDKind{
	{"wordcount", 1e-2, 0.5, 6, 8},
	{"inverted-index", 0.3, 0.8, 8, 8},
	{"grep", 1e-3, 1.0, 24, 8},
	{"sort", 1.0, 1.0, 16, 8},
}

// TDQueueType is a job-queue type of section V: the range of its jobs'
// split counts.
type TDQueueType struct {
	Name             string
	MinMaps, MaxMaps int
}

// TDQueueTypes are the paper's three types: small "each job size ... is
// small (<= 100)", large "(>= 250)", mix "[50-300]". The paper gives no
// lower bound for small jobs nor upper bound for large ones; we take 10
// (a job of a few splits barely occupies its demand) and 500 (two fifths
// of the default 200 GB queue, so even a large queue has several jobs).
var TDQueueTypes = []TDQueueType{
	{"small", 10, 100},
	{"mix", 50, 300},
	{"large", 250, 500},
}

// TDQueueConfig is one job queue.
type TDQueueConfig struct {
	Type       TDQueueType
	TotalGB    float64 // input of the whole queue; 200 GB by default (paper)
	BlockBytes int64   // 64 MiB, the paper's split size
	Seed       uint64
}

// TDQueueJobs builds a queue: job sizes (in splits) uniform on the type's
// range, drawn until they add up to TotalGB / split size exactly (the last
// draws are bounded so that the remainder stays within the range), each
// job's application uniform among TDKinds. The paper submits a queue and
// measures from its start, leaving out its "initialization time", so every
// job is submitted at time 0, in draw order; FIFO runs them in that order.
// Each job is its own user and pool, so Fair shares slots among jobs, as
// Hadoop 0.20's Fair Scheduler does among the jobs it runs. Reduces are a
// tenth of the maps (at least 1): the paper does not say; Hadoop's advice
// of 0.95 x reduce slots is for a job alone, and a tenth keeps each reduce
// at 10 splits' worth of shuffle.
func TDQueueJobs(c TDQueueConfig) ([]workload.Job, error) {
	t := c.Type
	if t.MinMaps < 1 || t.MaxMaps < 2*t.MinMaps-1 {
		return nil, fmt.Errorf("td queue %s: want 1 <= min maps and max maps >= 2 x min - 1, got %d and %d", t.Name, t.MinMaps, t.MaxMaps)
	}
	if c.BlockBytes <= 0 || !(c.TotalGB > 0) {
		return nil, fmt.Errorf("td queue %s: block bytes and total GB must be positive", t.Name)
	}
	total := int(math.Round(c.TotalGB * (1 << 30) / float64(c.BlockBytes)))
	if total < t.MinMaps {
		return nil, fmt.Errorf("td queue %s: %.0f GB is fewer than %d splits", t.Name, c.TotalGB, t.MinMaps)
	}
	r := harness.RNG(c.Seed, 0x7464717565756573) // "tdqueues"
	var jobs []workload.Job
	for rem := total; rem > 0; {
		var m int
		if rem <= t.MaxMaps {
			m = rem
		} else {
			hi := min(t.MaxMaps, rem-t.MinMaps)
			m = t.MinMaps + r.IntN(hi-t.MinMaps+1)
		}
		rem -= m
		k := TDKinds[r.IntN(len(TDKinds))]
		id := len(jobs)
		red := max(1, (m+5)/10)
		j := harness.NewJob(id, fmt.Sprintf("td-%s-s%d-j%d", t.Name, c.Seed, id), k.Name, id, 0, c.BlockBytes, harness.Shape{
			Maps: m, MapS: float64(c.BlockBytes) / (k.MapMiBps * (1 << 20)), Reduces: red,
			ShuffleRatio: k.ShuffleRatio, OutputRatio: k.OutputRatio,
		})
		j.Profile.ReduceSecPerByte = 1 / (k.ReduceMiBps * (1 << 20))
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// ---------------------------------------------------------------------
// Runs

var (
	tdFIFO = harness.PolicySpec{Label: "FIFO", Name: "fifo"}
	tdFair = harness.PolicySpec{Label: "Fair", Name: "fair"}
	tdTD   = harness.PolicySpec{Label: "TD", Name: "td"}
)

// tdPolicies are the schedulers section V compares.
var tdPolicies = []harness.PolicySpec{tdFIFO, tdFair, tdTD}

// tdSim is one simulation of a queue, on td/queues' cluster and engine as
// its set-up changes them (td_regime.go; the zero set-up: as is).
type tdSim struct {
	jobs   []workload.Job
	policy harness.PolicySpec
	seed   uint64
	setup  tdRegime
}

// tdOut is what the TD experiments keep of a simulation: the summary's
// measures, probe.HotWatch's hotspots when it watched, TD's own counts under
// TD, and td/diagnose's probe's when it watched.
type tdOut struct {
	completionS float64 // last finish - first submit
	finished    int
	jobs        int
	localRatio  float64 // node-local map launches / all map launches
	hot         [5]int  // hotspot occurrences per fifth of [0, completion]
	td          *sched.TDStats
	// meanTurnaroundS and crossRackGB are the summary's; heldS and
	// queuedS a job's mean waits on its critical path (package
	// critpath): with a free slot it could take, and without.
	meanTurnaroundS, crossRackGB, heldS, queuedS float64

	// TD only: shares of map launches by Algorithm 1 line 2 (and of
	// them non-local), H skips a map launch, shares of adult job-time
	// at H and below L (0 when no job was adult), adult seconds in all.
	sticky, stickyRemote, hSkipsPerMap, atH, belowL, adultS float64

	// From the probe: the map CPU time over the slots (a lower bound on
	// the map phase), its local ratio (TD's own for TD), slots busy and
	// idle while a map waited (after every job had started) over T x
	// the last map's end, stretch of node-local and remote maps (NaN
	// with none), completion - last map end.
	lowerS, probeLocal, util, idleShare, idleLastShare float64
	stretchL, stretchR, tailS                          float64
}

// simulate builds r's cluster and engine, runs r's jobs under the policy
// as wrap returns it (wrapped in an observer of its decisions), held to
// heartbeats where the set-up says, and returns the finished run. label
// names the run in an error.
func (r tdSim) simulate(label string, wrap func(sched.Policy) sched.Policy) (*scenario.Result, error) {
	c, eng := tdCluster(), r.setup.engine()
	r.setup.apply(&c)
	res, err := harness.Run{Setup: harness.Setup{Cluster: c, Engine: eng, Seed: r.seed}, Jobs: r.jobs, Policy: r.policy,
		Probe: func(p sched.Policy, _ *cluster.Topology) sched.Policy {
			p = wrap(p)
			if r.setup.heartbeatOnly {
				p = probe.NewHeartbeatOnly(p, eng.WithDefaults().HeartbeatS)
			}
			return p
		}}.Simulate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return res, nil
}

// run simulates r with its policy watched as the experiment needs: hot
// counts hotspots (probe.HotWatch, which also picks the replica the engine
// would), slots adds td/diagnose's probe.SlotUse around it. what names the
// run in an error, which a run that leaves a job unfinished is too.
func (r tdSim) run(what string, hot, slots bool) (*tdOut, error) {
	var inner sched.Policy
	var w *probe.HotWatch
	var pr *probe.SlotUse
	res, err := r.simulate(what, func(p sched.Policy) sched.Policy {
		inner = p
		if hot {
			w = probe.NewHotWatch(p, sched.DefaultTDConnectionLimit, r.seed)
			p = w
		}
		if slots {
			pr = probe.NewSlotUse(p)
			p = pr
		}
		return p
	})
	if err != nil {
		return nil, err
	}
	sum := res.Summary
	out := &tdOut{completionS: sum.MakespanS, finished: sum.JobsCompleted, jobs: len(r.jobs), localRatio: harness.NodeLocalShare(res.Collector.Jobs()),
		meanTurnaroundS: sum.Turnaround.Mean, crossRackGB: sum.Bytes.CrossRackTotal / 1e9}
	if out.finished != out.jobs {
		return nil, fmt.Errorf("%s: %d of %d jobs finished", what, out.finished, out.jobs)
	}
	if tb := sum.TimeBreakdown; tb != nil {
		out.heldS, out.queuedS = tb.MeanS[critpath.Held.String()], tb.MeanS[critpath.Queued.String()]
	}
	if w != nil {
		out.hot = w.Fifths(out.completionS)
	}
	if pr != nil {
		cpu := 0.0
		for i := range r.jobs {
			cpu += r.jobs[i].Profile.MapSecPerByte * float64(r.jobs[i].InputBytes)
		}
		out.lowerS, out.tailS = cpu/float64(pr.T), sum.MakespanS-pr.LastMapEnd
		out.util, out.idleShare, out.idleLastShare = pr.Shares()
		out.stretchL, out.stretchR, out.probeLocal = pr.Stretch(false), pr.Stretch(true), pr.LocalShare()
	}
	if td, ok := inner.(*sched.TD); ok {
		s := td.Stats()
		out.td = &s
		out.probeLocal = s.LocalRatio()
		out.sticky, out.stickyRemote = tdSticky(sum, s)
		out.hSkipsPerMap = float64(s.HSkips) / float64(s.LocalMaps+s.NonLocalMaps)
		var atH, belowL float64
		for _, j := range s.Jobs {
			out.adultS += j.AdultS
			atH += j.AtHS
			belowL += j.BelowLS
		}
		if out.adultS > 0 {
			out.atH, out.belowL = atH/out.adultS, belowL/out.adultS
		}
	}
	return out, nil
}

// hotspots is the run's hotspot occurrences, over its whole length.
func (x *tdOut) hotspots() float64 {
	return float64(x.hot[0] + x.hot[1] + x.hot[2] + x.hot[3] + x.hot[4])
}

// tdSticky is the share of TD's map launches that Algorithm 1 line 2 gave
// back to a slot's last job, and the part of it that read non-locally,
// from the run's decision counts (sum) and TD's own (s).
func tdSticky(sum metrics.Summary, s sched.TDStats) (all, nonLocal float64) {
	n := float64(s.LocalMaps + s.NonLocalMaps)
	if n == 0 {
		return 0, 0
	}
	for _, rc := range sum.Decisions.ByRule {
		switch rc.Rule {
		case sched.RuleTDStickyLocal:
			all += float64(rc.Count) / n
		case sched.RuleTDStickyNonLocal:
			all += float64(rc.Count) / n
			nonLocal += float64(rc.Count) / n
		}
	}
	return all, nonLocal
}

// tdQueue builds the queue of a type, size and seed.
func tdQueue(t TDQueueType, gb float64, seed uint64) ([]workload.Job, error) {
	return TDQueueJobs(TDQueueConfig{Type: t, TotalGB: gb, BlockBytes: 64 << 20, Seed: seed})
}

// tdScenario is a queue: its type and size, and the set-up it runs on.
type tdScenario struct {
	qt    TDQueueType
	gb    float64
	setup tdRegime
}

// tdScenarios are 200 GB queues of every type under each of setups (none:
// td/queues' own): set-up i's queue of type t is scenario i x
// len(TDQueueTypes) + t.
func tdScenarios(setups ...tdRegime) []tdScenario {
	if len(setups) == 0 {
		setups = []tdRegime{{}}
	}
	var out []tdScenario
	for _, s := range setups {
		for _, qt := range TDQueueTypes {
			out = append(out, tdScenario{qt, 200, s})
		}
	}
	return out
}

// tdGrid runs pols on every scenario for every seed of o, each queue drawn
// once and its runs watched as hot and slots say (tdSim.run).
func tdGrid(o Options, scs []tdScenario, pols []harness.PolicySpec, hot, slots bool) (harness.Grid[*tdOut], error) {
	return harness.RunGrid(o, scs, pols, func(sc tdScenario, seed uint64) (func(harness.PolicySpec) (*tdOut, error), error) {
		jobs, err := tdQueue(sc.qt, sc.gb, seed)
		return func(p harness.PolicySpec) (*tdOut, error) {
			what := p.Label
			if sc.setup.name != "" {
				what += ", " + sc.setup.name
			}
			return tdSim{jobs: jobs, policy: p, seed: seed, setup: sc.setup}.run(what, hot, slots)
		}, err
	})
}

// ---------------------------------------------------------------------
// td/queues

// tdPaperHot is Table I: hotspot occurrences per fifth of the run and in
// total, averaged over 3 runs.
var tdPaperHot = map[string]map[string][6]string{
	"Fair": {"small": {"25.3", "19.7", "23", "24.3", "29", "121.3"}, "mix": {"17.7", "15.3", "18.3", "15", "20", "86.3"}, "large": {"3", "6.3", "4", "4.7", "9", "27"}},
	"FIFO": {"small": {"23", "18.3", "19.7", "22.7", "25", "108.7"}, "mix": {"14", "13.3", "15.7", "16.3", "19.7", "79"}, "large": {"2", "5.7", "3.7", "4", "6.3", "21.7"}},
	"TD":   {"small": {"0", "0", "0.7", "0", "2", "2.7"}, "mix": {"0", "1", "0", "0", "1.7", "2.7"}, "large": {"0", "0", "0", "0", "0.7", "0.7"}},
}

// tdPaperLocal is Fig. 8 as the text gives it: "For the large type, Fair
// and FIFO can maintain high ratio of local assignment (70%), for small
// type, the ratio is reduced to a very low level (35%). Whereas TD ... a
// high ratio"; the bars themselves are not in the text.
var tdPaperLocal = map[string]map[string]string{
	"Fair": {"small": "~35", "mix": "-", "large": "~70"},
	"FIFO": {"small": "~35", "mix": "-", "large": "~70"},
	"TD":   {"small": "high", "mix": "high", "large": "high"},
}

// runTDQueues is section V-A at the default 200 GB: for each queue type and
// scheduler, the queue's completion time (Fig. 7 at 200 GB), the ratio of
// node-local map launches (Fig. 8) and hotspot occurrences per fifth of
// the run (Table I, probe.HotWatch's definition for all three schedulers), each
// averaged over Options.Seeds queues (default 5; the paper repeated 3 times).
func runTDQueues(o Options) (*Result, error) {
	g, err := tdGrid(o, tdScenarios(), tdPolicies, true, false)
	if err != nil {
		return nil, err
	}
	type R = harness.Cell
	queue := func(r R) string { return TDQueueTypes[r.S].Name }
	label := func(r R) string { return tdPolicies[r.P].Label }
	jobs := g.Over(func(x *tdOut) float64 { return float64(x.jobs) })
	comp := g.Over(func(x *tdOut) float64 { return x.completionS })
	cols := []harness.Column[R]{
		harness.Key("queue", "queue", queue),
		harness.Key("scheduler", "scheduler", label),
		harness.SeedsCol[R]("queues", g.Seeds),
		harness.Both("jobs", func(r R) string { return jobs(r).Text(0) }, "jobs", func(r R) string { return harness.Num(jobs(r).Mean(), 1) }),
		harness.Spread("completion (s)", "completion_s", 0, 1, comp),
		harness.Number("vs TD", "completion_vs_td", 2, 3, func(r R) float64 { return comp(r).Mean() / comp(R{S: r.S, P: g.Pols - 1}).Mean() }),
		harness.Percent("local %", "local_pct", 1, g.Over(func(x *tdOut) float64 { return x.localRatio })),
		harness.Paper("paper", "paper_local_pct", func(r R) string { return tdPaperLocal[label(r)][queue(r)] }),
	}
	for k, h := range []string{"hot 1-20%", "21-40%", "41-60%", "61-80%", "81-100%"} {
		st := g.Over(func(x *tdOut) float64 { return float64(x.hot[k]) })
		cols = append(cols, harness.Both(h, func(r R) string { return st(r).Text(1) },
			fmt.Sprintf("hot_stage%d", k+1), func(r R) string { return harness.Num(st(r).Mean(), 2) }))
	}
	own := g.Known(func(x *tdOut) float64 {
		if x.td == nil {
			return math.NaN()
		}
		return float64(x.td.Hotspots)
	})
	cols = append(cols,
		harness.Spread("hotspots", "hotspots", 1, 2, g.Over(func(x *tdOut) float64 { return x.hotspots() })),
		harness.Column[R]{Head: "paper (Table I)", Text: func(r R) string { return tdPaperHot[label(r)][queue(r)][5] },
			CSV:   []string{"paper_hot_stage1", "paper_hot_stage2", "paper_hot_stage3", "paper_hot_stage4", "paper_hot_stage5", "paper_hotspots"},
			Cells: func(r R) []string { h := tdPaperHot[label(r)][queue(r)]; return h[:] }},
		harness.Shown("TD's own count", func(r R) string { return own(r).Text(1) }),
	)
	return harness.Table[R]{
		Title: fmt.Sprintf("td/queues: 200 GB queues on 50 slaves x (2 map + 2 reduce slots), 64 MB splits, %d queues each (paper section V-A, Fig. 7-8, Table I)", g.Seeds),
		Cols:  cols,
		Notes: []string{
			"completion: last job's finish - submission of the queue (all jobs at 0). local %: node-local map launches / all.",
			"hot: hotspot occurrences per fifth of the run: a node's concurrent non-local reads rising above 4 (TD's θ). For",
			"FIFO and Fair the replica read is the engine's (nearest, random among equal; one rack, so any replica), made",
			"visible by a wrapper; TD's own count (sched.TDStats) uses the same definition and must agree with ours.",
			"Mean (min-max) over queues. Paper: TD's completion is \"significantly shorter\", more so for small jobs;",
			"Fair/FIFO local ratio ~70% (large) and ~35% (small), TD high on all; hotspots Table I (3 runs).",
		},
	}.Result(g.Cells()), nil
}

// ---------------------------------------------------------------------
// td/data-size

// tdSizes are Fig. 7's data sizes, 1 to 3 x 100 GB.
var tdSizes = []float64{100, 150, 200, 250, 300}

// runTDDataSize is Fig. 7: queue completion time of each scheduler against
// the queue's input, 100 to 300 GB, for each queue type, averaged over
// Options.Seeds queues (default 3: 135 simulations). The paper plots
// completion time in units of 100 s and gives no values in its text; it
// reports only the direction (TD shortest at every size, Fair and FIFO
// slower the more small jobs a queue has).
func runTDDataSize(o Options) (*Result, error) {
	var sizes []tdScenario
	for _, qt := range TDQueueTypes {
		for _, gb := range tdSizes {
			sizes = append(sizes, tdScenario{qt: qt, gb: gb})
		}
	}
	g, err := tdGrid(o, sizes, tdPolicies, true, false)
	if err != nil {
		return nil, err
	}
	type R = harness.Cell
	comp := func(r R, p int) harness.Stat {
		return g.Sample(r.S, p, false, func(x *tdOut) float64 { return x.completionS })
	}
	cols := []harness.Column[R]{
		harness.Key("queue", "queue", func(r R) string { return sizes[r.S].qt.Name }),
		harness.Key("data (GB)", "data_gb", func(r R) string { return harness.Num(sizes[r.S].gb, 0) }),
		harness.SeedsCol[R]("queues", g.Seeds),
	}
	for pi, p := range tdPolicies {
		cols = append(cols, harness.Spread(p.Label, strings.ToLower(p.Label)+"_s", 0, 1, func(r R) harness.Stat { return comp(r, pi) }))
	}
	cols = append(cols,
		harness.Number("FIFO / TD", "fifo_vs_td", 2, 3, func(r R) float64 { return comp(r, 0).Mean() / comp(r, 2).Mean() }),
		harness.Number("Fair / TD", "fair_vs_td", 2, 3, func(r R) float64 { return comp(r, 1).Mean() / comp(r, 2).Mean() }),
		harness.Shown("paper", func(R) string { return "TD < FIFO, Fair" }))
	return harness.Table[R]{
		Title: fmt.Sprintf("td/data-size: queue completion time (s) against data size on 50 slaves, %d queue(s) per point (paper section V-A, Fig. 7)", g.Seeds),
		Cols:  cols,
		Notes: []string{
			"completion: last job's finish - queue submission. Paper (Fig. 7, values only plotted, 2-16 x 100 s): TD's",
			"completion is shorter than FIFO's and Fair's at every size; the more small jobs, the slower Fair and FIFO.",
		},
	}.Result(g.Scenarios()), nil
}

// ---------------------------------------------------------------------
// td/bounds

// tdLs and tdHs are Fig. 9's sweeps; the other bound stays at its default.
// tdPaperLs and tdPaperHs are what the text says of each point.
var (
	tdLs      = []float64{0.5, 0.6, 0.7, 0.8, 0.9}
	tdHs      = []float64{1.1, 1.2, 1.3, 1.4, 1.5}
	tdPaperLs = []string{"little change", "little change", "best", "slower (\"reduce signally\")", "slower (\"reduce signally\")"}
	tdPaperHs = []string{"slower", "slower", "best", "slower (sticky slots)", "slower (sticky slots)"}
)

// runTDBounds is Fig. 9: TD's queue completion time on 200 GB queues
// against L (H = 1.3) and against H (L = 0.7), for each queue type,
// averaged over Options.Seeds queues (default 3: 90 simulations,
// the defaults' point run in both sweeps). It also reports TD's stray above H x
// demand (slot-seconds, sched.TDJobStats.AboveHSlotS summed over jobs) and
// formula (1)'s violations, the paper's explanation for H's optimum
// ("sticky slots"). The paper's queue for the H sweep has every demand
// <= 35, so H < 1.56; TD's default demand, min(maps, 35), is that.
func runTDBounds(o Options) (*Result, error) { return runTDBoundsOn(o) }

// runTDBoundsCostly is td/bounds on td/diagnose's "both" set-up, where a
// non-local read costs what the paper says it does.
func runTDBoundsCostly(o Options) (*Result, error) { return runTDBoundsOn(o, tdVariants[3]) }

// runTDBoundsOn is td/bounds on the set-up given, if any.
func runTDBoundsOn(o Options, setup ...tdRegime) (*Result, error) {
	type point struct {
		sweep, paper string
		l, h         float64
	}
	var pts []point
	for i, l := range tdLs {
		pts = append(pts, point{"L", tdPaperLs[i], l, sched.DefaultTDH})
	}
	for i, h := range tdHs {
		pts = append(pts, point{"H", tdPaperHs[i], sched.DefaultTDL, h})
	}
	pols := make([]harness.PolicySpec, len(pts))
	for pi, pt := range pts {
		pols[pi] = harness.PolicySpec{Label: fmt.Sprintf("TD L=%.1f H=%.1f", pt.l, pt.h), Name: "td",
			Params: map[string]any{"l": pt.l, "h": pt.h}}
	}
	g, err := tdGrid(o, tdScenarios(setup...), pols, true, false)
	if err != nil {
		return nil, err
	}
	name, on := "td/bounds", ""
	for _, v := range setup {
		name, on = "td/bounds-costly", ", set-up \""+v.name+"\" ("+v.why+")"
	}
	type R = harness.Cell
	def := slices.IndexFunc(pts, func(p point) bool { return p.l == sched.DefaultTDL && p.h == sched.DefaultTDH })
	pt := func(r R) point { return pts[r.P] }
	comp := g.Over(func(x *tdOut) float64 { return x.completionS })
	loc := g.Over(func(x *tdOut) float64 { return x.localRatio })
	above := g.Over(func(x *tdOut) float64 {
		a := 0.0
		for _, j := range x.td.Jobs {
			a += j.AboveHSlotS
		}
		return a
	})
	viol := g.Over(func(x *tdOut) float64 { return float64(x.td.HViolations) })
	// adult reads a share of adult job-time, left out of runs with none.
	adult := func(v func(*tdOut) float64) func(R) harness.Stat {
		return g.Known(func(x *tdOut) float64 {
			if x.adultS > 0 {
				return v(x)
			}
			return math.NaN()
		})
	}
	mean := func(head, csv string, tprec, cprec int, scale float64, v func(R) harness.Stat) harness.Column[R] {
		return harness.Number(head, csv, tprec, cprec, func(r R) float64 { return scale * v(r).Mean() })
	}
	return harness.Table[R]{
		Title: fmt.Sprintf("%s: TD's queue completion time (s) against L and H, 200 GB queues%s, %d queue(s) per point (paper section V-B, Fig. 9)", name, on, g.Seeds),
		Cols: []harness.Column[R]{
			harness.Key("sweep", "sweep", func(r R) string { return pt(r).sweep }),
			harness.Both("L", func(r R) string { return harness.Num(pt(r).l, 1) }, "l", func(r R) string { return harness.Num(pt(r).l, 2) }),
			harness.Both("H", func(r R) string { return harness.Num(pt(r).h, 1) }, "h", func(r R) string { return harness.Num(pt(r).h, 2) }),
			harness.Key("queue", "queue", func(r R) string { return TDQueueTypes[r.S].Name }),
			harness.SeedsCol[R]("queues", g.Seeds),
			harness.Spread("completion (s)", "completion_s", 0, 1, comp),
			harness.Number("vs default", "vs_default", 3, 4, func(r R) float64 { return comp(r).Mean() / comp(R{S: r.S, P: def}).Mean() }),
			harness.Both("local %", func(r R) string { return loc(r).Pct() }, "local_pct", func(r R) string { return harness.Num(100*loc(r).Mean(), 2) }),
			mean("adult time below L %", "adult_below_l_pct", 1, 2, 100, adult(func(x *tdOut) float64 { return x.belowL })),
			mean("adult time at H %", "adult_at_h_pct", 0, 2, 100, adult(func(x *tdOut) float64 { return x.atH })),
			mean("sticky %", "sticky_pct", 1, 2, 100, g.Over(func(x *tdOut) float64 { return x.sticky })),
			mean("TD idle offers", "idle_offers", 0, 1, 1, g.Over(func(x *tdOut) float64 { return float64(x.td.IdleOffers) })),
			harness.Both("above-H slot-s", func(r R) string { return above(r).Text(0) }, "above_h_slot_s", func(r R) string { return harness.Num(above(r).Mean(), 1) }),
			harness.Both("formula (1) violations", func(r R) string { return viol(r).Text(1) }, "h_violations", func(r R) string { return harness.Num(viol(r).Mean(), 2) }),
			harness.Shown("paper", func(r R) string { return pt(r).paper }),
		},
		Notes: []string{
			"L sweep at H = 1.3, H sweep at L = 0.7 (the defaults, row marked best). vs default: completion / completion at",
			"L = 0.7, H = 1.3 on the same queue. adult time below L / at H: share of adult job-time with occupied < L x demand (a",
			"freed slot comes back, Algorithm 1 line 2) / occupied >= H x demand (Algorithm 2 skips the job): how often each bound",
			"binds. sticky: map launches by line 2. TD idle offers: map slots TD declined while a co-scheduled job had maps left.",
			"above-H slot-s: time-integral of jobs' occupied maps above H x demand while adult.",
			"Paper (Fig. 9, plotted only, 5-8.5 x 100 s): L > 0.7 costs throughput markedly, L < 0.7 little;",
			"H = 1.3 best, H > 1.3 slower because of sticky slots.",
		},
	}.Result(g.Cells()), nil
}
