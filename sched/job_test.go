package sched_test

import (
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// jobState describes a job's progress: launched maps are taken from the
// index, of which finishedMaps have finished and the rest run.
type jobState struct {
	maps, reduces                   int
	launchedMaps, finishedMaps      int
	runningReduces, finishedReduces int
	reducesEnabled                  bool
}

func (s jobState) build(t *testing.T) *sched.Job {
	t.Helper()
	j := newJob(t, smallTopo(t), 0, "p", s.maps, s.reduces)
	startMaps(t, j, s.launchedMaps)
	j.RunningMaps -= s.finishedMaps
	j.FinishedMaps = s.finishedMaps
	j.RunningReduces, j.FinishedReduces = s.runningReduces, s.finishedReduces
	j.ReducesEnabled = s.reducesEnabled
	return j
}

func TestKindForContainerModel(t *testing.T) {
	tests := []struct {
		name     string
		state    jobState
		wantKind sched.TaskKind
		wantOK   bool
		why      string
	}{
		{
			name:     "maps pending, reduces not enabled: map",
			state:    jobState{maps: 10, reduces: 4, launchedMaps: 6, finishedMaps: 5},
			wantKind: sched.MapTask, wantOK: true,
			why: "reduces wait for the slow-start threshold",
		},
		{
			name:     "reduces launched fraction below maps finished fraction: reduce",
			state:    jobState{maps: 10, reduces: 4, launchedMaps: 4, finishedMaps: 2, reducesEnabled: true},
			wantKind: sched.ReduceTask, wantOK: true,
			why: "0/4 reduces launched < 2/10 maps finished",
		},
		{
			name:     "reduces launched fraction above maps finished fraction: map",
			state:    jobState{maps: 10, reduces: 4, launchedMaps: 4, finishedMaps: 2, runningReduces: 1, reducesEnabled: true},
			wantKind: sched.MapTask, wantOK: true,
			why: "1/4 = 0.25 reduces launched >= 2/10 = 0.2 maps finished",
		},
		{
			name:     "equal fractions: map",
			state:    jobState{maps: 8, reduces: 4, launchedMaps: 4, finishedMaps: 2, finishedReduces: 1, reducesEnabled: true},
			wantKind: sched.MapTask, wantOK: true,
			why: "1/4 launched (finished counts as launched) is not below 2/8 finished; the rule is strict",
		},
		{
			name:     "finished reduces count as launched",
			state:    jobState{maps: 10, reduces: 4, launchedMaps: 8, finishedMaps: 6, runningReduces: 1, finishedReduces: 2, reducesEnabled: true},
			wantKind: sched.MapTask, wantOK: true,
			why: "(1 running + 2 finished)/4 = 0.75 launched >= 6/10 = 0.6 finished; counting only running (0.25) would pick a reduce",
		},
		{
			name:     "no map pending, reduces pending: reduce",
			state:    jobState{maps: 4, reduces: 4, launchedMaps: 4, reducesEnabled: true},
			wantKind: sched.ReduceTask, wantOK: true,
			why: "with every map launched the ramp no longer applies",
		},
		{
			name:     "reduces enabled but all launched, maps pending: map",
			state:    jobState{maps: 10, reduces: 2, launchedMaps: 9, finishedMaps: 9, runningReduces: 2, reducesEnabled: true},
			wantKind: sched.MapTask, wantOK: true,
			why: "no reduce left to start",
		},
		{
			name:   "no map pending, reduces not enabled: nothing",
			state:  jobState{maps: 4, reduces: 4, launchedMaps: 4, finishedMaps: 1},
			wantOK: false,
			why:    "reduces pending but held back by slow-start",
		},
		{
			name:   "everything launched: nothing",
			state:  jobState{maps: 4, reduces: 2, launchedMaps: 4, finishedMaps: 4, runningReduces: 1, finishedReduces: 1, reducesEnabled: true},
			wantOK: false,
			why:    "no pending task of either kind",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.state.build(t)
			kind, ok := j.KindFor(sched.AnySlot)
			if ok != tc.wantOK || (ok && kind != tc.wantKind) {
				t.Errorf("KindFor(container) = (%v, %v), want (%v, %v): %s", kind, ok, tc.wantKind, tc.wantOK, tc.why)
			}
		})
	}
}

func TestKindForSlotModel(t *testing.T) {
	// The ramp would pick a reduce for this state in a container; a map slot
	// must still get a map.
	rampWantsReduce := jobState{maps: 10, reduces: 4, launchedMaps: 4, finishedMaps: 2, reducesEnabled: true}
	tests := []struct {
		name     string
		state    jobState
		slot     sched.SlotKind
		wantKind sched.TaskKind
		wantOK   bool
	}{
		{"map slot, maps pending", rampWantsReduce, sched.MapSlot, sched.MapTask, true},
		{"map slot, no map pending", jobState{maps: 2, reduces: 1, launchedMaps: 2, reducesEnabled: true}, sched.MapSlot, sched.MapTask, false},
		{"reduce slot, enabled and pending", jobState{maps: 2, reduces: 1, launchedMaps: 1, reducesEnabled: true}, sched.ReduceSlot, sched.ReduceTask, true},
		{"reduce slot, not enabled", jobState{maps: 2, reduces: 1, launchedMaps: 2, finishedMaps: 2}, sched.ReduceSlot, sched.ReduceTask, false},
		{"reduce slot, all launched", jobState{maps: 2, reduces: 1, launchedMaps: 2, runningReduces: 1, reducesEnabled: true}, sched.ReduceSlot, sched.ReduceTask, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.state.build(t)
			kind, ok := j.KindFor(tc.slot)
			if ok != tc.wantOK || kind != tc.wantKind {
				t.Errorf("KindFor(%v slot) = (%v, %v), want (%v, %v): a slot runs only its own kind", tc.slot, kind, ok, tc.wantKind, tc.wantOK)
			}
		})
	}
}

func TestRunnableAndDemand(t *testing.T) {
	// 10 maps: 3 launched (1 finished, 2 running), 7 pending.
	// 4 reduces: 1 running, 3 pending.
	base := jobState{maps: 10, reduces: 4, launchedMaps: 3, finishedMaps: 1, runningReduces: 1}
	tests := []struct {
		name         string
		enabled      bool
		slot         sched.SlotKind
		wantRunning  int
		wantRunnable int
		wantDemand   int
	}{
		{"map slot", true, sched.MapSlot, 2, 7, 9},
		{"reduce slot, enabled", true, sched.ReduceSlot, 1, 3, 4},
		{"reduce slot, not enabled", false, sched.ReduceSlot, 1, 0, 1},
		{"container, enabled", true, sched.AnySlot, 3, 10, 13},
		{"container, not enabled", false, sched.AnySlot, 3, 7, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			s.reducesEnabled = tc.enabled
			j := s.build(t)
			if got := j.PendingMaps(); got != 7 {
				t.Errorf("PendingMaps = %d, want 7 (10 maps, 3 launched)", got)
			}
			if got := j.PendingReduces(); got != 3 {
				t.Errorf("PendingReduces = %d, want 3 (4 reduces, 1 running)", got)
			}
			if got := j.Running(tc.slot); got != tc.wantRunning {
				t.Errorf("Running(%v) = %d, want %d", tc.slot, got, tc.wantRunning)
			}
			if got := j.Runnable(tc.slot); got != tc.wantRunnable {
				t.Errorf("Runnable(%v) = %d, want %d: pending maps, plus pending reduces only once enabled", tc.slot, got, tc.wantRunnable)
			}
			if got := j.Demand(tc.slot); got != tc.wantDemand {
				t.Errorf("Demand(%v) = %d, want %d: running plus runnable", tc.slot, got, tc.wantDemand)
			}
		})
	}
}

func TestKindStrings(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{sched.MapTask.String(), "map"},
		{sched.ReduceTask.String(), "reduce"},
		{sched.MapSlot.String(), "map"},
		{sched.ReduceSlot.String(), "reduce"},
		{sched.AnySlot.String(), "container"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
