package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// e1 are the E1 options (ShuffleWatcher section 4.3) over a long duration.
func e1(durationS float64, seed uint64) SWGenOptions {
	return SWGenOptions{Users: 30, MeanInterarrivalS: 40, DurationS: durationS, BlockBytes: 64 * MiB, Seed: seed, TargetNodes: 100}
}

func TestBenchmarksMatchTable1(t *testing.T) {
	bs := Benchmarks()
	if len(bs) != 12 {
		t.Fatalf("Benchmarks() has %d entries, want Table 1's 12", len(bs))
	}
	names := map[string]bool{}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
			if names[b.Name] {
				t.Errorf("duplicate benchmark %s", b.Name)
			}
			names[b.Name] = true
			// Section 3.1: ShuffleInputRatio > 1.0 is heavy. Medium and light sit below,
			// light by two orders of magnitude or more.
			var ok bool
			switch b.Class {
			case ClassHeavy:
				ok = b.ShuffleRatio > 1
			case ClassMedium:
				ok = b.ShuffleRatio >= 0.1 && b.ShuffleRatio <= 1
			case ClassLight:
				ok = b.ShuffleRatio < 0.1
			}
			if !ok {
				t.Errorf("%s is %v in Table 1 but has ShuffleRatio %v (heavy > 1, medium 0.1-1, light < 0.1)", b.Name, b.Class, b.ShuffleRatio)
			}
			if got, found := BenchmarkByName(b.Name); !found || got != b {
				t.Errorf("BenchmarkByName(%q) = %v, %v", b.Name, got, found)
			}
		})
	}
	if _, found := BenchmarkByName("pagerank"); found {
		t.Errorf("BenchmarkByName found a benchmark not in Table 1")
	}
}

func TestDefaultSWMix(t *testing.T) {
	want := map[string]float64{
		"terasort": 5, "ranked-inverted-index": 10, "self-join": 10, "word-sequence-count": 10, "adjacency-list": 5,
		"inverted-index": 10, "term-vector": 10,
		"grep": 15, "wordcount": 10, "classification": 5, "histogram-movies": 5, "histogram-ratings": 5,
	}
	var byClass [NumClasses]float64
	sum := 0.0
	mix := DefaultSWMix()
	for _, e := range mix {
		if e.Percent != want[e.Benchmark.Name] {
			t.Errorf("%s: %v%%, want %v%% (Table 1)", e.Benchmark.Name, e.Percent, want[e.Benchmark.Name])
		}
		byClass[e.Benchmark.Class] += e.Percent
		sum += e.Percent
	}
	if len(mix) != len(want) || sum != 100 {
		t.Errorf("mix has %d entries summing to %v%%, want 12 summing to 100%%", len(mix), sum)
	}
	// Section 5.5: the default mix2 is 40% light, 20% medium, 40% heavy.
	if byClass != [NumClasses]float64{40, 20, 40} {
		t.Errorf("class shares light/medium/heavy = %v, want [40 20 40] (section 5.5 mix2)", byClass)
	}
}

func TestInputSizeBins(t *testing.T) {
	bins := InputSizeBins()
	want := []float64{20, 19, 21, 10, 10, 7, 8, 5} // Table 2
	if len(bins) != len(want) {
		t.Fatalf("%d bins, want Table 2's %d", len(bins), len(want))
	}
	sum := 0.0
	for i, b := range bins {
		if b.Percent != want[i] {
			t.Errorf("bin %d: %v%%, want %v%%", i, b.Percent, want[i])
		}
		if i > 0 && b.MinBytes != bins[i-1].MaxBytes {
			t.Errorf("bin %d starts at %d, want the previous bin's end %d (bins tile the range)", i, b.MinBytes, bins[i-1].MaxBytes)
		}
		sum += b.Percent
	}
	if sum != 100 {
		t.Errorf("bins sum to %v%%, want 100", sum)
	}
	if err := validateBins(bins, 64*MiB); err != nil {
		t.Error(err)
	}
}

func TestGenerateShuffleWatcherMix(t *testing.T) {
	// About 5,000 jobs: 200,000 s at one job per 40 s.
	jobs, err := GenerateShuffleWatcher(e1(200_000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(jobs); n < 4700 || n > 5300 {
		t.Fatalf("%d jobs in 200,000 s at mean 40 s, want about 5,000", n)
	}
	if err := Validate(jobs); err != nil {
		t.Fatalf("generated jobs invalid: %v", err)
	}
	perBench := map[string]int{}
	var perClass [NumClasses]int
	var perBin = make([]int, len(InputSizeBins()))
	for _, j := range jobs {
		b, ok := BenchmarkByName(j.Kind)
		if !ok {
			t.Fatalf("job %d kind %q is no benchmark", j.ID, j.Kind)
		}
		perBench[j.Kind]++
		perClass[b.Class]++
		if j.Profile != b.Profile || j.Pool != PoolOf(j.User) || j.User < 0 || j.User >= 30 {
			t.Errorf("job %d: profile, pool or user not from its benchmark and user", j.ID)
		}
		if want := int64(math.Round(float64(j.InputBytes) * b.ShuffleRatio)); j.ShuffleBytes != want {
			t.Errorf("job %d shuffle %d, want input x %v = %d", j.ID, j.ShuffleBytes, b.ShuffleRatio, want)
		}
		if j.NumMaps != MapCount(j.InputBytes, 64*MiB) || j.NumReduces != SWIMReduceCount(j.ShuffleBytes, j.OutputBytes, 0, 100) {
			t.Errorf("job %d: task counts not by MapCount and the SWIM rule", j.ID)
		}
		for i, bin := range InputSizeBins() {
			if j.InputBytes >= bin.MinBytes && j.InputBytes < bin.MaxBytes {
				perBin[i]++
			}
		}
	}
	n := float64(len(jobs))
	// 2.5 points is over 3.5 standard deviations for p = 0.4 and n = 5,000.
	wantClass := [NumClasses]float64{40, 20, 40}
	for c := ClassLight; c < NumClasses; c++ {
		if got := 100 * float64(perClass[c]) / n; math.Abs(got-wantClass[c]) > 2.5 {
			t.Errorf("shuffle-%s jobs %.1f%%, want %v%% +- 2.5 (Table 1)", c, got, wantClass[c])
		}
	}
	for _, e := range DefaultSWMix() {
		if got := 100 * float64(perBench[e.Benchmark.Name]) / n; math.Abs(got-e.Percent) > 2 {
			t.Errorf("%s jobs %.1f%%, want %v%% +- 2", e.Benchmark.Name, got, e.Percent)
		}
	}
	for i, bin := range InputSizeBins() {
		if got := 100 * float64(perBin[i]) / n; math.Abs(got-bin.Percent) > 2 {
			t.Errorf("input bin %d jobs %.1f%%, want %v%% +- 2 (Table 2)", i, got, bin.Percent)
		}
	}
}

func TestGenerateShuffleWatcherArrivals(t *testing.T) {
	jobs, err := GenerateShuffleWatcher(e1(200_000, 2))
	if err != nil {
		t.Fatal(err)
	}
	prev := 0.0
	for _, j := range jobs {
		if j.Submit < prev || j.Submit >= 200_000 {
			t.Fatalf("job %d submits at %v, want non-decreasing times in [0, 200000)", j.ID, j.Submit)
		}
		prev = j.Submit
	}
	// The mean gap of ~5,000 exponential draws has a standard error of 40/sqrt(5000) = 0.57 s.
	mean := jobs[len(jobs)-1].Submit / float64(len(jobs))
	if math.Abs(mean-40) > 2 {
		t.Errorf("mean inter-arrival %.2f s, want 40 s +- 2", mean)
	}
	users := map[int]bool{}
	for _, j := range jobs {
		users[j.User] = true
	}
	if len(users) != 30 {
		t.Errorf("%d distinct users, want all 30", len(users))
	}
}

func TestGenerateShuffleWatcherDeterministic(t *testing.T) {
	a, err := GenerateShuffleWatcher(e1(20_000, 5))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateShuffleWatcher(e1(20_000, 5))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same options gave different jobs; generation must be deterministic")
	}
	c, _ := GenerateShuffleWatcher(e1(20_000, 6))
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 5 and 6 gave identical jobs")
	}
	// Changing the mix alone keeps arrivals and users (independent streams), as
	// section 5.5 varies the mix at the same arrival rate.
	heavy := e1(20_000, 5)
	for _, e := range DefaultSWMix() {
		if e.Benchmark.Name == "terasort" {
			heavy.Mix = append(heavy.Mix, MixEntry{e.Benchmark, 100})
		}
	}
	d, err := GenerateShuffleWatcher(heavy)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != len(a) {
		t.Fatalf("a different mix changed the job count from %d to %d", len(a), len(d))
	}
	for i := range a {
		if a[i].Submit != d[i].Submit || a[i].User != d[i].User || a[i].InputBytes != d[i].InputBytes {
			t.Fatalf("job %d: a different mix changed its arrival, user or input size", i)
		}
		if d[i].Kind != "terasort" {
			t.Fatalf("job %d is %s under an all-terasort mix", i, d[i].Kind)
		}
	}
}

func TestSWGenOptionsInvalid(t *testing.T) {
	badBench := Benchmarks()[0]
	badBench.ShuffleRatio = math.NaN()
	tests := []struct {
		name   string
		modify func(*SWGenOptions)
		want   string
	}{
		{"users", func(o *SWGenOptions) { o.Users = 0 }, "Users"},
		{"mean", func(o *SWGenOptions) { o.MeanInterarrivalS = 0 }, "MeanInterarrivalS"},
		{"duration", func(o *SWGenOptions) { o.DurationS = math.Inf(1) }, "DurationS"},
		{"block", func(o *SWGenOptions) { o.BlockBytes = 0 }, "BlockBytes"},
		{"bytes per reduce", func(o *SWGenOptions) { o.BytesPerReduce = -1 }, "BytesPerReduce"},
		{"nodes", func(o *SWGenOptions) { o.TargetNodes = 0 }, "TargetNodes"},
		{"empty mix", func(o *SWGenOptions) { o.Mix = []MixEntry{} }, "Mix is empty"},
		{"mix not 100", func(o *SWGenOptions) { o.Mix = DefaultSWMix()[:3] }, "add up to"},
		{"bad benchmark", func(o *SWGenOptions) { o.Mix = []MixEntry{{badBench, 100}} }, "ShuffleRatio"},
		{"bad bin", func(o *SWGenOptions) { o.SizeBins = []SizeBin{{0, 10, 100}} }, "SizeBins[0]"},
		{"tiny blocks", func(o *SWGenOptions) { o.BlockBytes = 1 }, "maps"},
		{"no arrival", func(o *SWGenOptions) { o.DurationS = 1e-9 }, "no jobs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := e1(1000, 1)
			tc.modify(&o)
			_, err := GenerateShuffleWatcher(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("GenerateShuffleWatcher with bad %s gave %v, want an error containing %q", tc.name, err, tc.want)
			}
		})
	}
}
