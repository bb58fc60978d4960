package experiment

// nas/regime and nas/map: NAS in the paper's own regime, and where it wins.
//
// nas/main replays FB-2010 with its bytes scaled by 600/3000, the project's
// rule for a trace on a smaller cluster; the paper ran the trace unscaled
// (its Fig. 2 class mix is the unscaled trace's) on its 600 nodes, about
// five times the load per node the trace had. nas/regime runs that day,
// with every locality-aware scheduler also given the same 5 s wait the
// paper's real cluster gave NAS; nas/map puts NAS's gain over Delay on a
// grid of offered load and users. The rules of both, each with its source,
// are in README-nas.md (The paper's regime), written before any run.

import (
	"fmt"
	"strconv"

	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

const (
	// nasRegimeScale is the paper's byte scale: the trace as traced.
	nasRegimeScale = 1.0
	// nasRegimeSeeds is the regime's default number of seeds: a run of the
	// unscaled day takes 4 to 6 CPU-minutes and 2.3 to 3.5 GB, ten runs a
	// seed (docs/performance.md, The backlog's targets).
	nasRegimeSeeds = 2
	// nasMapWindowS is nas/map's window: jobs submitted in the trace's
	// first 2 hours, each run to its finish. The whole day at every cell
	// costs hours of CPU on 2 cores, and so did 6 hours on a shared host
	// (README-nas.md, The rules); the window is the same in every cell.
	nasMapWindowS = 2 * 3600
)

// nasScaledSetup is the NAS paper's 600-node cluster under FB-2010 with
// its bytes scaled by scale (SWIM's Scale; 1 is the trace's own bytes)
// and jobs submitted in [0, endS) (0: the whole day), on the day's 1 s
// network quantum.
func nasScaledSetup(name, describe string, scale, endS float64) nasSetup {
	return nasSetup{Name: name, MainName: "nas/regime", Describe: describe,
		Cluster: nasCluster600(), Users: nasUsers, EndS: endS, Scale: scale, NetworkQuantumS: nasDayQuantumS, Paper: nasPaperSim}
}

// nasRegimeDay is the paper's simulation as it ran it: the whole FB-2010
// day, bytes as traced, on 600 nodes with 200 users.
var nasRegimeDay = nasScaledSetup("fb2010-day-unscaled",
	"the whole FB-2010 day (24,442 jobs), bytes as traced (SWIM scale 1), on 600 nodes, network quantum 1 s",
	nasRegimeScale, 0)

// nasSameWait is the paper's real-cluster wait (nasWaitS, 5 s) given to
// every locality-aware scheduler: Delay and SW-delay as t1 = t2 = 5 s,
// the NAS variants as wait_s in place of D^m and D^r.
var (
	nasDelayWait = map[string]any{"t1_s": nasWaitS, "t2_s": nasWaitS}
	nasNASWait   = map[string]any{"wait_s": nasWaitS}
)

// nasRegimePolicies are the regime's schedulers: the paper's, at its
// simulation's parameters (D^m = D^r = 135 on freed containers, Delay's
// 15 s + 15 s), NAS without CR-RTS (MTS+CA-RTS), then the locality-aware
// ones with the same 5 s wait.
var nasRegimePolicies = []harness.PolicySpec{
	nasPolicy("Fair"), nasPolicy("Delay"), nasPolicy("SW-delay"), nasPolicy("MTS"),
	{Label: "NAS w/o CR-RTS", Name: "nas-mts-carts"},
	nasPolicy("NAS"),
	{Label: "Delay, 5 s", Name: "delay", Params: nasDelayWait},
	{Label: "SW-delay, 5 s", Name: "sw-delay", Params: nasDelayWait},
	{Label: "MTS, 5 s", Name: "nas-mts", Params: nasNASWait},
	{Label: "NAS, 5 s", Name: "nas", Params: nasNASWait},
}

// nasRegimeAgainst is, for each scheduler of nasRegimePolicies, the NAS it
// is compared with: the one with the same waits ("" for the NAS runs).
var nasRegimeAgainst = map[string]string{
	"Fair": "NAS", "Delay": "NAS", "SW-delay": "NAS", "MTS": "NAS", "NAS w/o CR-RTS": "NAS",
	"Delay, 5 s": "NAS, 5 s", "SW-delay, 5 s": "NAS, 5 s", "MTS, 5 s": "NAS, 5 s", "NAS": "NAS, 5 s",
}

// runNASRegime runs every regime scheduler on s, whose bytes are scaled by
// scale (nasRegimeDay: the unscaled day), and puts NAS over each, on the
// same seed.
func runNASRegime(o Options, s nasSetup, scale float64) (*Result, error) {
	pols := nasRegimePolicies
	res, err := nasGrid(o, s, s.Users, pols)
	if err != nil {
		return nil, err
	}
	var count [3]int
	for i := range res[0][0].Jobs {
		count[nasClassOf(&res[0][0].Jobs[i])]++
	}
	type R = harness.RunsRow[*nasOutcome] // ref: the NAS the row is against, if any
	// over is a column of a figure of the row's runs, over seeds.
	over := func(head, csv string, tprec, cprec int, v func(*nasOutcome) float64) harness.Column[R] {
		return harness.Spread(head, csv, tprec, cprec, harness.OverOf(v))
	}
	// nasX is NAS's v over the row's, on the same seed, as a change.
	nasX := func(head, csv string, v func(*nasOutcome) float64) harness.Column[R] {
		return harness.Gains(head, csv, func(r R) harness.Stat { return harness.RatioSeeds(r.Ref, r.Rs, v) })
	}
	return harness.Table[R]{
		Title: "nas/regime: the paper's regime; " + s.describe(o, s.Users),
		Cols: []harness.Column[R]{
			harness.Key("scheduler", "scheduler", func(r R) string { return r.Label }),
			harness.Written(func(R) []string { return []string{s.Name, harness.Num(scale, 2), strconv.Itoa(s.Users)} }, "window", "scale", "users"),
			over("jobs/h", "throughput_jph", 1, 3, nasTput),
			over("steady jobs/h", "steady_jph", 1, 3, nasSteady),
			over("mean job time (s)", "job_time_s", 0, 2, nasJobTime),
			over("light (s)", "light_s", 0, 2, nasClassJT(sched.NASLight)),
			over("medium (s)", "medium_s", 0, 2, nasClassJT(sched.NASMedium)),
			over("heavy (s)", "heavy_s", 0, 2, nasClassJT(sched.NASHeavy)),
			over("node-local maps %", "node_local_pct", 1, 2, func(r *nasOutcome) float64 { return 100 * r.Summary.Locality.Node }),
			over("cross-rack TB", "cross_rack_tb", 1, 3, func(r *nasOutcome) float64 { return r.Summary.Bytes.CrossRackTotal / 1e12 }),
			over("congestion", "congestion", 0, 0, nasCongestion),
			over("reducer-s waiting (M)", "reduce_wait_ms", 1, 2, func(r *nasOutcome) float64 { return r.Summary.ReduceWaitS / 1e6 }),
			over("last finish (h)", "last_finish_h", 1, 2, func(r *nasOutcome) float64 { return harness.LastFinish(r.Jobs) / 3600 }),
			harness.Written(func(r R) []string {
				return []string{strconv.Itoa(len(r.Rs[0].Jobs)), harness.Num(harness.OverSeeds(r.Rs, nasCompleted).Mean(), 0)}
			}, "jobs", "jobs_completed"),
			harness.Both("against", func(r R) string { return harness.OrDash(nasRegimeAgainst[r.Label]) }, "against", func(r R) string { return nasRegimeAgainst[r.Label] }),
			nasX("NAS jobs/h", "nas_throughput_x", nasTput),
			nasX("NAS steady", "nas_steady_x", nasSteady),
			nasX("NAS job time", "nas_job_time_x", nasJobTime),
			harness.Written(func(r R) []string {
				return harness.OverSeeds(r.Rs, func(x *nasOutcome) float64 { return x.WallS }).CSV(0)
			}, "wall_s", "wall_s_min", "wall_s_max"),
		},
		Notes: []string{
			"mean (min-max over seeds). jobs/h: jobs / (last finish - first submit), the paper's throughput; steady jobs/h: jobs finished",
			"between the first and the last submission, per hour of that span (summary.json steady_state); job time: finish - submit.",
			fmt.Sprintf("classes by true shuffle (light < 1 MB, heavy > 100 MB): %d light, %d medium, %d heavy jobs (seed %d).",
				count[sched.NASLight], count[sched.NASMedium], count[sched.NASHeavy], o.Seed),
			"congestion: (3 s monitor sample, uplink direction) pairs at or above 80%; reducer-s waiting: launched reduces waiting for maps.",
			"NAS columns: NAS's figure over the row's on the same seed, as a change, mean (min to max over seeds), against the NAS with the",
			"same waits (the paper's D^m = D^r = 135 on freed containers, or the 5 s wait): a gain is + in jobs/h and - in job time.",
			"Waits: Delay and SW-delay 15 s + 15 s; MTS, NAS w/o CR-RTS (MTS+CA-RTS) and NAS D^m = D^r = 135 counted on freed containers;",
			"the ', 5 s' rows: Delay and SW-delay t1 = t2 = 5 s, MTS and NAS wait_s 5 (the paper's real cluster).",
		},
		Wall: nasWallNote(res),
	}.Result(harness.Against(pols, res, nasRegimeAgainst)), nil
}

// ---------------------------------------------------------------------
// nas/map

// The map's axes: offered load as SWIM's byte scale (0.2 is the project's
// 600/3000, nas/main; 1 the paper's), and users (Fig. 3(h)'s ends: fewer
// users, more jobs a user).
var (
	nasMapScales = []float64{0.2, 0.5, 1}
	nasMapUsers  = []float64{25, nasUsers}
)

// nasMap is NAS over Delay, both at the paper's simulation parameters, on
// offered load x users, FB-2010's first 2 hours (nasMapWindowS), with the
// paper's operating point (scale 1, 200 users) marked.
var nasMap = harness.RegimeMap{
	XName: "scale", YName: "users",
	XLabel:  "offered load: FB-2010's bytes x scale (1 = as traced on 3,000 nodes)",
	YLabel:  "users",
	Xs:      nasMapScales,
	Ys:      nasMapUsers,
	YFormat: "%.0f",
	Policy:  nasPolicy("NAS"), Baseline: nasPolicy("Delay"),
	Marks: map[[2]int]string{{len(nasMapScales) - 1, len(nasMapUsers) - 1}: "paper"},
	Title: "nas/map: NAS over Delay by offered load and users; FB-2010 jobs submitted in the first " +
		strconv.Itoa(nasMapWindowS/3600) + " h, each run to its finish, on 600 nodes, network quantum 1 s",
	Notes: []string{
		"scale: FB-2010's bytes as SWIM scales them (0.2 = 600/3000, nas/main's; 1 = as traced, the paper's). users: jobs to users at random.",
		"NAS: D^m = D^r = 135 counted on freed containers; Delay: 15 s + 15 s (the paper's simulation parameters).",
		"throughput: the paper's, jobs / (last finish - first submit). The paper's operating point is marked (on this window, not the day:",
		"nas/regime has the day).",
	},
	Run: runNASMapCell,
}

// nasMapSetup is the set-up of the map's column xi: its byte scale on the
// map's window.
func nasMapSetup(xi int) nasSetup {
	sc := nasMapScales[xi]
	return nasScaledSetup(fmt.Sprintf("fb2010-2h-scale-%g", sc),
		fmt.Sprintf("FB-2010 jobs submitted in the first %d h, bytes x %g, on 600 nodes, network quantum 1 s", nasMapWindowS/3600, sc),
		sc, nasMapWindowS)
}

// runNASMapCell runs one policy on one cell of the map with one seed,
// through the NAS run cache (and o's keep directory).
func runNASMapCell(o Options, p harness.PolicySpec, xi, yi int, seed uint64) (harness.MapOutcome, error) {
	s := nasMapSetup(xi)
	users := int(nasMapUsers[yi])
	one := Options{Seeds: 1, Seed: seed, Parallel: 1, KeepDir: o.KeepDir}
	rs, err := nasCache.Runs(one, []nasRun{{s, p, users, seed}})
	if err != nil {
		return harness.MapOutcome{}, err
	}
	return harness.MapOutcome{Turnaround: harness.JobTime(rs[0].Jobs, nil), Throughput: harness.Throughput(rs[0].Jobs, nil)}, nil
}
