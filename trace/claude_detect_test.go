package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClaudeDetect(t *testing.T) {
	t.Parallel()
	const (
		none    = ""
		session = "claude-code"
		stream  = "claude-stream-json"
	)
	longLine := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"content":"` + strings.Repeat("x", 100) // cut by the prefix limit
	tests := []struct {
		name   string
		prefix string
		want   string
	}{
		{"a session user line is a session", `{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}` + "\n", session},
		{"a session starting with a summary line is a session", `{"type":"summary","summary":"Fix tests","leafUuid":"u9"}` + "\n" + `{"parentUuid":null}`, session},
		{"a session starting with a queue operation is a session", `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-06-05T04:56:32.693Z"}`, session},
		{"a file history snapshot is a session", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`, session},
		{"a last-prompt line is a session", `{"type":"last-prompt","lastPrompt":"x"}`, session},
		{"a first line cut by the prefix limit still counts", longLine, session},
		{"keys decide, wherever the type is", `{"message":{"content":[]},"sessionId":"s","type":"assistant"}`, session},
		{"a stream init line is stream-json", `{"type":"system","subtype":"init","cwd":"/root","session_id":"s","tools":["Bash"]}` + "\n", stream},
		{"an init line without a session id is stream-json", `{"subtype":"init","type":"system"}`, stream},
		{"stream message lines are stream-json", `{"type":"assistant","message":{"content":[]},"parent_tool_use_id":null,"session_id":"s"}`, stream},
		{"a lone result line is stream-json", `{"type":"result","subtype":"success","result":"4","session_id":"s"}`, stream},
		{"lines without evidence are skipped until one shows it", `{"type":"user","message":{"content":"hi"}}` + "\n\n" + `{"type":"user","sessionId":"s"}`, session},
		{"white space around lines is ignored", " \t{\"type\":\"summary\"}\r\n", session},

		{"a pretty-printed ATIF document is neither", "{\n  \"schema_version\": \"ATIF-v1.5\",\n  \"session_id\": \"s\",\n  \"steps\": []\n}\n", none},
		{"a one-line ATIF document is neither", `{"session_id":"s","agent":{"name":"claude-code"},"schema_version":"ATIF-v1.6","steps":[]}`, none},
		{"tool-call records are neither", `{"toolCalls":[{"tool":"Read","arguments":{"file_path":"a.go"},"result":"x","sessionId":"s"}]}`, none},
		{"a bare array of records is neither", `[{"tool":"Read","arguments":{},"sessionId":"s"}]`, none},
		{"an OpenHands event list is neither", `[{"id":0,"timestamp":"2025-01-01T00:00:00","source":"user","message":"hi","action":"message"}]`, none},
		{"a Codex rollout is neither", `{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`, none},
		{"a Gemini CLI stream is neither", `{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"gemini-2.5-pro"}`, none},
		{"session keys nested in a string are no evidence", `{"type":"user","message":{"content":"{\"sessionId\":\"s\",\"isSidechain\":true}"}}`, none},
		{"session keys nested in an object are no evidence", `{"type":"user","meta":{"sessionId":"s"}}`, none},
		{"a complete line that is not JSON is neither", `{"sessionId": }` + "\n" + `{"sessionId":"s"}`, none},
		{"a first line that is not an object is neither", "# notes\n" + `{"sessionId":"s"}`, none},
		{"plain text is neither", "hello world\n", none},
		{"empty input is neither", "", none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := none
			if (ClaudeCode{}).Detect([]byte(tt.prefix)) {
				got = session
			}
			if (ClaudeStreamJSON{}).Detect([]byte(tt.prefix)) {
				require.Equal(t, none, got, "both formats claim the input")
				got = stream
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
