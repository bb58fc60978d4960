package experiment

// td/regime and td/map: the TD paper's queues in the regime its Hadoop
// 0.20.1 cluster had, where td/queues runs them with non-local reads that
// cost almost nothing. README-td.md ("The paper's own regime") gives the
// rules and the source of every value; each value below is taken from the
// project's own defaults or cost profile at run time, never chosen for
// what it does to TD.

import (
	"fmt"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
)

// hddProfileName is the cost profile whose disk and task start-up the
// regimes take: Hadoop 1.2.1 on 7200 rpm SATA disks.
const hddProfileName = "hadoop1-hdd"

// hddProfile returns the hadoop1-hdd profile (harness.DiskProfile).
func hddProfile() (scenario.Profile, error) { return harness.DiskProfile(hddProfileName) }

// tdRegimeOversub is the over-subscription of td/regime's rack uplinks: the
// project's default cluster's, 10 nodes x 250 Mbit/s over a 500 Mbit/s
// uplink (5:1), which is the ShuffleWatcher and NAS testbeds'. The TD paper
// gives no network, so its ratio comes from elsewhere.
var tdRegimeOversub = float64(cluster.DefaultNodesPerRack) * cluster.DefaultNICMbps / cluster.DefaultRackUplinkMbps

// tdRegime is a set-up of td/regime and td/map: td/queues' cluster and
// engine with some of the costs of the paper's Hadoop 0.20.1 cluster; or
// of td/diagnose: its cluster with one change (why says what for). The
// zero value is td/queues' own set-up.
type tdRegime struct {
	name, why string
	// change, when set, changes the cluster (td/diagnose's variants).
	change func(*cluster.Config)
	// oversub, when positive, splits the nodes into two equal racks whose
	// uplinks carry their nodes' NICs over oversub.
	oversub float64
	// disk, when set, replaces td/queues' ideal disk link.
	disk    *cluster.Disk
	replica cluster.ReplicaChoice
	// heartbeatOnly lets a node's slots be offered only at its periodic
	// heartbeat, not at once when a task ends (heartbeatOnly's doc).
	heartbeatOnly bool
	startupS      float64
}

// apply changes td/queues' cluster into the regime's.
func (r *tdRegime) apply(c *cluster.Config) {
	if r.oversub > 0 {
		nodes := c.Racks * c.NodesPerRack
		c.Racks, c.NodesPerRack = 2, nodes/2
		c.RackUplinkMbps = float64(c.NodesPerRack) * c.NICMbps / r.oversub
	}
	if r.disk != nil {
		d := *r.disk
		c.Disk, c.DiskMBps = &d, d.SeqMBps
	}
	c.ReplicaChoice = r.replica
	if r.change != nil {
		r.change(c)
	}
}

// engine is the regime's engine: the defaults (3 s heartbeats, as Hadoop
// 0.20.1 gives 50 nodes) with its task start-up.
func (r *tdRegime) engine() sim.Params { return sim.Params{TaskStartupS: r.startupS} }

// tdCost is one of td/regime's five costs: what it is called in tables and
// how it changes a regime.
type tdCost struct {
	name string
	on   func(*tdRegime)
}

// tdCosts are the five costs in the order td/regime's rows take them, the
// disk and start-up being hdd's (the hadoop1-hdd profile).
func tdCosts(hdd scenario.Profile) []tdCost {
	return []tdCost{
		{fmt.Sprintf("2 racks, %g:1", tdRegimeOversub), func(r *tdRegime) { r.oversub = tdRegimeOversub }},
		{"hdd", func(r *tdRegime) { d := *hdd.Disk; r.disk = &d }},
		{"0.20 replicas", func(r *tdRegime) { r.replica = cluster.Hadoop020 }},
		{"3 s heartbeats only", func(r *tdRegime) { r.heartbeatOnly = true }},
		{fmt.Sprintf("%g s start-up", hdd.TaskStartupS), func(r *tdRegime) { r.startupS = hdd.TaskStartupS }},
	}
}

// tdRegimes are td/regime's set-ups: td/queues' ("none"), each cost alone,
// all of them ("all on"), and all of them at td/map's one over-subscription
// where TD gained, added after td/map's first run so that the table's probe
// shows where that gain comes from.
func tdRegimes() ([]tdRegime, error) {
	hdd, err := hddProfile()
	if err != nil {
		return nil, err
	}
	out := []tdRegime{{name: "none (td/queues)"}}
	for _, c := range tdCosts(hdd) {
		r := tdRegime{name: c.name}
		c.on(&r)
		out = append(out, r)
	}
	at20 := tdAllOn(hdd)
	at20.name, at20.oversub = fmt.Sprintf("all on, %g:1 (td/map)", tdRegimeOversub20), tdRegimeOversub20
	return append(out, tdAllOn(hdd), at20), nil
}

// tdRegimeOversub20 is td/regime's last set-up's over-subscription: the
// largest on td/map's axis.
const tdRegimeOversub20 = 20.0

// tdAllOn is the regime with all five costs.
func tdAllOn(hdd scenario.Profile) tdRegime {
	r := tdRegime{name: "all on"}
	for _, c := range tdCosts(hdd) {
		c.on(&r)
	}
	return r
}

// ---------------------------------------------------------------------
// td/regime

// runTDRegime is the ablation: every regime of tdRegimes, queue type,
// scheduler and seed, on the same 200 GB queues.
func runTDRegime(o Options) (*Result, error) {
	regs, err := tdRegimes()
	if err != nil {
		return nil, err
	}
	g, err := tdGrid(o, tdScenarios(regs...), tdPolicies, true, true)
	if err != nil {
		return nil, err
	}
	type R = harness.Cell // scenario: regime x queue; p unused
	of := func(p int, v func(*tdOut) float64) func(R) harness.Stat { return g.ByPolicy(p, false, v) }
	comp := func(x *tdOut) float64 { return x.completionS }
	// vs is TD's completion over policy p's, seed by seed.
	vs := func(head, csv string, p int) harness.Column[R] {
		return harness.Paired(head, csv, func(r R) harness.Sample {
			var s harness.Sample
			for si := range g.Seeds {
				s.Add(g.At(r.S, si, 2).completionS / g.At(r.S, si, p).completionS)
			}
			return s
		})
	}
	// all is a measure's mean for FIFO, Fair and TD in one cell.
	all := func(head string, csv []string, prec, cprec int, scale float64, v func(*tdOut) float64) harness.Column[R] {
		return harness.Means(head, csv, prec, cprec, scale, of(0, v), of(1, v), of(2, v))
	}
	// stretch is a policy's map stretch, node-local / remote.
	stretch := func(head string, p int) harness.Column[R] {
		name := strings.ToLower(tdPolicies[p].Label)
		return harness.Means(head, []string{name + "_stretch_local", name + "_stretch_remote"}, 2, 3, 1,
			of(p, func(x *tdOut) float64 { return x.stretchL }), g.ByPolicy(p, true, func(x *tdOut) float64 { return x.stretchR }))
	}
	idle := func(x *tdOut) float64 { return x.idleShare }
	var rows []R
	for ti := range TDQueueTypes {
		for ri := range regs {
			rows = append(rows, R{S: ri*len(TDQueueTypes) + ti})
		}
	}
	cols := []harness.Column[R]{
		harness.Key("queue", "queue", func(r R) string { return TDQueueTypes[r.S%len(TDQueueTypes)].Name }),
		harness.Key("set-up", "setup", func(r R) string { return regs[r.S/len(TDQueueTypes)].name }),
		harness.SeedsCol[R]("queues", g.Seeds),
		harness.Spread("FIFO (s)", "fifo_s", 0, 1, of(0, comp)),
		harness.Spread("Fair (s)", "fair_s", 0, 1, of(1, comp)),
		harness.Spread("TD (s)", "td_s", 0, 1, of(2, comp)),
		vs("TD / FIFO", "td_vs_fifo", 0), vs("TD / Fair", "td_vs_fair", 1),
		all("node-local % FIFO / Fair / TD", []string{"fifo_local_pct", "fair_local_pct", "td_local_pct"}, 0, 2, 100, func(x *tdOut) float64 { return x.localRatio }),
		all("hotspots FIFO / Fair / TD", []string{"fifo_hotspots", "fair_hotspots", "td_hotspots"}, 1, 2, 1, (*tdOut).hotspots),
		all("cross-rack GB FIFO / Fair / TD", []string{"fifo_cross_rack_gb", "fair_cross_rack_gb", "td_cross_rack_gb"}, 0, 2, 1, func(x *tdOut) float64 { return x.crossRackGB }),
		stretch("map stretch local / remote, FIFO", 0), stretch("TD", 2),
		harness.Means("idle while maps wait % FIFO / TD", []string{"fifo_idle_pct", "td_idle_pct"}, 1, 2, 100, of(0, idle), of(2, idle)),
	}
	notes := []string{
		"completion: last job's finish (every job submitted at 0), mean (min-max) over the queues. TD / FIFO, TD / Fair: TD's",
		"completion over the other's on the same queue, mean ± standard error (min-max); below 1 TD is faster.",
		fmt.Sprintf("set-ups: %s: td/queues as it runs (one rack of 50, 1 Gbit/s, an ideal 100 MB/s disk, nearest replica,", regs[0].name),
		"a freed slot offered at once, no start-up). Each cost alone, then all five: two racks of 25 at the project's 5:1;",
		"the hadoop1-hdd profile's disk (138 MB/s, 12.4 ms, 4 MiB); Hadoop 0.20's replica order; offers only at each node's",
		"3 s heartbeat; the profile's 4 s start-up; last, all five with the uplinks at 20:1 (added after td/map). hotspots:",
		"td/queues' definition (a node's concurrent non-local reads rising above 4). map stretch: a map's launch-to-end over",
		"its CPU time (start-up included), node-local / not;",
		"idle while maps wait: map-slot time free while a job had a map to launch, over 100 slots x the last map's end.",
	}
	return harness.Table[R]{Title: fmt.Sprintf("td/regime: 200 GB queues on 50 nodes under the costs of the paper's Hadoop 0.20.1 cluster, one at a time and together, %d queues each (README-td.md gives each cost's source)", g.Seeds),
		Cols: cols, Notes: notes}.Result(rows), nil
}

// ---------------------------------------------------------------------
// td/map

// tdMapOversub and tdMapSeekMs are td/map's axes: the two racks' uplink
// over-subscription (1: non-blocking, 5: the project default, 10: the
// ratio the Fair Scheduler paper cites for production clusters, 20
// beyond), and the disk's seek + rotation on the hdd profile's 138 MB/s
// (0: no head; the profile's 12.4 ms, half and double it).
var (
	tdMapOversub = []float64{1, 2.5, 5, 10, 20}
	tdMapSeekMs  = []float64{0, 6.2, 12.4, 24.8}
)

// tdMapQueue is td/map's queue type: small, the one the paper says TD
// helps most and in which FIFO reads most blocks remotely in td/queues.
var tdMapQueue = TDQueueTypes[0]

// tdMapRegime is td/regime's all-on set-up with the map's two axes set.
func tdMapRegime(hdd scenario.Profile, oversub, seekMs float64) tdRegime {
	r := tdAllOn(hdd)
	r.name = fmt.Sprintf("%g:1, seek %g ms", oversub, seekMs)
	r.oversub = oversub
	d := *r.disk
	d.SeekMs = seekMs
	r.disk = &d
	return r
}

// tdMapAxes is td/map's grid and labels, all its figure needs.
func tdMapAxes() harness.RegimeMap {
	return harness.RegimeMap{
		XName: "oversub", YName: "seek_ms",
		XLabel: "rack uplink over-subscription (x:1), 2 racks of 25 x 1 Gbit/s",
		YLabel: "disk seek + rotation (ms), 138 MB/s drive",
		Xs:     tdMapOversub, Ys: tdMapSeekMs, YFormat: "%.1f",
		Policy: tdTD, Baseline: tdFIFO,
		Title: "td/map: TD against FIFO on 200 GB small queues, td/regime's all-on set-up with its uplinks' over-subscription and its disk's seek varied",
		Notes: []string{
			"all on besides the axes: 2 racks of 25 nodes, 1 Gbit/s NICs, one 138 MB/s disk a node reading 4 MiB a turn, Hadoop 0.20's",
			"replica order, offers only at each node's 3 s heartbeat, 4 s task start-up. mean turnaround: the queue's jobs' mean finish",
			"(all submitted at 0); throughput: jobs / queue completion, so its ratio is FIFO's completion / TD's.",
		},
	}
}

// tdMap is td/map as a regime map: TD over FIFO on small queues, its cells
// td/regime's all-on set-up (the hadoop1-hdd profile's disk and start-up).
func tdMap() (harness.RegimeMap, error) {
	hdd, err := hddProfile()
	if err != nil {
		return harness.RegimeMap{}, err
	}
	m := tdMapAxes()
	m.Mark(1, hdd.Disk.SeekMs, "paper's hardware, one switch")
	m.Mark(tdRegimeOversub, hdd.Disk.SeekMs, "td/regime all on")
	m.Run = func(_ Options, p harness.PolicySpec, xi, yi int, seed uint64) (harness.MapOutcome, error) {
		jobs, err := tdQueue(tdMapQueue, 200, seed)
		if err != nil {
			return harness.MapOutcome{}, err
		}
		rg := tdMapRegime(hdd, tdMapOversub[xi], tdMapSeekMs[yi])
		out, err := tdSim{jobs: jobs, policy: p, seed: seed, setup: rg}.run(p.Label+", "+rg.name, true, true)
		if err != nil {
			return harness.MapOutcome{}, err
		}
		return harness.MapOutcome{Turnaround: out.meanTurnaroundS, Throughput: 3600 * float64(out.finished) / out.completionS}, nil
	}
	return m, nil
}

// tdMapFigure is td/map's heat figure: the completion ratio, the paper's
// measure, on the grid.
func tdMapFigure() *report.TableFigure {
	m := tdMapAxes()
	f := harness.MapFigure("td/map: TD's throughput over FIFO's by over-subscription and disk seek (small queues)",
		"FIFO's queue completion over TD's on the same 200 GB small queue (above 1: TD finishes first), mean over 5 queues, on two "+
			"racks of 25 nodes with Hadoop 0.20's replica order, 3 s heartbeats without the out-of-band offer and 4 s task start-up; "+
			"x: the rack uplinks' over-subscription, y: the disk's seek + rotation on a 138 MB/s drive. Marked: the paper's hardware "+
			"on a non-blocking network and td/regime's all-on set-up.",
		"The paper reports TD's queue completion 'significantly shorter' than FIFO's on its 50-node Hadoop 0.20.1 cluster with "+
			"one disk a node (section V-A, Fig. 7); it gives no network, no disk figures and no numbers in its text.",
		m)
	return harness.ThroughputHeat(f, m)
}
