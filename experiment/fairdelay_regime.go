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

	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/workload"
)

// fdCost is a cost model the re-runs compare: the fluid model of the old
// experiments, or the hadoop1-hdd profile.
type fdCost struct {
	name string
	// apply changes an old experiment's set-up into this model's.
	apply func(harness.Setup) harness.Setup
}

// fdFluid is the fluid model: the old experiments' set-up as it is.
var fdFluid = fdCost{name: "fluid", apply: func(s harness.Setup) harness.Setup { return s }}

// fdCosts returns the models, fluid first, then the profile, then the
// profile split in two: every cost but the task start-up, and the
// start-up alone (added after the first runs, which found the two pulling
// apart). hdd is the hadoop1-hdd profile (hddProfile); speculative says
// whether the profile's backups run (README-fair-delay.md gives why each
// experiment's choice); the start-up alone runs none, as the fluid model.
func fdCosts(hdd scenario.Profile, speculative bool) []fdCost {
	startup := hdd.TaskStartupS
	return []fdCost{
		fdFluid,
		{name: hddProfileName, apply: func(s harness.Setup) harness.Setup { return s.WithProfile(hdd, speculative) }},
		{name: "hdd, no start-up", apply: func(s harness.Setup) harness.Setup {
			s = s.WithProfile(hdd, speculative)
			s.Engine.TaskStartupS = 0
			return s
		}},
		{name: "fluid + start-up", apply: func(s harness.Setup) harness.Setup {
			s.Engine.TaskStartupS = startup
			return s
		}},
	}
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
	m := fdMapAxes()
	for _, maps := range []float64{3, 10, 100} {
		m.Mark(maps, hdd.TaskStartupS, "small-jobs-hdd")
	}
	cl := privateCluster()
	cfg := cl.WithDefaults()
	slots := cfg.Racks * cfg.NodesPerRack * cfg.MapSlots
	m.Run = func(_ Options, p harness.PolicySpec, xi, yi int, seed uint64) (harness.MapOutcome, error) {
		maps := int(fdMapMaps[xi])
		jobs := make([]workload.Job, smallJobsCount(maps, slots))
		for i := range jobs {
			jobs[i] = scanJob(i, fmt.Sprintf("small%d-s%d-j%d", maps, seed, i), i, 0, maps, cfg.BlockBytes(), ScanMapS)
		}
		s := harness.Setup{Cluster: cl, Seed: seed}.WithProfile(hdd, true)
		s.Engine.TaskStartupS = fdMapStartupS[yi]
		out, err := probe.TimedRun{Run: harness.Run{Setup: s, Jobs: jobs, Policy: p}}.Exec()
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
