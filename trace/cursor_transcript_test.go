package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cursorTranscriptFixtures = filepath.Join("testdata", "cursor-agent-transcript")

func TestCursorTranscriptFixtureIsReadAsWritten(t *testing.T) {
	t.Parallel()
	s, err := ReadFile(filepath.Join(cursorTranscriptFixtures, "read-grep-write.jsonl"), Options{Source: "t.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, "cursor-agent-transcript", s.Format)
	assert.Equal(t, "Fix the typo in README.md", s.Prompt, "the user's words, out of <user_query>")
	assert.Equal(t, "Fixed.", s.Answer)
	assert.Equal(t, []atifRow{
		{Name: "Grep", Args: `{"pattern":"teh","path":"/home/dev/shop"}`, Cum: -1},
		{Name: "Read", Args: `{"path":"/home/dev/shop/README.md","offset":10,"limit":5}`, Cum: -1},
		{Name: "Write", Args: `{"path":"/home/dev/shop/README.md","contents":"the shop\n"}`, Cum: -1},
	}, atifRows(t, s))
	assert.Equal(t, []string{
		"t.jsonl:3: line skipped: expected a message object with role and message.content",
		"t.jsonl:4: tool_use without a name, skipped",
	}, warningStrings(s))
}

func TestCursorTranscriptDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       bool
	}{
		{"a transcript", `{"role":"user","message":{"content":[]}}` + "\n", true},
		{"a Claude Code line has more keys", `{"type":"user","role":"user","message":{"content":[]}}`, false},
		{"a chat message has its content at the top", `{"role":"user","content":"hi"}`, false},
		{"a message that is not an object", `{"role":"user","message":"hi"}`, false},
		{"a role that is not a string", `{"role":1,"message":{}}`, false},
		{"a first line cut short", `{"role":"user","message":{"content":[`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CursorAgentTranscript{}.Detect([]byte(tt.data)))
		})
	}
}

func TestCursorTranscriptRefusesOtherInput(t *testing.T) {
	t.Parallel()
	_, err := CursorAgentTranscript{}.Read(strings.NewReader("x\n{}\n"), Options{Source: "x"})
	assert.EqualError(t, err, "x: not a Cursor agent transcript: no line is a message with role and message.content")
	data, err := os.ReadFile(filepath.Join(ampFixtures, "read-grep-bash-edit.json"))
	require.NoError(t, err)
	_, err = Read(bytes.NewReader(data), Options{Format: "cursor-agent-transcript", Source: "a"})
	assert.Error(t, err)
	assert.Equal(t, "plain", cursorUserQuery("plain"))
	assert.Equal(t, "<user_query>open", cursorUserQuery("<user_query>open"))
}

func FuzzCursorAgentTranscript(f *testing.F) {
	fuzzSeeds(f, filepath.Join(cursorTranscriptFixtures, "*"), []func([]byte) []byte{fuzzCut, fuzzCutByOne, fuzzBrackets})
	f.Fuzz(func(t *testing.T, data []byte) {
		CursorAgentTranscript{}.Detect(data)
		s, err := CursorAgentTranscript{}.Read(bytes.NewReader(data), Options{Source: "fuzz"})
		fuzzCheckRead(t, s, err, 0)
	})
}
