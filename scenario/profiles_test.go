package scenario

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sim"
)

// parseScenario parses a small scenario with extra cluster and engine
// fields.
func parseScenario(t *testing.T, clusterExtra, engineExtra string) (*Config, error) {
	t.Helper()
	src := "seed: 3\ncluster: {racks: 2, nodes_per_rack: 4" + clusterExtra + "}\n" +
		"workload: {trace: FB-2009, max_jobs: 60}\npolicy: {name: delay}\n"
	if engineExtra != "" {
		src += "engine: {" + engineExtra + "}\n"
	}
	return Parse(strings.NewReader(src), "s.yaml")
}

// TestProfilesResolveToTheirValues pins each profile's values, as the
// profiles' table in docs/scenarios.md gives them with their sources.
func TestProfilesResolveToTheirValues(t *testing.T) {
	hdd := &cluster.Disk{Kind: "hdd", SeqMBps: 138, SeekMs: 12.4, ChunkKB: 4096}
	cases := []struct {
		profile string
		disk    *cluster.Disk
		engine  sim.Params
	}{
		{"fluid", nil, sim.Params{}},
		{"hadoop1-hdd", hdd, sim.Params{TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, Speculative: true}},
		{"yarn-hdd", hdd, sim.Params{HeartbeatS: 1, TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, LaunchesPerHeartbeat: 1}},
		{"ssd", &cluster.Disk{Kind: "ssd", SeqMBps: 460}, sim.Params{HeartbeatS: 1, TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, LaunchesPerHeartbeat: 1}},
	}
	for _, c := range cases {
		cfg, err := parseScenario(t, ", profile: "+c.profile, "")
		if err != nil {
			t.Fatalf("%s: %v", c.profile, err)
		}
		if got := cfg.Cluster.Disk; (got == nil) != (c.disk == nil) || got != nil && *got != *c.disk {
			t.Errorf("%s: disk %+v, want %+v", c.profile, got, c.disk)
		}
		if got := cfg.Engine; fmt.Sprint(got) != fmt.Sprint(c.engine) {
			t.Errorf("%s: engine %+v, want %+v", c.profile, got, c.engine)
		}
		if len(ProfileNames()) != len(cases) {
			t.Errorf("%d profiles, the test knows %d: pin the new one's values", len(ProfileNames()), len(cases))
		}
		if _, err := cfg.Run(nil); err != nil {
			t.Errorf("%s: %v", c.profile, err)
		}
	}
}

// TestProfileTableInDocs checks that docs/scenarios.md's table of the
// profiles gives the values the profiles resolve to, and a source for
// each value a profile sets.
func TestProfileTableInDocs(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	rows := map[string][]string{}
	var order []string
	add := func(setting, v string) {
		if _, ok := rows[setting]; !ok {
			order = append(order, setting)
		}
		rows[setting] = append(rows[setting], v)
	}
	for _, name := range ProfileNames() {
		cfg, err := parseScenario(t, ", profile: "+name, "")
		if err != nil {
			t.Fatal(err)
		}
		p := cfg.Engine.WithDefaults()
		disk := "none (`disk_mbps`)"
		if d := cfg.Cluster.Disk; d != nil {
			disk = d.Kind + ", " + num(d.SeqMBps) + " MB/s"
			if d.Kind == cluster.DiskHDD {
				disk += ", seek " + num(d.SeekMs) + " ms, chunk " + num(d.ChunkKB) + " KiB"
			}
		}
		none := func(v float64) string {
			if v == 0 {
				return "none"
			}
			return num(v)
		}
		limit := "no limit"
		if p.LaunchesPerHeartbeat > 0 {
			limit = strconv.Itoa(p.LaunchesPerHeartbeat)
		}
		add("cluster.disk", disk)
		add("engine.heartbeat_s", num(p.HeartbeatS))
		add("engine.task_startup_s", num(p.TaskStartupS))
		add("engine.sort_buffer_mb", none(p.SortBufferMB))
		add("engine.merge_factor", none(float64(p.MergeFactor)))
		add("engine.reduce_buffer_mb", none(p.ReduceBufferMB))
		add("engine.launches_per_heartbeat", limit)
		add("engine.speculative", strconv.FormatBool(p.Speculative))
	}
	for _, s := range order {
		row := "| `" + s + "` | " + strings.Join(rows[s], " | ") + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/scenarios.md lacks the profiles' row %q", row)
		}
	}
	for _, p := range Profiles() {
		if p.Name == FluidProfile {
			continue
		}
		for _, path := range []string{"cluster.disk.seq_mbps", "engine.task_startup_s", "engine.sort_buffer_mb", "engine.merge_factor",
			"engine.reduce_buffer_mb", "engine.reduce_input_buffer_mb", "engine.launches_per_heartbeat", "engine.speculative", "engine.heartbeat_s"} {
			if p.Sources[path] == "" {
				t.Errorf("profile %s gives no source for %s", p.Name, path)
			}
		}
	}
}

// TestScenarioFieldsOverrideTheProfile: a field the file writes keeps its
// value under a profile, a written false included.
func TestScenarioFieldsOverrideTheProfile(t *testing.T) {
	cfg, err := parseScenario(t, ", profile: hadoop1-hdd, disk: {seek_ms: 8}", "sort_buffer_mb: 50, speculative: false, task_startup_s: 0")
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Engine
	if e.SortBufferMB != 50 || e.Speculative || e.TaskStartupS != 0 || e.ReduceBufferMB != 140 {
		t.Errorf("engine %+v; want the file's sort_buffer_mb 50, speculative false and task_startup_s 0, the profile's reduce_buffer_mb 140", e)
	}
	if d := cfg.Cluster.Disk; d == nil || d.SeekMs != 8 || d.SeqMBps != 138 || d.Kind != "hdd" {
		t.Errorf("disk %+v; want the file's seek 8 ms on the profile's 138 MB/s hdd", d)
	}
}

// TestProfileErrors: an unknown profile is refused at its line with the
// valid names; disk_mbps beside a profile's disk is refused at its line.
func TestProfileErrors(t *testing.T) {
	for _, c := range []struct {
		cluster, want string
	}{
		{", profile: hadoop2", "s.yaml: line 2: cluster.profile: \"hadoop2\" is not a profile; want one of fluid, hadoop1-hdd, yarn-hdd, ssd"},
		{", profile: yarn-hdd, disk_mbps: 300", "s.yaml: line 2: cluster.disk_mbps: profile yarn-hdd models the disk as cluster.disk"},
		{", disk: {kind: floppy, seq_mbps: 1}", "cluster.disk.kind: \"floppy\"; want \"hdd\" or \"ssd\""},
		{", disk: {kind: hdd, seq_mbps: 100}", "cluster.disk.seek_ms: required for an hdd"},
	} {
		cfg, err := parseScenario(t, c.cluster, "")
		if err == nil {
			_, err = cfg.Run(nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cluster {...%s}: %v; want an error containing %q", c.cluster, err, c.want)
		}
	}
}

// TestFluidProfileIsNoProfile runs a small scenario with no profile and
// with profile fluid and compares the digests of every output file a run
// writes but its perf.json and the scenario as written: they must be the
// same byte for byte. A run under hadoop1-hdd must differ, or the test
// compares nothing.
func TestFluidProfileIsNoProfile(t *testing.T) {
	digest := func(extra string) string {
		t.Helper()
		cfg, err := parseScenario(t, extra, "")
		res := mustRun(t, cfg, err)
		h := sha256.New()
		for _, f := range []func(io.Writer) error{
			func(w io.Writer) error { return metrics.WriteSummaryJSON(w, res.Summary) },
			res.Collector.WriteJobsCSV, res.Collector.WriteTimeseriesCSV, res.Collector.WriteUplinksCSV, res.Collector.WritePoolsCSV,
		} {
			if err := f(h); err != nil {
				t.Fatal(err)
			}
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	none, fluid, hdd := digest(""), digest(", profile: fluid"), digest(", profile: hadoop1-hdd")
	if none != fluid {
		t.Errorf("profile fluid wrote %s, no profile %s: fluid must be the model without a profile, byte for byte", fluid, none)
	}
	if hdd == none {
		t.Error("profile hadoop1-hdd wrote the same outputs as no profile: its costs changed nothing")
	}
}

// TestSpeculationRefusedWithFaults: backups on nodes that die are not
// modelled, so a scenario asking for both is refused at the setting.
func TestSpeculationRefusedWithFaults(t *testing.T) {
	src := "cluster: {racks: 2, nodes_per_rack: 4, profile: hadoop1-hdd}\nworkload: {trace: FB-2009, max_jobs: 20}\npolicy: {name: fair}\nfaults:\n  - {kill_node: r0n1, at_s: 100}\n"
	cfg, err := Parse(strings.NewReader(src), "s.yaml")
	if err == nil {
		_, err = cfg.Run(nil)
	}
	if err == nil || !strings.Contains(err.Error(), "engine.speculative: not modelled with faults") {
		t.Errorf("hadoop1-hdd (speculative) with faults: %v; want engine.speculative refused", err)
	}
	src = strings.Replace(src, "policy:", "engine: {speculative: false}\npolicy:", 1)
	if cfg, err = Parse(strings.NewReader(src), "s.yaml"); err == nil {
		_, err = cfg.Run(nil)
	}
	if err != nil {
		t.Errorf("hadoop1-hdd with speculative: false and faults: %v; want a run", err)
	}
}

// TestApplyMatchesAScenariosProfile: a profile applied to a cluster and
// engine made in Go gives them the costs a scenario file naming the
// profile resolves to.
func TestApplyMatchesAScenariosProfile(t *testing.T) {
	for _, name := range ProfileNames() {
		t.Run(name, func(t *testing.T) {
			c, err := Parse(strings.NewReader("workload: {trace: FB-2009}\npolicy: {name: fair}\ncluster: {profile: "+name+"}\n"), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			p, _ := LookupProfile(name)
			var cl cluster.Config
			var eng sim.Params
			p.Apply(&cl, &eng)
			if !reflect.DeepEqual(cl.Disk, c.Cluster.Disk) || (cl.Disk != nil && cl.DiskMBps != c.Cluster.Disk.SeqMBps) {
				t.Errorf("disk %+v at %v MB/s; the scenario's is %+v", cl.Disk, cl.DiskMBps, c.Cluster.Disk)
			}
			if !reflect.DeepEqual(eng, c.Engine) {
				t.Errorf("engine %+v; the scenario's is %+v", eng, c.Engine)
			}
		})
	}
}
