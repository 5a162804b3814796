package trace

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const claudeFixtures = "../testdata/traces/claude"

// claudeReadFixture reads a fixture through format detection.
func claudeReadFixture(t *testing.T, name string, opts Options) *Session {
	t.Helper()
	sess, err := ReadFile(filepath.Join(claudeFixtures, name), opts)
	require.NoError(t, err)
	return sess
}

// claudeReadString reads an inline trace with the given format forced.
func claudeReadString(t *testing.T, f Format, lines ...string) (*Session, error) {
	t.Helper()
	return f.Read(strings.NewReader(strings.Join(lines, "\n")), Options{Source: "inline.jsonl"})
}

// claudeCall is the part of a ToolCall the fixture tests compare.
type claudeCall struct {
	ID, Name  string
	HasResult bool
	Subagent  bool
	ParentID  string
}

func claudeCalls(s *Session) []claudeCall {
	out := make([]claudeCall, len(s.Calls))
	for i, c := range s.Calls {
		out[i] = claudeCall{ID: c.ID, Name: c.Name, HasResult: c.HasResult, Subagent: c.Subagent, ParentID: c.ParentID}
	}
	return out
}

func claudeTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestClaudeSubagentCallsBelongToTheirTask(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "subagent-task.claude.jsonl", Options{})
	assert.Equal(t, "claude-code", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []claudeCall{
		{ID: "toolu_task", Name: "Task", HasResult: true},
		{ID: "toolu_grep", Name: "Grep", HasResult: true, Subagent: true, ParentID: "toolu_task"},
		{ID: "toolu_read", Name: "Read", HasResult: true, Subagent: true, ParentID: "toolu_task"},
	}, claudeCalls(s))
	assert.Equal(t, "    10→type Config struct {\n    11→\tretryLimit int // attempts before giving up\n    12→}", s.Calls[2].Result)
	assert.Equal(t, "retryLimit is a field of Config in internal/client/config.go, line 11.", s.Calls[0].Result)
	assert.JSONEq(t, `{"file_path":"/workspace/internal/client/config.go","offset":10,"limit":3}`, string(s.Calls[2].Arguments))
	assert.Equal(t, claudeTime("2025-09-07T10:00:06Z"), s.Calls[2].Time)
	assert.Equal(t, claudeTime("2025-09-07T10:00:00Z"), s.Start)
	// The subagent's closing text is not the session's answer.
	assert.Equal(t, "The retry limit is the retryLimit field of Config (internal/client/config.go:11).", s.Answer)
	assert.Equal(t, "sess-subagent", s.ID)
	assert.Equal(t, "/workspace", s.CWD)
	assert.Equal(t, "1.0.108", s.AgentVersion)
	assert.Equal(t, "claude-sonnet-4-20250514", s.Model)
	assert.Equal(t, "claude-code", s.Agent)
}

func TestClaudeParallelSubagentsAreMatchedByPrompt(t *testing.T) {
	t.Parallel()
	// The sidechain of the second Task call starts first, so only the
	// prompt tells which call each sidechain belongs to; the failed Task
	// call (no prompt) gets none, and the handlers sidechain chains
	// through a system line.
	s := claudeReadFixture(t, "parallel-subagents.claude.jsonl", Options{})
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []claudeCall{
		{ID: "toolu_bad", Name: "Task", HasResult: true},
		{ID: "toolu_a", Name: "Task", HasResult: true},
		{ID: "toolu_b", Name: "Task", HasResult: true},
		{ID: "toolu_b_glob", Name: "Glob", HasResult: true, Subagent: true, ParentID: "toolu_b"},
		{ID: "toolu_a_grep", Name: "Grep", HasResult: true, Subagent: true, ParentID: "toolu_a"},
		{ID: "toolu_b_read", Name: "Read", HasResult: true, Subagent: true, ParentID: "toolu_b"},
	}, claudeCalls(s))
	assert.True(t, s.Calls[0].IsError)
	assert.Equal(t, "ListUsersHandler (api/users.go) is covered by TestListUsers.", s.Answer)
}

func TestClaudeSidechainWithoutAMatchingPromptFallsBackToTheOpenTask(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","isSidechain":false,"uuid":"a1","message":{"id":"m1","content":[{"type":"tool_use","id":"t_done","name":"Task","input":{"prompt":"first"}}]}}`,
		`{"type":"user","isSidechain":false,"uuid":"u1","message":{"content":[{"type":"tool_result","tool_use_id":"t_done","content":"done"}]}}`,
		`{"type":"assistant","isSidechain":false,"uuid":"a2","message":{"id":"m2","content":[{"type":"tool_use","id":"t_open","name":"Agent","input":{"prompt":"second"}}]}}`,
		`{"type":"user","isSidechain":true,"parentUuid":null,"uuid":"s1","message":{"content":"a prompt rewritten by a hook"}}`,
		`{"type":"assistant","isSidechain":true,"parentUuid":"s1","uuid":"s2","message":{"id":"m3","content":[{"type":"tool_use","id":"t_ls","name":"LS","input":{"path":"/workspace"}}]}}`,
		`{"type":"assistant","isSidechain":true,"parentUuid":"missing","uuid":"s3","message":{"id":"m4","content":[{"type":"tool_use","id":"t_ls2","name":"LS","input":{"path":"/tmp"}}]}}`,
	)
	require.NoError(t, err)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []claudeCall{
		{ID: "t_done", Name: "Task", HasResult: true},
		{ID: "t_open", Name: "Agent"},
		{ID: "t_ls", Name: "LS", Subagent: true, ParentID: "t_open"},
		{ID: "t_ls2", Name: "LS", Subagent: true, ParentID: "t_open"},
	}, claudeCalls(s))
}

func TestClaudeReadThroughBashKeepsArgumentsAndResults(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "read-through-bash.claude.jsonl", Options{})
	assert.Empty(t, s.Warnings, "the summary line is ignored silently")
	require.Len(t, s.Calls, 4)
	assert.Equal(t, []string{"Grep", "Bash", "Bash", "Read"}, []string{s.Calls[0].Name, s.Calls[1].Name, s.Calls[2].Name, s.Calls[3].Name})
	assert.JSONEq(t, `{"command":"sed -n '42,48p' /workspace/config/parse.go","description":"Show ParseConfig"}`, string(s.Calls[1].Arguments))
	assert.Equal(t, "func ParseConfig(r io.Reader) (*Config, error) {\n\tdata, err := io.ReadAll(r)\n\tif len(data) == 0 {\n\t\treturn nil, errors.New(\"config: empty file\")\n\t}\n\tvar c Config\n\treturn &c, json.Unmarshal(data, &c)", s.Calls[1].Result)
	assert.False(t, s.Calls[1].IsError)
	assert.True(t, s.Calls[2].HasResult, "an empty output is still a result")
	assert.Empty(t, s.Calls[2].Result)
	// Text blocks of an array result are joined with "\n"; the image is left out.
	assert.Equal(t, "     1→package config\n     2→\n     3→import \"testing\"\n     4→// Résumé: «empty» → error", s.Calls[3].Result)
	assert.Equal(t, `ParseConfig returns "config: empty file" when the input has no bytes (config/parse.go:44).`, s.Answer)
}

func TestClaudeRepeatedUsageIsCountedOncePerMessage(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "repeated-usage.claude.jsonl", Options{})
	assert.Empty(t, s.Warnings)
	// By hand, from the fixture (input + cache creation + cache read + output):
	//   msg_1, three lines, output 10, 10, 57 → max 57: 3 + 1000 + 2000 + 57 = 3060
	//   msg_2, two lines, same usage:                   5 +  200 + 3000 + 40 = 3245 → 6305
	//   line without a message id, its own message:     2 +    0 + 3200 + 12 = 3214 → 9519
	// Summing every line instead would give 3·3070 − 47 + 2·3245 + 3214 = 18820.
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{
		InputTokens:         (3 + 5 + 2) + (1000 + 200) + (2000 + 3000 + 3200),
		OutputTokens:        57 + 40 + 12,
		CacheReadTokens:     2000 + 3000 + 3200,
		CacheCreationTokens: 1000 + 200,
	}, *s.Usage)
	assert.Equal(t, int64(9519), s.Usage.Total())
	want := []int64{3060, 3060, 6305, 9519}
	require.Len(t, s.Calls, len(want))
	for i, c := range s.Calls {
		require.NotNil(t, c.CumulativeTokens, "call %d", i)
		assert.Equal(t, want[i], *c.CumulativeTokens, "call %d (%s)", i, c.Name)
	}
}

func TestClaudeTraceWithoutUsageHasNoTokenCounts(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/workspace/a.go"}}]}}`,
	)
	require.NoError(t, err)
	assert.Nil(t, s.Usage)
	require.Len(t, s.Calls, 1)
	assert.Nil(t, s.Calls[0].CumulativeTokens)
	assert.False(t, s.Calls[0].HasResult)
}

func TestClaudeTruncatedLastLineIsSkippedWithAWarning(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "truncated-last-line.claude.jsonl", Options{})
	assert.Equal(t, []Warning{{
		Source:  filepath.Join(claudeFixtures, "truncated-last-line.claude.jsonl"),
		Line:    5,
		Message: "invalid JSON: unexpected end of input; line skipped",
	}}, s.Warnings)
	assert.Equal(t, []claudeCall{
		{ID: "toolu_ls", Name: "Bash", HasResult: true},
		{ID: "toolu_find", Name: "Bash"},
	}, claudeCalls(s))
	assert.Equal(t, "cmd\ninternal\ngo.mod", s.Calls[0].Result)
}

func TestClaudeUnmatchedResultIsReported(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "unmatched-result.claude.jsonl", Options{Source: "unmatched"})
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, `unmatched:2: tool_result for unknown tool_use id "toolu_gone"; result dropped`, s.Warnings[0].String())
	assert.Equal(t, []claudeCall{
		{ID: "toolu_build", Name: "Bash"},
		{ID: "toolu_vet", Name: "Bash", HasResult: true},
	}, claudeCalls(s))
}

func TestClaudeMalformedLinesAreSkippedWithWarnings(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "malformed-lines.claude.jsonl", Options{Source: "m.jsonl"})
	got := warningStrings(s)
	assert.Equal(t, []string{
		"m.jsonl:2: expected a JSON object, found array; line skipped",
		"m.jsonl:3: invalid JSON: invalid character 'o' at offset 1 (expected literal null); line skipped",
		"m.jsonl:4: field message: expected object, found string; line skipped",
		"m.jsonl:5: field message.content[0].id: expected string, found number; line skipped",
		"m.jsonl:6: missing field type; line skipped",
		`m.jsonl:7: field timestamp: "2025-09-07T10:00:xx.000Z" is not an RFC 3339 time; time ignored`,
	}, got)
	assert.Equal(t, []claudeCall{{ID: "toolu_glob", Name: "Glob", HasResult: true}}, claudeCalls(s))
	assert.True(t, s.Calls[0].Time.IsZero())
}

func TestClaudeInputWithNoJSONObjectIsAnError(t *testing.T) {
	t.Parallel()
	for _, f := range []Format{ClaudeCode{}, ClaudeStreamJSON{}} {
		_, err := claudeReadString(t, f, "this is not", "a trace")
		require.Error(t, err)
		assert.Equal(t, "inline.jsonl: not a "+f.Name()+" trace: no line holds a JSON object (line 1: invalid JSON: invalid character 'h' at offset 1 (expected literal true); line skipped)", err.Error())
		_, err = claudeReadString(t, f, "[1]", "2")
		assert.ErrorContains(t, err, "no line holds a JSON object (line 1: expected a JSON object, found array; line skipped)")
	}
}

func TestClaudeReadErrorsNameTheSource(t *testing.T) {
	t.Parallel()
	_, err := ClaudeCode{}.Read(claudeFailingReader{}, Options{Source: "broken.jsonl"})
	require.Error(t, err)
	assert.ErrorIs(t, err, claudeErrDisk)
	assert.Equal(t, "broken.jsonl:1: reading claude-code trace: disk on fire", err.Error())
}

var claudeErrDisk = errors.New("disk on fire")

type claudeFailingReader struct{}

func (claudeFailingReader) Read([]byte) (int, error) { return 0, claudeErrDisk }

func TestClaudeStreamSubagentLinesNameTheirParent(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "subagent.stream.jsonl", Options{})
	assert.Equal(t, "claude-stream-json", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []claudeCall{
		{ID: "toolu_task", Name: "Task", HasResult: true},
		{ID: "toolu_grep", Name: "Grep", HasResult: true, Subagent: true, ParentID: "toolu_task"},
		{ID: "toolu_read", Name: "Read", HasResult: true, Subagent: true, ParentID: "toolu_task"},
	}, claudeCalls(s))
	assert.Equal(t, "The server starts in cmd/server/main.go, line 31.", s.Answer)
	assert.True(t, s.Start.IsZero())
	// Per message (input + cache creation + cache read + output):
	// msg_1 504, msg_s1 303, msg_s2 403, msg_s3 453, msg_2 584.
	var got []int64
	for _, c := range s.Calls {
		got = append(got, *c.CumulativeTokens)
	}
	assert.Equal(t, []int64{504, 504 + 303, 504 + 303 + 403}, got)
	// Field by field, the larger of the message sum (12, 1030, 1200, 5) and
	// the result line's total (6, 580, 500, 95).
	assert.Equal(t, &Usage{InputTokens: 12 + 1030 + 1200, OutputTokens: 95, CacheReadTokens: 1200, CacheCreationTokens: 1030}, s.Usage)
}

func TestClaudeStreamInitLineDescribesTheSession(t *testing.T) {
	t.Parallel()
	s := claudeReadFixture(t, "init-tools.stream.jsonl", Options{})
	assert.Equal(t, "claude-stream-json", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []string{"Task", "Bash", "Glob", "Grep", "Read", "mcp__sourcegraph__keyword_search", "mcp__sourcegraph__read_file"}, s.Tools)
	assert.Equal(t, "stream-sess", s.ID)
	assert.Equal(t, "/workspace", s.CWD)
	assert.Equal(t, "claude-sonnet-4-20250514", s.Model)
	assert.Equal(t, "2.1.19", s.AgentVersion)
	assert.Equal(t, []claudeCall{
		{ID: "toolu_ks", Name: "mcp__sourcegraph__keyword_search", HasResult: true},
		{ID: "toolu_rf", Name: "mcp__sourcegraph__read_file", HasResult: true},
	}, claudeCalls(s))
	assert.Equal(t, `{"file":"internal/http/router.go","line":17,"preview":"func NewRouter() *Router {"}`, s.Calls[0].Result)
	assert.Equal(t, int64(2004), *s.Calls[0].CumulativeTokens)
	assert.Equal(t, int64(2004+2155), *s.Calls[1].CumulativeTokens)
	assert.Equal(t, &Usage{InputTokens: 11 + 2190 + 4150, OutputTokens: 164, CacheReadTokens: 4150, CacheCreationTokens: 2190}, s.Usage)
	assert.Equal(t, "NewRouter is defined in internal/http/router.go:17.", s.Answer)
}

func TestClaudeStreamWithoutResultLineAnswersWithTheLastMainText(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeStreamJSON{},
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"main text"}]},"parent_tool_use_id":null,"session_id":"s"}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"subagent text"}]},"parent_tool_use_id":"t1","session_id":"s"}`,
	)
	require.NoError(t, err)
	assert.Equal(t, "main text", s.Answer)
}

func TestClaudeMaxResultBytesCutsResults(t *testing.T) {
	t.Parallel()
	full := claudeReadFixture(t, "read-through-bash.claude.jsonl", Options{})
	for _, max := range []int{1, 7, 8, 9, 20, 22, 23, 1000} {
		cut := claudeReadFixture(t, "read-through-bash.claude.jsonl", Options{MaxResultBytes: max})
		require.Len(t, cut.Calls, len(full.Calls))
		for i, c := range cut.Calls {
			want := full.Calls[i].Result
			for len(want) > max || !utf8.ValidString(want) {
				want = want[:len(want)-1]
			}
			assert.Equal(t, want, c.Result, "call %d cut at %d", i, max)
		}
	}
}

func TestClaudeDuplicateIDsAreReported(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"b"}]}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","content":"c"}]}}`,
	)
	require.NoError(t, err)
	got := warningStrings(s)
	assert.Equal(t, []string{
		`inline.jsonl:2: second tool_use with id "t1"; call ignored`,
		`inline.jsonl:4: second tool_result for tool_use id "t1"; ignored`,
		`inline.jsonl:5: tool_result without tool_use_id; result dropped`,
	}, got)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "a", s.Calls[0].Result)
}

func TestClaudeSyntheticModelIsNotTheSessionModel(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","sessionId":"s","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}`,
		`{"type":"assistant","sessionId":"s","message":{"model":"claude-opus-4-5","content":[{"type":"text","text":"done"}]}}`,
	)
	require.NoError(t, err)
	assert.Equal(t, "claude-opus-4-5", s.Model)
}

func TestClaudeByteOrderMarkIsIgnored(t *testing.T) {
	t.Parallel()
	s, err := Read(strings.NewReader("\xef\xbb\xbf"+`{"type":"summary","sessionId":"bom","summary":"x"}`+"\n"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "claude-code", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, "bom", s.ID)
}

func TestClaudeInterleavedMessageLinesCountUpToTheirOwnMessage(t *testing.T) {
	t.Parallel()
	// Parallel subagents write as they go, so a later line of message m1
	// can follow a line of message m2. Messages are ordered by first
	// appearance: m1 (10 tokens) then m2 (100), whichever line comes last.
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}],"usage":{"input_tokens":4,"output_tokens":6}}}`,
		`{"type":"assistant","isSidechain":true,"message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{}}],"usage":{"input_tokens":90,"output_tokens":10}}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t3","name":"Glob","input":{}}],"usage":{"input_tokens":4,"output_tokens":6}}}`,
	)
	require.NoError(t, err)
	var got []int64
	for _, c := range s.Calls {
		got = append(got, *c.CumulativeTokens)
	}
	assert.Equal(t, []int64{10, 110, 10}, got)
	assert.Equal(t, int64(110), s.Usage.Total())
}

// A field the reader skips is checked as JSON but for its strings'
// content, which it never reads: a control character in toolUseResult
// costs the line nothing; a toolUseResult whose string swallows the rest
// of the line is still a malformed line, reported and skipped.
func TestClaudeSkippedFieldsAreCheckedButForTheirStrings(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
		"{\"type\":\"user\",\"sessionId\":\"s\",\"toolUseResult\":{\"stdout\":\"a\tb \\\"q\\\" \\\\\",\"e\":\"\\ud83d\\ude00\"},\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"a.go\"}]}}",
		`{"type":"assistant","sessionId":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"pwd"}}]}}`,
		`{"type":"user","sessionId":"s","toolUseResult":{"stdout":"x\"}, "message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"/w"}]}}`,
	)
	require.NoError(t, err)
	assert.Equal(t, []string{"inline.jsonl:4: invalid JSON: invalid character 'm' at offset 65 (expected ',' or '}' after object member); line skipped"}, warningStrings(s))
	require.Len(t, s.Calls, 2)
	assert.Equal(t, "a.go", s.Calls[0].Result)
	assert.False(t, s.Calls[1].HasResult)
}

// Token counts are integers of any size int64 holds, negative ones
// included; a fraction or a count past int64 makes the line malformed.
func TestClaudeTokenCounts(t *testing.T) {
	t.Parallel()
	line := func(id, n string) string {
		return `{"type":"assistant","sessionId":"s","message":{"id":"` + id + `","content":[],"usage":{"input_tokens":` + n + `,"output_tokens":0}}}`
	}
	tests := []struct {
		n    string
		want int64
		warn string
	}{
		{"0", 0, ""},
		{"123456789012345678", 123456789012345678, ""},
		{"9223372036854775807", 9223372036854775807, ""},
		{"-3", -1, ""}, // read without a warning (the sums are tested elsewhere)
		{"1.5", 0, "inline.jsonl:1: field message.usage.input_tokens: expected integer, found number; line skipped"},
		{"9223372036854775808", 0, "inline.jsonl:1: field message.usage.input_tokens: expected integer, found number; line skipped"},
	}
	for _, tt := range tests {
		s, err := claudeReadString(t, ClaudeCode{}, line("m1", tt.n), line("m2", "0"))
		require.NoError(t, err, tt.n)
		if tt.warn != "" {
			assert.Equal(t, []string{tt.warn}, warningStrings(s), tt.n)
			continue
		}
		assert.Empty(t, s.Warnings, tt.n)
		if tt.want >= 0 {
			require.NotNil(t, s.Usage, tt.n)
			assert.Equal(t, tt.want, s.Usage.InputTokens, tt.n)
		}
	}
}

// The Claude reader checks a tool_use's input as JSON while it reads the
// line, strings included, and says so; a line whose input is not valid
// JSON gives no call at all.
func TestClaudeCallsSayTheirArgumentsWereChecked(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a.go","content":"x\ny"}}]}}`,
		`{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"b.go","content":"bad \q"}}]}}`,
		`{"type":"assistant","uuid":"a3","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"LS"}]}}`,
	)
	require.NoError(t, err)
	require.Len(t, s.Calls, 2, "the line with an invalid escape in an input is skipped")
	assert.NotEmpty(t, s.Warnings)
	assert.True(t, s.ArgumentsChecked(0))
	assert.False(t, s.ArgumentsChecked(1), "a call without input has nothing checked")
	assert.False(t, s.ArgumentsChecked(2), "no such call")
	assert.False(t, s.ArgumentsChecked(-1), "no such call")

	checked := s.Calls[0].Arguments
	s.Calls[0].Arguments = []byte(`{"file_path":"a.go","content":"x\ny"}`)
	assert.False(t, s.ArgumentsChecked(0), "arguments replaced by equal bytes elsewhere were not checked")
	s.Calls[0].Arguments = checked[:len(checked)-1]
	assert.False(t, s.ArgumentsChecked(0), "a part of the checked arguments is not them")
	s.Calls[0].Arguments = checked[1:]
	assert.False(t, s.ArgumentsChecked(0), "a part of the checked arguments is not them")
	s.Calls[0].Arguments = checked
	assert.True(t, s.ArgumentsChecked(0), "the checked arguments put back")
	s.Calls[0].Arguments = nil
	assert.False(t, s.ArgumentsChecked(0), "no arguments")

	built := &Session{}
	built.AddCall(ToolCall{Arguments: []byte(`{}`)})
	assert.False(t, built.ArgumentsChecked(0), "a call a program builds")
}

// A call read from a Claude Code trace is plain data: it equals, field
// for field, the same call written as a literal, whatever the reader
// noted of it on the side (that it checked the arguments).
func TestClaudeCallEqualsItsLiteral(t *testing.T) {
	t.Parallel()
	s, err := claudeReadString(t, ClaudeCode{},
		`{"type":"assistant","uuid":"a1","timestamp":"2025-01-02T03:04:05Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}]}}`,
		`{"type":"user","uuid":"u1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1\tpackage a"}]}}`,
	)
	require.NoError(t, err)
	require.Len(t, s.Calls, 1)
	require.True(t, s.ArgumentsChecked(0))
	want := ToolCall{
		Index:     0,
		ID:        "t1",
		Name:      "Read",
		Arguments: json.RawMessage(`{"file_path":"/w/a.go"}`),
		Result:    "1\tpackage a",
		HasResult: true,
		Time:      time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	assert.Equal(t, want, s.Calls[0])
	assert.True(t, reflect.DeepEqual(want, s.Calls[0]), "reflect.DeepEqual as well as testify's Equal")
}

// A call handed over says its arguments were checked while CallDone looks
// at it, whatever order the results come in; once released, the session
// keeps nothing of it, and a call kept says so still.
func TestClaudeCheckedArgumentsGoWithTheirCall(t *testing.T) {
	t.Parallel()
	use := func(id string) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{"file_path":"` + id + `.go"}}]}}`
	}
	result := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"x"}]}}`
	}
	for _, drop := range []bool{false, true} {
		var seen []string
		opts := Options{Source: "inline.jsonl", DropReleased: drop, CallDone: func(s *Session, i int) bool {
			assert.True(t, s.ArgumentsChecked(i), "call %d", i)
			seen = append(seen, s.Call(i).ID)
			return s.Call(i).ID != "t3" // t3 is kept
		}}
		s, err := ClaudeCode{}.Read(strings.NewReader(strings.Join([]string{
			use("t1"), use("t2"), use("t3"), use("t4"), result("t2"), result("t4"), result("t1"), result("t3"),
		}, "\n")), opts)
		require.NoError(t, err)
		assert.Equal(t, []string{"t2", "t4", "t1", "t3"}, seen)
		require.Len(t, s.checked, 1, "only the kept call's arguments are held")
		assert.Equal(t, 2, s.checked[0].i)
		assert.True(t, s.ArgumentsChecked(2), "the kept call")
		for _, i := range []int{0, 1, 3} {
			assert.False(t, s.ArgumentsChecked(i), "released call %d", i)
		}
	}
}
