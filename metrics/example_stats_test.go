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

// SummarizePasses judges repeated runs of one task: 3 of 4 runs passed.
// pass@2 = 1 − C(1,2)/C(4,2) = 1 (any 2 runs hold a pass); pass^2 =
// C(3,2)/C(4,2) = 0.5 (both pass half the time); the Wilson interval shows
// how little 4 runs say about the pass rate.
func ExampleSummarizePasses() {
	pr, _ := metrics.SummarizePasses(4, 3)
	fmt.Printf("pass rate %.2f, 95%% Wilson [%.2f, %.2f]\n", pr.Rate, pr.WilsonLow, pr.WilsonHigh)
	for k := 1; k <= pr.Runs; k++ {
		fmt.Printf("k=%d pass@k %.2f pass^k %.2f\n", k, pr.PassAt[k-1], pr.PassHat[k-1])
	}
	// Output:
	// pass rate 0.75, 95% Wilson [0.30, 0.95]
	// k=1 pass@k 0.75 pass^k 0.75
	// k=2 pass@k 1.00 pass^k 0.50
	// k=3 pass@k 1.00 pass^k 0.25
	// k=4 pass@k 1.00 pass^k 0.00
}

// AccuracyAt asks for every relevant file in the top k (localization
// accuracy); SuccessAt for one.
func ExampleAccuracyAt() {
	rel := metrics.Judgments{"pkg/auth/token.go": 1, "pkg/auth/errors.go": 1}
	ranked := []string{"pkg/auth/token.go", "pkg/auth/session.go", "pkg/auth/errors.go"}
	for _, k := range []int{1, 3} {
		fmt.Printf("k=%d success %.0f acc %.0f\n", k, metrics.SuccessAt(ranked, rel, k, 1), metrics.AccuracyAt(ranked, rel, k, 1))
	}
	// Output:
	// k=1 success 1 acc 0
	// k=3 success 1 acc 1
}
