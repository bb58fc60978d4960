package experiment

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/workload"
)

// ZipfConfig is the workload of the Fair Scheduler paper's simulation
// (section 5.3): jobs of Zipf-distributed sizes submitted at random
// intervals. The paper gives the job count, the size range and the reduce
// range; the rest is ours, stated here.
type ZipfConfig struct {
	Jobs int // 30 (paper)
	// MinMaps and MaxMaps bound job sizes: 1 and 400 (paper).
	MinMaps, MaxMaps int
	// Exponent of the Zipf law P(maps = k) ~ 1/k^s: 1, the classic Zipf
	// law (the paper says only "Zipfian"). Mean size is then about 61 maps.
	Exponent float64
	// MeanInterarrivalS is the mean of the exponential gaps between
	// submissions: 60 s (the paper says "random intervals"). With 20 s maps
	// on 10 map slots a mean job brings about 120 s of the cluster's map
	// time, so jobs arrive about twice as fast as they can be served: the
	// cluster is shared by several jobs at once, the regime the section
	// studies, and the 30 jobs form a batch whose response time is
	// meaningful.
	MeanInterarrivalS float64
	// MapS is every map's length: 20 s, inside the 15-30 s the paper gives
	// as typical (section 3.2).
	MapS float64
	// ReduceWork is a job's total reduce CPU time over its total map time:
	// 1, as in the section's worked example (100 s of maps, 100 s of
	// reduces): reduce work follows the data. With at most maps/5 reduces,
	// each reduce computes for at least 5 map lengths (100 s), "a few
	// minutes for reduces" (section 3.2); a job with few reduces computes
	// for much longer (90 maps and one reduce: 1,800 s), and such a serial
	// reduce can be a schedule's critical path.
	ReduceWork float64
	// ShuffleRatio is map output / input: 0.1, small, so that reduces are
	// CPU-bound as the section assumes.
	ShuffleRatio float64
	BlockBytes   int64 // 64 MiB
	Seed         uint64
}

// DefaultZipf is the configuration the zipf experiment runs.
func DefaultZipf(seed uint64) ZipfConfig {
	return ZipfConfig{Jobs: 30, MinMaps: 1, MaxMaps: 400, Exponent: 1, MeanInterarrivalS: 60,
		MapS: 20, ReduceWork: 1, ShuffleRatio: 0.1, BlockBytes: 64 << 20, Seed: seed}
}

// ZipfJobs generates the section 5.3 workload: one pool per job, sizes
// Zipf on MinMaps..MaxMaps, reduces uniform on 1..max(1, maps/5), the first
// job at time 0 and exponential gaps after it.
func ZipfJobs(c ZipfConfig) ([]workload.Job, error) {
	switch {
	case c.Jobs < 1:
		return nil, fmt.Errorf("zipf: jobs must be positive, got %d", c.Jobs)
	case c.MinMaps < 1 || c.MaxMaps < c.MinMaps:
		return nil, fmt.Errorf("zipf: want 1 <= min maps <= max maps, got %d and %d", c.MinMaps, c.MaxMaps)
	case !(c.Exponent >= 0), !(c.MeanInterarrivalS >= 0), !(c.MapS > 0), !(c.ReduceWork > 0), !(c.ShuffleRatio > 0), c.BlockBytes <= 0:
		return nil, fmt.Errorf("zipf: exponent, interarrival must be >= 0 and map time, reduce work, shuffle ratio, block size > 0: %+v", c)
	}
	r := harness.RNG(c.Seed, 0x7a697066)
	z := harness.NewZipf(c.MinMaps, c.MaxMaps, c.Exponent)
	jobs := make([]workload.Job, c.Jobs)
	t := 0.0
	for i := range jobs {
		if i > 0 {
			t += r.ExpFloat64() * c.MeanInterarrivalS
		}
		m := z.Draw(r)
		red := 1 + r.IntN(max(1, m/5))
		jobs[i] = harness.NewJob(i, fmt.Sprintf("zipf-s%d-j%d", c.Seed, i), "fair-delay", i, t, c.BlockBytes, harness.Shape{
			Maps: m, MapS: c.MapS, Reduces: red, ShuffleRatio: c.ShuffleRatio,
			ReduceS: c.ReduceWork * float64(m) * c.MapS / float64(red), OutputRatio: 1,
		})
	}
	return jobs, nil
}

// BMBin is a row of the Fair Scheduler paper's Table 2: a bin of job sizes
// at Facebook, the size BM picked for it and how many BM jobs have it.
type BMBin struct {
	Bin         int
	Range       string  // maps, as the paper prints it
	FacebookPct float64 // share of Facebook's jobs in the bin
	Maps        int     // the size of the bin's BM jobs
	Jobs        int     // BM jobs of this size
}

// BMTable is the paper's Table 2. Its jobs add up to 50.
var BMTable = []BMBin{
	{0, "1-25", 58, 16, 29},
	{1, "25-50", 9.6, 40, 5},
	{2, "50-100", 8.6, 80, 4},
	{3, "100-200", 8.4, 160, 4},
	{4, "200-400", 5.6, 320, 3},
	{5, "400-800", 4.3, 600, 2},
	{6, "800-1600", 2.5, 1200, 1},
	{7, "1600-3200", 1.3, 2400, 1},
	{8, ">3200", 1.7, 6400, 1},
}

// BMConfig is the BM macrobenchmark's workload (section 6.1).
type BMConfig struct {
	// MeanInterarrivalS: jobs "submitted roughly every 30 s by a Poisson
	// process" (paper).
	MeanInterarrivalS float64
	// MinMapS and MaxMapS bound a job's map length, drawn uniformly per
	// job: "maps took between 9 s and 60 s" (paper). A job's reduces do
	// the same CPU work per byte as its maps (loadgen's per-record work
	// applies to both).
	MinMapS, MaxMapS float64
	// MinReducePct and MaxReducePct bound a job's reduce count, drawn
	// uniformly per job: 5% to 25% of its maps (paper), at least 1.
	MinReducePct, MaxReducePct float64
	// MinKeep and MaxKeep bound loadgen's keepMap (shuffle / input) and
	// keepReduce (output / shuffle), drawn uniformly per job: the paper
	// says "random"; 0.1% (its scan setting) to 100% (its sort setting).
	MinKeep, MaxKeep float64
	BlockBytes       int64 // 128 MiB, the paper's block size (section 6)
	Seed             uint64
}

// DefaultBM is the configuration the bm experiment runs.
func DefaultBM(seed uint64) BMConfig {
	return BMConfig{MeanInterarrivalS: 30, MinMapS: 9, MaxMapS: 60, MinReducePct: 5, MaxReducePct: 25,
		MinKeep: 0.001, MaxKeep: 1, BlockBytes: 128 << 20, Seed: seed}
}

// BMJobs generates the 50 BM jobs in a random order (one pool each), with
// Poisson arrivals starting at time 0, and returns each job's bin.
func BMJobs(c BMConfig) ([]workload.Job, []int) {
	r := harness.RNG(c.Seed, 0x626d)
	var bins []int
	for _, b := range BMTable {
		for range b.Jobs {
			bins = append(bins, b.Bin)
		}
	}
	r.Shuffle(len(bins), func(i, j int) { bins[i], bins[j] = bins[j], bins[i] })
	jobs := make([]workload.Job, len(bins))
	t := 0.0
	for i, b := range bins {
		if i > 0 {
			t += r.ExpFloat64() * c.MeanInterarrivalS
		}
		m := BMTable[b].Maps
		lo := max(1, int(math.Round(c.MinReducePct/100*float64(m))))
		hi := max(lo, int(math.Round(c.MaxReducePct/100*float64(m))))
		red := lo + r.IntN(hi-lo+1)
		mapS := c.MinMapS + r.Float64()*(c.MaxMapS-c.MinMapS)
		keepMap := c.MinKeep + r.Float64()*(c.MaxKeep-c.MinKeep)
		keepReduce := c.MinKeep + r.Float64()*(c.MaxKeep-c.MinKeep)
		perReduce := float64(m) * float64(c.BlockBytes) * keepMap / float64(red)
		jobs[i] = harness.NewJob(i, fmt.Sprintf("bm-s%d-j%d-bin%d", c.Seed, i, b), "fair-delay", i, t, c.BlockBytes, harness.Shape{
			Maps: m, MapS: mapS, Reduces: red, ShuffleRatio: keepMap,
			ReduceS: perReduce * mapS / float64(c.BlockBytes), OutputRatio: keepReduce,
		})
	}
	return jobs, bins
}

// Scan jobs are the paper's loadgen "scan" (section 6): a map reads its
// block and keeps 0.5% of the records (section 6.2.1). The paper's scans
// are map-only filters whose maps write what they keep; the engine needs a
// reduce, so a scan ends with one reduce that collects the kept records and
// writes them, doing no CPU work of its own (scanReduceS, nominal).
const (
	// ScanMapS is a scan map's length on a 128 MB block: 9 s, the paper's
	// own figure for its scans (section 6.2.4).
	ScanMapS = 9.0
	// ComputeMapS is the length of a CPU-heavy map: 36 s (section 6.2.4).
	ComputeMapS = 36.0
	// ScanKeep is the fraction of input a scan keeps (section 6.2.1).
	ScanKeep = 0.005
	// scanReduceS is the compute time of a scan's reduce: nominal, as the
	// engine times a reduce's compute phase from a positive CPU cost.
	scanReduceS = 0.001
)

// scanJob is a scan (mapS = ScanMapS) or compute (ComputeMapS) job of maps
// blocks over the file named file.
func scanJob(id int, file string, user int, submit float64, maps int, block int64, mapS float64) workload.Job {
	return harness.NewJob(id, file, "fair-delay", user, submit, block, harness.Shape{
		Maps: maps, MapS: mapS, Reduces: 1, ShuffleRatio: ScanKeep, ReduceS: scanReduceS, OutputRatio: 1,
	})
}
