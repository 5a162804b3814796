package collect

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Decoding a protobuf request into the generated Go types and encoding
// each file's part with protojson took nine tenths of a request's CPU
// time: protojson walks every field through reflection, and the decoder
// allocates every span, attribute and value. A protobuf body is therefore
// transcoded: its wire format is walked once, with the table of the
// messages' fields (schema.go) for their names and kinds, and each span or log record
// is written straight to OTLP/JSON while the file it belongs to is read
// from its trace id and attributes.
//
// The transcoder takes only the encoding every protobuf library writes:
// each singular field at most once, the elements of a repeated field
// next to each other, one member of a oneof, the wire type of the field's
// kind, valid UTF-8 in strings, nesting under maxTranscodeDepth. Anything
// else (a field repeated to be merged, a body that does not decode) is
// errIrregular, and the body is first written again in that encoding
// (see canonical), or refused. FuzzTranscodeAgreesWithDecoding and
// FuzzDecodeAgreesWithReference check that the receiver writes what the
// OTLP types and protojson write of the same body.

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

// layouts are the layouts of traces and logs, nil when the table holds
// a field the split does not copy.
var layouts = sync.OnceValue(func() map[signalKind]*signalLayout {
	l := map[signalKind]*signalLayout{}
	msgs := messages()
	if t := newLayout(msgs[tracesDataName], "resource_spans", "scope_spans", "spans"); t != nil {
		l[traces] = t
	}
	if g := newLayout(msgs[logsDataName], "resource_logs", "scope_logs", "log_records"); g != nil {
		l[logs] = g
	}
	return l
})

func newLayout(data *msgInfo, resources, scopes, items string) *signalLayout {
	rfd := data.byProtoName(resources)
	rs := rfd.msg
	sfd := rs.byProtoName(scopes)
	ss := sfd.msg
	ifd := ss.byProtoName(items)
	item := ifd.msg
	// The split copies only these fields of ResourceSpans and ScopeSpans;
	// a version of OTLP with more needs it to copy them too (a test fails).
	if len(data.order) != 1 || len(rs.order) != 3 || len(ss.order) != 3 {
		return nil
	}
	l := &signalLayout{
		resources: rfd.num, resource: rs.byProtoName("resource").num, scopes: sfd.num,
		resSchema: rs.byProtoName("schema_url").num,
		scope:     ss.byProtoName("scope").num, items: ifd.num, scopeSchema: ss.byProtoName("schema_url").num,
		traceID: item.byProtoName("trace_id").num, attributes: item.byProtoName("attributes").num,
		resourcesName: append(slices.Clip(rfd.name), '['),
		scopesName:    append(slices.Clip(sfd.name), '['),
		itemsName:     append(slices.Clip(ifd.name), '['),
		resourceInfo:  rs.byProtoName("resource").msg,
		scopeInfo:     ss.byProtoName("scope").msg,
		itemInfo:      item,
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
}

// transcode splits a protobuf TracesData or LogsData by file and writes
// each file's line, as decodeTraces and decodeLogs do: errIrregular for
// a body they must read.
func transcode(body []byte, sig signalKind, g Group) (*batch, error) {
	return transcodeUpTo(body, sig, g, maxTranscodeDepth)
}

// transcodeUpTo is transcode following messages down to limit below a
// resource, scope, span or log record.
func transcodeUpTo(body []byte, sig signalKind, g Group, limit int) (*batch, error) {
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
		buf = getBuffer(2*len(body) + 512)
	)
	// The lines are copies: buf is reused once they are written.
	defer func() { putBuffer(buf) }()
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
		var c container
		var scopeBodies [][]byte
		var service, resSession string
		var haveRes, haveSchema bool
		for len(rb) > 0 {
			num, v, kept, err := nextField(&rb, l.resource, l.scopes, l.resSchema)
			if err != nil {
				return nil, err
			}
			if !kept {
				continue
			}
			switch num {
			case l.resource:
				if haveRes {
					return nil, errIrregular
				}
				haveRes = true
				start := len(buf)
				if buf, err = appendMessageUpTo(buf, v, l.resourceInfo, 1, limit); err != nil {
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
				num, v, kept, err := nextField(&sb, l.scope, l.items, l.scopeSchema)
				if err != nil {
					return nil, err
				}
				if !kept {
					continue
				}
				switch num {
				case l.scope:
					if haveScope {
						return nil, errIrregular
					}
					haveScope = true
					start := len(buf)
					if buf, err = appendMessageUpTo(buf, v, l.scopeInfo, 1, limit); err != nil {
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
				if buf, err = appendMessageUpTo(buf, ib, l.itemInfo, 1, limit); err != nil {
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
	_, v, kept, err := nextField(b, resources, resources, resources)
	if err != nil || !kept {
		return nil, err
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// nextField consumes one field of a message body: a field numbered a, c
// or d is kept, and must hold bytes; any other is skipped. errIrregular
// is for an encoding canonical must read first.
func nextField(b *[]byte, a, c, d protowire.Number) (num protowire.Number, v []byte, kept bool, err error) {
	num, typ, n := consumeTag(*b)
	if n < 0 {
		return 0, nil, false, errIrregular
	}
	*b = (*b)[n:]
	if num != a && num != c && num != d {
		if n = protowire.ConsumeFieldValue(num, typ, *b); n < 0 {
			return 0, nil, false, errIrregular
		}
		*b = (*b)[n:]
		return num, nil, false, nil
	}
	v, n = protowire.ConsumeBytes(*b)
	if typ != protowire.BytesType || n < 0 {
		return 0, nil, false, errIrregular
	}
	*b = (*b)[n:]
	return num, v, true, nil
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
	out := getBuffer(size)
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
