package collect

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// decodeAs reads a body with the official generated type, strictly: an
// unknown field in the JSON is an error.
func decodeAs(t *testing.T, body []byte, enc encoding, m proto.Message) {
	t.Helper()
	if enc == protoEncoding {
		require.NoError(t, proto.Unmarshal(body, m), "%q", body)
		unknown := m.ProtoReflect().GetUnknown()
		require.Empty(t, unknown, "fields the message does not define")
		return
	}
	require.NoError(t, protojson.Unmarshal(body, m), "%s", body)
}

// The responses are encoded without the collector services' types; the
// exporters decode them with those types, and must read what was meant.
func TestExportResponsesReadAsTheCollectorTypes(t *testing.T) {
	t.Parallel()
	for _, enc := range []encoding{protoEncoding, jsonEncoding} {
		wantType := map[encoding]string{protoEncoding: "application/x-protobuf", jsonEncoding: "application/json"}[enc]

		body, ctype := exportResponse{rejectedName: "rejectedSpans"}.marshal(enc)
		assert.Equal(t, wantType, ctype)
		full := &coltrace.ExportTraceServiceResponse{}
		decodeAs(t, body, enc, full)
		assert.Nil(t, full.GetPartialSuccess(), "a full success has no partial_success")

		body, _ = exportResponse{rejectedName: "rejectedSpans", rejected: 1 << 40, message: "dropped <3> spans"}.marshal(enc)
		spans := &coltrace.ExportTraceServiceResponse{}
		decodeAs(t, body, enc, spans)
		assert.EqualValues(t, 1<<40, spans.GetPartialSuccess().GetRejectedSpans())
		assert.Equal(t, "dropped <3> spans", spans.GetPartialSuccess().GetErrorMessage())

		body, _ = exportResponse{rejectedName: "rejectedLogRecords", rejected: 7}.marshal(enc)
		logs := &collogs.ExportLogsServiceResponse{}
		decodeAs(t, body, enc, logs)
		assert.EqualValues(t, 7, logs.GetPartialSuccess().GetRejectedLogRecords())
		assert.Empty(t, logs.GetPartialSuccess().GetErrorMessage())

		// A warning without a count is a partial_success too.
		body, _ = exportResponse{rejectedName: "rejectedLogRecords", message: "records kept; attributes cut"}.marshal(enc)
		warned := &collogs.ExportLogsServiceResponse{}
		decodeAs(t, body, enc, warned)
		require.NotNil(t, warned.GetPartialSuccess())
		assert.Zero(t, warned.GetPartialSuccess().GetRejectedLogRecords())
		assert.Equal(t, "records kept; attributes cut", warned.GetPartialSuccess().GetErrorMessage())
	}
}

// Every refusal carries a google.rpc.Status with the code that goes with
// its HTTP status (the table of the OTLP specification), in the request's
// encoding.
func TestFailureStatusesReadAsGoogleRPCStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		http int
		want code.Code
	}{
		{http.StatusBadRequest, code.Code_INVALID_ARGUMENT},
		{http.StatusUnsupportedMediaType, code.Code_INVALID_ARGUMENT},
		{http.StatusUnauthorized, code.Code_UNAUTHENTICATED},
		{http.StatusNotFound, code.Code_UNIMPLEMENTED},
		{http.StatusMethodNotAllowed, code.Code_UNIMPLEMENTED},
		{http.StatusRequestEntityTooLarge, code.Code_RESOURCE_EXHAUSTED},
		{http.StatusServiceUnavailable, code.Code_UNAVAILABLE},
		{http.StatusTooManyRequests, code.Code_UNAVAILABLE},
		{http.StatusMisdirectedRequest, code.Code_PERMISSION_DENIED},
		{http.StatusInternalServerError, code.Code_INTERNAL},
	}
	for _, c := range cases {
		for _, asProto := range []bool{true, false} {
			w := httptest.NewRecorder()
			fail(w, asProto, c.http, "refused: %d", c.http)
			assert.Equal(t, c.http, w.Code)
			enc, wantType := jsonEncoding, "application/json"
			if asProto {
				enc, wantType = protoEncoding, "application/x-protobuf"
			}
			assert.Equal(t, wantType, w.Header().Get("Content-Type"))
			st := &status.Status{}
			decodeAs(t, w.Body.Bytes(), enc, st)
			assert.Equal(t, int32(c.want), st.GetCode(), "HTTP %d", c.http)
			assert.Equal(t, fmt.Sprintf("refused: %d", c.http), st.GetMessage())
			assert.Empty(t, st.GetDetails())
		}
	}
}

// A status with code 0 (OK) and no message is the empty message, as
// proto3 writes it.
func TestAnEmptyStatusIsTheEmptyMessage(t *testing.T) {
	t.Parallel()
	body, _ := statusBody(0, "", protoEncoding)
	assert.Empty(t, body)
	body, _ = statusBody(0, "", jsonEncoding)
	st := &status.Status{}
	decodeAs(t, body, jsonEncoding, st)
	assert.True(t, proto.Equal(&status.Status{}, st))
}
