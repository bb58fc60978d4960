package sched

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
)

// tdOffer runs Algorithm 1 on a free slot of node 5, which holds no block:
// its lines 9-18 update the statuses.
func tdOffer(e *tdEnv) { e.assign(5) }

// tdLaunchOne launches any pending map of j on node 0.
func tdLaunchOne(e *tdEnv, j *Job) {
	i, _ := j.Maps.Any()
	e.launch(0, Decision{Job: j, Kind: MapTask, Map: i})
}

// tdSetup is a job as a transition case sets it up: its demand, maps
// blocks on node on, and, unless st is TDWaiting (left as submitted),
// status st holding occ running maps. Every job is submitted before any is
// set, as TD saw them all arrive before the statuses they are put in.
type tdSetup struct {
	demand, maps int
	on           cluster.NodeID
	st           TDStatus
	occ          int
}

// setUp submits the jobs of specs, kind "x", then puts each in its status.
func (e *tdEnv) setUp(specs []tdSetup) []*Job {
	e.t.Helper()
	jobs := make([]*Job, len(specs))
	for k, sp := range specs {
		jobs[k] = e.job("x", sp.demand, tdNodes(sp.maps, sp.on)...)
	}
	for k, sp := range specs {
		if sp.st != TDWaiting {
			e.put(jobs[k], sp.st, sp.occ)
		}
	}
	return jobs
}

// The acts of the transition cases: one or two offers of a slot on
// node 5, a launch of the first job's map, the end of one of its maps.
func offerOnce(e *tdEnv, _ []*Job)   { tdOffer(e) }
func offerTwice(e *tdEnv, _ []*Job)  { tdOffer(e); tdOffer(e) }
func launchFirst(e *tdEnv, j []*Job) { tdLaunchOne(e, j[0]) }
func endFirst(e *tdEnv, j []*Job)    { e.end(0, j[0]) }

// TestTDStatusTransitions walks every transition of Fig. 6 on hand-built
// job sets, with formulas (2) and (3) at their boundaries. T = 100 map
// slots, L = 0.7, H = 1.3; D is the demands of teenaged and adult jobs,
// O_sen the maps senile jobs run.
func TestTDStatusTransitions(t *testing.T) {
	cases := []struct {
		name  string
		jobs  []tdSetup
		act   func(e *tdEnv, jobs []*Job)
		want  []TDStatus // by job, in setup order
		wantD int
		wantO int
		why   string
	}{
		{
			name:  "formula 2 admits the first waiting job just below T",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 50}, {40, 39, 0, TDSenile, 39}, {10, 5, 1, TDWaiting, 0}, {10, 5, 1, TDWaiting, 0}},
			act:   offerOnce,
			want:  []TDStatus{TDAdult, TDSenile, TDInfantile, TDWaiting},
			wantD: 60, wantO: 39,
			why: "O_sen + D = 39 + 60 = 99 < T = 100 and S_inf is empty: the first waiting job, only it, becomes infantile",
		},
		{
			name:  "formula 2 keeps waiting at T",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 50}, {40, 40, 0, TDSenile, 40}, {10, 5, 1, TDWaiting, 0}},
			act:   offerOnce,
			want:  []TDStatus{TDAdult, TDSenile, TDWaiting},
			wantD: 60, wantO: 40,
			why: "O_sen + D = 40 + 60 = 100 is not < T = 100",
		},
		{
			name:  "at most one infantile",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 60}, {50, 10, 1, TDInfantile, 0}, {1, 1, 1, TDWaiting, 0}},
			act:   offerTwice,
			want:  []TDStatus{TDAdult, TDInfantile, TDWaiting},
			wantD: 60,
			why:   "formula 3 fails (60 + 50 > 100), so the infantile job stays and S_inf being full keeps the waiting job out although O_sen + D = 60 < 100",
		},
		{
			name:  "formula 3 promotes at T, to teenaged below L",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 60}, {10, 10, 0, TDSenile, 10}, {30, 40, 1, TDInfantile, 20}},
			act:   offerOnce,
			want:  []TDStatus{TDAdult, TDSenile, TDTeenaged},
			wantD: 90, wantO: 10,
			why: "O_sen + D + demand = 10 + 60 + 30 = 100 <= T; occupied 20 < L x demand = 21",
		},
		{
			name:  "formula 3 promotes straight to adult at L",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 60}, {10, 10, 0, TDSenile, 10}, {30, 40, 1, TDInfantile, 21}},
			act:   offerOnce,
			want:  []TDStatus{TDAdult, TDSenile, TDAdult},
			wantD: 90, wantO: 10,
			why: "occupied 21 = L x demand is not below it: adult directly",
		},
		{
			name:  "formula 3 keeps infantile above T",
			jobs:  []tdSetup{{60, 100, 0, TDAdult, 60}, {10, 10, 0, TDSenile, 10}, {31, 40, 1, TDInfantile, 25}},
			act:   offerOnce,
			want:  []TDStatus{TDAdult, TDSenile, TDInfantile},
			wantD: 60, wantO: 10,
			why: "10 + 60 + 31 = 101 > T = 100",
		},
		{
			name:  "promotion and admission take one offer each",
			jobs:  []tdSetup{{30, 40, 1, TDInfantile, 0}, {30, 40, 1, TDWaiting, 0}},
			act:   offerOnce,
			want:  []TDStatus{TDTeenaged, TDWaiting},
			wantD: 30,
			why:   "Algorithm 1 lines 9-18 either promote the infantile job or admit a waiting one, never both",
		},
		{
			name:  "teenaged becomes adult when a launch reaches L",
			jobs:  []tdSetup{{10, 20, 0, TDTeenaged, 6}},
			act:   launchFirst,
			want:  []TDStatus{TDAdult},
			wantD: 10,
			why:   "Algorithm 1 line 25: occupied 7 >= L x demand = 7",
		},
		{
			name:  "teenaged stays teenaged below L",
			jobs:  []tdSetup{{10, 20, 0, TDTeenaged, 5}},
			act:   launchFirst,
			want:  []TDStatus{TDTeenaged},
			wantD: 10,
			why:   "occupied 6 < 7",
		},
		{
			name:  "adult launching its last untreated map becomes senile",
			jobs:  []tdSetup{{10, 1, 0, TDAdult, 2}},
			act:   launchFirst,
			want:  []TDStatus{TDSenile},
			wantO: 3,
			why:   "Algorithm 1 line 27: remain = 0; its demand leaves D and its 3 running maps join O_sen",
		},
		{
			name:  "infantile launching its last map becomes senile",
			jobs:  []tdSetup{{10, 1, 0, TDInfantile, 0}},
			act:   launchFirst,
			want:  []TDStatus{TDSenile},
			wantO: 1,
			why:   "line 27 applies to whatever status the job had",
		},
		{
			name:  "senile with maps running stays senile",
			jobs:  []tdSetup{{10, 4, 0, TDSenile, 2}},
			act:   endFirst,
			want:  []TDStatus{TDSenile},
			wantO: 1,
			why:   "occupied 1 > 0",
		},
		{
			name: "senile whose last map ends is finished",
			jobs: []tdSetup{{10, 4, 0, TDSenile, 1}},
			act:  endFirst,
			want: []TDStatus{TDFinished},
			why:  "Algorithm 1 lines 7-8: occupied = 0",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTDEnv(t, 100, TDParams{})
			jobs := e.setUp(c.jobs)
			c.act(e, jobs)
			for k, j := range jobs {
				if got := e.status(j); got != c.want[k] {
					t.Errorf("job %d is %v, want %v: %s", k, got, c.want[k], c.why)
				}
			}
			if e.p.dSum != c.wantD || e.p.oSen != c.wantO {
				t.Errorf("D = %d, O_sen = %d; want %d and %d: %s", e.p.dSum, e.p.oSen, c.wantD, c.wantO, c.why)
			}
		})
	}
}

// TestTDStrayFromBounds checks the per-job measure of how far an adult's
// occupancy strayed from [L, H] x demand: demand 10 gives [7, 13].
func TestTDStrayFromBounds(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{})
	j := e.job("x", 10, tdNodes(40, 0)...)
	e.put(j, TDAdult, 15) // 2 above H x demand
	e.now = 10
	for range 10 { // 5 below L x demand from t = 10
		e.end(0, j)
	}
	e.now = 14
	tdLaunchOne(e, j)
	s := e.p.Stats().Jobs[0]
	want := []struct {
		name      string
		got, want float64
	}{
		{"AboveHSlotS", s.AboveHSlotS, 2 * 10},
		{"BelowLSlotS", s.BelowLSlotS, 2 * 4},
		{"MaxAboveH", s.MaxAboveH, 2},
		{"MaxBelowL", s.MaxBelowL, 2},
		{"AdultS", s.AdultS, 14},
	}
	for _, w := range want {
		if math.Abs(w.got-w.want) > 1e-9 {
			t.Errorf("%s = %v, want %v (15 maps for 10 s, then 5 for 4 s, against [7, 13])", w.name, w.got, w.want)
		}
	}
}

// TestTDTimesTheBounds: AtHS and BelowLS integrate the seconds an adult job
// holds at least H x demand and fewer than L x demand slots. Demand 10:
// [L, H] x demand = [7, 13].
func TestTDTimesTheBounds(t *testing.T) {
	e := newTDEnv(t, 100, tdAMTs)
	j := e.job("io", 10, tdNodes(40, 0)...)
	e.put(j, TDAdult, 13)
	steps := []struct {
		at  float64
		occ int // after the step: maps end one by one on node 0
	}{{4, 12}, {6, 7}, {7, 6}, {10, 5}}
	for _, s := range steps {
		e.now = s.at
		for j.RunningMaps > s.occ {
			e.end(0, j)
		}
	}
	js := e.p.Stats().Jobs[j.Index]
	// occ 13 over [0, 4): at H; 12..7 over [4, 7): inside; 6 over [7, 10): below L.
	if js.AtHS != 4 || js.BelowLS != 3 || js.AdultS != 10 {
		t.Errorf("AtHS %v, BelowLS %v, AdultS %v; want 4, 3, 10: 13 slots (= H x 10) for 4 s, then 12-7 (inside [7, 13]) for 3 s, then 6 (< L x 10) for 3 s",
			js.AtHS, js.BelowLS, js.AdultS)
	}
}

// TestTDTakesBackJobsWhoseOutputWasLost: a job whose finished maps must
// run again (their output was lost with a node) rejoins the co-scheduled
// jobs, from senile or finished, teenaged when it holds fewer than
// L x demand slots, adult otherwise, and TD assigns its maps again; a job
// that is already co-scheduled keeps its status.
func TestTDTakesBackJobsWhoseOutputWasLost(t *testing.T) {
	for _, c := range []struct {
		name string
		st   TDStatus
		occ  int
		want TDStatus
	}{
		{"finished, nothing running", TDFinished, 0, TDTeenaged},
		{"senile below L", TDSenile, 1, TDTeenaged},
		{"senile at L", TDSenile, 7, TDAdult},
		{"adult stays adult", TDAdult, 3, TDAdult},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTDEnv(t, 100, TDParams{})
			j := e.job("x", 10, tdNodes(4, 1)...)
			e.put(j, c.st, c.occ)
			// Two finished maps come back, their output lost with node 3.
			for _, i := range []int{0, 1} {
				j.Maps.Take(i)
				j.Maps.Return(i)
			}
			e.p.MapOutputsLost(e, j, 3, 2)
			if got := e.status(j); got != c.want {
				t.Fatalf("status %v after its maps came back, want %v", got, c.want)
			}
			d, ok := e.assign(1)
			if !ok || d.Job != j || d.Kind != MapTask {
				t.Errorf("TD assigned %+v, %v on node 1; want a map of the job, whose blocks are there", d, ok)
			}
		})
	}
}
