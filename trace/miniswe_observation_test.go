package trace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// miniToolTrajectory is a 2.x tool-calling trajectory with one call whose
// reply is observation; extra is the reply's extra (nil for none).
func miniToolTrajectory(t *testing.T, observation string, extra map[string]any) string {
	t.Helper()
	reply := map[string]any{"role": "tool", "tool_call_id": "call_1", "content": observation}
	if extra != nil {
		reply["extra"] = extra
	}
	doc := map[string]any{
		"info": map[string]any{"mini_version": "2.2.7"},
		"messages": []any{
			map[string]any{"role": "system", "content": "You are a helpful assistant."},
			map[string]any{"role": "assistant", "content": "Let me look.", "tool_calls": []any{map[string]any{
				"id": "call_1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command": "cat x.py"}`}}}},
			reply,
		},
		"trajectory_format": "mini-swe-agent-1.1",
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

// miniTextTrajectory is a 1.x text-mode trajectory with one bash block
// whose observation is the next user message.
func miniTextTrajectory(t *testing.T, observation string) string {
	t.Helper()
	doc := map[string]any{
		"info": map[string]any{"mini_version": "1.13.4"},
		"messages": []any{
			map[string]any{"role": "system", "content": "You are a helpful assistant."},
			map[string]any{"role": "assistant", "content": "THOUGHT: run it.\n\n```bash\nsleep 999\n```"},
			map[string]any{"role": "user", "content": observation},
		},
		"trajectory_format": "mini-swe-agent-1",
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

// miniLongObservation renders a long output as the 1.x and 2.x templates
// do: a warning, the head, the count of the characters left out, the
// tail.
func miniLongObservation(code, head, elided, tail string) string {
	return "<returncode>" + code + "</returncode>\n<warning>\nThe output of your last command was too long.\n" +
		"Please try a different command that produces less output.\n</warning><output_head>\n" + head +
		"\n</output_head>\n<elided_chars>\n" + elided + " characters elided\n</elided_chars>\n<output_tail>\n" + tail + "\n</output_tail>"
}

func TestMiniSWEAgentResultsAreTheCommandOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		trajectory func(t *testing.T) string
		max        int // MaxResultBytes
		want       string
		isError    bool
	}{
		{name: "a successful command shows its output, its own last newline included",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>0</returncode>\n<output>\nimport os\nprint(1)\n</output>", nil)
			},
			want: "import os\nprint(1)\n"},
		{name: "an output without a last newline ends at the closing tag",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>0</returncode>\n<output>\nno newline</output>", nil)
			},
			want: "no newline"},
		{name: "a non-zero return code is a failure",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>2</returncode>\n<output>\ngrep: x.py: No such file or directory\n</output>", nil)
			},
			want: "grep: x.py: No such file or directory\n", isError: true},
		{name: "an empty output is empty",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>0</returncode>\n<output>\n</output>", map[string]any{"returncode": 0})
			},
			want: ""},
		{name: "an output that holds the observation's own tags stays whole",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>0</returncode>\n<output>\n<output>\nError: x\n</output>\n<returncode>1</returncode>\n</output>", nil)
			},
			want: "<output>\nError: x\n</output>\n<returncode>1</returncode>\n"},
		{name: "an exception before the return code is a failure",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<exception>An error occurred while executing the command: timed out\nafter 60s</exception>\n<returncode>-1</returncode>\n<output>\npartial\n</output>", nil)
			},
			want: "partial\n", isError: true},
		{name: "a long output is its head and tail around the elided line",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, miniLongObservation("0", "line 1\nline 2\nli", "12345", "ne 9998\nline 9999\n"), nil)
			},
			want: "line 1\nline 2\nli\n[... 12345 characters elided ...]\nne 9998\nline 9999\n"},
		{name: "a reminder after the output is not output",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>0</returncode>\n<output>\nok\n</output>\n\n<IMPORTANT>\nYou are now 5 steps away from reaching your limit.\n</IMPORTANT>", nil)
			},
			want: "ok\n"},
		{name: "the mini config's JSON observation is decoded",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "{\n  \"returncode\": 1,\n  \"output\": \"\\u003cb\\u003e bad\\n\"\n}", nil)
			},
			want: "<b> bad\n", isError: true},
		{name: "the mini config's long JSON observation is its head and tail",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "{\n  \"returncode\": 0,\n  \"output_head\": \"a\\nb\",\n  \"output_tail\": \"y\\nz\\n\",\n  \"elided_chars\": 2002,\n  \"warning\": \"Output too long.\"\n}", nil)
			},
			want: "a\nb\n[... 2002 characters elided ...]\ny\nz\n"},
		{name: "MaxResultBytes cuts the unwrapped output",
			trajectory: func(t *testing.T) string {
				return miniToolTrajectory(t, "<returncode>1</returncode>\n<output>\nhéllo\n</output>", nil)
			},
			max: 2, want: "h", isError: true},
		{name: "a 1.x timeout shows the output printed before the command was killed",
			trajectory: func(t *testing.T) string {
				return miniTextTrajectory(t, "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\nwaiting\n\n</output>\nPlease try another command and make sure to avoid those requiring interactive input.")
			},
			want: "waiting\n", isError: true},
		{name: "a 1.x timeout of a long output is its head and tail",
			trajectory: func(t *testing.T) string {
				return miniTextTrajectory(t, "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n"+
					"<warning>Output was too long and has been truncated.</warning>\n<output_head>\nhead\n</output_head>\n<elided_chars>7 characters elided</elided_chars>\n"+
					"<output_tail>\ntail\n\n</output_tail>\nPlease try another command and make sure to avoid those requiring interactive input.")
			},
			want: "head\n[... 7 characters elided ...]\ntail\n", isError: true},
		{name: "the first 1.x timeout message shows no output and is a failure",
			trajectory: func(t *testing.T) string {
				return miniTextTrajectory(t, "The command timed out. Please change your command and make sure it doesn't require input.")
			},
			want: "The command timed out. Please change your command and make sure it doesn't require input.", isError: true},
		{name: "a text of no observation shape is kept as it is",
			trajectory: func(t *testing.T) string { return miniTextTrajectory(t, "diff --git a/x.py b/x.py\n") },
			want:       "diff --git a/x.py b/x.py\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := MiniSWEAgent{}.Read(strings.NewReader(tt.trajectory(t)), Options{Source: "inline", MaxResultBytes: tt.max})
			require.NoError(t, err)
			require.Len(t, s.Calls, 1)
			c := s.Calls[0]
			assert.Equal(t, tt.want, c.Result)
			assert.Equal(t, tt.isError, c.IsError)
			assert.True(t, c.HasResult)
			assert.Empty(t, s.Warnings)
		})
	}
}
