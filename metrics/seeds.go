package metrics

import "math"

// MeanSE is the mean of a figure over seeds (or runs) and its standard
// error, the sample standard deviation over the square root of the count:
// how every comparison here reports a figure, since one run of a busy
// cluster is one draw. With one value the standard error is NaN (one draw
// says nothing of its spread); with none both are NaN.
func MeanSE(v []float64) (mean, se float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
}
