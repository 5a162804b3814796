package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// measuredRun is a run with only index-effectiveness figures.
func measuredRun(ratio float64, steps int, patterns ...string) *expectations.Run {
	ie := &metrics.IndexEffectiveness{SemanticRatio: &ratio, StepsToTarget: &steps}
	for _, p := range patterns {
		ie.Patterns = append(ie.Patterns, metrics.Pattern{Name: p})
	}
	return &expectations.Run{Metrics: &metrics.Result{IndexEffectiveness: ie}}
}

func TestNewCheckSummarizesEachScenariosRuns(t *testing.T) {
	t.Parallel()
	results := []*expectations.ScenarioResult{
		{
			Name: "fix-bug",
			Runs: []*expectations.Run{measuredRun(0.2, 6, "fishing"), measuredRun(0.4, 2), measuredRun(0.6, 9, "guessing", "fishing")},
			Results: []*expectations.Result{
				{Type: "index_usage", Status: expectations.Fail, Flaky: true},
				{Type: "index_usage", Status: expectations.Pass},
				{Type: "tools", Status: expectations.Fail},
			},
		},
		{
			Name:    "add-service",
			Runs:    []*expectations.Run{measuredRun(0.5, 3), measuredRun(1, 4)},
			Results: []*expectations.Result{{Type: "index_usage", Status: expectations.Fail}, {Type: "index_usage", Status: expectations.Fail, Flaky: true}},
		},
	}
	c := NewCheck(results)
	require.Len(t, c.Index, 2)

	fix := c.Index[0]
	assert.InDelta(t, 0.4, *fix.SemanticRatio, 1e-12, "the mean ratio of the runs")
	assert.Equal(t, 6, *fix.StepsToTarget, "the median of 2, 6 and 9")
	assert.Equal(t, []string{"fishing", "guessing"}, fix.Patterns, "every pattern seen, once, sorted")
	assert.Equal(t, Fail, fix.Result, "the scenario's overall result: its tools expectation failed it")
	assert.Equal(t, 3, *c.Index[1].StepsToTarget, "the lower median of two runs: a whole step")
	assert.Equal(t, Fail, c.Index[1].Result, "a failure outranks a flaky failure")

	assert.Equal(t, []string{"fix-bug", "add-service"}, c.Failed())
	assert.Len(t, c.Expectations, 5)
	v, ok := c.Figures.Get("add-service", "semantic_ratio")
	require.True(t, ok)
	assert.InDelta(t, 0.75, v, 1e-12)

	// A baseline whose ratio was higher is a regression, in every form.
	base := NewBaseline("scenario")
	base.Set("add-service", "semantic_ratio", 0.9)
	opts := CheckOptions{Baseline: base}
	require.Len(t, c.Regressions(opts), 1)
	var md, js bytes.Buffer
	require.NoError(t, c.Write(&md, "md", opts))
	assert.Contains(t, md.String(), "**FAIL:** 0 of 2 scenarios passed; 2 failed; 1 figure(s) regressed past the allowed change: add-service semantic_ratio")
	assert.Contains(t, md.String(), "## Regressions")
	require.NoError(t, c.Write(&js, "json", opts))
	var doc struct {
		Passed      bool         `json:"passed"`
		Regressions []Regression `json:"regressions"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.False(t, doc.Passed)
	assert.Len(t, doc.Regressions, 1)
	assert.Error(t, c.Write(&js, "xml", opts))
}

func TestAppendGitHubStepSummary(t *testing.T) {
	path := t.TempDir() + "/summary.md"
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	require.NoError(t, AppendGitHubStepSummary([]byte("# nothing")), "outside GitHub Actions it does nothing")
	assert.NoFileExists(t, path)
	t.Setenv("GITHUB_STEP_SUMMARY", path)
	require.NoError(t, AppendGitHubStepSummary([]byte("# one")))
	require.NoError(t, AppendGitHubStepSummary([]byte("# two")))
	data, err := readFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# one\n# two\n", data)
}

func readFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}

// The Result column is the scenario's overall result, so a scenario with
// expectations never shows "—" there.
func TestIndexRowResultIsTheScenariosOverallResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		results []*expectations.Result
		want    Status
	}{
		{"no index_usage expectation, a pass", []*expectations.Result{{Type: "tools", Status: expectations.Pass}}, Pass},
		{"any failure fails it", []*expectations.Result{{Type: "index_usage", Status: expectations.Pass}, {Type: "retrieval", Status: expectations.Fail}}, Fail},
		{"only a flaky failure", []*expectations.Result{{Type: "retrieval", Status: expectations.Fail, Flaky: true}, {Type: "tools", Status: expectations.Pass}}, Flaky},
		{"every expectation skipped", []*expectations.Result{{Type: "compiles", Status: expectations.Skipped}}, Skipped},
		{"no expectation at all", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			row := scenarioIndexRow(&expectations.ScenarioResult{Name: "s", Runs: []*expectations.Run{measuredRun(0.5, 2)}, Results: tt.results})
			assert.Equal(t, tt.want, row.Result)
		})
	}
}

// An agent offered no semantic tool shows its patterns as information and
// is left out of the aggregate instead of pulling it to 0%.
func TestIndexTableSaysNoSemanticToolOffered(t *testing.T) {
	t.Parallel()
	zero, half := 0.0, 0.5
	noTool := IndexRow{Scenario: "claude-plain", SemanticRatio: &zero, Patterns: []string{"fishing"}, Result: Pass, NoSemanticTool: true}
	withTool := IndexRow{Scenario: "with-index", SemanticRatio: &half, Patterns: []string{"fishing"}, Result: Fail}

	var only strings.Builder
	require.NoError(t, WriteIndexTable(&only, []IndexRow{noTool}, IndexOptions{}))
	assert.Contains(t, only.String(), "| claude-plain | no semantic tool offered | not reached | fishing (information) |")
	assert.Contains(t, only.String(), "**Aggregate:** no semantic tool offered (target: 60%)")
	assert.NotContains(t, only.String(), "0.0% semantic tool usage")

	var both strings.Builder
	require.NoError(t, WriteIndexTable(&both, []IndexRow{noTool, withTool}, IndexOptions{}))
	assert.Contains(t, both.String(), "**Aggregate:** 50.0% semantic tool usage (target: 60%)")
	assert.Contains(t, both.String(), "No semantic tool offered, left out of the aggregate: claude-plain.")
	assert.Contains(t, both.String(), "| with-index | 50.0% | not reached | fishing |")
}

func TestARetrievalRowAveragesEachMetricOverTheRunsThatHaveIt(t *testing.T) {
	t.Parallel()
	ratio := func(r float64) *expectations.Run {
		return &expectations.Run{Metrics: &metrics.Result{IndexEffectiveness: &metrics.IndexEffectiveness{SemanticRatio: &r}}}
	}
	noRatio := &expectations.Run{Metrics: &metrics.Result{IndexEffectiveness: &metrics.IndexEffectiveness{}}}
	row := scenarioRetrievalRow(&expectations.ScenarioResult{Name: "s",
		Runs: []*expectations.Run{ratio(0.1), {}, noRatio, ratio(0.2), ratio(0.6)}})
	assert.Equal(t, "s", row.Name)
	a, b, c := 0.1, 0.2, 0.6
	assert.Equal(t, (a+b+c)/3, row.Values["semantic_ratio"], "the mean of the three runs that have one, summed in run order")
	_, ok := row.Values["steps_to_target"]
	assert.False(t, ok, "a metric no run has is absent")

	row = scenarioRetrievalRow(&expectations.ScenarioResult{Name: "none", Runs: []*expectations.Run{{}}})
	assert.NotNil(t, row.Values, "no run measured: an empty map")
	assert.Empty(t, row.Values)
}

func TestARetrievalRowOfOneRunHoldsItsValuesAsTheMeanOfThemWould(t *testing.T) {
	t.Parallel()
	negZero, reason := math.Copysign(0, -1), "no ground truth"
	run := func(r float64) *expectations.Run {
		return &expectations.Run{Metrics: &metrics.Result{NonComputableReason: &reason,
			IndexEffectiveness: &metrics.IndexEffectiveness{SemanticRatio: &r, Redundancy: &negZero, TotalCalls: 7}}}
	}
	one := scenarioRetrievalRow(&expectations.ScenarioResult{Name: "one", Runs: []*expectations.Run{run(0.3)}})
	two := scenarioRetrievalRow(&expectations.ScenarioResult{Name: "two", Runs: []*expectations.Run{run(0.3), {}}})
	assert.Equal(t, two.Values, one.Values)
	assert.Equal(t, 0.3, one.Values["semantic_ratio"])
	assert.Equal(t, 7.0, one.Values["total_calls"])
	assert.False(t, math.Signbit(one.Values["redundancy"]), "-0 is made +0, as the sum of the runs' values makes it")
	assert.Equal(t, "non-computable: no ground truth", one.Reason)
	assert.Equal(t, two.Reason, one.Reason)
}

func TestTheBaselineHoldsEachScenariosFiguresTheLastOfANameWinning(t *testing.T) {
	t.Parallel()
	c := NewCheck([]*expectations.ScenarioResult{
		{Name: "a", Runs: []*expectations.Run{measuredRun(0.2, 6)}},
		{Name: "none", Runs: []*expectations.Run{{}}},
		{Name: "b", Runs: []*expectations.Run{measuredRun(0.5, 3)}},
		{Name: "a", Runs: []*expectations.Run{measuredRun(0.4, 2)}},
	})
	assert.Equal(t, map[string]map[string]float64{
		"a": {"semantic_ratio": 0.4, "steps_to_target": 2, "total_calls": 0, "semantic_calls": 0, "file_level_calls": 0, "edit_calls": 0,
			"other_calls": 0, "backtracking_events": 0, "failed_calls": 0, "fishing_runs": 0, "guessing_searches": 0, "direct_edits": 0},
		"b": {"semantic_ratio": 0.5, "steps_to_target": 3, "total_calls": 0, "semantic_calls": 0, "file_level_calls": 0, "edit_calls": 0,
			"other_calls": 0, "backtracking_events": 0, "failed_calls": 0, "fishing_runs": 0, "guessing_searches": 0, "direct_edits": 0},
	}, c.Figures.Entries, "a scenario without figures has no entry")
	assert.Equal(t, 0.2, c.Retrieval[0].Values["semantic_ratio"], "the first row keeps its own figures")
	c.Figures.Entries["b"]["semantic_ratio"] = 1
	assert.Equal(t, 0.5, c.Retrieval[2].Values["semantic_ratio"], "the baseline's figures are a copy of the row's")
}
