package metrics

import (
	"math/bits"
	"time"
)

// Latency is a histogram of durations with about 3% resolution (8
// sub-buckets per power of two), cheap enough to record every scheduling
// decision. It measures the tool, not the simulated cluster: it is
// reported beside a run's results and never in summary.json, whose bytes
// must not depend on the machine.
type Latency struct {
	n       int64
	sum     time.Duration
	buckets [64 * 8]int64
}

// Add records one duration.
func (l *Latency) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	l.n++
	l.sum += d
	l.buckets[bucket(uint64(d))]++
}

func bucket(ns uint64) int {
	if ns < 8 {
		return int(ns)
	}
	e := bits.Len64(ns) - 1 // ns in [2^e, 2^(e+1))
	sub := (ns >> (e - 3)) & 7
	return (e-2)*8 + int(sub)
}

// bucketTop is the largest duration bucket b holds.
func bucketTop(b int) time.Duration {
	if b < 8 {
		return time.Duration(b)
	}
	e := b/8 + 2
	sub := uint64(b % 8)
	return time.Duration((8+sub+1)<<(e-3) - 1)
}

// Count is the number of durations recorded.
func (l *Latency) Count() int64 { return l.n }

// Mean is the mean duration.
func (l *Latency) Mean() time.Duration {
	if l.n == 0 {
		return 0
	}
	return l.sum / time.Duration(l.n)
}

// Quantile returns an upper bound, within the bucket resolution, of the
// q-quantile (0 < q <= 1).
func (l *Latency) Quantile(q float64) time.Duration {
	if l.n == 0 {
		return 0
	}
	rank := int64(q*float64(l.n) + 0.999999)
	var seen int64
	for b, c := range l.buckets {
		seen += c
		if seen >= rank {
			return bucketTop(b)
		}
	}
	return bucketTop(len(l.buckets) - 1)
}
