package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"syscall"
)

// errClosed is returned by methods called after Close.
var errClosed = errors.New("fabric: closed")

// node returns node n's namespace, or an error if n is not a node or the
// fabric is closed. The caller holds f.mu.
func (f *Fabric) node(n int) (*space, error) {
	if f.closed {
		return nil, errClosed
	}
	if n < 0 || n >= len(f.nodes) {
		return nil, fmt.Errorf("fabric: no node %d (the fabric has %d)", n, len(f.nodes))
	}
	return f.nodes[n], nil
}

// Start starts cmd as a process in node n's network namespace, and only
// there: its other namespaces (mounts, pids, users) are the caller's. The
// fork happens on a thread locked to the node's namespace, which then
// returns to its own namespace and to the runtime's pool. The runtime ends
// pooled threads only with the process, so SysProcAttr.Pdeathsig, which the
// kernel sends when the forking thread exits, fires when this process dies
// and not before. (Were the thread unable to return to its namespace, the
// runtime would end it, Pdeathsig would fire early, and Start kills the
// process and says so.) Start refuses a cmd that asks for a new network
// namespace of its own. Close kills the process if it is still running.
func (f *Fabric) Start(n int, cmd *exec.Cmd) error {
	if a := cmd.SysProcAttr; a != nil && (a.Cloneflags|a.Unshareflags)&syscall.CLONE_NEWNET != 0 {
		return fmt.Errorf("fabric: node %d: the command asks for a network namespace of its own", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	sp, err := f.node(n)
	if err != nil {
		return err
	}
	err = inNetns(sp.h, cmd.Start)
	if errors.Is(err, errThreadLost) && cmd.Process != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
	if err != nil {
		return fmt.Errorf("fabric: start %s on node %d: %w", cmd.Path, n, err)
	}
	return nil
}

// InNode runs fn on a goroutine locked to an OS thread in node n's network
// namespace and returns fn's error. Sockets fn opens belong to that namespace
// for their whole life, whichever goroutine uses them afterwards; goroutines
// fn starts do not run in the namespace. The caller closes what fn opens,
// before Close: an open socket keeps a removed namespace alive.
func (f *Fabric) InNode(n int, fn func() error) error {
	f.mu.Lock()
	sp, err := f.node(n)
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return inNetns(sp.h, fn)
}

// Listen announces on node n's network namespace, as net.Listen does (for
// example Listen(n, "tcp", ":8080") listens on node n's address). Close closes
// the listener if the caller has not.
func (f *Fabric) Listen(n int, network, address string) (net.Listener, error) {
	return openInNode(f, n, func() (net.Listener, error) { return net.Listen(network, address) })
}

// ListenPacket announces on node n's network namespace, as
// net.ListenPacket does. Close closes the connection if the caller has not.
func (f *Fabric) ListenPacket(n int, network, address string) (net.PacketConn, error) {
	return openInNode(f, n, func() (net.PacketConn, error) { return net.ListenPacket(network, address) })
}

// DialContext connects from node n's network namespace, as
// net.Dialer.DialContext does; address should be an IP literal and port (a
// name would be resolved by the host's resolver). Close closes the
// connection if the caller has not.
func (f *Fabric) DialContext(ctx context.Context, n int, network, address string) (net.Conn, error) {
	return openInNode(f, n, func() (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	})
}

// openInNode opens a socket with open in node n's network namespace, where
// it stays for its whole life, and tracks it for Close.
func openInNode[C io.Closer](f *Fabric, n int, open func() (C, error)) (C, error) {
	var c C
	err := f.InNode(n, func() error {
		var err error
		c, err = open()
		return err
	})
	if err != nil {
		var none C
		return none, err
	}
	return c, f.track(c)
}

// track remembers c for Close, or closes it at once if Close has run.
func (f *Fabric) track(c interface{ Close() error }) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		c.Close()
		return errClosed
	}
	f.closers = append(f.closers, c)
	return nil
}
