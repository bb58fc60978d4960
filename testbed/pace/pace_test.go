package pace

import (
	"bytes"
	"context"
	"io"
	"math"
	"testing"
	"time"
)

// TestReservationsQueueBehindEachOther checks the arithmetic that makes a
// shared limiter a shared device: each reservation ends n / rate after the
// previous one, so streams taking turns share the rate.
func TestReservationsQueueBehindEachOther(t *testing.T) {
	const rate = 1e6 // bytes a second
	l := New(rate)
	t0 := time.Now()
	var ends []time.Time
	for range 4 { // two streams, two chunks each, interleaved
		ends = append(ends, l.Reserve(10000))
	}
	for i, e := range ends {
		want := t0.Add(time.Duration(float64(i+1) * 10000 / rate * float64(time.Second)))
		if d := e.Sub(want); d < 0 || d > 5*time.Millisecond {
			t.Errorf("reservation %d ends %v after the queue's start; want %v (each 10 ms behind the last)", i, e.Sub(t0), want.Sub(t0))
		}
	}
	if got := l.Busy(); got != 40*time.Millisecond {
		t.Errorf("busy %v after four 10 ms reservations, want 40ms", got)
	}
}

func TestNoLimitNeverWaits(t *testing.T) {
	for _, r := range []float64{0, -1, math.Inf(1), math.NaN()} {
		l := New(r)
		if e := l.Reserve(1 << 30); !e.IsZero() {
			t.Errorf("New(%v).Reserve = %v; a limiter without a rate must not hold bytes", r, e)
		}
	}
}

// TestSeveralLimitersMoveAtTheSlowest checks that a stream held by a
// disk and by its own compute waits for the later of the two, not for
// their sum: one flow over two links moves at the slower link's rate.
func TestSeveralLimitersMoveAtTheSlowest(t *testing.T) {
	fast, slow := New(1e9), New(1e6)
	t0 := time.Now()
	if err := waitAll(context.Background(), 20000, []*Limiter{fast, nil, slow}); err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	if el < 20*time.Millisecond {
		t.Errorf("waited %v for 20 KB at 1 MB/s; want at least 20ms", el)
	}
	if fast.Busy() != 20*time.Microsecond || slow.Busy() != 20*time.Millisecond {
		t.Errorf("busy %v and %v; each limiter must book the bytes at its own rate", fast.Busy(), slow.Busy())
	}
}

func TestReaderAndWriterPassEveryByte(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789"), 30000) // several chunks
	var dst bytes.Buffer
	w := NewWriter(context.Background(), &dst, New(0))
	if _, err := io.Copy(w, NewReader(context.Background(), bytes.NewReader(src), New(0))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst.Bytes(), src) {
		t.Errorf("copied %d bytes, want the %d given, unchanged", dst.Len(), len(src))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewReader(ctx, bytes.NewReader(src), New(1)).Read(make([]byte, 100)); err == nil {
		t.Error("a paced read after its context ended returned no error")
	}
}
