package harness

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/mrsched/mrsched/workload"
)

// Shape is a job's tasks as the experiments' generators describe them:
// maps of one full block each, and reduces that share the map output
// evenly.
type Shape struct {
	// Maps is the job's maps, one block each.
	Maps int
	MapS float64 // CPU seconds of one map over its block
	// Reduces share the map output.
	Reduces int
	// ShuffleRatio is map output / input (loadgen's keepMap).
	ShuffleRatio float64
	// ReduceS is the CPU seconds of each reduce's compute phase.
	ReduceS float64
	// OutputRatio is reduce output / shuffle (loadgen's keepReduce).
	OutputRatio float64
}

// NewJob builds job id of kind from a shape. The input file is named by
// name: the engine places a job's blocks from a stream keyed by the seed
// and the name, so jobs given the same name and map count read the same
// blocks (one shared file), and a job replayed alone reads the blocks it
// read in company.
func NewJob(id int, name, kind string, user int, submit float64, block int64, s Shape) workload.Job {
	in := int64(s.Maps) * block
	shuffle := max(1, int64(math.Round(float64(in)*s.ShuffleRatio)))
	perReduce := float64(shuffle) / float64(s.Reduces)
	return workload.Job{
		ID: id, Name: name, Kind: kind, User: user, Pool: workload.PoolOf(user), Submit: submit,
		InputBytes: in, ShuffleBytes: shuffle, OutputBytes: int64(math.Round(float64(shuffle) * s.OutputRatio)),
		NumMaps: s.Maps, NumReduces: s.Reduces, Weight: workload.DefaultWeight,
		Profile: workload.Profile{
			MapSecPerByte:    s.MapS / float64(block),
			ReduceSecPerByte: s.ReduceS / perReduce,
		},
	}
}

// RNG returns the generator stream of one workload: seeded by the
// experiment's seed and a per-generator constant, so two generators on one
// seed do not share draws.
func RNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Zipf draws integers lo..hi with P(k) proportional to 1/k^s by
// inverting the cumulative distribution (any s >= 0, unlike math/rand's
// Zipf, which needs s > 1).
type Zipf struct {
	lo  int
	cdf []float64
}

// NewZipf draws lo..hi with exponent s.
func NewZipf(lo, hi int, s float64) Zipf {
	z := Zipf{lo: lo, cdf: make([]float64, hi-lo+1)}
	sum := 0.0
	for k := lo; k <= hi; k++ {
		sum += math.Pow(float64(k), -s)
		z.cdf[k-lo] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	return z
}

// Draw draws one integer from r.
func (z Zipf) Draw(r *rand.Rand) int {
	u := r.Float64()
	i := sort.SearchFloat64s(z.cdf, u)
	if i >= len(z.cdf) {
		i = len(z.cdf) - 1
	}
	return z.lo + i
}
