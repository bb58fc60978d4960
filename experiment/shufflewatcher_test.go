package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/experiment/probe"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/workload"
)

// The calibration puts the default mix's expected cross-rack demand (a
// node-local schedule: (racks-1)/racks of the shuffle plus one off-rack
// replica of the output) at the racks' uplink capacity, keeping Table 2's
// shape and percentages.
func TestSWCalibrationSizeBins(t *testing.T) {
	s := swCalibrationScale(swCluster(), workload.DefaultSWMix())
	if s < 0.05 || s > 0.25 {
		t.Fatalf("scale %v, want about 0.11 (Table 2 offers ~9x the uplinks' capacity)", s)
	}
	bins := workload.ScaledSizeBins(s)
	orig := workload.InputSizeBins()
	if len(bins) != len(orig) {
		t.Fatalf("%d bins, want %d", len(bins), len(orig))
	}
	for i := range bins {
		if bins[i].Percent != orig[i].Percent {
			t.Errorf("bin %d percent %v, want Table 2's %v", i, bins[i].Percent, orig[i].Percent)
		}
		if r := float64(bins[i].MaxBytes) / float64(orig[i].MaxBytes); math.Abs(r-s) > 1e-6 {
			t.Errorf("bin %d max scaled by %v, want %v", i, r, s)
		}
		if i > 0 && bins[i].MinBytes != bins[i-1].MaxBytes {
			t.Errorf("bins %d and %d not contiguous", i-1, i)
		}
	}
	// The generated workload's expected cross-rack demand is the capacity.
	cl := swCluster().WithDefaults()
	cfg := swConfig{Name: "t", RampS: 0, WindowS: 200 * 3600}
	jobs, err := swWorkload(cfg, nil, 7, swUsers)
	if err != nil {
		t.Fatal(err)
	}
	var cross float64
	for _, j := range jobs {
		cross += float64(j.ShuffleBytes)*0.9 + float64(j.OutputBytes)
	}
	demand := cross / cfg.arrivalsS()
	capacity := float64(cl.Racks) * cl.RackUplinkMbps * 1e6 / 8
	if r := demand / capacity; r < 0.8 || r > 1.25 {
		t.Errorf("generated cross-rack demand %.2f of capacity over 200 h, want about 1", r)
	}
	if _, err := swWorkload(swDefault, swMix(20, 20, 60), 1, swUsers); err != nil {
		t.Fatal(err)
	}
}

func TestSWMixPercentages(t *testing.T) {
	for _, m := range swMixes {
		var by [workload.NumClasses]float64
		for _, e := range swMix(m.Light, m.Medium, m.Heavy) {
			by[e.Benchmark.Class] += e.Percent
		}
		if math.Abs(by[workload.ClassLight]-m.Light) > 1e-9 || math.Abs(by[workload.ClassMedium]-m.Medium) > 1e-9 ||
			math.Abs(by[workload.ClassHeavy]-m.Heavy) > 1e-9 {
			t.Errorf("%s: got %v", m.Name, by)
		}
	}
	def := swMix(40, 20, 40)
	for i, e := range workload.DefaultSWMix() {
		if math.Abs(def[i].Percent-e.Percent) > 1e-9 {
			t.Errorf("40/20/40 is not Table 1 at %s", e.Benchmark.Name)
		}
	}
}

// The steady window: jobs submitted in [ramp, ramp+window) are measured,
// throughput counts finishes inside it.
func TestSWSteadyWindow(t *testing.T) {
	cfg := swConfig{Name: "t", RampS: 100, WindowS: 1000}
	if cfg.arrivalsS() != 1200 {
		t.Fatalf("arrivals %v, want 1200", cfg.arrivalsS())
	}
	r := &swOutcome{cfg: cfg, jobs: []metrics.JobRecord{
		{Submit: 50, Finish: 150, Kind: "grep"},        // ramp-up job finishing in the window
		{Submit: 100, Finish: 400, Kind: "terasort"},   // first measured
		{Submit: 1099, Finish: 1500, Kind: "terasort"}, // measured, finishes after
		{Submit: 1100, Finish: 1150, Kind: "grep"},     // ramp-down: not measured
	}, probe: &probe.Traffic{ByJob: []probe.JobTraffic{{ShuffleCross: 1}, {ShuffleCross: 2}, {ShuffleCross: 4}, {ShuffleCross: 8}}}}
	if got := r.measured(swAllClasses); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("measured %v, want [1 2]", got)
	}
	if got := r.throughput(swAllClasses); math.Abs(got-2/1000.0*3600) > 1e-9 {
		t.Errorf("throughput %v, want 2 finishes in 1000 s", got)
	}
	if got := r.throughput(workload.ClassHeavy); math.Abs(got-3.6) > 1e-9 {
		t.Errorf("heavy throughput %v, want 3.6", got)
	}
	if got := r.turnaround(); got != (300+401)/2.0 {
		t.Errorf("turnaround %v", got)
	}
	if got := r.trafficOf(swAllClasses).ShuffleCross; got != 6 {
		t.Errorf("cross shuffle %v, want 6", got)
	}
	if swPaper4h.WindowS != 4*3600 || swDefault.WindowS <= 0 || swDefault.arrivalsS() >= swPaper4h.arrivalsS() {
		t.Errorf("configs: %+v %+v", swDefault, swPaper4h)
	}
}

func TestSWRegistryNames(t *testing.T) {
	want := []string{"shufflewatcher/main", "shufflewatcher/traffic", "shufflewatcher/breakdown", "shufflewatcher/mix",
		"shufflewatcher/timeseries", "shufflewatcher/concurrency", "shufflewatcher/users", "shufflewatcher/placement",
		"shufflewatcher/main-table3", "shufflewatcher/main-4h", "shufflewatcher/regime", "shufflewatcher/map"}
	if len(swExperiments) != len(want) {
		t.Fatalf("%d experiments, want %d", len(swExperiments), len(want))
	}
	seen := map[string]int{}
	for i, e := range swExperiments {
		if e.Name != want[i] || e.Measure == nil || e.DefaultSeeds < 1 || e.Summary == "" || !strings.Contains(e.Source, "ShuffleWatcher") {
			t.Errorf("experiment %d: %+v", i, e)
		}
		seen[e.Name]++
	}
	for _, r := range registry {
		if !strings.HasPrefix(r.Name, "shufflewatcher/") {
			seen[r.Name]++
		}
	}
	for n, k := range seen {
		if k > 1 {
			t.Errorf("%s registered %d times", n, k)
		}
	}
	for _, p := range append(append([]harness.PolicySpec{}, swMainPols...), swNASS, swNASSSARP) {
		if _, err := p.Build(); err != nil {
			t.Errorf("%s: %v", p.Label, err)
		}
	}
}

// The Table 3 calibration offers, in expectation, Table 3's shuffle volume
// (1344 GB in 4 h) at one job every 40 s: checked on 200 h of arrivals.
func TestSWTable3ScaleMatchesTable3Shuffle(t *testing.T) {
	s := swTable3Scale(workload.DefaultSWMix())
	if u := swCalibrationScale(swCluster(), workload.DefaultSWMix()); s >= u {
		t.Fatalf("Table 3 scale %v not below the uplink calibration %v: Table 3's volume is about a quarter of the uplinks' capacity", s, u)
	}
	cfg := swConfig{Name: "t", RampS: 0, WindowS: 200 * 3600, Volume: swVolumeTable3}
	jobs, err := swWorkload(cfg, nil, 7, swUsers)
	if err != nil {
		t.Fatal(err)
	}
	var shuffle float64
	for _, j := range jobs {
		shuffle += float64(j.ShuffleBytes)
	}
	perHour := shuffle / (cfg.arrivalsS() / 3600)
	if r := perHour / (swTable3ShuffleBytes / (swTable3S / 3600)); r < 0.8 || r > 1.25 {
		t.Errorf("generated shuffle %.0f GB/h is %.2f of Table 3's, want about 1", perHour/1e9, r)
	}
}

// One job per user (Fig. 14(a)'s per-job fairness) changes users alone:
// the same arrivals, benchmarks and sizes, every job in a pool of its own.
func TestSWWorkloadUserPerJob(t *testing.T) {
	base, err := swWorkload(swDefault, nil, 3, swUsers)
	if err != nil {
		t.Fatal(err)
	}
	per, err := swWorkload(swDefault, nil, 3, swUserPerJob)
	if err != nil {
		t.Fatal(err)
	}
	if len(per) != len(base) {
		t.Fatalf("%d jobs with one user per job, %d with 30 users; want the same arrivals", len(per), len(base))
	}
	pools := map[string]bool{}
	for i := range per {
		if per[i].Submit != base[i].Submit || per[i].InputBytes != base[i].InputBytes || per[i].Kind != base[i].Kind {
			t.Fatalf("job %d differs beyond its user: %+v vs %+v", i, per[i], base[i])
		}
		if pools[per[i].Pool] {
			t.Fatalf("pool %s holds two jobs, want one job per user", per[i].Pool)
		}
		pools[per[i].Pool] = true
	}
}
