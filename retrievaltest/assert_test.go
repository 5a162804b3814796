package retrievaltest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

// recorder is a TestingT that records what the helpers report.
type recorder struct {
	errors  []string
	logs    []string
	helpers int
	stopped bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper()  { r.helpers++ }
func (r *recorder) FailNow() { r.stopped = true }

// errorfOnly is the least a TestingT may be.
type errorfOnly struct{ errors []string }

func (e *errorfOnly) Errorf(format string, args ...any) {
	e.errors = append(e.errors, fmt.Sprintf(format, args...))
}

const (
	fixTokenExpiry = "../testdata/examples/fix-token-expiry.claude.jsonl"
	fixTokenTruth  = "../testdata/examples/fix-token-expiry.groundtruth.json"
	addCoupon      = "../testdata/examples/add-coupon-support.aura.toolcalls.json"
	fishingFive    = "../testdata/index/fishing-five-file-level-calls.aura.toolcalls.json"
	directEdit     = "../testdata/index/direct-search-then-edit.aura.toolcalls.json"
)

// measure measures a trace for a test, with the ground truth of spec
// ("" for none).
func measure(t *testing.T, trace, spec string) *expectations.Run {
	t.Helper()
	var truth *groundtruth.Truth
	if spec != "" {
		var err error
		truth, err = groundtruth.Load(spec)
		require.NoError(t, err)
	}
	run, err := expectations.Measure(trace, expectations.MeasureOptions{Truth: truth})
	require.NoError(t, err)
	return run
}

func TestAssertHelpers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		trace  string
		truth  string
		assert func(retrievaltest.TestingT, *expectations.Run) bool
		// want lists what the failure message must hold; nil means the
		// assertion holds.
		want []string
	}{
		{
			name: "an index-first agent meets a 60% semantic ratio", trace: addCoupon,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertSemanticRatio(t, r, 0.6)
			},
		},
		{
			name: "a fishing agent fails a 60% semantic ratio with 0.00 measured", trace: fishingFive,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertSemanticRatio(t, r, 0.6)
			},
			want: []string{"index_usage", "measured:  semantic ratio = 0.00", "0.60"},
		},
		{
			name: "the first search reaches the file to fix in one step", trace: fixTokenExpiry, truth: fixTokenTruth,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertStepsToTarget(t, r, 1)
			},
		},
		{
			name: "an edit at the sixth call fails at most three steps", trace: fishingFive,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertStepsToTarget(t, r, 3)
			},
			want: []string{"index_usage", "6", "3"},
		},
		{
			name: "recall@5 of the expiry fix is 1", trace: fixTokenExpiry, truth: fixTokenTruth,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertMetric(t, r, "recall@5", 1)
			},
		},
		{
			name: "recall@1 of the expiry fix is only 0.5", trace: fixTokenExpiry, truth: fixTokenTruth,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertMetric(t, r, "recall@1", 0.8)
			},
			want: []string{"retrieval", "recall@1", "0.50", "0.80"},
		},
		{
			name: "a metric that needs ground truth fails without it rather than passing", trace: fixTokenExpiry,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertMetric(t, r, "recall@5", 0.8)
			},
			want: []string{"retrieval", "recall@5"},
		},
		{
			name: "at most bounds a count from above", trace: fishingFive,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertMetricAtMost(t, r, "file_level_calls", 2)
			},
			want: []string{"retrieval", "file_level_calls", "5", "2"},
		},
		{
			name: "a search then an edit is direct", trace: directEdit,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertPattern(t, r, "direct")
			},
		},
		{
			name: "five file-level calls fail a forbidden fishing with their steps as evidence", trace: fishingFive,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertNoPattern(t, r, "fishing")
			},
			want: []string{"patterns", "fishing", "evidence:"},
		},
		{
			name: "a run without fishing fails a required fishing", trace: directEdit,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertPattern(t, r, "fishing")
			},
			want: []string{"patterns", "fishing"},
		},
		{
			name: "a glob matches the Sourcegraph tools", trace: fixTokenExpiry,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertCalls(t, r, "mcp__sourcegraph__*")
			},
		},
		{
			name: "a forbidden tool that was called fails with the call as evidence", trace: fixTokenExpiry,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertNeverCalls(t, r, "Grep")
			},
			want: []string{"tools", "Grep", "evidence:"},
		},
		{
			name: "a required tool that was never called fails", trace: addCoupon,
			assert: func(t retrievaltest.TestingT, r *expectations.Run) bool {
				return retrievaltest.AssertCalls(t, r, "mcp__sourcegraph__*")
			},
			want: []string{"tools", "mcp__sourcegraph__*"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := measure(t, tt.trace, tt.truth)
			rec := &recorder{}
			ok := tt.assert(rec, run)
			assert.Positive(t, rec.helpers, "Helper was not called")
			assert.False(t, rec.stopped, "FailNow is for usage errors only")
			if tt.want == nil {
				assert.True(t, ok)
				assert.Empty(t, rec.errors)
				return
			}
			assert.False(t, ok)
			require.Len(t, rec.errors, 1)
			msg := rec.errors[0]
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
			assert.Contains(t, msg, "measured:")
			assert.Contains(t, msg, "threshold:")
		})
	}
}

func TestAssertHelpersNeedOnlyErrorf(t *testing.T) {
	t.Parallel()
	run := measure(t, fishingFive, "")
	var e errorfOnly
	assert.False(t, retrievaltest.AssertSemanticRatio(&e, run, 0.6))
	assert.True(t, retrievaltest.AssertNoPattern(&e, measure(t, directEdit, ""), "fishing"))
	require.Len(t, e.errors, 1)
	assert.Contains(t, e.errors[0], "index_usage")
}

func TestAssertHelpersStopOnUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func(retrievaltest.TestingT) bool
		want string
	}{
		{"a nil run", func(t retrievaltest.TestingT) bool { return retrievaltest.AssertSemanticRatio(t, nil, 0.6) }, "nil run"},
		{"a nil scenario result", func(t retrievaltest.TestingT) bool { return retrievaltest.AssertScenario(t, nil) }, "nil scenario result"},
		{"a nil result", func(t retrievaltest.TestingT) bool { return retrievaltest.AssertResult(t, nil) }, "nil result"},
		{"a nil expectation", func(t retrievaltest.TestingT) bool {
			return retrievaltest.AssertExpectation(t, nil, &expectations.Run{}, nil)
		}, "nil expectation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			assert.False(t, tt.call(rec))
			assert.True(t, rec.stopped, "FailNow was not called")
			require.Len(t, rec.errors, 1)
			assert.Contains(t, rec.errors[0], tt.want)
		})
	}
}

func TestAssertExpectationWithAUserType(t *testing.T) {
	t.Parallel()
	type maxCalls struct {
		Max int `yaml:"max" doc:"most tool calls"`
	}
	reg := expectations.DefaultRegistry()
	require.NoError(t, expectations.RegisterFunc(reg, "few_calls", "the run makes few calls",
		func(p *maxCalls, run *expectations.Run) expectations.Outcome {
			n := len(run.Session.Calls)
			o := expectations.Outcome{Status: expectations.Pass, Measured: fmt.Sprint(n), Threshold: fmt.Sprintf("≤ %d", p.Max)}
			if n > p.Max {
				o.Status, o.Message = expectations.Fail, fmt.Sprintf("%d calls, more than %d", n, p.Max)
			}
			return o
		}))
	run := measure(t, fishingFive, "")
	rec := &recorder{}
	e := &expectations.Expectation{Type: "few_calls", Params: &maxCalls{Max: 3}}
	assert.False(t, retrievaltest.AssertExpectation(rec, reg, run, e))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "few_calls: 6 calls, more than 3")
	assert.Contains(t, rec.errors[0], "threshold: ≤ 3")
}

func TestAssertScenario(t *testing.T) {
	t.Parallel()
	results, err := retrievaltest.Check("../scenarios/fix-discount-rounding.yaml", "../testdata/gate/budget.yaml")
	require.NoError(t, err)
	require.Len(t, results, 2)

	t.Run("a flaky failure is logged and does not fail", func(t *testing.T) {
		t.Parallel()
		rec := &recorder{}
		assert.True(t, retrievaltest.AssertScenario(rec, results[0]))
		assert.Empty(t, rec.errors)
		require.NotEmpty(t, rec.logs)
		assert.Contains(t, strings.Join(rec.logs, "\n"), "flaky")
	})
	t.Run("a failure names the scenario file and position", func(t *testing.T) {
		t.Parallel()
		rec := &recorder{}
		assert.False(t, retrievaltest.AssertScenario(rec, results[1]))
		require.Len(t, rec.errors, 1)
		assert.Contains(t, rec.errors[0], "../testdata/gate/budget.yaml:")
		assert.Contains(t, rec.errors[0], "budget: ")
	})
}
