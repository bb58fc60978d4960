package workload

import (
	"fmt"
	"math"
)

// Benchmark is one job type of the ShuffleWatcher workload (its Table 1): a
// name, the class the paper puts it in, how many bytes each stage emits per
// byte it reads, and its CPU costs.
type Benchmark struct {
	Name         string
	Class        ShuffleClass // the paper's class (Table 1), by ShuffleRatio, not by absolute bytes
	ShuffleRatio float64      // shuffle/input
	OutputRatio  float64      // output/shuffle
	Profile      Profile
}

// Validate reports an error unless the benchmark can generate jobs.
func (b Benchmark) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	switch {
	case b.Name == "":
		return fmt.Errorf("benchmark with empty name")
	case b.Class < 0 || b.Class >= NumClasses:
		return fmt.Errorf("benchmark %s: invalid class %d", b.Name, int(b.Class))
	case !finite(b.ShuffleRatio):
		return fmt.Errorf("benchmark %s: ShuffleRatio %v must be finite and non-negative", b.Name, b.ShuffleRatio)
	case !finite(b.OutputRatio):
		return fmt.Errorf("benchmark %s: OutputRatio %v must be finite and non-negative", b.Name, b.OutputRatio)
	}
	if err := b.Profile.Validate(); err != nil {
		return fmt.Errorf("benchmark %s: %w", b.Name, err)
	}
	return nil
}

// mibps is a Profile from map and reduce processing rates in MiB/s per task.
func mibps(mapRate, reduceRate float64) Profile {
	return Profile{MapSecPerByte: 1 / (mapRate * (1 << 20)), ReduceSecPerByte: 1 / (reduceRate * (1 << 20))}
}

// Benchmarks are the 12 benchmarks of ShuffleWatcher's Table 1, drawn (section
// 4.3) from the Hadoop release (terasort, wordcount, grep) and from its
// reference [2] (cited in its section 6 for heterogeneous-cluster MapReduce:
// Tarazu, whose authors' PUMA benchmark suite holds the other nine).
//
// What comes from where:
//   - Class: Table 1 of the paper, verbatim.
//   - ShuffleRatio: the paper publishes none. Its section 3.1 defines
//     shuffle-heavy as ShuffleInputRatio > 1.0, so heavy ones are above 1;
//     medium and light ones are below, light ones by two orders of magnitude or
//     more. Within that, each value is an ESTIMATE from what the benchmark's
//     map emits per input record, stated beside it. Terasort's is physical:
//     its map is the identity on 100-byte records, and Hadoop's intermediate
//     file format adds a 1-byte length to key and value, so 102 bytes cross the
//     network for each 100 read.
//   - OutputRatio and CPU rates (MiB/s per task, map per input byte, reduce per
//     shuffle byte): ESTIMATES, ordered as the PUMA suite describes its jobs
//     (scans such as grep and the histograms IO-bound; classification and the
//     join CPU-heavier), centred on DefaultMapBytesPerSec (8 MiB/s). They set
//     how long tasks run, not which class a job is in.
//
// Change them with care: E1's results depend on the heavy share of traffic.
func Benchmarks() []Benchmark {
	return []Benchmark{
		// Shuffle-heavy.
		{"terasort", ClassHeavy, 1.02, 100.0 / 102, mibps(16, 8)},    // identity map; output drops the framing again
		{"ranked-inverted-index", ClassHeavy, 1.1, 0.9, mibps(8, 4)}, // re-keys each (sequence, doc, count) by word; reduce sorts lists by count
		{"self-join", ClassHeavy, 1.1, 1.0, mibps(8, 2)},             // splits each k-field association into (k-1 prefix, last); reduce pairs values: CPU-heavy
		{"word-sequence-count", ClassHeavy, 2.5, 0.8, mibps(4, 8)},   // every word starts a 3-word sequence, emitted with its doc; few repeat within a split
		{"adjacency-list", ClassHeavy, 2.0, 0.8, mibps(8, 4)},        // each edge emitted twice, forward and reverse
		// Shuffle-medium.
		{"inverted-index", ClassMedium, 0.3, 0.8, mibps(6, 8)}, // (word, doc) once per distinct word of a document
		{"term-vector", ClassMedium, 0.2, 0.1, mibps(4, 4)},    // per-host term frequencies; reduce keeps the most frequent
		// Shuffle-light.
		{"grep", ClassLight, 1e-3, 1.0, mibps(24, 8)},              // only matching lines' counts leave the map; IO-bound scan
		{"wordcount", ClassLight, 1e-2, 0.5, mibps(8, 8)},          // combiner collapses each split to its distinct words
		{"classification", ClassLight, 5e-3, 1.0, mibps(2, 8)},     // (cluster, movie id) per movie; distance to every centroid: CPU-heavy
		{"histogram-movies", ClassLight, 1e-4, 1.0, mibps(16, 8)},  // combiner leaves one count per bin per map
		{"histogram-ratings", ClassLight, 1e-4, 1.0, mibps(16, 8)}, // combiner leaves one count per rating value per map
	}
}

// BenchmarkByName finds one of Benchmarks() by name, so that a generated job's
// Kind can be turned back into its benchmark (and the paper's class).
func BenchmarkByName(name string) (Benchmark, bool) {
	for _, b := range Benchmarks() {
		if b.Name == name {
			return b, true
		}
	}
	return Benchmark{}, false
}

// MixEntry is one benchmark's share of the generated jobs, in percent.
type MixEntry struct {
	Benchmark Benchmark
	Percent   float64
}

// DefaultSWMix is Table 1's job mix (sums to 100): heavy 40% (terasort 5,
// ranked-inverted-index 10, self-join 10, word-sequence-count 10,
// adjacency-list 5), medium 20% (inverted-index 10, term-vector 10), light 40%
// (grep 15, wordcount 10, classification 5, histogram-movies 5,
// histogram-ratings 5): the paper's default "mix2" of section 5.5.
func DefaultSWMix() []MixEntry {
	percent := map[string]float64{
		"terasort": 5, "ranked-inverted-index": 10, "self-join": 10, "word-sequence-count": 10, "adjacency-list": 5,
		"inverted-index": 10, "term-vector": 10,
		"grep": 15, "wordcount": 10, "classification": 5, "histogram-movies": 5, "histogram-ratings": 5,
	}
	bs := Benchmarks()
	mix := make([]MixEntry, len(bs)) // in Benchmarks() order, never map order
	for i, b := range bs {
		mix[i] = MixEntry{Benchmark: b, Percent: percent[b.Name]}
	}
	return mix
}

// SizeBin is a range of job input sizes, [MinBytes, MaxBytes), and the percent
// of jobs whose input falls in it.
type SizeBin struct {
	MinBytes, MaxBytes int64
	Percent            float64
}

// Size units of Table 2, binary as Hadoop reports sizes and as HDFS blocks are
// cut (so "1 GB" is 16 blocks of "64 MB").
const (
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// InputSizeBins is ShuffleWatcher's Table 2, the job input size distribution,
// which it takes from Yahoo and Facebook workloads (its reference [9]).
// Table 2 leaves two ends open; mrsched closes them:
//   - "< 100MB" starts at 10 MiB: a one-map job under a 64 MiB block, small
//     enough to be a short interactive query yet not a degenerate empty job;
//   - "> 1TB" ends at 2 TiB: a doubling, like the 100-200 GB bin.
//
// Inside a bin, sizes are log-uniform (the generator samples the exponent),
// because the bins themselves grow geometrically: a uniform draw would put
// nearly every "1-20 GB" job above 2 GB. With these ends the mean input is
// about 176 GiB a job, 42% of it from the top bin: the upper bound matters.
func InputSizeBins() []SizeBin {
	return []SizeBin{
		{10 * MiB, 100 * MiB, 20},
		{100 * MiB, 1 * GiB, 19},
		{1 * GiB, 20 * GiB, 21},
		{20 * GiB, 100 * GiB, 10},
		{100 * GiB, 200 * GiB, 10},
		{200 * GiB, 500 * GiB, 7},
		{500 * GiB, 1 * TiB, 8},
		{1 * TiB, 2 * TiB, 5},
	}
}

// ScaledSizeBins is Table 2 (InputSizeBins) with every bound multiplied by
// scale, the percentages Table 2's: the paper's scaled-down runs (section
// 5.6), or jobs sized for a smaller cluster.
func ScaledSizeBins(scale float64) []SizeBin {
	bins := InputSizeBins()
	for i := range bins {
		bins[i].MinBytes = max(1, int64(math.Round(float64(bins[i].MinBytes)*scale)))
		bins[i].MaxBytes = max(bins[i].MinBytes+1, int64(math.Round(float64(bins[i].MaxBytes)*scale)))
	}
	return bins
}
