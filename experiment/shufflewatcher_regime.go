package experiment

import (
	"fmt"
	"strconv"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

// The ShuffleWatcher paper in its own regime (README-shufflewatcher.md,
// "In the paper's regime", where every rule below is written down with its
// source): the paper's cluster "under full load" (section 4.3) with Table
// 3's bytes, which our per-byte task costs alone leave nearly idle. One
// global factor on every task's CPU cost per byte is swept, and the
// operating point is picked by the paper's own rule from Delay's curve
// alone; at 30, 10 and 3 users, with the input written from outside the
// cluster and by a node of it, under the hadoop1-hdd cost profile.

// swRegimeProfile is the cost model: the paper ran Hadoop 1.0.0 (section
// 4) on EC2 extra-large instances.
const swRegimeProfile = "hadoop1-hdd"

// swRegimeFactors are the task-cost factors swept.
var swRegimeFactors = []float64{1, 2, 4, 6, 8, 12, 16}

// swRegimeUsers are the user counts: the paper's 30, and fewer users with
// more jobs each, so that NASS has jobs to choose among.
var swRegimeUsers = []int{30, 10, 3}

// swRegimePlacements are where the jobs' inputs were written from.
var swRegimePlacements = []workload.Placement{workload.PlaceOutside, workload.PlaceWriter}

// swKeepUp is the operating point's rule: Delay keeps up with arrivals
// when its steady-state throughput is at least this share of the arrival
// rate.
const swKeepUp = 0.95

// swRegimePairs are the comparisons the paper reports: each
// ShuffleWatcher variant over its base (Fig. 8).
var swRegimePairs = [][2]harness.PolicySpec{{swSWFair, swFair}, {swSWRelaxed, swDelay}, {swSWDRF, swDRF}}

// swRegime is one point of the regime: the task-cost factor, the users
// and the placement of inputs; a zero Factor is no regime (swRun).
type swRegime struct {
	Factor    float64
	Users     int
	Placement workload.Placement
	// UplinkMbps, when > 0, replaces the racks' uplink speed (the map's
	// second axis).
	UplinkMbps float64
}

// swRegimeCluster is the paper's cluster with the regime's uplinks and
// the profile's costs.
func swRegimeCluster(g swRegime) (cluster.Config, sim.Params) {
	cl, eng := swCluster(), sim.Params{}
	if g.UplinkMbps > 0 {
		cl.RackUplinkMbps = g.UplinkMbps
	}
	p, _ := scenario.LookupProfile(swRegimeProfile)
	p.Apply(&cl, &eng)
	return cl, eng
}

// swRegimeRun is the run on regime g: Table 1's mix at Table 3's volume,
// every task's CPU cost per byte times the factor, inputs placed as the
// regime says (swRun.exec).
func swRegimeRun(g swRegime) swRun { return swRun{Cfg: swTable3, Users: g.Users, Regime: g} }

// swArrivalsPerHour is the arrival rate the operating point is measured
// against.
const swArrivalsPerHour = 3600 / swMeanInterarrivalS

// swMeanThroughput is the mean over runs (seeds) of their steady window's
// throughput: a point of Delay's curve, which the operating point reads.
func swMeanThroughput(runs []*swOutcome) float64 { return harness.SampleOf(runs, swThroughput).Mean() }

// swOperatingFactor is section 4.3's rule applied to Delay's curve: the
// largest factor at which Delay still keeps up (its mean steady-state
// throughput over seeds at least swKeepUp of the arrival rate), which is
// where it uses the cluster most. If it keeps up nowhere, the smallest.
func swOperatingFactor(factors []float64, delayThroughput []float64) float64 {
	best := factors[0]
	for i, f := range factors {
		if delayThroughput[i] >= swKeepUp*swArrivalsPerHour {
			best = f
		}
	}
	return best
}

// swRegimePolicyIndex indexes pols by label, and checks that every label
// the table reads (Delay's, for the operating point, and both of each
// pair's) is one of them: before any run, so that a pair naming a policy
// the grid left out is an error naming it, not an index out of range.
func swRegimePolicyIndex(pols []harness.PolicySpec, pairs [][2]harness.PolicySpec) (map[string]int, error) {
	idx := map[string]int{}
	for pi, p := range pols {
		idx[p.Label] = pi
	}
	wanted := []string{swDelay.Label}
	for _, pair := range pairs {
		wanted = append(wanted, pair[0].Label, pair[1].Label)
	}
	for _, l := range wanted {
		if _, ok := idx[l]; !ok {
			return nil, fmt.Errorf("the table reads policy %q, which the runs do not include", l)
		}
	}
	return idx, nil
}

func runSWRegime(o Options) (*Result, error) {
	pols := swMainPols
	polIndex, err := swRegimePolicyIndex(pols, swRegimePairs)
	if err != nil {
		return nil, err
	}
	var grid []swRegime
	var runs []func(harness.PolicySpec, uint64) swRun
	for _, pl := range swRegimePlacements {
		for _, u := range swRegimeUsers {
			for _, f := range swRegimeFactors {
				g := swRegime{Factor: f, Users: u, Placement: pl, UplinkMbps: swCluster().RackUplinkMbps}
				grid, runs = append(grid, g), append(runs, swRegimeRun(g).at)
			}
		}
	}
	res, err := swCache.Grids(o, pols, runs)
	if err != nil {
		return nil, err
	}
	runsOf := func(gi int, p harness.PolicySpec) []*swOutcome { return res[gi][polIndex[p.Label]] }
	// The operating point of each (placement, users), from Delay alone.
	operating := map[[2]int]float64{}
	for gi := 0; gi < len(grid); gi += len(swRegimeFactors) {
		var tp []float64
		for k := range swRegimeFactors {
			tp = append(tp, swMeanThroughput(runsOf(gi+k, swDelay)))
		}
		operating[[2]int{int(grid[gi].Placement), grid[gi].Users}] = swOperatingFactor(swRegimeFactors, tp)
	}
	type R struct {
		g               swRegime
		pair            [2]harness.PolicySpec
		delay, rs, base []*swOutcome
		op              bool
	}
	var rows []R
	for gi, g := range grid {
		for _, pair := range swRegimePairs {
			rows = append(rows, R{g, pair, runsOf(gi, swDelay), runsOf(gi, pair[0]), runsOf(gi, pair[1]), operating[[2]int{int(g.Placement), g.Users}] == g.Factor})
		}
	}
	dt := func(r R) float64 { return swMeanThroughput(r.delay) }
	busy := func(r R) float64 { return harness.SampleOf(r.delay, (*swOutcome).mapSlotsBusy).Mean() }
	x := func(head, csv string, v func(*swOutcome) float64) harness.Column[R] {
		return harness.MeanSE(head, csv, func(r R) harness.Sample { return harness.RatioSample(r.rs, r.base, v) })
	}
	return harness.Table[R]{
		Title: fmt.Sprintf("shufflewatcher/regime: the paper's cluster under %s, Table 1 mix at Table 3's volume (sizes x %s), "+
			"mean inter-arrival 40 s; every task's CPU cost per byte x the factor; %s",
			swRegimeProfile, harness.Num(swTable3.scale(), 3), swTable3.describe(o)),
		Cols: []harness.Column[R]{
			harness.Key("input", "placement", func(r R) string { return r.g.Placement.String() }),
			harness.Key("users", "users", func(r R) string { return strconv.Itoa(r.g.Users) }),
			harness.Key("task cost x", "factor", func(r R) string { return harness.Num(r.g.Factor, 0) }),
			harness.Both("Delay jobs/h", func(r R) string { return fmt.Sprintf("%.1f", dt(r)) }, "delay_jobs_per_h", func(r R) string { return harness.NumOrEmpty(dt(r)) }),
			harness.Both("Delay map slots busy", func(r R) string { return fmt.Sprintf("%.0f%%", 100*busy(r)) }, "delay_map_slots_busy", func(r R) string { return harness.NumOrEmpty(busy(r)) }),
			{Head: "pair", Text: func(r R) string { return r.pair[0].Label + " / " + r.pair[1].Label },
				CSV: []string{"policy", "baseline"}, Cells: func(r R) []string { return []string{r.pair[0].Label, r.pair[1].Label} }},
			x("throughput x", "throughput_x", swThroughput),
			x("turnaround x", "turnaround_x", (*swOutcome).turnaround),
			x("cross-rack shuffle x", "cross_rack_shuffle_x", func(r *swOutcome) float64 { return r.trafficOf(swAllClasses).ShuffleCross }),
			x("cross-rack output x", "cross_rack_output_x", func(r *swOutcome) float64 { return r.trafficOf(swAllClasses).OutputCross }),
			harness.Key("operating point", "operating_point", func(r R) string { return map[bool]string{true: "yes"}[r.op] }),
		},
		Notes: []string{
			fmt.Sprintf("x: the ShuffleWatcher variant's figure over its base's (Fig. 8's pairs) on the same seed, mean ± standard error over %d seeds; "+
				"throughput: jobs finishing in the steady window per hour; turnaround and traffic: jobs submitted in it; cross-rack shuffle and "+
				"cross-rack reduce output (the replicas' off-rack hop) apart", o.Seeds),
			fmt.Sprintf("operating point: section 4.3's rule on Delay's curve alone, the largest factor at which Delay's mean steady-state "+
				"throughput is at least %.0f%% of the arrival rate (%.0f jobs/h), for each placement and user count", 100*swKeepUp, swArrivalsPerHour),
			"Delay map slots busy: the share of the window's map-slot time Delay's map attempts held (mean over seeds)",
			"paper (Fig. 8, 30 users): SW-fair / Fair throughput 1.39, turnaround 0.73; SW-relaxed / Delay 1.46, 0.68; SW-DRF / DRF similar to SW-fair",
		},
	}.Result(rows), nil
}

// mapSlotsBusy is the share of the steady window's map-slot time that map
// attempts held: the slots' load, read from the timeseries of running maps.
func (r *swOutcome) mapSlotsBusy() float64 {
	cl := swCluster().WithDefaults()
	return harness.MapSlotsBusy(r.series, float64(cl.Racks*cl.NodesPerRack*cl.MapSlots), r.cfg.inWindow)
}

// The map's axes: the task-cost factor (the slots' load) across, the racks'
// uplink speed (over-subscription 10:1, 5:1, 2.5:1 with 10 nodes of
// 250 Mbps) up; the paper's cluster has 500 Mbps.
var (
	swMapFactors = []float64{1, 4, 8, 12, 16}
	swMapUplinks = []float64{250, 500, 1000}
)

// runSWMap is SW-fair's gain over Fair across load and over-subscription,
// at 30 users with inputs from outside the cluster, under the regime's
// costs. The paper's operating point is the cell of its 500 Mbps uplinks
// at the factor section 4.3's rule picks from Delay's runs there.
func runSWMap(o Options) (*Result, error) {
	var tp []float64
	for _, f := range swMapFactors {
		res, err := swCache.Grid(o, []harness.PolicySpec{swDelay}, swRegimeRun(swRegime{Factor: f, Users: swUsers, UplinkMbps: 500}).at)
		if err != nil {
			return nil, err
		}
		tp = append(tp, swMeanThroughput(res[0]))
	}
	m := swMap()
	m.Mark(swOperatingFactor(swMapFactors, tp), 500, "paper")
	return harness.RunMap(o, m)
}

// swMap is the map's definition, its marks set by runSWMap.
func swMap() harness.RegimeMap {
	return harness.RegimeMap{
		XName: "task_cost_factor", YName: "uplink_mbps", XLabel: "task CPU cost per byte x", YLabel: "rack uplink (Mbit/s)",
		Xs: swMapFactors, Ys: swMapUplinks, Policy: swSWFair, Baseline: swFair,
		Title: fmt.Sprintf("shufflewatcher/map: SW-fair over Fair by the slots' load and the racks' uplinks; the paper's cluster (10 racks of 10 "+
			"nodes, 250 Mbit/s NICs) under %s, 30 users, Table 1 mix at Table 3's volume, inputs from outside", swRegimeProfile),
		Notes: []string{
			"paper's point: its 500 Mbit/s uplinks at the task-cost factor where Delay uses the cluster most while keeping up (section 4.3's rule, as shufflewatcher/regime)",
			"throughput: jobs finishing in the steady window per hour; turnaround: jobs submitted in it",
		},
		Run: func(_ Options, p harness.PolicySpec, xi, yi int, seed uint64) (harness.MapOutcome, error) {
			rs, err := swCache.Runs(Options{Parallel: 1}, []swRun{
				swRegimeRun(swRegime{Factor: swMapFactors[xi], Users: swUsers, UplinkMbps: swMapUplinks[yi]}).at(p, seed)})
			if err != nil {
				return harness.MapOutcome{}, err
			}
			return harness.MapOutcome{Turnaround: rs[0].turnaround(), Throughput: rs[0].throughput(swAllClasses)}, nil
		},
	}
}
