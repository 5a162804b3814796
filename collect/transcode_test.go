package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// agree transcodes a protobuf body of sig and decodes it with the OTLP
// types and protojson, and fails unless both write the same files, in the
// same order, with lines that read as the same requests, and the same
// response. It reports whether the transcoder took the body (false: it
// left it to the decoder, which may refuse it).
func agree(t testing.TB, body []byte, sig signalKind, g Group) bool {
	t.Helper()
	fast, ferr := transcode(body, sig, g)
	decodeSlow := decodeTraces
	if sig == logs {
		decodeSlow = decodeLogs
	}
	slow, serr := decodeSlow(body, protoEncoding, g)
	if errors.Is(ferr, errIrregular) {
		return false
	}
	if ferr != nil {
		t.Fatalf("transcoding: an error other than errIrregular: %v", ferr)
	}
	if serr != nil {
		t.Fatalf("the transcoder took a body the decoder refuses (%v): %x", serr, body)
	}
	sameBatches(t, fast, slow, sig)
	return true
}

// sameBatches fails unless got and the reference decoder's want answer
// the same and write the same files, in the same order, each one line
// that reads as the same request.
func sameBatches(t testing.TB, got, want *batch, sig signalKind) {
	t.Helper()
	if got.response != want.response {
		t.Fatalf("responses differ: %+v, reference %+v", got.response, want.response)
	}
	if len(got.parts) != len(want.parts) {
		t.Fatalf("%d files, the reference %d", len(got.parts), len(want.parts))
	}
	for i := range got.parts {
		f, s := got.parts[i], want.parts[i]
		if f.name != s.name {
			t.Fatalf("file %d: %s, the reference %s", i, f.name, s.name)
		}
		if bytes.Count(f.lines, []byte("\n")) != 1 || !bytes.HasSuffix(f.lines, []byte("\n")) {
			t.Fatalf("%s: not one line: %q", f.name, f.lines)
		}
		if fm, sm := readLine(t, f.lines, sig), readLine(t, s.lines, sig); !bytes.Equal(fm, sm) {
			t.Fatalf("%s: the lines differ:\nreceiver  %s\nreference %s", f.name, f.lines, s.lines)
		}
	}
}

// agreeDecoding decodes a body in enc as the receiver does and with the
// reference decoder (reference_test.go), and fails unless both refuse it
// or both write the same files with lines that read as the same
// requests, and answer the same. It reports whether the body was taken.
func agreeDecoding(t testing.TB, body []byte, enc encoding, sig signalKind, g Group) bool {
	t.Helper()
	got, err := decode(body, enc, sig, g)
	decodeRef := decodeTraces
	if sig == logs {
		decodeRef = decodeLogs
	}
	want, werr := decodeRef(body, enc, g)
	if err != nil && werr == nil && enc == jsonEncoding && !json.Valid(body) {
		// protojson reads some text that is not JSON (a number "1e" before
		// a brace); the receiver refuses it.
		return false
	}
	if (err == nil) != (werr == nil) {
		t.Fatalf("the receiver says %v, the reference decoder %v, for %q", err, werr, body)
	}
	if err != nil {
		return false
	}
	sameBatches(t, got, want, sig)
	return true
}

// readLine reads a written line with protojson and returns the request
// it holds in deterministic protobuf, for comparing.
func readLine(t testing.TB, line []byte, sig signalKind) []byte {
	t.Helper()
	var m proto.Message = &tracepb.TracesData{}
	if sig == logs {
		m = &logspb.LogsData{}
	}
	if err := protojson.Unmarshal(line, m); err != nil {
		t.Fatalf("the line does not read as OTLP/JSON: %v\n%s", err, line)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func anyValue(v any) *commonpb.AnyValue {
	switch v := v.(type) {
	case string:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}
	case bool:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v}}
	case int:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(v)}}
	case float64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}
	case []byte:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v}}
	case []any:
		arr := &commonpb.ArrayValue{}
		for _, e := range v {
			arr.Values = append(arr.Values, anyValue(e))
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: arr}}
	case map[string]any:
		kvl := &commonpb.KeyValueList{}
		for k, e := range v {
			kvl.Values = append(kvl.Values, &commonpb.KeyValue{Key: k, Value: anyValue(e)})
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: kvl}}
	}
	panic("no such value")
}

func attr(k string, v any) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: anyValue(v)} }

// everyKindSpan has a value of every kind OTLP's traces hold, and text
// that JSON escapes.
func everyKindSpan() *tracepb.Span {
	s := toolSpan(traceID(9), 9, "c\"9\\", "dir/\x01a\tb\nc.go",
		attr("zero.int", 0), attr("neg.int", -42), attr("big.int", math.MaxInt64), attr("empty.string", ""),
		attr("false", false), attr("true", true), attr("double", 1.5e-300), attr("zero.double", 0.0),
		attr("nan", math.NaN()), attr("inf", math.Inf(1)), attr("neg.inf", math.Inf(-1)),
		attr("bytes", []byte{0, 0xff, 0x10}), attr("empty.bytes", []byte{}),
		attr("array", []any{"a", 1, []any{true}, map[string]any{"k": "v"}}), attr("kvlist", map[string]any{"x": 2.5}),
		attr("unicode", "é—\u2028😀"), &commonpb.KeyValue{Key: "no.value"})
	s.ParentSpanId = spanID(1)
	s.TraceState = "k=v"
	s.Flags = 0x301
	s.DroppedAttributesCount = 3
	s.Events = []*tracepb.Span_Event{{TimeUnixNano: 1, Name: "ev", Attributes: []*commonpb.KeyValue{attr("a", "b")}}, {}}
	s.Links = []*tracepb.Span_Link{{TraceId: traceID(10), SpanId: spanID(10), Flags: 1}, {TraceId: []byte{1, 2, 3}}}
	s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "failed"}
	return s
}

func tracesBody(t testing.TB, rs ...*tracepb.ResourceSpans) []byte {
	return mustProto(t, &tracepb.TracesData{ResourceSpans: rs})
}

func resourceSpans(service string, attrs []*commonpb.KeyValue, scopes ...*tracepb.ScopeSpans) *tracepb.ResourceSpans {
	res := &resourcepb.Resource{Attributes: append([]*commonpb.KeyValue{str("service.name", service)}, attrs...)}
	return &tracepb.ResourceSpans{Resource: res, ScopeSpans: scopes, SchemaUrl: "https://opentelemetry.io/schemas/1.26.0"}
}

func scopeSpans(name string, spans ...*tracepb.Span) *tracepb.ScopeSpans {
	return &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: name, Version: "1"}, Spans: spans}
}

func withSession(s *tracepb.Span, key, id string) *tracepb.Span {
	s.Attributes = append(s.Attributes, str(key, id))
	return s
}

// regularTraceBodies are requests as exporters encode them; the
// transcoder takes each, and writes what the decoder writes.
func regularTraceBodies(t testing.TB) map[string][]byte {
	span := func(tr, n uint64) *tracepb.Span { return toolSpan(traceID(tr), n, "c", "a.go") }
	return map[string][]byte{
		"one span":                          mustProto(t, traceRequest("a", span(1, 1))),
		"spans of three traces interleaved": mustProto(t, traceRequest("a", span(1, 1), span(2, 2), span(1, 3), span(3, 4), span(2, 5))),
		"two resources of two scopes each, sharing traces": tracesBody(t,
			resourceSpans("r1", nil, scopeSpans("s1", span(1, 1), span(2, 2)), scopeSpans("s2", span(2, 3))),
			resourceSpans("r2", []*commonpb.KeyValue{str("session.id", "res-session")}, scopeSpans("s3", span(1, 4)), scopeSpans("s4", span(3, 5), span(1, 6)))),
		"sessions on spans and resources, both keys": tracesBody(t,
			resourceSpans("agent/x", []*commonpb.KeyValue{str("gen_ai.conversation.id", "conv 1")}, scopeSpans("s",
				withSession(span(1, 1), "session.id", "s-1"), span(1, 2), withSession(span(2, 3), "gen_ai.conversation.id", "c/2"),
				withSession(withSession(span(2, 4), "session.id", ""), "gen_ai.conversation.id", "c3")))),
		"spans without a valid trace id are counted": mustProto(t, traceRequest("a", span(1, 1),
			&tracepb.Span{TraceId: make([]byte, 16), SpanId: spanID(2), Name: "zero"}, &tracepb.Span{SpanId: spanID(3), Name: "none"},
			&tracepb.Span{TraceId: []byte{1, 2}, Name: "short"})),
		"every kind of value":              mustProto(t, traceRequest("a", everyKindSpan())),
		"no resource, no scope, no schema": tracesBody(t, &tracepb.ResourceSpans{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{span(4, 1)}}}}),
		"empty resource and scope":         tracesBody(t, &tracepb.ResourceSpans{Resource: &resourcepb.Resource{}, ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{}, Spans: []*tracepb.Span{{TraceId: traceID(5)}}, SchemaUrl: "s"}}}),
		"a resource without spans":         tracesBody(t, resourceSpans("idle", nil), resourceSpans("busy", nil, scopeSpans("s", span(1, 1)))),
		"service.name that is not a string, twice": tracesBody(t, &tracepb.ResourceSpans{
			Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{attr("service.name", 7), str("service.name", "second")}},
			ScopeSpans: []*tracepb.ScopeSpans{scopeSpans("s", span(1, 1))}}),
		"nothing": {},
		"a name of 128 bytes (a two-byte length)":    mustProto(t, traceRequest("a", &tracepb.Span{TraceId: traceID(1), Name: strings.Repeat("n", 128)})),
		"unknown fields at every level are left out": unknownEverywhere(t),
		"one trace under two services and sessions": tracesBody(t,
			resourceSpans("r1", []*commonpb.KeyValue{str("session.id", "A")}, scopeSpans("s", span(1, 1), span(1, 2))),
			resourceSpans("r2", []*commonpb.KeyValue{str("session.id", "B")}, scopeSpans("s", span(1, 3), span(1, 4)))),
	}
}

// unknownEverywhere is a request with a field of a later OTLP version in
// the request, a ResourceSpans, a ScopeSpans, a span (numbered past the
// transcoder's table of small numbers) and an attribute (numbered 16,
// the first with a two-byte tag).
func unknownEverywhere(t testing.TB) []byte {
	unknown := func(b []byte, num protowire.Number) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), 7)
	}
	kv := unknown(mustProto(t, str("k", "v")), 16)
	span := unknown(unknown(appendField(mustProto(t, toolSpan(traceID(1), 1, "c", "a.go")), 9, kv), maxIndexed+1), 99)
	ss := unknown(appendField(nil, 2, span), 98)
	rs := unknown(appendField(nil, 2, ss), 97)
	return unknown(appendField(nil, 1, rs), 96)
}

func regularLogBodies(t testing.TB) map[string][]byte {
	rec := func(session string, trace []byte) *logspb.LogRecord {
		r := &logspb.LogRecord{TimeUnixNano: 5, SeverityNumber: logspb.SeverityNumber_SEVERITY_NUMBER_INFO, SeverityText: "INFO",
			EventName: "claude_code.tool_result", Body: anyValue("tool done"), TraceId: trace, SpanId: spanID(4), Flags: 1,
			Attributes: []*commonpb.KeyValue{attr("tool_name", "Read"), attr("duration_ms", 12)}}
		if session != "" {
			r.Attributes = append(r.Attributes, str("session.id", session))
		}
		return r
	}
	return map[string][]byte{
		"records by session, by trace and by service": mustProto(t, logsRequest("claude-code", rec("s1", nil), rec("", traceID(2)), rec("", nil), rec("s1", traceID(3)), rec("s/2", nil))),
		"two resources": mustProto(t, &logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{
			{Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("session.id", "rs")}}, ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{rec("", nil), rec("own", nil)}, SchemaUrl: "u"}}},
			{ScopeLogs: []*logspb.ScopeLogs{{Scope: &commonpb.InstrumentationScope{Name: "x"}, LogRecords: []*logspb.LogRecord{rec("", []byte{1}), {}}}}},
		}}),
	}
}

// Requests as exporters encode them are transcoded, never left to the
// decoder, and give the files, lines and response the decoder gives.
func TestTranscodingWritesWhatDecodingWrites(t *testing.T) {
	t.Parallel()
	for _, g := range []Group{ByTrace, BySession} {
		for name, body := range regularTraceBodies(t) {
			assert.True(t, agree(t, body, traces, g), "traces %s (%v): left to the decoder", name, g)
		}
		for name, body := range regularLogBodies(t) {
			assert.True(t, agree(t, body, logs, g), "logs %s (%v): left to the decoder", name, g)
		}
	}
}

// appendField appends a field of bytes to a message.
func appendField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// Bodies that are valid protobuf but not in the encoding exporters write
// (a singular field given twice, which the decoder merges or replaces; a
// repeated field's elements apart; two members of a oneof) and bodies the
// decoder refuses are left to the decoder, which reads or refuses them.
func TestIrregularBodiesAreLeftToTheDecoder(t *testing.T) {
	t.Parallel()
	span := mustProto(t, toolSpan(traceID(1), 1, "c", "a.go"))
	wrap := func(spans ...[]byte) []byte {
		var ss, rs, td []byte
		for _, s := range spans {
			ss = appendField(ss, 2, s)
		}
		rs = appendField(rs, 2, ss)
		return appendField(td, 1, rs)
	}
	anyValue := func(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
	strField := appendField(nil, 1, []byte("x"))
	boolField := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1)
	kv := appendField(appendField(nil, 1, []byte("k")), 2, anyValue(strField, boolField))
	cases := map[string][]byte{
		"a span's name given twice":                wrap(appendField(span, 5, []byte("again"))),
		"a span's status given twice":              wrap(appendField(appendField(span, 15, nil), 15, nil)),
		"attributes apart":                         wrap(appendField(appendField(appendField(nil, 9, kv), 5, []byte("n")), 9, kv)),
		"two members of a value's oneof":           wrap(appendField(append([]byte{}, span...), 9, kv)),
		"a name that is not UTF-8":                 wrap(appendField(append([]byte{}, span...), 5, []byte{0xff})),
		"a name sent as a number":                  wrap(protowire.AppendVarint(protowire.AppendTag(nil, 5, protowire.VarintType), 3)),
		"a span cut short":                         wrap(span[:len(span)-3]),
		"a resource given twice":                   appendField(nil, 1, appendField(appendField(nil, 1, nil), 1, nil)),
		"a scope's schema given twice":             appendField(nil, 1, appendField(nil, 2, appendField(appendField(nil, 3, []byte("a")), 3, []byte("b")))),
		"a resource sent as a number":              appendField(nil, 1, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)),
		"a schema URL that is not UTF-8":           appendField(nil, 1, appendField(nil, 3, []byte{0xc0})),
		"a tag cut short":                          {0x0a, 0x80},
		"a field numbered 0":                       wrap(append(append([]byte{}, span...), 0x00, 0x00)),
		"an unknown field of a span cut short":     wrap(append(protowire.AppendTag(append([]byte{}, span...), 40, protowire.BytesType), 5)),
		"a trace state without its length":         wrap(protowire.AppendTag(append([]byte{}, span...), 3, protowire.BytesType)),
		"a trace state a byte short":               wrap(append(protowire.AppendTag(append([]byte{}, span...), 3, protowire.BytesType), 3, 'a', 'b')),
		"an unknown field cut short":               append(protowire.AppendTag(nil, 9, protowire.BytesType), 5),
		"an unknown field of a resource cut short": appendField(nil, 1, append(protowire.AppendTag(nil, 9, protowire.BytesType), 5)),
		"an unknown field of a scope cut short":    appendField(nil, 1, appendField(nil, 2, append(protowire.AppendTag(nil, 9, protowire.BytesType), 5))),
		"a scope's tag cut short":                  appendField(nil, 1, appendField(nil, 2, []byte{0x0a, 0x80})),
		"a resource's tag cut short":               appendField(nil, 1, []byte{0x0a, 0x80}),
		"values nested deeper than it goes":        wrap(appendField(nil, 9, appendField(appendField(nil, 1, []byte("k")), 2, nested(maxTranscodeDepth+5)))),
	}
	for name, body := range cases {
		_, err := transcode(body, traces, ByTrace)
		assert.ErrorIs(t, err, errIrregular, name)
		assert.False(t, agree(t, body, traces, ByTrace), name)
		// decode then gives what the decoder gives.
		agreeDecoding(t, body, protoEncoding, traces, ByTrace)
	}
	// Irregular, yet the decoder reads it: the name given twice is kept
	// last, as protobuf replaces a singular field.
	b, err := decode(cases["a span's name given twice"], protoEncoding, traces, ByTrace)
	require.NoError(t, err)
	require.Len(t, b.parts, 1)
	assert.Contains(t, string(b.parts[0].lines), `"again"`)
}

// nested returns an AnyValue of arrays n deep.
func nested(n int) []byte {
	v := appendField(nil, 1, []byte("leaf"))
	for range n {
		arr := appendField(nil, 1, v) // ArrayValue.values
		v = appendField(nil, 5, arr)  // AnyValue.array_value
	}
	return v
}

// FuzzTranscodeAgreesWithDecoding: for any body, the transcoder either
// leaves it to the decoder or writes what the decoder writes.
func FuzzTranscodeAgreesWithDecoding(f *testing.F) {
	for _, b := range regularTraceBodies(f) {
		f.Add(b, false, false)
	}
	for _, b := range regularLogBodies(f) {
		f.Add(b, true, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, asLogs, bySession bool) {
		sig, g := traces, ByTrace
		if asLogs {
			sig = logs
		}
		if bySession {
			g = BySession
		}
		agree(t, body, sig, g)
	})
}

// The transcoder follows messages down to maxTranscodeDepth, and leaves
// deeper ones to the decoder.
func TestTranscodingStopsAtItsDepth(t *testing.T) {
	t.Parallel()
	info := layouts()[traces].itemInfo
	span := mustProto(t, toolSpan(traceID(1), 1, "c", "a.go"))
	// A span holds attributes that hold values: two levels below it.
	_, err := appendMessage(nil, span, info, maxTranscodeDepth-2)
	assert.NoError(t, err, "a span whose values are at the depth")
	_, err = appendMessage(nil, span, info, maxTranscodeDepth-1)
	assert.ErrorIs(t, err, errIrregular, "its values one level too deep")
	_, err = appendMessage(nil, nil, info, maxTranscodeDepth)
	assert.NoError(t, err, "an empty span at the depth")
	_, err = appendMessage(nil, nil, info, maxTranscodeDepth+1)
	assert.ErrorIs(t, err, errIrregular)
}

// Strings are written as JSON escapes them: quotes, backslashes and
// control characters, nothing else (a space, text beyond ASCII).
func TestJSONStringsEscapeOnlyWhatJSONMust(t *testing.T) {
	t.Parallel()
	got := appendJSONString([]byte("x"), []byte("a b\"\\\n\r\t\x01\x1f é~\x7f"))
	assert.Equal(t, `x"a b\"\\\n\r\t\u0001\u001f é~`+"\x7f"+`"`, string(got))
}

// jsonBodies are OTLP/JSON bodies in the spellings the protobuf JSON
// mapping accepts, and ones it refuses.
var jsonBodies = map[string]string{
	"as exporters write it": `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},` +
		`"scopeSpans":[{"scope":{"name":"s","version":"1"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",` +
		`"parentSpanId":"eee19b7ec3c1b173","name":"tool","kind":3,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000100000000",` +
		`"attributes":[{"key":"session.id","value":{"stringValue":"s1"}},{"key":"n","value":{"intValue":"7"}},{"key":"d","value":{"doubleValue":1.5}},` +
		`{"key":"b","value":{"boolValue":true}},{"key":"a","value":{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":3}]}}},` +
		`{"key":"kv","value":{"kvlistValue":{"values":[{"key":"k","value":{"bytesValue":"AAEC"}}]}}}],` +
		`"events":[{"timeUnixNano":"1","name":"e"}],"links":[{"traceId":"5b8efff798038103d269b633813fc60d","spanId":"eee19b7ec3c1b175"}],` +
		`"status":{"code":2,"message":"m"},"flags":256}]}],"schemaUrl":"https://x"}]}`,
	"proto names, enum names, numbers as strings": `{"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"5b8efff798038103d269b633813fc60c",` +
		`"span_id":"eee19b7ec3c1b174","kind":"SPAN_KIND_CLIENT","start_time_unix_nano":1e3,"end_time_unix_nano":"2000",` +
		`"dropped_attributes_count":"3","status":{"code":"STATUS_CODE_OK"},"attributes":[{"key":"i","value":{"int_value":-5}},` +
		`{"key":"f","value":{"double_value":"NaN"}},{"key":"g","value":{"doubleValue":"-Infinity"}},{"key":"h","value":{"doubleValue":"1e2"}}]}]}]}]}`,
	"nulls leave fields unset": `{"resourceSpans":[{"resource":null,"scopeSpans":[{"scope":null,"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",` +
		`"name":null,"attributes":null,"status":null,"kind":null}]}]}]}`,
	"unknown fields and enum names are skipped": `{"extra":{"a":[1,2,{"b":null}]},"resourceSpans":[{"scopeSpans":[{"spans":[` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","kind":"SPAN_KIND_NEW","future":"x"}]}]}]}`,
	"ids in base64 and ids of other lengths": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ"},` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"abc","parentSpanId":"-_-_"}]}]}]}`,
	"a span without a valid trace id": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000000"},{"name":"none"}]}]}]}`,
	"whole numbers in other spellings": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",` +
		`"droppedEventsCount":1.0,"droppedLinksCount":"2e0","flags":-0,"attributes":[{"key":"i","value":{"intValue":"-1.5e1"}},{"key":"j","value":{"intValue":120e-1}}]}]}]}]}`,
	"escapes and a surrogate pair": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",` +
		`"name":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}]}]}]}`,
	"logs": `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"5","severityNumber":"SEVERITY_NUMBER_INFO","severityText":"INFO",` +
		`"body":{"stringValue":"b"},"attributes":[{"key":"session.id","value":{"stringValue":"s"}}],"traceId":"5b8efff798038103d269b633813fc60c",` +
		`"spanId":"eee19b7ec3c1b174","eventName":"claude_code.tool_result"}]}]}]}`,
	"empty":                                       `{}`,
	"empty messages are kept":                     `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","status":{}}]}]}]}`,
	"a field twice":                               `{"resourceSpans":[],"resource_spans":[]}`,
	"a oneof twice":                               `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","attributes":[{"key":"k","value":{"stringValue":"a","intValue":1}}]}]}]}]}`,
	"a null and a oneof member":                   `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","attributes":[{"key":"k","value":{"stringValue":null,"intValue":1}}]}]}]}]}`,
	"a null element":                              `{"resourceSpans":[null]}`,
	"a number for a string":                       `{"resourceSpans":[{"schemaUrl":3}]}`,
	"a fraction for an integer":                   `{"resourceSpans":[{"scopeSpans":[{"spans":[{"droppedEventsCount":1.5}]}]}]}`,
	"a negative unsigned":                         `{"resourceSpans":[{"scopeSpans":[{"spans":[{"droppedEventsCount":-1}]}]}]}`,
	"an int32 out of range":                       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":2147483648}]}]}]}`,
	"a number string with a space":                `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":" 1"}]}]}]}`,
	"an enum number as a string, an unknown name": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"2"}]}]}]}`,
	"bytes that are not base64":                   `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz!"}]}]}]}`,
	"a bool as a string":                          `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"b","value":{"boolValue":"true"}}]}]}]}]}`,
	"a lone surrogate":                            `{"resourceSpans":[{"schemaUrl":"\ud800"}]}`,
	"a lone surrogate, skipped":                   `{"x":"\udc00"}`,
	"an array for a message":                      `{"resourceSpans":[{"resource":[]}]}`,
	"an object for a list":                        `{"resourceSpans":{}}`,
	"trailing data":                               `{} {}`,
	"not an object":                               `[]`,
	"cut short":                                   `{"resourceSpans":[`,
	"a double out of range":                       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"d","value":{"doubleValue":1e400}}]}]}]}]}`,
	"a wide exponent for an int":                  `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":1e30}]}]}]}`,
	"not UTF-8":                                   "{\"resourceSpans\":[{\"schemaUrl\":\"\xff\"}]}",
	"an escaped backslash before u":               `{"resourceSpans":[{"schemaUrl":"\\ud800"}]}`,
}

// TestJSONBodiesReadAsTheMappingReadsThem holds the receiver's reading
// of OTLP/JSON to the reference decoder's (protojson's), body by body.
func TestJSONBodiesReadAsTheMappingReadsThem(t *testing.T) {
	t.Parallel()
	taken := map[string]bool{}
	for name, body := range jsonBodies {
		for _, sig := range []signalKind{traces, logs} {
			for _, g := range []Group{ByTrace, BySession} {
				ok := agreeDecoding(t, []byte(body), jsonEncoding, sig, g)
				if sig == traces && g == ByTrace {
					taken[name] = ok
				}
			}
		}
	}
	// Both readers could refuse everything and agree: some are taken.
	for _, name := range []string{"as exporters write it", "proto names, enum names, numbers as strings", "nulls leave fields unset",
		"unknown fields and enum names are skipped", "ids in base64 and ids of other lengths", "whole numbers in other spellings",
		"escapes and a surrogate pair", "empty messages are kept", "a null and a oneof member", "an escaped backslash before u",
		"an enum number as a string, an unknown name"} {
		assert.True(t, taken[name], name)
	}
	for _, name := range []string{"a field twice", "a oneof twice", "a null element", "a number for a string", "a fraction for an integer",
		"a negative unsigned", "an int32 out of range", "a number string with a space",
		"bytes that are not base64", "a bool as a string", "a lone surrogate", "a lone surrogate, skipped", "an array for a message",
		"an object for a list", "trailing data", "an exponent without digits", "not an object", "cut short", "a double out of range", "a wide exponent for an int", "not UTF-8"} {
		assert.False(t, taken[name], name)
	}
}

// FuzzDecodeAgreesWithReference: for any body, in either encoding, the
// receiver refuses it or writes what the reference decoder writes.
func FuzzDecodeAgreesWithReference(f *testing.F) {
	for _, b := range jsonBodies {
		f.Add([]byte(b), false, false, false)
	}
	for _, b := range regularTraceBodies(f) {
		f.Add(b, true, false, false)
	}
	for _, b := range regularLogBodies(f) {
		f.Add(b, true, true, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, asProto, asLogs, bySession bool) {
		enc, sig, g := jsonEncoding, traces, ByTrace
		if asProto {
			enc = protoEncoding
		}
		if asLogs {
			sig = logs
		}
		if bySession {
			g = BySession
		}
		agreeDecoding(t, body, enc, sig, g)
	})
}

// Messages nested to the decoders' limit are read, one level more is
// refused, as the reference decoder does; so is a value merged at every
// level (a time linear in the body: see canonical).
func TestDeepBodiesAsTheDecoderReadsThem(t *testing.T) {
	t.Parallel()
	body := func(n int, merged bool) []byte {
		v := nested(n)
		if merged {
			// Each level's array_value sent again, empty: merged into the
			// first.
			v = appendField(nil, 1, []byte("leaf"))
			for range n {
				v = appendField(appendField(nil, 5, appendField(nil, 1, v)), 5, nil)
			}
		}
		kv := appendField(appendField(nil, 1, []byte("k")), 2, v)
		span := appendField(mustProto(t, toolSpan(traceID(1), 1, "c", "a.go")), 9, kv)
		return appendField(nil, 1, appendField(nil, 2, appendField(nil, 2, span)))
	}
	// The request is 1 deep, its values' AnyValue 6, and each array two more.
	deepest := (maxMessageDepth - 6) / 2
	for _, merged := range []bool{false, true} {
		assert.True(t, agreeDecoding(t, body(deepest, merged), protoEncoding, traces, ByTrace), "merged %v", merged)
		assert.False(t, agreeDecoding(t, body(deepest+1, merged), protoEncoding, traces, ByTrace), "merged %v", merged)
	}
}
