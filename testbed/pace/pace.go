// Package pace holds bytes to a rate in wall-clock time. The testbed paces
// what its 2-core host cannot or should not do for real: a task's compute
// (sleeping instead of burning CPU) and a node's disk (all of a node's reads
// and writes share one device rate).
package pace

import (
	"context"
	"io"
	"math"
	"sync"
	"time"
)

// Limiter passes bytes at a fixed rate. Callers reserve bytes in turn: each
// reservation starts when the previous one ends (or now, when the device is
// idle), so streams that ask for small chunks one after another share the
// rate equally, and a stream that asks less often (a map paced by its own
// compute) takes less: processor sharing, which is the max-min sharing the
// simulator gives a disk. A Limiter is safe for concurrent use.
type Limiter struct {
	mu   sync.Mutex
	rate float64 // bytes per second; +Inf for no limit
	next time.Time
	busy time.Duration // total reserved time, for utilisation reports
}

// New returns a limiter of rate bytes per second; a rate that is not
// positive and finite means no limit.
func New(rate float64) *Limiter {
	if !(rate > 0) || math.IsInf(rate, 0) {
		rate = math.Inf(1)
	}
	return &Limiter{rate: rate}
}

// Rate is the limiter's rate in bytes per second (+Inf for none).
func (l *Limiter) Rate() float64 { return l.rate }

// Wait blocks until n bytes may pass, or until ctx ends (returning its
// error). A cancelled reservation is not given back: the time it held is
// lost, as a killed task's disk time is.
func (l *Limiter) Wait(ctx context.Context, n int) error {
	return sleepUntil(ctx, l.Reserve(n))
}

// Reserve books n bytes and returns when they will have passed: the end of
// the previous reservation (or now) plus n / rate. The zero time means at
// once.
func (l *Limiter) Reserve(n int) time.Time {
	if n <= 0 || math.IsInf(l.rate, 1) {
		return time.Time{}
	}
	d := time.Duration(float64(n) / l.rate * float64(time.Second))
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	start := l.next
	if start.Before(now) {
		start = now
	}
	l.next = start.Add(d)
	l.busy += d
	return l.next
}

// waitAll reserves n bytes on every limiter at once and sleeps until the
// last of them has passed them: a stream held by several devices (a disk
// and the task's compute) moves at the slowest one's rate, as one flow
// over several links does, rather than at the sum of their delays.
func waitAll(ctx context.Context, n int, ls []*Limiter) error {
	var end time.Time
	for _, l := range ls {
		if l == nil {
			continue
		}
		if t := l.Reserve(n); t.After(end) {
			end = t
		}
	}
	return sleepUntil(ctx, end)
}

// Busy is the time reserved so far: busy / elapsed is the device's
// utilisation.
func (l *Limiter) Busy() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.busy
}

// Sleep waits d, or until ctx ends (returning its error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	return sleepUntil(ctx, time.Now().Add(d))
}

func sleepUntil(ctx context.Context, t time.Time) error {
	if t.IsZero() {
		return ctx.Err()
	}
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Chunk is the size in which paced readers and writers move bytes: small
// enough that concurrent streams interleave finely, large enough that a
// stream at a few MB/s wakes a few tens of times a second.
const Chunk = 64 << 10

// Reader passes r's bytes through each limiter in turn, in chunks of at
// most Chunk bytes: a read of a disk (the node's disk limiter) by a task
// computing as it reads (the task's own limiter).
type Reader struct {
	ctx context.Context
	r   io.Reader
	ls  []*Limiter
}

// NewReader paces r by every limiter in ls (nil limiters are skipped).
func NewReader(ctx context.Context, r io.Reader, ls ...*Limiter) *Reader {
	return &Reader{ctx: ctx, r: r, ls: ls}
}

// Read reads at most Chunk bytes and waits until they may pass.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) > Chunk {
		p = p[:Chunk]
	}
	n, err := r.r.Read(p)
	if n > 0 {
		if werr := waitAll(r.ctx, n, r.ls); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// Writer passes bytes to w once every limiter lets them, in chunks of at
// most Chunk bytes.
type Writer struct {
	ctx context.Context
	w   io.Writer
	ls  []*Limiter
}

// NewWriter paces writes to w by every limiter in ls (nil ones skipped).
func NewWriter(ctx context.Context, w io.Writer, ls ...*Limiter) *Writer {
	return &Writer{ctx: ctx, w: w, ls: ls}
}

// Write waits for each chunk's turn, then writes it.
func (w *Writer) Write(p []byte) (int, error) {
	done := 0
	for len(p) > 0 {
		c := p
		if len(c) > Chunk {
			c = c[:Chunk]
		}
		if err := waitAll(w.ctx, len(c), w.ls); err != nil {
			return done, err
		}
		n, err := w.w.Write(c)
		done += n
		if err != nil {
			return done, err
		}
		p = p[len(c):]
	}
	return done, nil
}
