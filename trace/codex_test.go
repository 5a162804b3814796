package trace

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const codexFixtures = "testdata/codex"

// codexWantCall is what a test expects of one call; tokens -1 means none.
type codexWantCall struct {
	id, name, args, result string
	hasResult, isError     bool
	tokens                 int64
}

func codexReadFixture(t *testing.T, name string, opts Options) *Session {
	t.Helper()
	opts.Source = name
	s, err := ReadFile(filepath.Join(codexFixtures, name), opts)
	require.NoError(t, err)
	return s
}

func codexCheckCalls(t *testing.T, s *Session, want []codexWantCall) {
	t.Helper()
	require.Len(t, s.Calls, len(want))
	for i, w := range want {
		c := s.Calls[i]
		assert.Equal(t, i, c.Index)
		assert.Equal(t, w.id, c.ID, "call %d id", i)
		assert.Equal(t, w.name, c.Name, "call %d name", i)
		if w.args == "" {
			assert.Empty(t, c.Arguments, "call %d arguments", i)
		} else {
			assert.JSONEq(t, w.args, string(c.Arguments), "call %d arguments", i)
		}
		assert.Equal(t, w.result, c.Result, "call %d result", i)
		assert.Equal(t, w.hasResult, c.HasResult, "call %d has result", i)
		assert.Equal(t, w.isError, c.IsError, "call %d is error", i)
		if w.tokens < 0 {
			assert.Nil(t, c.CumulativeTokens, "call %d tokens", i)
		} else if assert.NotNil(t, c.CumulativeTokens, "call %d tokens", i) {
			assert.Equal(t, w.tokens, *c.CumulativeTokens, "call %d tokens", i)
		}
	}
}

func TestCodexRolloutFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		id       string
		version  string
		model    string
		cwd      string
		start    string
		usage    *Usage
		answer   string
		calls    []codexWantCall
		warnings []string
	}{
		{
			name: "a minimal rollout joins the shell call to its output and takes the token total of its turn",
			file: "minimal.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000001", version: "0.60.1",
			model: "gpt-5.1-codex", cwd: "/work/shop", start: "2025-11-20T09:00:00Z",
			usage:  &Usage{InputTokens: 10200, OutputTokens: 75, CacheReadTokens: 4864},
			answer: "In src/pricing.rs, function discount (line 12).",
			calls: []codexWantCall{{
				id: "call_rg1", name: "shell",
				args:   `{"command":["bash","-lc","rg -n discount src"],"workdir":"/work/shop"}`,
				result: "src/pricing.rs:12:fn discount(total: u64) -> u64 {\n", hasResult: true, tokens: 5040,
			}},
		},
		{
			name: "the older layout reads bare items after its session line",
			file: "old-layout.rollout.jsonl", id: "5973b6c0-94b8-487b-a530-2aeb6098ae0e", start: "2025-07-02T14:05:11.21Z",
			answer: "Load is empty.",
			calls: []codexWantCall{
				{id: "call_cat1", name: "shell", args: `{"command":["bash","-lc","cat config/loader.go"]}`,
					result: "package config\n\nfunc Load() {}\n", hasResult: true, tokens: -1},
				{id: "call_cat2", name: "shell", args: `{"command":["bash","-lc","cat config/missing.go"]}`,
					result: "cat: config/missing.go: No such file or directory", hasResult: true, isError: true, tokens: -1},
			},
		},
		{
			name: "a call whose output was never written has no result and takes the last total",
			file: "call-without-output.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000002", version: "0.60.1",
			model: "gpt-5-codex", cwd: "/work/shop", start: "2025-11-20T10:00:00Z",
			usage: &Usage{InputTokens: 3000, OutputTokens: 20, CacheReadTokens: 1024},
			calls: []codexWantCall{{id: "call_slow", name: "shell",
				args: `{"command":["bash","-lc","cargo test"],"workdir":"/work/shop","timeout_ms":600000}`, tokens: 3020}},
		},
		{
			name: "a non-zero exit code marks the call as an error, whichever wrapper holds it",
			file: "failed-command.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000003", version: "0.63.0",
			model: "gpt-5.1-codex", cwd: "/work/shop", start: "2025-11-21T08:00:00Z",
			calls: []codexWantCall{
				{id: "call_struct", name: "shell", args: `{"command":["bash","-lc","cat src/missing.rs"]}`,
					result: "cat: src/missing.rs: No such file or directory\n", hasResult: true, isError: true, tokens: -1},
				{id: "call_freeform", name: "shell_command", args: `{"command":"grep -rn TODO src","workdir":"/work/shop"}`,
					result: "grep: src: No such file or directory\n", hasResult: true, isError: true, tokens: -1},
				{id: "call_unified", name: "exec_command", args: `{"cmd":"go build ./...","yield_time_ms":10000}`,
					result: "./main.go:3:1: syntax error\n", hasResult: true, isError: true, tokens: -1},
				{id: "call_ok", name: "exec_command", args: `{"cmd":"ls"}`, result: "main.go\n", hasResult: true, tokens: -1},
			},
		},
		{
			name: "a shell read keeps its argv as the agent recorded it",
			file: "shell-read.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000004", version: "0.58.0",
			model: "gpt-5.1-codex", cwd: "/work/engine", start: "2025-11-22T12:00:00Z",
			calls: []codexWantCall{{id: "call_sed", name: "shell",
				args:   `{"command":["bash","-lc","sed -n '10,40p' src/x.rs"],"workdir":"/work/engine"}`,
				result: "pub fn parse(input: &str) -> Result<Ast, Error> {\n    let tokens = lex(input)?;\n    Parser::new(tokens).parse()\n}\n", hasResult: true, tokens: -1}},
		},
		{
			name: "a freeform apply_patch call gets its patch under input",
			file: "apply-patch.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000005", version: "0.63.0",
			model: "gpt-5.1-codex-max", cwd: "/work/engine", start: "2025-11-23T16:00:00Z",
			calls: []codexWantCall{{id: "call_patch", name: "apply_patch",
				args:   `{"input":"*** Begin Patch\n*** Update File: src/x.rs\n@@ pub fn parse(input: &str) -> Result<Ast, Error> {\n-    let tokens = lex(input)?;\n+    let tokens = lex(input.trim())?;\n*** End Patch\n"}`,
				result: "Success. Updated the following files:\nM src/x.rs\n", hasResult: true, tokens: -1}},
		},
		{
			name: "local shell, web search, MCP and namespaced calls keep their raw shapes",
			file: "other-tools.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000006", version: "0.63.0",
			model: "gpt-5.1", cwd: "/work/docs", start: "2025-11-24T07:00:00Z",
			calls: []codexWantCall{
				{id: "call_local", name: "local_shell",
					args:   `{"type":"exec","command":["cat","README.md"],"timeout_ms":null,"working_directory":"/work/docs","env":null,"user":null}`,
					result: "# Docs\n", hasResult: true, tokens: -1},
				{name: "web_search", args: `{"type":"search","query":"tokio select cancellation safety"}`, hasResult: true, tokens: -1},
				{id: "call_mcp", name: "docs__search", args: `{"query":"select!"}`,
					result: "select! waits on several futures\nsee tokio::select", hasResult: true, tokens: -1},
				// Codex could not run the call: its message is the output.
				{id: "call_ns", name: "mcp__docs__lookup", args: `"not json"`,
					result: "failed to parse function arguments: expected value at line 1 column 1", hasResult: true, isError: true, tokens: -1},
			},
		},
		{
			name: "a file cut mid-write reads up to its last complete line",
			file: "truncated-last-line.rollout.jsonl", id: "0199a0b1-0000-7000-8000-000000000007", version: "0.63.0",
			cwd: "/work/shop", start: "2025-11-25T09:00:00Z",
			calls: []codexWantCall{{id: "call_ls", name: "shell", args: `{"command":["bash","-lc","ls src"]}`,
				result: "main.rs\n", hasResult: true, tokens: -1}},
			warnings: []string{"truncated-last-line.rollout.jsonl:4: the last line ends mid-record"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := codexReadFixture(t, tt.file, Options{})
			assert.Equal(t, "codex", s.Format)
			assert.Equal(t, "codex", s.Agent)
			assert.Equal(t, tt.id, s.ID)
			assert.Equal(t, tt.version, s.AgentVersion)
			assert.Equal(t, tt.model, s.Model)
			assert.Equal(t, tt.cwd, s.CWD)
			start, err := time.Parse(time.RFC3339Nano, tt.start)
			require.NoError(t, err)
			assert.True(t, start.Equal(s.Start), "start %v, want %v", s.Start, start)
			assert.Equal(t, tt.usage, s.Usage)
			assert.Equal(t, tt.answer, s.Answer)
			codexCheckCalls(t, s, tt.calls)
			require.Len(t, s.Warnings, len(tt.warnings), "%v", s.Warnings)
			for i, w := range tt.warnings {
				assert.True(t, strings.HasPrefix(s.Warnings[i].String(), w), "warning %q does not start with %q", s.Warnings[i], w)
			}
		})
	}
}

func TestCodexExecFixture(t *testing.T) {
	t.Parallel()
	s := codexReadFixture(t, "exec-stream.exec.jsonl", Options{})
	assert.Equal(t, "codex-exec-json", s.Format)
	assert.Equal(t, "codex", s.Agent)
	assert.Equal(t, "0199a213-81c0-7800-8aa1-bbab2a035a53", s.ID)
	assert.Equal(t, &Usage{InputTokens: 24763, OutputTokens: 122, CacheReadTokens: 24448}, s.Usage)
	assert.Equal(t, "Fixed the rounding in discount.", s.Answer)
	assert.True(t, s.Start.IsZero(), "exec events have no timestamps")
	assert.Empty(t, s.Warnings)
	const total = 24763 + 122
	codexCheckCalls(t, s, []codexWantCall{
		{id: "item_1", name: "shell", args: `{"command":"bash -lc \"sed -n '10,40p' src/pricing.rs\""}`,
			result: "fn discount(total: u64) -> u64 {\n    total / 10\n}\n", hasResult: true, tokens: total},
		{id: "item_2", name: "shell", args: `{"command":"bash -lc 'cargo test pricing'"}`,
			result: "test pricing::rounds ... FAILED\n", hasResult: true, isError: true, tokens: total},
		{id: "item_3", name: "update_plan", args: `{"items":[{"text":"Find discount","completed":true},{"text":"Fix rounding","completed":false}]}`,
			hasResult: true, tokens: total},
		{id: "item_4", name: "apply_patch", args: `{"changes":[{"path":"/work/shop/src/pricing.rs","kind":"update"}]}`,
			hasResult: true, tokens: total},
		{id: "item_3", name: "update_plan", args: `{"items":[{"text":"Find discount","completed":true},{"text":"Fix rounding","completed":true}]}`,
			hasResult: true, tokens: total},
		{id: "item_5", name: "docs__search", args: `{"query":"rounding"}`, result: "Use banker's rounding.", hasResult: true, tokens: total},
		{id: "item_6", name: "web_search", args: `{"type":"search","query":"rust u64 rounding division"}`, hasResult: true, tokens: total},
	})
}

func TestCodexExecEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  []codexWantCall
	}{
		{
			name: "a command still running has no result and no tokens",
			lines: []string{
				`{"type":"turn.started"}`,
				`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"make","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "shell", args: `{"command":"make"}`, tokens: -1}},
		},
		{
			name: "a command the turn ended before it finished has no result",
			lines: []string{
				`{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"sleep 60","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
				`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"sleep 60","aggregated_output":"partial","exit_code":null,"status":"in_progress"}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "shell", args: `{"command":"sleep 60"}`, tokens: -1}},
		},
		{
			name: "a declined command is an error without an exit code",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "shell", args: `{"command":"rm -rf /"}`, hasResult: true, isError: true, tokens: -1}},
		},
		{
			name: "a failed MCP call gives its error message as the result",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"db","tool":"query","arguments":null,"result":null,"error":{"message":"timeout"},"status":"failed"}}`,
				`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "db__query", args: `{}`, result: "timeout", hasResult: true, isError: true, tokens: 105}},
		},
		{
			name: "an MCP result without text gives its structured content",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"db","tool":"count","arguments":{},"result":{"content":[],"structured_content":{"rows":3}},"error":null,"status":"completed"}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "db__count", args: `{}`, result: `{"rows":3}`, hasResult: true, tokens: -1}},
		},
		{
			name: "each turn's calls take that turn's running total",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}`,
				`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":50,"output_tokens":10}}`,
				`{"type":"turn.started"}`,
				`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"pwd","aggregated_output":"/w\n","exit_code":0,"status":"completed"}}`,
				`{"type":"turn.completed","usage":{"input_tokens":300,"cached_input_tokens":200,"output_tokens":30}}`,
			},
			want: []codexWantCall{
				{id: "item_0", name: "shell", args: `{"command":"ls"}`, result: "a\n", hasResult: true, tokens: 110},
				{id: "item_1", name: "shell", args: `{"command":"pwd"}`, result: "/w\n", hasResult: true, tokens: 330},
			},
		},
		{
			name: "a spawned agent is a call of the collab tool",
			lines: []string{
				`{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"t0","receiver_thread_ids":["t1"],"prompt":"find the tests","agents_states":{},"status":"completed"}}`,
			},
			want: []codexWantCall{{id: "item_0", name: "spawn_agent", args: `{"prompt":"find the tests","receiver_thread_ids":["t1"]}`, hasResult: true, tokens: -1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), Options{Source: "exec.jsonl", Format: "codex-exec-json"})
			require.NoError(t, err)
			assert.Empty(t, s.Warnings)
			codexCheckCalls(t, s, tt.want)
		})
	}
}

func TestCodexResultLimitCutsUnwrappedOutputs(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"minimal.rollout.jsonl", "exec-stream.exec.jsonl"} {
		full := codexReadFixture(t, file, Options{})
		cut := codexReadFixture(t, file, Options{MaxResultBytes: 8})
		require.Len(t, cut.Calls, len(full.Calls))
		for i, c := range cut.Calls {
			assert.LessOrEqual(t, len(c.Result), 8)
			assert.True(t, strings.HasPrefix(full.Calls[i].Result, c.Result))
			assert.Equal(t, full.Calls[i].IsError, c.IsError)
		}
	}
}

func TestCodexMalformedLinesAreSkippedWithWarnings(t *testing.T) {
	t.Parallel()
	doc := strings.Join([]string{
		`{"timestamp":"2025-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`not json`,
		`[1,2]`,
		`{"timestamp":"2025-11-20T09:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":7}}`,
		`{"timestamp":"yesterday","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`,
		`{"timestamp":"2025-11-20T09:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"x"}}`,
		`{"timestamp":"2025-11-20T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`,
		`{"timestamp":"2025-11-20T09:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"again"}}`,
		`{"type":"user","sessionId":"s"}`,
		`{"timestamp":"2025-11-20T09:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c2"}}`,
		`{"timestamp":"2025-11-20T09:00:06.000Z","type":"response_item","payload":{"call_id":"c2","output":42,"type":"function_call_output"}}`,
		`{"timestamp":"2025-11-20T09:00:07.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c2"}}`,
	}, "\n")
	s, err := Read(strings.NewReader(doc), Options{Source: "r.jsonl"})
	require.NoError(t, err)
	require.Len(t, s.Calls, 2)
	assert.Equal(t, "ok", s.Calls[0].Result)
	assert.True(t, s.Calls[0].Time.IsZero())
	assert.False(t, s.Calls[1].HasResult)
	got := warningStrings(s)
	assert.Equal(t, []string{
		"r.jsonl:2: invalid JSON: invalid character 'o' at offset 1 (expected literal null); line skipped",
		"r.jsonl:3: expected a JSON object, found array; line skipped",
		"r.jsonl:4: field name: expected string, found number; line skipped",
		`r.jsonl:5: field timestamp: "yesterday" is not an RFC 3339 time; time ignored`,
		`r.jsonl:6: function_call_output for unknown call_id "c9"; output dropped`,
		`r.jsonl:8: second output for call_id "c1"; ignored`,
		`r.jsonl:9: record of type "user" without a payload object; line skipped`,
		`r.jsonl:11: field output: expected string, array or object, found number; output dropped`,
		`r.jsonl:12: second call with call_id "c2"; call ignored`,
	}, got)
}

// A forced Codex reader on input of another format must fail, naming the
// file and what it expected.
func TestCodexForcedOnForeignInputFails(t *testing.T) {
	t.Parallel()
	claude := `{"type":"user","sessionId":"s","isSidechain":false,"message":{"role":"user","content":"hi"}}` + "\n"
	tests := []struct {
		name, format, doc, want string
	}{
		{"rollout reader on a Claude session", "codex", claude, "c.jsonl: not a Codex rollout: no line is a {timestamp, type, payload} record"},
		{"rollout reader on an exec stream", "codex", `{"type":"thread.started","thread_id":"t"}`, "not a Codex rollout"},
		{"rollout reader on text", "codex", "hello\n", "c.jsonl: not a Codex rollout: no line holds a JSON object (line 1: invalid JSON"},
		{"exec reader on a rollout", "codex-exec-json", `{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`, "c.jsonl: not a codex exec --json stream: no line is an event"},
		{"exec reader on a Claude session", "codex-exec-json", claude, "not a codex exec --json stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.doc), Options{Format: tt.format, Source: "c.jsonl"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestCodexShellResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, out string
		exit            int64
		hasExit         bool
	}{
		{"structured output is unwrapped", `{"output":"a\n","metadata":{"exit_code":3,"duration_seconds":0.5}}`, "a\n", 3, true},
		{"structured output without metadata has no exit code", `{"output":"a"}`, "a", 0, false},
		{"a second output key does not replace the first", `{"output":"a","output":"b"}`, "a", 0, false},
		{"a JSON object of another shape stays as it is", `{"result":"a"}`, `{"result":"a"}`, 0, false},
		{"broken JSON stays as it is", `{"output":"a"`, `{"output":"a"`, 0, false},
		{"the freeform header is removed", "Exit code: 0\nWall time: 1 seconds\nTotal output lines: 900\nOutput:\nx\ny", "x\ny", 0, true},
		{"a unified exec header without exit code keeps none", "Chunk ID: 1\nWall time: 0.2500 seconds\nProcess running with session ID 4\nOutput:\nstarted", "started", 0, false},
		{"an unknown header line keeps the text", "Exit code: 1\nNote: x\nOutput:\ny", "Exit code: 1\nNote: x\nOutput:\ny", 0, false},
		{"a header without Output keeps the text", "Exit code: 1\nWall time: 2 seconds", "Exit code: 1\nWall time: 2 seconds", 0, false},
		{"an exit code that is no number keeps the text", "Exit code: one\nOutput:\ny", "Exit code: one\nOutput:\ny", 0, false},
		{"plain text stays as it is", "Plan updated", "Plan updated", 0, false},
		{"Output alone is not a header", "Output:\nx", "Output:\nx", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, _, exit, hasExit := codexShellResult([]byte(tt.text), nil, -1)
			assert.Equal(t, tt.out, string(out))
			assert.Equal(t, tt.exit, exit)
			assert.Equal(t, tt.hasExit, hasExit)
		})
	}
}

func TestCodexDetect(t *testing.T) {
	t.Parallel()
	long := `{"timestamp":"2025-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"s","base_instructions":{"text":"` + strings.Repeat("x", 200) // cut by the prefix limit
	tests := []struct {
		name, prefix string
		want         []string
	}{
		{"a session_meta line is a rollout", `{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}` + "\n", []string{"codex"}},
		{"a rollout may start with any of its record types", `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, []string{"codex"}},
		{"keys decide, in any order", `{"payload":{},"type":"turn_context"}`, []string{"codex"}},
		{"a first line cut by the prefix limit still counts", long, []string{"codex"}},
		{"the older layout's session line is a rollout", `{"id":"u","timestamp":"2025-05-01T00:00:00Z","instructions":null}` + "\n" + `{"record_type":"state"}`, []string{"codex"}},
		{"an older layout starting with a state line is a rollout", `{"record_type":"state"}`, []string{"codex"}},
		{"thread.started starts an exec stream", `{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}`, []string{"codex-exec-json"}},
		{"an exec stream may start at an item", ` {"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}`, []string{"codex-exec-json"}},

		{"a rollout type without payload is no rollout", `{"timestamp":"t","type":"session_meta"}`, nil},
		{"an exec type with a payload is no exec stream", `{"type":"item.completed","payload":{}}`, nil},
		{"a lone error event is no exec stream", `{"type":"error","message":"x"}`, nil},
		{"a bare item without the session line is no rollout", `{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}`, nil},
		{"rollout keys nested in a value are no evidence", `{"type":"user","message":{"type":"session_meta","payload":{}}}`, nil},
		{"a Claude session line is neither", `{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}`, []string{"claude-code"}},
		{"a Gemini CLI stream is neither", `{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"gemini-2.5-pro"}`, nil},
		{"an ATIF document is neither", `{"schema_version":"ATIF-v1.5","session_id":"s","steps":[]}`, []string{"atif"}},
		{"plain text is neither", "rollout\n", nil},
		{"empty input is neither", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, detectors([]byte(tt.prefix)))
		})
	}
}

func TestCodexByteOrderMarkIsIgnored(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"codex":           `{"timestamp":"2025-11-20T09:00:00.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}` + "\n",
		"codex-exec-json": `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}` + "\n",
	}
	for format, doc := range docs {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader("\xef\xbb\xbf"+doc), Options{Source: "bom"})
			require.NoError(t, err)
			assert.Equal(t, format, s.Format)
			assert.Empty(t, s.Warnings)
			require.Len(t, s.Calls, 1)
			assert.Equal(t, "shell", s.Calls[0].Name)
		})
	}
}

func TestCodexOnlyTheLastCutLineIsReportedAsCut(t *testing.T) {
	t.Parallel()
	doc := strings.Join([]string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_ou`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"pwd","aggregated_output":"/w\n","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"command_exec`,
	}, "\n")
	s, err := Read(strings.NewReader(doc), Options{Source: "e.jsonl"})
	require.NoError(t, err)
	assert.Equal(t, "codex-exec-json", s.Format)
	require.Len(t, s.Calls, 1)
	assert.Equal(t, "pwd", s.Calls[0].ArgumentsMap()["command"])
	require.Len(t, s.Warnings, 2)
	assert.Equal(t, "e.jsonl:2: invalid JSON: unexpected end of input; line skipped", s.Warnings[0].String())
	assert.Equal(t, "e.jsonl:4: the last line ends mid-record (the trace was cut while being written); line skipped", s.Warnings[1].String())
}

func TestCodexObjectArgs(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, raw, want string }{
		{"a JSON string holding an object is decoded to it", `"{\"command\":[\"ls\"]}"`, `{"command":["ls"]}`},
		{"an object stays as it is", `{"command":["ls"]}`, `{"command":["ls"]}`},
		{"a string holding other text stays a string", `"ls -la"`, `"ls -la"`},
		{"a string holding an array stays a string", `"[1,2]"`, `"[1,2]"`},
		{"a string holding an object and more stays a string", `"{} {}"`, `"{} {}"`},
		{"null gives no arguments", `null`, ``},
		{"a number stays as it is", `7`, `7`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(codexObjectArgs([]byte(tt.raw))))
		})
	}
}
