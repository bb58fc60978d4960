package worker

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"time"
)

// idleConn is a connection that fails once neither direction has started
// an operation for timeout: every Read or Write pushes both deadlines on,
// and a deadline moved applies to an operation already blocked, so a
// transfer that moves in either direction lives, and one that stalls in
// both (a peer frozen, a link cut, a port blackholed) fails with a
// timeout, as Hadoop's read timeouts end a stalled copy. It counts the
// bytes it moves in moved.
type idleConn struct {
	net.Conn
	timeout time.Duration
	moved   *atomic.Int64
}

func (c *idleConn) Read(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Read(p)
	c.moved.Add(int64(n))
	return n, err
}

func (c *idleConn) Write(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Write(p)
	c.moved.Add(int64(n))
	return n, err
}

// peerClient is the HTTP client a worker talks to its peers with: connect
// bounds connection set-up, idle any wait for a byte in either direction.
//
// One connection a transfer, as Hadoop's fetcher opens one per host per
// fetch: every transfer starts in TCP slow start. A pipeline write asks
// "Expect: 100-continue" and waits for the next node's go-ahead before it
// sends the replica, as an HDFS writer sets the pipeline up before it sends
// a packet: a node that refuses at once (a bad request, no room) answers
// with its reason instead of closing a connection the writer is still
// sending on. The wait is bounded so that a peer that never answers 100
// still gets the body.
func peerClient(control func(network, address string, c syscall.RawConn) error, connect, idle time.Duration, moved *atomic.Int64) *http.Client {
	d := &net.Dialer{Timeout: connect, Control: control}
	return &http.Client{Transport: &http.Transport{
		DisableKeepAlives:     true,
		ExpectContinueTimeout: 5 * time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &idleConn{Conn: c, timeout: idle, moved: moved}, nil
		},
	}}
}

// countingListener counts the bytes its connections move in moved.
type countingListener struct {
	net.Listener
	moved *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, moved: l.moved}, nil
}

type countingConn struct {
	net.Conn
	moved *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.moved.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.moved.Add(int64(n))
	return n, err
}
