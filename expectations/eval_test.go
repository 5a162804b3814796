package expectations

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// Three runs, two of which pass: the runs rule decides.
func TestTheRunsRuleCombinesThreeRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, runs string
		want       Status
		message    string
	}{
		{"every run must pass by default", "", Fail,
			"2 of 3 runs passed, required all 3: the expectation did not hold; run 3 (run-3.toolcalls.json): " +
				"semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)"},
		{"a pass rate of 0.6 needs 2 of 3", "runs: {min_pass_rate: 0.6}\n", Pass,
			"2 of 3 runs passed, required a pass rate ≥ 0.60 (2 of 3): the expectation held; run 3 (run-3.toolcalls.json): " +
				"semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)"},
		{"a pass rate of 0.7 needs 3 of 3", "runs: {min_pass_rate: 0.7}\n", Fail,
			"2 of 3 runs passed, required a pass rate ≥ 0.70 (3 of 3): the expectation did not hold; run 3 (run-3.toolcalls.json): " +
				"semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)"},
		{"at least 2 passes", "runs: {at_least: 2}\n", Pass,
			"2 of 3 runs passed, required at least 2: the expectation held; run 3 (run-3.toolcalls.json): " +
				"semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)"},
		{"at least 3 fails", "runs: {at_least: 3}\n", Fail,
			"2 of 3 runs passed, required at least 3: the expectation did not hold; run 3 (run-3.toolcalls.json): " +
				"semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, "traces: [../traces/runs/run-*.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n"+tt.runs+
				exp("", "index_usage", "min_semantic_ratio: 0.6")))
			assert.Equal(t, tt.want, r.Status)
			assert.Equal(t, tt.message, r.Message)
			assert.Equal(t, "2 of 3 runs passed", r.Measured)
			require.Len(t, r.Runs, 3)
			assert.Equal(t, []Status{Pass, Pass, Fail}, []Status{r.Runs[0].Status, r.Runs[1].Status, r.Runs[2].Status})
			assert.Equal(t, "testdata/traces/runs/run-1.toolcalls.json", r.Runs[0].Trace)
			assert.Equal(t, []string{
				"run 1 run-1.toolcalls.json: pass, semantic ratio = 0.67",
				"run 2 run-2.toolcalls.json: pass, semantic ratio = 0.67",
				"run 3 run-3.toolcalls.json: fail, semantic ratio = 0.00",
				// 2 of 3: pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2).
				"pass rate 0.67 (95% Wilson 0.21–0.94); pass@1 0.67, pass@2 1.00, pass@3 1.00; pass^1 0.67, pass^2 0.33, pass^3 0.00",
			}, r.Evidence)
		})
	}
}

func TestAFlakyExpectationIsReportedButNeverFails(t *testing.T) {
	t.Parallel()
	res := evalInline(t, grepFirst+`expectations:
  - type: index_usage
    flaky: true
    min_semantic_ratio: 0.6
  - type: tools
    must_call: [grep_search]
`)
	require.Len(t, res.Results, 2)
	flaky := res.Results[0]
	assert.Equal(t, Fail, flaky.Status, "the outcome is reported as it is")
	assert.True(t, flaky.Flaky)
	assert.False(t, flaky.Failed())
	assert.False(t, res.Failed())
}

func TestResultsFollowTheExpectationOrder(t *testing.T) {
	t.Parallel()
	res := evalInline(t, indexFirst+`expectations:
  - type: tools
    max_calls: 1
  - type: compiles
  - type: index_usage
    min_semantic_ratio: 0.5
`)
	var got []string
	for _, r := range res.Results {
		got = append(got, fmt.Sprintf("%s %s", r.Type, r.Status))
	}
	assert.Equal(t, []string{"tools fail", "compiles skipped", "index_usage pass"}, got)
	assert.True(t, res.Failed())
	assert.Equal(t, "inline", res.Name)
	assert.Len(t, res.Runs, 1)
}

func TestATraceThatCannotBeReadIsAnErrorNamingIt(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "format: atif\n"+exp(indexFirst, "tools", "max_calls: 3"))
	_, err := Evaluate(s, EvalOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index-first-then-edit.toolcalls.json")
	assert.Contains(t, err.Error(), inlineFile)
}

func TestCheckOneJudgesOneRun(t *testing.T) {
	t.Parallel()
	run, err := Measure("testdata/traces/index-first-then-edit.toolcalls.json", MeasureOptions{})
	require.NoError(t, err)
	reg := DefaultRegistry()
	tests := []struct {
		name string
		e    *Expectation
		want Status
		msg  string
	}{
		{"a threshold that holds passes", &Expectation{Type: "index_usage", Params: &IndexUsage{MinSemanticRatio: ptr(0.5)}}, Pass,
			"semantic ratio 0.67, required ≥ 0.50 (2 semantic of 3 semantic + file-level calls)"},
		{"a live type is skipped", &Expectation{Type: "tests_pass"}, Skipped,
			"tests_pass needs a live run (the worktree, the build, the tests); a trace cannot show it"},
		{"an unknown type fails", &Expectation{Type: "nope"}, Fail, `unknown expectation type "nope"`},
		{"missing params fail", &Expectation{Type: "tools"}, Fail, "tools has no parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckOne(tt.e, run, reg)
			assert.Equal(t, tt.want, got.Status)
			assert.Equal(t, tt.msg, got.Message)
		})
	}
}

func TestACheckThatPanicsFails(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	require.NoError(t, RegisterFunc(reg, "boom", "", func(*MaxEdits, *Run) Outcome { panic("no document") }))
	got := CheckOne(&Expectation{Type: "boom", Params: &MaxEdits{}}, &Run{}, reg)
	assert.Equal(t, Fail, got.Status)
	assert.Equal(t, "boom: the check panicked: no document", got.Message)
}

func TestEvaluateRunsWithoutRunsFailsJudgedExpectations(t *testing.T) {
	t.Parallel()
	s := mustParse(t, exp(indexFirst, "tools", "max_calls: 3"))
	res := EvaluateRuns(s, nil, EvalOptions{})
	r := only(t, res)
	assert.Equal(t, Fail, r.Status)
	assert.Empty(t, r.Runs)
}

// A trace file that holds several sessions needs trace_id; the error lists
// the sessions to choose from.
func TestATraceFileWithSeveralSessionsNeedsTraceID(t *testing.T) {
	t.Parallel()
	s, err := parseInline(t, "trace: ../traces/two-instances.openhands-output.jsonl\n"+exp("", "tools", "max_calls: 1"))
	require.NoError(t, err)
	_, err = Evaluate(s, EvalOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds 2 sessions (auth-1, auth-2)")
	assert.Contains(t, err.Error(), "name one with trace_id")

	s, err = parseInline(t, "trace: ../traces/two-instances.openhands-output.jsonl\ntrace_id: auth-3\n"+exp("", "tools", "max_calls: 1"))
	require.NoError(t, err)
	_, err = Evaluate(s, EvalOptions{})
	assert.ErrorContains(t, err, `no session "auth-3" among its 2 sessions (auth-1, auth-2)`)
}

// A trace that cannot be read is an error at the line that names it, which
// still unwraps to the reader's error.
func TestAnUnreadableTraceIsAnErrorWhereTheScenarioNamesIt(t *testing.T) {
	t.Parallel()
	s, err := Load("../testdata/check/badinput/unreadable-trace.yaml", LoadOptions{})
	require.NoError(t, err)
	_, err = Evaluate(s, EvalOptions{})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "../testdata/check/badinput/unreadable-trace.yaml:4:8: trace ../testdata/check/badinput/not-a-trace.json: not a known trace format"), err.Error())
	assert.Contains(t, err.Error(), "(format: tool-calls)", "the suggestion names the scenario key")
	var fe *trace.FormatError
	assert.True(t, errors.As(err, &fe), "the reader's error is wrapped")
}

// The estimator rules judge the same three runs (2 passed) by pass@k,
// pass^k or the Wilson lower bound of the pass rate, computed by hand:
// pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 =
// 0, and the 95% Wilson interval of 2/3 is 0.2077–0.9385.
func TestTheRunsRuleTakesPassAtKPassHatKAndWilson(t *testing.T) {
	t.Parallel()
	tests := []struct {
		runs     string
		want     Status
		measured string
		message  string
	}{
		{"runs: {k: 2, min_pass_at_k: 0.9}\n", Pass, "pass@2 1.00 (2 of 3 runs passed)",
			"pass@2 1.00 (2 of 3 runs passed), required pass@2 ≥ 0.90: the expectation held"},
		{"runs: {k: 2, min_pass_hat_k: 0.3}\n", Pass, "pass^2 0.33 (2 of 3 runs passed)",
			"pass^2 0.33 (2 of 3 runs passed), required pass^2 ≥ 0.30: the expectation held"},
		{"runs: {k: 2, min_pass_hat_k: 0.5}\n", Fail, "pass^2 0.33 (2 of 3 runs passed)",
			"pass^2 0.33 (2 of 3 runs passed), required pass^2 ≥ 0.50: the expectation did not hold"},
		{"runs: {k: 3, min_pass_hat_k: 0.1}\n", Fail, "pass^3 0.00 (2 of 3 runs passed)",
			"required pass^3 ≥ 0.10: the expectation did not hold"},
		{"runs: {min_wilson_low: 0.2}\n", Pass, "95% Wilson lower bound 0.21 (2 of 3 runs passed)",
			"required a 95% Wilson lower bound of the pass rate ≥ 0.20: the expectation held"},
		{"runs: {min_wilson_low: 0.3}\n", Fail, "95% Wilson lower bound 0.21 (2 of 3 runs passed)",
			"the expectation did not hold"},
	}
	for _, tt := range tests {
		t.Run(tt.runs, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, "traces: [../traces/runs/run-*.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n"+tt.runs+
				exp("", "index_usage", "min_semantic_ratio: 0.6")))
			assert.Equal(t, tt.want, r.Status)
			assert.Equal(t, tt.measured, r.Measured)
			assert.Contains(t, r.Message, tt.message)
			require.NotNil(t, r.PassRate)
			assert.Equal(t, 2, r.PassRate.Passed)
			assert.InDelta(t, 1.0/3, r.PassRate.PassHat[1], 1e-12)
		})
	}
}

func TestTheEstimatorRulesAreCheckedWhenLoaded(t *testing.T) {
	t.Parallel()
	head := "traces: [../traces/runs/run-*.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n"
	tests := []struct{ runs, err string }{
		{"runs: {min_pass_at_k: 0.9}\n", "runs: min_pass_at_k needs k, the number of runs drawn"},
		{"runs: {k: 2, min_pass_rate: 0.5}\n", "runs: k goes with min_pass_at_k or min_pass_hat_k, not min_pass_rate"},
		{"runs: {k: 2, min_pass_at_k: 0.9, min_wilson_low: 0.5}\n", "runs: give one rule, not min_pass_at_k and min_wilson_low"},
		{"runs: {k: 4, min_pass_at_k: 0.9}\n", "runs.k: pass@4 and pass^4 draw 4 runs but the scenario has 3 trace(s)"},
		{"runs: {min_wilson_low: 1.5}\n", "min_wilson_low"},
	}
	for _, tt := range tests {
		t.Run(tt.runs, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, head+tt.runs+exp("", "index_usage", "min_semantic_ratio: 0.6"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
