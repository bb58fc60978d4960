package worker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
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
// the compute rate) does.
func (w *Worker) runMap(ctx context.Context, l *wire.Launch) error {
	m := l.Map
	a := l.Attempt
	cpu := pace.New(l.BytesPerSec)
	var src io.Reader
	var trailer func() http.Header
	if m.Source == w.setup.Node {
		f, n, err := w.store.OpenBlock(a.Job, a.Task)
		if err != nil {
			return err
		}
		defer f.Close()
		if n != m.InputBytes {
			return fmt.Errorf("block %d of job %d is %d bytes on this node, the task expects %d", a.Task, a.Job, n, m.InputBytes)
		}
		src = pace.NewReader(ctx, f, w.disk, cpu)
	} else {
		if m.Source < 0 || m.Source >= len(w.setup.Addrs) {
			return fmt.Errorf("no node %d to read block %d of job %d from", m.Source, a.Task, a.Job)
		}
		url := fmt.Sprintf("http://%s/block/%d/%d", w.setup.Addrs[m.Source], a.Job, a.Task)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := w.client.Do(req)
		if err != nil {
			return fmt.Errorf("reading block %d of job %d from node %d: %w", a.Task, a.Job, m.Source, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			return fmt.Errorf("reading block %d of job %d from node %d: %s: %s", a.Task, a.Job, m.Source, resp.Status, strings.TrimSpace(string(msg)))
		}
		if n, err := strconv.ParseInt(resp.Header.Get(hdrLength), 10, 64); err != nil || n != m.InputBytes {
			return fmt.Errorf("block %d of job %d on node %d is %q bytes, the task expects %d", a.Task, a.Job, m.Source, resp.Header.Get(hdrLength), m.InputBytes)
		}
		src = pace.NewReader(ctx, resp.Body, cpu)
		trailer = func() http.Header { return resp.Trailer }
	}
	h := content.NewHasher()
	got, err := io.Copy(h, src)
	if err == nil && got != m.InputBytes {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("reading block %d of job %d from node %d: read %d of %d bytes: %w", a.Task, a.Job, m.Source, got, m.InputBytes, short(err))
	}
	in := h.Sum()
	if trailer != nil {
		if want := trailer().Get(hdrDigest); want != in.String() {
			return fmt.Errorf("block %d of job %d from node %d: digest %s, the sender says %q", a.Task, a.Job, m.Source, in, want)
		}
		w.transfer(wire.Transfer{Job: a.Job, Cause: wire.RemoteMap, Bytes: got, CrossRack: w.setup.Racks[m.Source] != w.setup.Racks[w.setup.Node]})
	}
	return w.writeOutput(ctx, a, in, m.Partitions)
}

// writeOutput writes a map's partitions to its output file and indexes them.
func (w *Worker) writeOutput(ctx context.Context, a wire.Attempt, in content.Digest, sizes []int64) error {
	f, err := w.store.CreateOutput(a.Job, a.Task)
	if err != nil {
		return err
	}
	parts := make([]Partition, len(sizes))
	var off int64
	dst := pace.NewWriter(ctx, f, w.disk)
	for r, n := range sizes {
		h := content.NewHasher()
		k, err := io.Copy(io.MultiWriter(dst, h), content.Stream(content.PartitionKey(in, r), n))
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
	parts, fetched, err := f.run(ctx)
	if err != nil {
		return content.Digest{}, err
	}
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
	d, err := w.replicate(ctx, a.Job, a.Task, content.Stream(content.OutputKey(parts), rt.OutputBytes), rt.OutputBytes, rt.Pipeline)
	if err != nil {
		return content.Digest{}, err
	}
	cross := false
	prev := w.setup.Node
	for _, n := range rt.Pipeline {
		cross = cross || w.setup.Racks[n] != w.setup.Racks[prev]
		prev = n
	}
	w.transfer(wire.Transfer{Job: a.Job, Cause: wire.Output, Bytes: rt.OutputBytes, CrossRack: cross})
	return d, nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
