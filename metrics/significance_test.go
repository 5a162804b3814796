package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRanksAverageTies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"distinct values rank in order", []float64{30, 10, 20}, []float64{3, 1, 2}},
		{"tied values share the mean rank", []float64{10, 20, 20, 30}, []float64{1, 2.5, 2.5, 4}},
		{"all equal values share the middle rank", []float64{1, 1, 1}, []float64{2, 2, 2}},
		{"values equal up to floating-point noise tie", []float64{0.3 - 0.2, 0.1, 0.5}, []float64{1.5, 1.5, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Ranks(tt.in))
		})
	}
}

func TestWilcoxonSignedRank(t *testing.T) {
	t.Parallel()
	// R's documentation example (?wilcox.test, paired depression scores):
	// wilcox.test(x, y, paired = TRUE) gives V = 40 and a one-sided
	// p-value of 0.01953 = 10/512; by hand, W− = 2 + 3 = 5 and ten of the
	// 512 sign patterns have W− ≤ 5, so the two-sided p is 20/512.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	depression := make([]float64, len(x))
	for i := range x {
		depression[i] = x[i] - y[i]
	}
	tests := []struct {
		name             string
		diffs            []float64
		n, zeros         int
		wPlus, wMinus, p float64
		exact            bool
		pTolerance       float64
	}{
		{"R's paired example gives V = 40 and p = 20/512", depression, 9, 0, 40, 5, 20.0 / 512, true, 1e-12},
		// |d| = 1,1,2,2 → ranks 1.5,1.5,3.5,3.5, doubled 3,3,7,7; W+ = 8.5
		// (doubled 17). Of the 16 sign patterns, doubled sums ≥ 17 are
		// 3+7+7 (two ways) and 3+3+7+7 (one): upper tail 3/16.
		{"tied ranks use the exact distribution of average ranks", []float64{1, -1, 2, 2}, 4, 0, 8.5, 1.5, 6.0 / 16, true, 1e-12},
		// Zeros dropped: 1,2,3 all positive, W+ = 6, P(W+ ≥ 6) = 1/8.
		{"zero differences are dropped", []float64{0, 0, 1, 2, 3}, 3, 2, 6, 0, 2.0 / 8, true, 1e-12},
		{"only zero differences give p = 1", []float64{0, 0}, 0, 2, 0, 0, 1, false, 0},
		{"a balanced sample gives p = 1", []float64{1, -1, 2, -2}, 4, 0, 5, 5, 1, true, 1e-12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := WilcoxonSignedRank(tt.diffs)
			assert.Equal(t, tt.n, r.N)
			assert.Equal(t, tt.zeros, r.Zeros)
			assert.InDelta(t, tt.wPlus, r.WPlus, 1e-12)
			assert.InDelta(t, tt.wMinus, r.WMinus, 1e-12)
			assert.InDelta(t, tt.p, r.P, tt.pTolerance)
			assert.Equal(t, tt.exact, r.Exact)
		})
	}
}

func TestWilcoxonNormalApproximationAboveTheExactLimit(t *testing.T) {
	t.Parallel()
	n := WilcoxonExactMax + 1
	allPositive := make([]float64, n)
	balanced := make([]float64, 0, n+1)
	for i := range n {
		allPositive[i] = float64(i + 1)
	}
	for i := 1; i <= (n+1)/2; i++ {
		balanced = append(balanced, float64(i), -float64(i))
	}
	r := WilcoxonSignedRank(allPositive)
	assert.False(t, r.Exact)
	assert.Less(t, r.P, 1e-12, "every difference positive is far in the tail")

	r = WilcoxonSignedRank(balanced)
	assert.False(t, r.Exact)
	assert.InDelta(t, 1, r.P, 1e-9, "W+ equal to its mean gives p = 1")

	// At the limit the exact and approximate p-values of a moderate
	// effect agree to about two decimals.
	mixed := make([]float64, WilcoxonExactMax)
	for i := range mixed {
		mixed[i] = float64(i + 1)
		if i%5 == 0 || i%7 == 0 {
			mixed[i] = -mixed[i]
		}
	}
	exact := WilcoxonSignedRank(mixed)
	require.True(t, exact.Exact)
	approx := WilcoxonSignedRank(append(mixed, 0.5))
	require.False(t, approx.Exact)
	assert.InDelta(t, exact.P, approx.P, 0.02)
}

func TestSignTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		diffs              []float64
		plus, minus, zeros int
		p                  float64
	}{
		// P(X ≤ 1 | n = 9) = (1 + 9) / 512.
		{"eight of nine positive gives 20/512", []float64{1, 2, 3, 4, 5, 6, 7, 8, -1}, 8, 1, 0, 20.0 / 512},
		{"six of six positive gives 2/64", []float64{1, 1, 1, 1, 1, 1}, 6, 0, 0, 2.0 / 64},
		{"an even split caps p at 1", []float64{1, -1, 1, -1}, 2, 2, 0, 1},
		{"zeros are dropped", []float64{0, 0, 1, 1, 1, 1, 1, 1}, 6, 0, 2, 2.0 / 64},
		{"no non-zero difference gives p = 1", []float64{0}, 0, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := SignTest(tt.diffs)
			assert.Equal(t, tt.plus, r.Plus)
			assert.Equal(t, tt.minus, r.Minus)
			assert.Equal(t, tt.zeros, r.Zeros)
			assert.InDelta(t, tt.p, r.P, 1e-12)
		})
	}
}

func TestSpearman(t *testing.T) {
	t.Parallel()
	t.Run("SciPy's documentation example gives rho 0.8208 and an exact p of 16/120", func(t *testing.T) {
		t.Parallel()
		// scipy.stats.spearmanr([1,2,3,4,5], [5,6,7,8,7]):
		// statistic=0.8207826816681233 and, from Student's t,
		// pvalue=0.0885870053135438. By hand: ranks of y are 1,2,3.5,5,3.5,
		// Σdxdy = 8, Σdx² = 10, Σdy² = 9.5. With 5 pairs the p-value is
		// exact: 16 of the 120 pairings have |ρ| ≥ 0.8208.
		r := Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7})
		require.NotNil(t, r.Rho)
		require.NotNil(t, r.P)
		assert.InDelta(t, 8/math.Sqrt(95), *r.Rho, 1e-15)
		assert.InDelta(t, 0.8207826816681233, *r.Rho, 1e-15)
		assert.Equal(t, 16.0/120, *r.P)
		assert.Equal(t, SpearmanExact, r.Method)
	})
	t.Run("a binary reward is ranked with ties averaged", func(t *testing.T) {
		t.Parallel()
		// Ranks of the reward 0,0,1,1 are 1.5,1.5,3.5,3.5: ρ = 4/√20.
		r := Spearman([]float64{0.1, 0.2, 0.3, 0.4}, []float64{0, 0, 1, 1})
		require.NotNil(t, r.Rho)
		assert.InDelta(t, 4/math.Sqrt(20), *r.Rho, 1e-15)
	})
	t.Run("a constant side has no correlation", func(t *testing.T) {
		t.Parallel()
		r := Spearman([]float64{1, 2, 3}, []float64{1, 1, 1})
		assert.Nil(t, r.Rho)
		assert.Nil(t, r.P)
		assert.Empty(t, r.Method)
	})
	t.Run("two pairs have a correlation but no p-value", func(t *testing.T) {
		t.Parallel()
		r := Spearman([]float64{1, 2}, []float64{3, 4})
		require.NotNil(t, r.Rho)
		assert.Equal(t, 1.0, *r.Rho)
		assert.Nil(t, r.P)
		assert.Empty(t, r.Method)
	})
}

func TestSpearmanPIsExactBelowTenPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		x, y   []float64
		rho    float64
		p      float64
		byHand string
	}{
		{"four pairs in order", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, 1, 2.0 / 24,
			"of the 4! = 24 pairings only the identity (ρ = 1) and the reversal (ρ = −1) reach |ρ| = 1"},
		{"four pairs in reverse order", []float64{1, 2, 3, 4}, []float64{9, 7, 5, 1}, -1, 2.0 / 24,
			"the same two pairings: the test is two-sided"},
		{"five pairs in order", []float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50}, 1, 2.0 / 120,
			"2 of the 5! = 120 pairings"},
		{"a binary reward ties in pairs", []float64{0.1, 0.2, 0.3, 0.4}, []float64{0, 0, 1, 1}, 4 / math.Sqrt(20), 8.0 / 24,
			"doubled centred ranks are x −3,−1,1,3 and y −2,−2,2,2, so Σ = 4·(sum of x where y is 1): " +
				"the 6 places of the two 1s give −4, −2, 0, 0, 2, 4 and the observed 4 is reached by 2 places, " +
				"each 2!·2! = 4 of the 24 pairings"},
		{"three pairs that cannot be told from chance", []float64{1, 2, 3}, []float64{1, 3, 2}, 0.5, 1,
			"the 6 pairings give ρ = 1, 0.5, 0.5, −0.5, −0.5, −1: all have |ρ| ≥ 0.5"},
		{"nine pairs in order", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 2.0 / 362880,
			"2 of the 9! = 362,880 pairings: the largest N enumerated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Spearman(tt.x, tt.y)
			require.NotNil(t, r.Rho)
			require.NotNil(t, r.P)
			assert.InDelta(t, tt.rho, *r.Rho, 1e-15)
			assert.InDelta(t, tt.p, *r.P, 1e-15, tt.byHand)
			assert.Equal(t, SpearmanExact, r.Method)
		})
	}
}

func TestSpearmanExactPCountsEveryPermutation(t *testing.T) {
	t.Parallel()
	// The reference pairs y's ranks with x's in every order by recursion
	// and compares |ρ| in floating point with a tolerance, as the
	// definition reads; Spearman swaps one pair at a time and compares
	// whole numbers. Ties on either side, and none.
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := 3 + trial%6
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i] = float64(rng.IntN(n))
			y[i] = float64(rng.IntN(3 + trial%4))
		}
		r := Spearman(x, y)
		if r.Rho == nil {
			continue
		}
		require.NotNil(t, r.P)
		assert.InDelta(t, permutationP(Ranks(x), Ranks(y)), *r.P, 1e-15, "x %v y %v", x, y)
	}
}

// permutationP is the exact p-value as defined: the share of the
// permutations of ry whose |ρ| with rx is at least the observed |ρ|.
func permutationP(rx, ry []float64) float64 {
	rho := func(ry []float64) float64 {
		m := float64(len(rx)+1) / 2
		var sxy, sxx, syy float64
		for i := range rx {
			sxy += (rx[i] - m) * (ry[i] - m)
			sxx += (rx[i] - m) * (rx[i] - m)
			syy += (ry[i] - m) * (ry[i] - m)
		}
		return sxy / math.Sqrt(sxx*syy)
	}
	observed := math.Abs(rho(ry))
	perm := make([]float64, 0, len(ry))
	used := make([]bool, len(ry))
	atLeast, total := 0, 0
	var walk func()
	walk = func() {
		if len(perm) == len(ry) {
			total++
			if math.Abs(rho(perm)) >= observed-1e-12 {
				atLeast++
			}
			return
		}
		for i, v := range ry {
			if !used[i] {
				used[i] = true
				perm = append(perm, v)
				walk()
				perm = perm[:len(perm)-1]
				used[i] = false
			}
		}
	}
	walk()
	return float64(atLeast) / float64(total)
}

func TestSpearmanPFromTenPairsIsStudentsT(t *testing.T) {
	t.Parallel()
	// x = 1…10 against y = 2,1,4,3,6,5,8,7,10,9: every d = ±1, Σd² = 10,
	// ρ = 1 − 6·10/(10·99) = 0.939393…, t = ρ·√(8/(1−ρ²)).
	// With 8 degrees of freedom, θ = atan(t/√8) and (Abramowitz and
	// Stegun 26.7.3) P(|T| ≥ t) = 1 − sin θ·(1 + cos²θ/2 + 3cos⁴θ/8 + 5cos⁶θ/16).
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	y := []float64{2, 1, 4, 3, 6, 5, 8, 7, 10, 9}
	r := Spearman(x, y)
	require.NotNil(t, r.Rho)
	require.NotNil(t, r.P)
	rho := 1 - 60.0/990
	assert.InDelta(t, rho, *r.Rho, 1e-15)
	tt := rho * math.Sqrt(8/(1-rho*rho))
	theta := math.Atan(tt / math.Sqrt(8))
	c2 := math.Cos(theta) * math.Cos(theta)
	want := 1 - math.Sin(theta)*(1+c2/2+3*c2*c2/8+5*c2*c2*c2/16)
	assert.InDelta(t, want, *r.P, 1e-12)
	assert.Equal(t, SpearmanTApprox, r.Method)

	r = Spearman(x, []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	require.NotNil(t, r.P)
	assert.Equal(t, 0.0, *r.P, "from ten pairs a perfect order has p 0 by Student's t")
	assert.Equal(t, SpearmanTApprox, r.Method)
}

func TestStudentTAndIncompleteBetaMatchClosedForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want float64
	}{
		// df = 1 is the Cauchy distribution: P(|T| ≥ t) = 1 − 2·atan(t)/π.
		{"t = 1 with one degree of freedom", StudentTTwoSided(1, 1), 0.5},
		{"t = 3 with one degree of freedom", StudentTTwoSided(3, 1), 1 - 2*math.Atan(3)/math.Pi},
		// df = 2: P(|T| ≥ t) = 1 − t/√(t²+2).
		{"t = 2 with two degrees of freedom", StudentTTwoSided(2, 2), 1 - 2/math.Sqrt(6)},
		{"t = 0 has p = 1", StudentTTwoSided(0, 7), 1},
		{"I_x(1, 1) is x", RegIncBeta(1, 1, 0.3), 0.3},
		{"I_x(a, 1) is x^a", RegIncBeta(2.5, 1, 0.7), math.Pow(0.7, 2.5)},
		{"I_x(1, b) is 1 − (1−x)^b", RegIncBeta(1, 4, 0.2), 1 - math.Pow(0.8, 4)},
		{"I_½(a, a) is ½ by symmetry", RegIncBeta(7.5, 7.5, 0.5), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, tt.got, 1e-12)
		})
	}
}
