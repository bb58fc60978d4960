package worker

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// peerError is a transfer that broke because the node at the other end is
// gone: its connection was refused, reset or cut short. A node's death is
// an event the run must survive (node loss), where a wrong length or a
// corrupt byte is a bug to report: a reader moves to another replica, a
// fetcher waits for the output to be made again, a pipeline drops the
// node, but only on a peerError.
type peerError struct {
	node int
	err  error
}

func (e *peerError) Error() string { return fmt.Sprintf("node %d is gone: %v", e.node, e.err) }
func (e *peerError) Unwrap() error { return e.err }

// asPeerError wraps err as node's death when it is the kind of failure a
// dead peer causes, and returns it unchanged otherwise.
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
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || (errors.As(err, &op) && op.Op == "dial") {
		return &peerError{node: node, err: err}
	}
	return err
}

// noReplicaError is a map that found every replica of its block on a node
// that is gone.
type noReplicaError struct{ error }

func (e *noReplicaError) Unwrap() error { return e.error }

// deadNode reports the node a peerError names.
func deadNode(err error) (int, bool) {
	var pe *peerError
	if errors.As(err, &pe) {
		return pe.node, true
	}
	return 0, false
}
