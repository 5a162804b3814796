package collect

// The decoder the receiver had before it transcoded every body: the
// request decoded into the OTLP types by proto and protojson, split by
// file, and each file's part written with protojson. The tests hold the
// receiver to what it writes (see agree).

import (
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// sessionKeys are the attributes that name an agent session, first
// found wins: Claude Code and Gemini CLI put session.id on every event
// and span; the GenAI conventions call it gen_ai.conversation.id.
var sessionKeys = []string{"session.id", "gen_ai.conversation.id"}

// attrText returns the string value of the attribute key, or "".
func attrText(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

func sessionOf(attrs []*commonpb.KeyValue) string {
	for _, k := range sessionKeys {
		if v := attrText(attrs, k); v != "" {
			return v
		}
	}
	return ""
}

// splitter gathers the parts of one request in the order their files
// first appear.
type splitter[M proto.Message] struct {
	order []string
	msgs  map[string]M
}

func (s *splitter[M]) get(name string, create func() M) M {
	if s.msgs == nil {
		s.msgs = map[string]M{}
	}
	m, ok := s.msgs[name]
	if !ok {
		m = create()
		s.msgs[name] = m
		s.order = append(s.order, name)
	}
	return m
}

func (s *splitter[M]) parts() ([]*part, error) {
	var out []*part
	for _, name := range s.order {
		line, err := marshalLine(s.msgs[name])
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %v", name, err)
		}
		out = append(out, &part{name: name, lines: line})
	}
	return out, nil
}

// decodeTraces decodes an ExportTraceServiceRequest and splits it by file.
// A span whose trace id is not valid cannot be put in a trace and is
// counted as rejected.
//
// The request is read as a TracesData, the message OTLP defines for
// traces at rest: its one field has the number, type and JSON name of the
// request's, so both encodings read the same, and each file's line is the
// request that holds its spans. The collector service's own types would
// link gRPC into every program that runs a scenario's command.
func decodeTraces(body []byte, enc encoding, g Group) (*batch, error) {
	req := &tracepb.TracesData{}
	if err := unmarshal(body, enc, req, "ExportTraceServiceRequest"); err != nil {
		return nil, err
	}
	if enc == jsonEncoding {
		visitSpanIDs(req, func(id []byte, n int) []byte { return idFromJSON(id, n) })
	}
	var sp splitter[*tracepb.TracesData]
	type scopeKey struct {
		name     string
		res, scp int
	}
	resources := map[scopeKey]*tracepb.ResourceSpans{}
	scopes := map[scopeKey]*tracepb.ScopeSpans{}
	var rejected int64
	for i, rs := range req.GetResourceSpans() {
		service := attrText(rs.GetResource().GetAttributes(), "service.name")
		resSession := sessionOf(rs.GetResource().GetAttributes())
		for j, ss := range rs.GetScopeSpans() {
			for _, span := range ss.GetSpans() {
				if !validTraceID(span.GetTraceId()) {
					rejected++
					continue
				}
				name := fileName(g, service, cmp.Or(sessionOf(span.GetAttributes()), resSession), span.GetTraceId())
				m := sp.get(name, func() *tracepb.TracesData { return &tracepb.TracesData{} })
				rk, sk := scopeKey{name, i, -1}, scopeKey{name, i, j}
				r := resources[rk]
				if r == nil {
					r = &tracepb.ResourceSpans{Resource: rs.GetResource(), SchemaUrl: rs.GetSchemaUrl()}
					resources[rk] = r
					m.ResourceSpans = append(m.ResourceSpans, r)
				}
				s := scopes[sk]
				if s == nil {
					s = &tracepb.ScopeSpans{Scope: ss.GetScope(), SchemaUrl: ss.GetSchemaUrl()}
					scopes[sk] = s
					r.ScopeSpans = append(r.ScopeSpans, s)
				}
				s.Spans = append(s.Spans, span)
			}
		}
	}
	visitSpanIDs(req, func(id []byte, _ int) []byte { return idForJSON(id) })
	parts, err := sp.parts()
	if err != nil {
		return nil, err
	}
	resp := exportResponse{rejectedName: "rejectedSpans"}
	if rejected > 0 {
		resp.rejected = rejected
		resp.message = fmt.Sprintf("%d spans without a valid trace id (16 bytes, not all zero) were dropped", rejected)
	}
	return &batch{parts: parts, response: resp}, nil
}

// visitSpanIDs replaces every trace and span id of a request by f(id, its
// length in bytes).
func visitSpanIDs(req *tracepb.TracesData, f func(id []byte, n int) []byte) {
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				s.TraceId, s.SpanId, s.ParentSpanId = f(s.TraceId, 16), f(s.SpanId, 8), f(s.ParentSpanId, 8)
				for _, l := range s.GetLinks() {
					l.TraceId, l.SpanId = f(l.TraceId, 16), f(l.SpanId, 8)
				}
			}
		}
	}
}

// decodeLogs decodes an ExportLogsServiceRequest, read as the LogsData of
// the same layout (see decodeTraces), and splits it by file. Every record
// is kept.
func decodeLogs(body []byte, enc encoding, g Group) (*batch, error) {
	req := &logspb.LogsData{}
	if err := unmarshal(body, enc, req, "ExportLogsServiceRequest"); err != nil {
		return nil, err
	}
	if enc == jsonEncoding {
		visitLogIDs(req, func(id []byte, n int) []byte { return idFromJSON(id, n) })
	}
	var sp splitter[*logspb.LogsData]
	type scopeKey struct {
		name     string
		res, scp int
	}
	resources := map[scopeKey]*logspb.ResourceLogs{}
	scopes := map[scopeKey]*logspb.ScopeLogs{}
	for i, rl := range req.GetResourceLogs() {
		service := attrText(rl.GetResource().GetAttributes(), "service.name")
		resSession := sessionOf(rl.GetResource().GetAttributes())
		for j, sl := range rl.GetScopeLogs() {
			for _, rec := range sl.GetLogRecords() {
				// The reader groups log events by session.id, and an agent
				// may log one session under many traces (one per request):
				// the session decides, the trace only for a record without.
				session := cmp.Or(sessionOf(rec.GetAttributes()), resSession)
				var traceID []byte
				if session == "" && validTraceID(rec.GetTraceId()) {
					traceID = rec.GetTraceId()
				}
				name := fileName(g, service, session, traceID)
				m := sp.get(name, func() *logspb.LogsData { return &logspb.LogsData{} })
				rk, sk := scopeKey{name, i, -1}, scopeKey{name, i, j}
				r := resources[rk]
				if r == nil {
					r = &logspb.ResourceLogs{Resource: rl.GetResource(), SchemaUrl: rl.GetSchemaUrl()}
					resources[rk] = r
					m.ResourceLogs = append(m.ResourceLogs, r)
				}
				s := scopes[sk]
				if s == nil {
					s = &logspb.ScopeLogs{Scope: sl.GetScope(), SchemaUrl: sl.GetSchemaUrl()}
					scopes[sk] = s
					r.ScopeLogs = append(r.ScopeLogs, s)
				}
				s.LogRecords = append(s.LogRecords, rec)
			}
		}
	}
	visitLogIDs(req, func(id []byte, _ int) []byte { return idForJSON(id) })
	parts, err := sp.parts()
	if err != nil {
		return nil, err
	}
	return &batch{parts: parts, response: exportResponse{rejectedName: "rejectedLogRecords"}}, nil
}

func visitLogIDs(req *logspb.LogsData, f func(id []byte, n int) []byte) {
	for _, rl := range req.GetResourceLogs() {
		for _, sl := range rl.GetScopeLogs() {
			for _, r := range sl.GetLogRecords() {
				r.TraceId, r.SpanId = f(r.TraceId, 16), f(r.SpanId, 8)
			}
		}
	}
}

// jsonIn decodes OTLP/JSON. The specification asks receivers to ignore
// fields they do not know, so that newer exporters work.
var jsonIn = protojson.UnmarshalOptions{DiscardUnknown: true}

// jsonOut writes OTLP/JSON lines: field names in lowerCamelCase and enums
// as numbers, as the specification's JSON encoding has them.
var jsonOut = protojson.MarshalOptions{UseEnumNumbers: true}

// unmarshal decodes a body in its encoding.
func unmarshal(body []byte, enc encoding, m proto.Message, what string) error {
	var err error
	if enc == protoEncoding {
		err = proto.Unmarshal(body, m)
	} else {
		err = jsonIn.Unmarshal(body, m)
	}
	if err != nil {
		kind := "OTLP/JSON"
		if enc == protoEncoding {
			kind = "protobuf"
		}
		return fmt.Errorf("the body is not a %s %s: %v", kind, what, err)
	}
	return nil
}

// idForJSON returns the bytes that protojson writes as the hex of id.
func idForJSON(id []byte) []byte {
	h := hex.EncodeToString(id)
	if len(h)%4 != 0 {
		return id // no such bytes; the reader keeps an odd id as written
	}
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return id
	}
	return b
}

// marshalLine writes a message as one line of OTLP/JSON.
func marshalLine(m proto.Message) ([]byte, error) {
	b, err := jsonOut.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
