package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
)

// Map spills and merges, and the reduce's merge (docs/model.md, Costs
// beyond bandwidth). Both follow Hadoop's code (MapTask.MapOutputBuffer,
// ReduceTask.ReduceCopier, Merger, of Hadoop 1.2.1; Hadoop 2's MapTask and
// MergeManagerImpl keep the same rules) in bytes, not records: the traces
// give bytes only.
//
// A map collects its output in a sort buffer of Params.SortBufferMB and
// spills it to its own disk each time the buffer is spillPercent full
// (io.sort.spill.percent), and once more at the end: ceil(out / (0.8 x
// buffer)) spills. Hadoop 1 keeps io.sort.record.percent (5%) of the
// buffer for record metadata and spills earlier when records are small;
// the model, without record counts, spills on bytes alone. The spills are
// written while the map reads its input (Hadoop's spill thread), so the
// map's read and its spill are two flows at once, the spill capped at the
// rate the map makes output (its processing rate times output/input).
// With one spill the spill is the map's output file (mergeParts renames
// it); with more, the map merges them (mergeParts with Merger's passes,
// mergePassBytes) and writes its output file, reading each spilled byte
// and writing it again per pass: one flow over its disk twice (a merge
// reads and writes at once, two streams). The shuffle then reads the
// output from the map's disk, as it always did in the model.
//
// A reduce keeps fetched map output in a shuffle buffer of
// Params.ReduceBufferMB; an output that does not fit in what is left of
// it, or that is above a quarter of it (ReduceTask's
// MAX_SINGLE_SHUFFLE_SEGMENT_FRACTION), is written to the reduce's disk
// as it arrives: the fetch also crosses that disk. Hadoop frees the
// buffer by merging it to disk when it is 66% full
// (mapred.job.shuffle.merge.percent); the model keeps the first outputs
// in memory and sends the rest to disk, which writes the same bytes to
// disk to first order, in more, smaller files. When the copy ends, the
// bytes in memory above Params.ReduceInputBufferMB are written to disk as
// one more file unless the reduce already has MergeFactor files on disk
// (ReduceCopier.createKVIterator, with mapred.job.reduce.input.buffer.percent
// 0.0: all of them); the final merge then reads every file on disk, after
// Merger's intermediate passes when there are more than MergeFactor. The
// model charges that merge before the reduce function runs; Hadoop
// streams the final pass into it, so a CPU-bound reduce overlaps part of
// its last read.

// spillPercent is io.sort.spill.percent: a map spills when its sort
// buffer is this full (mapred-default.xml, 0.80).
const spillPercent = 0.80

// maxSingleShuffleFraction is the largest map output, as a fraction of
// the reduce's shuffle buffer, that a reduce keeps in memory
// (ReduceTask.MAX_SINGLE_SHUFFLE_SEGMENT_FRACTION, 0.25).
const maxSingleShuffleFraction = 0.25

// mib is the bytes in the MiB the buffer settings count in.
const mib = 1 << 20

// mergePassBytes returns the bytes Hadoop's Merger merges in its
// intermediate passes over segments of the given sizes with merge factor
// f: each is read once and written once. The final pass, over at most f
// segments, is not counted: its reads are the caller's to charge. The
// first pass merges just enough segments that every later pass merges f
// (Merger.MergeQueue.getPassFactor); each pass takes the smallest
// segments and puts the merged one back in size order. It reorders
// sizes.
func mergePassBytes(sizes []float64, f int) float64 {
	sizes = slices.DeleteFunc(sizes, func(s float64) bool { return s <= 0 }) // Merger drops empty segments
	if len(sizes) <= f {
		return 0
	}
	slices.Sort(sizes)
	total := 0.0
	for pass := 1; ; pass++ {
		n, k := len(sizes), f
		if pass == 1 {
			if mod := (n - 1) % (f - 1); mod != 0 {
				k = mod + 1
			}
		}
		if n <= k {
			return total
		}
		merged := 0.0
		for _, s := range sizes[:k] {
			merged += s
		}
		total += merged
		sizes = sizes[k:]
		at, _ := slices.BinarySearch(sizes, merged)
		sizes = slices.Insert(sizes, at, merged)
	}
}

// mapSpills returns the spills of a map output of out bytes with a sort
// buffer of bufMB MiB: their number, and the bytes the map's merge moves
// (each merged byte read once and written once), 0 with a single spill.
func mapSpills(out, bufMB float64, factor int) (spills int, merge float64) {
	if out <= 0 {
		return 0, 0
	}
	per := spillPercent * bufMB * mib
	spills = int(math.Ceil(out / per))
	if spills <= 1 {
		return 1, 0
	}
	sizes := make([]float64, spills)
	for i := range sizes {
		sizes[i] = per
	}
	sizes[spills-1] = out - per*float64(spills-1)
	// The final pass writes the output file: every byte once more.
	return spills, mergePassBytes(sizes, factor) + out
}

// reduceDisk is a reduce attempt's shuffle buffer and files on disk, in a
// run that models the reduce's merge (Params.ReduceBufferMB > 0).
type reduceDisk struct {
	mem float64 // bytes in the buffer, fetched or on their way
	// segs are the sizes of the files on disk, one a fetch to disk.
	segs []float64
	// flying are the fetches in flight: at most ParallelCopies.
	flying []flyingFetch
	// mergeSpill and mergeBytes are what the final merge writes from
	// memory and moves in its passes and read, over its disk
	// mergeTimes times (finalMerge), while it runs.
	mergeSpill, mergeBytes float64
	mergeTimes             int
}

// flyingFetch is a fetch in flight, with where its bytes go.
type flyingFetch struct {
	host   int32
	bytes  float64
	toDisk bool
}

// reserve places a fetch of bytes from host index h: in the buffer of
// bufBytes if it fits there and is at most a quarter of it, else on disk.
// It reports whether it goes to disk.
func (d *reduceDisk) reserve(h int32, bytes, bufBytes float64) bool {
	toDisk := bytes > maxSingleShuffleFraction*bufBytes || d.mem+bytes > bufBytes
	if !toDisk {
		d.mem += bytes
	}
	d.flying = append(d.flying, flyingFetch{h, bytes, toDisk})
	return toDisk
}

// land records that the fetch from host index h arrived, and reports
// whether it went to disk and its size.
func (d *reduceDisk) land(h int32) (toDisk bool, bytes float64) {
	for k, f := range d.flying {
		if f.host == h {
			d.flying = slices.Delete(d.flying, k, k+1)
			if f.toDisk {
				d.segs = append(d.segs, f.bytes)
			}
			return f.toDisk, f.bytes
		}
	}
	return false, 0
}

// cancel forgets the fetch from host index h, whose flow broke: its bytes
// will be fetched again.
func (d *reduceDisk) cancel(h int32) {
	for k, f := range d.flying {
		if f.host == h {
			if !f.toDisk {
				d.mem -= f.bytes
			}
			d.flying = slices.Delete(d.flying, k, k+1)
			return
		}
	}
}

// finalMerge returns what the reduce's disk does after its copy: the
// bytes written from memory (spill) and the bytes its merge passes and
// final read move (merge), and how many files the merge reads.
func (d *reduceDisk) finalMerge(keepMem float64, factor int) (spill, merge float64, files int) {
	segs := slices.Clone(d.segs)
	if d.mem > keepMem && len(segs) < factor {
		spill = d.mem - keepMem
		segs = append(segs, spill)
	}
	onDisk := 0.0
	for _, s := range segs {
		onDisk += s
	}
	return spill, 2*mergePassBytes(segs, factor) + onDisk, len(segs)
}

// diskLedger counts the bytes the spill and merge flows were started
// with, the bytes of those that completed and the bytes of those removed
// with their attempt, by cause: a run with invariants checks that every
// byte planned was moved or cancelled once.
type diskLedger struct {
	planned, moved, cancelled [2]float64 // by metrics.DiskCause
}

// diskFlow starts a flow of bytes over node n's disk, crossing it times
// times (a merge reads and writes it: 2), capped at rateCap (0: uncapped),
// for cause. The ledger counts the bytes the disk is to carry.
func (e *Engine) diskFlow(n cluster.NodeID, bytes float64, times int, rateCap float64, ref flowRef, cause metrics.DiskCause) network.FlowID {
	path := e.pathBuf[:0]
	for range times {
		path = append(path, e.topo.DiskLink(n))
	}
	e.ledger.planned[cause] += bytes * float64(times)
	id, err := e.net.AddFlow(e.now, path, bytes, rateCap, ref)
	if err != nil {
		e.fail("network: %v", err)
	}
	e.pathBuf = path[:0]
	return id
}

// diskDone records that a disk flow of cause moved diskBytes over its
// disk.
func (e *Engine) diskDone(cause metrics.DiskCause, diskBytes float64) {
	e.ledger.moved[cause] += diskBytes
	e.col.DiskIO(cause, diskBytes)
}

// cancelDiskFlow removes the disk flow *id of cause, which crosses its
// disk times times, as its attempt ends, and clears *id. Its bytes leave
// the ledger as cancelled; like a killed attempt's network transfers,
// they are not counted in the run's bytes. A flow that completed at this
// instant, in the batch being handled, is gone from the network already:
// its completion, ignored as its attempt's, cancels it (staleDiskFlow).
func (e *Engine) cancelDiskFlow(id *network.FlowID, times int, cause metrics.DiskCause) {
	if *id == 0 {
		return
	}
	if size, _, ok := e.net.Progress(e.now, *id); ok {
		e.ledger.cancelled[cause] += size * float64(times)
		e.net.Remove(e.now, *id)
	}
	*id = 0
}

// staleDiskFlow takes off the ledger a map's spill or merge flow that
// completed after its attempt ended (cancelDiskFlow).
func (e *Engine) staleDiskFlow(ref *flowRef, bytes float64) {
	switch ref.kind {
	case flowSpill:
		e.ledger.cancelled[metrics.Spill] += bytes
	case flowMapMerge:
		e.ledger.cancelled[metrics.Merge] += 2 * bytes
	}
}

// checkDiskLedger verifies, at the end of a run, that every spill and
// merge byte planned was moved or cancelled, and that the run's bytes by
// cause are the ones moved.
func (e *Engine) checkDiskLedger() error {
	for c := range e.ledger.planned {
		l := &e.ledger
		if d := l.planned[c] - l.moved[c] - l.cancelled[c]; math.Abs(d) > 1e-6*math.Max(1, l.planned[c]) {
			return fmt.Errorf("invariant: %s: %.0f disk bytes planned, %.0f moved and %.0f cancelled", metrics.DiskCause(c), l.planned[c], l.moved[c], l.cancelled[c])
		}
		if got := e.col.DiskBytes(metrics.DiskCause(c)); math.Abs(got-e.ledger.moved[c]) > 1e-6*math.Max(1, got) {
			return fmt.Errorf("invariant: %s: the run reports %.0f disk bytes, its flows moved %.0f", metrics.DiskCause(c), got, e.ledger.moved[c])
		}
	}
	return nil
}

// startSpill starts attempt m's spill of map i's output to its own disk
// (the part it makes before it fails, if it fails), written as the map
// makes it.
func (e *Engine) startSpill(jr *jobRun, i int, m *mapTask) {
	bb := e.topo.Config().BlockBytes()
	full := jr.spec.MapOutputBytes(i, bb)
	out := full
	if m.failAt > 0 {
		out *= float64(m.failAt)
	}
	if out <= 0 {
		return
	}
	rateCap := 0.0 // uncapped
	if c := jr.spec.Profile.MapSecPerByte; c > 0 {
		if in := float64(jr.spec.MapInputBytes(i, bb)); in > 0 {
			rateCap = full / (in * c) // output in proportion to the input it reads at its processing rate
		}
	}
	ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: m.attempt, kind: flowSpill, host: m.node, backup: m != &jr.maps[i]}
	m.spill = e.diskFlow(m.node, out, 1, rateCap, ref, metrics.Spill)
	m.parts++
}

// mapPartDone is called when attempt m of map i ends its read or its
// spill; when both have, it merges its spills, if it has several, or is
// done.
func (e *Engine) mapPartDone(jr *jobRun, i int, m *mapTask) {
	if m.parts--; m.parts > 0 {
		return
	}
	e.jt.Phase(jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.MapTask, N: m.attempt}, critpath.ReadDone)
	if e.p.SortBufferMB > 0 {
		out := jr.spec.MapOutputBytes(i, e.topo.Config().BlockBytes())
		if _, merge := mapSpills(out, e.p.SortBufferMB, e.p.MergeFactor); merge > 0 {
			m.state = tsMerging
			ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: m.attempt, kind: flowMapMerge, host: m.node, backup: m != &jr.maps[i]}
			m.flow = e.diskFlow(m.node, merge, 2, 0, ref, metrics.Merge)
			return
		}
	}
	e.finishMap(jr, i, m)
}

// cancelFetch takes the fetch from host index h of reduce attempt r, whose
// flow was removed, out of its shuffle buffer's account.
func (e *Engine) cancelFetch(r *reduceTask, h int32) {
	if r.dk == nil {
		return
	}
	for _, f := range r.dk.flying {
		if f.host == h && f.toDisk {
			e.ledger.cancelled[metrics.Spill] += f.bytes
		}
	}
	r.dk.cancel(h)
}

// reduceMerge runs reduce i's final merge (costs.go) and then its
// computation; without a merge to do, its computation at once.
func (e *Engine) reduceMerge(jr *jobRun, i int) {
	r := &jr.reduces[i]
	e.jt.Phase(jr.reduceAttempt(i), critpath.ComputeStart)
	d := r.dk
	if d == nil {
		e.compute(jr, i)
		return
	}
	spill, merge, files := d.finalMerge(e.p.ReduceInputBufferMB*mib, e.p.MergeFactor)
	if spill+merge <= 0 {
		e.compute(jr, i)
		return
	}
	d.mergeSpill, d.mergeBytes = spill, merge
	e.ledger.planned[metrics.Spill] += spill
	e.ledger.planned[metrics.Merge] += merge
	times := 1 // one file written, or read back: one stream
	if files >= 2 {
		times = 2 // files read at once, interleaved: two streams or more
	}
	d.mergeTimes = times
	r.state = tsMerging
	path := e.pathBuf[:0]
	for range times {
		path = append(path, e.topo.DiskLink(r.node))
	}
	ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: r.attempt, kind: flowReduceMerge, host: r.node}
	id, err := e.net.AddFlow(e.now, path, (spill+merge)/float64(times), 0, ref)
	if err != nil {
		e.fail("network: %v", err)
	}
	r.write = id
	e.pathBuf = path[:0]
}

// reduceMergeDone is called when reduce i's final merge ends.
func (e *Engine) reduceMergeDone(jr *jobRun, i int) {
	r := &jr.reduces[i]
	r.write = 0
	e.diskDone(metrics.Spill, r.dk.mergeSpill)
	e.diskDone(metrics.Merge, r.dk.mergeBytes)
	e.compute(jr, i)
}

// cancelReduceMerge removes reduce attempt r's final merge, if it runs.
func (e *Engine) cancelReduceMerge(r *reduceTask) {
	if r.write == 0 {
		return
	}
	e.net.Remove(e.now, r.write)
	r.write = 0
	e.ledger.cancelled[metrics.Spill] += r.dk.mergeSpill
	e.ledger.cancelled[metrics.Merge] += r.dk.mergeBytes
}
