package collect

import (
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	ctJSON  = "application/json"
	ctProto = "application/x-protobuf"
)

// Spans posted as protobuf, OTLP/JSON and gzip-compressed bodies land in
// one file per trace, which trace.Read turns back into the calls.
func TestSpansInEveryEncodingAreReadBackThroughTheTracePackage(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	dir := srv.recv.opts.Dir
	a, b := traceID(1), traceID(2)
	bodies := []struct {
		ctype, encoding string
		body            []byte
	}{
		{ctProto, "", mustProto(t, traceRequest("agent", toolSpan(a, 1, "c1", "a.go")))},
		{ctJSON, "", otlpJSON(t, traceRequest("agent", toolSpan(a, 2, "c2", "b.go"), toolSpan(b, 3, "c3", "x.go")))},
		{ctProto, "gzip", gz(t, mustProto(t, traceRequest("agent", toolSpan(a, 4, "c4", "c.go"))))},
		{ctJSON + "; charset=utf-8", "gzip", gz(t, otlpJSON(t, traceRequest("agent", toolSpan(a, 5, "c5", "d.go"))))},
	}
	for i, bd := range bodies {
		code, out := post(t, srv.Endpoint(), "/v1/traces", bd.ctype, bd.body, "Content-Encoding", bd.encoding)
		require.Equal(t, http.StatusOK, code, "request %d: %s", i, out)
		// The file holds every call so far, at any moment.
		sessions := readSessions(t, traceFile(dir, a))
		require.Len(t, sessions, 1)
		assert.Len(t, sessions[0].Calls, i+1, "after request %d", i)
	}
	s := readSessions(t, traceFile(dir, a))[0]
	assert.Equal(t, hex.EncodeToString(a), s.ID)
	assert.Equal(t, "agent", s.Agent)
	assert.Empty(t, s.Warnings)
	var ids, args []string
	for _, c := range s.Calls {
		ids = append(ids, c.ID)
		args = append(args, string(c.Arguments))
		assert.Equal(t, "read_file", c.Name)
	}
	assert.Equal(t, []string{"c1", "c2", "c4", "c5"}, ids)
	assert.Equal(t, `{"path":"a.go"}`, args[0])
	other := readSessions(t, traceFile(dir, b))
	require.Len(t, other, 1)
	require.Len(t, other[0].Calls, 1)
	assert.Equal(t, "c3", other[0].Calls[0].ID)
	assert.ElementsMatch(t, []string{traceFile(dir, a), traceFile(dir, b)}, srv.Files())
}

// The lines are OTLP/JSON as the specification writes it: ids in hex and
// enums as numbers, one complete request a line.
func TestLinesAreOTLPJSONWithHexIDs(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	id := traceID(7)
	sp := toolSpan(id, 1, "c1", "a.go")
	sp.ParentSpanId = spanID(9)
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, mustProto(t, traceRequest("agent", sp)))
	require.Equal(t, http.StatusOK, code, "%s", out)
	data, err := os.ReadFile(traceFile(srv.recv.opts.Dir, id))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 1)
	line := strings.ReplaceAll(lines[0], " ", "") // protojson may add spaces
	assert.True(t, strings.HasPrefix(line, `{"resourceSpans":`), line)
	assert.Contains(t, line, `"traceId":"`+hex.EncodeToString(id)+`"`)
	assert.Contains(t, line, `"spanId":"`+hex.EncodeToString(spanID(1))+`"`)
	assert.Contains(t, line, `"parentSpanId":"`+hex.EncodeToString(spanID(9))+`"`)
	assert.Contains(t, line, `"kind":1`)
}

// Ids sent in hex (the specification) and in base64 (protobuf's own JSON
// mapping, which some exporters use) are both read as the same id.
func TestJSONIdsInHexAndBase64AreTheSameTrace(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	id := traceID(8)
	hexBody := otlpJSON(t, traceRequest("agent", toolSpan(id, 1, "c1", "a.go")))
	b64Body, err := protojson.Marshal(traceRequest("agent", toolSpan(id, 2, "c2", "b.go")))
	require.NoError(t, err)
	for _, body := range [][]byte{hexBody, b64Body} {
		code, out := post(t, srv.Endpoint(), "/v1/traces", ctJSON, body)
		require.Equal(t, http.StatusOK, code, "%s", out)
	}
	assert.Equal(t, []string{hex.EncodeToString(id) + ".jsonl"}, dirNames(t, srv.recv.opts.Dir))
	assert.Len(t, readSessions(t, traceFile(srv.recv.opts.Dir, id))[0].Calls, 2)
}

// Gemini CLI's tool_call and Claude Code's tool_result log events, which
// carry a session.id and no trace id, land in the session's file and are
// read as calls.
func TestToolCallLogEventsBecomeCallsOfTheSessionFile(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	gemini := logsRequest("gemini-cli",
		&logspb.LogRecord{TimeUnixNano: 1_700_000_001_000_000_000, EventName: "gemini_cli.tool_call", Attributes: []*commonpb.KeyValue{
			str("session.id", "g-1"), str("function_name", "read_file"), str("function_args", `{"absolute_path":"/w/a.go"}`), str("success", "true"),
		}},
		&logspb.LogRecord{TimeUnixNano: 1_700_000_002_000_000_000, EventName: "gemini_cli.tool_call", Attributes: []*commonpb.KeyValue{
			str("session.id", "g-1"), str("function_name", "glob"), str("function_args", `{"pattern":"**/*.go"}`), str("success", "true"),
		}})
	claude := logsRequest("claude-code",
		&logspb.LogRecord{TimeUnixNano: 1_700_000_003_000_000_000,
			Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "claude_code.tool_result"}},
			Attributes: []*commonpb.KeyValue{
				str("event.name", "tool_result"), str("session.id", "c-1"), str("tool_name", "Read"),
				str("success", "false"), str("error", "file not found"), str("tool_parameters", `{"file_path":"/w/b.go"}`),
			}})
	code, out := post(t, srv.Endpoint(), "/v1/logs", ctProto, mustProto(t, gemini))
	require.Equal(t, http.StatusOK, code, "%s", out)
	code, out = post(t, srv.Endpoint(), "/v1/logs", ctJSON, otlpJSON(t, claude))
	require.Equal(t, http.StatusOK, code, "%s", out)
	assert.JSONEq(t, `{}`, string(out), "a full success is an empty ExportLogsServiceResponse")

	dir := srv.recv.opts.Dir
	assert.ElementsMatch(t, []string{"session-g-1.jsonl", "session-c-1.jsonl"}, dirNames(t, dir))
	g := readSessions(t, filepath.Join(dir, "session-g-1.jsonl"))
	require.Len(t, g, 1)
	assert.Equal(t, "g-1", g[0].ID)
	require.Len(t, g[0].Calls, 2)
	assert.Equal(t, "read_file", g[0].Calls[0].Name)
	assert.JSONEq(t, `{"absolute_path":"/w/a.go"}`, string(g[0].Calls[0].Arguments))
	assert.Equal(t, "glob", g[0].Calls[1].Name)
	c := readSessions(t, filepath.Join(dir, "session-c-1.jsonl"))
	require.Len(t, c[0].Calls, 1)
	assert.Equal(t, "Read", c[0].Calls[0].Name)
	assert.True(t, c[0].Calls[0].IsError)
}

// With BySession, the spans of several traces of one session (an agent
// that starts a trace per turn) and its log events share one file.
func TestBySessionPutsTheTracesAndLogsOfASessionInOneFile(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{Group: BySession})
	sess := str("session.id", "s-42")
	req := traceRequest("my-agent", toolSpan(traceID(1), 1, "c1", "a.go", sess), toolSpan(traceID(2), 2, "c2", "b.go", sess),
		toolSpan(traceID(3), 3, "c3", "c.go"))
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, mustProto(t, req))
	require.Equal(t, http.StatusOK, code, "%s", out)
	logReq := logsRequest("my-agent", &logspb.LogRecord{EventName: "gemini_cli.tool_call", Attributes: []*commonpb.KeyValue{sess, str("function_name", "ls")}})
	code, out = post(t, srv.Endpoint(), "/v1/logs", ctProto, mustProto(t, logReq))
	require.Equal(t, http.StatusOK, code, "%s", out)

	dir := srv.recv.opts.Dir
	assert.ElementsMatch(t, []string{"my-agent_s-42.jsonl", hex.EncodeToString(traceID(3)) + ".jsonl"}, dirNames(t, dir))
	sessions := readSessions(t, filepath.Join(dir, "my-agent_s-42.jsonl"))
	require.Len(t, sessions, 2, "one session per trace id")
	assert.Len(t, sessions[0].Calls, 1)
	assert.Len(t, sessions[1].Calls, 1)
	data, err := os.ReadFile(filepath.Join(dir, "my-agent_s-42.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "\n"), "the span line and the log line")
	assert.Contains(t, string(data), `"resourceLogs"`)
}

// A span without a valid trace id is rejected through partial_success;
// the other spans of the request are written.
func TestASpanWithoutATraceIDIsAPartialSuccess(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	for i, ct := range []string{ctProto, ctJSON} {
		n := uint64(10 * i)
		good := toolSpan(traceID(5), n+1, fmt.Sprint("c", n+1), "a.go")
		zero := toolSpan(make([]byte, 16), n+2, "c2", "b.go")
		short := toolSpan([]byte{1, 2, 3}, n+3, "c3", "c.go")
		var body []byte
		if ct == ctProto {
			body = mustProto(t, traceRequest("a", good, zero, short))
		} else {
			body = otlpJSON(t, traceRequest("a", good, zero, short))
		}
		code, out := post(t, srv.Endpoint(), "/v1/traces", ct, body)
		require.Equal(t, http.StatusOK, code, "%s", out)
		resp := &coltrace.ExportTraceServiceResponse{}
		if ct == ctProto {
			require.NoError(t, proto.Unmarshal(out, resp))
		} else {
			require.NoError(t, protojson.Unmarshal(out, resp))
		}
		assert.EqualValues(t, 2, resp.GetPartialSuccess().GetRejectedSpans())
		assert.Contains(t, resp.GetPartialSuccess().GetErrorMessage(), "trace id")
	}
	assert.Equal(t, []string{hex.EncodeToString(traceID(5)) + ".jsonl"}, dirNames(t, srv.recv.opts.Dir))
	assert.Len(t, readSessions(t, traceFile(srv.recv.opts.Dir, traceID(5)))[0].Calls, 2)
}

// Every refused request gets its status and a google.rpc.Status that says
// why, and nothing is written.
func TestRefusedRequestsSayWhyAndWriteNothing(t *testing.T) {
	t.Parallel()
	const limit = 128 << 10
	srv := startServer(t, Options{MaxRequestBytes: limit})
	good := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go")))
	big := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", strings.Repeat("x", 2*limit))))
	bomb := gz(t, make([]byte, 64<<20)) // 64 MiB of zeros in about 64 KiB
	bombJSON := gz(t, []byte(`{"resourceSpans":[`+strings.Repeat(" ", 32<<20)+`]}`))
	tests := []struct {
		name, method, path, ctype, encoding string
		body                                []byte
		status                              int
		reason                              string
	}{
		{"a body that is not JSON is a bad request", "POST", "/v1/traces", ctJSON, "", []byte(`{"resourceSpans":[{`), 400, "not a OTLP/JSON ExportTraceServiceRequest"},
		{"a JSON field of the wrong type is a bad request", "POST", "/v1/traces", ctJSON, "", []byte(`{"resourceSpans":{"a":1}}`), 400, "OTLP/JSON"},
		{"a body that is not protobuf is a bad request", "POST", "/v1/traces", ctProto, "", []byte("\xff\xff\xff\xff"), 400, "not a protobuf ExportTraceServiceRequest"},
		{"a logs body that is not protobuf is a bad request", "POST", "/v1/logs", ctProto, "", []byte("\x0a\x05ab"), 400, "ExportLogsServiceRequest"},
		{"a body said to be gzip that is not is a bad request", "POST", "/v1/traces", ctProto, "gzip", good, 400, "not gzip"},
		{"a truncated gzip body is a bad request", "POST", "/v1/traces", ctProto, "gzip", gz(t, good)[:20], 400, "decompressing"},
		{"a body over the limit is too large", "POST", "/v1/traces", ctProto, "", big, 413, "over the limit"},
		{"a gzip bomb is too large once decompressed", "POST", "/v1/traces", ctProto, "gzip", bomb, 413, "once decompressed"},
		{"a JSON gzip bomb is too large once decompressed", "POST", "/v1/traces", ctJSON, "gzip", bombJSON, 413, "once decompressed"},
		{"another content type is unsupported", "POST", "/v1/traces", "text/plain", "", good, 415, "Content-Type"},
		{"another content encoding is unsupported", "POST", "/v1/traces", ctProto, "br", good, 415, "Content-Encoding"},
		{"GET is not allowed", "GET", "/v1/traces", ctProto, "", nil, 405, "POST"},
		{"metrics are not served", "POST", "/v1/metrics", ctProto, "", good, 404, "/v1/metrics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.Endpoint()+tc.path, strings.NewReader(string(tc.body)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tc.ctype)
			if tc.encoding != "" {
				req.Header.Set("Content-Encoding", tc.encoding)
			}
			resp, err := client.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			st := readStatus(t, resp)
			assert.Contains(t, st.GetMessage(), tc.reason)
			assert.Empty(t, dirNames(t, srv.recv.opts.Dir), "nothing is written")
		})
	}
}

// A body sent without a length (chunked) is cut at the limit too.
func TestAChunkedBodyOverTheLimitIsTooLarge(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{MaxRequestBytes: 1 << 10})
	pr, pw := io.Pipe()
	go func() {
		for range 64 {
			if _, err := pw.Write(make([]byte, 1<<10)); err != nil {
				break
			}
		}
		pw.Close()
	}()
	req, err := http.NewRequest("POST", srv.Endpoint()+"/v1/traces", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", ctProto)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Empty(t, dirNames(t, srv.recv.opts.Dir))
}

func readStatus(t *testing.T, resp *http.Response) *status.Status {
	t.Helper()
	body := make([]byte, 0, 512)
	buf := make([]byte, 512)
	for {
		n, err := resp.Body.Read(buf)
		body = append(body, buf[:n]...)
		if err != nil {
			break
		}
	}
	st := &status.Status{}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), ctProto) {
		require.NoError(t, proto.Unmarshal(body, st), "%q", body)
	} else {
		require.NoError(t, protojson.Unmarshal(body, st), "%q", body)
	}
	return st
}

// A receiver with a token answers 401 to a request without it, or with
// another, and takes the request that carries it.
func TestTheTokenIsRequiredWhenSet(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{Token: "s3cret"})
	body := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go")))
	for _, h := range []string{"", "Bearer wrong", "Basic s3cret", "s3cret"} {
		code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, body, "Authorization", h)
		assert.Equal(t, http.StatusUnauthorized, code, "Authorization %q: %s", h, out)
	}
	assert.Empty(t, dirNames(t, srv.recv.opts.Dir))
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctProto, body, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusOK, code, "%s", out)
}

// Listen refuses an address other than loopback without a token (it
// never binds one in this test), and takes loopback addresses without.
func TestListenNeedsATokenOffLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:4318", "example.com:4318"} {
		_, err := Listen(addr, Options{Dir: t.TempDir()})
		assert.ErrorIs(t, err, ErrTokenRequired, addr)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		s, err := Listen(addr, Options{Dir: t.TempDir()})
		require.NoError(t, err, addr)
		require.NoError(t, s.ln.Close())
	}
}

// After Close, a receiver answers 503 and writes nothing more.
func TestAClosedReceiverIsUnavailable(t *testing.T) {
	t.Parallel()
	r, err := NewReceiver(Options{Dir: t.TempDir()})
	require.NoError(t, err)
	require.NoError(t, r.Close())
	rec := httptest.NewRecorder()
	req, _ := http.NewRequest("POST", "/v1/traces", strings.NewReader(""))
	req.Host = "localhost"
	req.Header.Set("Content-Type", ctProto)
	r.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
}

// A log record goes by its session (an agent logs one session under a
// trace per request), else by its trace, else by its service.
func TestALogRecordGoesBySessionThenTraceThenService(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Options{})
	call := func(attrs ...*commonpb.KeyValue) []*commonpb.KeyValue {
		return append([]*commonpb.KeyValue{str("function_name", "ls")}, attrs...)
	}
	req := logsRequest("gemini-cli",
		&logspb.LogRecord{EventName: "gemini_cli.tool_call", TraceId: traceID(1), Attributes: call(str("session.id", "s1"))},
		&logspb.LogRecord{EventName: "gemini_cli.tool_call", TraceId: traceID(2), Attributes: call(str("session.id", "s1"))},
		&logspb.LogRecord{EventName: "gemini_cli.tool_call", TraceId: traceID(3), Attributes: call()},
		&logspb.LogRecord{EventName: "gemini_cli.tool_call", Attributes: call()})
	code, out := post(t, srv.Endpoint(), "/v1/logs", ctJSON, otlpJSON(t, req))
	require.Equal(t, http.StatusOK, code, "%s", out)
	dir := srv.recv.opts.Dir
	assert.ElementsMatch(t, []string{"session-s1.jsonl", hex.EncodeToString(traceID(3)) + ".jsonl", "service-gemini-cli.jsonl"}, dirNames(t, dir))
	s := readSessions(t, filepath.Join(dir, "session-s1.jsonl"))
	require.Len(t, s, 1)
	assert.Len(t, s[0].Calls, 2, "both traces of the session")
}

// On loopback, only the names of this machine are served as Host: a web
// page that reaches the receiver by DNS rebinding sends its own name, and
// gets 421 with a status that says why, whether or not a token is set.
func TestOnLoopbackOnlyLocalHostNamesAreServed(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", "s3cret"} {
		srv := startServer(t, Options{Token: token})
		_, port, err := net.SplitHostPort(srv.Addr().String())
		require.NoError(t, err)
		send := func(host, ctype string) *http.Response {
			body := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go")))
			req, err := http.NewRequest("POST", srv.Endpoint()+"/v1/traces", strings.NewReader(string(body)))
			require.NoError(t, err)
			req.Host = host
			req.Header.Set("Content-Type", ctype)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			require.NoError(t, err)
			return resp
		}
		for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.nip.io:" + port, "127.0.0.2:" + port, "0.0.0.0:" + port, "localhost.evil.example"} {
			for _, ct := range []string{ctProto, ctJSON} {
				resp := send(host, ct)
				assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "Host %q", host)
				assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), ct))
				assert.Contains(t, readStatus(t, resp).GetMessage(), "localhost, 127.0.0.1 and [::1]", "Host %q", host)
				resp.Body.Close()
			}
		}
		assert.Empty(t, dirNames(t, srv.recv.opts.Dir), "token %q", token)
		for _, host := range []string{"localhost", "localhost:" + port, "LocalHost:" + port, "127.0.0.1", "127.0.0.1:" + port, "[::1]", "[::1]:" + port} {
			resp := send(host, ctProto)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode, "Host %q", host)
		}
	}
}

// The Host names taken, with and without a port.
func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]bool{
		"localhost": true, "localhost:4318": true, "LOCALHOST": true, "127.0.0.1": true, "127.0.0.1:80": true,
		"[::1]": true, "[::1]:4318": true,
		"": false, "::1": false, "::1:4318": false, "127.0.0.1.nip.io": false, "127.0.0.2": false, "example.com:4318": false,
		"[::ffff:127.0.0.1]:4318": false, "localhost.": false,
	} {
		assert.Equal(t, want, loopbackHost(h), "%q", h)
	}
}

// A receiver mounted in a server of the user's own, with no token, answers
// only the names of this machine as Host, unless told others.
func TestAReceiverWithoutATokenAnswersOnlyTheHostsItIsTold(t *testing.T) {
	t.Parallel()
	post := func(t *testing.T, opts Options, host string) int {
		opts.Dir = t.TempDir()
		r, err := NewReceiver(opts)
		require.NoError(t, err)
		body := mustProto(t, traceRequest("a", toolSpan(traceID(1), 1, "c1", "a.go")))
		req := httptest.NewRequest("POST", "/v1/traces", strings.NewReader(string(body)))
		req.Host = host
		req.Header.Set("Content-Type", ctProto)
		if opts.Token != "" {
			req.Header.Set("Authorization", "Bearer "+opts.Token)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code == http.StatusMisdirectedRequest {
			assert.Empty(t, dirNames(t, opts.Dir), "a refused request writes nothing")
			assert.Contains(t, w.Body.String(), "not served")
		}
		return w.Code
	}
	for _, tt := range []struct {
		name string
		opts Options
		host string
		want int
	}{
		{"loopback by name", Options{}, "localhost:4318", http.StatusOK},
		{"loopback by address", Options{}, "127.0.0.1", http.StatusOK},
		{"IPv6 loopback", Options{}, "[::1]:4318", http.StatusOK},
		{"a rebound name", Options{}, "evil.example:4318", http.StatusMisdirectedRequest},
		{"no Host", Options{}, "", http.StatusMisdirectedRequest},
		{"a name told", Options{Hosts: []string{"collector.internal"}}, "Collector.Internal:4318", http.StatusOK},
		{"an address told", Options{Hosts: []string{"[fd00::1]"}}, "[fd00::1]:4318", http.StatusOK},
		{"a name not told", Options{Hosts: []string{"collector.internal"}}, "evil.example", http.StatusMisdirectedRequest},
		{"any name", Options{Hosts: []string{"*"}}, "evil.example", http.StatusOK},
		{"a token guards any name", Options{Token: "s3cret"}, "evil.example", http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, post(t, tt.opts, tt.host))
		})
	}
}
