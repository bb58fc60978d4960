package metrics

import (
	"testing"
	"time"
)

func TestLatencyQuantiles(t *testing.T) {
	var l Latency
	for i := 1; i <= 1000; i++ {
		l.Add(time.Duration(i) * time.Microsecond)
	}
	if l.Count() != 1000 {
		t.Fatalf("count %d, want 1000", l.Count())
	}
	if m := l.Mean(); m != 500500*time.Nanosecond {
		t.Errorf("mean %v, want 500.5µs: the exact mean of 1..1000 µs", m)
	}
	cases := []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}}
	for _, c := range cases {
		got := l.Quantile(c.q)
		// An upper bound within one bucket: at most 1/32 above the true value.
		if hi := time.Duration(float64(c.want) * (1 + 1.0/32)); got < c.want || got > hi {
			t.Errorf("Quantile(%v) = %v, want in [%v, %v]: the bucket holding the true quantile, 1/32 of a power of two wide", c.q, got, c.want, hi)
		}
	}
	var empty Latency
	if empty.Quantile(0.99) != 0 || empty.Mean() != 0 {
		t.Error("an empty histogram must report zeros")
	}
}

func TestLatencyBucketsCoverTheirValues(t *testing.T) {
	for _, ns := range []uint64{0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 100, 1023, 1024, 18431, 18432, 20479, 1<<40 - 1, 1 << 40, 1<<62 + 12345} {
		b := bucket(ns)
		if top := uint64(bucketTop(b)); top < ns || (b > 0 && uint64(bucketTop(b-1)) >= ns) {
			t.Errorf("%d ns in bucket %d (top %d, previous top %d): want the smallest bucket whose top is >= the value", ns, b, top, bucketTop(b-1))
		}
	}
}

// TestLatencyBucketsAreContiguous walks every bucket: each holds the
// values from just above the previous one's top up to its own, so no
// duration falls between buckets and the tops only grow.
func TestLatencyBucketsAreContiguous(t *testing.T) {
	var l Latency
	for b := 1; b < len(l.buckets); b++ {
		lo := uint64(bucketTop(b-1)) + 1
		top := uint64(bucketTop(b))
		if top < lo {
			t.Fatalf("bucket %d tops at %d, below the previous top %d: want growing tops", b, top, lo-1)
		}
		if bucket(lo) != b || bucket(top) != b {
			t.Fatalf("bucket %d holds [%d, %d], but those go to buckets %d and %d: want both in %d", b, lo, top, bucket(lo), bucket(top), b)
		}
		if b >= 1<<subBits && float64(top-lo+1) > float64(lo)/(1<<subBits)+1 {
			t.Fatalf("bucket %d is %d ns wide from %d: want at most 1/%d of its lower end", b, top-lo+1, lo, 1<<subBits)
		}
		if top == 1<<64-1 {
			break
		}
	}
}
