package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// errInterrupted ends a command that SIGINT or SIGTERM cut short, after
// it said what it kept: the command exits 130, as a shell reports a
// program ended by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// interruptContext is cancelled by the first SIGINT or SIGTERM (Ctrl-C, or
// a batch system's notice before it kills a job), so that a command with
// several runs can keep those that finished. stop restores the signals'
// default actions: a second signal then ends the process at once.
func interruptContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel()
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}
