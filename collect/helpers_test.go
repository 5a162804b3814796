package collect

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agentretrieval/agentretrieval/trace"
)

// testServer is a Server serving on loopback for one test.
type testServer struct {
	*Server
	stop func() error // ends Serve and returns its error
}

func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	srv, err := Listen("127.0.0.1:0", opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	stopped := false
	var serr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			serr = <-done
		}
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return &testServer{Server: srv, stop: stop}
}

// client is an HTTP client for loopback tests; the timeout only keeps a
// broken test from hanging.
var client = &http.Client{Timeout: 2 * time.Minute}

// post sends body to the server's path and returns the status and body.
func post(t *testing.T, url, path, ctype string, body []byte, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, out
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// traceID makes a 16-byte trace id from a number.
func traceID(n uint64) []byte {
	id := make([]byte, 16)
	binary.BigEndian.PutUint64(id[:8], 0xa1b2c3d4e5f60718)
	binary.BigEndian.PutUint64(id[8:], n)
	return id
}

func spanID(n uint64) []byte {
	id := make([]byte, 8)
	binary.BigEndian.PutUint64(id, n|1<<62)
	return id
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// toolSpan is an execute_tool span of the GenAI conventions that reads
// path, with call id id.
func toolSpan(trace []byte, n uint64, id, path string, attrs ...*commonpb.KeyValue) *tracepb.Span {
	start := uint64(1_700_000_000_000_000_000) + n*1_000_000
	return &tracepb.Span{
		TraceId: trace, SpanId: spanID(n), Name: "execute_tool read_file",
		Kind:              tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: start, EndTimeUnixNano: start + 500_000,
		Attributes: append([]*commonpb.KeyValue{
			str("gen_ai.operation.name", "execute_tool"),
			str("gen_ai.tool.name", "read_file"),
			str("gen_ai.tool.call.id", id),
			str("gen_ai.tool.call.arguments", fmt.Sprintf(`{"path":%q}`, path)),
		}, attrs...),
	}
}

// traceRequest wraps spans in a request of one resource and scope.
func traceRequest(service string, spans ...*tracepb.Span) *coltrace.ExportTraceServiceRequest {
	return &coltrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", service)}},
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "test"}, Spans: spans}},
	}}}
}

func logsRequest(service string, recs ...*logspb.LogRecord) *collogs.ExportLogsServiceRequest {
	return &collogs.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{
		Resource:  &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", service)}},
		ScopeLogs: []*logspb.ScopeLogs{{Scope: &commonpb.InstrumentationScope{Name: "test"}, LogRecords: recs}},
	}}}
}

func mustProto(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}

// otlpJSON writes a request as an exporter's OTLP/JSON: protojson with
// the ids in hex, as the specification has them.
func otlpJSON(t *testing.T, m proto.Message) []byte {
	t.Helper()
	m = proto.Clone(m)
	switch r := m.(type) {
	case *coltrace.ExportTraceServiceRequest:
		visitSpanIDs(&tracepb.TracesData{ResourceSpans: r.ResourceSpans}, func(id []byte, _ int) []byte { return idForJSON(id) })
	case *collogs.ExportLogsServiceRequest:
		visitLogIDs(&logspb.LogsData{ResourceLogs: r.ResourceLogs}, func(id []byte, _ int) []byte { return idForJSON(id) })
	}
	b, err := protojson.Marshal(m)
	require.NoError(t, err)
	return b
}

// readSessions reads a written file through the trace package.
func readSessions(t *testing.T, path string) []*trace.Session {
	t.Helper()
	all, err := trace.ReadFileAll(path, trace.Options{})
	require.NoError(t, err)
	return all
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func traceFile(dir string, id []byte) string {
	return filepath.Join(dir, hex.EncodeToString(id)+".jsonl")
}

func protoMarshal(m proto.Message) ([]byte, error) { return proto.Marshal(m) }

// jsonMarshalOTLP is otlpJSON for goroutines that may not fail a test.
func jsonMarshalOTLP(m *coltrace.ExportTraceServiceRequest) ([]byte, error) {
	m = proto.Clone(m).(*coltrace.ExportTraceServiceRequest)
	visitSpanIDs(&tracepb.TracesData{ResourceSpans: m.ResourceSpans}, func(id []byte, _ int) []byte { return idForJSON(id) })
	return protojson.Marshal(m)
}
