package metrics

import (
	"math"
	"slices"
)

// Paired tests and rank correlation for matched comparisons of two
// configurations (runs.Compare): pure functions over figures, like the
// rest of the package's statistics.

// tieScale rounds values before ranking: figures are ratios of small
// counts reached through different floating-point paths (0.3-0.2 and
// 0.2-0.1 differ in the last bit), and such values must tie.
const tieScale = 1e9

func roundTie(x float64) float64 { return math.Round(x*tieScale) / tieScale }

// Ranks returns the ranks of xs (1-based), ties given the mean of the ranks
// they span ("average" ranks). Values equal after rounding to 9 decimals
// tie.
func Ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	key := make([]float64, len(xs))
	for i, x := range xs {
		key[i] = roundTie(x)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case key[a] < key[b]:
			return -1
		case key[a] > key[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && key[idx[j]] == key[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			ranks[idx[k]] = avg
		}
		i = j
	}
	return ranks
}

// A WilcoxonResult is the outcome of a Wilcoxon signed-rank test.
type WilcoxonResult struct {
	// N is the number of non-zero differences, the ones the test ranks.
	N int `json:"n"`
	// Zeros is the number of zero differences, dropped.
	Zeros int `json:"zeros"`
	// WPlus and WMinus are the sums of the ranks of the positive and
	// negative differences.
	WPlus  float64 `json:"w_plus"`
	WMinus float64 `json:"w_minus"`
	// P is the two-sided p-value; 1 when N is 0.
	P float64 `json:"p"`
	// Exact is true when P comes from the exact distribution (N ≤
	// WilcoxonExactMax), false for the normal approximation.
	Exact bool `json:"exact"`
}

// WilcoxonExactMax is the largest number of non-zero differences for which
// WilcoxonSignedRank computes the exact distribution; its cost grows as N³.
const WilcoxonExactMax = 300

// WilcoxonSignedRank tests whether paired differences are centred on zero.
//
// Zero differences are dropped (Wilcoxon's original method, R's
// wilcox.test and SciPy's default); the absolute values of the others are
// ranked, ties taking average ranks, and W+ is the sum of the ranks of the
// positive differences.
//
// For N ≤ WilcoxonExactMax, P is exact: the distribution of W+ under the
// null hypothesis is computed by giving each rank a positive or negative
// sign with probability ½ each, with the ranks as they are, ties included
// (average ranks are multiples of ½, so doubled ranks are whole numbers and
// the distribution is counted exactly). Without ties this is the classical
// exact test and agrees with R and SciPy; with ties R falls back to a
// normal approximation, so the p-values differ. P is two-sided: twice the
// smaller tail, at most 1.
//
// Above WilcoxonExactMax the normal approximation is used, with the tie
// correction of the variance and a continuity correction of ½.
func WilcoxonSignedRank(diffs []float64) WilcoxonResult {
	var nz []float64
	res := WilcoxonResult{P: 1}
	for _, d := range diffs {
		if roundTie(d) == 0 {
			res.Zeros++
			continue
		}
		nz = append(nz, d)
	}
	n := len(nz)
	res.N = n
	if n == 0 {
		return res
	}
	abs := make([]float64, n)
	for i, d := range nz {
		abs[i] = math.Abs(d)
	}
	ranks := Ranks(abs)
	for i, d := range nz {
		if d > 0 {
			res.WPlus += ranks[i]
		} else {
			res.WMinus += ranks[i]
		}
	}

	if n <= WilcoxonExactMax {
		res.Exact = true
		// dist[s] = P(2·W+ = s) under the null: each doubled rank joins the
		// positive sum with probability ½.
		total := 0
		dist := []float64{1}
		for _, r := range ranks {
			k := int(math.Round(2 * r))
			next := make([]float64, total+k+1)
			for s, p := range dist {
				next[s] += p / 2
				next[s+k] += p / 2
			}
			dist, total = next, total+k
		}
		w := int(math.Round(2 * res.WPlus))
		lower, upper := 0.0, 0.0
		for s, p := range dist {
			if s <= w {
				lower += p
			}
			if s >= w {
				upper += p
			}
		}
		res.P = math.Min(1, 2*math.Min(lower, upper))
		return res
	}

	nf := float64(n)
	mean := nf * (nf + 1) / 4
	variance := nf * (nf + 1) * (2*nf + 1) / 24
	for _, t := range tieSizes(ranks) {
		variance -= (t*t*t - t) / 48
	}
	d := res.WPlus - mean
	switch {
	case d > 0:
		d -= 0.5
	case d < 0:
		d += 0.5
	}
	if variance <= 0 {
		return res
	}
	z := math.Abs(d) / math.Sqrt(variance)
	res.P = math.Min(1, math.Erfc(z/math.Sqrt2))
	return res
}

// tieSizes returns the size of each group of equal ranks.
func tieSizes(ranks []float64) []float64 {
	count := map[float64]int{}
	for _, r := range ranks {
		count[r]++
	}
	var out []float64
	for _, c := range count {
		if c > 1 {
			out = append(out, float64(c))
		}
	}
	return out
}

// A SignResult is the outcome of a sign test.
type SignResult struct {
	Plus  int `json:"plus"`
	Minus int `json:"minus"`
	// Zeros are the zero differences, dropped.
	Zeros int `json:"zeros"`
	// P is the exact two-sided binomial p-value; 1 when every difference
	// is zero.
	P float64 `json:"p"`
}

// SignTest counts positive and negative differences and returns the exact
// two-sided binomial p-value of so unbalanced a split when both signs are
// equally likely: 2·P(X ≤ min(plus, minus)), X ~ Binomial(plus+minus, ½),
// at most 1. Zero differences are dropped.
func SignTest(diffs []float64) SignResult {
	var r SignResult
	for _, d := range diffs {
		switch d = roundTie(d); {
		case d > 0:
			r.Plus++
		case d < 0:
			r.Minus++
		default:
			r.Zeros++
		}
	}
	n := r.Plus + r.Minus
	k := min(r.Plus, r.Minus)
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	r.P = math.Min(1, 2*tail)
	return r
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// A SpearmanResult is a rank correlation.
type SpearmanResult struct {
	N int `json:"n"`
	// Rho is Spearman's ρ; nil when it is undefined (fewer than 2 pairs,
	// or one side constant).
	Rho *float64 `json:"rho"`
	// P is the two-sided p-value of ρ = 0, computed as Method says; nil
	// when N < 3 or Rho is nil.
	P *float64 `json:"p"`
	// Method says how P was computed: SpearmanExact below
	// SpearmanExactBelow pairs, SpearmanTApprox from there on; empty when
	// P is nil.
	Method string `json:"method,omitempty"`
}

// The methods of SpearmanResult.P.
const (
	// SpearmanExact is the permutation distribution of ρ: every one of the
	// N! pairings of the ranks of y with the ranks of x, equally likely
	// under the null hypothesis.
	SpearmanExact = "exact-permutation"
	// SpearmanTApprox is Student's t with N − 2 degrees of freedom, t =
	// ρ·√((N−2)/(1−ρ²)), as SciPy's spearmanr computes it.
	SpearmanTApprox = "t-approximation"
)

// SpearmanExactBelow is the number of pairs from which Spearman's p-value
// comes from Student's t instead of the exact permutation distribution.
// Below it the t approximation is poor (at 4 pairs in perfect order it
// gives p = 0, where 2 of the 24 pairings are as extreme), and 9! = 362,880
// pairings are enumerated in a few milliseconds.
const SpearmanExactBelow = 10

// Spearman returns the rank correlation of paired x and y: Pearson's
// correlation of their average ranks (ties averaged, so a 0/1 reward is
// handled). x and y must have the same length.
//
// The two-sided p-value of ρ = 0 is exact for 3 ≤ N < SpearmanExactBelow:
// the share of the N! permutations of y's ranks (ties keeping their
// average ranks, as for ρ itself) whose |ρ| is at least the observed |ρ|.
// Every permutation has the same rank variances, so |ρ| is compared
// through |Σ (2·rank_x − N − 1)(2·rank_y − N − 1)|, a whole number since
// average ranks are multiples of ½: the comparison is exact, with no
// floating-point tolerance. From SpearmanExactBelow pairs on, P is from
// Student's t with N − 2 degrees of freedom (SciPy's spearmanr), and 0
// when |ρ| = 1. Method says which was used.
func Spearman(x, y []float64) SpearmanResult {
	n := len(x)
	res := SpearmanResult{N: n}
	if n < 2 || len(y) != n {
		return res
	}
	rx, ry := Ranks(x), Ranks(y)
	mean := float64(n+1) / 2 // the mean of average ranks is always (n+1)/2
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return res
	}
	rho := sxy / math.Sqrt(sxx*syy)
	rho = math.Max(-1, math.Min(1, rho))
	res.Rho = &rho
	if n < 3 {
		return res
	}
	if n < SpearmanExactBelow {
		p := spearmanExactP(rx, ry)
		res.P, res.Method = &p, SpearmanExact
		return res
	}
	p := 0.0
	if math.Abs(rho) < 1 {
		df := float64(n - 2)
		t := rho * math.Sqrt(df/((1-rho)*(1+rho)))
		p = StudentTTwoSided(t, df)
	}
	res.P, res.Method = &p, SpearmanTApprox
	return res
}

// spearmanExactP returns the share of the permutations of ry whose
// |Σ (2·rx − n − 1)(2·ry − n − 1)| is at least that of ry as given. The
// permutations are visited by Heap's algorithm, which reaches each from
// the one before by one swap, so the sum is updated in constant time and
// nothing is allocated per permutation.
func spearmanExactP(rx, ry []float64) float64 {
	n := len(rx)
	// a and b are the doubled, centred ranks: average ranks are multiples
	// of ½, so these are whole numbers and every sum below is exact.
	a, b := make([]int64, n), make([]int64, n)
	var s int64
	for i := range n {
		a[i] = int64(math.Round(2*rx[i])) - int64(n+1)
		b[i] = int64(math.Round(2*ry[i])) - int64(n+1)
		s += a[i] * b[i]
	}
	observed := abs64(s)
	atLeast, total := 1, 1 // the identity permutation, s itself
	c := make([]int, n)
	for i := 1; i < n; {
		if c[i] >= i {
			c[i] = 0
			i++
			continue
		}
		j := 0 // an even i swaps with the first, an odd i with the c[i]-th
		if i%2 == 1 {
			j = c[i]
		}
		// Swapping b[i] and b[j] changes a[i]·b[i] + a[j]·b[j] into
		// a[i]·b[j] + a[j]·b[i].
		s += (a[i] - a[j]) * (b[j] - b[i])
		b[i], b[j] = b[j], b[i]
		total++
		if abs64(s) >= observed {
			atLeast++
		}
		c[i]++
		i = 1
	}
	return float64(atLeast) / float64(total)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// StudentTTwoSided returns P(|T| ≥ |t|) for Student's t with df degrees of
// freedom: the regularized incomplete beta I_{df/(df+t²)}(df/2, ½).
func StudentTTwoSided(t, df float64) float64 {
	return RegIncBeta(df/2, 0.5, df/(df+t*t))
}

// RegIncBeta returns the regularized incomplete beta function I_x(a, b)
// for a, b > 0 and x in [0, 1], by its continued fraction evaluated with
// the modified Lentz method, using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
// where the fraction converges slowly.
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

// betaFraction evaluates the continued fraction of the incomplete beta
// function, 1/(1+ d1/(1+ d2/(1+ …))), with
// d(2m+1) = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
// d(2m) = m(b−m)x / ((a+2m−1)(a+2m)).
func betaFraction(a, b, x float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / clamp(1-(a+b)*x/(a+1))
	f := d
	for m := 1; m <= 10000; m++ {
		mf := float64(m)
		// Even step.
		num := mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		f *= c * d
		// Odd step.
		num = -(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return f
}
