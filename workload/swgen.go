package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SWGenOptions configure GenerateShuffleWatcher. E1's values (paper section
// 4.3): Users 30, MeanInterarrivalS 40, BlockBytes 64 MiB, TargetNodes 100, and
// a DurationS covering the 4-hour steady state plus ramp-up and ramp-down.
type SWGenOptions struct {
	Users             int     // jobs pick a user uniformly from 0..Users-1; must be > 0
	MeanInterarrivalS float64 // mean of the exponential inter-arrival times; must be > 0
	DurationS         float64 // generate arrivals in [0,DurationS); must be > 0
	BlockBytes        int64   // HDFS block size, determines NumMaps; must be > 0
	Seed              uint64
	Mix               []MixEntry // nil = the paper's Table 1 mix (DefaultSWMix)
	// BytesPerReduce is the reduce-count rule for generated jobs: the same SWIM
	// rule as traces get (SWIMReduceCount), 0 = DefaultBytesPerReduce. The paper
	// does not give its jobs' reduce counts; this rule grows them with the
	// job's bytes and caps them by the cluster, as a user sizing jobs would.
	BytesPerReduce int64
	TargetNodes    int       // nodes of the simulated cluster, for the reduce cap; must be > 0
	SizeBins       []SizeBin // nil = the paper's Table 2 (InputSizeBins); scaled-down runs (section 5.6) pass their own
}

// Independent random streams of the generator, one per quantity, so that
// changing the mix or the size bins leaves arrivals and users exactly as they
// were (the paper uses "the same job arrival rates for all schedulers" and
// varies the mix alone in section 5.5).
const (
	streamArrivals  = 0x5357_0001
	streamUsers     = 0x5357_0002
	streamBenchmark = 0x5357_0003
	streamSizes     = 0x5357_0004
)

// Validate reports the first option GenerateShuffleWatcher cannot use.
func (o SWGenOptions) Validate() error {
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch {
	case o.Users <= 0:
		return fmt.Errorf("option Users %d: must be positive", o.Users)
	case !pos(o.MeanInterarrivalS):
		return fmt.Errorf("MeanInterarrivalS %v: must be positive and finite", o.MeanInterarrivalS)
	case !pos(o.DurationS):
		return fmt.Errorf("DurationS %v: must be positive and finite", o.DurationS)
	case o.BlockBytes <= 0:
		return fmt.Errorf("BlockBytes %d: must be positive (the paper uses 64 MiB)", o.BlockBytes)
	case o.BytesPerReduce < 0:
		return fmt.Errorf("BytesPerReduce %d: must be non-negative (0 = %d)", o.BytesPerReduce, DefaultBytesPerReduce)
	case o.TargetNodes <= 0:
		return fmt.Errorf("TargetNodes %d: must be positive", o.TargetNodes)
	}
	if o.Mix != nil {
		if err := validateMix(o.Mix); err != nil {
			return err
		}
	}
	if o.SizeBins != nil {
		if err := validateBins(o.SizeBins, o.BlockBytes); err != nil {
			return err
		}
	}
	return nil
}

// percentSumTolerance is how far percentages may add up from 100.
const percentSumTolerance = 1e-6

func validateMix(mix []MixEntry) error {
	if len(mix) == 0 {
		return fmt.Errorf("option Mix is empty (nil means the paper's Table 1)")
	}
	sum := 0.0
	for _, e := range mix {
		if err := e.Benchmark.Validate(); err != nil {
			return fmt.Errorf("option Mix: %w", err)
		}
		if !(e.Percent >= 0) || math.IsInf(e.Percent, 0) {
			return fmt.Errorf("option Mix: %s has percent %v, want finite and non-negative", e.Benchmark.Name, e.Percent)
		}
		sum += e.Percent
	}
	if math.Abs(sum-100) > percentSumTolerance {
		return fmt.Errorf("option Mix: percentages add up to %v, want 100", sum)
	}
	return nil
}

func validateBins(bins []SizeBin, blockBytes int64) error {
	if len(bins) == 0 {
		return fmt.Errorf("SizeBins is empty (nil means the paper's Table 2)")
	}
	sum := 0.0
	for i, b := range bins {
		if b.MinBytes <= 0 || b.MaxBytes <= b.MinBytes {
			return fmt.Errorf("SizeBins[%d]: [%d, %d) must be non-empty with a positive minimum (log-uniform sampling)", i, b.MinBytes, b.MaxBytes)
		}
		if !(b.Percent >= 0) || math.IsInf(b.Percent, 0) {
			return fmt.Errorf("SizeBins[%d]: percent %v, want finite and non-negative", i, b.Percent)
		}
		if n := int64(MapCount(b.MaxBytes, blockBytes)); n > MaxMapsPerJob {
			return fmt.Errorf("SizeBins[%d]: %d bytes need %d maps of %d-byte blocks, more than the %d a job may have", i, b.MaxBytes, n, blockBytes, MaxMapsPerJob)
		}
		sum += b.Percent
	}
	if math.Abs(sum-100) > percentSumTolerance {
		return fmt.Errorf("SizeBins percentages add up to %v, want 100", sum)
	}
	return nil
}

// GenerateShuffleWatcher makes the ShuffleWatcher workload (paper section 4.3):
// Poisson arrivals (exponential inter-arrival times of the given mean, the
// first one after time 0) in [0, DurationS); each job picks a user uniformly,
// a benchmark by the mix, and an input size by the bins (a bin by its percent,
// then log-uniform inside it). Shuffle = input x ShuffleRatio and output =
// shuffle x OutputRatio, rounded to bytes; maps by MapCount, reduces by
// SWIMReduceCount. Name is "<benchmark>-<ID>", Kind the benchmark's name,
// Profile the benchmark's. The same options give identical jobs.
func GenerateShuffleWatcher(opt SWGenOptions) ([]Job, error) {
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("ShuffleWatcher workload: %w", err)
	}
	mix := opt.Mix
	if mix == nil {
		mix = DefaultSWMix()
	}
	bins := opt.SizeBins
	if bins == nil {
		bins = InputSizeBins()
		if err := validateBins(bins, opt.BlockBytes); err != nil {
			return nil, fmt.Errorf("ShuffleWatcher workload: %w", err)
		}
	}
	mixW := make([]float64, len(mix))
	for i, e := range mix {
		mixW[i] = e.Percent
	}
	binW := make([]float64, len(bins))
	for i, b := range bins {
		binW[i] = b.Percent
	}
	arrivals := rand.New(rand.NewPCG(opt.Seed, streamArrivals))
	users := rand.New(rand.NewPCG(opt.Seed, streamUsers))
	benches := rand.New(rand.NewPCG(opt.Seed, streamBenchmark))
	sizes := rand.New(rand.NewPCG(opt.Seed, streamSizes))

	var jobs []Job
	t := 0.0
	for {
		t += arrivals.ExpFloat64() * opt.MeanInterarrivalS
		if t >= opt.DurationS {
			break
		}
		user := users.IntN(opt.Users)
		b := mix[pickWeighted(benches, mixW)].Benchmark
		input := logUniform(sizes, bins[pickWeighted(sizes, binW)])
		shuffle := scaleBytes(input, b.ShuffleRatio)
		output := scaleBytes(shuffle, b.OutputRatio)
		id := len(jobs)
		jobs = append(jobs, Job{
			ID:           id,
			Name:         fmt.Sprintf("%s-%d", b.Name, id),
			Kind:         b.Name,
			User:         user,
			Pool:         PoolOf(user),
			Submit:       t,
			InputBytes:   input,
			ShuffleBytes: shuffle,
			OutputBytes:  output,
			NumMaps:      MapCount(input, opt.BlockBytes),
			NumReduces:   SWIMReduceCount(shuffle, output, opt.BytesPerReduce, opt.TargetNodes),
			Profile:      b.Profile,
			Weight:       DefaultWeight,
		})
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("ShuffleWatcher workload: %w: no arrival in [0, %s s) with mean inter-arrival %s s", ErrNoJobs, fmtSec(opt.DurationS), fmtSec(opt.MeanInterarrivalS))
	}
	return jobs, nil
}

// pickWeighted returns index i with probability w[i]/sum(w). Weights are
// validated non-negative with a positive sum.
func pickWeighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, v := range w {
		total += v
	}
	x := r.Float64() * total
	last := 0
	for i, v := range w {
		if v <= 0 {
			continue
		}
		if x < v {
			return i
		}
		x -= v
		last = i
	}
	return last // float rounding left x just above the last positive weight
}

// logUniform draws a size in [MinBytes, MaxBytes) whose logarithm is uniform.
func logUniform(r *rand.Rand, b SizeBin) int64 {
	lo, hi := math.Log(float64(b.MinBytes)), math.Log(float64(b.MaxBytes))
	v := int64(math.Exp(lo + r.Float64()*(hi-lo)))
	return min(max(v, b.MinBytes), b.MaxBytes-1)
}

// scaleBytes is round(b x ratio), saturating at MaxInt64.
func scaleBytes(b int64, ratio float64) int64 {
	v := math.Round(float64(b) * ratio)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
