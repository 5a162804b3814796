package metrics

import (
	"encoding/binary"
	"hash/fnv"
	"maps"
	"math"
	"runtime"
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
	// mean of a proportion: a figure that Definitions marks Proportion
	// (success@k, acc@k, symbol_acc@k, each 1 for a success and 0 for a
	// failure), whose mean is c successes out of N. At the few tasks or
	// runs of a scenario the bootstrap interval of such a figure collapses
	// to a point at 0 or N successes; Wilson's does not. With no success
	// WilsonLow is exactly 0, with no failure WilsonHigh exactly 1.
	//
	// Nil for every other figure, even one whose values happen to be all 0
	// or 1 (steps_to_target, edit_calls, a reward): a Wilson interval bounds
	// a share of successes, and their mean is not one. Nil too for a
	// proportion with a value other than 0 or 1, such as a task's mean
	// over several trials, which is not one outcome.
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
//
// Aggregate is given values without a metric name, and values alone
// cannot say whether they are successes: it never sets the Wilson
// interval. AggregateAll, given names, does for proportions.
func Aggregate(values []float64) Stats {
	return AggregateAll(map[string][]float64{"": values})[""]
}

// AggregateAll is Aggregate of each list of values, by metric name, with
// the same results, and the Wilson interval of each list whose name is a
// proportion (Definition.Proportion: "success@5", "read.acc@1",
// "symbol_acc@3") when every value is 0 or 1. It is faster on many lists:
// the bootstrap's draws depend only on the number of values, so lists of
// the same length share them, and a list whose values are all equal needs
// none. Lists are spread over GOMAXPROCS goroutines.
func AggregateAll(lists map[string][]float64) map[string]Stats {
	return aggregateNamed(lists, true)
}

// AggregateAllInPlace is AggregateAll, with the same results, for a
// caller that does not use the lists afterwards: it sorts each list in
// place instead of a copy of it, so that the lists are not held twice
// (the lists of a run's tasks are most of what summarizing it holds).
func AggregateAllInPlace(lists map[string][]float64) map[string]Stats {
	return aggregateNamed(lists, false)
}

// AggregateAllInPlaceWith is AggregateAllInPlace of lists and, with the
// results of Aggregate, of each of unnamed (figures without a metric
// name, such as a configuration's rewards), in one bootstrap: lists of
// different lengths share the generator's outputs, so a list bootstrapped
// apart costs more than one bootstrapped with the others.
func AggregateAllInPlaceWith(lists map[string][]float64, unnamed ...[]float64) (map[string]Stats, []Stats) {
	all := make([]namedList, 0, len(lists)+len(unnamed))
	for _, name := range slices.Sorted(maps.Keys(lists)) {
		all = append(all, namedList{name: name, named: true, xs: lists[name]})
	}
	for _, xs := range unnamed {
		all = append(all, namedList{xs: xs})
	}
	lists = nil // all holds them, and lets each go once it is laid out
	stats := aggregateLists(all, false)
	out := make(map[string]Stats, len(all)-len(unnamed))
	for i, l := range all[:len(all)-len(unnamed)] {
		out[l.name] = stats[i]
	}
	return out, stats[len(all)-len(unnamed):]
}

func aggregateNamed(lists map[string][]float64, clone bool) map[string]Stats {
	all := make([]namedList, 0, len(lists))
	for _, name := range slices.Sorted(maps.Keys(lists)) {
		all = append(all, namedList{name: name, named: true, xs: lists[name]})
	}
	lists = nil // all holds them, and lets each go once it is laid out
	stats := aggregateLists(all, clone)
	out := make(map[string]Stats, len(all))
	for i, l := range all {
		out[l.name] = stats[i]
	}
	return out
}

// A namedList is a list of values to aggregate and the metric it is of,
// when it is of one (named), which decides its Wilson interval.
type namedList struct {
	name  string
	named bool
	xs    []float64
}

// aggregateLists is the statistics of each list, in their order; with
// clone, of a sorted copy of each list, else of the list sorted in place.
// It lets go of the lists (lists[i].xs), so that the bootstrap lets each
// go once it has laid it out by draw: a list and its layout are not both
// held while the resamples are summed.
func aggregateLists(lists []namedList, clone bool) []Stats {
	out := make([]Stats, len(lists))
	sorted := make([][]float64, len(lists))
	byN := map[int][]int{}
	// same maps a hash of a sorted list's values to the lists bootstrapped
	// with that hash; copies a later list with the same values as one of
	// them to that one.
	same, copies := map[uint64][]int{}, map[int]int{}
	for i, l := range lists {
		lists[i].xs = nil
		n := len(l.xs)
		if n == 0 {
			continue
		}
		xs := l.xs
		if clone {
			xs = slices.Clone(xs)
		}
		slices.Sort(xs)
		s := describe(xs)
		if l.named {
			s.WilsonLow, s.WilsonHigh = wilson(l.name, xs)
		}
		if xs[0] == xs[n-1] {
			// Every resample holds n copies of the one value: every mean
			// of the bootstrap is this one, and so are its percentiles.
			sum := 0.0
			for range n {
				sum += xs[0]
			}
			s.CILow = sum / float64(n)
			s.CIHigh = s.CILow
			out[i] = s
			continue
		}
		out[i] = s
		// A list equal to one seen before, value for value once sorted,
		// has its interval: the bootstrap of a list depends only on its
		// sorted values.
		key := listKey(xs)
		if first := slices.IndexFunc(same[key], func(f int) bool { return slices.Equal(sorted[f], xs) }); first >= 0 {
			copies[i] = same[key][first]
			continue
		}
		same[key] = append(same[key], i)
		sorted[i] = xs
		byN[n] = append(byN[n], i)
	}
	// One bootstrap for every length: the lists of a length share its
	// draws, and the lengths share the generator's outputs (bootstrap).
	ns := slices.Sorted(maps.Keys(byN))
	lengths := make([]lengthLists, len(ns))
	for j, n := range ns {
		xss := make([][]float64, len(byN[n]))
		for k, i := range byN[n] {
			xss[k] = sorted[i]
		}
		lengths[j] = lengthLists{n, xss}
	}
	clear(sorted)
	cis := bootstrap(lengths, runtime.GOMAXPROCS(0))
	for j, n := range ns {
		for k, i := range byN[n] {
			out[i].CILow, out[i].CIHigh = cis[j][k][0], cis[j][k][1]
		}
	}
	for i, first := range copies {
		out[i].CILow, out[i].CIHigh = out[first].CILow, out[first].CIHigh
	}
	return out
}

// listKey is a hash of the bits of a list's values (FNV-1a 64), so that
// finding an equal list holds no copy of the values.
func listKey(xs []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	return h.Sum64()
}

// describe returns N, mean, median and standard deviation of sorted xs.
func describe(xs []float64) Stats {
	n := len(xs)
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
	return s
}

// wilson returns the 95% Wilson interval of xs when the metric name is a
// proportion by its definition and every value is an outcome, 1 or 0;
// otherwise nil. The name decides, not the values: steps_to_target can be
// 0 or 1 on every task without its mean being a share of successes.
func wilson(name string, xs []float64) (lo, hi *float64) {
	if d, ok := Define(name); !ok || !d.Proportion {
		return nil, nil
	}
	passed := 0
	for _, x := range xs {
		switch x {
		case 1:
			passed++
		case 0:
		default:
			return nil, nil
		}
	}
	l, h := WilsonInterval(passed, len(xs), WilsonZ95)
	return &l, &h
}

// selectQuantile is quantile of xs once sorted, without sorting them: the
// two order statistics it interpolates between are selected, and xs is
// left in another order. The interpolation is quantile's, so the result
// is the same to the last bit.
func selectQuantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	a := selectKth(xs, lo)
	if lo+1 >= len(xs) {
		return xs[len(xs)-1] // quantile's bound: lo is the last, selected
	}
	// After the selection every value past lo is at least xs[lo]: the
	// next order statistic is the least of them.
	b := slices.Min(xs[lo+1:])
	return a + (h-float64(lo))*(b-a)
}

// selectKth reorders xs so that xs[k] is the value sorting would put
// there, every value before it no greater and every value after it no
// less, and returns it (Hoare's selection with a median-of-three pivot;
// values must not be NaN).
func selectKth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Order xs[lo], xs[mid], xs[hi]; the median is the pivot.
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo..j] ≤ pivot ≤ xs[i..hi], and xs[j+1..i-1] = pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
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
	return AggregateAll(byName)
}
