package experiment

// The Fair Scheduler paper's delay-scheduling microbenchmarks (section
// 6.2.1, 6.2.2, 6.2.4).

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/workload"
)

// ---------------------------------------------------------------------
// fair-delay/small-jobs

// SmallJobs is one workload of the small-jobs experiment: Jobs scans of
// Maps maps each, submitted together.
type SmallJobs struct {
	Maps int // 3, 10 or 100
	Jobs int
}

// smallJobsWorkS sizes the small-jobs workloads. The paper ran "varying
// numbers of jobs based on the job size so as to take 10-20 minutes in
// total" and measured the workload's running time (Fig. 12); it says
// neither how many jobs nor how they arrived. We submit each workload as
// one batch at time 0 (a scheduler always has the rest of the batch to
// choose from, and the running time measures throughput, not arrivals),
// with as many jobs as keep the cluster's map slots busy for 10 minutes at
// the local scan speed: jobs = 600 s x map slots / (maps x 9 s).
const (
	smallJobsWorkS  = 600.0
	smallJobsDelayT = 15.0 // T1 = T2 = 15 s (section 6.2.1)
)

// SmallJobsWorkloads returns the three workloads for a cluster with
// mapSlots map slots.
func SmallJobsWorkloads(mapSlots int) []SmallJobs {
	var out []SmallJobs
	for _, m := range []int{3, 10, 100} {
		n := int(math.Round(smallJobsWorkS * float64(mapSlots) / (ScanMapS * float64(m))))
		out = append(out, SmallJobs{Maps: m, Jobs: max(1, n)})
	}
	return out
}

// closedLoopJobs lays out workers' jobs in rounds (round k holds every
// worker's k-th job), all submitted to the engine at time 0 for the gate to
// release; mk builds job id, the k-th of worker w.
func closedLoopJobs(perWorker []int, mk func(id, w, k int) workload.Job) ([]workload.Job, *workerPlan) {
	var jobs []workload.Job
	plan := &workerPlan{}
	most := 0
	for _, n := range perWorker {
		most = max(most, n)
	}
	for k := range most {
		for w, n := range perWorker {
			if k < n {
				jobs = append(jobs, mk(len(jobs), w, k))
				plan.owner = append(plan.owner, w)
			}
		}
	}
	return jobs, plan
}

// The small-jobs schedulers. The paper "compared fair sharing and FIFO with
// and without delay scheduling (T1 = T2 = 15 s). FIFO performed the same as
// fair sharing, so we only show two bars." We run FIFO: with thousands of
// queued 3-map jobs (one pool each), fair sharing's per-offer ordering
// would dominate the run time while, by the paper's account, changing
// nothing.
var smallJobsPolicies = []PolicySpec{
	{Label: "FIFO", Name: "fifo"},
	{Label: "FIFO + delay", Name: "fifo-delay", Params: map[string]any{"t1_s": smallJobsDelayT, "t2_s": smallJobsDelayT}},
}

// smallJobsPaper is Table 3 and the text's throughput gains.
var smallJobsPaper = map[int][2]struct{ node, rack, gain string }{
	3:   {{"2", "50", "1"}, {"75", "96", "1.2"}},
	10:  {{"37", "98", "1"}, {"99", "100", "1.7"}},
	100: {{"84", "99", "1"}, {"94", "99", "1.3"}},
}

// runSmallJobs is section 6.2.1: map-only scan jobs of 3, 10 and 100 maps
// (128 MB blocks, each job its own file, keeping 0.5% of the records) on the
// small private cluster (privateCluster: 100 nodes in 4 racks, 6 map
// slots), with and without delay scheduling (T1 = T2 = 15 s). Workloads:
// SmallJobsWorkloads. Throughput gain is the workload's running time
// without delay scheduling over its time with it.
func runSmallJobs(o Options) (*Result, error) {
	cl := privateCluster()
	cfg := cl.WithDefaults()
	block := cfg.BlockBytes()
	wls := SmallJobsWorkloads(cfg.Racks * cfg.NodesPerRack * cfg.MapSlots)
	pols := smallJobsPolicies
	seeds := o.seeds()
	var runs []simRun
	for _, seed := range seeds {
		for _, wl := range wls {
			jobs := make([]workload.Job, wl.Jobs)
			for i := range jobs {
				jobs[i] = scanJob(i, fmt.Sprintf("small%d-s%d-j%d", wl.Maps, seed, i), i, 0, wl.Maps, block, ScanMapS)
			}
			for _, p := range pols {
				runs = append(runs, simRun{setup: Setup{Cluster: cl, Seed: seed}, jobs: jobs, policy: p})
			}
		}
	}
	outs, err := runAll(o, runs)
	if err != nil {
		return nil, err
	}
	type cell struct{ node, rack, time, gain stat }
	res := make([][]cell, len(wls))
	for i := range res {
		res[i] = make([]cell, len(pols))
	}
	k := 0
	for range seeds {
		for wi := range wls {
			var times []float64
			for pi := range pols {
				s := outs[k].summary
				k++
				c := &res[wi][pi]
				c.node.add(s.Locality.Node)
				c.rack.add(s.Locality.Node + s.Locality.Rack)
				c.time.add(s.MakespanS)
				times = append(times, s.MakespanS)
			}
			for pi := range pols {
				res[wi][pi].gain.add(times[0] / times[pi])
			}
		}
	}
	t := &report.Table{
		Title: fmt.Sprintf("fair-delay/small-jobs: batches of scan jobs on 100 nodes in 4 racks x 6 map slots, with and without delay scheduling (T1 = T2 = 15 s), %d seeds (paper section 6.2.1, Table 3, Fig. 12)", len(seeds)),
		Headers: []string{"maps", "jobs", "scheduler", "node-local %", "paper", "rack-local % (incl. node)", "paper",
			"workload time (s)", "throughput gain", "paper"},
	}
	c := &report.Table{Headers: row("maps", "jobs", "scheduler", "seeds",
		[]string{"node_local_pct", "node_local_pct_min", "node_local_pct_max"}, "paper_node_local_pct",
		[]string{"rack_local_pct", "rack_local_pct_min", "rack_local_pct_max"}, "paper_rack_local_pct",
		[]string{"time_s", "time_s_min", "time_s_max"},
		[]string{"throughput_gain", "throughput_gain_min", "throughput_gain_max"}, "paper_throughput_gain")}
	for wi, wl := range wls {
		for pi, p := range pols {
			r := &res[wi][pi]
			pp := smallJobsPaper[wl.Maps][pi]
			t.AddRow(fmt.Sprint(wl.Maps), fmt.Sprint(wl.Jobs), p.Label,
				r.node.pct(), pp.node, r.rack.pct(), pp.rack, r.time.text(0), r.gain.text(2), pp.gain)
			c.AddRow(row(fmt.Sprint(wl.Maps), fmt.Sprint(wl.Jobs), p.Label, fmt.Sprint(len(seeds)),
				r.node.scale(100).csv(1), pp.node, r.rack.scale(100).csv(1), pp.rack, r.time.csv(1), r.gain.csv(3), pp.gain)...)
		}
	}
	t.Notes = []string{
		"each workload is one batch submitted at time 0; workload time: last finish. Locality: fraction of map launches.",
		"throughput gain: workload time without delay scheduling / with it. The paper's bars are fair sharing; it found",
		"FIFO the same. Paper: delay scheduling raised throughput 1.2x (3 maps), 1.7x (10), 1.3x (100); the 3-map gain",
		"is held down by Hadoop's job initialisation, which mrsched does not model.",
	}
	return &Result{Table: t, CSV: c}, nil
}

// ---------------------------------------------------------------------
// fair-delay/sticky-slots

// stickyDataBlocks is the section 6.2.2 data set: 180 GB in 128 MB blocks.
const stickyDataBlocks = 180 * 1024 / 128

// stickyDelay is delay scheduling with T1 = 10 s (section 6.2.2). On the
// one-rack EC2 model every remote map is rack-local, so T2 never applies.
var stickyDelay = PolicySpec{Label: "fair + delay", Name: "delay", Params: map[string]any{"t1_s": 10.0}}

// stickyPaper is the text of section 6.2.2: throughput gains at 10, 20 and
// 50 jobs, locality without delay falling from 90% to 27% as jobs go from 5
// to 50, and 99-100% with delay.
var stickyPaper = map[int][2]struct{ node, gain string }{
	5:  {{"90", "1"}, {"99-100", "-"}},
	10: {{"-", "1"}, {"99-100", "1.1"}},
	20: {{"-", "1"}, {"99-100", "1.6"}},
	50: {{"27", "1"}, {"99-100", "2"}},
}

// runStickySlots is section 6.2.2: N = 5, 10, 20, 50 concurrent scan jobs
// submitted together on EC2 (ec2Cluster), under fair sharing with and
// without delay scheduling (T1 = 10 s). The data set is 180 GB (1,440
// blocks of 128 MB); every job scans all of it, i.e. the jobs share one
// input file. (The paper says jobs ran "on" the data set; full scans are
// what make its reported locality fall from 90% at 5 jobs to 27% at 50:
// with N jobs sharing 400 slots, a job sits on about 400/N sticky slots
// and finds local blocks there for only a fraction of its scan.) mrsched
// has no commit-pending counting bug, so slots stick as in the paper's
// fixed Hadoop. Throughput gain: time to finish all jobs without delay over
// with it.
func runStickySlots(o Options) (*Result, error) {
	counts := []int{5, 10, 20, 50}
	pols := []PolicySpec{polFair, stickyDelay}
	cl := ec2Cluster()
	block := cl.WithDefaults().BlockBytes()
	seeds := o.seeds()
	var runs []simRun
	for _, seed := range seeds {
		for _, n := range counts {
			jobs := make([]workload.Job, n)
			for i := range jobs {
				jobs[i] = scanJob(i, "sticky-dataset", i, 0, stickyDataBlocks, block, ScanMapS)
			}
			for _, p := range pols {
				runs = append(runs, simRun{setup: Setup{Cluster: cl, Seed: seed}, jobs: jobs, policy: p})
			}
		}
	}
	outs, err := runAll(o, runs)
	if err != nil {
		return nil, err
	}
	type cell struct{ node, time, gain stat }
	res := make([][]cell, len(counts))
	for i := range res {
		res[i] = make([]cell, len(pols))
	}
	k := 0
	for range seeds {
		for ni := range counts {
			base := outs[k].summary.MakespanS
			for pi := range pols {
				s := outs[k].summary
				k++
				res[ni][pi].node.add(s.Locality.Node)
				res[ni][pi].time.add(s.MakespanS)
				res[ni][pi].gain.add(base / s.MakespanS)
			}
		}
	}
	t := &report.Table{
		Title:   fmt.Sprintf("fair-delay/sticky-slots: N concurrent scans of one 180 GB data set on EC2 (100 nodes x 4 map slots), fair sharing with and without delay (T1 = 10 s), %d seeds (paper section 6.2.2, Fig. 13-14)", len(seeds)),
		Headers: []string{"jobs", "scheduler", "node-local %", "paper", "time to finish all (s)", "throughput gain", "paper"},
	}
	c := &report.Table{Headers: row("jobs", "scheduler", "seeds",
		[]string{"node_local_pct", "node_local_pct_min", "node_local_pct_max"}, "paper_node_local_pct",
		[]string{"time_s", "time_s_min", "time_s_max"},
		[]string{"throughput_gain", "throughput_gain_min", "throughput_gain_max"}, "paper_throughput_gain")}
	for ni, n := range counts {
		for pi, p := range pols {
			r := &res[ni][pi]
			pp := stickyPaper[n][pi]
			t.AddRow(fmt.Sprint(n), p.Label, r.node.pct(), pp.node, r.time.text(0), r.gain.text(2), pp.gain)
			c.AddRow(row(fmt.Sprint(n), p.Label, fmt.Sprint(len(seeds)), r.node.scale(100).csv(1), csvPaper(pp.node),
				r.time.csv(1), r.gain.csv(3), csvPaper(pp.gain))...)
		}
	}
	t.Notes = []string{
		"throughput gain: time to finish all jobs under fair sharing / under fair + delay, same seed.",
		"Paper: delay scheduling raised throughput 1.1x (10 jobs), 1.6x (20), 2x (50) and locality from 90-27% to 99-100%.",
	}
	return &Result{Table: t, CSV: c}, nil
}

// ---------------------------------------------------------------------
// fair-delay/io-rate-biasing

// The section 6.2.4 hot spot: a 2 GB file (16 blocks of 128 MB, 3 replicas)
// read by 20 workers for 10 minutes.
const (
	hotFileBlocks   = 2 * 1024 / 128
	hotHorizonS     = 600.0
	hotWorkersClass = 10 // compute workers, then as many scan workers
)

// The three schedulers of section 6.2.4, all under fair sharing: no delay,
// untuned delay scheduling (T1 = 10 s for every job) and IO-rate biasing
// (T1 = 10 s for scans, 0 s for compute jobs). mrsched's delay policy
// measures which jobs are CPU-bound (their node-local maps read below 6.4
// MB/s: the compute jobs' 128 MB in 36 s is 3.6 MB/s, the scans' 128 MB in
// 9 s is 14 MB/s) and gives them cpu_bound_t1_s, 0 s by default.
var hotPolicies = []PolicySpec{
	{Label: "no delay", Name: "fair"},
	{Label: "untuned delay", Name: "delay", Params: map[string]any{"t1_s": 10.0}},
	{Label: "IO-rate biasing", Name: "delay", Params: map[string]any{"t1_s": 10.0, "io_rate_biasing": true}},
}

// runIORateBiasing is section 6.2.4 on EC2 (ec2Cluster): 10 workers
// repeatedly submit compute-heavy jobs (36 s maps) and 10 repeatedly submit
// scans (9 s maps), every job reading all 16 blocks of one 2 GB file, each
// worker waiting for its job before submitting the next; after 10 minutes
// we count the jobs completed by each class. The paper reports only the
// gains of IO-rate biasing, over no delay (8% scans, 10% compute) and over
// untuned delay (15% scans, 44% compute). The outcome hangs on where the
// hot file's 48 replicas land (a node holding several serves the remote
// readers of all of them and its NIC saturates), so the default averages
// 10 placements (seeds); a run is about 0.1 s.
func runIORateBiasing(o Options) (*Result, error) {
	cl := ec2Cluster()
	block := cl.WithDefaults().BlockBytes()
	// Enough jobs that no worker runs out within the horizon: one per map
	// length, the least a job can take.
	per := make([]int, 2*hotWorkersClass)
	for w := range per {
		per[w] = int(hotHorizonS/hotMapS(w)) + 2
	}
	seeds := o.seeds()
	var runs []simRun
	for _, seed := range seeds {
		jobs, plan := closedLoopJobs(per, func(id, w, k int) workload.Job {
			return scanJob(id, "hot-2GB", w, 0, hotFileBlocks, block, hotMapS(w))
		})
		plan.horizonS = hotHorizonS
		for _, p := range hotPolicies {
			runs = append(runs, simRun{setup: Setup{Cluster: cl, Seed: seed}, jobs: jobs, policy: p, workers: plan})
		}
	}
	outs, err := runAll(o, runs)
	if err != nil {
		return nil, err
	}
	// done[policy][class]: jobs finished within the horizon, per seed.
	done := make([][2]stat, len(hotPolicies))
	vsNone := make([][2]stat, len(hotPolicies))
	vsUntuned := make([][2]stat, len(hotPolicies))
	k := 0
	for range seeds {
		var counts [3][2]float64
		for pi := range hotPolicies {
			out := outs[k]
			k++
			for j, r := range out.jobs {
				if r.Finish >= 0 && r.Finish <= hotHorizonS && out.released[j] >= 0 {
					counts[pi][hotClass(r.User)]++
				}
			}
		}
		for pi := range hotPolicies {
			for cl := range 2 {
				done[pi][cl].add(counts[pi][cl])
				vsNone[pi][cl].add(counts[pi][cl] / counts[0][cl])
				vsUntuned[pi][cl].add(counts[pi][cl] / counts[1][cl])
			}
		}
	}
	// paper[policy][class (scan, compute)] = {vs no delay, vs untuned}: the
	// paper gives only biasing's gains, so the reference rows restate them.
	paper := [3][2][2]string{
		{{"1 (biasing 1.08)", "-"}, {"1 (biasing 1.10)", "-"}},
		{{"-", "1 (biasing 1.15)"}, {"-", "1 (biasing 1.44)"}},
		{{"1.08", "1.15"}, {"1.10", "1.44"}},
	}
	t := &report.Table{
		Title:   fmt.Sprintf("fair-delay/io-rate-biasing: 10 compute (36 s maps) + 10 scan (9 s maps) workers on one 2 GB file, EC2 100 nodes, jobs done in 10 min, %d seeds (paper section 6.2.4, Fig. 15)", len(seeds)),
		Headers: []string{"scheduler", "class", "jobs done", "vs no delay", "paper", "vs untuned delay", "paper"},
	}
	c := &report.Table{Headers: row("scheduler", "class", "seeds",
		[]string{"jobs_done", "jobs_done_min", "jobs_done_max"},
		[]string{"vs_no_delay", "vs_no_delay_min", "vs_no_delay_max"}, "paper_vs_no_delay",
		[]string{"vs_untuned", "vs_untuned_min", "vs_untuned_max"}, "paper_vs_untuned")}
	classes := [2]string{"scan", "compute"}
	for pi, p := range hotPolicies {
		for cl := range 2 {
			pc := paper[pi][cl]
			t.AddRow(p.Label, classes[cl], done[pi][cl].text(1), vsNone[pi][cl].text(2), pc[0], vsUntuned[pi][cl].text(2), pc[1])
			c.AddRow(row(p.Label, classes[cl], fmt.Sprint(len(seeds)), done[pi][cl].csv(2), vsNone[pi][cl].csv(3), paperNum(pc[0]),
				vsUntuned[pi][cl].csv(3), paperNum(pc[1]))...)
		}
	}
	t.Notes = []string{
		"jobs done: jobs that finished within 10 simulated minutes (a worker's job in flight at the end does not count).",
		"vs: this scheduler's count over the reference's, per class. Paper: IO-rate biasing beat no delay by 8% (scans)",
		"and 10% (compute), untuned delay by 15% (scans) and 44% (compute); untuned delay was the worst.",
	}
	return &Result{Table: t, CSV: c}, nil
}

// hotMapS is worker w's map length: compute workers first, then scans.
func hotMapS(w int) float64 {
	if w < hotWorkersClass {
		return ComputeMapS
	}
	return ScanMapS
}

// hotClass is 0 for a scan worker's job, 1 for a compute worker's.
func hotClass(worker int) int {
	if worker < hotWorkersClass {
		return 1
	}
	return 0
}

// paperNum keeps the number of a paper cell for CSV ("1 (biasing 1.08)" is
// 1; "-" is empty).
func paperNum(s string) string {
	var v float64
	if _, err := fmt.Sscanf(s, "%g", &v); err != nil {
		return ""
	}
	return num(v, 2)
}
