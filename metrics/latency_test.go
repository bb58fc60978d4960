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
		// An upper bound within one bucket: at most 1/8 above the true value.
		if got < c.want || float64(got) > float64(c.want)*1.126 {
			t.Errorf("Quantile(%v) = %v, want in [%v, %v]: the bucket holding the true quantile", c.q, got, c.want, time.Duration(float64(c.want)*1.125))
		}
	}
	var empty Latency
	if empty.Quantile(0.99) != 0 || empty.Mean() != 0 {
		t.Error("an empty histogram must report zeros")
	}
}

func TestLatencyBucketsCoverTheirValues(t *testing.T) {
	for _, ns := range []uint64{0, 1, 7, 8, 9, 15, 16, 100, 1023, 1024, 1 << 40} {
		b := bucket(ns)
		if top := uint64(bucketTop(b)); top < ns || (b > 0 && uint64(bucketTop(b-1)) >= ns) {
			t.Errorf("%d ns in bucket %d (top %d, previous top %d): want the smallest bucket whose top is >= the value", ns, b, top, bucketTop(b-1))
		}
	}
}
