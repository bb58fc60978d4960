package worker

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// peerError is an HDFS transfer that broke at the transport with the node
// at the other end: its connection was refused, reset, cut short or timed
// out. The node may be dead or only unreachable for a while; either way
// the HDFS client works around it, as DFSClient does with a datanode it
// cannot talk to: a reader moves to another replica, a pipeline drops the
// node. It is never taken for the node's death: only the master declares a
// node lost, when its heartbeats stop. A wrong length or a corrupt byte is
// a bug to report, not a peerError. (The shuffle retries its hosts
// instead: fetcher.copyFailed.)
type peerError struct {
	node int
	err  error
}

func (e *peerError) Error() string { return fmt.Sprintf("node %d unreachable: %v", e.node, e.err) }
func (e *peerError) Unwrap() error { return e.err }

// asPeerError wraps err as a transport failure with node when it is one
// (refused, reset, cut short, timed out), and returns it unchanged
// otherwise.
func asPeerError(node int, err error) error {
	if err == nil {
		return nil
	}
	var pe *peerError
	if errors.As(err, &pe) {
		return err
	}
	var op *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || (errors.As(err, &op) && op.Op == "dial") || errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err) {
		return &peerError{node: node, err: err}
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// noReplicaError is a map that could reach no replica of its block.
type noReplicaError struct{ error }

func (e *noReplicaError) Unwrap() error { return e.error }

// deadNode reports the node a peerError names: one this transfer could
// not reach.
func deadNode(err error) (int, bool) {
	var pe *peerError
	if errors.As(err, &pe) {
		return pe.node, true
	}
	return 0, false
}
