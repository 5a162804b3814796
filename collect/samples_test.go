package collect

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentretrieval/agentretrieval/trace"
)

// The OTLP/JSON example of the protocol's repository (upper-case hex ids,
// scope attributes, a span kind) goes through the receiver unchanged: the
// line written decodes to the same request, with the ids in lower-case
// hex.
func TestTheProtocolsJSONExampleRoundTrips(t *testing.T) {
	t.Parallel()
	sample := filepath.Join("..", "..", "shared", "samples", "otel", "otlp-proto-example-trace.json")
	body, err := os.ReadFile(sample)
	if os.IsNotExist(err) {
		t.Skip("no samples folder beside the repository")
	}
	require.NoError(t, err)
	srv := startServer(t, Options{})
	code, out := post(t, srv.Endpoint(), "/v1/traces", ctJSON, body)
	require.Equal(t, http.StatusOK, code, "%s", out)
	assert.JSONEq(t, `{}`, string(out))

	path := filepath.Join(srv.recv.opts.Dir, "5b8efff798038103d269b633813fc60c.jsonl")
	line, err := os.ReadFile(path)
	require.NoError(t, err)
	compact := strings.ReplaceAll(string(line), " ", "")
	assert.Contains(t, compact, `"traceId":"5b8efff798038103d269b633813fc60c"`)
	assert.Contains(t, compact, `"parentSpanId":"eee19b7ec3c1b173"`)

	want, err := decodeOTLPJSON(body)
	require.NoError(t, err)
	got, err := decodeOTLPJSON(line)
	require.NoError(t, err)
	assert.True(t, proto.Equal(want, got), "sent:\n%v\nwritten:\n%v", want, got)
}

// decodeOTLPJSON decodes an OTLP/JSON trace request as the receiver does.
func decodeOTLPJSON(b []byte) (*coltrace.ExportTraceServiceRequest, error) {
	req := &coltrace.ExportTraceServiceRequest{}
	if err := jsonIn.Unmarshal(b, req); err != nil {
		return nil, err
	}
	visitSpanIDs(&tracepb.TracesData{ResourceSpans: req.ResourceSpans}, func(id []byte, n int) []byte { return idFromJSON(id, n) })
	return req, nil
}

// The log files the trace package's tests read (Claude Code and Gemini
// CLI events, as a Collector's file exporter writes them) and a spans file
// with two traces, posted line by line, give the same sessions, calls
// and tokens when read back from what the receiver wrote.
func TestRecordedFilesReadAsTheCollectorsFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, path string }{
		{"claude-code-logs.collector.jsonl", "/v1/logs"},
		{"gemini-cli-logs.collector.jsonl", "/v1/logs"},
		{"two-traces.collector.jsonl", "/v1/traces"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join("..", "trace", "testdata", "otel", tc.file)
			data, err := os.ReadFile(src)
			require.NoError(t, err)
			srv := startServer(t, Options{})
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				code, out := post(t, srv.Endpoint(), tc.path, ctJSON, []byte(line))
				require.Equal(t, http.StatusOK, code, "%s", out)
			}
			want := summarize(t, readSessions(t, src))
			require.NotEmpty(t, want)
			assert.Contains(t, strings.Join(want, "\n"), "[", "the file has calls")
			var got []string
			for _, f := range srv.Files() {
				got = append(got, summarize(t, readSessions(t, f))...)
			}
			assert.ElementsMatch(t, want, got)
		})
	}
}

// summarize describes each session by its id, agent, usage and calls.
func summarize(t *testing.T, sessions []*trace.Session) []string {
	t.Helper()
	var out []string
	for _, s := range sessions {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s:", s.ID, s.Agent)
		if s.Usage != nil {
			fmt.Fprintf(&b, " %+v", *s.Usage)
		}
		for _, c := range s.Calls {
			fmt.Fprintf(&b, " [%s %s %s err=%v]", c.ID, c.Name, c.Arguments, c.IsError)
		}
		out = append(out, b.String())
	}
	return out
}
