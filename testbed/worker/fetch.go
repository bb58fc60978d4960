package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/wire"
)

// fetcher copies one reduce's partitions from the nodes holding its job's
// map outputs, as Hadoop's shuffle does: it fetches from at most
// parallelCopies hosts at once, and one fetch takes every output of its
// host that is ready at that moment, over one connection (Hadoop 2's
// Fetcher copies all available map outputs of a host in one request). A
// host whose outputs become ready while it is being fetched from is queued
// again. The simulator's model is the same (sim.pump). If a host dies
// under a fetch, its outputs are forgotten rather than failed: the reduce
// waits for the master to announce them again, made anew elsewhere
// (docs/faults.md).
type fetcher struct {
	w        *Worker
	attempt  wire.Attempt
	job, r   int
	parallel int

	mu      sync.Mutex
	wake    chan struct{} // a map output was announced
	ready   map[int][]int // host -> maps ready there, not yet being fetched
	queue   []int         // hosts with ready maps, in the order they got them
	queued  map[int]bool
	busy    map[int]bool // hosts being fetched from
	seen    []bool       // map outputs announced (each is fetched once)
	digests []content.Digest
	have    []bool
	count   int
	bytes   int64
}

func newFetcher(w *Worker, a wire.Attempt, maps, parallel int) *fetcher {
	return &fetcher{w: w, attempt: a, job: a.Job, r: a.Task, parallel: max(parallel, 1), wake: make(chan struct{}, 1),
		ready: map[int][]int{}, queued: map[int]bool{}, busy: map[int]bool{},
		seen: make([]bool, maps), digests: make([]content.Digest, maps), have: make([]bool, maps)}
}

// add announces finished map outputs; it may be called from any goroutine.
func (f *fetcher) add(outs []wire.MapOutput) {
	f.mu.Lock()
	for _, o := range outs {
		if o.Map < 0 || o.Map >= len(f.seen) || f.seen[o.Map] {
			continue
		}
		f.seen[o.Map] = true
		f.ready[o.Node] = append(f.ready[o.Node], o.Map)
		if !f.queued[o.Node] && !f.busy[o.Node] {
			f.queued[o.Node] = true
			f.queue = append(f.queue, o.Node)
		}
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// run fetches until every map's partition is here, and returns the
// partitions' digests in map order and the bytes fetched.
func (f *fetcher) run(ctx context.Context) ([]content.Digest, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		host int
		maps []int
		err  error
	}
	results := make(chan done)
	inflight := 0
	var firstErr error
	for {
		f.mu.Lock()
		complete := f.count == len(f.have)
		for firstErr == nil && inflight < f.parallel && len(f.queue) > 0 {
			host := f.queue[0]
			f.queue = f.queue[1:]
			f.queued[host] = false
			maps := f.ready[host]
			delete(f.ready, host)
			f.busy[host] = true
			inflight++
			go func() { results <- done{host, maps, f.fetch(ctx, host, maps)} }()
		}
		f.mu.Unlock()
		if (complete || firstErr != nil) && inflight == 0 {
			if firstErr != nil {
				return nil, 0, firstErr
			}
			return f.digests, f.bytes, nil
		}
		select {
		case d := <-results:
			inflight--
			f.mu.Lock()
			f.busy[d.host] = false
			if len(f.ready[d.host]) > 0 && !f.queued[d.host] {
				f.queued[d.host] = true
				f.queue = append(f.queue, d.host)
			}
			f.mu.Unlock()
			if _, dead := deadNode(d.err); dead && ctx.Err() == nil {
				// Wait for these outputs to be announced again.
				f.mu.Lock()
				for _, m := range d.maps {
					if !f.have[m] {
						f.seen[m] = false
					}
				}
				f.mu.Unlock()
				f.w.conn.Send(wire.Msg{FetchFailed: &wire.FetchFailed{Attempt: f.attempt, Node: d.host, Maps: d.maps, Err: d.err.Error()}})
			} else if d.err != nil && firstErr == nil {
				firstErr = d.err
				cancel()
			}
		case <-f.wake:
		case <-ctx.Done():
			if firstErr == nil {
				firstErr = ctx.Err()
			}
		}
	}
}

// fetch copies this reduce's partitions of maps from host in one request.
func (f *fetcher) fetch(ctx context.Context, host int, maps []int) error {
	list := make([]string, len(maps))
	for i, m := range maps {
		list[i] = strconv.Itoa(m)
	}
	url := fmt.Sprintf("http://%s/shuffle/%d/%d?maps=%s", f.w.setup.Addrs[host], f.job, f.r, strings.Join(list, ","))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := f.w.client.Do(req)
	if err != nil {
		return asPeerError(host, fmt.Errorf("shuffle fetch from node %d: %w", host, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("shuffle fetch from node %d: %s: %s", host, resp.Status, strings.TrimSpace(string(msg)))
	}
	parts, n, err := readFrames(resp.Body, maps)
	if err != nil {
		return asPeerError(host, fmt.Errorf("shuffle fetch of maps %v from node %d: %w", maps, host, err))
	}
	f.mu.Lock()
	for i, m := range maps {
		if !f.have[m] {
			f.have[m] = true
			f.count++
		}
		f.digests[m] = parts[i]
	}
	f.bytes += n
	f.mu.Unlock()
	f.w.transfer(wire.Transfer{Job: f.job, Cause: wire.Shuffle, Bytes: n, CrossRack: f.w.setup.Racks[host] != f.w.setup.Racks[f.w.setup.Node]})
	return nil
}

// readFrames reads a shuffle response carrying the partitions of maps, in
// that order, checks each frame's map, length and digest, and returns the
// digests and the payload bytes.
func readFrames(body io.Reader, maps []int) ([]content.Digest, int64, error) {
	out := make([]content.Digest, len(maps))
	var total int64
	for i, m := range maps {
		var hdr [frameHeader]byte
		if _, err := io.ReadFull(body, hdr[:]); err != nil {
			return nil, 0, fmt.Errorf("map %d: frame header: %w", m, short(err))
		}
		if got := int(binary.BigEndian.Uint64(hdr[0:])); got != m {
			return nil, 0, fmt.Errorf("frame %d is map %d's, want map %d's", i, got, m)
		}
		n := int64(binary.BigEndian.Uint64(hdr[8:]))
		var want content.Digest
		copy(want[:], hdr[16:])
		h := content.NewHasher()
		got, err := io.Copy(h, io.LimitReader(body, n))
		if err == nil && got < n {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, 0, fmt.Errorf("map %d: read %d of %d bytes: %w", m, got, n, short(err))
		}
		if d := h.Sum(); d != want {
			return nil, 0, fmt.Errorf("map %d: the partition's digest is %s, its header says %s", m, d, want)
		}
		out[i] = want
		total += n
	}
	if extra, _ := io.Copy(io.Discard, body); extra > 0 {
		return nil, 0, fmt.Errorf("%d bytes after the last frame", extra)
	}
	return out, total, nil
}

// short names an early end of a stream as the short read it is.
func short(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
