package trace

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codexFuzzCheck reads data with the format and checks what must hold for
// any input: no panic; an error only when no line is a record of the
// format, and then one naming the input; otherwise a consistent session.
func codexFuzzCheck(t *testing.T, format Format, data []byte) {
	lines, anyObject := fuzzLines(data)

	s, err := format.Read(bytes.NewReader(data), Options{Source: "fuzz"})
	if err != nil {
		assert.Nil(t, s)
		assert.True(t, strings.HasPrefix(err.Error(), "fuzz: not a "), err.Error())
		if anyObject {
			assert.Contains(t, err.Error(), "no line is ", "a JSON object line was taken for broken input")
		}
		return
	}
	require.True(t, anyObject, "no error although no line is a JSON object")
	require.NotNil(t, s)
	assert.Equal(t, format.Name(), s.Format)

	for _, w := range s.Warnings {
		assert.Equal(t, "fuzz", w.Source)
		assert.True(t, 1 <= w.Line && w.Line <= len(lines), "warning line %d of %d", w.Line, len(lines))
	}
	var last int64
	for i, c := range s.Calls {
		require.Equal(t, i, c.Index)
		assert.False(t, c.Subagent)
		if !c.HasResult {
			assert.Empty(t, c.Result)
			assert.False(t, c.IsError && format.Name() == "codex", "call %d failed without a result", i)
		}
		assert.True(t, utf8.ValidString(c.Result), "call %d result is not UTF-8", i)
		assert.True(t, utf8.ValidString(c.Name), "call %d name is not UTF-8", i)
		if c.Arguments != nil {
			assert.True(t, json.Valid(c.Arguments), "call %d arguments are not JSON: %s", i, c.Arguments)
		}
		// Totals are running totals, so they never shrink from call to
		// call, and none exceeds the session's.
		if c.CumulativeTokens != nil {
			require.NotNil(t, s.Usage)
			assert.GreaterOrEqual(t, *c.CumulativeTokens, last, "call %d", i)
			last = *c.CumulativeTokens
			assert.LessOrEqual(t, *c.CumulativeTokens, s.Usage.Total())
		}
	}
	_, err = json.Marshal(s)
	require.NoError(t, err)

	fuzzCheckResultLimit(t, format, data, s)
}

func FuzzCodex(f *testing.F) {
	fuzzSeeds(f, filepath.Join(codexFixtures, "*.rollout.jsonl"), nil,
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c"}}`+"\n"+
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: 1\nOutput:\nno"}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9223372036854775807,"output_tokens":1}}}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"\ud83d","call_id":"p"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"text":"x","type":"input_text"},{"type":"input_image"}]}}`,
		`{"id":"x","timestamp":"2025-01-01T00:00:00Z","instructions":""}`+"\n"+`{"type":"local_shell_call","id":"l","action":{"type":"exec","command":["ls"]}}`,
		"[]\n{}\nnull\n\"x\"\n{\"type\":1}\n{\"payload\":[]}",
		"\xef\xbb\xbf{\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\r\n",
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}`+"\n"+
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"failed in sandbox Seatbelt with execution error: command timed out"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"d__q","arguments":"{}","call_id":"m"}}`+"\n"+
			`{"type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"m","result":{"Ok":{"content":[],"isError":true}}}}`+"\n"+
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"m","output":{"content":[{"type":"input_text","text":"x"}],"isError":true}}}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { codexFuzzCheck(t, Codex{}, data) })
}

func FuzzCodexExecJSON(f *testing.F) {
	fuzzSeeds(f, filepath.Join(codexFixtures, "*.exec.jsonl"), nil,
		`{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"ls","aggregated_output":"\u00e9t\u00e9","exit_code":2,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"t","type":"todo_list","items":null}}`+"\n"+`{"type":"item.completed","item":{"id":"t","type":"todo_list","items":[]}}`,
		`{"type":"item.completed","item":{"type":"mcp_tool_call","server":"s","result":{"content":[{"type":"text","text":"a"},{"text":"b"}]}}}`,
		`{"type":"turn.completed","usage":{"input_tokens":-5,"output_tokens":1.5}}`,
		`{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"x","aggregated_output":"part","exit_code":1,"status":"in_progress"}}`,
		"[]\n{}\nnull\n\"x\"\n{\"type\":\"item.updated\"}",
	)
	f.Fuzz(func(t *testing.T, data []byte) { codexFuzzCheck(t, CodexExecJSON{}, data) })
}
