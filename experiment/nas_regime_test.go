package experiment

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// TestNASRegimeSetUp pins nas/regime's set-up to the paper's (section
// IV-A) and to the rules in README-nas.md: the unscaled day on 600 nodes
// with 200 users and the day's 1 s quantum.
func TestNASRegimeSetUp(t *testing.T) {
	s := nasRegimeDay
	cl := s.Cluster.WithDefaults()
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"nodes", cl.Racks * cl.NodesPerRack, 600},
		{"racks", cl.Racks, 30},
		{"containers", cl.Containers, 6},
		{"users", s.Users, 200},
		{"window end (0: the whole day)", s.EndS, 0.0},
		{"network quantum", s.NetworkQuantumS, 1.0},
		{"byte scale", nasRegimeScale, 1.0},
		{"seeds", nasRegimeSeeds, 2},
		{"default skips_on", sched.DefaultNASSkipsOn, "freed"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestNASRegimeBytesUnscaled: the regime's jobs carry the trace's bytes,
// five times nas/main's (scaled by 600/3000), job by job.
func TestNASRegimeBytesUnscaled(t *testing.T) {
	day := nasDay
	day.EndS = 120
	reg := nasRegimeDay
	reg.EndS = 120
	scaled, err := day.jobs(nasUsers, 1)
	if err != nil {
		t.Fatal(err)
	}
	unscaled, err := reg.jobs(nasUsers, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(scaled) == 0 || len(scaled) != len(unscaled) {
		t.Fatalf("%d scaled and %d unscaled jobs; want the same jobs", len(scaled), len(unscaled))
	}
	for i := range scaled {
		a, b := float64(unscaled[i].InputBytes), 5*float64(scaled[i].InputBytes)
		if d := a - b; d > 5 || d < -5 { // rounding to whole bytes, times 5
			t.Errorf("job %d: input %v unscaled, 5 x %v scaled", i, unscaled[i].InputBytes, scaled[i].InputBytes)
		}
	}
}

// TestNASRegimeWaits pins the schedulers' waits: the paper's simulation
// parameters (no params: D^m = D^r = 135 on freed containers, Delay's
// defaults), and the same 5 s for every locality-aware scheduler in the
// ", 5 s" runs. Each spec must build: parameters are decoded strictly.
func TestNASRegimeWaits(t *testing.T) {
	want := map[string]map[string]any{
		"Fair": nil, "Delay": nil, "SW-delay": nil, "MTS": nil, "NAS w/o CR-RTS": nil, "NAS": nil,
		"Delay, 5 s":    {"t1_s": 5.0, "t2_s": 5.0},
		"SW-delay, 5 s": {"t1_s": 5.0, "t2_s": 5.0},
		"MTS, 5 s":      {"wait_s": 5.0},
		"NAS, 5 s":      {"wait_s": 5.0},
	}
	if len(nasRegimePolicies) != len(want) {
		t.Errorf("%d schedulers, want %d", len(nasRegimePolicies), len(want))
	}
	for _, p := range nasRegimePolicies {
		w, ok := want[p.Label]
		if !ok {
			t.Errorf("unexpected scheduler %q", p.Label)
			continue
		}
		if len(w) == 0 && len(p.Params) != 0 || len(w) != 0 && !reflect.DeepEqual(p.Params, w) {
			t.Errorf("%s: params %v, want %v", p.Label, p.Params, w)
		}
		if _, err := p.Build(); err != nil {
			t.Errorf("%s: %v", p.Label, err)
		}
		// Each baseline meets the NAS of its own waits; the paper-parameter
		// NAS meets NAS with the 5 s wait; NAS with 5 s is compared with none.
		if against := nasRegimeAgainst[p.Label]; against != "" && p.Label != "NAS" && strings.Contains(p.Label, "5 s") != strings.Contains(against, "5 s") {
			t.Errorf("%s is compared with %q: want the NAS with the same waits", p.Label, against)
		}
	}
}

// TestNASMapSetUp pins nas/map: NAS over Delay at the paper's parameters,
// load x users with the paper's point (bytes as traced, 200 users) marked,
// every cell on the same 2-hour window.
func TestNASMapSetUp(t *testing.T) {
	m := nasMap
	if m.Policy.Name != "nas" || m.Baseline.Name != "delay" || len(m.Policy.Params)+len(m.Baseline.Params) != 0 {
		t.Errorf("map %s (%v) over %s (%v); want nas over delay at their defaults", m.Policy.Name, m.Policy.Params, m.Baseline.Name, m.Baseline.Params)
	}
	if len(m.Marks) != 1 {
		t.Fatalf("marks %v; want the paper's point alone", m.Marks)
	}
	for cell := range m.Marks {
		if m.Xs[cell[0]] != 1 || m.Ys[cell[1]] != 200 {
			t.Errorf("the paper's point is marked at scale %v, %v users; want 1, 200", m.Xs[cell[0]], m.Ys[cell[1]])
		}
	}
	for xi := range m.Xs {
		s := nasMapSetup(xi)
		if s.EndS != 2*3600 || s.NetworkQuantumS != 1 {
			t.Errorf("column %d: window end %v s, quantum %v; want 7200 and 1", xi, s.EndS, s.NetworkQuantumS)
		}
	}
	if nasMapFigure == nil || nasMapFigure.Heat == nil {
		t.Error("nas/map has no heat figure")
	}
}

// TestNASRegimeTable runs the regime's schedulers on a few lightly loaded
// jobs and checks that every row is there and compared with the NAS of
// its waits.
func TestNASRegimeTable(t *testing.T) {
	s := nasScaledSetup("test-regime", "test", 0.01, 20)
	res, err := runNASRegime(Options{Seeds: 1, Seed: 1, Parallel: 2}, s, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Table.Rows) != len(nasRegimePolicies) || len(res.CSV.Rows) != len(nasRegimePolicies) {
		t.Fatalf("%d rows, %d CSV rows; want %d", len(res.Table.Rows), len(res.CSV.Rows), len(nasRegimePolicies))
	}
	col := map[string]int{}
	for i, h := range res.CSV.Headers {
		col[h] = i
	}
	for _, r := range res.CSV.Rows {
		label, against := r[col["scheduler"]], r[col["against"]]
		if against != nasRegimeAgainst[label] {
			t.Errorf("%s: against %q, want %q", label, against, nasRegimeAgainst[label])
		}
		if (against != "") != (r[col["nas_job_time_x"]] != "") {
			t.Errorf("%s: against %q but NAS's job-time ratio %q", label, against, r[col["nas_job_time_x"]])
		}
		if r[col["jobs"]] != r[col["jobs_completed"]] {
			t.Errorf("%s: %s of %s jobs completed", label, r[col["jobs_completed"]], r[col["jobs"]])
		}
	}
}
