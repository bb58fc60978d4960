package harness

import (
	"math"
	"testing"
)

// The Zipf sampler's cumulative distribution ends at 1 and gives each k
// its mass k^-s over the normaliser.
func TestZipfSamplerCoversItsRange(t *testing.T) {
	z := NewZipf(1, 400, 1)
	if got := z.cdf[len(z.cdf)-1]; math.Abs(got-1) > 1e-12 {
		t.Errorf("cdf ends at %v, want 1", got)
	}
	// P(k) = k^-1 / H(400): the first two masses.
	h := 0.0
	for k := 1; k <= 400; k++ {
		h += 1 / float64(k)
	}
	if got, want := z.cdf[0], 1/h; math.Abs(got-want) > 1e-12 {
		t.Errorf("P(1) = %v, want 1/H(400) = %v", got, want)
	}
	if got, want := z.cdf[1]-z.cdf[0], 0.5/h; math.Abs(got-want) > 1e-12 {
		t.Errorf("P(2) = %v, want 1/(2 H(400)) = %v", got, want)
	}
}
