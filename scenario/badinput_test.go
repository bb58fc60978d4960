package scenario

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/testfile"
)

// TestBadInputsAreNamedErrors feeds scenarios a new user writes by
// mistake: each must be an error that names the file, the line and the
// field, in the scenario's own words (no Go type, no YAML tag), and never
// a hang, a panic or a silent default. The ones that used to hang or run
// with a default are marked.
func TestBadInputsAreNamedErrors(t *testing.T) {
	dir := t.TempDir()
	// A two-job trace whose submissions span 10^6 s.
	testfile.Write(t, filepath.Join(dir, "long.tsv"), "a\t0\t0\t1000\t10\t10\nb\t1000000\t1000000\t1000\t10\t10\n")
	const fb = "policy: {name: fair}\nworkload: {trace: FB-2009, max_jobs: 1}\n" // lines 1-2
	cases := []struct {
		name, yaml string
		line       int
		field      string
		want       string // a further substring, if any
	}{
		// Runs that hung.
		{"heartbeat below float resolution (hung)", fb + "engine: {heartbeat_s: 1e-300}\n", 3, "engine.heartbeat_s", "from 0.001 to 3600 (s)"},
		{"heartbeat of a nanosecond (hung)", fb + "engine: {heartbeat_s: 1e-9}\n", 3, "engine.heartbeat_s", ""},
		{"extreme network quantum (cost grew without bound)", fb + "engine: {network_quantum_s: 1e9}\n", 3, "engine.network_quantum_s", "from 0 to 60 (s)"},
		{"heartbeats over a long trace", "policy: {name: fifo}\nworkload: {trace: long.tsv, source_nodes: 10}\nengine:\n  heartbeat_s: 0.01\n", 4, "engine.heartbeat_s", "heartbeats a node"},
		{"timeseries rows over a day", "policy: {name: fair}\nworkload: {trace: FB-2009}\nengine:\n  timeseries_period_s: 0.01\n", 4, "engine.timeseries_period_s", "timeseries rows"},
		{"generator of ten million jobs", "policy: {name: fair}\nworkload:\n  generator: shufflewatcher\n  mean_interarrival_s: 0.001\n  duration_s: 10000\n", 4, "workload.mean_interarrival_s", "jobs"},
		{"heartbeat not below the stall timeout", fb + "engine:\n  heartbeat_s: 100\n  stall_s: 50\n", 4, "engine.heartbeat_s", "stall_s"},
		{"stall timeout not above the default heartbeat", fb + "engine:\n  stall_s: 2\n", 4, "engine.stall_s", "heartbeat_s (3 s)"},
		// Keys given twice, refused in the decoder's words before.
		{"a section given twice", fb + "workload: {users: 3}\n", 3, "workload", "given twice (first at line 2)"},
		{"a fault's time given twice", fb + "faults:\n  - {kill_node: r0n0, at_s: 0, at_s: 1}\n", 4, "faults[0].at_s", "given twice"},
		// Zeros that ran with the defaults.
		{"zero racks (ran 10)", fb + "cluster: {racks: 0}\n", 3, "cluster.racks", "default, 10"},
		{"zero block size (ran 64 MB)", fb + "cluster:\n  block_mb: 0\n", 4, "cluster.block_mb", "default, 64"},
		{"zero replication (ran 3)", fb + "cluster:\n  replication: 0\n", 4, "cluster.replication", ""},
		{"zero heartbeat (ran 3 s)", fb + "engine:\n  heartbeat_s: 0\n", 4, "engine.heartbeat_s", ""},
		{"zero NIC (ran 250 Mbit/s)", fb + "cluster:\n  nic_mbps: 0\n", 4, "cluster.nic_mbps", "Mbit/s"},
		{"zero users (ran 30)", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  users: 0\n", 4, "workload.users", ""},
		{"zero parallel copies (ran 5)", fb + "engine:\n  parallel_copies: 0\n", 4, "engine.parallel_copies", ""},
		{"zero map slots in the slot model (ran 4)", fb + "cluster:\n  map_slots: 0\n", 4, "cluster.map_slots", "slot model"},
		{"zero max jobs (ran all)", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  max_jobs: 0\n", 4, "workload.max_jobs", "default, all"},
		{"zero scale (ran nodes/source_nodes)", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  scale: 0\n", 4, "workload.scale", ""},
		{"zero trace end (ran to the end)", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  end_s: 0\n", 4, "workload.end_s", ""},
		{"zero bytes per reduce (ran 64 MiB)", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  bytes_per_reduce: 0\n", 4, "workload.bytes_per_reduce", ""},
		{"zero stall timeout", fb + "engine: {stall_s: 0}\n", 3, "engine.stall_s", ""},
		{"zero congestion threshold", fb + "engine: {congestion_threshold: 0}\n", 3, "engine.congestion_threshold", "> 0"},
		{"zero max attempts", fb + "engine: {max_attempts: 0}\n", 3, "engine.max_attempts", "default, 4"},
		{"zero copy-compute limit (ran the default)", fb + "engine: {copy_compute: {enabled: true, max_reducers: 0}}\n", 3, "engine.copy_compute.max_reducers", ""},
		{"a zero pool weight (ran 1)", "policy:\n  name: fair\n  params:\n    pools:\n      - name: a\n        weight: 0\nworkload: {trace: FB-2009}\n", 6, "pools[0].weight", "default, 1"},
		{"a zero preemption timeout (ran 60 s)", "policy:\n  name: fair\n  params:\n    preemption: {enabled: true, min_share_timeout_s: 0}\nworkload: {trace: FB-2009}\n", 4, "preemption.min_share_timeout_s", "default, 60"},
		{"a zero default job limit", "policy:\n  name: fair\n  job_limits: {pool_default: 0}\nworkload: {trace: FB-2009}\n", 3, "policy.job_limits.pool_default", "default, no limit"},
		{"a zero pool job limit", "policy:\n  name: fair\n  job_limits:\n    pools: {user0: 0}\nworkload: {trace: FB-2009}\n", 4, "policy.job_limits.pools.user0", "at least 1"},
		{"a job limit on a user without jobs", "policy:\n  name: fair\n  job_limits:\n    users: {alice: 2}\nworkload: {trace: FB-2009}\n", 4, "policy.job_limits.users.alice", "no job is user \"alice\"'s"},
		{"a zero user job limit", "policy:\n  name: fair\n  job_limits:\n    users: {user0: 0}\nworkload: {trace: FB-2009}\n", 4, "policy.job_limits.users.user0", "at least 1"},
		{"a job limit on a pool no job goes to", "policy:\n  name: fair\n  job_limits:\n    pools: {usr0: 2}\nworkload: {trace: FB-2009}\n", 4, "policy.job_limits.pools.usr0", "no job goes to pool \"usr0\" or a queue below it"},
		// Fractions and out-of-range numbers.
		{"fractional racks (ran 2)", fb + "cluster:\n  racks: 2.5\n", 4, "cluster.racks", "not a whole number"},
		{"fractional users", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  users: 7.5\n", 4, "workload.users", "not a whole number"},
		{"fractional policy parameter", "policy:\n  name: nas\n  params:\n    map_skips: 2.5\nworkload: {trace: FB-2009}\n", 4, "map_skips", "not a whole number"},
		{"integer past int range", fb + "cluster:\n  racks: 1e30\n", 4, "cluster.racks", "from 1 to 1048576"},
		{"negative seed", "seed: -1\n" + fb, 1, "seed", ""},
		{"slow start above 1", fb + "engine: {slow_start: 2}\n", 3, "engine.slow_start", "from 0 to 1"},
		{"failure rate above 1", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  task_failure_rate: 1.5\n", 4, "workload.task_failure_rate", ""},
		{"NaN bandwidth", fb + "cluster:\n  rack_uplink_mbps: .nan\n", 4, "cluster.rack_uplink_mbps", ""},
		{"a NIC no hardware has", fb + "cluster:\n  nic_mbps: 1e300\n", 4, "cluster.nic_mbps", ""},
		{"replication past HDFS's maximum", fb + "cluster:\n  replication: 1000\n", 4, "cluster.replication", "512"},
		{"a word for a number", fb + "cluster:\n  racks: many\n", 4, "cluster.racks", "not a number"},
		{"a list for a number", fb + "cluster:\n  racks: [1, 2]\n", 4, "cluster.racks", "a list"},
		{"no value", fb + "cluster:\n  racks:\n", 4, "cluster.racks", "no value"},
		{"a word for a flag", fb + "metrics:\n  slowdown: sometimes\n", 4, "metrics.slowdown", "true or false"},
		{"an unknown replica choice", fb + "cluster:\n  replica_choice: hadoop-2\n", 4, "cluster.replica_choice", `"hadoop-2"; want one of nearest-random, hadoop-0.20`},
		{"a replica choice in another case", fb + "cluster: {replica_choice: Hadoop-0.20}\n", 3, "cluster.replica_choice", `"Hadoop-0.20"`},
		{"no replica choice", fb + "cluster:\n  replica_choice:\n", 4, "cluster.replica_choice", "no value (leave the field out for the default, nearest-random)"},
		{"an unknown placement", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  placement: inside\n", 4, "workload.placement", `"inside"; want one of outside, writer`},
		{"a number for a placement", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  placement: 1\n", 4, "workload.placement", "default, outside"},
		{"fractional demand", "policy: {name: td}\nworkload:\n  trace: FB-2009\n  demand:\n    default: 2.5\n", 5, "workload.demand.default", "whole number"},
		// Messages that named a Go type or nothing.
		{"unknown cluster field", fb + "cluster:\n  rackz: 2\n", 4, "cluster.rackz", "unknown field; cluster has racks"},
		{"unknown engine field", fb + "engine:\n  copy_compute: {enabld: true}\n", 4, "engine.copy_compute.enabld", "unknown field"},
		{"unknown top-level section", fb + "clustr: {racks: 2}\n", 3, "clustr", "unknown field"},
		{"copy-compute limits the wrong way round", fb + "engine:\n  copy_compute:\n    enabled: true\n    max_computing: 5\n    max_reducers: 2\n", 6, "engine.copy_compute.max_computing", "above max_reducers"},
		{"copy-compute with containers", fb + "cluster: {containers: 4}\nengine:\n  copy_compute:\n    enabled: true\n", 6, "engine.copy_compute.enabled", "slot model"},
		{"the load cap with containers", fb + "cluster: {containers: 4}\nengine:\n  load_cap: true\n", 5, "engine.load_cap", "caps map and reduce slots"},
		{"copy-compute limit without copy-compute", fb + "engine:\n  copy_compute:\n    max_reducers: 6\n", 5, "engine.copy_compute.max_reducers", "no effect"},
		// Settings the run would ignore.
		{"a trace setting for the generator", "policy: {name: fair}\nworkload:\n  generator: shufflewatcher\n  max_jobs: 5\n", 4, "workload.max_jobs", "generator does not read it"},
		{"a generator setting for a trace", "policy: {name: fair}\nworkload:\n  trace: FB-2009\n  duration_s: 100\n", 4, "workload.duration_s", "arrivals are the trace's"},
		{"parameters for fifo", "policy:\n  name: fifo\n  params: {t1_s: 5}\nworkload: {trace: FB-2009}\n", 3, "policy.params", "takes no parameters"},
		{"a minimum share the cluster cannot give", "policy:\n  name: fair\n  params:\n    pools:\n      - name: user0\n        min_maps: 500\nworkload: {trace: FB-2009}\n", 6, "policy.params.pools[0].min_maps", "400 map slots"},
		{"a container cap in the slot model", "policy:\n  name: fair\n  pools:\n    - name: user0\n      max_share: 5\nworkload: {trace: FB-2009}\n", 5, "policy.pools[0].max_share", "use max_maps and max_reduces"},
		{"a zero cap", "policy:\n  name: fair\n  pools:\n    - name: user0\n      max_maps: 0\nworkload: {trace: FB-2009}\n", 5, "pools[0].max_maps", "default, no cap"},
		{"a container share in the slot model", "policy:\n  name: fair\n  params:\n    pools:\n      - name: user0\n        min_share: 5\nworkload: {trace: FB-2009}\n", 6, "policy.params.pools[0].min_share", "min_maps"},
		{"a second document", fb + "---\npolicy: {name: fifo}\n", 3, "", "second YAML document"},
		// A section of the wrong shape: a mapping or a list where the other is wanted.
		{"node groups as a mapping", fb + "cluster:\n  node_groups: {hosts: r0n0}\n", 4, "cluster.node_groups", "want a list, got a mapping"},
		{"rack uplinks as a list", fb + "cluster:\n  rack_uplinks: [500]\n", 4, "cluster.rack_uplinks", "want a mapping of names to values, got a list"},
		{"demand as a number", "policy: {name: td}\nworkload:\n  trace: FB-2009\n  demand: 3\n", 4, "workload.demand", "want a mapping of default, by_kind and by_job, got"},
		{"demand by kind as a list", "policy: {name: td}\nworkload:\n  trace: FB-2009\n  demand:\n    by_kind: [swim]\n", 5, "workload.demand.by_kind", "want a mapping of names to map slots, got a list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, msg := refused(t, dir, c.yaml)
			prefix := path + ": line " + strconv.Itoa(c.line) + ": "
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, c.field) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q\nwant it to start %q and name %q (and say %q)", msg, prefix, c.field, c.want)
			}
			inScenarioWords(t, msg, "Config", "sim.", "cluster.Config", "float64", "int64")
		})
	}
}

// refused writes yaml as dir/s.yaml, loads and runs it, and returns the
// path and the error's text; a scenario that is accepted fails the test.
func refused(t *testing.T, dir, yaml string) (path, msg string) {
	t.Helper()
	path = filepath.Join(dir, "s.yaml")
	testfile.Write(t, path, yaml)
	cfg, err := Load(path)
	if err == nil {
		_, err = cfg.Run(nil)
	}
	if err == nil {
		t.Fatalf("accepted:\n%s", yaml)
	}
	return path, err.Error()
}

// inScenarioWords fails the test when msg speaks of Go's or YAML's
// internals (the decoder's words, or any of goWords) rather than of the
// scenario's fields.
func inScenarioWords(t *testing.T, msg string, goWords ...string) {
	t.Helper()
	for _, bad := range append([]string{"unmarshal", "!!"}, goWords...) {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q says %q: the scenario's words, not Go's or YAML's", msg, bad)
		}
	}
}
