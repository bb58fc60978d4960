package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

// runOutputs runs a scenario and returns the SHA-256 of each output a run
// directory holds but scenario.yaml (the file as written) and perf.json
// (wall time): summary.json, jobs.csv, timeseries.csv, uplinks.csv and
// pools.csv.
func runOutputs(t *testing.T, src string) map[string]string {
	t.Helper()
	res := runYAML(t, src)
	out := map[string]string{}
	for name, write := range map[string]func(io.Writer) error{
		"summary.json":   func(w io.Writer) error { return metrics.WriteSummaryJSON(w, res.Summary) },
		"jobs.csv":       res.Collector.WriteJobsCSV,
		"timeseries.csv": res.Collector.WriteTimeseriesCSV,
		"uplinks.csv":    res.Collector.WriteUplinksCSV,
		"pools.csv":      res.Collector.WritePoolsCSV,
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b.Bytes())
		out[name] = hex.EncodeToString(h[:])
	}
	return out
}

// placementScenario is a small run of FB-2009 under fair sharing, which
// reads a third of its maps' input off the map's node, with extra cluster
// and workload fields.
func placementScenario(cluster, workload string) string {
	return "policy: {name: fair}\ncluster:\n  racks: 3\n  nodes_per_rack: 4\n" + cluster +
		"workload:\n  trace: FB-2009\n  max_jobs: 80\n" + workload
}

// placementFingerprint builds placementScenario(cluster, workload) and
// returns its workload's fingerprint, which diff compares before it pairs
// two runs' jobs.
func placementFingerprint(t *testing.T, cluster, workload string) string {
	t.Helper()
	cfg, err := Parse(strings.NewReader(placementScenario(cluster, workload)), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	topo, jobs, _, err := cfg.Build()
	if err != nil {
		t.Fatal(err)
	}
	return Fingerprint(topo.Config(), jobs)
}

// TestDefaultPlacementAndReplicaChoiceAreByteIdentical: the new settings
// written at their defaults run exactly what leaving them out runs, every
// output byte for byte, and the workload keeps the fingerprint it had
// before the settings existed. The other values change the outputs, so
// the comparison can tell.
func TestDefaultPlacementAndReplicaChoiceAreByteIdentical(t *testing.T) {
	absent := runOutputs(t, placementScenario("", ""))
	explicit := runOutputs(t, placementScenario("  replica_choice: nearest-random\n", "  placement: outside\n"))
	for name, want := range absent {
		if explicit[name] != want {
			t.Errorf("%s differs with replica_choice: nearest-random and placement: outside written out; the defaults must run what absent fields run", name)
		}
	}
	for _, tc := range []struct{ what, cluster, workload string }{
		{"replica_choice: hadoop-0.20", "  replica_choice: hadoop-0.20\n", ""},
		{"placement: writer", "", "  placement: writer\n"},
	} {
		other := runOutputs(t, placementScenario(tc.cluster, tc.workload))
		if other["jobs.csv"] == absent["jobs.csv"] && other["timeseries.csv"] == absent["timeseries.csv"] {
			t.Errorf("%s ran the same jobs.csv and timeseries.csv as the defaults: it changed nothing, or this test cannot see a change", tc.what)
		}
	}
	// The fingerprint of this workload as the model computed it before
	// data sets and placement existed (v1 encoding).
	if got, want := placementFingerprint(t, "", "  placement: outside\n"), "4263cff83c9c33e1"; got != want {
		t.Errorf("fingerprint %s, want %s, the one runs made before placement existed: diff would refuse to compare them", got, want)
	}
}

// TestPlacementChangesTheFingerprintAndReplicaChoiceDoesNot: where the
// input lives is part of the workload (diff must not pair jobs that read
// other blocks), how it is read is not (a run under hadoop-0.20 compares
// job by job with one under nearest-random).
func TestPlacementChangesTheFingerprintAndReplicaChoiceDoesNot(t *testing.T) {
	base := placementFingerprint(t, "", "")
	if placementFingerprint(t, "", "  placement: writer\n") == base {
		t.Error("placement: writer kept the workload's fingerprint; its blocks sit elsewhere, so it is another workload")
	}
	if placementFingerprint(t, "  replica_choice: hadoop-0.20\n", "") != base {
		t.Error("replica_choice: hadoop-0.20 changed the workload's fingerprint; it changes how jobs read, not the jobs")
	}
}

// TestSummaryRecordsPlacementReplicaChoiceAndDataSets: summary.json's
// configuration records the settings when they are not the defaults, and
// the data sets a trace with input paths names; at the defaults it
// records none of them, as before they existed.
func TestSummaryRecordsPlacementReplicaChoiceAndDataSets(t *testing.T) {
	summary := func(src string) map[string]any {
		config, _ := summaryOf(t, src)["config"].(map[string]any)
		flat := map[string]any{}
		for sec, v := range config {
			fields, _ := v.(map[string]any)
			for k, v := range fields {
				flat[sec+"."+k] = v
			}
		}
		return flat
	}
	def := summary(placementScenario("", ""))
	for _, k := range []string{"cluster.replica_choice", "workload.placement", "workload.data_sets"} {
		if v, ok := def[k]; ok {
			t.Errorf("summary at the defaults records %s = %v; the defaults are recorded by their absence, as before the settings existed", k, v)
		}
	}
	set := summary("policy: {name: fair}\ncluster:\n  racks: 3\n  nodes_per_rack: 4\n  replica_choice: hadoop-0.20\n" +
		"workload:\n  trace: FB-2010-paths\n  max_jobs: 40\n  placement: writer\n")
	for k, want := range map[string]any{"cluster.replica_choice": "hadoop-0.20", "workload.placement": "writer", "workload.data_sets": 29.0} {
		if got := set[k]; got != want {
			t.Errorf("summary records %s = %v, want %v", k, got, want)
		}
	}
}

// TestDataSetRunsAreDeterministic: a run of the trace with input paths,
// writer-placed and read as 0.20 reads, gives the same outputs twice.
func TestDataSetRunsAreDeterministic(t *testing.T) {
	src := "policy: {name: delay}\ncluster:\n  racks: 3\n  nodes_per_rack: 4\n  replica_choice: hadoop-0.20\n" +
		"workload:\n  trace: FB-2010-paths\n  max_jobs: 150\n  placement: writer\n"
	a, b := runOutputs(t, src), runOutputs(t, src)
	for name := range a {
		if a[name] != b[name] {
			t.Errorf("%s differs between two runs of one scenario: the run depends on something besides its inputs and seed", name)
		}
	}
}

// TestTaskCostScaleMultipliesCPUCosts: workload.task_cost_scale multiplies
// every job's map and reduce CPU cost per byte and nothing else, for a
// trace and for the generator alike, and the run records it.
func TestTaskCostScaleMultipliesCPUCosts(t *testing.T) {
	for _, w := range []string{"{trace: FB-2009, max_jobs: 20", "{generator: shufflewatcher, duration_s: 600, input_scale: 0.001"} {
		load := func(extra string) []workload.Job {
			t.Helper()
			c, err := Parse(strings.NewReader("cluster: {racks: 2, nodes_per_rack: 4}\npolicy: {name: fair}\nworkload: "+w+extra+"}\n"), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			_, jobs, _, err := c.Build()
			if err != nil {
				t.Fatal(err)
			}
			return jobs
		}
		base, scaled := load(""), load(", task_cost_scale: 3")
		if len(base) == 0 || len(base) != len(scaled) {
			t.Fatalf("%s: %d and %d jobs", w, len(base), len(scaled))
		}
		for i := range base {
			b, s := base[i], scaled[i]
			if s.Profile.MapSecPerByte != 3*b.Profile.MapSecPerByte || s.Profile.ReduceSecPerByte != 3*b.Profile.ReduceSecPerByte {
				t.Errorf("%s: job %d costs %v / %v s a byte; want three times %v / %v", w, i, s.Profile.MapSecPerByte, s.Profile.ReduceSecPerByte,
					b.Profile.MapSecPerByte, b.Profile.ReduceSecPerByte)
			}
			s.Profile, b.Profile = workload.Profile{}, workload.Profile{}
			if !reflect.DeepEqual(s, b) {
				t.Errorf("%s: job %d differs beyond its costs:\n%+v\n%+v", w, i, s, b)
			}
		}
	}
}
