package workload

import (
	"math"
	"testing"
)

func TestMapCount(t *testing.T) {
	const block = 64 * MiB
	tests := []struct {
		name  string
		input int64
		want  int
	}{
		{"no input still runs one map", 0, 1},
		{"one byte", 1, 1},
		{"exactly one block", block, 1},
		{"one byte over a block", block + 1, 2},
		{"ten blocks", 10 * block, 10},
		{"largest int64 does not overflow", math.MaxInt64, int(math.MaxInt64/block) + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MapCount(tc.input, block); got != tc.want {
				t.Errorf("MapCount(%d, %d) = %d, want %d (ceil of input/block, at least 1)", tc.input, block, got, tc.want)
			}
		})
	}
}

func TestMapBytes(t *testing.T) {
	const block = 100
	tests := []struct {
		name       string
		job        Job
		wantInput  []int64
		wantOutput []float64
	}{
		{
			name:       "last map gets the remainder, output follows input",
			job:        Job{InputBytes: 250, ShuffleBytes: 500, NumMaps: 3},
			wantInput:  []int64{100, 100, 50},
			wantOutput: []float64{200, 200, 100},
		},
		{
			name:       "whole blocks",
			job:        Job{InputBytes: 200, ShuffleBytes: 20, NumMaps: 2},
			wantInput:  []int64{100, 100},
			wantOutput: []float64{10, 10},
		},
		{
			name:       "no input: shuffle split equally over NumMaps",
			job:        Job{InputBytes: 0, ShuffleBytes: 90, NumMaps: 3},
			wantInput:  []int64{0, 0, 0},
			wantOutput: []float64{30, 30, 30},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sumIn int64
			var sumOut float64
			for i := range tc.wantInput {
				if got := tc.job.MapInputBytes(i, block); got != tc.wantInput[i] {
					t.Errorf("MapInputBytes(%d) = %d, want %d", i, got, tc.wantInput[i])
				}
				if got := tc.job.MapOutputBytes(i, block); math.Abs(got-tc.wantOutput[i]) > 1e-9 {
					t.Errorf("MapOutputBytes(%d) = %v, want %v", i, got, tc.wantOutput[i])
				}
				sumIn += tc.job.MapInputBytes(i, block)
				sumOut += tc.job.MapOutputBytes(i, block)
			}
			if sumIn != tc.job.InputBytes {
				t.Errorf("map inputs add up to %d, want the job's %d (bytes are conserved)", sumIn, tc.job.InputBytes)
			}
			if math.Abs(sumOut-float64(tc.job.ShuffleBytes)) > 1e-6 {
				t.Errorf("map outputs add up to %v, want the job's shuffle %d", sumOut, tc.job.ShuffleBytes)
			}
			n := len(tc.wantInput)
			for _, i := range []int{-1, n} {
				if got := tc.job.MapInputBytes(i, block); got != 0 {
					t.Errorf("MapInputBytes(%d) out of range = %d, want 0", i, got)
				}
				if got := tc.job.MapOutputBytes(i, block); got != 0 {
					t.Errorf("MapOutputBytes(%d) out of range = %v, want 0", i, got)
				}
			}
		})
	}
}

func TestRatios(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name                 string
		in, shuffle, out     int64
		wantShuffle, wantOut float64
	}{
		{"ordinary", 100, 50, 25, 0.5, 0.5},
		{"heavy", 100, 300, 300, 3, 1},
		{"nothing at all", 0, 0, 0, 0, 0},
		{"shuffle without input is +Inf", 0, 10, 10, inf, 1},
		{"output without shuffle is +Inf", 10, 0, 5, 0, inf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := Job{InputBytes: tc.in, ShuffleBytes: tc.shuffle, OutputBytes: tc.out}
			if got := j.ShuffleRatio(); got != tc.wantShuffle {
				t.Errorf("ShuffleRatio() = %v, want %v", got, tc.wantShuffle)
			}
			if got := j.OutputRatio(); got != tc.wantOut {
				t.Errorf("OutputRatio() = %v, want %v", got, tc.wantOut)
			}
		})
	}
}

func TestReduceBytes(t *testing.T) {
	j := Job{ShuffleBytes: 100, OutputBytes: 40, NumReduces: 4}
	for r := range 4 {
		if got := j.ReduceShuffleBytes(r); got != 25 {
			t.Errorf("ReduceShuffleBytes(%d) = %v, want 25 (100 bytes over 4 reduces)", r, got)
		}
		if got := j.ReduceOutputBytes(r); got != 10 {
			t.Errorf("ReduceOutputBytes(%d) = %v, want 10 (40 bytes over 4 reduces)", r, got)
		}
	}
	if j.ReduceShuffleBytes(4) != 0 || j.ReduceOutputBytes(-1) != 0 {
		t.Errorf("out-of-range reduce index should give 0 bytes")
	}
}

func TestDefaultProfile(t *testing.T) {
	p := DefaultProfile()
	if err := p.Validate(); err != nil {
		t.Fatalf("DefaultProfile() invalid: %v", err)
	}
	// Fair Scheduler paper section 3.2: maps typically 15-30 s; a 128 MiB block at 8 MiB/s is 16 s.
	if got := float64(128*MiB) * p.MapSecPerByte; math.Abs(got-16) > 1e-9 {
		t.Errorf("a 128 MiB map takes %v s with the default profile, want 16 s (8 MiB/s)", got)
	}
	if got := float64(8*MiB) * p.ReduceSecPerByte; math.Abs(got-1) > 1e-9 {
		t.Errorf("a reduce processes 8 MiB in %v s, want 1 s (8 MiB/s)", got)
	}
}

func TestValidateJobs(t *testing.T) {
	good := func(id int, submit float64) Job {
		return Job{ID: id, Pool: "user0", Submit: submit, NumMaps: 1, NumReduces: 1, Profile: DefaultProfile(), Weight: 1}
	}
	tests := []struct {
		name    string
		jobs    []Job
		wantErr bool
	}{
		{"valid", []Job{good(0, 0), good(1, 5)}, false},
		{"empty", nil, true},
		{"IDs not dense", []Job{good(0, 0), good(2, 5)}, true},
		{"submit goes back", []Job{good(0, 5), good(1, 0)}, true},
		{"no reduces", []Job{func() Job { j := good(0, 0); j.NumReduces = 0; return j }()}, true},
		{"zero profile", []Job{func() Job { j := good(0, 0); j.Profile = Profile{}; return j }()}, true},
		{"zero weight", []Job{func() Job { j := good(0, 0); j.Weight = 0; return j }()}, true},
		{"NaN submit", []Job{func() Job { j := good(0, 0); j.Submit = math.NaN(); return j }()}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.jobs)
			if (err != nil) != tc.wantErr {
				t.Errorf("Validate() error = %v, want error: %v", err, tc.wantErr)
			}
		})
	}
}
