package content

import (
	"fmt"
	"math"

	"github.com/mrsched/mrsched/workload"
)

// Plan is one job's byte counts on the testbed, already multiplied by the
// run's byte scale: what each map reads, what it writes for each reduce,
// and what each reduce writes. It follows the simulator's split of a job's
// totals over its tasks (workload.Job's MapInputBytes, MapOutputBytes and
// ReduceOutputBytes), rounded to whole bytes.
type Plan struct {
	Seed uint64
	Job  string // the job's name, which keys its blocks
	// Input is each map's block length.
	Input []int64
	// MapOutput is each map's total output, split over the reduces by
	// PartitionBytes.
	MapOutput []int64
	// Output is each reduce's output length.
	Output []int64
}

// PlanJob scales job j's bytes by byteScale for a run with this seed and
// block size (unscaled bytes, as the scenario's cluster.block_mb gives).
func PlanJob(j *workload.Job, blockBytes int64, byteScale float64, seed uint64) (Plan, error) {
	if !(byteScale > 0) || math.IsInf(byteScale, 0) {
		return Plan{}, fmt.Errorf("content: byte scale %v must be positive and finite", byteScale)
	}
	p := Plan{Seed: seed, Job: j.Name, Input: make([]int64, j.NumMaps), MapOutput: make([]int64, j.NumMaps), Output: make([]int64, j.NumReduces)}
	scale := func(b float64) int64 { return int64(math.Round(b * byteScale)) }
	for i := range j.NumMaps {
		p.Input[i] = scale(float64(j.MapInputBytes(i, blockBytes)))
		p.MapOutput[i] = scale(j.MapOutputBytes(i, blockBytes))
	}
	for r := range j.NumReduces {
		p.Output[r] = scale(j.ReduceOutputBytes(r))
	}
	return p, nil
}

// Reduces is the job's reduce count.
func (p *Plan) Reduces() int { return len(p.Output) }

// PartitionBytes is the part of map m's output that goes to reduce r: an
// even split, the first (output mod reduces) partitions a byte longer.
func (p *Plan) PartitionBytes(m, r int) int64 {
	return Split(p.MapOutput[m], len(p.Output), r)
}

// Split is part r of total split evenly over n parts, the first
// total mod n parts a byte longer.
func Split(total int64, n, r int) int64 {
	q, rem := total/int64(n), total%int64(n)
	if int64(r) < rem {
		return q + 1
	}
	return q
}

// MapDigests digests each map's input block and, from it, the partitions
// the map writes: parts[m][r] is the digest of map m's partition for
// reduce r.
func (p *Plan) MapDigests() (parts [][]Digest) {
	parts = make([][]Digest, len(p.Input))
	for m := range p.Input {
		in := Of(BlockKey(p.Seed, p.Job, m), p.Input[m])
		parts[m] = make([]Digest, len(p.Output))
		for r := range p.Output {
			parts[m][r] = Of(PartitionKey(in, r), p.PartitionBytes(m, r))
		}
	}
	return parts
}

// Expected is the job's checksum, computed from the plan alone.
func (p *Plan) Expected() Digest {
	parts := p.MapDigests()
	outs := make([]Digest, len(p.Output))
	col := make([]Digest, len(p.Input))
	for r := range p.Output {
		for m := range p.Input {
			col[m] = parts[m][r]
		}
		outs[r] = Of(OutputKey(col), p.Output[r])
	}
	return JobChecksum(outs)
}

// Bytes is the plan's total input, shuffle and output bytes.
func (p *Plan) Bytes() (input, shuffle, output int64) {
	for m := range p.Input {
		input += p.Input[m]
		shuffle += p.MapOutput[m]
	}
	for _, o := range p.Output {
		output += o
	}
	return input, shuffle, output
}
