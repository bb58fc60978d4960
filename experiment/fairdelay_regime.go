package experiment

// The Fair Scheduler paper's delay-scheduling microbenchmarks (sections
// 6.2.1, 6.2.2, 6.2.4) re-run under the hadoop1-hdd cost profile, beside
// their fluid runs: the old experiments find the paper's locality but part
// of its throughput, and explain the rest by remote reads costing more
// than bandwidth on the paper's clusters. README-fair-delay.md ("The three
// microbenchmarks on hard disks") gives the rules; every cost value comes
// from scenario's profile at run time.

import (
	"fmt"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// fdCost is a cost model the re-runs compare: the fluid model of the old
// experiments, or the hadoop1-hdd profile.
type fdCost struct {
	name string
	// apply changes an old experiment's set-up into this model's; nil
	// keeps it.
	apply func(harness.Setup) harness.Setup
}

// on is s under the model.
func (c fdCost) on(s harness.Setup) harness.Setup {
	if c.apply == nil {
		return s
	}
	return c.apply(s)
}

// fdCosts returns the models, fluid first, then the profile, then the
// profile split in two: every cost but the task start-up, and the
// start-up alone (added after the first runs, which found the two pulling
// apart). hdd is the hadoop1-hdd profile (hddProfile); speculative says
// whether the profile's backups run (README-fair-delay.md gives why each
// experiment's choice); the start-up alone runs none, as the fluid model.
func fdCosts(hdd scenario.Profile, speculative bool) []fdCost {
	startup := hdd.TaskStartupS
	return []fdCost{
		{name: "fluid"},
		{name: hddProfileName, apply: func(s harness.Setup) harness.Setup { return withHDDProfile(s, hdd, speculative) }},
		{name: "hdd, no start-up", apply: func(s harness.Setup) harness.Setup {
			s = withHDDProfile(s, hdd, speculative)
			s.Engine.TaskStartupS = 0
			return s
		}},
		{name: "fluid + start-up", apply: func(s harness.Setup) harness.Setup {
			s.Engine.TaskStartupS = startup
			return s
		}},
	}
}

// withHDDProfile gives s the hadoop1-hdd profile p's costs: its disk, task
// start-up, spills, merges, heartbeat and launch limit, as a scenario
// naming the profile would get them, and speculation as speculative says.
func withHDDProfile(s harness.Setup, p scenario.Profile, speculative bool) harness.Setup {
	d := *p.Disk
	s.Cluster.Disk, s.Cluster.DiskMBps = &d, d.SeqMBps
	e := &s.Engine
	e.HeartbeatS = p.HeartbeatS // 0: the engine's 3 s
	e.TaskStartupS = p.TaskStartupS
	e.SortBufferMB, e.MergeFactor, e.ReduceBufferMB = p.SortBufferMB, p.MergeFactor, p.ReduceBufferMB
	e.LaunchesPerHeartbeat = p.LaunchesPerHeartbeat
	e.Speculative = speculative
	return s
}

// ---------------------------------------------------------------------
// Map durations by where maps read

// mapTimer wraps a policy and times every map attempt it launches, launch
// to end, by where the map reads its block (node-local, rack-local,
// off-rack: the replica the engine reads, the nearest, unless the policy
// names one) and by a class of its job. It changes no decision. Backups
// the engine launches on its own (speculation) and killed attempts are
// not timed.
type mapTimer struct {
	harness.PassThrough
	classOf func(*sched.Job) int

	runs harness.MapRuns[mtRun]
	// dur[class][reach] is the attempts' durations in seconds.
	dur [][3]harness.Stat
}

// mtRun is where a map attempt reads from and when it started.
type mtRun struct {
	reach cluster.Reach
	start float64
}

// newMapTimer times inner's maps in classes classes, job j's in
// classOf(j) (nil: one class).
func newMapTimer(inner sched.Policy, classes int, classOf func(*sched.Job) int) *mapTimer {
	if classOf == nil {
		classOf = func(*sched.Job) int { return 0 }
	}
	return &mapTimer{PassThrough: harness.PassTo(inner), classOf: classOf, dur: make([][3]harness.Stat, classes)}
}

func (t *mapTimer) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	t.runs.Forget()
	d, ok := t.Inner.Assign(c, o)
	if ok && d.Kind == sched.MapTask {
		topo := c.Topology()
		reach := cluster.Reach(math.MaxInt8)
		if d.SourceSet {
			reach = topo.ReachOf(d.Source, o.Node)
		} else {
			for _, r := range d.Job.Input.BlockReplicas(d.Map) {
				reach = min(reach, topo.ReachOf(r, o.Node))
			}
		}
		t.runs.Decided(d.Job, d.Map, o.Node, mtRun{reach: reach})
	}
	return d, ok
}

func (t *mapTimer) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	t.PassThrough.TaskLaunched(c, j, k, n)
	if k != sched.MapTask {
		return
	}
	t.runs.Launched(c, j, n, mtRun{}).Note.start = c.Now()
}

func (t *mapTimer) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	t.PassThrough.TaskEnded(c, j, k, n, killed)
	if k != sched.MapTask {
		return
	}
	if r, ok := t.runs.Ended(c, j, n, nil, false); ok && !killed && r.Map >= 0 {
		t.dur[t.classOf(j)][r.Note.reach].Add(c.Now() - r.Note.start)
	}
}

// ---------------------------------------------------------------------
// Runs

// fdRun is one simulation of the re-runs: simRun's, with its maps timed.
type fdRun struct {
	harness.Run
	classes int
	classOf func(*sched.Job) int
}

// fdOut is what the re-runs keep of a simulation.
type fdOut struct {
	harness.Outcome
	dur [][3]harness.Stat
}

// exec runs r as simRun.exec does, with a mapTimer between the engine (or
// the closed-loop gate) and the policy.
func (r fdRun) exec() (*fdOut, error) {
	var t *mapTimer
	r.Probe = func(p sched.Policy, _ *cluster.Topology) sched.Policy {
		t = newMapTimer(p, max(1, r.classes), r.classOf)
		return t
	}
	out, err := r.Run.Exec()
	if err != nil {
		return nil, err
	}
	return &fdOut{Outcome: *out, dur: t.dur}, nil
}

// by is r under policy p, its maps timed (exec): r is a copy, so that
// the policies of one scenario, which run at once, each have their own.
func (r fdRun) by(p harness.PolicySpec) (*fdOut, error) {
	r.Policy = p
	return r.exec()
}

// fdDur accumulates one class's map durations by reach over seeds: every
// attempt's duration, pooled.
type fdDur [3]harness.Stat

func (d *fdDur) add(s [3]harness.Stat) {
	for k := range s {
		if s[k].N == 0 {
			continue
		}
		if d[k].N == 0 || s[k].Min < d[k].Min {
			d[k].Min = s[k].Min
		}
		if d[k].N == 0 || s[k].Max > d[k].Max {
			d[k].Max = s[k].Max
		}
		d[k].N += s[k].N
		d[k].Sum += s[k].Sum
	}
}

// text is "node / rack / off" mean seconds, "-" where no map read so.
func (d fdDur) text(reaches int) string {
	out := ""
	for k := range reaches {
		if k > 0 {
			out += " / "
		}
		if d[k].N == 0 {
			out += "-"
		} else {
			out += harness.Num(d[k].Mean(), 1)
		}
	}
	return out
}

func (d fdDur) csv() []string {
	out := make([]string, 3)
	for k := range out {
		if d[k].N > 0 {
			out[k] = harness.Num(d[k].Mean(), 3)
		}
	}
	return out
}

// backups is the speculative backups a run launched.
func backups(s *fdOut) float64 {
	if s.Summary.Speculation == nil {
		return 0
	}
	return float64(s.Summary.Speculation.Backups)
}

// mapTimes is the column of a row's map durations by reach (d), the
// first reaches of them shown.
func mapTimes[R any](head string, reaches int, d func(R) fdDur) harness.Column[R] {
	return harness.Column[R]{Head: head, Text: func(r R) string { return d(r).text(reaches) },
		CSV: []string{"map_s_node", "map_s_rack", "map_s_off"}, Cells: func(r R) []string { return d(r).csv() }}
}

// ---------------------------------------------------------------------
// fair-delay/map

// fdMapMaps and fdMapStartupS are fair-delay/map's axes: maps per job (the
// paper's 3, 10 and 100, and 30 between) and the task start-up (0 to the
// hadoop1-hdd profile's 4 s).
var (
	fdMapMaps     = []float64{3, 10, 30, 100}
	fdMapStartupS = []float64{0, 1, 2, 4}
)

// smallJobsCount is small-jobs' rule for a batch's size: as many jobs of
// maps maps as keep mapSlots slots busy smallJobsWorkS at the local scan
// speed (SmallJobsWorkloads for the paper's sizes).
func smallJobsCount(maps, mapSlots int) int {
	return max(1, int(math.Round(smallJobsWorkS*float64(mapSlots)/(ScanMapS*float64(maps)))))
}

// fdMapAxes is fair-delay/map's grid and labels, all its figure needs.
func fdMapAxes() harness.RegimeMap {
	return harness.RegimeMap{
		XName: "maps", YName: "startup_s",
		XLabel: "maps per job (scan jobs, 128 MB blocks)", YLabel: "task start-up (s)",
		Xs: fdMapMaps, Ys: fdMapStartupS,
		Policy: smallJobsPolicies[1], Baseline: smallJobsPolicies[0],
		Title: "fair-delay/map: delay scheduling against FIFO on small-jobs' batches, private cluster under the hadoop1-hdd profile, by job size and task start-up",
		Notes: []string{
			"the hadoop1-hdd profile's costs (one 138 MB/s disk a node, spills, merges, backups) but for the start-up, which is the y axis.",
			"each batch: small-jobs' rule, jobs = 600 s x 600 map slots / (maps x 9 s), submitted at 0. mean turnaround: the batch's",
			"jobs' mean; throughput: jobs / workload time, so its ratio is FIFO's workload time / FIFO + delay's (Fig. 12's gain).",
		},
	}
}

// fdMap is fair-delay/map as a regime map: FIFO + delay over FIFO on
// small-jobs' batches under the hadoop1-hdd profile, by job size and task
// start-up.
func fdMap() (harness.RegimeMap, error) {
	hdd, err := hddProfile()
	if err != nil {
		return harness.RegimeMap{}, err
	}
	marks := map[[2]int]string{}
	yi := slices.Index(fdMapStartupS, hdd.TaskStartupS)
	for _, m := range []float64{3, 10, 100} {
		if xi := slices.Index(fdMapMaps, m); xi >= 0 && yi >= 0 {
			marks[[2]int{xi, yi}] = "small-jobs-hdd"
		}
	}
	cl := privateCluster()
	cfg := cl.WithDefaults()
	slots := cfg.Racks * cfg.NodesPerRack * cfg.MapSlots
	m := fdMapAxes()
	m.Marks = marks
	m.Run = func(_ Options, p harness.PolicySpec, xi, yi int, seed uint64) (harness.MapOutcome, error) {
		maps := int(fdMapMaps[xi])
		jobs := make([]workload.Job, smallJobsCount(maps, slots))
		for i := range jobs {
			jobs[i] = scanJob(i, fmt.Sprintf("small%d-s%d-j%d", maps, seed, i), i, 0, maps, cfg.BlockBytes(), ScanMapS)
		}
		s := withHDDProfile(harness.Setup{Cluster: cl, Seed: seed}, hdd, true)
		s.Engine.TaskStartupS = fdMapStartupS[yi]
		out, err := fdRun{Run: harness.Run{Setup: s, Jobs: jobs, Policy: p}}.exec()
		if err != nil {
			return harness.MapOutcome{}, err
		}
		sum := out.Summary
		if sum.JobsCompleted != len(jobs) {
			return harness.MapOutcome{}, fmt.Errorf("%d of %d jobs finished", sum.JobsCompleted, len(jobs))
		}
		return harness.MapOutcome{Turnaround: sum.Turnaround.Mean, Throughput: sum.ThroughputJobsPerHour}, nil
	}
	return m, nil
}

// fdMapFigure is fair-delay/map's heat figure: the throughput ratio, the
// paper's measure, on the grid.
func fdMapFigure() *report.TableFigure {
	m := fdMapAxes()
	f := harness.MapFigure("fair-delay/map: delay scheduling's throughput gain by job size and task start-up (hdd profile)",
		"FIFO's workload time over FIFO + delay's (T1 = T2 = 15 s) on the same small-jobs batch (above 1: delay finishes "+
			"first), mean over 3 seeds, on the private cluster (100 nodes in 4 racks, 6 map slots) under the hadoop1-hdd "+
			"profile's disk, spills, merges and backups; x: maps per job, y: the task start-up. Marked: the cells "+
			"fair-delay/small-jobs-hdd runs.",
		"Fig. 12 and section 6.2.1: delay scheduling raised the small-jobs workloads' throughput 1.2x (3-map jobs), 1.7x "+
			"(10) and 1.3x (100) on the paper's private cluster; its scan maps took 9 s, start-up included.",
		m)
	return harness.ThroughputHeat(f, m)
}
