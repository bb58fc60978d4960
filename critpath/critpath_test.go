package critpath

import (
	"math"
	"testing"
)

// step is one call of a hand trace, at time t.
type step struct {
	t  float64
	do func(r *Recorder, t float64)
}

func launch(job, task int32, n uint32, reach uint8, floor float64) func(*Recorder, float64) {
	return func(r *Recorder, t float64) { r.Launched(t, Key{job, task, n}, reach, floor) }
}

func mark(job, task int32, n uint32, m Mark) func(*Recorder, float64) {
	return func(r *Recorder, t float64) { r.Phase(t, Key{job, task, n}, m) }
}

func end(job, task int32, n uint32, o Outcome, allMaps bool) func(*Recorder, float64) {
	return func(r *Recorder, t float64) { r.AttemptEnded(t, Key{job, task, n}, o, allMaps) }
}

func free(g int, on bool) func(*Recorder, float64) {
	return func(r *Recorder, t float64) { r.SlotsFree(t, g, on) }
}

func declined(g int, rule string) func(*Recorder, float64) {
	return func(r *Recorder, t float64) { r.Declined(t, g, rule) }
}

// TestWalkHandTraces replays hand-written traces of one job and checks
// its breakdown part by part, worked out by hand in each case's comment.
func TestWalkHandTraces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []step
		end    float64
		want   map[Part]float64
		heldBy string
	}{
		{
			// A map 0-4 (compute 4 at its cap, local read no slower);
			// CR-RTS declines the free reduce slot from 4 s; the reduce
			// launches at 10, copies until 13 bounded by an uplink,
			// computes 13-15, writes 15-18.
			name: "a reduce held by CR-RTS",
			steps: []step{
				{0, func(r *Recorder, t float64) { r.Submitted(t, t, 0, 1, 1) }},
				{0, free(0, true)}, {0, free(1, true)},
				{0, launch(0, 0, 1, 0, 4)}, {0, free(0, false)}, {0, mark(0, 0, 1, Ready)},
				{4, mark(0, 0, 1, ReadDone)}, {4, end(0, 0, 1, Succeeded, true)}, {4, free(0, true)},
				{4, declined(1, "nas-crrts-hold")},
				{10, launch(0, -1, 1, 0, 0)}, {10, free(1, false)}, {10, mark(0, -1, 1, Ready)},
				{13, func(r *Recorder, t float64) { r.Fetched(t, Key{0, -1, 1}, BoundUplink) }},
				{13, mark(0, -1, 1, Copied)}, {13, mark(0, -1, 1, ComputeStart)},
				{15, mark(0, -1, 1, WriteStart)}, {18, end(0, -1, 1, Succeeded, true)},
			},
			end:    18,
			want:   map[Part]float64{MapCompute: 4, Held: 6, ShuffleUplink: 3, ReduceCompute: 2, OutputWrite: 3},
			heldBy: "nas-crrts-hold",
		},
		{
			// The only map slot is busy until 1: map 0 waits 0-1
			// queued, runs 1-3 (1.5 s of compute at its cap, 0.5 s more
			// for its off-rack read). Map 1 runs 3-5 and fails; the
			// policy then declines the free slot until 7, when map 1's
			// second attempt starts: 0.5 s start-up, 2 s compute, done
			// at 9.5. No reduces.
			name: "two waves, a failed attempt and a hold",
			steps: []step{
				{0, free(0, false)},
				{0, func(r *Recorder, t float64) { r.Submitted(t, t, 0, 2, 0) }},
				{1, free(0, true)}, {1, launch(0, 0, 1, 2, 1.5)}, {1, free(0, false)}, {1, mark(0, 0, 1, Ready)},
				{3, mark(0, 0, 1, ReadDone)}, {3, end(0, 0, 1, Succeeded, false)}, {3, free(0, true)},
				{3, launch(0, 1, 1, 0, 2)}, {3, free(0, false)}, {3, mark(0, 1, 1, Ready)},
				{5, end(0, 1, 1, Ended, false)}, {5, free(0, true)}, {5, declined(0, "x-hold")},
				{7, launch(0, 1, 2, 0, 2)}, {7, free(0, false)}, {7.5, mark(0, 1, 2, Ready)},
				{9.5, mark(0, 1, 2, ReadDone)}, {9.5, end(0, 1, 2, Succeeded, true)},
			},
			end:    9.5,
			want:   map[Part]float64{Queued: 1, MapCompute: 1.5 + 2, ReadOffRack: 0.5, Lost: 2, Held: 2, Startup: 0.5},
			heldBy: "x-hold",
		},
		{
			// Map 0 runs 0-2 and the reduce copies its output by 3; at 6
			// the node holding it is lost, the map runs again 6-8 and
			// the job completes then, its reduce's work long done: the
			// path runs through the map run again, and the time its
			// first output existed (2-6) is lost.
			name: "a map run again after its output was lost",
			steps: []step{
				{0, func(r *Recorder, t float64) { r.Submitted(t, t, 0, 1, 1) }},
				{0, launch(0, 0, 1, 0, 2)}, {0, mark(0, 0, 1, Ready)},
				{2, mark(0, 0, 1, ReadDone)}, {2, end(0, 0, 1, Succeeded, true)},
				{2, launch(0, -1, 1, 0, 0)}, {2, mark(0, -1, 1, Ready)}, {3, mark(0, -1, 1, Copied)},
				{3, mark(0, -1, 1, ComputeStart)}, {4, mark(0, -1, 1, WriteStart)}, {5, end(0, -1, 1, Succeeded, true)},
				{6, func(r *Recorder, t float64) { r.MapsLost(t, 0) }},
				{6, launch(0, 0, 2, 0, 2)}, {6, mark(0, 0, 2, Ready)},
				{8, mark(0, 0, 2, ReadDone)}, {8, end(0, 0, 2, Succeeded, true)},
			},
			end:  8,
			want: map[Part]float64{MapCompute: 4, Lost: 4},
		},
		{
			// A driver in wall-clock time (the testbed's master) reaches
			// a job due at 0 at 0.5 s: the job's time still counts from 0,
			// the half second it was not yet seen counts as queued (the
			// free slot was never offered to it), and the map runs
			// 0.5-2.5.
			name: "a submission reached late",
			steps: []step{
				{0, free(0, true)},
				{0.5, func(r *Recorder, t float64) { r.Submitted(t, 0, 0, 1, 0) }},
				{0.5, launch(0, 0, 1, 0, 2)}, {0.5, free(0, false)}, {0.5, mark(0, 0, 1, Ready)},
				{2.5, mark(0, 0, 1, ReadDone)}, {2.5, end(0, 0, 1, Succeeded, true)},
			},
			end:  2.5,
			want: map[Part]float64{Queued: 0.5, MapCompute: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(1)
			for _, s := range tc.steps {
				s.do(r, s.t)
			}
			b, ok := r.JobEnded(tc.end, 0, true)
			if !ok {
				t.Fatal("no breakdown for a completed job")
			}
			for p := range NumParts {
				if got := b.Parts[p]; math.Abs(got-tc.want[p]) > 1e-9 {
					t.Errorf("%s = %.3f s, want %.3f s", p, got, tc.want[p])
				}
			}
			if b.HeldBy != tc.heldBy {
				t.Errorf("held by %q, want %q", b.HeldBy, tc.heldBy)
			}
			if s := b.Sum(); math.Abs(s-tc.end) > 1e-9 {
				t.Errorf("parts sum to %.3f s, want the turnaround %.3f s", s, tc.end)
			}
		})
	}
}

// TestFailedJobHasNoBreakdown: only completed jobs get one, and a job's
// records go when it leaves.
func TestFailedJobHasNoBreakdown(t *testing.T) {
	r := New(1)
	r.Submitted(0, 0, 0, 1, 0)
	r.Launched(0, Key{0, 0, 1}, 0, 1)
	r.AttemptEnded(1, Key{0, 0, 1}, Ended, false)
	if _, ok := r.JobEnded(1, 0, false); ok {
		t.Error("a failed job got a breakdown, want none")
	}
	if _, ok := r.JobEnded(2, 0, true); ok {
		t.Error("a job whose records were dropped got a breakdown again")
	}
}

// TestPartNames pins the jobs.csv columns, which tools read by name.
func TestPartNames(t *testing.T) {
	for p := range NumParts {
		q, ok := ParsePart(p.String())
		if !ok || q != p {
			t.Errorf("ParsePart(%q) = %v, %v; want %v", p.String(), q, ok, p)
		}
	}
	if got := ShuffleUplink.Column(); got != "time_shuffle_uplink_s" {
		t.Errorf("column %q, want time_shuffle_uplink_s", got)
	}
}
