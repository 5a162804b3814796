package retrievaltest

import (
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/retrievaltest/internal/judge"
)

// TestingT is what the assertion helpers need of a test: *testing.T,
// testify's mocks and godog.T(ctx) all satisfy it. When the value also has
// Helper(), it is called so that failures point at the caller's line; when
// it has FailNow(), it is called after a usage error (a nil run or result),
// where going on would only add noise. Logf, when present, receives the
// outcome of flaky and skipped expectations.
type TestingT interface {
	Errorf(format string, args ...any)
}

type helperT interface{ Helper() }

type failNowT interface{ FailNow() }

type logT interface {
	Logf(format string, args ...any)
}

func markHelper(t TestingT) {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
}

// usageError reports a misuse of a helper and stops the test when it can.
func usageError(t TestingT, format string, args ...any) bool {
	markHelper(t)
	t.Errorf("retrievaltest: "+format, args...)
	if f, ok := t.(failNowT); ok {
		f.FailNow()
	}
	return false
}

// AssertScenario reports every failed expectation of res on t, one Errorf
// each with the measured value, the threshold, the evidence and the
// expectation's file:line:col, and reports whether the scenario passed.
// Flaky failures and skipped expectations are logged (when t has Logf),
// never failed.
func AssertScenario(t TestingT, res *expectations.ScenarioResult) bool {
	markHelper(t)
	if res == nil {
		return usageError(t, "AssertScenario: nil scenario result")
	}
	ok := true
	for _, r := range res.Results {
		ok = AssertResult(t, r) && ok
	}
	return ok
}

// AssertResult reports one expectation's result on t and whether it did
// not fail the scenario (it passed, was skipped, or is flaky).
func AssertResult(t TestingT, r *expectations.Result) bool {
	markHelper(t)
	if r == nil {
		return usageError(t, "AssertResult: nil result")
	}
	if r.Failed() {
		t.Errorf("%s", judge.Result(r))
		return false
	}
	if l, ok := t.(logT); ok && (r.Flaky && r.Status == expectations.Fail || r.Status == expectations.Skipped) {
		prefix := "skipped"
		if r.Status == expectations.Fail {
			prefix = "flaky, not failing"
		}
		l.Logf("%s:\n%s", prefix, judge.Result(r))
	}
	return true
}

// AssertExpectation checks one expectation against one run with the types
// of reg (nil means expectations.DefaultRegistry()) and reports a failure
// on t. An expectation that cannot be judged on the run (a metric with no
// value because the run has no ground truth, a live-run type) fails too:
// the caller asked for it explicitly.
func AssertExpectation(t TestingT, reg *expectations.Registry, run *expectations.Run, e *expectations.Expectation) bool {
	markHelper(t)
	if run == nil {
		return usageError(t, "nil run")
	}
	if e == nil {
		return usageError(t, "nil expectation")
	}
	if err := judge.Check(reg, run, e); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// AssertSemanticRatio checks that at least min of the run's semantic and
// file-level tool calls were semantic (index_usage min_semantic_ratio;
// min is a fraction: 0.6 for 60%).
func AssertSemanticRatio(t TestingT, run *expectations.Run, min float64) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.SemanticRatio(min))
}

// AssertStepsToTarget checks that the run touched a ground-truth file (or,
// without ground truth, edited a file) within max tool calls
// (index_usage max_steps_to_target).
func AssertStepsToTarget(t TestingT, run *expectations.Run, max int) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.StepsToTarget(max))
}

// AssertMetric checks that the run's metric name ("recall@5", "read.mrr",
// "line_coverage", any name of metrics.Definitions) is at least min.
func AssertMetric(t TestingT, run *expectations.Run, name string, min float64) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.MetricBound(name, &min, nil))
}

// AssertMetricAtMost checks that the run's metric name is at most max.
func AssertMetricAtMost(t TestingT, run *expectations.Run, name string, max float64) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.MetricBound(name, nil, &max))
}

// AssertPattern checks that the behaviour pattern name ("fishing",
// "guessing", "direct") occurred in the run.
func AssertPattern(t TestingT, run *expectations.Run, name string) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.Patterns(nil, []string{name}))
}

// AssertNoPattern checks that the behaviour pattern name did not occur in
// the run.
func AssertNoPattern(t TestingT, run *expectations.Run, name string) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.Patterns([]string{name}, nil))
}

// AssertCalls checks that the run called at least one tool whose name
// matches tool, a name or a glob such as "mcp__sourcegraph__*".
func AssertCalls(t TestingT, run *expectations.Run, tool string) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.Tools([]string{tool}, nil))
}

// AssertNeverCalls checks that the run called no tool whose name matches
// tool, a name or a glob.
func AssertNeverCalls(t TestingT, run *expectations.Run, tool string) bool {
	markHelper(t)
	return AssertExpectation(t, nil, run, judge.Tools(nil, []string{tool}))
}
