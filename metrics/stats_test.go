package metrics_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestAggregateMatchesHandArithmetic(t *testing.T) {
	t.Parallel()
	// mean = 10/4 = 2.5; median = (2+3)/2; deviations ±1.5, ±0.5:
	// std = √((2.25+0.25+0.25+2.25)/3) = √(5/3).
	s := metrics.Aggregate([]float64{4, 1, 3, 2})
	assert.Equal(t, 4, s.N)
	assert.Equal(t, 2.5, s.Mean)
	assert.Equal(t, 2.5, s.Median)
	assert.InDelta(t, math.Sqrt(5.0/3), s.Std, 1e-12)

	// Odd count: the middle value.
	assert.Equal(t, 2.0, metrics.Aggregate([]float64{9, 2, 1}).Median)

	// One value: no spread, the interval is the value itself.
	one := metrics.Aggregate([]float64{0.7})
	assert.Equal(t, metrics.Stats{N: 1, Mean: 0.7, Median: 0.7, Std: 0, CILow: 0.7, CIHigh: 0.7}, one)

	// Nothing to summarize.
	assert.Equal(t, metrics.Stats{}, metrics.Aggregate(nil))

	// Constant values: every resample has the same mean.
	c := metrics.Aggregate([]float64{0.25, 0.25, 0.25})
	assert.Equal(t, [2]float64{0.25, 0.25}, [2]float64{c.CILow, c.CIHigh})
}

func TestBootstrapIntervalMatchesTheExactDistribution(t *testing.T) {
	t.Parallel()
	// {0, 1}: a resample mean is 0 with probability 1/4, 1/2 with 1/2 and 1
	// with 1/4. Both tails hold far more than 2.5% of 10000 resamples, so
	// the 2.5th percentile is 0 and the 97.5th is 1.
	s := metrics.Aggregate([]float64{0, 1})
	assert.Equal(t, [2]float64{0, 1}, [2]float64{s.CILow, s.CIHigh})

	// {0, 0, 1}: the number of 1s drawn is Binomial(3, 1/3): P(0) = 8/27 =
	// 0.296 and P(3) = 1/27 = 0.037 > 0.025, so the interval is [0, 1].
	s = metrics.Aggregate([]float64{0, 0, 1})
	assert.Equal(t, [2]float64{0, 1}, [2]float64{s.CILow, s.CIHigh})

	// 1..10: mean 5.5, std √(82.5/9) = 3.028. The bootstrap distribution of
	// the mean is close to normal with standard error std·√((n−1)/n)/√n =
	// 2.872/3.162 = 0.908, so the interval is near 5.5 ± 1.96·0.908 =
	// [3.72, 7.28].
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	s = metrics.Aggregate(xs)
	assert.InDelta(t, 3.72, s.CILow, 0.15)
	assert.InDelta(t, 7.28, s.CIHigh, 0.15)
	assert.InDelta(t, math.Sqrt(82.5/9), s.Std, 1e-12)
	// Pinned: a change of generator, seed or resampling scheme changes
	// published intervals, and must show up here.
	assert.Equal(t, [2]float64{3.7, 7.3}, [2]float64{s.CILow, s.CIHigh})
}

func TestBootstrapIsReproducibleAndOrderFree(t *testing.T) {
	t.Parallel()
	xs := []float64{0.1, 0.9, 0.4, 0.4, 0.75, 0.3, 1, 0}
	a := metrics.Aggregate(xs)
	b := metrics.Aggregate(xs)
	assert.Equal(t, a, b, "the fixed seed gives the same interval every time")
	rev := make([]float64, len(xs))
	for i, x := range xs {
		rev[len(xs)-1-i] = x
	}
	assert.Equal(t, a, metrics.Aggregate(rev), "the order of the values does not matter")
	assert.Equal(t, []float64{0.1, 0.9, 0.4, 0.4, 0.75, 0.3, 1, 0}, xs, "the input is not modified")
	assert.Less(t, a.CILow, a.Mean)
	assert.Greater(t, a.CIHigh, a.Mean)
}

func TestAggregateResultsSkipsNonComputableTasks(t *testing.T) {
	t.Parallel()
	// Task 1: recall@1 = 1 (a first). Task 2: recall@1 = 0 (x first).
	// Task 3 has no ground truth and must not count as 0 or as 1.
	// Task 4 has timestamps, the others do not: ttfr_seconds is over 1 task.
	r1 := metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{})
	r2 := metrics.Compute(literal([]string{"a.go"}, read("x.go"), read("a.go")), metrics.Options{})
	r3 := metrics.Compute(literal(nil, read("a.go")), metrics.Options{})
	r4 := metrics.Compute(literal([]string{"a.go"}, timed(read("a.go"), 8, 100)), metrics.Options{})
	agg := metrics.AggregateResults([]*metrics.Result{r1, r2, r3, nil, r4})

	rec := agg["recall@1"]
	assert.Equal(t, 3, rec.N)
	assert.InDelta(t, 2.0/3, rec.Mean, 1e-12) // (1 + 0 + 1) / 3
	assert.Equal(t, 1.0, rec.Median)
	assert.Equal(t, 1, agg["ttfr_seconds"].N)
	assert.Equal(t, 8.0, agg["ttfr_seconds"].Mean)
	assert.InDelta(t, (1.0+0.5+1)/3, agg["mrr"].Mean, 1e-12, "MRR is the mean of RR")

	assert.Empty(t, metrics.AggregateResults([]*metrics.Result{r3}))
}

func TestAggregateAllAddsAWilsonIntervalToProportionsOnly(t *testing.T) {
	t.Parallel()
	// Hand-computed bounds, z = 1.959964, z² = 3.8414588:
	// 4 of 5, p = 0.8: (0.8 + z²/10 ∓ z·√(0.032 + z²/100)) / (1 + z²/5);
	// 3 of 10, p = 0.3: (0.3 + z²/20 ∓ z·√(0.021 + z²/400)) / (1 + z²/10);
	// 0 of 10: [0, z²/(10 + z²)]; 10 of 10: [10/(10 + z²), 1];
	// 2 of 3, p = 2/3: (2/3 + z²/6 ∓ z·√(2/27 + z²/36)) / (1 + z²/3).
	zeros, ones := make([]float64, 10), make([]float64, 10)
	for i := range ones {
		ones[i] = 1
	}
	tests := []struct {
		name   string
		metric string
		values []float64
		wilson bool
		lo, hi float64
	}{
		{"success@5 is a share of tasks with a hit", "success@5", []float64{1, 1, 0, 1, 1}, true, 0.3755346, 0.9637759},
		{"read.success@1 of 3 in 10", "read.success@1", []float64{0, 1, 0, 0, 1, 0, 0, 1, 0, 0}, true, 0.1077913, 0.6032219},
		{"acc@10 with no success has a lower bound of exactly 0", "acc@10", zeros, true, 0, 0.2775328},
		{"read.acc@3 with no failure has an upper bound of exactly 1", "read.acc@3", ones, true, 0.7224672, 1},
		{"symbol_acc@1 of 2 in 3", "symbol_acc@1", []float64{0, 1, 1}, true, 0.2076596, 0.9385081},
		{"steps_to_target that happens to be 0 or 1 is not a proportion", "steps_to_target", []float64{0, 1, 1}, false, 0, 0},
		{"edit_calls of 0 or 1 is a count, not a proportion", "edit_calls", []float64{1, 0, 1, 1}, false, 0, 0},
		{"recall@5 of 0 or 1 is a share within each task, not of tasks", "recall@5", []float64{1, 0, 1}, false, 0, 0},
		{"a proportion averaged over trials is not one outcome a task", "success@5", []float64{1, 0.5, 0}, false, 0, 0},
		{"a list without a metric name is not a proportion", "", []float64{1, 0, 1}, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := metrics.AggregateAll(map[string][]float64{tt.metric: tt.values})[tt.metric]
			assert.Equal(t, len(tt.values), s.N)
			if !tt.wilson {
				assert.Nil(t, s.WilsonLow)
				assert.Nil(t, s.WilsonHigh)
				return
			}
			require.NotNil(t, s.WilsonLow)
			require.NotNil(t, s.WilsonHigh)
			assert.InDelta(t, tt.lo, *s.WilsonLow, 1e-6)
			assert.InDelta(t, tt.hi, *s.WilsonHigh, 1e-6)
			if tt.lo == 0 {
				assert.Equal(t, 0.0, *s.WilsonLow, "exactly 0, not a rounding residue")
			}
			if tt.hi == 1 {
				assert.Equal(t, 1.0, *s.WilsonHigh, "exactly 1, not a rounding residue")
			}
		})
	}
}

func TestAggregateGivesNoWilsonIntervalWithoutAName(t *testing.T) {
	t.Parallel()
	// Values of 0 and 1 alone do not make a proportion: a reward or a
	// paired difference can be 0 or 1 on every task.
	s := metrics.Aggregate([]float64{1, 1, 0, 1, 1})
	assert.Nil(t, s.WilsonLow)
	assert.Nil(t, s.WilsonHigh)
}

func TestAggregateResultsGivesWilsonIntervalsByMetricName(t *testing.T) {
	t.Parallel()
	// Task 1 finds a.go at its first call, task 2 at its second: success@1
	// is 1 and 0, a proportion; recall@1 is 1 and 0 too, and edit_calls 0
	// and 0, and neither is.
	r1 := metrics.Compute(literal([]string{"a.go"}, read("a.go")), metrics.Options{})
	r2 := metrics.Compute(literal([]string{"a.go"}, read("x.go"), read("a.go")), metrics.Options{})
	agg := metrics.AggregateResults([]*metrics.Result{r1, r2, r1})
	require.NotNil(t, agg["success@1"].WilsonLow, "2 of 3 tasks succeeded")
	assert.InDelta(t, 0.2076596, *agg["success@1"].WilsonLow, 1e-6)
	for name, s := range agg {
		if d, ok := metrics.Define(name); !ok || !d.Proportion {
			assert.Nil(t, s.WilsonLow, "%s is not a proportion", name)
		}
	}
	require.Contains(t, agg, "edit_calls")
	assert.Nil(t, agg["edit_calls"].WilsonLow, "no edit in any task: 0, 0, 0 is not 0 successes of 3")
	assert.Nil(t, agg["recall@1"].WilsonLow, "recall@1 of 1, 0, 1 is a share within each task")
}
