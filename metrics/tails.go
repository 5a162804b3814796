package metrics

import (
	"math"
	"slices"
)

// The percentiles of the bootstrap's interval.
const bootstrapLow, bootstrapHigh = 0.025, 0.975

// tails keeps, of the resample means of each of m lists, the smallest
// and the largest, as many as the percentiles low and high of all of
// them need (the two order statistics quantile interpolates between, and
// those beyond): 251 of each side for 10,000 resamples, instead of all
// 10,000. Each side is a max-heap of the smallest values it was given:
// the low side of the means, the high side of the means negated (the
// largest means are the smallest negated; negation is exact). Ties are
// equal values, so whichever of them is kept, the order statistics are
// the same to the last bit. Lists are independent: goroutines may add to
// different lists at once.
type tails struct {
	count      int     // the values each list will be given
	low, high  float64 // the percentiles, as quantile takes them
	kLow, kHgh int     // how many values each side keeps
	lows, hghs []float64
	nLow, nHgh []int32
}

// tailRank is the first of the two order statistics (counted from 0)
// that quantile of count values interpolates between for q.
func tailRank(count int, q float64) (int, float64) {
	h := q * float64(count-1)
	return int(math.Floor(h)), h
}

func newTails(m, count int, low, high float64) *tails {
	lo, _ := tailRank(count, low)
	hi, _ := tailRank(count, high)
	t := &tails{count: count, low: low, high: high, kLow: min(count, lo+2), kHgh: min(count, count-hi)}
	t.lows, t.hghs = make([]float64, m*t.kLow), make([]float64, m*t.kHgh)
	t.nLow, t.nHgh = make([]int32, m), make([]int32, m)
	return t
}

// add gives list i a value.
func (t *tails) add(i int, x float64) {
	keepSmallest(t.lows[i*t.kLow:(i+1)*t.kLow], &t.nLow[i], x)
	keepSmallest(t.hghs[i*t.kHgh:(i+1)*t.kHgh], &t.nHgh[i], -x)
}

// keepSmallest gives x to h, a max-heap of the smallest of the values it
// was given, *n of them so far, len(h) at most.
func keepSmallest(h []float64, n *int32, x float64) {
	if k := int(*n); k < len(h) {
		h[k] = x
		*n++
		maxUp(h, k)
	} else if x < h[0] {
		h[0] = x
		maxDown(h)
	}
}

// maxUp moves h[j] up the max-heap h[:j+1] to its place.
func maxUp(h []float64, j int) {
	for j > 0 {
		p := (j - 1) / 2
		if h[j] <= h[p] {
			return
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

// maxDown moves h[0] down the max-heap h to its place.
func maxDown(h []float64) {
	j := 0
	for {
		c := 2*j + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[c] <= h[j] {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// quantiles gives list i's percentiles low and high, once it was given
// its count values: quantile's of all of them, to the last bit. It is
// called once a list: the list's kept values are left sorted, the high
// side's negated back.
func (t *tails) quantiles(i int) [2]float64 {
	l := t.lows[i*t.kLow : (i+1)*t.kLow]
	h := t.hghs[i*t.kHgh : (i+1)*t.kHgh]
	for j := range h {
		h[j] = -h[j]
	}
	slices.Sort(l)
	slices.Sort(h)
	return [2]float64{t.quantile(l, 0, t.low), t.quantile(h, t.count-len(h), t.high)}
}

// quantile is quantile's interpolation for q, from sorted, the order
// statistics first to first+len(sorted)-1 of the count values.
func (t *tails) quantile(sorted []float64, first int, q float64) float64 {
	lo, h := tailRank(t.count, q)
	a := sorted[lo-first]
	if lo+1 >= t.count {
		return a
	}
	b := sorted[lo+1-first]
	return a + (h-float64(lo))*(b-a)
}
