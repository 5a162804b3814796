package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first thing the user asked is the session's Prompt: the task in the
// user's words, which dataset rows take for their query.
func TestThePromptIsTheUsersFirstMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format, doc, want string
	}{
		{name: "a Gemini CLI session's first user message", format: "gemini-cli",
			doc: `{"sessionId":"s1","projectHash":"p1","startTime":"2026-03-02T11:00:00.000Z","messages":[` +
				`{"id":"m1","timestamp":"2026-03-02T11:00:02.000Z","type":"user","content":[{"text":"  Why do expired tokens pass?\n"}]},` +
				`{"id":"m2","timestamp":"2026-03-02T11:00:04.000Z","type":"gemini","content":"Looking."},` +
				`{"id":"m3","timestamp":"2026-03-02T11:00:06.000Z","type":"user","content":"And sessions?"}]}`,
			want: "Why do expired tokens pass?"},
		{name: "a Codex rollout's first user_message event, not the instructions it sends as user messages", format: "codex",
			doc: `{"timestamp":"2026-03-02T11:00:00.000Z","type":"session_meta","payload":{"id":"c1","cwd":"/repo","timestamp":"2026-03-02T11:00:00.000Z"}}` + "\n" +
				`{"timestamp":"2026-03-02T11:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]}}` + "\n" +
				`{"timestamp":"2026-03-02T11:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"Fix the expiry check\n","images":[]}}` + "\n" +
				`{"timestamp":"2026-03-02T11:00:09.000Z","type":"event_msg","payload":{"type":"user_message","message":"Now the tests"}}` + "\n",
			want: "Fix the expiry check"},
		{name: "an OpenHands event list's first user message", format: "openhands",
			doc: `[{"id":0,"timestamp":"2026-03-02T12:00:00","source":"user","message":"Run the tests.","action":"message","args":{"content":"Run the tests."}},` +
				`{"id":1,"timestamp":"2026-03-02T12:00:01","source":"agent","message":"On it.","action":"message","args":{"content":"On it."}},` +
				`{"id":2,"timestamp":"2026-03-02T12:00:02","source":"user","message":"And lint.","action":"message","args":{"content":"And lint."}}]`,
			want: "Run the tests."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader(tc.doc), Options{Format: tc.format, Source: "prompt"})
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Prompt)
		})
	}
}
