package worker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/pace"
	"github.com/mrsched/mrsched/testbed/wire"
)

// runMap reads the map's block from its source replica while computing at
// the task's rate, digests it, and writes its partitions, one stream a
// reduce keyed by the input's digest, to one output file on this node's
// disk. The read moves at the slowest of the source disk, the network path
// and the compute rate, as the simulator's map read (one flow capped at
// the compute rate) does. If the source's node cannot be reached (refused,
// reset, timed out), the map reads the block again from the beginning
// from the next replica, as HDFS's reader does.
//
// prog counts the bytes read and written, for the heartbeats' progress.
func (w *Worker) runMap(ctx context.Context, l *wire.Launch, prog *mapProgress) error {
	m := l.Map
	a := l.Attempt
	if prog == nil {
		prog = &mapProgress{}
	}
	var last error
	for _, src := range append([]int{m.Source}, m.Others...) {
		w.setPhase(a, fmt.Sprintf("reading block %d of job %d from node %d while computing", a.Task, a.Job, src), src == w.setup.Node)
		prog.read.Store(0) // another replica reads from the beginning
		in, err := w.readBlock(ctx, a, src, m.InputBytes, l.BytesPerSec, &prog.read)
		if err == nil {
			w.mark(a, wire.PhaseReadDone)
			w.setPhase(a, "writing its output (paced by the disk)", true)
		}
		if err == nil {
			return w.writeOutput(ctx, a, in, m.Partitions, &prog.written)
		}
		if _, dead := deadNode(err); !dead || ctx.Err() != nil {
			return err
		}
		w.recovered(a, wire.OtherReplica, src, err)
		last = err
	}
	return &noReplicaError{fmt.Errorf("no replica of block %d of job %d could be read; the last failure: %w", a.Task, a.Job, last)}
}

// readBlock reads block a.Task of job a.Job from node src, computing at
// rate as it reads and counting the bytes into read, and returns the
// block's digest.
func (w *Worker) readBlock(ctx context.Context, a wire.Attempt, src int, want int64, rate float64, read *atomic.Int64) (content.Digest, error) {
	cpu := pace.New(rate)
	var r io.Reader
	var trailer func() http.Header
	if src == w.setup.Node {
		f, n, err := w.store.OpenBlock(a.Job, a.Task)
		if err != nil {
			return content.Digest{}, err
		}
		defer f.Close()
		if n != want {
			return content.Digest{}, fmt.Errorf("block %d of job %d is %d bytes on this node, the task expects %d", a.Task, a.Job, n, want)
		}
		r = pace.NewReader(ctx, f, w.disk, cpu)
	} else {
		if src < 0 || src >= len(w.setup.Addrs) {
			return content.Digest{}, fmt.Errorf("no node %d to read block %d of job %d from", src, a.Task, a.Job)
		}
		url := fmt.Sprintf("http://%s/block/%d/%d", w.setup.Addrs[src], a.Job, a.Task)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return content.Digest{}, err
		}
		resp, err := w.client.Do(req)
		if err != nil {
			return content.Digest{}, asPeerError(src, fmt.Errorf("reading block %d of job %d from node %d: %w", a.Task, a.Job, src, err))
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			return content.Digest{}, fmt.Errorf("reading block %d of job %d from node %d: %s: %s", a.Task, a.Job, src, resp.Status, strings.TrimSpace(string(msg)))
		}
		if n, err := strconv.ParseInt(resp.Header.Get(hdrLength), 10, 64); err != nil || n != want {
			return content.Digest{}, fmt.Errorf("block %d of job %d on node %d is %q bytes, the task expects %d", a.Task, a.Job, src, resp.Header.Get(hdrLength), want)
		}
		r = pace.NewReader(ctx, resp.Body, cpu)
		trailer = func() http.Header { return resp.Trailer }
	}
	h := content.NewHasher()
	got, err := io.Copy(h, countingReader{r, read})
	if err == nil && got != want {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		err = fmt.Errorf("reading block %d of job %d from node %d: read %d of %d bytes: %w", a.Task, a.Job, src, got, want, short(err))
		if src != w.setup.Node {
			err = asPeerError(src, err)
		}
		return content.Digest{}, err
	}
	in := h.Sum()
	if trailer != nil {
		if d := trailer().Get(hdrDigest); d != in.String() {
			return content.Digest{}, fmt.Errorf("block %d of job %d from node %d: digest %s, the sender says %q", a.Task, a.Job, src, in, d)
		}
		w.transfer(wire.Transfer{Job: a.Job, Cause: wire.RemoteMap, Bytes: got, CrossRack: w.setup.Racks[src] != w.setup.Racks[w.setup.Node]})
	}
	return in, nil
}

// writeOutput writes a map's partitions to its output file and indexes
// them, counting the bytes into written.
func (w *Worker) writeOutput(ctx context.Context, a wire.Attempt, in content.Digest, sizes []int64, written *atomic.Int64) error {
	f, err := w.store.CreateOutput(a.Job, a.Task)
	if err != nil {
		return err
	}
	parts := make([]Partition, len(sizes))
	var off int64
	dst := pace.NewWriter(ctx, f, w.disk)
	for r, n := range sizes {
		h := content.NewHasher()
		k, err := io.Copy(io.MultiWriter(dst, h), countingReader{content.Stream(content.PartitionKey(in, r), n), written})
		if err != nil {
			f.Close()
			return fmt.Errorf("writing partition %d of map %d of job %d: %w", r, a.Task, a.Job, err)
		}
		parts[r] = Partition{Off: off, Len: k, Digest: h.Sum()}
		off += k
	}
	return w.store.Commit(f, a.Job, a.Task, parts)
}

// runReduce fetches the reduce's partitions, computes over them at the
// task's rate, and writes its output through the replication pipeline. It
// returns the output's digest.
func (w *Worker) runReduce(ctx context.Context, l *wire.Launch, f *fetcher) (content.Digest, error) {
	a := l.Attempt
	rt := l.Reduce
	w.mu.Lock()
	if p := w.phases[a]; p != nil {
		p.what, p.since, p.pacedNow, p.fetch = "shuffling", time.Now(), false, f
	}
	w.mu.Unlock()
	parts, fetched, err := f.run(ctx)
	w.mu.Lock()
	if p := w.phases[a]; p != nil {
		p.fetch = nil
	}
	w.mu.Unlock()
	if err != nil {
		return content.Digest{}, err
	}
	// Sent at once, ahead of the attempt's end, which the next heartbeat
	// carries: the connection keeps them in order.
	w.conn.Send(wire.Msg{Copied: &a})
	w.setPhase(a, "computing over its fetched bytes", true)
	if l.BytesPerSec > 0 {
		if err := pace.New(l.BytesPerSec).Wait(ctx, int(min(fetched, 1<<62))); err != nil {
			return content.Digest{}, err
		}
	}
	for _, n := range rt.Pipeline {
		if n < 0 || n >= len(w.setup.Addrs) {
			return content.Digest{}, fmt.Errorf("output pipeline names node %d, which does not exist", n)
		}
	}
	w.mark(a, wire.PhaseWriteStart)
	d, pipeline, err := w.writeThrough(ctx, a, content.OutputKey(parts), rt.OutputBytes, rt.Pipeline)
	if err != nil {
		return content.Digest{}, err
	}
	cross := false
	prev := w.setup.Node
	for _, n := range pipeline {
		cross = cross || w.setup.Racks[n] != w.setup.Racks[prev]
		prev = n
	}
	w.transfer(wire.Transfer{Job: a.Job, Cause: wire.Output, Bytes: rt.OutputBytes, CrossRack: cross})
	return d, nil
}

// writeThrough writes reduce a's output, n bytes of the stream keyed k,
// through pipeline, and returns its digest and the nodes that took it. A
// pipeline node that cannot be reached during the write (dead, reset,
// timed out) is dropped and the output written again through the others,
// as HDFS drops a failed datanode from a write pipeline.
func (w *Worker) writeThrough(ctx context.Context, a wire.Attempt, k content.Key, n int64, pipeline []int) (content.Digest, []int, error) {
	pipeline = slices.Clone(pipeline)
	for {
		w.setPhase(a, fmt.Sprintf("writing its output through pipeline %v", pipeline), false)
		d, err := w.replicate(ctx, a.Job, a.Task, content.Stream(k, n), n, pipeline)
		if node, dead := deadNode(err); dead && ctx.Err() == nil && slices.Contains(pipeline, node) {
			w.recovered(a, wire.PipelineDrop, node, err)
			pipeline = slices.DeleteFunc(pipeline, func(x int) bool { return x == node })
			continue
		}
		return d, pipeline, err
	}
}
