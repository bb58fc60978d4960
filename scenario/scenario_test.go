package scenario

import (
	"bytes"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

func TestParseRejectsBadScenarios(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings the error must contain
	}{
		{"unknown top-level field", "seed: 1\npolicy: {name: fair}\nclustr: {racks: 2}\n", []string{"line 3", "clustr"}},
		{"unknown cluster field", "policy: {name: fair}\ncluster:\n  rack: 2\n", []string{"line 3", "rack"}},
		{"wrong type", "policy: {name: fair}\ncluster:\n  racks: many\n", []string{"line 3", "many"}},
		{"missing policy", "seed: 1\n", []string{"policy.name"}},
		{"empty", "", []string{"empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.yaml), "bad.yaml")
			if err == nil {
				t.Fatalf("Parse accepted %q", c.yaml)
			}
			for _, w := range append(c.want, "bad.yaml") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q: a user must be told the file, line and field", err, w)
				}
			}
		})
	}
}

func TestBuildRejectsBadSettings(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown policy", "policy: {name: nope}\nworkload: {trace: FB-2009}\n", `unknown policy "nope"`},
		{"unknown policy param", "policy: {name: fair, params: {pool: []}}\nworkload: {trace: FB-2009}\n", "pool"},
		{"bad pool mode", "policy:\n  name: fair\n  params:\n    pools: [{name: a, mode: lifo}]\nworkload: {trace: FB-2009}\n", "mode"},
		{"NaN pool weight, at its line in the list", "policy:\n  name: fair\n  params:\n    pools:\n      - name: a\n      - name: b\n        weight: .nan\nworkload: {trace: FB-2009}\n", "line 7: policy fair: pools[1].weight (b): want a finite number > 0"},
		{"bad pool entry, at the entry's line", "policy:\n  name: fair\n  params:\n    pools:\n      - name: a\n        min_maps: -1\nworkload: {trace: FB-2009}\n", "line 5: policy fair: pools[0] (a): minimum shares"},
		{"impossible cluster", "policy: {name: fair}\ncluster: {racks: -1}\nworkload: {trace: FB-2009}\n", "line 2: cluster.racks"},
		{"too large a cluster", "policy: {name: fair}\ncluster:\n  racks: 2000\n  nodes_per_rack: 1000\nworkload: {trace: FB-2009}\n", "line 3: cluster.racks, cluster.nodes_per_rack"},
		{"no workload", "policy: {name: fair}\n", "workload"},
		{"trace file without source nodes", "policy: {name: fair}\nworkload: {trace: x.tsv}\n", "source_nodes"},
		{"missing trace file", "policy: {name: fair}\nworkload: {trace: /nonexistent.tsv, source_nodes: 600}\n", "nonexistent"},
		{"unknown generator", "policy: {name: fair}\nworkload: {generator: zipf}\n", "generator"},
		{"unknown param, at its own line", "policy:\n  name: nas\n  params:\n    map_skips: 5\n    traffic_threshold: 2\nworkload: {trace: FB-2009}\n", "line 5: traffic_threshold: no such parameter; the policy takes pools, preemption, job_limits, size_based_weight, congestion_threshold, map_skips"},
		{"param of the wrong type, at its line", "policy:\n  name: delay\n  params:\n    t1_s: abc\nworkload: {trace: FB-2009}\n", `line 4: policy delay: t1_s: "abc" is not a number`},
		{"param of the wrong type in a flow map, at the map's line", "policy: {name: delay, params: {t2_s: 3, t1_s: abc}}\nworkload: {trace: FB-2009}\n", `line 1: policy delay: t1_s: "abc" is not a number`},
		{"param the policy refuses, at its line", "policy:\n  name: delay\n  params:\n    t1_s: -3\nworkload: {trace: FB-2009}\n", "line 4: policy delay: t1_s"},
		{"negative generator interarrival", "policy: {name: fair}\nworkload: {generator: shufflewatcher, mean_interarrival_s: -5}\n", "line 2: workload.mean_interarrival_s"},
		{"negative max jobs", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  max_jobs: -5\n", "line 4: workload.max_jobs: -5; want a whole number from 1"},
		{"trace window ends before it starts", "policy: {name: fair}\nworkload: {trace: FB-2009, start_s: 100, end_s: 50}\n", "line 2: workload.end_s: 50: not after the window's start 100"},
		{"negative scale", "policy: {name: fair}\nworkload: {trace: FB-2009, scale: -1}\n", "line 2: workload.scale"},
		{"steady window ends before it starts", "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 5}\nmetrics:\n  steady_start_s: 10\n  steady_end_s: 5\n", "line 5: metrics.steady_end_s: 5 is not after"},
		{"steady window with a start only", "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 5}\nmetrics: {steady_start_s: 1000}\n", "metrics.steady_end_s: 0 is not after"},
		{"negative steady start", "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 5}\nmetrics: {steady_start_s: -1, steady_end_s: 5}\n", "line 3: metrics.steady_start_s"},
		{"bad engine param", "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 5}\nengine: {slow_start: 2}\n", "line 3: engine.slow_start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(strings.NewReader(c.yaml), "s.yaml")
			if err == nil {
				_, err = cfg.Run(nil)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "s.yaml: ") {
				t.Errorf("got error %v, want one naming the file s.yaml and mentioning %q", err, c.want)
			}
		})
	}
}

// TestSameSeedSameBytes: a run's outputs depend only on its inputs and seed.
func TestSameSeedSameBytes(t *testing.T) {
	yaml := "seed: 5\ncluster: {racks: 3, nodes_per_rack: 4}\nworkload: {trace: FB-2009, max_jobs: 300, users: 6}\npolicy: {name: fair}\n"
	var outs [2][3][]byte
	for i := range outs {
		res := runYAML(t, yaml)
		var s, j, ts bytes.Buffer
		if err := metrics.WriteSummaryJSON(&s, res.Summary); err != nil {
			t.Fatal(err)
		}
		if err := res.Collector.WriteJobsCSV(&j); err != nil {
			t.Fatal(err)
		}
		if err := res.Collector.WriteTimeseriesCSV(&ts); err != nil {
			t.Fatal(err)
		}
		outs[i] = [3][]byte{s.Bytes(), j.Bytes(), ts.Bytes()}
	}
	for k, name := range []string{"summary.json", "jobs.csv", "timeseries.csv"} {
		if !bytes.Equal(outs[0][k], outs[1][k]) {
			t.Errorf("%s differs between two runs of the same scenario and seed", name)
		}
	}
	// A different seed places blocks differently: the run must notice.
	res := runYAML(t, strings.Replace(yaml, "seed: 5", "seed: 6", 1))
	var j bytes.Buffer
	_ = res.Collector.WriteJobsCSV(&j)
	if bytes.Equal(j.Bytes(), outs[0][1]) {
		t.Error("seeds 5 and 6 gave identical jobs.csv: the seed does not reach the run")
	}
}

// TestExamplesParse keeps the shipped example scenarios valid.
func TestExamplesParse(t *testing.T) {
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	growth, err := filepath.Glob("../examples/growth/*.yaml")
	if err != nil || len(growth) == 0 {
		t.Fatalf("no growth examples found: %v", err)
	}
	files = append(files, growth...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := cfg.Build(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestTraceFileRelativeToScenario(t *testing.T) {
	tsv := "job0\t0\t0\t1000000\t1000\t100\njob1\t5\t5\t2000000\t0\t10\n"
	sc := "policy: {name: fifo}\ncluster: {racks: 1, nodes_per_rack: 3}\nworkload: {trace: t.tsv, source_nodes: 3}\n"
	res := runTraceScenario(t, tsv, sc)
	if res.Summary.JobsCompleted != 2 {
		t.Errorf("completed %d jobs of the 2-line trace, want 2", res.Summary.JobsCompleted)
	}
}

// TestSlowdown: two identical jobs submitted together on a one-node
// cluster whose 4 map slots one job's 4 maps fill. Under fifo the first
// runs as if alone (slowdown 1); the second's maps wait for the first's,
// so it takes about twice its time alone.
func TestSlowdown(t *testing.T) {
	const mb64 = 64 << 20
	tsv := "a\t0\t0\t268435456\t1000\t0\nb\t0\t0\t268435456\t1000\t0\n"
	sc := "policy: {name: fifo}\ncluster: {racks: 1, nodes_per_rack: 1, map_slots: 4, reduce_slots: 1, replication: 1}\n" +
		"workload: {trace: t.tsv, source_nodes: 1}\nmetrics: {slowdown: true}\n"
	res := runTraceScenario(t, tsv, sc)
	jobs := res.Collector.Jobs()
	if sd := jobs[0].Slowdown; sd < 0.999 || sd > 1.01 {
		t.Errorf("first job's slowdown = %.3f, want 1: under fifo it runs as if alone", sd)
	}
	if sd := jobs[1].Slowdown; sd < 1.8 || sd > 2.2 {
		t.Errorf("second job's slowdown = %.3f, want about 2: its 4 maps (%d MB each) wait for the first job's", sd, mb64>>20)
	}
	if res.Summary.Slowdown == nil || res.Summary.Slowdown.Count != 2 {
		t.Errorf("summary slowdown = %+v, want a distribution over 2 jobs", res.Summary.Slowdown)
	}
}

// TestJobAloneOnIdleClusterHasSlowdownOne: jobs far apart run on an idle
// cluster, so each one's turnaround is its turnaround alone: slowdown 1.
// The run alone must meet the heartbeats the shared run met; submitted at
// 0 it found one at once and read slowdowns above 1 (in the millions for
// jobs of milliseconds).
func TestJobAloneOnIdleClusterHasSlowdownOne(t *testing.T) {
	// Two small jobs 1000.37 s apart, one of a few kilobytes, and one
	// submitted on node 0's heartbeat (every 3 s from 0).
	tsv := "a\t0\t0\t67108864\t1000\t1000\nb\t1000.37\t1000.37\t67108864\t1000\t1000\nc\t2000.81\t1000.44\t4096\t10\t10\nd\t3000\t999.19\t4096\t10\t10\n"
	sc := "policy: {name: fair}\ncluster: {racks: 2, nodes_per_rack: 3}\nworkload: {trace: t.tsv, source_nodes: 6}\nmetrics: {slowdown: true}\n"
	res := runTraceScenario(t, tsv, sc)
	for _, j := range res.Collector.Jobs() {
		if math.Abs(j.Slowdown-1) > 1e-9 {
			t.Errorf("job %s alone on an idle cluster: slowdown %v, want 1 (turnaround %v s)", j.Name, j.Slowdown, j.Turnaround())
		}
	}
}

// TestSummaryRecordsTheEffectiveConfiguration: summary.json says what
// produced a run, every default filled: the cluster, the engine, the
// workload after scaling, the policy's parameters. Its fingerprint names
// the jobs and cluster: the same under another seed (the seed draws users,
// not jobs), another under another trace.
func TestSummaryRecordsTheEffectiveConfiguration(t *testing.T) {
	run := func(yaml string) map[string]any { t.Helper(); return summaryOf(t, yaml) }
	base := "cluster: {racks: 2}\nworkload: {trace: FB-2009, max_jobs: 40}\npolicy: {name: delay, params: {t1_s: 5}}\n"
	s := run("seed: 4\n" + base)
	cfg := s["config"].(map[string]any)
	for path, want := range map[string]any{
		"seed": 4.0, "cluster.racks": 2.0, "cluster.nodes_per_rack": 10.0, "cluster.block_mb": 64.0,
		"engine.heartbeat_s": 3.0, "engine.slow_start": 0.05, "engine.max_attempts": 4.0,
		"workload.scale": 20.0 / 600, "workload.users": 30.0, "workload.jobs": 40.0, "workload.source_nodes": 600.0,
		"policy.name": "delay", "policy.params.t1_s": 5.0, "policy.params.t2_s": 15.0,
	} {
		var v any = cfg
		for _, k := range strings.Split(path, ".") {
			v = v.(map[string]any)[k]
		}
		if v != want {
			t.Errorf("config.%s = %v, want %v", path, v, want)
		}
	}
	fp := s["workload_fingerprint"]
	if fp == nil || fp == "" {
		t.Fatal("summary.json has no workload_fingerprint")
	}
	if other := run("seed: 5\n" + base)["workload_fingerprint"]; other != fp {
		t.Errorf("fingerprint under seed 5 = %v, under seed 4 %v: a seed does not change a trace's jobs", other, fp)
	}
	if other := run("seed: 4\n" + strings.Replace(base, "FB-2009", "FB-2010", 1))["workload_fingerprint"]; other == fp {
		t.Errorf("FB-2010's fingerprint equals FB-2009's (%v)", fp)
	}
}

// TestPoolBy: without an allocation file jobs go to one pool a user, or,
// with policy.pool_by: queue, to one pool a queue of the trace; a trace
// without queues, or an allocation file beside it, is an error.
func TestPoolBy(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs("../examples/hadoop/job-trace.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, policy, workload string
		want                   []string // the pools jobs go to, sorted
		err                    string
	}{
		{"by user, a trace", "{name: fair}", "{trace: " + trace + "}", nil, ""},
		{"by queue, a trace", "{name: fair, pool_by: queue}", "{trace: " + trace + "}", []string{"default", "dev", "prod.adhoc", "prod.etl"}, ""},
		{"by queue, SWIM", "{name: fair, pool_by: queue}", "{trace: FB-2009, max_jobs: 10}", nil, "policy.pool_by: queue, but job"},
		{"by queue, a pool of no queue", "{name: fair, pool_by: queue, pools: [{name: user0}]}", "{trace: " + trace + "}", nil,
			`no job goes to pool "user0": jobs go to one pool a queue (policy.pool_by: queue), default, dev, prod.adhoc, prod.etl`},
		{"by something else", "{name: fair, pool_by: group}", "{trace: FB-2009}", nil, "policy.pool_by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "cluster: {racks: 2, nodes_per_rack: 4}\nworkload: " + tc.workload + "\npolicy: " + tc.policy + "\n"
			path := filepath.Join(dir, "s.yaml")
			testfile.Write(t, path, src)
			c, err := Load(path)
			var jobs []workload.Job
			if err == nil {
				_, jobs, _, err = c.Build()
			}
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v; want one saying %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if tc.want == nil {
				return
			}
			seen := map[string]bool{}
			for _, j := range jobs {
				seen[j.Pool] = true
			}
			got := slices.Sorted(maps.Keys(seen))
			if !slices.Equal(got, tc.want) {
				t.Errorf("jobs went to pools %v; want the trace's queues %v", got, tc.want)
			}
		})
	}
}

// TestStallDefaultFollowsTheWorkload: engine.stall_s left out is twice
// the workload's span of submissions, at least an hour and ten
// heartbeats, at most a day; written, it is what is written.
func TestStallDefaultFollowsTheWorkload(t *testing.T) {
	jobs := func(span float64) []workload.Job {
		return []workload.Job{{Submit: 100}, {Submit: 100 + span}}
	}
	for _, tc := range []struct {
		name   string
		engine string
		span   float64
		want   float64
	}{
		{"a short workload: an hour", "", 60, 3600},
		{"twice the span", "", 5000, 10000},
		{"a day-long trace: a day, as before", "", 86000, 86400},
		{"long heartbeats: ten of them", "engine: {heartbeat_s: 600}\n", 60, 6000},
		{"written: as written", "engine: {stall_s: 50}\n", 86000, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader("workload: {trace: FB-2009}\npolicy: {name: fifo}\n"+tc.engine), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := c.engineFor(jobs(tc.span)).StallS; got != tc.want {
				t.Errorf("stall_s %v over a span of %v s; want %v", got, tc.span, tc.want)
			}
		})
	}
}
