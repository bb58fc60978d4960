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
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/experiment/harness"
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
		Plot:    tdMapPlot},
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
	r := rng(c.Seed, 0x7464717565756573) // "tdqueues"
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
		j := newJob(id, fmt.Sprintf("td-%s-s%d-j%d", t.Name, c.Seed, id), id, 0, c.BlockBytes, shape{
			maps: m, mapS: float64(c.BlockBytes) / (k.MapMiBps * (1 << 20)), reduces: red,
			shuffleRatio: k.ShuffleRatio, outputRatio: k.OutputRatio,
		})
		j.Kind = k.Name
		j.Profile.ReduceSecPerByte = 1 / (k.ReduceMiBps * (1 << 20))
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// ---------------------------------------------------------------------
// Hotspots as one measure for every scheduler

// hotWatch wraps a policy and counts hotspot occurrences with TD's own
// definition (sched.TDStats): a node's concurrent non-local reads (maps
// reading their block from it on another node, launch to end) rising
// above the threshold, sched.DefaultTDConnectionLimit (4, TD's θ).
//
// FIFO and Fair leave the replica to the engine, which reads the nearest,
// a random one among equally near ones (HDFS's rule). The engine does not
// report its choice, so the wrapper makes it: for a non-local map without
// a Source it picks the nearest replica, uniformly at random among equally
// near ones (its own stream, keyed by the run's seed), and sets
// Decision.Source. That is the engine's rule, so the run is the same in
// distribution as without the wrapper, and the counted sources are the
// ones read. On a cluster with cluster.Hadoop020's replica order
// (td/regime) it draws by that order instead, as the engine would. TD sets
// Source itself and is only observed.
type hotWatch struct {
	harness.PassThrough
	thr int32
	rnd *rand.Rand

	reads []int32
	runs  harness.MapRuns[hwRead]
	times []float64 // hotspot occurrences
	buf   []cluster.NodeID
}

// hwRead is where a map attempt reads: the source node, and whether it is
// another node.
type hwRead struct {
	src    cluster.NodeID
	remote bool
}

func newHotWatch(inner sched.Policy, thr int, seed uint64) *hotWatch {
	h := &hotWatch{PassThrough: harness.PassTo(inner), thr: int32(thr), rnd: rng(seed, 0x686f74)} // "hot"
	return h
}

func (h *hotWatch) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	if h.reads == nil {
		nn := c.Topology().NumNodes()
		h.reads = make([]int32, nn)
	}
	h.runs.Forget()
	d, ok := h.Inner.Assign(c, o)
	if !ok || d.Kind != sched.MapTask {
		return d, ok
	}
	reps := d.Job.Input.BlockReplicas(d.Map)
	if !d.SourceSet {
		t := c.Topology()
		if t.Config().ReplicaChoice == cluster.Hadoop020 {
			// Hadoop 0.20's order (td/regime): the engine's rule for
			// that choice, drawn from this wrapper's stream.
			d.Source = cluster.ReadReplica(t, reps, o.Node, nil, h.rnd)
		} else {
			d.Source = h.nearest(t, reps, o.Node)
		}
		d.SourceSet = true
	}
	h.runs.Decided(d.Job, d.Map, o.Node, hwRead{src: d.Source, remote: d.Source != o.Node})
	return d, true
}

// nearest is the engine's replica rule: the node itself, else the nearest
// replicas, one at random.
func (h *hotWatch) nearest(t *cluster.Topology, reps []cluster.NodeID, n cluster.NodeID) cluster.NodeID {
	if slices.Contains(reps, n) {
		return n
	}
	best := cluster.Reach(math.MaxInt8)
	h.buf = h.buf[:0]
	for _, r := range reps {
		switch reach := t.ReachOf(r, n); {
		case reach < best:
			best = reach
			h.buf = append(h.buf[:0], r)
		case reach == best:
			h.buf = append(h.buf, r)
		}
	}
	return h.buf[h.rnd.IntN(len(h.buf))]
}

func (h *hotWatch) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	h.PassThrough.TaskLaunched(c, j, k, n)
	if k != sched.MapTask || h.reads == nil {
		return
	}
	r := h.runs.Launched(c, j, n, hwRead{src: n}).Note
	if r.remote {
		h.reads[r.src]++
		if h.reads[r.src] == h.thr+1 {
			h.times = append(h.times, c.Now())
		}
	}
}

func (h *hotWatch) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	h.PassThrough.TaskEnded(c, j, k, n, killed)
	if k != sched.MapTask || h.reads == nil {
		return
	}
	// Attempts that read alike count alike: which of them ended does not
	// matter.
	if r, ok := h.runs.Ended(c, j, n, func(a, b hwRead) bool { return a == b }, false); ok && r.Note.remote {
		h.reads[r.Note.src]--
	}
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

// tdSim is one simulation of a queue.
type tdSim struct {
	jobs    []workload.Job
	policy  harness.PolicySpec
	seed    uint64
	variant *tdVariant // nil: the E4 cluster as is
	regime  *tdRegime  // nil: td/queues' cluster and engine (td_regime.go)
}

// cluster is the run's cluster: E4's, changed by the variant if any.
func (r tdSim) cluster() cluster.Config {
	c := tdCluster()
	if r.variant != nil {
		r.variant.cluster(&c)
	}
	if r.regime != nil {
		r.regime.apply(&c)
	}
	return c
}

// tdOut is what the TD experiments keep of a simulation: the summary's
// measures, hotWatch's hotspots when it watched, TD's own counts under
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
	// with none), the share of remote maps, completion - last map end,
	// map offers declined while maps waited.
	lowerS, probeLocal, util, idleShare, idleLastShare float64
	stretchL, stretchR, remoteShare, tailS             float64
	declines                                           int
}

// simulate builds r's cluster and policy, runs r's jobs under the policy
// as wrap returns it (wrapped in an observer of its decisions), and
// returns the finished run. label names the run in an error.
func (r tdSim) simulate(label string, wrap func(sched.Policy) sched.Policy) (*scenario.Result, error) {
	run := harness.Run{Setup: harness.Setup{Cluster: r.cluster(), Seed: r.seed}, Jobs: r.jobs, Policy: r.policy}
	// Zero engine parameters: the engine's defaults, as td/queues runs.
	if r.regime != nil {
		run.Setup.Engine = r.regime.engine()
	}
	run.Probe = func(p sched.Policy, _ *cluster.Topology) sched.Policy {
		p = wrap(p)
		if r.regime != nil && r.regime.heartbeatOnly {
			p = newHeartbeatOnly(p, run.Setup.Engine.WithDefaults().HeartbeatS)
		}
		return p
	}
	res, err := run.Simulate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return res, nil
}

// run simulates r with its policy watched as the experiment needs: hot
// counts hotspots (hotWatch, which also picks the replica the engine
// would), probe adds td/diagnose's tdProbe around it. what names the run
// in an error, which a run that leaves a job unfinished is too.
func (r tdSim) run(what string, hot, probe bool) (*tdOut, error) {
	var inner sched.Policy
	var w *hotWatch
	var pr *tdProbe
	res, err := r.simulate(what, func(p sched.Policy) sched.Policy {
		inner = p
		if hot {
			w = newHotWatch(p, sched.DefaultTDConnectionLimit, r.seed)
			p = w
		}
		if probe {
			pr = newTDProbe(p)
			p = pr
		}
		return p
	})
	if err != nil {
		return nil, err
	}
	sum := res.Summary
	out := &tdOut{completionS: sum.MakespanS, finished: sum.JobsCompleted, jobs: len(r.jobs), localRatio: nodeLocalShare(res.Collector.Jobs()),
		meanTurnaroundS: sum.Turnaround.Mean, crossRackGB: sum.Bytes.CrossRackTotal / 1e9}
	if out.finished != out.jobs {
		return nil, fmt.Errorf("%s: %d of %d jobs finished", what, out.finished, out.jobs)
	}
	if tb := sum.TimeBreakdown; tb != nil {
		out.heldS, out.queuedS = tb.MeanS[critpath.Held.String()], tb.MeanS[critpath.Queued.String()]
	}
	if w != nil {
		for _, t := range w.times {
			k := 0
			if out.completionS > 0 {
				k = min(4, max(0, int(5*t/out.completionS)))
			}
			out.hot[k]++
		}
	}
	if pr != nil {
		cpu := 0.0
		for i := range r.jobs {
			cpu += r.jobs[i].Profile.MapSecPerByte * float64(r.jobs[i].InputBytes)
		}
		out.lowerS = cpu / float64(pr.T)
		out.tailS, out.declines = sum.MakespanS-pr.lastMapEnd, pr.declines
		if span := float64(pr.T) * pr.lastMapEnd; span > 0 {
			out.util, out.idleShare, out.idleLastShare = pr.busySlotS/span, pr.idleSlotS/span, pr.idleLastS/span
		}
		out.stretchL, out.stretchR = pr.stretch[0].Mean(), pr.stretch[1].Mean()
		if maps := pr.stretch[0].N + pr.stretch[1].N; maps > 0 {
			out.remoteShare = float64(pr.stretch[1].N) / float64(maps)
			out.probeLocal = 1 - out.remoteShare
		}
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

// nodeLocalShare is the engine's count of node-local map launches over
// all of them, 0 with none.
func nodeLocalShare(jobs []metrics.JobRecord) float64 {
	var local, all int
	for _, j := range jobs {
		local += j.Locality[cluster.NodeLocal]
		all += j.Locality[0] + j.Locality[1] + j.Locality[2]
	}
	if all == 0 {
		return 0
	}
	return float64(local) / float64(all)
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

// tdQueues declares td's scenarios: a queue of a type, gb GB and a seed,
// drawn once and run by each policy through run (runGrid).
func tdQueues[O any](gb float64, run func(tdSim) (O, error)) func(TDQueueType, uint64) (func(harness.PolicySpec) (O, error), error) {
	return func(qt TDQueueType, seed uint64) (func(harness.PolicySpec) (O, error), error) {
		jobs, err := tdQueue(qt, gb, seed)
		if err != nil {
			return nil, err
		}
		return func(p harness.PolicySpec) (O, error) { return run(tdSim{jobs: jobs, policy: p, seed: seed}) }, nil
	}
}

// tdSetsGrid runs section V's schedulers on 200 GB queues of every type
// under each of n set-ups (td/diagnose's variants, td/regime's regimes):
// set-up i's queue of type t is scenario i x len(TDQueueTypes) + t.
func tdSetsGrid[O any](o Options, n int, run func(r tdSim, set int) (O, error)) (harness.Grid[O], error) {
	type setup struct {
		set int
		qt  TDQueueType
	}
	var setups []setup
	for i := range n {
		for _, qt := range TDQueueTypes {
			setups = append(setups, setup{i, qt})
		}
	}
	return harness.RunGrid(o, setups, tdPolicies, func(s setup, seed uint64) (func(harness.PolicySpec) (O, error), error) {
		return tdQueues(200, func(r tdSim) (O, error) { return run(r, s.set) })(s.qt, seed)
	})
}

// tdQueueOf is tdQueues run on E4's cluster changed by v (nil: as is),
// with hotspots counted.
func tdQueueOf(gb float64, v *tdVariant) func(TDQueueType, uint64) (func(harness.PolicySpec) (*tdOut, error), error) {
	return tdQueues(gb, func(s tdSim) (*tdOut, error) {
		s.variant = v
		return s.run(s.policy.Label, true, false)
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
// the run (Table I, hotWatch's definition for all three schedulers), each
// averaged over Options.Seeds queues (default 5; the paper repeated 3 times).
func runTDQueues(o Options) (*Result, error) {
	g, err := harness.RunGrid(o, TDQueueTypes, tdPolicies, tdQueueOf(200, nil))
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
		harness.Spread("hotspots", "hotspots", 1, 2, g.Over(func(x *tdOut) float64 { return float64(x.hot[0] + x.hot[1] + x.hot[2] + x.hot[3] + x.hot[4]) })),
		harness.Column[R]{Head: "paper (Table I)", Text: func(r R) string { return tdPaperHot[label(r)][queue(r)][5] },
			CSV:   []string{"paper_hot_stage1", "paper_hot_stage2", "paper_hot_stage3", "paper_hot_stage4", "paper_hot_stage5", "paper_hotspots"},
			Cells: func(r R) []string { h := tdPaperHot[label(r)][queue(r)]; return h[:] }},
		harness.Shown("TD's own count", func(r R) string {
			if own(r).N == 0 {
				return "-"
			}
			return own(r).Text(1)
		}),
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
	type size struct {
		qt TDQueueType
		gb float64
	}
	var sizes []size
	for _, qt := range TDQueueTypes {
		for _, gb := range tdSizes {
			sizes = append(sizes, size{qt, gb})
		}
	}
	g, err := harness.RunGrid(o, sizes, tdPolicies, func(sz size, seed uint64) (func(harness.PolicySpec) (*tdOut, error), error) {
		return tdQueueOf(sz.gb, nil)(sz.qt, seed)
	})
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
	var rows []R
	for zi := range sizes {
		rows = append(rows, R{S: zi})
	}
	return harness.Table[R]{
		Title: fmt.Sprintf("td/data-size: queue completion time (s) against data size on 50 slaves, %d queue(s) per point (paper section V-A, Fig. 7)", g.Seeds),
		Cols:  cols,
		Notes: []string{
			"completion: last job's finish - queue submission. Paper (Fig. 7, values only plotted, 2-16 x 100 s): TD's",
			"completion is shorter than FIFO's and Fair's at every size; the more small jobs, the slower Fair and FIFO.",
		},
	}.Result(rows), nil
}

// ---------------------------------------------------------------------
// td/bounds

// tdLs and tdHs are Fig. 9's sweeps; the other bound stays at its default.
var (
	tdLs = []float64{0.5, 0.6, 0.7, 0.8, 0.9}
	tdHs = []float64{1.1, 1.2, 1.3, 1.4, 1.5}
)

// runTDBounds is Fig. 9: TD's queue completion time on 200 GB queues
// against L (H = 1.3) and against H (L = 0.7), for each queue type,
// averaged over Options.Seeds queues (default 3: 90 simulations,
// the defaults' point run in both sweeps). It also reports TD's stray above H x
// demand (slot-seconds, sched.TDJobStats.AboveHSlotS summed over jobs) and
// formula (1)'s violations, the paper's explanation for H's optimum
// ("sticky slots"). The paper's queue for the H sweep has every demand
// <= 35, so H < 1.56; TD's default demand, min(maps, 35), is that.
func runTDBounds(o Options) (*Result, error) { return runTDBoundsOn(o, nil) }

// runTDBoundsCostly is td/bounds on td/diagnose's "both" set-up, where a
// non-local read costs what the paper says it does.
func runTDBoundsCostly(o Options) (*Result, error) { return runTDBoundsOn(o, &tdVariants[3]) }

func runTDBoundsOn(o Options, v *tdVariant) (*Result, error) {
	type point struct {
		sweep string
		l, h  float64
	}
	var pts []point
	for _, l := range tdLs {
		pts = append(pts, point{"L", l, sched.DefaultTDH})
	}
	for _, h := range tdHs {
		pts = append(pts, point{"H", sched.DefaultTDL, h})
	}
	pols := make([]harness.PolicySpec, len(pts))
	for pi, pt := range pts {
		pols[pi] = harness.PolicySpec{Label: fmt.Sprintf("TD L=%.1f H=%.1f", pt.l, pt.h), Name: "td",
			Params: map[string]any{"l": pt.l, "h": pt.h}}
	}
	g, err := harness.RunGrid(o, TDQueueTypes, pols, tdQueueOf(200, v))
	if err != nil {
		return nil, err
	}
	name, setup := "td/bounds", ""
	if v != nil {
		name, setup = "td/bounds-costly", ", set-up \""+v.name+"\" ("+v.why+")"
	}
	paper := func(pt point) string {
		switch {
		case pt.sweep == "L" && pt.l > 0.7:
			return "slower (\"reduce signally\")"
		case pt.sweep == "L" && pt.l < 0.7:
			return "little change"
		case pt.sweep == "H" && pt.h > 1.3:
			return "slower (sticky slots)"
		case pt.sweep == "H" && pt.h < 1.3:
			return "slower"
		}
		return "best"
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
		Title: fmt.Sprintf("%s: TD's queue completion time (s) against L and H, 200 GB queues%s, %d queue(s) per point (paper section V-B, Fig. 9)", name, setup, g.Seeds),
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
			harness.Shown("paper", func(r R) string { return paper(pt(r)) }),
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
