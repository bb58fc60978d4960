package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
)

// The real cluster's workload: 200 jobs drawn from the FB-2010 day with the
// trace's bytes unscaled (the paper keeps Fig. 2's class mix), dense IDs in
// submit order, the first at 0, exponential gaps of mean 14 s, and the same
// draw for the same seed.
func TestNASCluster40Jobs(t *testing.T) {
	jobs, err := nasCluster40Jobs(nasCluster40, nasUsers, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != nasCluster40N {
		t.Fatalf("%d jobs, want %d (section IV-A)", len(jobs), nasCluster40N)
	}
	day, err := nasTraceJobs(nasSetup{Cluster: nasCluster40Config()}, nasUsers, 3)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int64{}
	for _, j := range day {
		// nasTraceJobs scales by 40/3000; unscale to compare inputs.
		byName[j.Name] = j.InputBytes
	}
	scale := 40.0 / nasFB2010Source
	for i, j := range jobs {
		if j.ID != i {
			t.Fatalf("job %d has ID %d, want dense IDs in submit order", i, j.ID)
		}
		if i == 0 && j.Submit != 0 {
			t.Errorf("first submit %v, want 0", j.Submit)
		}
		if i > 0 && j.Submit < jobs[i-1].Submit {
			t.Errorf("job %d submits at %v before job %d at %v", i, j.Submit, i-1, jobs[i-1].Submit)
		}
		if in, ok := byName[j.Name]; !ok {
			t.Errorf("job %s is not a FB-2010 job", j.Name)
		} else if d := math.Abs(float64(in) - scale*float64(j.InputBytes)); d > 1+1e-9*float64(j.InputBytes) {
			t.Errorf("job %s input %d, want the trace's unscaled bytes (%d at scale %v)", j.Name, j.InputBytes, in, scale)
		}
	}
	gap := jobs[len(jobs)-1].Submit / float64(len(jobs)-1)
	if gap < 0.7*nasCluster40MeanGapS || gap > 1.3*nasCluster40MeanGapS {
		t.Errorf("mean gap %.1f s, want about %v s (exponential, 199 gaps)", gap, nasCluster40MeanGapS)
	}
	again, err := nasCluster40Jobs(nasCluster40, nasUsers, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if jobs[i].Name != again[i].Name || jobs[i].Submit != again[i].Submit || jobs[i].User != again[i].User {
			t.Fatalf("job %d differs between two draws with seed 3: determinism broken", i)
		}
	}
}

// The trace set-ups replay exactly the jobs submitted in their window.
func TestNASTraceWindow(t *testing.T) {
	day, err := nasTraceJobs(nasDay, nasUsers, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, j := range day {
		if j.Submit < nasSlice.EndS {
			want++
		}
	}
	slice, err := nasTraceJobs(nasSlice, nasUsers, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(slice) != want || want == 0 {
		t.Errorf("window [0, %v s) has %d jobs, want %d (the day's jobs submitted in it)", nasSlice.EndS, len(slice), want)
	}
	if len(day) != 24442 {
		t.Errorf("the day has %d jobs, want the trace's 24442", len(day))
	}
}

// `experiment nas` is E2 as the paper ran it (the day) and the real
// cluster; the 30-minute window is a group of its own.
func TestNASGroups(t *testing.T) {
	tests := []struct {
		group   string
		want    []string
		notWant string
	}{
		{"nas", []string{"nas/main", "nas/classes", "nas/users", "nas/diagnose", "nas/cluster40", "nas/cluster40-classes", "nas/regime", "nas/map"}, "nas-window/"},
		{"nas-window", []string{"nas-window/main", "nas-window/classes", "nas-window/users"}, "nas/"},
	}
	for _, tc := range tests {
		exps, err := Select([]string{tc.group})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range exps {
			got = append(got, e.Name)
			if strings.HasPrefix(e.Name, tc.notWant) {
				t.Errorf("group %q selects %s", tc.group, e.Name)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("group %q selects %v, want %v", tc.group, got, tc.want)
		}
	}
}

// Throughput is the paper's (jobs over last finish minus first submit), per
// class when asked; classes use the predictor's bounds in MB of 2^20 bytes.
func TestNASMeasures(t *testing.T) {
	const mb = 1 << 20
	r := &nasOutcome{Jobs: []metrics.JobRecord{
		{Submit: 0, Finish: 1800, ShuffleBytes: mb / 2, MapProgressAtFirstReduce: -1, Locality: [3]int{4, 0, 0}},
		{Submit: 600, Finish: 3600, ShuffleBytes: 50 * mb, MapProgressAtFirstReduce: 0.5, Locality: [3]int{9, 0, 1}},
		{Submit: 1200, Finish: 2400, ShuffleBytes: 200 * mb, MapProgressAtFirstReduce: 1, Locality: [3]int{0, 2, 0}},
	}}
	light := func(j *metrics.JobRecord) bool { return nasClassOf(j) == sched.NASLight }
	tests := []struct {
		name      string
		got, want float64
		why       string
	}{
		{"throughput", harness.Throughput(r.Jobs, nil), 3, "3 jobs from 0 s to 3600 s"},
		{"light throughput", harness.Throughput(r.Jobs, light), 2, "1 light job from 0 s to 1800 s"},
		{"job time", harness.JobTime(r.Jobs, nil), (1800.0 + 3000 + 1200) / 3, "mean of finish - submit"},
		{"map progress", harness.MapProgress(r.Jobs), 0.75, "jobs without a reduce launch are left out"},
		{"jobs with a non-local map", harness.NonLocalJobShare(r.Jobs), 2.0 / 3, "one off-rack map or rack-local maps count; all node-local does not"},
		{"heavy class", float64(nasClassOf(&r.Jobs[2])), float64(sched.NASHeavy), "200 MB > 100 MB"},
		{"medium class", float64(nasClassOf(&r.Jobs[1])), float64(sched.NASMedium), "1 MB <= 50 MB <= 100 MB"},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %v, want %v: %s", tc.name, tc.got, tc.want, tc.why)
		}
	}
}

// Every scheduler of the NAS experiments builds, with the real cluster's
// wait where it applies, and Fair comes first: the tables normalise to it.
func TestNASPoliciesBuild(t *testing.T) {
	if nasPolicies[0].Label != "Fair" {
		t.Fatalf("first scheduler %q, want Fair (runNASMain and runNASClasses take res[0] as the baseline)", nasPolicies[0].Label)
	}
	for _, s := range []nasSetup{nasSlice, nasCluster40} {
		for _, p := range nasPolicies {
			spec := s.policy(p)
			if _, err := spec.Build(); err != nil {
				t.Errorf("%s on %s: %v", p.Label, s.Name, err)
			}
			if _, waits := spec.Params["wait_s"]; waits != (s.WaitS > 0 && strings.HasPrefix(p.Name, "nas")) {
				t.Errorf("%s on %s: wait_s set %v, want it exactly for NAS's variants on the real cluster", p.Label, s.Name, waits)
			}
		}
	}
}

// nas/diagnose runs end to end on a small slice: one row per scheduler,
// Delay first as the baseline (its ratio to itself is 1), and the two
// waiting variants really wait rather than count skips.
func TestNASDiagnoseRuns(t *testing.T) {
	if nasDiagnosePolicies[0].Label != "Delay" {
		t.Fatalf("first scheduler %q, want Delay: runNASDiagnose takes res[0] as the baseline", nasDiagnosePolicies[0].Label)
	}
	for _, p := range nasDiagnosePolicies[3:] {
		if p.Params["wait_s"] != nasDiagnoseWaitS {
			t.Errorf("%s: wait_s %v, want %v (Delay's node-local wait)", p.Label, p.Params["wait_s"], nasDiagnoseWaitS)
		}
	}
	tiny := nasSetup{Name: "diagnose-test", Describe: "FB-2010 [0, 2 min) on 20 nodes",
		Cluster: cluster.Config{Racks: 4, NodesPerRack: 5, Containers: 4, CPUCores: 8, MemoryGB: 16,
			NICMbps: 250, RackUplinkMbps: 250, BlockMB: 128, Replication: 3},
		Users: 10, EndS: 120, Paper: nasPaperSim}
	res, err := runNASDiagnose(Options{Seeds: 1, Seed: 1, Parallel: 2}, tiny)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Table.Rows), len(nasDiagnosePolicies); got != want {
		t.Fatalf("%d table rows, want one per scheduler (%d)", got, want)
	}
	if got := res.Table.Rows[0][2]; got != "1.00" {
		t.Errorf("Delay's job time x Delay = %q, want 1.00", got)
	}
	if got, want := len(res.CSV.Rows), len(nasDiagnosePolicies); got != want {
		t.Errorf("%d CSV rows, want %d", got, want)
	}
}
