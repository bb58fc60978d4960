// Package worker is the testbed's node: one process a node, inside the
// node's network namespace, as a Hadoop TaskTracker and DataNode together.
// It stores the input blocks HDFS placed on the node, runs the map and
// reduce attempts the master launches on it (reading blocks locally or
// over TCP, writing map outputs to its disk, serving them over HTTP,
// fetching partitions from other nodes, writing reduce outputs through a
// replication pipeline), paces compute and disk to the scenario's scaled
// rates, and heartbeats to the master over its standard input and output
// (package wire).
package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mrsched/mrsched/testbed/pace"
	"github.com/mrsched/mrsched/testbed/wire"
)

// Worker is one node's worker. Build it with Run.
type Worker struct {
	setup    wire.Setup
	timeouts wire.Timeouts
	conn     *wire.Conn
	store    *Store
	disk     *pace.Limiter
	// client reads blocks and writes pipelines (HDFS's timeouts), shuffle
	// fetches map outputs (the shuffle's).
	client, shuffle *http.Client
	// moved counts every byte the data plane sent or received.
	moved atomic.Int64

	mu       sync.Mutex
	attempts map[wire.Attempt]context.CancelFunc
	// phases say what each running attempt is doing, for the master's
	// stall diagnosis and its progress watch.
	phases   map[wire.Attempt]*phase
	fetchers map[int][]*fetcher // running reduces' fetchers, by job
	ended    []wire.Ended       // attempts ended since the last heartbeat
	kick     chan struct{}      // an attempt ended: heartbeat now
}

// Run is a worker's life: it reads Setup from in, serves the data plane,
// heartbeats on out, and runs what the master launches until the master
// sends Shutdown or closes in, or ctx ends.
func Run(ctx context.Context, in io.Reader, out io.Writer) error {
	conn := wire.NewConn(in, out, "master")
	m, err := conn.Recv()
	if err != nil {
		return err
	}
	if m.Setup == nil {
		return errors.New("worker: the master's first message is not a setup")
	}
	s := *m.Setup
	if s.Node < 0 || s.Node >= len(s.Addrs) || len(s.Racks) != len(s.Addrs) || !(s.HeartbeatS > 0) {
		return fmt.Errorf("worker: bad setup for node %d (%d addresses, %d racks, heartbeat %v s)", s.Node, len(s.Addrs), len(s.Racks), s.HeartbeatS)
	}
	store, err := NewStore(s.Dir)
	if err != nil {
		return err
	}
	w := newWorker(s, conn, store, congestionControl(s.CongestionControl))
	ln, err := (&net.ListenConfig{Control: congestionControl(s.CongestionControl)}).Listen(ctx, "tcp", s.Addrs[s.Node])
	if err != nil {
		return fmt.Errorf("worker %d: %w", s.Node, err)
	}
	srv := &http.Server{Handler: w.routes()}
	go srv.Serve(countingListener{ln, &w.moved})
	defer srv.Close()
	stopDumps := w.dumpOnSignal()
	defer stopDumps()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := conn.Send(wire.Msg{Ready: &wire.Ready{Node: s.Node}}); err != nil {
		return err
	}
	started := false
	msgs := make(chan wire.Msg)
	errc := make(chan error, 1)
	go func() {
		for {
			m, err := conn.Recv()
			if err != nil {
				errc <- err
				return
			}
			msgs <- m
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if errors.Is(err, wire.ErrClosed) {
				return nil // the master is gone
			}
			return err
		case m := <-msgs:
			switch {
			case m.Start != nil:
				if started {
					return fmt.Errorf("worker %d: started twice", s.Node)
				}
				started = true
				go w.heartbeats(ctx, time.Unix(0, m.Start.EpochUnixNano))
			case m.Launch != nil:
				w.launch(ctx, m.Launch)
			case m.Kill != nil:
				w.kill(*m.Kill)
			case m.MapOutputs != nil:
				w.announce(m.MapOutputs)
			case m.Dump != nil:
				w.dump(m.Dump.Name)
			case m.StatusRequest != nil:
				w.conn.Send(wire.Msg{Status: &wire.Status{Node: s.Node, Attempts: w.status()}})
			case m.Shutdown != nil:
				return nil
			default:
				return fmt.Errorf("worker %d: unexpected message from the master", s.Node)
			}
		}
	}
}

// congestionControl returns a socket hook that sets the TCP congestion
// control algorithm cc on every socket (accepted sockets inherit the
// listener's), or nil for the namespace's default. A worker runs with the
// master's privileges, so it may choose any algorithm the kernel has
// loaded, even one a namespace may not take as its default.
func congestionControl(cc string) func(network, address string, c syscall.RawConn) error {
	if cc == "" {
		return nil
	}
	return func(network, address string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc)
		}); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("TCP congestion control %q: %w", cc, serr)
		}
		return nil
	}
}

// heartbeats beats every period on the node's phase from epoch, and at
// once when an attempt ends.
func (w *Worker) heartbeats(ctx context.Context, epoch time.Time) {
	period := time.Duration(w.setup.HeartbeatS * float64(time.Second))
	phase := time.Duration(w.setup.PhaseS * float64(time.Second))
	next := func() time.Time {
		k := time.Since(epoch.Add(phase)) / period
		t := epoch.Add(phase + (k+1)*period)
		for !t.After(time.Now()) {
			t = t.Add(period)
		}
		return t
	}
	timer := time.NewTimer(time.Until(next()))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			timer.Reset(time.Until(next()))
		case <-w.kick:
		}
		w.mu.Lock()
		ended := w.ended
		w.ended = nil
		paced := 0
		var progress []wire.MapProgress
		for a, p := range w.phases {
			if p.paced() {
				paced++
			}
			if p.prog != nil {
				progress = append(progress, wire.MapProgress{Attempt: a, Done: p.prog.done()})
			}
		}
		w.mu.Unlock()
		slices.SortFunc(progress, func(x, y wire.MapProgress) int {
			return cmp.Or(cmp.Compare(x.Attempt.Job, y.Attempt.Job), cmp.Compare(x.Attempt.Task, y.Attempt.Task), cmp.Compare(x.Attempt.Attempt, y.Attempt.Attempt))
		})
		if err := w.conn.Send(wire.Msg{Heartbeat: &wire.Heartbeat{Node: w.setup.Node, Ended: ended, Moved: w.moved.Load(), Paced: paced, Progress: progress}}); err != nil {
			return
		}
	}
}

// transfer reports bytes that finished crossing the network.
func (w *Worker) transfer(t wire.Transfer) {
	w.conn.Send(wire.Msg{Transfers: []wire.Transfer{t}})
}

// mark reports that attempt a crossed phase boundary m. Like Copied, it
// goes at once, ahead of the attempt's end, which the next heartbeat
// carries: the connection keeps them in order.
func (w *Worker) mark(a wire.Attempt, m wire.PhaseMark) {
	w.conn.Send(wire.Msg{Phase: &wire.Phase{Attempt: a, Mark: m}})
}

// recovered reports that attempt a went on without node n, after err.
func (w *Worker) recovered(a wire.Attempt, what wire.Recovery, n int, err error) {
	w.conn.Send(wire.Msg{Recovered: &wire.Recovered{Attempt: a, What: what, Node: n, Err: err.Error()}})
}

func (w *Worker) launch(ctx context.Context, l *wire.Launch) {
	ctx, cancel := context.WithCancel(ctx)
	a := l.Attempt
	var f *fetcher
	w.mu.Lock()
	w.attempts[a] = cancel
	ph := &phase{what: "starting up (engine.task_startup_s)", since: time.Now(), pacedNow: true}
	if a.Kind == wire.Map && l.Map != nil {
		ph.prog = &mapProgress{input: l.Map.InputBytes}
		for _, n := range l.Map.Partitions {
			ph.prog.output += n
		}
	}
	w.phases[a] = ph
	if a.Kind == wire.Reduce && l.Reduce != nil {
		f = newFetcher(w, a, l.Reduce.Maps, l.Reduce.ParallelCopies)
		w.fetchers[a.Job] = append(w.fetchers[a.Job], f)
	}
	w.mu.Unlock()
	if f != nil {
		f.add(l.Reduce.Ready)
	}
	go func() {
		var e wire.Ended
		e.Attempt = a
		err := pace.Sleep(ctx, time.Duration(l.StartupS*float64(time.Second)))
		if err == nil {
			w.mark(a, wire.PhaseReady)
			switch {
			case a.Kind == wire.Map && l.Map != nil:
				err = w.runMap(ctx, l, ph.prog)
			case a.Kind == wire.Reduce && l.Reduce != nil:
				d, rerr := w.runReduce(ctx, l, f)
				err, e.Digest = rerr, d.String()
			default:
				err = fmt.Errorf("launch of %s carries no %s task", a, a.Kind)
			}
		}
		w.mu.Lock()
		_, live := w.attempts[a]
		delete(w.attempts, a)
		delete(w.phases, a)
		if f != nil {
			fs := w.fetchers[a.Job]
			for i, x := range fs {
				if x == f {
					w.fetchers[a.Job] = append(fs[:i], fs[i+1:]...)
					break
				}
			}
			if len(w.fetchers[a.Job]) == 0 {
				delete(w.fetchers, a.Job)
			}
		}
		if live { // a killed attempt is not reported: the master already let it go
			if err != nil {
				var nr *noReplicaError
				e.Err, e.Digest, e.NoReplica = err.Error(), "", errors.As(err, &nr)
			}
			w.ended = append(w.ended, e)
		}
		w.mu.Unlock()
		cancel()
		if live {
			select {
			case w.kick <- struct{}{}:
			default:
			}
		}
	}()
}

func (w *Worker) kill(a wire.Attempt) {
	w.mu.Lock()
	cancel, ok := w.attempts[a]
	delete(w.attempts, a)
	w.mu.Unlock()
	if ok {
		cancel()
	}
}

func (w *Worker) announce(m *wire.MapOutputs) {
	w.mu.Lock()
	fs := append([]*fetcher(nil), w.fetchers[m.Job]...)
	w.mu.Unlock()
	for _, f := range fs {
		f.add(m.Outputs)
	}
}

// newWorker makes a worker from its setup, its clients bounded by the
// setup's timeouts.
func newWorker(s wire.Setup, conn *wire.Conn, store *Store, control func(network, address string, c syscall.RawConn) error) *Worker {
	w := &Worker{setup: s, timeouts: s.Timeouts.WithDefaults(), conn: conn, store: store, disk: pace.New(s.DiskBytesPerSec),
		attempts: map[wire.Attempt]context.CancelFunc{}, phases: map[wire.Attempt]*phase{}, fetchers: map[int][]*fetcher{},
		kick: make(chan struct{}, 1)}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	w.client = peerClient(control, sec(w.timeouts.HDFSSocketS), sec(w.timeouts.HDFSSocketS), &w.moved)
	w.shuffle = peerClient(control, sec(w.timeouts.ShuffleConnectS), sec(w.timeouts.ShuffleReadS), &w.moved)
	return w
}

// phase is what an attempt is doing, and since when.
type phase struct {
	what     string
	since    time.Time
	pacedNow bool // start-up or compute: progress by the clock
	fetch    *fetcher
	prog     *mapProgress // a map's bytes read and written
}

// mapProgress counts a map attempt's bytes read and written, for the
// progress its node's heartbeats report.
type mapProgress struct {
	input, output int64
	read, written atomic.Int64
}

// done is Hadoop's map progress: the input read counts 2/3 (the map
// phase), the output written 1/3 (the sort).
func (p *mapProgress) done() float64 {
	frac := func(n, of int64) float64 {
		if of <= 0 {
			return 1
		}
		return min(1, float64(n)/float64(of))
	}
	r := frac(p.read.Load(), p.input)
	w := frac(p.written.Load(), p.output)
	if p.output <= 0 && r < 1 {
		w = 0 // nothing to write, but the write comes after the read
	}
	return 2.0/3*r + w/3
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n.Add(int64(k))
	return k, err
}

func (p *phase) paced() bool { return p.pacedNow }

// setPhase records what attempt a is doing now.
func (w *Worker) setPhase(a wire.Attempt, what string, paced bool) {
	w.mu.Lock()
	if p := w.phases[a]; p != nil {
		p.what, p.since, p.pacedNow = what, time.Now(), paced
	}
	w.mu.Unlock()
}

// status describes every running attempt: what it does or waits on, since
// when; a fetching reduce names each map it still waits for and why.
func (w *Worker) status() []string {
	w.mu.Lock()
	type row struct {
		a wire.Attempt
		p phase
	}
	var rows []row
	for a, p := range w.phases {
		rows = append(rows, row{a, *p})
	}
	w.mu.Unlock()
	slices.SortFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.a.Job, y.a.Job), cmp.Compare(x.a.Kind, y.a.Kind), cmp.Compare(x.a.Task, y.a.Task))
	})
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		line := fmt.Sprintf("%s: %s since %s (%.1f s)", r.a, r.p.what, r.p.since.Format(time.RFC3339Nano), time.Since(r.p.since).Seconds())
		if r.p.fetch != nil {
			line += "; " + r.p.fetch.waiting()
		}
		out = append(out, line)
	}
	return out
}
