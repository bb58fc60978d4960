package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/wire"
)

// fetcher copies one reduce's partitions from the nodes holding its job's
// map outputs, as Hadoop's shuffle does: it fetches from at most
// parallelCopies hosts at once, and one fetch takes every output of its
// host that is ready at that moment, over one connection (Hadoop 2's
// Fetcher copies all available map outputs of a host in one request). A
// host whose outputs become ready while it is being fetched from is queued
// again. The simulator's model is the same (sim.pump).
//
// A failed fetch (a refused or reset connection, a timeout, a short or
// corrupt body, an error answer) is what Hadoop's ShuffleSchedulerImpl
// calls copyFailed: it is reported to the master, the host is penalised
// (retried after a back-off growing 1.3 times with each failure of the
// map, up to a bound), and the outputs are fetched from it again; the
// host is never taken for dead. Only the master, which declares nodes
// lost, moves an output: it announces a map output obsolete (node -1)
// when it runs the map again, and its new place when that attempt ends.
// Too many failures fail the attempt, by Hadoop's rules (see
// tooManyFailures).
type fetcher struct {
	w        *Worker
	attempt  wire.Attempt
	job, r   int
	parallel int

	mu        sync.Mutex
	wake      chan struct{} // a map output was announced, or a host's penalty ended
	ready     map[int][]int // host -> maps ready there, not yet being fetched
	queue     []int         // hosts with ready maps, in the order they got them
	queued    map[int]bool
	busy      map[int]bool      // hosts being fetched from
	penalised map[int]time.Time // hosts backing off, until when
	loc       []int             // where each map's output is announced, -1 if nowhere
	failures  []int             // failed fetches of each map's current output
	digests   []content.Digest
	have      []bool
	count     int
	bytes     int64
	// totalFailures counts every map a failed fetch carried; start and
	// lastProgress are when the shuffle began and last copied a map: the
	// inputs of the health rule.
	totalFailures       int
	start, lastProgress time.Time
	lastErr             string
	// maxMapRun is the longest run of a map of the job announced so far.
	maxMapRun time.Duration
}

func newFetcher(w *Worker, a wire.Attempt, maps, parallel int) *fetcher {
	f := &fetcher{w: w, attempt: a, job: a.Job, r: a.Task, parallel: max(parallel, 1), wake: make(chan struct{}, 1),
		ready: map[int][]int{}, queued: map[int]bool{}, busy: map[int]bool{}, penalised: map[int]time.Time{},
		loc: make([]int, maps), failures: make([]int, maps), digests: make([]content.Digest, maps), have: make([]bool, maps),
		start: time.Now()}
	f.lastProgress = f.start
	for i := range f.loc {
		f.loc[i] = -1
	}
	return f
}

// add announces finished map outputs, or obsolete ones (node -1); it may
// be called from any goroutine.
func (f *fetcher) add(outs []wire.MapOutput) {
	f.mu.Lock()
	for _, o := range outs {
		f.maxMapRun = max(f.maxMapRun, time.Duration(o.RunS*float64(time.Second)))
		if o.Map < 0 || o.Map >= len(f.loc) || f.have[o.Map] || f.loc[o.Map] == o.Node {
			continue
		}
		// A new place is a new attempt's output: its failures start anew,
		// as Hadoop counts them by map attempt.
		f.loc[o.Map], f.failures[o.Map] = o.Node, 0
		if o.Node < 0 || o.Node >= len(f.w.setup.Addrs) {
			f.loc[o.Map] = -1
			continue
		}
		f.ready[o.Node] = append(f.ready[o.Node], o.Map)
		f.enqueue(o.Node)
	}
	f.mu.Unlock()
	f.poke()
}

func (f *fetcher) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// enqueue queues host if it has ready maps and is neither queued, busy
// nor backing off. The caller holds f.mu.
func (f *fetcher) enqueue(host int) {
	if len(f.ready[host]) > 0 && !f.queued[host] && !f.busy[host] && f.penalised[host].IsZero() {
		f.queued[host] = true
		f.queue = append(f.queue, host)
	}
}

// run fetches until every map's partition is here, and returns the
// partitions' digests in map order and the bytes fetched.
func (f *fetcher) run(ctx context.Context) ([]content.Digest, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		host         int
		maps, failed []int
		err          error
	}
	results := make(chan done)
	inflight := 0
	var failed error
	for {
		f.mu.Lock()
		complete := f.count == len(f.have)
		for failed == nil && inflight < f.parallel && len(f.queue) > 0 {
			host := f.queue[0]
			f.queue = f.queue[1:]
			f.queued[host] = false
			// Only the outputs still announced there, and not yet here.
			maps := slices.DeleteFunc(f.ready[host], func(m int) bool { return f.have[m] || f.loc[m] != host })
			delete(f.ready, host)
			if len(maps) == 0 {
				continue
			}
			f.busy[host] = true
			inflight++
			go func() {
				failed, err := f.fetch(ctx, host, maps)
				results <- done{host, maps, failed, err}
			}()
		}
		f.mu.Unlock()
		if (complete || failed != nil) && inflight == 0 {
			if failed != nil {
				return nil, 0, failed
			}
			return f.digests, f.bytes, nil
		}
		select {
		case d := <-results:
			inflight--
			if d.err != nil && ctx.Err() == nil {
				failed = f.copyFailed(d.host, d.maps, d.failed, d.err)
				if failed != nil {
					cancel()
				}
			}
			f.mu.Lock()
			f.busy[d.host] = false
			f.enqueue(d.host)
			f.mu.Unlock()
		case <-f.wake:
		case <-ctx.Done():
			if failed == nil {
				failed = ctx.Err()
			}
		}
	}
}

// copyFailed takes a failed fetch of maps from host, as Hadoop's
// ShuffleSchedulerImpl.copyFailed does: it counts a failure of each map
// in failed, reports them to the master, puts every map not yet here back
// to be fetched from the same host once its penalty is over, and returns
// the attempt's error when the failures are too many.
func (f *fetcher) copyFailed(host int, maps, failed []int, err error) error {
	f.mu.Lock()
	worst := 0
	var again, counted []int
	for _, m := range maps {
		if f.have[m] || f.loc[m] != host {
			continue // fetched, or moved meanwhile: nothing failed that counts
		}
		again = append(again, m)
		if !slices.Contains(failed, m) {
			continue
		}
		f.failures[m]++
		f.totalFailures++
		worst = max(worst, f.failures[m])
		counted = append(counted, m)
	}
	f.lastErr = fmt.Sprintf("%v (at %s)", err, time.Now().Format(time.RFC3339Nano))
	if len(again) > 0 {
		f.ready[host] = append(f.ready[host], again...)
		t := f.w.timeouts
		delay := time.Duration(min(t.PenaltyS*math.Pow(penaltyGrowth, float64(worst)), t.MaxPenaltyS) * float64(time.Second))
		f.penalised[host] = time.Now().Add(delay)
		time.AfterFunc(delay, func() {
			f.mu.Lock()
			delete(f.penalised, host)
			f.enqueue(host)
			f.mu.Unlock()
			f.poke()
		})
	}
	why := f.tooManyFailures(worst)
	f.mu.Unlock()
	if len(counted) > 0 {
		f.w.conn.Send(wire.Msg{FetchFailed: &wire.FetchFailed{Attempt: f.attempt, Node: host, Maps: counted, Err: err.Error()}})
	}
	if why != "" {
		return fmt.Errorf("shuffle failed: %s; the last failure: %w", why, err)
	}
	return nil
}

// penaltyGrowth is how a host's back-off grows with each failure of a
// map (ShuffleSchedulerImpl.PENALTY_GROWTH_RATE).
const penaltyGrowth = 1.3

// tooManyFailures says why the attempt must fail, or "": as Hadoop's
// ShuffleSchedulerImpl, when one map has failed abortFailureLimit times
// (max(30, maps/10)), or when the reduce is unhealthy (failures are at
// least half of failures plus maps copied) with too many maps failing
// (min(maps, 5) distinct maps, or every one still missing) and too little
// progress (under half the maps copied, or no copy for half the longer of
// the time the shuffle progressed and the job's longest map). The caller
// holds f.mu.
func (f *fetcher) tooManyFailures(worst int) string {
	total := len(f.have)
	if limit := max(30, total/10); worst >= limit {
		return fmt.Sprintf("a map output failed %d fetches (Hadoop's limit max(30, maps/10) = %d)", worst, limit)
	}
	failing := 0
	for m, n := range f.failures {
		if n > 0 && !f.have[m] {
			failing++
		}
	}
	healthy := float64(f.totalFailures)/float64(f.totalFailures+f.count) < 0.5
	progressed := float64(f.count)/float64(total) >= 0.5
	stalled := time.Since(f.lastProgress).Seconds() >= 0.5*max(f.lastProgress.Sub(f.start), f.maxMapRun).Seconds()
	if (failing >= min(total, 5) || failing == total-f.count) && !healthy && (!progressed || stalled) {
		return fmt.Sprintf("%d fetch failures against %d maps copied, %d maps failing, no copy for %.1f s (Hadoop's MAX_FAILED_UNIQUE_FETCHES rule)",
			f.totalFailures, f.count, failing, time.Since(f.lastProgress).Seconds())
	}
	return ""
}

// waiting says what the fetcher waits for: maps not announced, hosts
// being fetched from or backing off, and the last failure.
func (f *fetcher) waiting() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var unannounced []int
	at := map[int][]int{}
	for m := range f.loc {
		switch {
		case f.have[m]:
		case f.loc[m] < 0:
			unannounced = append(unannounced, m)
		default:
			at[f.loc[m]] = append(at[f.loc[m]], m)
		}
	}
	s := fmt.Sprintf("copied %d of %d map outputs", f.count, len(f.have))
	if len(unannounced) > 0 {
		s += fmt.Sprintf("; waiting for the announcement of maps %v", unannounced)
	}
	hosts := slices.Sorted(maps.Keys(at))
	for _, h := range hosts {
		state := "queued"
		switch {
		case f.busy[h]:
			state = "being fetched"
		case !f.penalised[h].IsZero():
			state = fmt.Sprintf("backing off until %s", f.penalised[h].Format(time.RFC3339Nano))
		}
		s += fmt.Sprintf("; maps %v on node %d (%s)", at[h], h, state)
	}
	if f.totalFailures > 0 {
		s += fmt.Sprintf("; %d failed fetches, the last: %s", f.totalFailures, f.lastErr)
	}
	return s
}

// fetch copies this reduce's partitions of maps from host in one request.
// On failure it returns the maps the failure counts against: every one
// when no partition arrived (a refused or timed-out connection, an error
// answer), else the one being read when the stream broke; the partitions
// read before it are kept, and those after it are fetched again without a
// failure counted, as Hadoop's Fetcher.copyFromHost does.
func (f *fetcher) fetch(ctx context.Context, host int, maps []int) ([]int, error) {
	list := make([]string, len(maps))
	for i, m := range maps {
		list[i] = strconv.Itoa(m)
	}
	url := fmt.Sprintf("http://%s/shuffle/%d/%d?maps=%s", f.w.setup.Addrs[host], f.job, f.r, strings.Join(list, ","))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return maps, err
	}
	resp, err := f.w.shuffle.Do(req)
	if err != nil {
		return maps, fmt.Errorf("shuffle fetch from node %d: %w", host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return maps, fmt.Errorf("shuffle fetch from node %d: %s: %s", host, resp.Status, strings.TrimSpace(string(msg)))
	}
	parts, n, err := readFrames(resp.Body, maps)
	f.mu.Lock()
	for i, m := range maps[:len(parts)] {
		if !f.have[m] {
			f.have[m] = true
			f.count++
		}
		f.digests[m] = parts[i]
	}
	f.bytes += n
	if len(parts) > 0 {
		f.lastProgress = time.Now()
	}
	f.mu.Unlock()
	if n > 0 {
		f.w.transfer(wire.Transfer{Job: f.job, Cause: wire.Shuffle, Bytes: n, CrossRack: f.w.setup.Racks[host] != f.w.setup.Racks[f.w.setup.Node]})
	}
	if err != nil {
		failed := maps[min(len(parts), len(maps)-1):][:1]
		return failed, fmt.Errorf("shuffle fetch of maps %v from node %d: %w", maps, host, err)
	}
	return nil, nil
}

// readFrames reads a shuffle response carrying the partitions of maps, in
// that order, checks each frame's map, length and digest, and returns the
// digests and payload bytes of the frames read whole: all of them, or
// those before the one an error names.
func readFrames(body io.Reader, maps []int) ([]content.Digest, int64, error) {
	out := make([]content.Digest, 0, len(maps))
	var total int64
	for i, m := range maps {
		var hdr [frameHeader]byte
		if _, err := io.ReadFull(body, hdr[:]); err != nil {
			return out, total, fmt.Errorf("map %d: frame header: %w", m, short(err))
		}
		if got := int(binary.BigEndian.Uint64(hdr[0:])); got != m {
			return out, total, fmt.Errorf("frame %d is map %d's, want map %d's", i, got, m)
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
			return out, total, fmt.Errorf("map %d: read %d of %d bytes: %w", m, got, n, short(err))
		}
		if d := h.Sum(); d != want {
			return out, total, fmt.Errorf("map %d: the partition's digest is %s, its header says %s", m, d, want)
		}
		out = append(out, want)
		total += n
	}
	if extra, _ := io.Copy(io.Discard, body); extra > 0 {
		// The stream is not what was asked for: keep none of it.
		return out[:0], 0, fmt.Errorf("%d bytes after the last frame", extra)
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
