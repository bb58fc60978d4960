package metrics

import (
	"math/bits"
	"time"
)

// Latency is a histogram of durations with about 3% resolution (32
// sub-buckets per power of two), cheap enough to record every scheduling
// decision. It measures the tool, not the simulated cluster: it is
// reported beside a run's results and never in summary.json, whose bytes
// must not depend on the machine. Quantiles are read as a bucket's top, so
// the resolution is how far above the true value they may lie: a target
// such as a 20 µs p99 needs buckets finer than its margin.
type Latency struct {
	n       int64
	sum     time.Duration
	buckets [64 << subBits]int64
}

// subBits is log2 of the sub-buckets a power of two is cut into.
const subBits = 5

// Add records one duration.
func (l *Latency) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	l.n++
	l.sum += d
	l.buckets[bucket(uint64(d))]++
}

// bucket is the histogram bucket of a duration of ns nanoseconds: one per
// value below 2^subBits, then 2^subBits of equal width in each power of
// two.
func bucket(ns uint64) int {
	const sub = 1 << subBits
	if ns < sub {
		return int(ns)
	}
	e := bits.Len64(ns) - 1 // ns in [2^e, 2^(e+1))
	frac := (ns >> (e - subBits)) & (sub - 1)
	return (e-subBits+1)<<subBits + int(frac)
}

// bucketTop is the largest duration bucket b holds.
func bucketTop(b int) time.Duration {
	const sub = 1 << subBits
	if b < sub {
		return time.Duration(b)
	}
	e := b>>subBits + subBits - 1
	frac := uint64(b & (sub - 1))
	return time.Duration((sub+frac+1)<<(e-subBits) - 1)
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
