package advise

import (
	"math"
)

// Interval is a mean over seeds with its two-sided confidence interval
// from Student's t distribution: what every comparison the advice makes
// rests on. With fewer than two values Lo and Hi are NaN: one draw says
// nothing of its spread.
type Interval struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Known reports whether the interval has bounds (two values or more).
func (iv Interval) Known() bool { return iv.N >= 2 && !math.IsNaN(iv.Lo) }

// Excludes reports whether the interval lies wholly on one side of v, so
// that the mean differs from v by more than its noise. An interval
// without bounds excludes nothing.
func (iv Interval) Excludes(v float64) bool { return iv.Known() && (iv.Lo > v || iv.Hi < v) }

// MeanInterval is the mean of v with its two-sided interval at confidence
// level conf (0.95): mean ± t(conf, n-1) x sd / sqrt(n).
func MeanInterval(v []float64, conf float64) Interval {
	n := len(v)
	iv := Interval{N: n, Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if n == 0 {
		return iv
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	iv.Mean = sum / float64(n)
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range v {
		ss += (x - iv.Mean) * (x - iv.Mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	h := TQuantile(1-(1-conf)/2, float64(n-1)) * se
	iv.Lo, iv.Hi = iv.Mean-h, iv.Mean+h
	return iv
}

// PairedDiff is the interval of the mean of a[i] - b[i]: two candidates
// compared on the same seeds, so that what a seed does to both (its
// arrivals, placements) cancels out of the difference.
func PairedDiff(a, b []float64, conf float64) Interval {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return MeanInterval(d, conf)
}

// PairedRatio is the interval of the mean of a[i] / b[i] over seeds: a
// candidate's figure as a multiple of another's on the same seeds. A seed
// where b is 0 is left out (no ratio); N counts the seeds that have one.
func PairedRatio(a, b []float64, conf float64) Interval {
	var r []float64
	for i := range min(len(a), len(b)) {
		if b[i] != 0 {
			r = append(r, a[i]/b[i])
		}
	}
	return MeanInterval(r, conf)
}

// TQuantile is the p quantile of Student's t distribution with df degrees
// of freedom (df > 0, 0 < p < 1), by bisection on its distribution
// function; at df beyond 1e7 it is the normal quantile's value to six
// digits.
func TQuantile(p, df float64) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for tCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*max(1, hi) {
			break
		}
	}
	return (lo + hi) / 2
}

// tCDF is Student's t distribution function at t >= 0: 1 - I_x(df/2, 1/2)
// / 2 with x = df / (df + t^2).
func tCDF(t, df float64) float64 {
	x := df / (df + t*t)
	return 1 - 0.5*regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method), with the symmetry I_x(a, b) = 1 -
// I_{1-x}(b, a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, 1-x)/b
	}
	return front * betaCF(a, b, x) / a
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step is one term of Lentz's method: it moves c and d on by the
	// term's numerator and returns the factor h takes.
	step := func(num float64) float64 {
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 1000; m++ {
		fm := float64(m)
		h *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))
		del := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)))
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
