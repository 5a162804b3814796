package metrics_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// TestAnalyzeIndexCountsEachEditorCallByItsCommand follows a per-call
// classification (str_replace_editor's view is a read, str_replace an edit)
// from the taxonomy to the index figures: reads count as file-level calls,
// and steps to target, without ground truth, is the first edit.
func TestAnalyzeIndexCountsEachEditorCallByItsCommand(t *testing.T) {
	t.Parallel()
	call := func(i int, args string) trace.ToolCall {
		return trace.ToolCall{Index: i, Name: "str_replace_editor", Arguments: json.RawMessage(args), HasResult: true, Result: "ok"}
	}
	sess := &trace.Session{Format: "openhands-v0", CWD: "/workspace", Calls: []trace.ToolCall{
		call(0, `{"command": "view", "path": "/workspace/a.py"}`),
		call(1, `{"command": "view", "path": "/workspace/b.py", "view_range": [1, 20]}`),
		call(2, `{"command": "str_replace", "path": "/workspace/a.py", "old_str": "x", "new_str": "y"}`),
	}}
	ie := metrics.AnalyzeIndex(events.Normalize(sess, events.Options{}), metrics.IndexOptions{})
	assert.Equal(t, 3, ie.TotalCalls)
	assert.Equal(t, 2, ie.FileLevelCalls)
	assert.Equal(t, 1, ie.EditCalls)
	require.NotNil(t, ie.StepsToTarget)
	assert.Equal(t, 3, *ie.StepsToTarget)
	assert.Equal(t, metrics.RuleFirstEdit, ie.StepsToTargetRule)
	assert.Equal(t, []string{"b.py"}, ie.Backtracking, "b.py was read and never edited")
}
