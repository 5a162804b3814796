package trace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codexRolloutCall is a rollout of one call of tool and its output item;
// output is the JSON value of the output field, and between are lines
// written between the call and its output.
func codexRolloutCall(tool, output string, between ...string) string {
	lines := append([]string{codexMetaLine, codexCallLine(tool)}, between...)
	lines = append(lines, `{"timestamp":"2025-11-20T09:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":`+output+`}}`)
	return strings.Join(lines, "\n") + "\n"
}

const codexMetaLine = `{"timestamp":"2025-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w","cli_version":"0.58.0"}}`

func codexCallLine(tool string) string {
	return `{"timestamp":"2025-11-20T09:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"` + tool + `","arguments":"{}","call_id":"call_1"}}`
}

func codexQuoted(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

func TestCodexFailuresWithoutAnExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tool    string
		output  string // the output as text
		want    string
		isError bool
	}{
		{name: "a successful command's exit-code wrapper is still unwrapped",
			tool: "shell", output: "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nREADME.md\n", want: "README.md\n"},
		{name: "a command the sandbox refused is a failure",
			tool:    "shell",
			output:  "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: touch: /etc/x: Operation not permitted",
			want:    "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: touch: /etc/x: Operation not permitted",
			isError: true},
		{name: "a command that timed out is a failure",
			tool: "shell", output: "command timed out after 10000 milliseconds", want: "command timed out after 10000 milliseconds", isError: true},
		{name: "an execution error is a failure",
			tool:    "shell",
			output:  `execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })`,
			want:    `execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })`,
			isError: true},
		{name: "a command the user rejected is a failure",
			tool: "shell", output: "exec command rejected by user", want: "exec command rejected by user", isError: true},
		{name: "an unapplied patch is a failure, its message over several lines",
			tool:    "apply_patch",
			output:  "apply_patch verification failed: Failed to find expected lines in src/x.rs:\n    let a = 1;",
			want:    "apply_patch verification failed: Failed to find expected lines in src/x.rs:\n    let a = 1;",
			isError: true},
		{name: "an older release's unapplied patch is a failure",
			tool: "shell", output: "error: invalid patch: The first line of the patch must be '*** Begin Patch'",
			want: "error: invalid patch: The first line of the patch must be '*** Begin Patch'", isError: true},
		{name: "a call a turn abort left unanswered is a failure",
			tool: "shell", output: "aborted", want: "aborted", isError: true},
		{name: "an MCP call that failed before the server answered is a failure",
			tool: "docs__search", output: `err: "request timed out"`, want: `err: "request timed out"`, isError: true},
		{name: "an MCP result handed over whole with isError is a failure",
			tool: "docs__search", output: `{"content":[{"type":"text","text":"no such index"}],"isError":true}`,
			want: `{"content":[{"type":"text","text":"no such index"}],"isError":true}`, isError: true},
		{name: "an MCP result with isError false is no failure",
			tool: "docs__search", output: `{"content":[{"type":"text","text":"found"}],"isError":false}`,
			want: `{"content":[{"type":"text","text":"found"}],"isError":false}`},
		{name: "a failure word further down is no failure message",
			tool: "update_plan", output: "Plan updated\naborted", want: "Plan updated\naborted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Codex{}.Read(strings.NewReader(codexRolloutCall(tt.tool, codexQuoted(t, tt.output))), Options{Source: "r.jsonl"})
			require.NoError(t, err)
			require.Len(t, s.Calls, 1)
			assert.Equal(t, tt.want, s.Calls[0].Result)
			assert.Equal(t, tt.isError, s.Calls[0].IsError)
			assert.Empty(t, s.Warnings)
		})
	}
}

func TestCodexFailureIsReadBeforeMaxResultBytesCuts(t *testing.T) {
	t.Parallel()
	doc := codexRolloutCall("shell", `"failed in sandbox Seccomp with execution error: command timed out"`)
	s, err := Codex{}.Read(strings.NewReader(doc), Options{Source: "r.jsonl", MaxResultBytes: 6})
	require.NoError(t, err)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "failed", s.Calls[0].Result)
	assert.True(t, s.Calls[0].IsError)
}

func TestCodexMCPFailures(t *testing.T) {
	t.Parallel()
	const text = `"[{\"type\":\"text\",\"text\":\"no such index\"}]"`
	end := func(result string) string {
		return `{"timestamp":"2025-11-20T09:00:01.500Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"call_1",` +
			`"invocation":{"server":"docs","tool":"search","arguments":{}},"duration":"1s","result":` + result + `}}`
	}
	tests := []struct {
		name    string
		doc     string
		isError bool
	}{
		{"an end event whose result has isError marks the output that follows",
			codexRolloutCall("docs__search", text, end(`{"Ok":{"content":[{"type":"text","text":"no such index"}],"isError":true}}`)), true},
		{"an end event with an error marks the output that follows",
			codexRolloutCall("docs__search", text, end(`{"Err":"tool call failed"}`)), true},
		{"an end event after the output marks it too",
			codexRolloutCall("docs__search", text) + end(`{"Err":"tool call failed"}`) + "\n", true},
		{"an end event of a successful call marks nothing",
			codexRolloutCall("docs__search", text, end(`{"Ok":{"content":[],"isError":false}}`)), false},
		{"an output object with isError is a failure",
			codexRolloutCall("docs__search", `{"content":[{"type":"input_text","text":"no such index"}],"isError":true}`), true},
		{"an output object with success false is a failure",
			codexRolloutCall("docs__search", `{"content":"no such index","success":false}`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Codex{}.Read(strings.NewReader(tt.doc), Options{Source: "r.jsonl"})
			require.NoError(t, err)
			require.Len(t, s.Calls, 1)
			assert.True(t, s.Calls[0].HasResult)
			assert.Equal(t, tt.isError, s.Calls[0].IsError)
			assert.Empty(t, s.Warnings)
		})
	}
	// An end event for a call whose output never came marks nothing: a
	// call without a result is no failure.
	doc := strings.Join([]string{codexMetaLine, codexCallLine("docs__search"), end(`{"Err":"x"}`)}, "\n")
	s, err := Codex{}.Read(strings.NewReader(doc), Options{Source: "r.jsonl"})
	require.NoError(t, err)
	require.Len(t, s.Calls, 1)
	assert.False(t, s.Calls[0].HasResult)
	assert.False(t, s.Calls[0].IsError)
}
