package collect

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Decoding a protobuf request into the generated Go types and encoding
// each file's part with protojson took nine tenths of a request's CPU
// time: protojson walks every field through reflection, and the decoder
// allocates every span, attribute and value. A protobuf body is therefore
// transcoded: its wire format is walked once, with the messages'
// descriptors for the field names and kinds, and each span or log record
// is written straight to OTLP/JSON while the file it belongs to is read
// from its trace id and attributes.
//
// The transcoder takes only the encoding every protobuf library writes:
// each singular field at most once, the elements of a repeated field
// next to each other, one member of a oneof, the wire type of the field's
// kind, valid UTF-8 in strings, nesting under maxTranscodeDepth. Anything
// else (a field repeated to be merged, a body that does not decode) is
// errIrregular, and the request takes the decoder and protojson, which
// give the same lines or the same error; FuzzTranscodeAgreesWithDecoding
// checks that both paths write the same requests.

// errIrregular is a body the transcoder leaves to the decoder.
var errIrregular = errors.New("irregular protobuf encoding")

// maxTranscodeDepth bounds the nesting the transcoder follows (values in
// arrays in values…); deeper bodies take the decoder, which allows more.
const maxTranscodeDepth = 64

// msgInfo is what the transcoder knows of a message type.
type msgInfo struct {
	fields []*fieldInfo // by field number, for the numbers up to maxIndexed
	byNum  map[protowire.Number]*fieldInfo
	count  int // the number of fields, which index seen bits
}

const maxIndexed = 32

func (m *msgInfo) field(num protowire.Number) *fieldInfo {
	if num >= 0 && int(num) < len(m.fields) {
		return m.fields[num]
	}
	return m.byNum[num]
}

// fieldInfo is one field of a message type.
type fieldInfo struct {
	index   int // its index in the message, for the seen bits
	name    []byte
	kind    protoreflect.Kind
	wire    protowire.Type
	list    bool
	oneof   int  // index of its oneof plus one, 0 when in none
	present bool // written even when zero (a oneof member, an optional field)
	id      bool // a trace or span id: hex, not base64
	msg     *msgInfo
}

// idFields are the fields OTLP/JSON writes in hex.
var idFields = map[protoreflect.FullName]bool{
	"opentelemetry.proto.trace.v1.Span.trace_id":       true,
	"opentelemetry.proto.trace.v1.Span.span_id":        true,
	"opentelemetry.proto.trace.v1.Span.parent_span_id": true,
	"opentelemetry.proto.trace.v1.Span.Link.trace_id":  true,
	"opentelemetry.proto.trace.v1.Span.Link.span_id":   true,
	"opentelemetry.proto.logs.v1.LogRecord.trace_id":   true,
	"opentelemetry.proto.logs.v1.LogRecord.span_id":    true,
}

// buildInfo describes md and the messages it holds, nil when one of them
// has a field the transcoder does not write (a map, a group, a message
// with its own JSON form); then every body takes the decoder.
func buildInfo(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]*msgInfo) *msgInfo {
	if m, ok := seen[md.FullName()]; ok {
		return m
	}
	if md.FullName().Parent() == "google.protobuf" || md.Fields().Len() > 64 {
		return nil
	}
	m := &msgInfo{fields: make([]*fieldInfo, maxIndexed+1), byNum: map[protowire.Number]*fieldInfo{}, count: md.Fields().Len()}
	seen[md.FullName()] = m
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if fd.IsMap() || fd.Kind() == protoreflect.GroupKind || fd.IsExtension() || fd.Cardinality() == protoreflect.Required {
			return nil
		}
		f := &fieldInfo{index: i, name: []byte(strconv.Quote(fd.JSONName()) + ":"), kind: fd.Kind(),
			wire: wireType(fd.Kind()), list: fd.IsList(), present: fd.HasPresence(), id: idFields[fd.FullName()]}
		if f.list && f.wire != protowire.BytesType {
			return nil // packed or not: left to the decoder (OTLP's traces and logs have none)
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.oneof = od.Index() + 1
		}
		if fd.Kind() == protoreflect.MessageKind {
			if f.msg = buildInfo(fd.Message(), seen); f.msg == nil {
				return nil
			}
		}
		if n := fd.Number(); n <= maxIndexed {
			m.fields[n] = f
		} else {
			m.byNum[n] = f
		}
	}
	return m
}

func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Uint32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind:
		return protowire.VarintType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	}
	return protowire.BytesType
}

// appendMessage appends the OTLP/JSON object of the message m encoded in
// b (enums as numbers, 64-bit integers as strings, ids in hex: what
// jsonOut and idForJSON write).
func appendMessage(out, b []byte, m *msgInfo, depth int) ([]byte, error) {
	if depth > maxTranscodeDepth {
		return out, errIrregular
	}
	out = append(out, '{')
	var seen, oneofs uint64
	var open *fieldInfo // the repeated field whose array is open
	first := true
	for len(b) > 0 {
		var num protowire.Number
		var typ protowire.Type
		var n int
		if 8 <= b[0] && b[0] < 0x80 {
			// The tags of fields 1 to 15 are one byte.
			num, typ, n = protowire.Number(b[0]>>3), protowire.Type(b[0]&7), 1
		} else if num, typ, n = protowire.ConsumeTag(b); n < 0 {
			return out, errIrregular
		}
		b = b[n:]
		f := m.field(num)
		if f == nil {
			// An unknown field is kept by the decoder and left out by
			// protojson.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return out, errIrregular
			}
			b = b[n:]
			continue
		}
		if typ != f.wire {
			return out, errIrregular
		}
		if open != nil && open != f {
			out = append(out, ']')
			open = nil
		}
		bit := uint64(1) << f.index
		if f.list {
			if seen&bit != 0 && open != f {
				return out, errIrregular // elements apart: left to the decoder
			}
		} else if seen&bit != 0 {
			return out, errIrregular // a repeated singular field: merged or replaced
		}
		seen |= bit
		if f.oneof > 0 {
			ob := uint64(1) << (f.oneof - 1)
			if oneofs&ob != 0 {
				return out, errIrregular
			}
			oneofs |= ob
		}
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			if len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
				// A length under 128 is one byte.
				raw, n = b[1:1+b[0]], 1+int(b[0])
			} else {
				raw, n = protowire.ConsumeBytes(b)
			}
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		}
		if n < 0 {
			return out, errIrregular
		}
		b = b[n:]
		if !f.list && !f.present && typ != protowire.BytesType && v == 0 {
			continue // a zero proto3 scalar is not written
		}
		if !f.list && !f.present && f.kind != protoreflect.MessageKind && len(raw) == 0 && typ == protowire.BytesType {
			continue // nor an empty string or bytes
		}
		if open == nil {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, f.name...)
			if f.list {
				out = append(out, '[')
				open = f
			}
		} else {
			out = append(out, ',')
		}
		var err error
		switch f.kind {
		case protoreflect.MessageKind:
			out, err = appendMessage(out, raw, f.msg, depth+1)
		case protoreflect.StringKind:
			if !utf8.Valid(raw) {
				return out, errIrregular // the decoder refuses it
			}
			out = appendJSONString(out, raw)
		case protoreflect.BytesKind:
			out = appendBytes(out, raw, f.id)
		default:
			out = appendScalar(out, f.kind, v)
		}
		if err != nil {
			return out, err
		}
	}
	if open != nil {
		out = append(out, ']')
	}
	return append(out, '}'), nil
}

// appendScalar writes a number or a bool of kind k, read from the wire
// as v, as protojson writes it.
func appendScalar(out []byte, k protoreflect.Kind, v uint64) []byte {
	switch k {
	case protoreflect.BoolKind:
		return strconv.AppendBool(out, v != 0)
	case protoreflect.EnumKind, protoreflect.Int32Kind:
		return strconv.AppendInt(out, int64(int32(v)), 10)
	case protoreflect.Sint32Kind:
		return strconv.AppendInt(out, int64(int32(protowire.DecodeZigZag(v&math.MaxUint32))), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(out, uint64(uint32(v)), 10)
	case protoreflect.Sfixed32Kind:
		return strconv.AppendInt(out, int64(int32(v)), 10)
	case protoreflect.Int64Kind, protoreflect.Sfixed64Kind:
		out = append(out, '"')
		return append(strconv.AppendInt(out, int64(v), 10), '"')
	case protoreflect.Sint64Kind:
		out = append(out, '"')
		return append(strconv.AppendInt(out, protowire.DecodeZigZag(v), 10), '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		out = append(out, '"')
		return append(strconv.AppendUint(out, v, 10), '"')
	case protoreflect.FloatKind:
		return appendFloat(out, float64(math.Float32frombits(uint32(v))), 32)
	case protoreflect.DoubleKind:
		return appendFloat(out, math.Float64frombits(v), 64)
	}
	panic(fmt.Sprintf("collect: no JSON for kind %v", k))
}

// appendFloat writes a float as the protobuf JSON mapping does: NaN and
// the infinities as strings.
func appendFloat(out []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(out, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(out, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(out, `"-Infinity"`...)
	}
	return strconv.AppendFloat(out, f, 'g', -1, bits)
}

// appendBytes writes bytes in base64, or an id in hex (see idForJSON: an
// id of an odd length has no hex spelling protojson could write, and
// stays base64).
func appendBytes(out, b []byte, id bool) []byte {
	out = append(out, '"')
	if id && len(b)%2 == 0 {
		out = hex.AppendEncode(out, b)
	} else {
		out = base64.StdEncoding.AppendEncode(out, b)
	}
	return append(out, '"')
}

// appendJSONString writes valid UTF-8 as a JSON string.
func appendJSONString(out, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// signalLayout is where a signal's records sit in its request: the
// field numbers of TracesData (LogsData), ResourceSpans (ResourceLogs),
// ScopeSpans (ScopeLogs) and Span (LogRecord) that the split reads.
type signalLayout struct {
	resources, resource, scopes, resSchema protowire.Number
	scope, items, scopeSchema              protowire.Number
	traceID, attributes                    protowire.Number
	resourcesName, scopesName, itemsName   []byte // `"resourceSpans":[` …
	resourceInfo, scopeInfo, itemInfo      *msgInfo
}

// layouts are the layouts of traces and logs, nil when the descriptors
// hold a field the transcoder does not write.
var layouts = sync.OnceValue(func() map[signalKind]*signalLayout {
	l := map[signalKind]*signalLayout{}
	seen := map[protoreflect.FullName]*msgInfo{}
	if t := newLayout((&tracepb.TracesData{}).ProtoReflect().Descriptor(), "resource_spans", "scope_spans", "spans", seen); t != nil {
		l[traces] = t
	}
	if g := newLayout((&logspb.LogsData{}).ProtoReflect().Descriptor(), "resource_logs", "scope_logs", "log_records", seen); g != nil {
		l[logs] = g
	}
	return l
})

func newLayout(data protoreflect.MessageDescriptor, resources, scopes, items string, seen map[protoreflect.FullName]*msgInfo) *signalLayout {
	rfd := data.Fields().ByName(protoreflect.Name(resources))
	rs := rfd.Message()
	sfd := rs.Fields().ByName(protoreflect.Name(scopes))
	ss := sfd.Message()
	ifd := ss.Fields().ByName(protoreflect.Name(items))
	item := ifd.Message()
	// The split copies only these fields of ResourceSpans and ScopeSpans
	// (see decodeTraces); a version of OTLP with more takes the decoder.
	if data.Fields().Len() != 1 || rs.Fields().Len() != 3 || ss.Fields().Len() != 3 {
		return nil
	}
	l := &signalLayout{
		resources: rfd.Number(), resource: rs.Fields().ByName("resource").Number(), scopes: sfd.Number(),
		resSchema: rs.Fields().ByName("schema_url").Number(),
		scope:     ss.Fields().ByName("scope").Number(), items: ifd.Number(), scopeSchema: ss.Fields().ByName("schema_url").Number(),
		traceID: item.Fields().ByName("trace_id").Number(), attributes: item.Fields().ByName("attributes").Number(),
		resourcesName: []byte(strconv.Quote(rfd.JSONName()) + ":["),
		scopesName:    []byte(strconv.Quote(sfd.JSONName()) + ":["),
		itemsName:     []byte(strconv.Quote(ifd.JSONName()) + ":["),
		resourceInfo:  buildInfo(rs.Fields().ByName("resource").Message(), seen),
		scopeInfo:     buildInfo(ss.Fields().ByName("scope").Message(), seen),
		itemInfo:      buildInfo(item, seen),
	}
	if l.resourceInfo == nil || l.scopeInfo == nil || l.itemInfo == nil || l.resource == 0 || l.resSchema == 0 || l.scope == 0 || l.scopeSchema == 0 {
		return nil
	}
	return l
}

// record is one span or log record of a request, written as JSON.
type record struct {
	file      int // index in the request's files
	res, scop int // indexes of its resource and scope in the request
	json      []byte
}

// lastFile is the file of the last record and what chose it.
type lastFile struct {
	file, res        int
	traceID, session []byte
}

// container is a ResourceSpans or ScopeSpans (…Logs): the JSON of its
// resource or scope, and its schema URL.
type container struct {
	json      []byte // the resource's or scope's object; nil when absent
	schemaURL []byte // valid UTF-8, possibly empty
	start     int    // the index of its first scope (for a resource)
}

// transcode splits a protobuf TracesData or LogsData by file and writes
// each file's line, as decodeTraces and decodeLogs do: errIrregular for
// a body they must read.
func transcode(body []byte, sig signalKind, g Group) (*batch, error) {
	l := layouts()[sig]
	if l == nil {
		return nil, errIrregular
	}
	var (
		names    []string
		fileOf   = map[string]int{}
		recs     []record
		res      []container
		scopes   []container
		rejected int64
		last     = lastFile{file: -1}
		// the JSON of every record, resource and scope: about twice the
		// protobuf, with ids in hex and the names of the fields
		buf = make([]byte, 0, 2*len(body)+512)
	)
	// The records' JSON lives in one buffer, cut when the records are
	// written; spans are copied out to their files' lines.
	for len(body) > 0 {
		rb, err := nextMessage(&body, l.resources)
		if err != nil {
			return nil, err
		}
		if rb == nil {
			continue
		}
		ri := len(res)
		c := container{start: len(scopes)}
		var scopeBodies [][]byte
		var service, resSession string
		var haveRes, haveSchema bool
		for len(rb) > 0 {
			num, typ, n := protowire.ConsumeTag(rb)
			if n < 0 {
				return nil, errIrregular
			}
			rb = rb[n:]
			switch num {
			case l.resource, l.scopes, l.resSchema:
			default:
				if n = protowire.ConsumeFieldValue(num, typ, rb); n < 0 {
					return nil, errIrregular
				}
				rb = rb[n:]
				continue
			}
			v, n := protowire.ConsumeBytes(rb)
			if typ != protowire.BytesType || n < 0 {
				return nil, errIrregular
			}
			rb = rb[n:]
			switch num {
			case l.resource:
				if haveRes {
					return nil, errIrregular
				}
				haveRes = true
				start := len(buf)
				if buf, err = appendMessage(buf, v, l.resourceInfo, 1); err != nil {
					return nil, err
				}
				c.json = buf[start:len(buf):len(buf)]
				service, resSession = resourceNames(v)
			case l.resSchema:
				if haveSchema || !utf8.Valid(v) {
					return nil, errIrregular
				}
				haveSchema, c.schemaURL = true, v
			case l.scopes:
				scopeBodies = append(scopeBodies, v)
			}
		}
		res = append(res, c)
		for _, sb := range scopeBodies {
			si := len(scopes)
			s := container{}
			var haveScope, haveSchema bool
			var items [][]byte
			for len(sb) > 0 {
				num, typ, n := protowire.ConsumeTag(sb)
				if n < 0 {
					return nil, errIrregular
				}
				sb = sb[n:]
				switch num {
				case l.scope, l.items, l.scopeSchema:
				default:
					if n = protowire.ConsumeFieldValue(num, typ, sb); n < 0 {
						return nil, errIrregular
					}
					sb = sb[n:]
					continue
				}
				v, n := protowire.ConsumeBytes(sb)
				if typ != protowire.BytesType || n < 0 {
					return nil, errIrregular
				}
				sb = sb[n:]
				switch num {
				case l.scope:
					if haveScope {
						return nil, errIrregular
					}
					haveScope = true
					start := len(buf)
					if buf, err = appendMessage(buf, v, l.scopeInfo, 1); err != nil {
						return nil, err
					}
					s.json = buf[start:len(buf):len(buf)]
				case l.scopeSchema:
					if haveSchema || !utf8.Valid(v) {
						return nil, errIrregular
					}
					haveSchema, s.schemaURL = true, v
				case l.items:
					items = append(items, v)
				}
			}
			scopes = append(scopes, s)
			for _, ib := range items {
				start := len(buf)
				if buf, err = appendMessage(buf, ib, l.itemInfo, 1); err != nil {
					return nil, err
				}
				traceID, own := itemNames(ib, l)
				if sig == traces && !validTraceID(traceID) {
					rejected++
					buf = buf[:start]
					continue
				}
				// The spans of a request mostly share their trace and
				// session with the one before: the name is made again only
				// when they change.
				if !(last.file >= 0 && last.res == ri && bytes.Equal(last.traceID, traceID) && bytes.Equal(last.session, own)) {
					session := cmpOr(string(own), resSession)
					fileTrace := traceID
					if sig == logs && (session != "" || !validTraceID(traceID)) {
						fileTrace = nil
					}
					name := fileName(g, service, session, fileTrace)
					fi, ok := fileOf[name]
					if !ok {
						fi = len(names)
						fileOf[name] = fi
						names = append(names, name)
					}
					last = lastFile{file: fi, res: ri, traceID: traceID, session: own}
				}
				fi := last.file
				recs = append(recs, record{file: fi, res: ri, scop: si, json: buf[start:len(buf):len(buf)]})
			}
		}
	}
	parts := make([]*part, len(names))
	for fi, name := range names {
		parts[fi] = &part{name: name, lines: writeLine(l, recs, fi, res, scopes)}
	}
	resp := exportResponse{rejectedName: "rejectedLogRecords"}
	if sig == traces {
		resp.rejectedName = "rejectedSpans"
		if rejected > 0 {
			resp.rejected = rejected
			resp.message = fmt.Sprintf("%d spans without a valid trace id (16 bytes, not all zero) were dropped", rejected)
		}
	}
	return &batch{parts: parts, response: resp}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// nextMessage consumes one field of a TracesData or LogsData and returns
// the resource's bytes, nil for an unknown field.
func nextMessage(b *[]byte, resources protowire.Number) ([]byte, error) {
	num, typ, n := protowire.ConsumeTag(*b)
	if n < 0 {
		return nil, errIrregular
	}
	*b = (*b)[n:]
	if num != resources {
		if n = protowire.ConsumeFieldValue(num, typ, *b); n < 0 {
			return nil, errIrregular
		}
		*b = (*b)[n:]
		return nil, nil
	}
	v, n := protowire.ConsumeBytes(*b)
	if typ != protowire.BytesType || n < 0 {
		return nil, errIrregular
	}
	*b = (*b)[n:]
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// writeLine writes the line of file fi: the request holding its records,
// under their resources and scopes in the order of the request.
func writeLine(l *signalLayout, recs []record, fi int, res, scopes []container) []byte {
	size := 64
	for _, r := range recs {
		if r.file == fi {
			size += len(r.json) + 1
		}
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	out = append(out, l.resourcesName...)
	curRes, curScope := -1, -1
	closeScope := func() {
		if curScope >= 0 {
			out = append(out, ']')
			out = appendSchema(out, scopes[curScope])
			out = append(out, '}')
		}
	}
	closeRes := func() {
		closeScope()
		if curRes >= 0 {
			out = append(out, ']')
			out = appendSchema(out, res[curRes])
			out = append(out, '}')
		}
	}
	for _, r := range recs {
		if r.file != fi {
			continue
		}
		if r.res != curRes {
			closeRes()
			if curRes >= 0 {
				out = append(out, ',')
			}
			curRes, curScope = r.res, -1
			out = append(out, '{')
			if c := res[r.res]; c.json != nil {
				out = append(out, `"resource":`...)
				out = append(out, c.json...)
				out = append(out, ',')
			}
			out = append(out, l.scopesName...)
		}
		if r.scop != curScope {
			closeScope()
			if curScope >= 0 {
				out = append(out, ',')
			}
			curScope = r.scop
			out = append(out, '{')
			if c := scopes[r.scop]; c.json != nil {
				out = append(out, `"scope":`...)
				out = append(out, c.json...)
				out = append(out, ',')
			}
			out = append(out, l.itemsName...)
		} else {
			out = append(out, ',')
		}
		out = append(out, r.json...)
	}
	closeRes()
	return append(out, "]}\n"...)
}

func appendSchema(out []byte, c container) []byte {
	if len(c.schemaURL) == 0 {
		return out
	}
	out = append(out, `,"schemaUrl":`...)
	return appendJSONString(out, c.schemaURL)
}

// resourceNames returns the service.name and the session of a Resource
// (see attrText and sessionOf), which has been transcoded and is
// therefore well formed. Its attributes are field 1.
func resourceNames(b []byte) (service, session string) {
	var sid, conv []byte
	var haveService, haveSID, haveConv bool
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if num != 1 || typ != protowire.BytesType {
			b = b[protowire.ConsumeFieldValue(num, typ, b):]
			continue
		}
		kv, n := protowire.ConsumeBytes(b)
		b = b[n:]
		key, val := keyValue(kv)
		switch string(key) {
		case "service.name":
			if !haveService {
				haveService, service = true, string(stringValue(val))
			}
		case "session.id":
			if !haveSID {
				haveSID, sid = true, stringValue(val)
			}
		case "gen_ai.conversation.id":
			if !haveConv {
				haveConv, conv = true, stringValue(val)
			}
		}
	}
	if len(sid) > 0 {
		return service, string(sid)
	}
	return service, string(conv)
}

// itemNames returns the trace id and the session of a span or log record
// (its own, not its resource's), which has been transcoded.
func itemNames(b []byte, l *signalLayout) (traceID, session []byte) {
	var sid, conv []byte
	var haveSID, haveConv bool
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if typ != protowire.BytesType || num != l.traceID && num != l.attributes {
			b = b[protowire.ConsumeFieldValue(num, typ, b):]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		b = b[n:]
		if num == l.traceID {
			traceID = v
			continue
		}
		key, val := keyValue(v)
		switch string(key) {
		case "session.id":
			if !haveSID {
				haveSID, sid = true, stringValue(val)
			}
		case "gen_ai.conversation.id":
			if !haveConv {
				haveConv, conv = true, stringValue(val)
			}
		}
	}
	if len(sid) > 0 {
		return traceID, sid
	}
	return traceID, conv
}

// keyValue returns the key and the value of a KeyValue (key = 1, value
// = 2).
func keyValue(kv []byte) (key, value []byte) {
	for len(kv) > 0 {
		num, typ, n := protowire.ConsumeTag(kv)
		kv = kv[n:]
		if typ != protowire.BytesType {
			kv = kv[protowire.ConsumeFieldValue(num, typ, kv):]
			continue
		}
		v, n := protowire.ConsumeBytes(kv)
		kv = kv[n:]
		switch num {
		case 1:
			key = v
		case 2:
			value = v
		}
	}
	return key, value
}

// stringValue returns the string_value (1) of an AnyValue, nil when it
// holds another kind.
func stringValue(v []byte) []byte {
	var s []byte
	for len(v) > 0 {
		num, typ, n := protowire.ConsumeTag(v)
		v = v[n:]
		if num == 1 && typ == protowire.BytesType {
			s, _ = protowire.ConsumeBytes(v)
		}
		v = v[protowire.ConsumeFieldValue(num, typ, v):]
	}
	return s
}
