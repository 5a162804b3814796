package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestPassAtKAndPassHatKMatchTheBinomialFormulas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		n, c, k    int
		at, allOfK float64
	}{
		{"2 of 5 passed, k = 1: both are the pass rate", 5, 2, 1, 2.0 / 5, 2.0 / 5},
		{"2 of 5, k = 2: 1 − C(3,2)/C(5,2) and C(2,2)/C(5,2)", 5, 2, 2, 1 - 3.0/10, 1.0 / 10},
		{"2 of 5, k = 3: 1 − C(3,3)/C(5,3); pass^3 needs 3 passes", 5, 2, 3, 1 - 1.0/10, 0},
		{"2 of 5, k = 4: every draw of 4 holds a pass", 5, 2, 4, 1, 0},
		{"3 of 4, k = 2: C(3,2)/C(4,2) = 1/2", 4, 3, 2, 1, 3.0 / 6},
		{"0 of 3 passed: both 0", 3, 0, 2, 0, 0},
		{"3 of 3 passed: both 1", 3, 3, 3, 1, 1},
		{"10 of 20, k = 5: 1 − C(10,5)/C(20,5) and C(10,5)/C(20,5)", 20, 10, 5, 1 - 252.0/15504, 252.0 / 15504},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at, err := metrics.PassAtK(tt.n, tt.c, tt.k)
			require.NoError(t, err)
			assert.InDelta(t, tt.at, at, 1e-12, "pass@k")
			hat, err := metrics.PassHatK(tt.n, tt.c, tt.k)
			require.NoError(t, err)
			assert.InDelta(t, tt.allOfK, hat, 1e-12, "pass^k")
		})
	}
	for _, bad := range [][3]int{{0, 0, 1}, {3, 4, 1}, {3, -1, 1}, {3, 1, 0}, {3, 1, 4}} {
		_, err := metrics.PassAtK(bad[0], bad[1], bad[2])
		assert.ErrorIs(t, err, metrics.ErrPassCounts, "%v", bad)
		_, err = metrics.PassHatK(bad[0], bad[1], bad[2])
		assert.ErrorIs(t, err, metrics.ErrPassCounts, "%v", bad)
	}
}

func TestWilsonIntervalMatchesHandComputedBounds(t *testing.T) {
	t.Parallel()
	z2 := metrics.WilsonZ95 * metrics.WilsonZ95 // 3.8414588
	tests := []struct {
		name   string
		c, n   int
		lo, hi float64
	}{
		// p = 0.8: (0.8 + z²/20 ∓ z·√(0.016 + z²/400)) / (1 + z²/10).
		{"8 of 10", 8, 10, 0.4901624, 0.9433178},
		// p = 0.3: (0.3 + z²/20 ∓ z·√(0.021 + z²/400)) / (1 + z²/10)
		// = (0.4920729 ∓ 0.3428816) / 1.3841459.
		{"3 of 10", 3, 10, 0.1077913, 0.6032219},
		// p = 0: the lower bound is 0, the upper z²/n / (1 + z²/n) =
		// z²/(n + z²) = 3.8414588/13.8414588.
		{"0 of 10", 0, 10, 0, 0.2775328},
		// p = 1 mirrors it: n/(n + z²) = 10/13.8414588, and 1.
		{"10 of 10", 10, 10, 0.7224672, 1},
		{"0 of 5", 0, 5, 0, (z2 / 5) / (1 + z2/5)},
		{"5 of 5 mirrors 0 of 5", 5, 5, 1 - (z2/5)/(1+z2/5), 1},
		{"no run knows nothing", 0, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lo, hi := metrics.WilsonInterval(tt.c, tt.n, metrics.WilsonZ95)
			assert.InDelta(t, tt.lo, lo, 1e-6)
			assert.InDelta(t, tt.hi, hi, 1e-6)
		})
	}
}

func TestWilsonIntervalIsExactlyZeroOrOneAtTheEnds(t *testing.T) {
	t.Parallel()
	// In floating point the formula leaves 4.9e-17 at 0 of 3 and
	// 0.9999999999999999 at 10 of 10: a bound that excludes the value
	// observed. No success has a lower bound of exactly 0, no failure an
	// upper bound of exactly 1, whatever n.
	for n := 1; n <= 200; n++ {
		lo, hi := metrics.WilsonInterval(0, n, metrics.WilsonZ95)
		assert.Equal(t, 0.0, lo, "0 of %d", n)
		assert.Less(t, hi, 1.0, "0 of %d", n)
		lo, hi = metrics.WilsonInterval(n, n, metrics.WilsonZ95)
		assert.Equal(t, 1.0, hi, "%d of %d", n, n)
		assert.Greater(t, lo, 0.0, "%d of %d", n, n)
	}
	pr, err := metrics.SummarizePasses(3, 0)
	require.NoError(t, err)
	assert.Equal(t, 0.0, pr.WilsonLow, "a pass rate of 0 of 3 runs")
	pr, err = metrics.SummarizePasses(10, 10)
	require.NoError(t, err)
	assert.Equal(t, 1.0, pr.WilsonHigh, "a pass rate of 10 of 10 runs")
}

func TestSummarizePassesListsEveryK(t *testing.T) {
	t.Parallel()
	pr, err := metrics.SummarizePasses(4, 3)
	require.NoError(t, err)
	assert.Equal(t, 0.75, pr.Rate)
	assert.InDeltaSlice(t, []float64{0.75, 1, 1, 1}, pr.PassAt, 1e-12)
	// C(3,k)/C(4,k): 3/4, 3/6, 1/4, 0.
	assert.InDeltaSlice(t, []float64{0.75, 0.5, 0.25, 0}, pr.PassHat, 1e-12)
	assert.Less(t, pr.WilsonLow, 0.75)
	assert.Greater(t, pr.WilsonHigh, 0.75)
	_, err = metrics.SummarizePasses(2, 3)
	assert.ErrorIs(t, err, metrics.ErrPassCounts)
}
