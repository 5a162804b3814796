package steps_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cucumber/godog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/retrievaltest/steps"
)

// runFeature runs one in-memory feature file, as if it were in this
// folder, and returns godog's exit status and output.
func runFeature(t *testing.T, opts []steps.Options, lines ...string) (int, string) {
	t.Helper()
	feature := "Feature: steps\n  Scenario: one\n    " + strings.Join(lines, "\n    ") + "\n"
	var out bytes.Buffer
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc, opts...) },
		Options: &godog.Options{
			Format:          "pretty",
			NoColors:        true,
			Strict:          true,
			Output:          &out,
			FeatureContents: []godog.Feature{{Name: "steps.feature", Contents: []byte(feature)}},
		},
	}
	return suite.Run(), out.String()
}

func TestSteps(t *testing.T) {
	t.Parallel()
	const (
		coupon       = `Given the trace "../../testdata/examples/add-coupon-support.aura.toolcalls.json"`
		expiry       = `Given the trace "../../testdata/examples/fix-token-expiry.claude.jsonl"`
		expiryTruth  = `And the ground truth from "../../testdata/examples/fix-token-expiry.groundtruth.json"`
		fishing      = `Given the trace "../../testdata/index/fishing-five-file-level-calls.claude.jsonl"`
		direct       = `Given the trace "../../testdata/index/direct-search-then-edit.claude.jsonl"`
		knownSymbol  = `Given the trace "../../testdata/index/guessing-grep-for-known-symbol.claude.jsonl"`
		symbols      = `And the index symbols from "../../testdata/scenarios/auth.symbols"`
		couponTruth  = "And the ground truth files:\n      | src/Orders/OrderService.cs |"
		tokenTruth   = "And the ground truth files:\n      | pkg/auth/token.go |"
		noCWD        = `Given the trace "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json"`
		gradedHeader = "And the ground truth files:\n      | file | grade |\n      | pkg/auth/token.go | 2 |\n      | pkg/auth/errors.go | 0 |"
	)
	tests := []struct {
		name  string
		steps []string
		// want lists what the output must hold; a failing case names
		// the measured value and the threshold.
		want     []string
		wantFail bool
	}{
		{name: "a semantic ratio as a percentage", steps: []string{coupon, `And the taxonomy profile "aura"`, "When the trace is measured", "Then the semantic tool ratio is at least 60%"}},
		{name: "a semantic ratio as a fraction", steps: []string{coupon, "Then the semantic tool ratio is at least 0.75"}},
		{name: "a semantic ratio below the threshold fails with both figures", steps: []string{fishing, "Then the semantic tool ratio is at least 60%"}, wantFail: true, want: []string{"0.00", "0.60", "measured:", "threshold:"}},
		{name: "a ratio over 100% is refused", steps: []string{coupon, "Then the semantic tool ratio is at least 60"}, wantFail: true, want: []string{"write 60% or 0.6"}},
		{name: "steps to a relevant file from a table of ground truth", steps: []string{coupon, couponTruth, "Then the agent reaches a relevant file within 1 step"}},
		{name: "steps to a relevant file beyond the limit fail", steps: []string{fishing, "Then the agent reaches a relevant file within 3 steps"}, wantFail: true, want: []string{"6", "≤ 3"}},
		{name: "any metric at least a threshold", steps: []string{expiry, expiryTruth, "Then recall@5 is at least 0.8", "And read.mrr is at least 100%"}},
		{name: "a metric under its threshold fails with both figures", steps: []string{expiry, expiryTruth, "Then recall@1 is at least 0.8"}, wantFail: true, want: []string{"recall@1", "0.50", "0.80"}},
		{name: "any metric at most a threshold", steps: []string{fishing, "Then semantic_ratio is at most 0", "And steps_to_target is at most 6"}},
		{name: "an unknown metric is an error, not a pass", steps: []string{expiry, "Then recal@5 is at least 0.8"}, wantFail: true, want: []string{`unknown metric "recal@5"; did you mean recall@5?`}},
		{name: "graded ground truth in a table with a header", steps: []string{expiry, gradedHeader, "Then recall@5 is at least 1", "And num_rel is at most 1"}},
		{name: "not fishing and working directly", steps: []string{direct, "Then the agent is not fishing", "And the agent works directly", `And the pattern "direct" is detected`}},
		{name: "fishing where forbidden fails with its steps", steps: []string{fishing, "Then the agent is not fishing"}, wantFail: true, want: []string{"fishing", "evidence:"}},
		{name: "a fishing agent is fishing", steps: []string{fishing, "Then the agent is fishing", `And the pattern "direct" is not detected`}},
		{name: "grepping a symbol the index knows is guessing", steps: []string{knownSymbol, symbols, "Then the agent is guessing"}},
		{name: "an unknown pattern is an error", steps: []string{direct, `Then the pattern "wandering" is detected`}, wantFail: true, want: []string{`unknown pattern "wandering"`}},
		{name: "tool calls by glob", steps: []string{expiry, `Then the agent calls "mcp__sourcegraph__*"`, `And the agent calls "Grep" at most 1 time`}},
		{name: "a forbidden tool fails", steps: []string{expiry, `Then the agent never calls "Grep"`}, wantFail: true, want: []string{"Grep"}},
		{name: "a call count over its bound fails", steps: []string{fishing, `Then the agent calls "Read" at most 1 time`}, wantFail: true, want: []string{"Read"}},
		{name: "a scenario file's expectations of one type", steps: []string{`Then the "index_usage" expectations of scenario "../../scenarios/add-coupon-support.yaml" pass`}},
		{name: "a whole scenario file", steps: []string{`Then the scenario "../../scenarios/search-then-edit.yaml" passes`}},
		{name: "a gate scenario's expectations fail with their file and position", steps: []string{`Then the "index_usage" expectations of scenario "../../testdata/gate/index-usage.yaml" pass`}, wantFail: true, want: []string{"index-usage.yaml:", "0.00", "0.60"}},
		{name: "a scenario without the type is an error", steps: []string{`Then the "answer" expectations of scenario "../../scenarios/search-then-edit.yaml" pass`}, wantFail: true, want: []string{`has no "answer" expectation`}},
		{name: "a check without a trace says how to give one", steps: []string{"Then the agent is not fishing"}, wantFail: true, want: []string{`Given the trace "PATH"`}},
		{name: "an unknown taxonomy profile is an error", steps: []string{coupon, `And the taxonomy profile "auro"`}, wantFail: true, want: []string{`unknown taxonomy profile "auro"`}},
		{name: "a missing trace is an error", steps: []string{`Given the trace "no-such.jsonl"`, "When the trace is measured"}, wantFail: true, want: []string{"no-such.jsonl"}},
		{name: "a call before another", steps: []string{expiry, `Then the agent calls "class:semantic" before "category:file_read"`, `And every "class:edit" call comes after a "Read" call`}},
		{name: "a call after another fails with both steps", steps: []string{expiry, `Then the agent calls "Bash" before "class:edit"`}, wantFail: true, want: []string{"step 5 (Bash)", "step 4 (Edit"}},
		{name: "an unknown class in a pattern is an error", steps: []string{expiry, `Then the agent calls "class:semantik" before "Read"`}, wantFail: true, want: []string{"did you mean semantic?"}},
		{name: "calls in order from a table", steps: []string{expiry, "Then the agent's calls match in_order:\n      | class:semantic |\n      | Edit |"}},
		{name: "calls out of exact order fail where matching stopped", steps: []string{expiry, "Then the agent's calls match exact:\n      | class:semantic |\n      | Read |\n      | Edit |"}, wantFail: true, want: []string{"matching stopped at step 3 (Grep"}},
		{name: "a retry loop over its bound fails", steps: []string{`Given the trace "../../testdata/examples/fix-discount-retry-loop.toolcalls.json"`, "Then no failing call is retried more than 1 time in a row"}, wantFail: true, want: []string{"measured 2", "≤ 1"}},
		{name: "failed calls over their bound fail", steps: []string{`Given the trace "../../testdata/examples/fix-discount-retry-loop.toolcalls.json"`, "Then at most 2 calls fail"}, wantFail: true, want: []string{"failed calls measured 3"}},
		{name: "a session of a file of several", steps: []string{`Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl" session "auth-1"`, tokenTruth, "Then steps_to_target is at most 1"}},
		{name: "another session of the file is another run", steps: []string{`Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl" session "auth-2"`, tokenTruth, "Then steps_to_target is at most 1"}, wantFail: true, want: []string{"steps_to_target measured 2, required ≤ 1"}},
		{name: "a plain trace step forgets an earlier session", steps: []string{`Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl" session "auth-2"`, `Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl"`, "Then steps_to_target is at most 1"}, wantFail: true, want: []string{"holds 2 sessions"}},
		{name: "a file of several sessions without one says which step names one", steps: []string{`Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl"`, "Then the agent is not fishing"}, wantFail: true,
			want: []string{`holds 2 sessions (auth-1, auth-2)`, `in a feature: Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl" session "auth-1"`}},
		{name: "an unknown session is an error naming the others", steps: []string{`Given the trace "../../expectations/testdata/traces/two-instances.openhands-output.jsonl" session "auth-9"`, "Then the agent is not fishing"}, wantFail: true, want: []string{`no session "auth-9" among its 2 sessions (auth-1, auth-2)`}},
		{name: "the working directory makes absolute paths match the ground truth", steps: []string{noCWD, `And the working directory "/root"`, tokenTruth, "Then the agent reaches a relevant file within 1 step"}},
		{name: "without the working directory the failure suggests it", steps: []string{noCWD, tokenTruth, "Then the agent reaches a relevant file within 1 step"}, wantFail: true, want: []string{"did you mean cwd: /root?"}},
		{name: "a step no definition matches fails under Strict", steps: []string{coupon, "Then the agent is brilliant"}, wantFail: true, want: []string{"undefined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, out := runFeature(t, nil, tt.steps...)
			if tt.wantFail {
				assert.Equal(t, 1, status, "the feature passed:\n%s", out)
			} else {
				assert.Equal(t, 0, status, "the feature failed:\n%s", out)
			}
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
}

// godog joins an after-step hook's error to the step's: a hook that
// handed the step's error back printed every failure twice.
func TestAFailingStepIsPrintedOnce(t *testing.T) {
	t.Parallel()
	feature := "Feature: once\n  Scenario: fishing\n" +
		"    Given the trace \"../../testdata/index/fishing-five-file-level-calls.claude.jsonl\"\n" +
		"    Then the semantic tool ratio is at least 60%\n"
	var out bytes.Buffer
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
		Options: &godog.Options{Format: "progress", NoColors: true, Strict: true, Output: &out,
			FeatureContents: []godog.Feature{{Name: "once.feature", Contents: []byte(feature)}}},
	}
	require.Equal(t, 1, suite.Run())
	assert.Equal(t, 1, strings.Count(out.String(), "semantic ratio measured 0.00, required ≥ 0.60"), out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "evidence:"), out.String())
}

func TestStepsBaseDir(t *testing.T) {
	t.Parallel()
	status, out := runFeature(t, []steps.Options{{BaseDir: "../../testdata/index"}},
		`Given the trace "direct-search-then-edit.claude.jsonl"`, "Then the agent works directly")
	assert.Zero(t, status, out)
}

func TestStepsKeepStatePerScenario(t *testing.T) {
	t.Parallel()
	// The second scenario has no trace of its own: it must not see the
	// first one's.
	feature := `Feature: state
  Scenario: with a trace
    Given the trace "../../testdata/index/direct-search-then-edit.claude.jsonl"
    Then the agent works directly
  Scenario: without
    Then the agent works directly
`
	var out bytes.Buffer
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) { steps.Register(sc) },
		Options: &godog.Options{
			Format: "progress", Strict: true, Output: &out, Concurrency: 2,
			FeatureContents: []godog.Feature{{Name: "state.feature", Contents: []byte(feature)}},
		},
	}
	assert.Equal(t, 1, suite.Run())
	assert.Contains(t, out.String(), "1 passed")
	assert.Contains(t, out.String(), "no trace")
}

// registrar records registrations, to check Register against a
// Registrar that is not godog's.
type registrar struct {
	steps  []string
	before int
}

func (r *registrar) Step(expr, _ any)                { r.steps = append(r.steps, fmt.Sprint(expr)) }
func (r *registrar) Before(godog.BeforeScenarioHook) { r.before++ }

func TestRegisterRegistersTheCatalogue(t *testing.T) {
	t.Parallel()
	var r registrar
	steps.Register(&r)
	assert.Equal(t, 1, r.before)
	var want []string
	for _, c := range steps.Catalogue() {
		pattern, _, _ := strings.Cut(c, "\t")
		want = append(want, pattern)
	}
	assert.Equal(t, want, r.steps)
	assert.Panics(t, func() { steps.Register(&r, steps.Options{}, steps.Options{}) })
}

func TestStepsWorkWithoutTheBeforeHook(t *testing.T) {
	t.Parallel()
	// A registrar that drops hooks still gets working steps: each step
	// creates the scenario state when it finds none.
	var fns = map[string]any{}
	reg := hooklessRegistrar(fns)
	steps.Register(reg, steps.Options{BaseDir: "../../testdata/index"})
	given := fns[`^the trace "([^"]*)"$`].(func(context.Context, string) (context.Context, error))
	then := fns[`^the agent works directly$`].(func(context.Context) (context.Context, error))
	ctx, err := given(context.Background(), "direct-search-then-edit.claude.jsonl")
	require.NoError(t, err)
	_, err = then(ctx)
	assert.NoError(t, err)
}

type hooklessRegistrar map[string]any

func (h hooklessRegistrar) Step(expr, fn any)               { h[fmt.Sprint(expr)] = fn }
func (h hooklessRegistrar) Before(godog.BeforeScenarioHook) {}

// The scenario steps record a scenario with a run key with
// Options.Recorder, and without one say which to set.
func TestScenarioStepsRecordWithTheRecorder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "recorded.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: recorded\nrun: echo agent\n"+
		"expectations:\n  - type: tools\n    max_calls: 4\n"), 0o644))
	trace, err := filepath.Abs("../../expectations/testdata/traces/index-first-then-edit.toolcalls.json")
	require.NoError(t, err)
	step := `Then the scenario "` + file + `" passes`

	status, out := runFeature(t, nil, step)
	assert.Equal(t, 1, status, out)
	assert.Contains(t, out, "Recorder")

	fake := func(ctx context.Context, _ string, cmd *exec.Cmd) ([]string, error) {
		return []string{trace}, cmd.Run()
	}
	status, out = runFeature(t, []steps.Options{{Recorder: fake}}, step)
	assert.Equal(t, 0, status, out)
}
