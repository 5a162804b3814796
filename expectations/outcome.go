package expectations

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// check is one threshold of an expectation, judged on one run. A
// validator adds one per threshold it was given and turns them into an
// Outcome with checks.outcome, so that every type words its messages the
// same way:
//
//	semantic ratio measured 0.45, required ≥ 0.60 (9 semantic of 20 …)
type check struct {
	name      string
	measured  string
	threshold string
	ok        bool
	// detail explains the figure (counts behind a ratio, the step that
	// decided it).
	detail string
	// missing says why there is no figure; the check then fails.
	missing string
}

func (c check) sentence() string {
	var s string
	switch {
	case c.missing != "":
		return fmt.Sprintf("%s has no figure (%s), required %s", c.name, c.missing, c.threshold)
	case c.ok:
		s = fmt.Sprintf("%s %s, required %s", c.name, c.measured, c.threshold)
	default:
		s = fmt.Sprintf("%s measured %s, required %s", c.name, c.measured, c.threshold)
	}
	if c.detail != "" {
		s += " (" + c.detail + ")"
	}
	return s
}

type checks struct {
	list     []check
	evidence []string
}

func (cs *checks) add(c check) { cs.list = append(cs.list, c) }

func (cs *checks) evidenceOf(items ...string) {
	for _, it := range items {
		if it != "" && !slices.Contains(cs.evidence, it) {
			cs.evidence = append(cs.evidence, it)
		}
	}
}

// outcome combines the checks: the expectation fails when any check fails,
// and its message then names the failed checks only. The measured value
// names each figure ("recall@5 = 0.00"), so that a table cell says what
// was measured; the threshold names them too when there are several. A
// figure that is n/a has its reason first in the evidence.
func (cs *checks) outcome() Outcome {
	o := Outcome{Status: Pass}
	var measured, thresholds, failed, all []string
	for _, c := range cs.list {
		m := c.measured
		if c.missing != "" {
			m = "n/a"
			o.Evidence = append(o.Evidence, c.name+" is n/a: "+c.missing)
		}
		measured = append(measured, c.name+" = "+m)
		if len(cs.list) > 1 {
			thresholds = append(thresholds, c.name+" "+c.threshold)
		} else {
			thresholds = []string{c.threshold}
		}
		all = append(all, c.sentence())
		if !c.ok || c.missing != "" {
			o.Status = Fail
			failed = append(failed, c.sentence())
		}
	}
	o.Evidence = append(o.Evidence, cs.evidence...)
	o.Measured = strings.Join(measured, "; ")
	o.Threshold = strings.Join(thresholds, "; ")
	if o.Status == Fail {
		o.Message = strings.Join(failed, "; ")
	} else {
		o.Message = strings.Join(all, "; ")
	}
	return o
}

// fail is an outcome with no figure at all.
func fail(format string, args ...any) Outcome {
	return Outcome{Status: Fail, Measured: "n/a", Message: fmt.Sprintf(format, args...)}
}

// numberCheck compares a figure with a lower or upper bound. v nil means
// the figure is missing, and why says why.
func numberCheck(name string, v *float64, lo, hi *float64, ratio bool, why string) check {
	c := check{name: name, threshold: boundText(lo, hi, ratio)}
	if v == nil {
		c.missing = why
		return c
	}
	c.ok = (lo == nil || *v >= *lo) && (hi == nil || *v <= *hi)
	c.measured = measuredText(*v, lo, hi, ratio, c.ok)
	return c
}

func boundText(lo, hi *float64, ratio bool) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("in [%s, %s]", thresholdText(*lo, ratio), thresholdText(*hi, ratio))
	case lo != nil:
		return "≥ " + thresholdText(*lo, ratio)
	case hi != nil:
		return "≤ " + thresholdText(*hi, ratio)
	}
	return "any"
}

// thresholdText writes a threshold exactly as given (0.625 stays 0.625), a
// ratio with at least two decimals so that it lines up with the measure.
func thresholdText(x float64, ratio bool) string {
	s := formatNumber(x)
	if !ratio {
		return s
	}
	if i := strings.IndexByte(s, '.'); i < 0 {
		return s + ".00"
	} else if len(s)-i-1 < 2 {
		return s + strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

// measuredText writes a figure with two decimals, or more when two would
// make a failing figure print the same as its bound ("0.60, required ≥
// 0.60" would read as a pass).
func measuredText(v float64, lo, hi *float64, ratio, ok bool) string {
	if !ratio && v == math.Trunc(v) {
		return formatNumber(v)
	}
	for prec := 2; prec <= 6; prec++ {
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if ok {
			return s
		}
		r, _ := strconv.ParseFloat(s, 64)
		if (lo == nil || r != *lo) && (hi == nil || r != *hi) {
			return s
		}
	}
	return formatNumber(v)
}

// formatNumber writes a number as briefly as it reads exactly: 0.6, 3,
// 0.585.
func formatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// stepsText is "step 3" or "steps 1–5, 8" for 0-based step indices: every
// message numbers steps from 1 (see metrics.StepsText).
func stepsText(steps []int) string { return metrics.StepsText(steps) }

func plural1(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func ptr[T any](v T) *T { return &v }

func intPtrToFloat[T int | int64](p *T) *float64 {
	if p == nil {
		return nil
	}
	return ptr(float64(*p))
}
