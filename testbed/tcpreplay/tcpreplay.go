// Package tcpreplay replays a list of timed transfers as real TCP
// connections between the nodes of an emulated network (package
// testbed/fabric), and reports when each finished.
//
// Every socket is opened inside its node's network namespace (through
// fabric.Fabric.Listen and DialContext) by this one process, so the bytes
// cross the node's veth, its rack switch, the core and every shaped queue on
// the way, while no extra process competes for the host's cores. Each
// destination node has one listener; each flow is one connection, opened at
// its start time, that carries a 4-byte header (the flow's index) and then
// the flow's bytes. A flow finishes when its receiver has read its last byte.
package tcpreplay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric"
	"golang.org/x/sys/unix"
)

// Flow is one transfer to replay.
type Flow struct {
	ID       string
	Src, Dst int   // fabric node numbers; they must differ
	Bytes    int64 // payload
	// Start is when the sender connects, after the replay begins.
	Start time.Duration
}

// Result is what one flow did, in wall time since the replay began.
type Result struct {
	ID string
	// Start is when the sender began to connect; Finish when the receiver
	// had read the last byte (Finish = Start for a flow of no bytes, which
	// opens no connection).
	Start, Finish time.Duration
	// Retransmits is the segments the sender's kernel sent again
	// (TCP_INFO's tcpi_total_retrans), read once the receiver had
	// everything; 0 for a flow of no bytes.
	Retransmits uint32
	// SRTTMicros and MinRTTMicros are the sender's smoothed and minimum
	// round-trip times in microseconds (TCP_INFO's tcpi_rtt and
	// tcpi_min_rtt), from the same read as Retransmits: the smoothed one
	// as the connection ended, the minimum over its whole life (on these
	// links, the path with empty queues). Both are 0 when they were not
	// read: a flow of no bytes, or a kernel that did not say.
	SRTTMicros, MinRTTMicros uint32
}

// Options tune a replay.
type Options struct {
	// Port is the TCP port every destination listens on; 0 means 5001.
	Port int
	// CongestionControl, if set, is set on every sending socket
	// (TCP_CONGESTION), whatever the nodes' default; it must be one of the
	// kernel's tcp_available_congestion_control.
	CongestionControl string
}

// Run replays flows on f and returns their results in input order. It
// returns early with an error if any transfer fails or ctx is done; every
// socket it opened is closed when it returns.
func Run(ctx context.Context, f *fabric.Fabric, flows []Flow, opt Options) ([]Result, error) {
	if opt.Port == 0 {
		opt.Port = 5001
	}
	nodes := f.Spec().Nodes()
	for i, fl := range flows {
		switch {
		case fl.Src < 0 || fl.Src >= nodes || fl.Dst < 0 || fl.Dst >= nodes || fl.Src == fl.Dst:
			return nil, fmt.Errorf("tcpreplay: flow %d (%s): %d -> %d: want two different nodes of 0..%d", i, fl.ID, fl.Src, fl.Dst, nodes-1)
		case fl.Bytes < 0 || fl.Start < 0:
			return nil, fmt.Errorf("tcpreplay: flow %d (%s): negative bytes or start", i, fl.ID)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fail := func(err error) { cancel(err) }

	// One listener per destination, before anything is sent.
	listeners := map[int]net.Listener{}
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, fl := range flows {
		if _, ok := listeners[fl.Dst]; ok || fl.Bytes == 0 {
			continue
		}
		l, err := f.Listen(fl.Dst, "tcp", netip.AddrPortFrom(f.NodeAddr(fl.Dst), uint16(opt.Port)).String())
		if err != nil {
			return nil, fmt.Errorf("tcpreplay: listen on node %d: %w", fl.Dst, err)
		}
		listeners[fl.Dst] = l
	}

	r := &record{results: make([]Result, len(flows)), done: make([]bool, len(flows)), left: len(flows), all: make(chan struct{})}
	if len(flows) == 0 {
		close(r.all)
	}
	var conns sync.WaitGroup
	epoch := time.Now()

	// Receivers: read each connection's header and bytes.
	for dst, l := range listeners {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return // closed at the end
				}
				conns.Add(1)
				go func() {
					defer conns.Done()
					defer c.Close()
					if err := receive(ctx, c, dst, flows, epoch, r); err != nil {
						fail(err)
					}
				}()
			}
		}()
	}
	// Senders: one goroutine per flow, from its start time.
	var senders sync.WaitGroup
	for i, fl := range flows {
		senders.Add(1)
		go func() {
			defer senders.Done()
			if err := send(ctx, f, i, fl, opt, epoch, r); err != nil {
				fail(fmt.Errorf("tcpreplay: flow %s (%d -> %d): %w", fl.ID, fl.Src, fl.Dst, err))
			}
		}()
	}
	senders.Wait()
	// Every sender has written all its bytes, or failed: wait for the
	// receivers to read them.
	select {
	case <-r.all:
	case <-ctx.Done():
	}
	if err := context.Cause(ctx); err != nil {
		for _, l := range listeners {
			l.Close()
		}
		conns.Wait()
		return nil, err
	}
	conns.Wait()
	return r.results, nil
}

// record collects results from senders and receivers.
type record struct {
	mu      sync.Mutex
	results []Result
	done    []bool        // by flow: finished
	left    int           // flows not finished
	all     chan struct{} // closed when left reaches 0
}

func (r *record) start(i int, id string, at time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i].ID, r.results[i].Start = id, at
}

func (r *record) sender(i int, s senderInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i].Retransmits = s.retransmits
	r.results[i].SRTTMicros, r.results[i].MinRTTMicros = s.srtt, s.minRTT
}

func (r *record) finish(i int, at time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done[i] {
		return fmt.Errorf("tcpreplay: flow %s arrived twice", r.results[i].ID)
	}
	r.done[i] = true
	r.results[i].Finish = at
	if r.left--; r.left == 0 {
		close(r.all)
	}
	return nil
}

// send connects at the flow's start and writes its header and bytes.
func send(ctx context.Context, f *fabric.Fabric, i int, fl Flow, opt Options, epoch time.Time, r *record) error {
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(time.Until(epoch.Add(fl.Start))):
	}
	start := time.Since(epoch)
	r.start(i, fl.ID, start)
	if fl.Bytes == 0 {
		return r.finish(i, start)
	}
	c, err := dial(ctx, f, fl, opt)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(i))
	if _, err := c.Write(hdr[:]); err != nil {
		return err
	}
	buf := make([]byte, 256<<10)
	for left := fl.Bytes; left > 0; {
		n, err := c.Write(buf[:min(int64(len(buf)), left)])
		left -= int64(n)
		if err != nil {
			return err
		}
	}
	// Wait for the receiver to close, so the socket is not torn down with
	// bytes still in flight.
	_, err = c.Read(buf[:1])
	if errors.Is(err, io.EOF) {
		r.sender(i, readSender(c))
		return nil
	}
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		return errors.New("the receiver sent data")
	}
	return err
}

// senderInfo is what a sending socket's TCP_INFO says of its connection.
type senderInfo struct {
	retransmits  uint32 // tcpi_total_retrans: segments sent again
	srtt, minRTT uint32 // tcpi_rtt and tcpi_min_rtt, microseconds
}

// readSender reads the connection's TCP_INFO once; every field is 0 where
// the kernel does not say.
func readSender(c net.Conn) senderInfo {
	var s senderInfo
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return s
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return s
	}
	rc.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			s = senderInfo{retransmits: info.Total_retrans, srtt: info.Rtt, minRTT: info.Min_rtt}
		}
	})
	return s
}

// dial connects from fl.Src to fl.Dst with the congestion control asked for.
func dial(ctx context.Context, f *fabric.Fabric, fl Flow, opt Options) (net.Conn, error) {
	var c net.Conn
	err := f.InNode(fl.Src, func() error {
		d := net.Dialer{}
		if cc := opt.CongestionControl; cc != "" {
			d.Control = func(_, _ string, rc syscall.RawConn) error {
				var serr error
				if err := rc.Control(func(fd uintptr) {
					serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc)
				}); err != nil {
					return err
				}
				if serr != nil {
					return fmt.Errorf("congestion control %q: %w", cc, serr)
				}
				return nil
			}
		}
		var err error
		addr := netip.AddrPortFrom(f.NodeAddr(fl.Dst), uint16(opt.Port)).String()
		c, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	return c, err
}

// receive reads one connection: its header, then the flow's bytes.
func receive(ctx context.Context, c net.Conn, dst int, flows []Flow, epoch time.Time, r *record) error {
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("tcpreplay: node %d: read a flow header: %w", dst, err)
	}
	i := int(binary.BigEndian.Uint32(hdr[:]))
	if i >= len(flows) || flows[i].Dst != dst {
		return fmt.Errorf("tcpreplay: node %d: a connection for flow %d, which is not this node's", dst, i)
	}
	buf := make([]byte, 256<<10)
	var got int64
	for got < flows[i].Bytes {
		n, err := c.Read(buf[:min(int64(len(buf)), flows[i].Bytes-got)])
		got += int64(n)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("tcpreplay: flow %s: received %d of %d bytes: %w", flows[i].ID, got, flows[i].Bytes, err)
		}
	}
	return r.finish(i, time.Since(epoch))
}
