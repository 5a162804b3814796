package runs

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestMergeSessions(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	tokens := int64(1200)
	traj := &trace.Session{Format: "atif", Source: "trajectory.json", Model: "m", Start: t0, Calls: []trace.ToolCall{
		{Index: 0, ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"file_path":"a.go"}`), Result: "(shortened)", HasResult: true, Time: t0.Add(time.Second), CumulativeTokens: &tokens},
		{Index: 1, ID: "c2", Name: "Grep", Arguments: json.RawMessage(`{"pattern":"x"}`)},
	}}
	trans := &trace.Session{Format: "claude-stream-json", Source: "claude-code.txt", CWD: "/workspace", Tools: []string{"Read", "Grep"}, Answer: "done", Calls: []trace.ToolCall{
		{Index: 0, ID: "c1", Name: "Read", Result: "full text", HasResult: true},
		{Index: 1, ID: "c2", Name: "Grep", Result: "a.go:1:x", HasResult: true, IsError: true, Subagent: true, ParentID: "task1", Time: t0.Add(3 * time.Second)},
	}}

	t.Run("the trajectory gives calls, times and tokens; the transcript results and subagents", func(t *testing.T) {
		t.Parallel()
		m, err := MergeSessions(traj, trans)
		require.NoError(t, err)
		require.Len(t, m.Calls, 2)
		assert.JSONEq(t, `{"file_path":"a.go"}`, string(m.Calls[0].Arguments))
		assert.Equal(t, "full text", m.Calls[0].Result, "the transcript's result text")
		assert.Equal(t, t0.Add(time.Second), m.Calls[0].Time, "the trajectory's timestamp")
		assert.Equal(t, &tokens, m.Calls[0].CumulativeTokens)
		assert.True(t, m.Calls[1].Subagent, "the transcript's subagent marker")
		assert.Equal(t, "task1", m.Calls[1].ParentID)
		assert.True(t, m.Calls[1].IsError)
		assert.Equal(t, t0.Add(3*time.Second), m.Calls[1].Time, "a missing trajectory timestamp is filled from the transcript")
		assert.Equal(t, "/workspace", m.CWD, "what the trajectory lacks comes from the transcript")
		assert.Equal(t, []string{"Read", "Grep"}, m.Tools)
		assert.Equal(t, "done", m.Answer)
		assert.Equal(t, "m", m.Model)
		assert.Equal(t, "(shortened)", traj.Calls[0].Result, "the inputs are not changed")
	})
	t.Run("a different number of calls is a mismatch", func(t *testing.T) {
		t.Parallel()
		short := *trans
		short.Calls = trans.Calls[:1]
		_, err := MergeSessions(traj, &short)
		var me *MismatchError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "the trajectory has 2 tool calls, the transcript 1", err.Error())
	})
	t.Run("a different tool at the same index is a mismatch", func(t *testing.T) {
		t.Parallel()
		other := *trans
		other.Calls = []trace.ToolCall{trans.Calls[0], {Index: 1, Name: "Glob"}}
		_, err := MergeSessions(traj, &other)
		assert.EqualError(t, err, `step 2 is "Grep" in the trajectory and "Glob" in the transcript`)
	})
}
