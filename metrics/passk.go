package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Pass rates over repeated runs of one task.
//
// With n runs of which c passed, the unbiased estimators of Chen et al.
// (2021, "Evaluating Large Language Models Trained on Code") and of the
// τ-bench authors (Yao et al., 2024) are
//
//	pass@k = 1 − C(n−c, k) / C(n, k)   the chance that at least one of k runs drawn without replacement passes
//	pass^k = C(c, k) / C(n, k)         the chance that all k of them pass
//
// for 1 ≤ k ≤ n. pass@1 and pass^1 are both c/n. The Wilson score interval
// bounds the pass rate c/n itself; unlike the normal approximation it stays
// within [0, 1] and is not empty at 0 or n passes, which matters at the
// handful of runs an agent scenario has.

// WilsonZ95 is the normal quantile of a two-sided 95% interval.
const WilsonZ95 = 1.959963984540054

// ErrPassCounts is wrapped by the errors of PassAtK and PassHatK for
// counts that do not fit 0 ≤ c ≤ n and 1 ≤ k ≤ n.
var ErrPassCounts = errors.New("impossible pass counts")

func checkPassCounts(n, c, k int) error {
	if n < 1 || c < 0 || c > n || k < 1 || k > n {
		return fmt.Errorf("%w: want 0 ≤ passed ≤ runs and 1 ≤ k ≤ runs, got runs %d, passed %d, k %d", ErrPassCounts, n, c, k)
	}
	return nil
}

// PassAtK returns the unbiased estimate of pass@k from n runs of which c
// passed: 1 − C(n−c, k)/C(n, k). It is computed as the product
// 1 − Π_{i=n−c+1..n} (1 − k/i), which needs no binomial coefficient and so
// neither overflows nor loses precision at large n.
func PassAtK(n, c, k int) (float64, error) {
	if err := checkPassCounts(n, c, k); err != nil {
		return 0, err
	}
	if n-c < k {
		return 1, nil // every draw of k holds a pass
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p, nil
}

// PassHatK returns the unbiased estimate of pass^k from n runs of which c
// passed: C(c, k)/C(n, k), the chance that k runs drawn without
// replacement all pass, computed as Π_{i=0..k−1} (c−i)/(n−i).
func PassHatK(n, c, k int) (float64, error) {
	if err := checkPassCounts(n, c, k); err != nil {
		return 0, err
	}
	if c < k {
		return 0, nil
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return p, nil
}

// WilsonInterval returns the Wilson score interval of the proportion
// c/n at the normal quantile z (WilsonZ95 for 95%):
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  p̂ = c/n
//
// clamped to [0, 1]. With no success (c = 0) the lower bound is exactly
// 0, and with no failure (c = n) the upper bound exactly 1: the formula
// gives them in exact arithmetic, but in floating point it leaves 5e-17 at
// 0 of 3 and 0.9999999999999999 at 10 of 10, bounds that would exclude the
// very value observed. With n = 0 it returns [0, 1]: nothing is known.
func WilsonInterval(c, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(c) / nf
	z2 := z * z
	center := p + z2/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	den := 1 + z2/nf
	lo, hi = max(0, (center-half)/den), min(1, (center+half)/den)
	if c <= 0 {
		lo = 0
	}
	if c >= n {
		hi = 1
	}
	return lo, hi
}

// PassRate summarizes the outcomes of repeated runs of one task.
type PassRate struct {
	Runs   int     `json:"runs"`
	Passed int     `json:"passed"`
	Rate   float64 `json:"pass_rate"`
	// WilsonLow and WilsonHigh bound the 95% Wilson score interval of Rate.
	WilsonLow  float64 `json:"wilson_low"`
	WilsonHigh float64 `json:"wilson_high"`
	// PassAt and PassHat hold pass@k and pass^k for k = 1 … Runs, at
	// index k − 1.
	PassAt  []float64 `json:"pass_at_k"`
	PassHat []float64 `json:"pass_hat_k"`
}

// SummarizePasses returns the pass rate of passed out of runs, with its
// Wilson interval, pass@k and pass^k at every k from 1 to runs. It returns
// ErrPassCounts when passed is not between 0 and runs, or runs is below 1.
func SummarizePasses(runs, passed int) (PassRate, error) {
	if err := checkPassCounts(runs, passed, 1); err != nil {
		return PassRate{}, err
	}
	pr := PassRate{Runs: runs, Passed: passed, Rate: float64(passed) / float64(runs)}
	pr.WilsonLow, pr.WilsonHigh = WilsonInterval(passed, runs, WilsonZ95)
	for k := 1; k <= runs; k++ {
		at, _ := PassAtK(runs, passed, k)
		hat, _ := PassHatK(runs, passed, k)
		pr.PassAt = append(pr.PassAt, at)
		pr.PassHat = append(pr.PassHat, hat)
	}
	return pr, nil
}
