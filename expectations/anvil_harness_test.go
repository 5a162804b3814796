package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The harness's own file loads unchanged: camelCase keys kept, live checks
// skipped with a reason, the index threshold read through its alias.
func TestAHarnessFileLoadsUnchanged(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/scenarios/harness/add-user-validation.yaml", LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, "add-user-validation", s.Name)
	assert.Equal(t, "Add validation attributes to the User model", s.Description)
	assert.Empty(t, s.Traces)
	assert.Equal(t, []string{"validation", "model", "intermediate"}, s.Tags)
	assert.Equal(t, map[string]any{
		"language":       "csharp",
		"repository":     "c:/projects/my-app",
		"executor":       "internal",
		"timeoutSeconds": int64(600),
		"story": map[string]any{
			"title": "Add User Model Validation",
			"description": "Add data annotation validation attributes to the User model in\n" +
				"src/Models/User.cs: [Required] and [MaxLength(100)] on Name,\n[Required] and [EmailAddress] on Email.\n",
		},
	}, s.Harness)
	var types []string
	for _, e := range s.Expectations {
		types = append(types, e.Type)
	}
	assert.Equal(t, []string{"compiles", "tests_pass", "file_exists", "file_contains", "file_not_contains", "index_usage"}, types)
	assert.Nil(t, s.Expectations[3].Params, "a live type has no params to judge")
	assert.Equal(t, &IndexUsage{MinSemanticRatio: ptr(0.6), MaxStepsToTarget: ptr(3)}, s.Expectations[5].Params)

	res, err := Evaluate(s, EvalOptions{})
	require.NoError(t, err)
	for _, r := range res.Results[:5] {
		assert.Equal(t, Skipped, r.Status, r.Type)
		assert.Equal(t, r.Type+" needs a live run (the worktree, the build, the tests); a trace cannot show it", r.Message)
		assert.False(t, r.Failed())
	}
	// With no trace recorded yet, a trace-judged expectation cannot pass.
	last := res.Results[5]
	assert.Equal(t, Fail, last.Status)
	assert.Equal(t, "no run to judge: the scenario names no trace (add trace: or traces:)", last.Message)
}

func TestAHarnessFileWithItsTraceIsJudged(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/scenarios/harness/fix-token-expiry-recorded.yaml", LoadOptions{})
	require.NoError(t, err)
	res, err := Evaluate(s, EvalOptions{})
	require.NoError(t, err)
	require.Len(t, res.Results, 3)
	assert.Equal(t, []Status{Skipped, Skipped, Pass}, []Status{res.Results[0].Status, res.Results[1].Status, res.Results[2].Status})
	require.Len(t, res.Results[1].Runs, 1, "a skipped expectation keeps its per-run outcomes")
	assert.Equal(t, Skipped, res.Results[1].Runs[0].Status)
	assert.False(t, res.Failed())
}
