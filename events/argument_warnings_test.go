package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// TestArgumentsThatCannotBeUsedAreWarnedAbout: a value that cannot be
// decoded does not lose the call's other arguments, and a line number that
// is not one credits no lines; each is a warning of the Extraction.
func TestArgumentsThatCannotBeUsedAreWarnedAbout(t *testing.T) {
	t.Parallel()
	a := []FileRef{argRead("a.go")}
	runExtractCases(t, []extractCase{
		{
			name: "an offset too large for a number keeps the file and credits no range",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "offset": 1e400, "limit": 3}`,
			want: Extraction{Files: a, Warnings: []string{
				"arguments: offset: 1e400 is out of range for a number",
				"offset 1e400 is not a line number; no lines credited from it",
			}},
		},
		{
			name: "a number out of range in a nested value keeps the rest",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "meta": {"sizes": [1, -2e999]}}`,
			want: Extraction{Files: a, Warnings: []string{"arguments: meta.sizes[1]: -2e999 is out of range for a number"}},
		},
		{
			name: "an offset that is not a number credits no range",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "offset": "abc", "limit": 3}`,
			want: Extraction{Files: a, Warnings: []string{`offset "abc" is not a line number; no lines credited from it`}},
		},
		{
			name: "a negative offset credits no range",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "offset": -5, "limit": 3}`,
			want: Extraction{Files: a, Warnings: []string{"offset -5 is not a line number; no lines credited from it"}},
		},
		{
			name: "a limit that is not a number credits no range",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "offset": 10, "limit": true}`,
			want: Extraction{Files: a, Warnings: []string{"limit true is not a line number; no lines credited from it"}},
		},
		{
			name: "a numeric string is still a line number",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "offset": "10", "limit": "2"}`,
			want: Extraction{Files: a, Ranges: []LineRange{lines("a.go", 10, 11)}},
		},
		{
			name: "a view_range of words credits no range",
			tool: "str_replace_editor", rule: ruleRead, cwd: "/repo",
			args: `{"command": "view", "path": "/repo/a.go", "view_range": ["a", "b"]}`,
			want: Extraction{Files: a, Warnings: []string{`view_range ["a","b"] is not a [start, end] pair of line numbers; no lines credited from it`}},
		},
		{
			name: "a view_range of one number credits no range",
			tool: "str_replace_editor", rule: ruleRead, cwd: "/repo",
			args: `{"command": "view", "path": "/repo/a.go", "view_range": [5]}`,
			want: Extraction{Files: a, Warnings: []string{`view_range [5] is not a [start, end] pair of line numbers; no lines credited from it`}},
		},
		{
			name: "a negative startLine credits no range",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "startLine": -5, "endLine": 9}`,
			want: Extraction{Files: a, Warnings: []string{"startLine -5 is not a line number; no lines credited from it"}},
		},
		{
			name: "an endLine of -1 still means the end of the file",
			tool: "Read", rule: ruleRead, cwd: "/repo",
			args: `{"file_path": "/repo/a.go", "startLine": 2, "endLine": -1}`, result: "   2\tx\n   3\ty\n",
			want: Extraction{Files: a, Ranges: []LineRange{lines("a.go", 2, 3)}},
		},
	})
}

func TestAZeroBasedOffsetThatIsNotOneIsWarnedAbout(t *testing.T) {
	t.Parallel()
	for _, off := range []string{`"abc"`, `-5`} {
		t.Run("offset "+off, func(t *testing.T) {
			t.Parallel()
			s := &trace.Session{Format: "gemini-cli", Source: "g.json", CWD: "/repo", Calls: []trace.ToolCall{{
				Name: "read_file", Arguments: json.RawMessage(`{"file_path": "/repo/a.go", "offset": ` + off + `, "limit": 3}`), Result: "x\n", HasResult: true,
			}}}
			doc := Normalize(s, Options{})
			require.Len(t, doc.Events, 1)
			assert.Equal(t, []string{"a.go"}, doc.Events[0].FilesRead)
			assert.Empty(t, doc.Events[0].LineRanges)
			assert.Equal(t, []string{"g.json: step 1 (read_file): offset " + off + " is not a line number; no lines credited from it"}, doc.Coverage.Warnings)
		})
	}
}

// TestAnOutOfRangeOffsetStillFindsTheFile is the whole path: the file of a
// Read whose offset is 1e400 is still retrieved (recall@1 and MRR count
// it), and the document says what was lost.
func TestAnOutOfRangeOffsetStillFindsTheFile(t *testing.T) {
	t.Parallel()
	s := &trace.Session{Format: "claude-code", Source: "t.jsonl", CWD: "/repo", Calls: []trace.ToolCall{{
		Name: "Read", Arguments: json.RawMessage(`{"file_path": "/repo/a.go", "offset": 1e400}`), Result: "x\n", HasResult: true,
	}}}
	doc := Normalize(s, Options{GroundTruth: &GroundTruth{Files: []string{"a.go"}}})
	require.Len(t, doc.Events, 1)
	assert.True(t, doc.Events[0].HitsGroundTruth)
	assert.Equal(t, []string{"a.go"}, doc.Events[0].FilesRead)
	assert.Equal(t, []string{
		"t.jsonl: step 1 (Read): arguments: offset: 1e400 is out of range for a number",
		"t.jsonl: step 1 (Read): offset 1e400 is not a line number; no lines credited from it",
	}, doc.Coverage.Warnings)
	require.NotNil(t, doc.Coverage.DegradedReason)
	assert.Contains(t, *doc.Coverage.DegradedReason, "the arguments of some tool calls could not be used (2 warning(s)")
}

func TestArgumentWarningsAreCappedPerDocument(t *testing.T) {
	t.Parallel()
	const calls = trace.MaxWarnings + 30
	s := &trace.Session{Format: "claude-code", Source: "t.jsonl", CWD: "/repo"}
	for range calls {
		s.AddCall(trace.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"file_path": "/repo/a.go", "offset": "x", "limit": 2}`)})
	}
	doc := Normalize(s, Options{})
	require.Len(t, doc.Coverage.Warnings, trace.MaxWarnings+1)
	assert.Equal(t, "t.jsonl: and 30 more warnings, not kept", doc.Coverage.Warnings[trace.MaxWarnings])
	require.NotNil(t, doc.Coverage.DegradedReason)
	assert.True(t, strings.Contains(*doc.Coverage.DegradedReason, fmt.Sprintf("(%d warning(s)", calls)), *doc.Coverage.DegradedReason)
}
