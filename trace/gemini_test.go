package trace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var geminiFixtures = filepath.Join("testdata", "gemini-cli")

// geminiReadFixture reads a fixture through trace.ReadFile, so detection
// is exercised too.
func geminiReadFixture(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join(geminiFixtures, name), Options{})
	require.NoError(t, err)
	require.Equal(t, "gemini-cli", s.Format, "detected format")
	return s
}

func TestGeminiFixturesAreReadAsRecorded(t *testing.T) {
	t.Parallel()
	const call = "2026-02-01T09:00:05Z" // the fixtures' tool call time
	tests := []struct {
		name string
		file string
		want []atifRow
		// warnings lists the expected warnings, "line: text" (a prefix).
		warnings []string
	}{
		{
			name: "a minimal recording has its read and the read's output",
			file: "minimal.session.jsonl",
			want: []atifRow{{ID: "read_file-1", Name: "read_file", Args: `{"file_path":"/work/app/main.go"}`,
				Result: "package main\n\nfunc main() {}\n", HasResult: true, Time: call, Cum: 1200 + 60 + 40}},
		},
		{
			name: "a call recorded while its tool ran has no result and is no error",
			file: "call-without-result.session.jsonl",
			want: []atifRow{{ID: "run_shell_command-1", Name: "run_shell_command", Args: `{"command":"go test ./...","description":"Run the tests"}`,
				Time: call, Cum: 930}},
		},
		{
			name: "error and cancelled calls are errors with their messages as results",
			file: "error-result.session.jsonl",
			want: []atifRow{
				{ID: "read_file-1", Name: "read_file", Args: `{"file_path":"/work/app/READ_ME.md"}`,
					Result: "File not found: /work/app/READ_ME.md", HasResult: true, IsError: true, Time: call, Cum: 850},
				{ID: "run_shell_command-2", Name: "run_shell_command", Args: `{"command":"rm -rf build"}`,
					Result: "[Operation Cancelled] Reason: User cancelled the operation.", HasResult: true, IsError: true, Time: call, Cum: 850},
				{ID: "replace-3", Name: "replace", Args: `{"file_path":"/work/app/README.md","old_string":"teh","new_string":"the"}`,
					Result: "Successfully modified file: /work/app/README.md (1 replacements).", HasResult: true, Time: call, Cum: 850 + 990},
			},
		},
		{
			name: "a rewritten message replaces the earlier record and a rewind drops the calls after its target",
			file: "rewind.session.jsonl",
			want: []atifRow{
				{ID: "grep_search-1", Name: "grep_search", Args: `{"pattern":"func Parse","dir_path":"/work/app"}`,
					Result: "Found 1 match\n/work/app/parse.go:12: func Parse(s string) (*Doc, error) {", HasResult: true, Time: call, Cum: 1030},
				{ID: "read_file-3", Name: "read_file", Args: `{"file_path":"/work/app/parse.go","start_line":1,"end_line":60}`,
					Result: "package app\n", HasResult: true, Time: call, Cum: 1030 + 1278},
			},
		},
		{
			name: "a $set with messages replaces the list, results included",
			file: "set-messages-checkpoint.session.jsonl",
			want: []atifRow{{ID: "list_directory-1", Name: "list_directory", Args: `{"dir_path":"/work/app"}`,
				Result: "[masked]", HasResult: true, Time: call, Cum: 520}},
		},
		{
			name: "a subagent's recording has subagent calls",
			file: "subagent.session.jsonl",
			want: []atifRow{{ID: "read_file-1", Name: "read_file", Args: `{"file_path":"/work/app/config.go"}`,
				Result: "package app\n", HasResult: true, Subagent: true, Time: call, Cum: 420}},
		},
		{
			name: "a recording cut mid-line is read up to its last whole line",
			file: "truncated.session.jsonl",
			want: []atifRow{{ID: "read_file-1", Name: "read_file", Args: `{"file_path":"/work/app/main.go"}`,
				Result: "package main\n", HasResult: true, Time: call, Cum: 620}},
			warnings: []string{"truncated.session.jsonl:4: the last line is cut short or malformed (unexpected end of input)"},
		},
		{
			name: "a malformed line and a record of no known kind are skipped with warnings",
			file: "malformed-lines.session.jsonl",
			want: []atifRow{{ID: "glob-1", Name: "glob", Args: `{"pattern":"*.go"}`, Result: "main.go", HasResult: true, Time: call, Cum: 310}},
			warnings: []string{
				"malformed-lines.session.jsonl:3: invalid JSON: unexpected end of input; line skipped",
				"malformed-lines.session.jsonl:4: not a Gemini CLI record",
			},
		},
		{
			name: "the older document format is read like the line format",
			file: "document.session.json",
			want: []atifRow{{ID: "read_file-1", Name: "read_file", Args: `{"absolute_path":"/work/app/main.go"}`,
				Result: "package main\n", HasResult: true, Time: call, Cum: 1240}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := geminiReadFixture(t, tt.file)
			assert.Equal(t, tt.want, atifRows(t, s))
			got := warningStrings(s)
			require.Len(t, got, len(tt.warnings), "warnings: %q", got)
			for i, w := range tt.warnings {
				assert.True(t, strings.HasPrefix(got[i], filepath.Join(geminiFixtures, w)), "warning %d is %q, want %q", i, got[i], w)
			}
		})
	}
}

func TestGeminiShellReadIsUnwrappedToTheCommandOutput(t *testing.T) {
	t.Parallel()
	s := geminiReadFixture(t, "shell-read.session.jsonl")
	require.Len(t, s.Calls, 1)
	c := s.Calls[0]
	assert.Equal(t, "run_shell_command", c.Name)
	assert.Equal(t, "nl -ba x.py | sed -n '10,40p'", c.ArgumentsMap()["command"])
	assert.True(t, strings.HasPrefix(c.Result, "    10\t    value = compute(10)\n"), c.Result)
	assert.True(t, strings.HasSuffix(c.Result, "\n    40\t    value = compute(40)"), c.Result)
	assert.NotContains(t, c.Result, "Exit Code")
	assert.False(t, c.IsError)
}

func TestGeminiSessionFields(t *testing.T) {
	t.Parallel()
	s := geminiReadFixture(t, "minimal.session.jsonl")
	assert.Equal(t, "5f0c7e2a-1111-4c3b-9d2e-000000000001", s.ID)
	assert.Equal(t, "gemini-cli", s.Agent)
	assert.Equal(t, "gemini-2.5-pro", s.Model)
	assert.Equal(t, "2026-02-01T09:00:00Z", s.Start.UTC().Format("2006-01-02T15:04:05Z07:00"))
	assert.Equal(t, "main.go declares an empty main function.", s.Answer)
	// Two messages: 1200 in (no cache) + 40 out + 60 thoughts, then 1400 in
	// of which 1000 cached + 12 out. Cached tokens are part of input.
	assert.Equal(t, &Usage{InputTokens: 2600, OutputTokens: 112, CacheReadTokens: 1000}, s.Usage)
	assert.Empty(t, s.Warnings)

	sub := geminiReadFixture(t, "subagent.session.jsonl")
	assert.Empty(t, sub.Answer, "a subagent's text is its report, not the session's answer")
}

// geminiRead reads an inline recording with the Gemini CLI reader.
func geminiRead(t *testing.T, doc string, opts Options) *Session {
	t.Helper()
	opts.Source = "inline.jsonl"
	s, err := GeminiCLI{}.Read(strings.NewReader(doc), opts)
	require.NoError(t, err)
	return s
}

const geminiMeta = `{"sessionId":"s1","projectHash":"p"}` + "\n"

func geminiCallLine(msg, call, output string) string {
	return `{"id":"` + msg + `","type":"gemini","content":"","toolCalls":[{"id":"` + call + `","name":"read_file","args":{"file_path":"a"},"status":"success","result":[{"functionResponse":{"id":"` + call + `","name":"read_file","response":{"output":"` + output + `"}}}]}]}` + "\n"
}

func TestGeminiRecordsApplyInOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		doc      string
		calls    []string
		warnings []string
	}{
		{"a rewind to an unknown message drops every message, as Gemini CLI does",
			geminiMeta + geminiCallLine("g1", "c1", "x") + `{"$rewindTo":"nope"}` + "\n" + geminiCallLine("g2", "c2", "y"),
			[]string{"c2"}, []string{`inline.jsonl:3: $rewindTo names message "nope", which is not in the session; all 1 messages before it are dropped, as Gemini CLI does`}},
		{"a rewind to the first message drops all of them without a warning",
			geminiMeta + geminiCallLine("g1", "c1", "x") + `{"$rewindTo":"g1"}` + "\n",
			nil, nil},
		{"a message rewritten after a rewind goes to the end",
			geminiMeta + geminiCallLine("g1", "c1", "x") + geminiCallLine("g2", "c2", "y") + `{"$rewindTo":"g1"}` + "\n" + geminiCallLine("g2", "c2", "y") + geminiCallLine("g1", "c1", "x"),
			[]string{"c2", "c1"}, nil},
		{"a one-line older document holds its messages",
			`{"sessionId":"s1","projectHash":"p","messages":[{"id":"g1","type":"gemini","toolCalls":[{"id":"c1","name":"glob","args":{"pattern":"*"}}]}]}`,
			[]string{"c1"}, nil},
		{"toolCalls of a user message are not calls",
			geminiMeta + `{"id":"u1","type":"user","toolCalls":[{"id":"c1","name":"glob"}]}` + "\n",
			nil, []string{`inline.jsonl:2: message "u1" of type "user" has toolCalls; only gemini messages make calls, so they are ignored`}},
		{"a call without a name is skipped and its siblings kept",
			geminiMeta + `{"id":"g1","type":"gemini","toolCalls":[{"id":"c0"},{"id":"c1","name":"glob"}]}` + "\n",
			[]string{"c1"}, []string{"inline.jsonl:2: toolCalls[0]: no tool name; call skipped"}},
		{"a field of the wrong type is ignored and the message kept",
			geminiMeta + `{"id":"g1","type":"gemini","model":7,"tokens":"many","toolCalls":[{"id":"c1","name":"glob","status":false}]}` + "\n",
			[]string{"c1"}, []string{
				"inline.jsonl:2: field model: expected a string, found number; ignored",
				"inline.jsonl:2: field tokens: expected an object, found string; ignored",
				"inline.jsonl:2: toolCalls[0]: field status: expected a string, found boolean; ignored",
			}},
		{"a line that is not an object is skipped",
			geminiMeta + "[1,2]\n" + geminiCallLine("g1", "c1", "x"),
			[]string{"c1"}, []string{"inline.jsonl:2: expected a JSON object, found array; line skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := geminiRead(t, tt.doc, Options{})
			var ids []string
			for _, c := range s.Calls {
				ids = append(ids, c.ID)
			}
			assert.Equal(t, tt.calls, ids)
			assert.Equal(t, tt.warnings, warningStrings(s))
		})
	}
}

func TestGeminiSetUpdatesTheSession(t *testing.T) {
	t.Parallel()
	s := geminiRead(t, geminiMeta+`{"$set":{"sessionId":"s2","kind":"subagent","lastUpdated":"2026-02-01T10:00:00Z"}}`+"\n"+geminiCallLine("g1", "c1", "x"), Options{})
	assert.Equal(t, "s2", s.ID)
	require.Len(t, s.Calls, 1)
	assert.True(t, s.Calls[0].Subagent)
	assert.Nil(t, s.Usage, "no message records tokens")
	assert.Nil(t, s.Calls[0].CumulativeTokens)
}

func TestGeminiResultsAreClippedToMaxResultBytes(t *testing.T) {
	t.Parallel()
	doc := geminiMeta + `{"id":"g1","type":"gemini","toolCalls":[{"id":"c1","name":"read_file","result":[` +
		`{"functionResponse":{"response":{"output":"héllo wörld"}}},{"text":"more"}]}]}` + "\n"
	for _, tt := range []struct {
		max  int
		want string
	}{{0, "héllo wörld\nmore"}, {2, "h"}, {3, "hé"}, {12, "héllo wörl"}, {14, "héllo wörld"}, {15, "héllo wörld\nm"}} {
		s := geminiRead(t, doc, Options{MaxResultBytes: tt.max})
		require.Len(t, s.Calls, 1)
		assert.Equal(t, tt.want, s.Calls[0].Result, "MaxResultBytes %d", tt.max)
		assert.LessOrEqual(t, len(s.Calls[0].Result), max(tt.max, len(tt.want)))
	}
}

func TestGeminiResponsesOtherThanOutputAreKeptAsJSON(t *testing.T) {
	t.Parallel()
	doc := geminiMeta + `{"id":"g1","type":"gemini","toolCalls":[{"id":"c1","name":"mcp_tool","status":"success","result":[` +
		`{"functionResponse":{"response":{"content":[{"type":"text","text":"hi"}]}}}]}]}` + "\n"
	s := geminiRead(t, doc, Options{})
	require.Len(t, s.Calls, 1)
	assert.Equal(t, `{"content":[{"type":"text","text":"hi"}]}`, s.Calls[0].Result)
	assert.True(t, s.Calls[0].HasResult)
}

func TestGeminiRejectsWhatIsNotARecording(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"a Claude Code line", `{"type":"user","sessionId":"s","message":{"content":"hi"}}` + "\n",
			"t: not a Gemini CLI recording: no record has sessionId and projectHash, a message id, $set or $rewindTo (line 1: not a Gemini CLI record"},
		{"a document without session fields", "{\n  \"steps\": []\n}\n", "t:1: not a Gemini CLI session: the object has neither sessionId and projectHash nor messages with an id"},
		{"an indented array", "[\n  1\n]\n", "not a Gemini CLI recording"},
		{"a broken indented document", "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": ", "t:4: reading Gemini CLI session: no message could be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.doc), Options{Format: "gemini-cli", Source: "t"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestGeminiDocumentCutShortKeepsItsMessages(t *testing.T) {
	t.Parallel()
	doc := "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n" +
		`    {"id": "g1", "type": "gemini", "toolCalls": [{"id": "c1", "name": "glob"}]},` + "\n" +
		`    {"id": "g2", "type": "gemini", "toolCalls": [{"id": "c2", "na`
	s, err := Read(strings.NewReader(doc), Options{Source: "t"})
	require.NoError(t, err)
	assert.Equal(t, "gemini-cli", s.Format)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, []string{"t:6: session is cut short or malformed (unexpected end of input); kept the 1 messages read before it"}, warningStrings(s))
}

func TestGeminiDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prefix string
		want   bool
	}{
		{"a line recording's metadata record", `{"sessionId":"s","projectHash":"p","startTime":"t"}` + "\n", true},
		{"an indented older document", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [", true},
		{"keys in any order", `{"projectHash":"p","kind":"main","sessionId":"s"}`, true},
		{"a record cut by the prefix limit after both keys", `{"sessionId":"s","projectHash":"p","messages":[{"id":"x","content":"abc`, true},
		{"a Claude Code line has no projectHash", `{"type":"user","sessionId":"s"}`, false},
		{"projectHash that is not a string", `{"sessionId":"s","projectHash":1}`, false},
		{"the keys nested in a message", `{"messages":[{"sessionId":"s","projectHash":"p"}]}`, false},
		{"a message record alone", `{"id":"m","type":"gemini","content":"projectHash"}`, false},
		{"a Gemini CLI stream-json event", `{"type":"init","session_id":"s","model":"gemini-2.5-pro"}`, false},
		{"plain text", "projectHash sessionId", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, GeminiCLI{}.Detect([]byte(tt.prefix)))
		})
	}
}
