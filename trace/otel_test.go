package trace

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otelFixture reads a file of testdata/otel through trace.ReadFileAll, so
// detection is exercised too.
func otelFixture(t *testing.T, name string) []*Session {
	t.Helper()
	all, err := ReadFileAll(filepath.Join("testdata", "otel", name), Options{})
	require.NoError(t, err)
	for _, s := range all {
		require.Equal(t, "otel", s.Format, "detected format")
	}
	return all
}

// otelOne reads a fixture that holds one session.
func otelOne(t *testing.T, name string) *Session {
	t.Helper()
	all := otelFixture(t, name)
	require.Len(t, all, 1)
	return all[0]
}

func TestOTelFixtures(t *testing.T) {
	t.Parallel()
	const t0 = "2025-10-09T08:53:2"
	tests := []struct {
		file  string
		rows  []atifRow
		check func(t *testing.T, s *Session)
	}{
		{
			file: "minimal.otlp.json",
			rows: []atifRow{{ID: "call_1", Name: "read_file", Args: `{"path":"internal/auth/token.go"}`,
				Result: "package auth\n\nfunc Validate(tok string) error {\n\treturn nil\n}\n", HasResult: true,
				Time: t0 + "2.1Z", Cum: 1240}},
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", s.ID)
				assert.Equal(t, "repo-helper", s.Agent, "gen_ai.agent.name of the invoke_agent span")
				assert.Equal(t, "0.4.1", s.AgentVersion)
				assert.Equal(t, "gpt-4.1-2025-04-14", s.Model, "the response model")
				assert.Equal(t, "2025-10-09T08:53:20Z", s.Start.Format("2006-01-02T15:04:05Z07:00"))
				// input_tokens include the cache reads; they are not added.
				assert.Equal(t, &Usage{InputTokens: 2550, OutputTokens: 65, CacheReadTokens: 1000}, s.Usage)
				assert.Equal(t, "Validate is in internal/auth/token.go.", s.Answer)
			},
		},
		{
			file: "openinference-langgraph.otlp.json",
			rows: []atifRow{
				{ID: "call_search", Name: "search_code", Args: `{"query":"func Checkout"}`, Result: "cart/checkout.go:11: func Checkout(c *Cart) error {",
					HasResult: true, Time: "2026-01-04T10:00:06Z", Cum: 960},
				{ID: "call_read", Name: "read_file", Args: `{"path":"cart/checkout.go"}`, Result: "FileNotFoundError: cart/checkout.go",
					HasResult: true, IsError: true, Time: "2026-01-04T10:00:07Z", Cum: 960},
				{ID: "call_ls", Name: "list_dir", Args: `{"path":"cart"}`, Time: "2026-01-04T10:00:13Z", Cum: 960 + 1140},
			},
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "langgraph-shop-agent", s.Agent, "the resource's service.name")
				assert.Equal(t, "gpt-4.1-2025-04-14", s.Model, "llm.model_name")
				assert.Equal(t, &Usage{InputTokens: 2000, OutputTokens: 100, CacheReadTokens: 512}, s.Usage)
				assert.Empty(t, s.Warnings)
			},
		},
		{
			file: "call-without-result.otlp.json",
			rows: []atifRow{
				{ID: "call_1", Name: "read_file", Args: `{"path":"go.mod"}`, Result: "module example.com/app", HasResult: true, Time: t0 + "1.1Z", Cum: 310},
				{ID: "call_2", Name: "run_tests", Args: `{"package":"./..."}`, Time: t0 + "1.4Z", Cum: 310},
			},
		},
		{
			file: "error-span.otlp.json",
			rows: []atifRow{
				{ID: "call_1", Name: "read_file", Args: `{"path":"missing.go"}`, Result: "open missing.go: no such file or directory",
					HasResult: true, IsError: true, Time: t0 + "1Z", Cum: -1},
				{ID: "call_2", Name: "read_file", Args: `{"path":"main.go"}`, Result: "package main", HasResult: true, Time: t0 + "2Z", Cum: -1},
			},
			check: func(t *testing.T, s *Session) {
				assert.Nil(t, s.Usage, "no span records usage")
			},
		},
		{
			file: "subagent-invoke-agent.otlp.json",
			rows: []atifRow{
				{ID: "call_task", Name: "delegate_search", Args: `{"task":"find where tokens are validated"}`, Result: "internal/auth/token.go", HasResult: true, Time: t0 + "1.1Z", Cum: 1050},
				{ID: "call_s1", Name: "grep", Args: `{"pattern":"Validate"}`, Result: "internal/auth/token.go:3", HasResult: true, Subagent: true, ParentID: "call_task", Time: t0 + "2.1Z", Cum: 1480},
				{ID: "call_s2", Name: "read_file", Args: `{"path":"internal/auth/token.go"}`, Result: "package auth", HasResult: true, Subagent: true, ParentID: "call_task", Time: t0 + "3.1Z", Cum: 2100},
				{ID: "call_edit", Name: "edit_file", Args: `{"path":"internal/auth/token.go","old":"return nil","new":"return check(tok)"}`, Result: "ok", HasResult: true, Time: "2025-10-09T08:53:36.1Z", Cum: 3660},
			},
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "planner", s.Agent, "the outermost agent")
				assert.Equal(t, &Usage{InputTokens: 3500, OutputTokens: 160}, s.Usage)
			},
		},
		{
			file: "shell-read.otlp.json",
			rows: []atifRow{
				{ID: "call_1", Name: "shell", Args: `{"command":"sed -n '10,40p' internal/auth/token.go"}`, Result: "func Validate(tok string) error {\n\treturn nil\n}", HasResult: true, Time: t0 + "1.1Z", Cum: 735},
				{ID: "call_2", Name: "shell", Args: `{"command":["cat","go.mod"]}`, Result: "module example.com/app", HasResult: true, Time: t0 + "1.5Z", Cum: 735},
			},
		},
		{
			// call_2 is in the first chat span's output and has an
			// execute_tool span: one call, with the span's time. call_3 is
			// only in the last chat span's input (history).
			file: "message-parts.otlp.json",
			rows: []atifRow{
				{ID: "call_1", Name: "get_file", Args: `{"path":"README.md"}`, Result: "# App\nSee internal/auth.", HasResult: true, Time: t0 + "1Z", Cum: 230},
				{ID: "call_2", Name: "search", Args: `{"query":"token validation"}`, Result: `{"hits":["internal/auth/token.go"]}`, HasResult: true, Time: t0 + "1.2Z", Cum: 230},
				{ID: "call_3", Name: "get_file", Args: `{"path":"internal/auth/token.go"}`, Result: "package auth", HasResult: true, Time: t0 + "5Z", Cum: 650},
			},
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "Tokens are validated in internal/auth/token.go.", s.Answer)
			},
		},
		{
			file: "truncated.collector.jsonl",
			rows: []atifRow{{ID: "call_1", Name: "read_file", Args: `{"path":"a.go"}`, Result: "package a", HasResult: true, Time: t0 + "1Z", Cum: -1}},
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 2, s.Warnings[0].Line)
				assert.Contains(t, s.Warnings[0].Message, "the last request is cut short")
			},
		},
		{
			file: "gemini-cli-logs.collector.jsonl",
			rows: []atifRow{
				{Name: "read_file", Args: `{"absolute_path":"/work/app/internal/auth/token.go"}`, Time: "2025-10-09T08:53:22.988Z", Cum: 5120},
				{Name: "run_shell_command", Args: `{"command":"go test ./internal/auth/"}`, Result: "exit status 1", HasResult: true, IsError: true, Time: "2025-10-09T08:53:23.2Z", Cum: 5120},
			},
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "6f1c2b8e-gemini", s.ID, "session.id")
				assert.Equal(t, "gemini-cli", s.Agent)
				assert.Equal(t, "gemini-2.5-pro", s.Model)
				assert.Equal(t, &Usage{InputTokens: 5000, OutputTokens: 120, CacheReadTokens: 4000}, s.Usage)
			},
		},
		{
			file: "claude-code-logs.collector.jsonl",
			rows: []atifRow{
				{ID: "toolu_01", Name: "Bash", Args: `{"bash_command":"cat","command":"cat internal/auth/token.go","description":"Show the token code"}`, Time: "2025-10-09T08:53:21.85Z", Cum: 9392},
				{ID: "toolu_02", Name: "Read", Result: "File does not exist.", HasResult: true, IsError: true, Time: "2025-10-09T08:53:22.995Z", Cum: 9392},
			},
			check: func(t *testing.T, s *Session) {
				// Anthropic's input_tokens leave out the cache: 12 + 9000 + 300.
				assert.Equal(t, &Usage{InputTokens: 9312, OutputTokens: 80, CacheReadTokens: 9000, CacheCreationTokens: 300}, s.Usage)
				assert.Equal(t, "claude-sonnet-4-5", s.Model)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s := otelOne(t, tt.file)
			assert.Equal(t, tt.rows, atifRows(t, s))
			if tt.check != nil {
				tt.check(t, s)
			} else {
				assert.Empty(t, s.Warnings)
			}
		})
	}
}

func TestOTelEachTraceIsASession(t *testing.T) {
	t.Parallel()
	file := filepath.Join("testdata", "otel", "two-traces.collector.jsonl")
	all := otelFixture(t, "two-traces.collector.jsonl")
	require.Len(t, all, 2)
	a, b := all[0], all[1]
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", a.ID)
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", b.ID)
	// Trace A's spans are on lines 1 and 3: its calls are in time order.
	assert.Equal(t, []string{"grep", "read_file"}, atifNames(a))
	assert.Equal(t, []string{"list_dir"}, atifNames(b))
	for _, s := range all {
		assert.Empty(t, s.Warnings)
	}

	picked, err := ReadFile(file, Options{SessionID: b.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{"list_dir"}, atifNames(picked))

	_, err = ReadFile(file, Options{})
	var multi *MultiSessionError
	require.ErrorAs(t, err, &multi)
	assert.Equal(t, []string{a.ID, b.ID}, multi.IDs)
}

// otelDoc wraps spans in one request.
func otelDoc(spans ...string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[` +
		strings.Join(spans, ",") + `]}]}]}`
}

func TestOTelReadsInlineRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		doc   string
		check func(t *testing.T, s *Session)
	}{
		{
			name: "timestamps and ints may be JSON numbers, keys the protobuf names",
			doc: `{"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"AB","span_id":"01","name":"execute_tool grep","start_time_unix_nano":1760000001000000000,
				"attributes":[{"key":"gen_ai.tool.call.id","value":{"string_value":"c"}},{"key":"gen_ai.usage.input_tokens","value":{"int_value":7}}]}]}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "ab", s.ID, "trace ids are read in lower case")
				require.Equal(t, []atifRow{{ID: "c", Name: "grep", Time: "2025-10-09T08:53:21Z", Cum: 7}}, atifRows(t, s))
			},
		},
		{
			name: "structured arguments and results are JSON",
			doc: otelDoc(`{"traceId":"01","spanId":"02","name":"run","attributes":[
				{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},
				{"key":"gen_ai.tool.name","value":{"stringValue":"bash"}},
				{"key":"gen_ai.tool.call.arguments","value":{"kvlistValue":{"values":[{"key":"command","value":{"arrayValue":{"values":[{"stringValue":"ls"},{"intValue":"2"}]}}},{"key":"ok","value":{"boolValue":true}}]}}},
				{"key":"gen_ai.tool.call.result","value":{"kvlistValue":{"values":[{"key":"exit","value":{"intValue":"0"}}]}}}],
				"status":{"code":"STATUS_CODE_ERROR"}}`),
			check: func(t *testing.T, s *Session) {
				require.Equal(t, []atifRow{{Name: "bash", Args: `{"command":["ls",2],"ok":true}`, Result: `{"exit":0}`, HasResult: true, IsError: true, Cum: -1}}, atifRows(t, s))
			},
		},
		{
			name: "keys and text with control characters make valid JSON arguments",
			doc: otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool a","attributes":[{"key":"gen_ai.tool.call.arguments","value":{"kvlistValue":{"values":[{"key":"k\u0001","value":{"intValue":"x\u0002"}}]}}}]}`,
				`{"traceId":"01","spanId":"03","name":"execute_tool b","startTimeUnixNano":"9","attributes":[{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"tab\u0001"}}]}`),
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Calls, 2)
				assert.Equal(t, `{"k\u0001":"x\u0002"}`, string(s.Calls[0].Arguments))
				assert.Equal(t, `"tab\u0001"`, string(s.Calls[1].Arguments))
			},
		},
		{
			name: "plain-text arguments stay a JSON string",
			doc:  otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool search","attributes":[{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"token validation"}}]}`),
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, `"token validation"`, string(s.Calls[0].Arguments))
			},
		},
		{
			name: "a span without a call id takes the earliest part of the same tool issued before it",
			doc: otelDoc(
				`{"traceId":"01","spanId":"0a","name":"chat","startTimeUnixNano":"100","endTimeUnixNano":"200","attributes":[{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"p1\",\"name\":\"grep\",\"arguments\":{\"q\":\"a\"}},{\"type\":\"tool_call\",\"id\":\"p2\",\"name\":\"grep\",\"arguments\":{\"q\":\"b\"}}]}]"}}]}`,
				`{"traceId":"01","spanId":"0b","name":"execute_tool grep","startTimeUnixNano":"300","attributes":[{"key":"gen_ai.tool.call.result","value":{"stringValue":"a.go"}}]}`),
			check: func(t *testing.T, s *Session) {
				rows := atifRows(t, s)
				require.Len(t, rows, 2, "the span and part p1 are one call")
				assert.Equal(t, atifRow{ID: "p2", Name: "grep", Args: `{"q":"b"}`, Time: "1970-01-01T00:00:00.0000002Z", Cum: -1}, rows[0])
				assert.Equal(t, atifRow{ID: "p1", Name: "grep", Args: `{"q":"a"}`, Result: "a.go", HasResult: true, Time: "1970-01-01T00:00:00.0000003Z", Cum: -1}, rows[1])
			},
		},
		{
			name: "an agent span that sums its model calls is not counted again",
			doc: otelDoc(
				`{"traceId":"01","spanId":"0a","name":"invoke_agent a","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"300"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"30"}}]}`,
				`{"traceId":"01","spanId":"0b","parentSpanId":"0a","name":"chat","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"100"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"10"}}]}`,
				`{"traceId":"01","spanId":"0c","parentSpanId":"0a","name":"chat","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"200"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"20"}}]}`),
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, &Usage{InputTokens: 300, OutputTokens: 30}, s.Usage)
			},
		},
		{
			name: "a span exported twice is read once",
			doc: otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool ls","attributes":[]}`,
				`{"traceId":"01","spanId":"02","name":"execute_tool ls","attributes":[]}`),
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"ls"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, "1 spans appear more than once")
			},
		},
		{
			name: "a span with a field of the wrong type is skipped with a warning naming its line",
			doc: "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[\n" +
				`{"traceId":"01","spanId":"02","name":"execute_tool ls"},` + "\n" +
				`{"traceId":"01","spanId":"03","name":["execute_tool"]}` + "\n]}]}]}",
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"ls"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 3, s.Warnings[0].Line)
				assert.Equal(t, "span skipped: expected string, found array", s.Warnings[0].Message)
			},
		},
		{
			name: "a malformed line of JSON Lines is skipped with a warning",
			doc: otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool ls"}`) + "\n" +
				`{"resourceSpans": [oops]}` + "\n" +
				otelDoc(`{"traceId":"01","spanId":"03","name":"execute_tool cat","startTimeUnixNano":"5"}`) + "\n",
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"ls", "cat"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 2, s.Warnings[0].Line)
				assert.Contains(t, s.Warnings[0].Message, "invalid JSON")
				assert.Contains(t, s.Warnings[0].Message, "line skipped")
			},
		},
		{
			name: "a trace without GenAI spans is a session with no calls and a warning",
			doc:  otelDoc(`{"traceId":"01","spanId":"02","name":"GET /health","attributes":[{"key":"http.method","value":{"stringValue":"GET"}}]}`),
			check: func(t *testing.T, s *Session) {
				assert.Empty(t, s.Calls)
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, "none of its 1 spans follows the OpenTelemetry GenAI conventions")
			},
		},
		{
			name: "messages that are not JSON are a warning",
			doc:  otelDoc(`{"traceId":"01","spanId":"02","name":"chat","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"{\"parts\": oops"}}]}`),
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, "gen_ai.input.messages is not a JSON array of messages")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Read(strings.NewReader(tt.doc), Options{Source: "inline.json"})
			require.NoError(t, err)
			assert.Equal(t, "otel", s.Format)
			tt.check(t, s)
		})
	}
}

func TestOTelReadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"a forced read of a Claude line", `{"type":"user","sessionId":"s","message":{"content":"hi"}}` + "\n", "t: not OTLP/JSON: no line holds a request (line 1: a JSON object without resourceSpans, resourceLogs or resourceMetrics; skipped)"},
		{"a forced read of text", "hello\n", "t: not OTLP/JSON: no line holds a request (line 1: invalid JSON: invalid character 'h' at offset 0 (expected value); line skipped)"},
		{"a forced read of an ATIF trajectory", "{\n  \"schema_version\": \"ATIF-v1.5\",\n  \"steps\": []\n}\n", "(line 1: a JSON object without resourceSpans, resourceLogs or resourceMetrics; skipped)"},
		{"a forced read of a JSON array", "[1, 2]\n", "(line 1: expected an OTLP/JSON request (a JSON object), found array; line skipped)"},
		{"requests with no spans", `{"resourceSpans":[]}` + "\n", "t: the OTLP/JSON requests hold no span and no tool-call log event"},
		{"a metrics file", `{"resourceMetrics":[{"scopeMetrics":[]}]}` + "\n", "hold only metrics (resourceMetrics), which record no tool calls"},
		{"a document cut before its end", "{\"resourceSpans\": [\n{\"scopeSpans\": [\n", "t:1: reading OTLP/JSON: the request is cut short"},
		{"a single line cut short", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01"`, "t:1: reading OTLP/JSON: the request is cut short"},
		{"log events that are not about tools", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"hello"}}]}]}]}`, "hold no span and no tool-call log event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.doc), Options{Format: "otel", Source: "t"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestOTelLogEventsAreIgnoredWhenSpansDescribeTheCalls(t *testing.T) {
	t.Parallel()
	logs := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"9","attributes":[{"key":"event.name","value":{"stringValue":"gemini_cli.tool_call"}},{"key":"function_name","value":{"stringValue":"read_file"}}]}]}]}]}`
	doc := otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool read_file"}`) + "\n" + logs + "\n"
	s, err := Read(strings.NewReader(doc), Options{Source: "t"})
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file"}, atifNames(s), "the call is read once, from its span")
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, "ignored 1 log events about tool calls and model requests: the spans already describe the tool calls", s.Warnings[0].Message)
}

func TestOTelByteOrderMarkIsIgnored(t *testing.T) {
	t.Parallel()
	s, err := Read(strings.NewReader("\xef\xbb\xbf"+otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool ls"}`)), Options{Source: "bom"})
	require.NoError(t, err)
	assert.Equal(t, "otel", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, []string{"ls"}, atifNames(s))
}

func TestOTelLogEventsBeatSpansWithoutCalls(t *testing.T) {
	t.Parallel()
	logs := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"9","attributes":[{"key":"event.name","value":{"stringValue":"gemini_cli.tool_call"}},{"key":"session.id","value":{"stringValue":"s1"}},{"key":"function_name","value":{"stringValue":"glob"}}]}]}]}]}`
	doc := otelDoc(`{"traceId":"01","spanId":"02","name":"POST /v1beta/models"}`) + "\n" + logs + "\n"
	s, err := Read(strings.NewReader(doc), Options{Source: "t"})
	require.NoError(t, err)
	assert.Equal(t, "s1", s.ID)
	assert.Equal(t, []string{"glob"}, atifNames(s))
}

func TestOTelMaxResultBytesClipsResults(t *testing.T) {
	t.Parallel()
	doc := otelDoc(`{"traceId":"01","spanId":"02","name":"execute_tool cat","attributes":[{"key":"gen_ai.tool.call.result","value":{"stringValue":"héllo world"}}]}`)
	s, err := Read(strings.NewReader(doc), Options{Source: "t", MaxResultBytes: 2})
	require.NoError(t, err)
	assert.Equal(t, "h", s.Calls[0].Result, "cut at a character boundary")
}

func TestOTelDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prefix string
		want   bool
	}{
		{`{"resourceSpans":[`, true},
		{"{\n  \"resourceSpans\" : [", true},
		{`{"resourceLogs":[{"resource":{}`, true},
		{`{"resource_spans":[]}`, true},
		{`{"resourceMetrics":[]}`, true},
		{`{"schema_version":"ATIF-v1.5","resourceSpans":[]}`, false},
		{`{"resourceSpansX":[]}`, false},
		{`[{"resourceSpans":[]}]`, false},
		{`{"type":"user","message":{"content":"{\"resourceSpans\":[]}"}}`, false},
		{``, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, OTel{}.Detect([]byte(tt.prefix)), "%s", tt.prefix)
	}
}

func TestOTelSessionIDPicksATrace(t *testing.T) {
	t.Parallel()
	_, err := ReadFile(filepath.Join("testdata", "otel", "two-traces.collector.jsonl"), Options{SessionID: "ffff"})
	var multi *MultiSessionError
	require.True(t, errors.As(err, &multi))
	assert.Equal(t, "ffff", multi.Want)
}

func TestOTelOpenInferenceMessagesGiveCallsAndAnswers(t *testing.T) {
	t.Parallel()
	attr := func(k, v string) string {
		return `{"key":"` + k + `","value":{"stringValue":` + strconv.Quote(v) + `}}`
	}
	span := func(id, start string, attrs ...string) string {
		return `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id + `","name":"ChatOpenAI","startTimeUnixNano":"` + start +
			`","endTimeUnixNano":"` + start + `","attributes":[` + strings.Join(attrs, ",") + `]}`
	}
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[` +
		span("b000000000000001", "1000", attr("openinference.span.kind", "LLM"),
			attr("llm.output_messages.0.message.tool_calls.1.tool_call.function.name", "second"),
			attr("llm.output_messages.0.message.tool_calls.0.tool_call.id", "c1"),
			attr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "first"),
			attr("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", `{"a":1}`),
			attr("llm.output_messages.x.message.tool_calls.0.tool_call.id", "ignored"),
			attr("llm.output_messages.0.message.content", "not a call")) + "," +
		span("b000000000000002", "2000", attr("openinference.span.kind", "llm"),
			attr("llm.input_messages.1.message.role", "tool"),
			attr("llm.input_messages.1.message.tool_call_id", "c1"),
			attr("llm.input_messages.1.message.content", "answer one"),
			attr("llm.input_messages.0.message.role", "user"),
			attr("llm.input_messages.0.message.content", "hi")) +
		`]}]}]}`
	s, err := Read(strings.NewReader(doc), Options{Source: "oi"})
	require.NoError(t, err)
	assert.Equal(t, []atifRow{
		{ID: "c1", Name: "first", Args: `{"a":1}`, Result: "answer one", HasResult: true, Time: "1970-01-01T00:00:00.000001Z", Cum: -1},
		{Name: "second", Time: "1970-01-01T00:00:00.000001Z", Cum: -1},
	}, atifRows(t, s))
	assert.Empty(t, s.Warnings, "spans of an OpenInference kind follow known conventions")
}

func TestOpenInferenceIndexes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		n    int
		rest string
		ok   bool
	}{
		{"3.message.role", 3, "message.role", true},
		{"0.x", 0, "x", true},
		{"x.message", 0, "", false},
		{"-1.message", 0, "", false},
		{"99999999.message", 0, "", false},
		{"3", 0, "", false},
	} {
		n, rest, ok := oiIndex(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.n, n, tt.in)
		assert.Equal(t, tt.rest, rest, tt.in)
	}
	var calls []oiToolCall
	for i := range oiMaxEntries {
		require.NotNil(t, oiCallAt(&calls, 0, i))
	}
	assert.Nil(t, oiCallAt(&calls, 1, 0), "no entry past the bound")
	assert.Same(t, &calls[5], oiCallAt(&calls, 0, 5), "an existing entry is found again")
	var msgs []oiToolMessage
	for i := range oiMaxEntries {
		require.NotNil(t, oiMessageAt(&msgs, i))
	}
	assert.Nil(t, oiMessageAt(&msgs, oiMaxEntries))
}
