package metrics_test

import (
	"fmt"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Aggregate summarizes one figure over tasks: the bootstrap is seeded, so
// the interval is the same on every run.
func ExampleAggregate() {
	recall := []float64{0.2, 0.4, 0.6, 0.8, 1.0}
	s := metrics.Aggregate(recall)
	fmt.Printf("n %d, mean %.2f, median %.2f, std %.4f, 95%% CI [%.2f, %.2f]\n", s.N, s.Mean, s.Median, s.Std, s.CILow, s.CIHigh)
	// Output:
	// n 5, mean 0.60, median 0.60, std 0.3162, 95% CI [0.36, 0.84]
}

// WilcoxonSignedRank tests paired differences between two configurations
// (candidate minus baseline, one per task). Five tasks that all improved
// give W+ = 1+2+3+4+5 = 15 and, from the exact distribution, a two-sided p
// of 2/2⁵ = 0.0625: five tasks cannot show significance at 0.05.
func ExampleWilcoxonSignedRank() {
	diffs := []float64{0.10, 0.20, 0.05, 0.30, 0.15, 0}
	w := metrics.WilcoxonSignedRank(diffs)
	fmt.Printf("n %d (zeros dropped: %d), W+ %.0f, W- %.0f, p %.4f, exact %t\n", w.N, w.Zeros, w.WPlus, w.WMinus, w.P, w.Exact)
	// Output:
	// n 5 (zeros dropped: 1), W+ 15, W- 0, p 0.0625, exact true
}
