package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
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

// inOrder runs run(0), ..., run(n-1), parallel at a time, handing them out
// in order (so that with one at a time they run in the order of the
// table), and hands out no more once ctx is cancelled. The channel it
// returns is closed when every run handed out has returned.
func inOrder(ctx context.Context, n, parallel int, run func(i int)) <-chan struct{} {
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range n {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	all := make(chan struct{})
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i)
			}
		}()
	}
	go func() { wg.Wait(); close(all) }()
	return all
}
