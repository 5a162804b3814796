package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap settings of Aggregate. The generator is math/rand/v2's PCG
// seeded with (BootstrapSeed1, BootstrapSeed2), fresh for every call, so a
// confidence interval depends only on the values, never on what ran before
// it, and is the same on every machine and every run.
const (
	BootstrapResamples        = 10000
	BootstrapSeed1     uint64 = 0x6167656e74726574 // "agentret"
	BootstrapSeed2     uint64 = 0x72696576616c3935 // "rieval95"
)

// Stats summarizes one figure over many tasks or runs.
type Stats struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	// Std is the sample standard deviation, √(Σ(x − mean)² / (N − 1)); 0
	// when N < 2.
	Std float64 `json:"std"`
	// CILow and CIHigh bound the percentile-bootstrap 95% confidence
	// interval of the mean.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// WilsonLow and WilsonHigh bound the 95% Wilson score interval of the
	// mean when every value is 0 or 1: a pass rate, success@k, acc@k. At
	// the few tasks or runs of a scenario the bootstrap interval of such a
	// figure collapses to a point at 0 or N passes; Wilson's does not. Nil
	// for other figures.
	WilsonLow  *float64 `json:"wilson_low,omitempty"`
	WilsonHigh *float64 `json:"wilson_high,omitempty"`
}

// Aggregate returns the statistics of values: N, mean, median (the middle
// value, or the mean of the two middle values), sample standard deviation
// and a 95% confidence interval of the mean by the percentile bootstrap.
//
// The bootstrap draws BootstrapResamples samples of N values with
// replacement, takes the mean of each, and returns the 2.5th and 97.5th
// percentiles of those means, each by linear interpolation between order
// statistics at position p·(B − 1) (NumPy's default, R's type 7). The values
// are sorted before resampling, so the result does not depend on their
// order. With N = 1 the interval is [x, x]; with N = 0 every field is 0 and
// N says there was nothing to summarize. Values must be finite.
func Aggregate(values []float64) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	xs := slices.Clone(values)
	slices.Sort(xs)
	s := Stats{N: n, Mean: mean(xs)}
	if n%2 == 1 {
		s.Median = xs[n/2]
	} else {
		s.Median = (xs[n/2-1] + xs[n/2]) / 2
	}
	if n > 1 {
		ss := 0.0
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(ss / float64(n-1))
	}

	rng := rand.New(rand.NewPCG(BootstrapSeed1, BootstrapSeed2))
	means := make([]float64, BootstrapResamples)
	for b := range means {
		sum := 0.0
		for range n {
			sum += xs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	s.CILow, s.CIHigh = quantile(means, 0.025), quantile(means, 0.975)
	passed, binary := 0, true
	for _, x := range xs {
		switch x {
		case 1:
			passed++
		case 0:
		default:
			binary = false
		}
	}
	if binary {
		lo, hi := WilsonInterval(passed, n, WilsonZ95)
		s.WilsonLow, s.WilsonHigh = &lo, &hi
	}
	return s
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// quantile returns the q-quantile of sorted xs by linear interpolation at
// position q·(len − 1).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

// AggregateResults aggregates every figure over the computable results: for
// each metric name, Aggregate of the values of the results that have it. A
// result that is not computable contributes nothing, so a task without
// ground truth can neither raise nor lower a mean; a null figure (no
// timestamps, no writes) is left out for that result only, and Stats.N says
// how many results a figure is over.
func AggregateResults(results []*Result) map[string]Stats {
	byName := map[string][]float64{}
	for _, r := range results {
		if r == nil || !r.Computable {
			continue
		}
		for name, v := range r.Values() {
			byName[name] = append(byName[name], v)
		}
	}
	out := make(map[string]Stats, len(byName))
	for name, vs := range byName {
		out[name] = Aggregate(vs)
	}
	return out
}
