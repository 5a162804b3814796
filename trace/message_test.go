package trace

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conversation lists a session's messages and calls in the order they
// interleave: "user: …", "assistant: …", "reasoning: …" (the role or kind,
// "sub " before a subagent's) and "call N Name".
func conversation(s *Session) []string {
	var out []string
	calls := func(upTo int) {
		for len(out) > 0 || upTo > 0 {
			n := 0
			for _, l := range out {
				if strings.HasPrefix(l, "call ") {
					n++
				}
			}
			if n >= upTo || n >= len(s.Calls) {
				return
			}
			out = append(out, fmt.Sprintf("call %d %s", n, s.Calls[n].Name))
		}
	}
	for _, m := range s.Messages {
		calls(m.Before)
		who := m.Role
		if m.Kind == KindReasoning {
			who = "reasoning"
		}
		if m.Subagent {
			who = "sub " + who
		}
		out = append(out, who+": "+m.Text)
	}
	calls(len(s.Calls))
	return out
}

func TestReadersKeepTheConversationInPlace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file string
		want       []string
	}{
		{"Claude Code keeps prompts, thinking and text, a subagent's marked, without Claude Code's caveat", "testdata/claude-code/conversation.jsonl", []string{
			"user: Why do expired tokens pass?",
			"reasoning: The expiry check must be in token.go.",
			"assistant: Let me read the validation.",
			"call 0 Read",
			"assistant: Who calls it?",
			"call 1 Task",
			"sub user: Find the callers of Validate.",
			"call 2 Grep",
			"sub assistant: One caller: auth/middleware.go.",
			"assistant: The expiry is compared with <= instead of <.",
		}},
		{"a Codex rollout takes what the user typed from its events, reasoning summaries and text from its items, each once", "testdata/codex/conversation.rollout.jsonl", []string{
			"user: Why do expired tokens pass?",
			"reasoning: **Finding the token check**",
			"call 0 shell_command",
			"assistant: ValidateToken compares the expiry with <=.",
		}},
		{"codex exec --json keeps reasoning and the agent's messages; its stream has no user message", "testdata/codex/exec-stream.exec.jsonl", []string{
			"reasoning: **Looking for the discount code**",
			"call 0 shell",
			"call 1 shell",
			"call 2 update_plan",
			"call 3 apply_patch",
			"call 4 update_plan",
			"call 5 docs__search",
			"call 6 web_search",
			"assistant: Fixed the rounding in discount.",
		}},
		{"Gemini CLI puts a message's thoughts and text before its calls, and leaves out info messages", "testdata/gemini-cli/conversation.session.jsonl", []string{
			"user: Why do expired tokens pass?",
			"reasoning: Locating the check: The expiry test is in token.go.",
			"assistant: I will read the token code.",
			"call 0 read_file",
			"user: Go on.",
			"assistant: The expiry is compared with <=.",
		}},
		{"OpenHands keeps messages both ways, an action's thought before it, and the final thought", "testdata/openhands/conversation.json", []string{
			"user: Expired tokens are accepted. Fix it.",
			"assistant: Let me find the validation.",
			"call 0 execute_bash",
			"assistant: Should I also change the tests?",
			"user: Yes.",
			"assistant: Fixed the comparison and its test.",
		}},
		{"OpenHands V1 places a sub-agent's messages with its calls after the delegate calls", "testdata/openhands/v1-delegate", []string{
			"user: Ask a helper to find where prices are rounded.",
			"call 0 delegate",
			"call 1 delegate",
			"sub user: Find where prices are rounded",
			"call 2 grep",
			"sub assistant: prices are rounded in internal/cart/discount.go",
			"call 3 terminal",
		}},
		{"mini-swe-agent keeps the task, the thought without its action block and the harness's feedback, not observations", "testdata/mini-swe-agent/conversation.traj.json", []string{
			"user: Expired tokens are accepted. Fix it.",
			"assistant: THOUGHT: Find the validation code.",
			"call 0 bash",
			"assistant: I am not sure what to run.",
			"user: Please always provide EXACTLY ONE action in triple backticks.",
			"assistant: THOUGHT: Submit.",
			"call 1 bash",
		}},
		{"SWE-agent takes the task from the history, past the demonstration, and each step's thought", "testdata/swe-agent/conversation.traj", []string{
			"user: We're currently solving the following issue: expired tokens are accepted.",
			"assistant: Find where tokens are checked.",
			"call 0 search_dir",
			"assistant: Read the function.",
			"call 1 open",
			"assistant: The comparison is wrong; I am done reading.",
		}},
		{"ATIF places an embedded trajectory's messages after the call that started it", "../testdata/traces/atif/embedded-subagent-v1.7.trajectory.json", []string{
			"user: Fix the tokenizer bug.",
			"assistant: Delegating the search.",
			"call 0 Task",
			"sub user: find the tokenizer",
			"call 1 read_file",
			"call 2 read_file",
			"call 3 list_dir",
			"sub assistant: The tokenizer is in lexer/scan.go.",
			"assistant: Checking callers.",
			"call 4 grep_search",
			"assistant: Done.",
			"call 5 file.read",
		}},
		{"OpenTelemetry keeps the user's message once and the model's text at the end of its span", "testdata/otel/message-parts.otlp.json", []string{
			"user: Where are tokens validated?",
			"call 0 get_file",
			"call 1 search",
			"call 2 get_file",
			"assistant: Tokens are validated in internal/auth/token.go.",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := ReadFile(tc.file, Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, conversation(s))
			for _, m := range s.Messages {
				assert.Zero(t, m.Cut, "no fixture message is long")
			}
		})
	}
}

func TestATIFKeepsReasoningAndLeavesOutSystemAndUnknownSources(t *testing.T) {
	t.Parallel()
	doc := `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"terminus-2","version":"2.0"},"steps":[
 {"step_id":1,"source":"system","message":"You are an AI assistant."},
 {"step_id":2,"source":"user","message":"Create hello.txt."},
 {"step_id":3,"source":"<redacted>","message":"<redacted>"},
 {"step_id":4,"source":"agent","timestamp":"2026-03-02T12:00:05Z","reasoning_content":"A single echo will do.","message":"Creating the file.",
  "tool_calls":[{"tool_call_id":"c1","function_name":"bash_command","arguments":{"keystrokes":"echo hi > hello.txt"}}],
  "observation":{"results":[{"source_call_id":"c1","content":""}]}},
 {"step_id":5,"source":"agent","message":"Done."}]}`
	s, err := Read(strings.NewReader(doc), Options{Format: "atif"})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"user: Create hello.txt.",
		"reasoning: A single echo will do.",
		"assistant: Creating the file.",
		"call 0 bash_command",
		"assistant: Done.",
	}, conversation(s))
	assert.Equal(t, time.Date(2026, 3, 2, 12, 0, 5, 0, time.UTC), s.Messages[1].Time)
}

func TestAMessageIsCutAtACharacterBoundaryAndSaysHowMuchWasLeftOut(t *testing.T) {
	t.Parallel()
	// "é" is two bytes; the cut must not split one.
	long := strings.Repeat("a", MaxMessageBytes-1) + strings.Repeat("é", 100)
	cases := []struct {
		name     string
		text     string
		kept     int
		cut      int
		lastRune string
	}{
		{"a short text is kept whole, trimmed", "  hello \n", 5, 0, "o"},
		{"a text of exactly the cap is kept whole", strings.Repeat("b", MaxMessageBytes), MaxMessageBytes, 0, "b"},
		{"a long text stops before a character the cap would split", long, MaxMessageBytes - 1, len(long) - (MaxMessageBytes - 1), "a"},
		{"a four-byte character the cap would split is left out whole", strings.Repeat("a", MaxMessageBytes-2) + strings.Repeat("😀", 10), MaxMessageBytes - 2, 40, "a"},
		{"bytes that start no character are cut at the cap", strings.Repeat("\x80", MaxMessageBytes+10), MaxMessageBytes, 10, "\x80"},
		{"white space at the cut is not kept, and counts as cut", strings.Repeat("c", MaxMessageBytes-2) + "   " + strings.Repeat("d", 10), MaxMessageBytes - 2, 13, "c"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s Session
			s.AddMessage(RoleUser, KindText, tc.text, time.Time{}, false)
			s.addMessageBytes(RoleAssistant, KindText, []byte(tc.text), time.Time{}, false)
			require.Len(t, s.Messages, 2)
			for _, m := range s.Messages {
				assert.Len(t, m.Text, tc.kept)
				assert.Equal(t, tc.cut, m.Cut)
				assert.True(t, strings.HasSuffix(m.Text, tc.lastRune))
				assert.LessOrEqual(t, len(m.Text), MaxMessageBytes)
			}
		})
	}
	t.Run("a text of white space alone is not a message", func(t *testing.T) {
		t.Parallel()
		var s Session
		s.AddMessage(RoleUser, KindText, " \n\t ", time.Time{}, false)
		assert.Empty(t, s.Messages)
	})
}

func TestALongMessageInATraceIsCut(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("token ", 2000) // 12,000 bytes
	line := fmt.Sprintf(`{"type":"user","sessionId":"s","timestamp":"2026-10-02T14:00:00.000Z","message":{"role":"user","content":%q}}`, text)
	s, err := Read(strings.NewReader(line+"\n"), Options{Format: "claude-code"})
	require.NoError(t, err)
	require.Len(t, s.Messages, 1)
	m := s.Messages[0]
	assert.Equal(t, MaxMessageBytes, len(m.Text), "cut at the cap (in the middle of a word)")
	assert.Equal(t, len(strings.TrimSpace(text))-len(m.Text), m.Cut)
}

// TestSamplesKeepTheirConversation checks the messages read from real
// traces against what the files hold, counted independently.
func TestSamplesKeepTheirConversation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		// first lists the first entries of the conversation.
		first []string
		// reasoning and text count the messages of each kind.
		reasoning, text int
	}{
		{"codex/acidicsoil-*.jsonl", []string{"call 0 shell"}, 37, 1},
		{"gemini-cli/skillsbench-*.json", []string{"call 0 read_file"}, 8, 11},
		{"swe-agent/gpt4-pydicom*.traj", []string{"call 0 create"}, 0, 13},
		{"openhands/openhands-runtime-trajs-basic_gui_mode.json", []string{"call 0 execute_bash"}, 0, 6},
		{"mini-swe-agent/deepseek-*.traj.json", []string{"call 0 bash"}, 0, 38},
		{"atif/harbor-golden-terminus2-hello-world-invalid-json.trajectory.json", []string{"call 0 bash_command"}, 4, 5},
		{"claude-code-jsonl/dkimuson-1af7fc5e-*.jsonl", []string{"call 0 TodoWrite"}, 0, 5},
	}
	for _, tc := range cases {
		t.Run(tc.pattern, func(t *testing.T) {
			t.Parallel()
			for _, f := range sampleFiles(t, tc.pattern) {
				s, err := ReadFile(f, Options{})
				require.NoError(t, err, filepath.Base(f))
				conv := conversation(s)
				var calls []string
				reasoning, text := 0, 0
				for _, l := range conv {
					switch {
					case strings.HasPrefix(l, "call "):
						calls = append(calls, l)
					case strings.HasPrefix(l, "reasoning: "):
						reasoning++
					default:
						text++
					}
				}
				assert.Equal(t, tc.first, calls[:len(tc.first)])
				assert.Equal(t, tc.reasoning, reasoning, "reasoning messages")
				assert.Equal(t, tc.text, text, "text messages")
				assert.Len(t, calls, len(s.Calls), "every call listed once")
				for i := 1; i < len(s.Messages); i++ {
					assert.LessOrEqual(t, s.Messages[i-1].Before, s.Messages[i].Before, "messages in call order")
				}
				assert.NotEmpty(t, s.Messages)
			}
		})
	}
}

func TestSkipMessagesKeepsNone(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		"testdata/claude-code/conversation.jsonl",
		"testdata/codex/conversation.rollout.jsonl",
		"testdata/codex/exec-stream.exec.jsonl",
		"testdata/gemini-cli/conversation.session.jsonl",
		"testdata/openhands/conversation.json",
		"testdata/mini-swe-agent/conversation.traj.json",
		"testdata/swe-agent/conversation.traj",
		"../testdata/traces/atif/embedded-subagent-v1.7.trajectory.json",
		"testdata/otel/message-parts.otlp.json",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			all, err := ReadFile(file, Options{})
			require.NoError(t, err)
			require.NotEmpty(t, all.Messages)
			s, err := ReadFile(file, Options{SkipMessages: true})
			require.NoError(t, err)
			assert.Nil(t, s.Messages)
			assert.Len(t, s.Calls, len(all.Calls), "the calls are the same")
		})
	}
}
