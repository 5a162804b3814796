package trace

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// This file decodes OTLP/JSON requests (ExportTraceServiceRequest and
// ExportLogsServiceRequest) with the in-place scanner, keeping only the
// span and log-record fields the OpenTelemetry reader uses.
//
// OTLP/JSON is protobuf's JSON mapping with two exceptions: trace and span
// ids are hex strings, and enum values are integers (names are accepted).
// 64-bit integers (timestamps, intValue) are decimal strings, though
// numbers are accepted too. Field names are lowerCamelCase; receivers also
// accept the protobuf names (resource_spans), so both are read here.

// otelSpan is what is kept of one span.
type otelSpan struct {
	traceID, spanID, parentID string
	name                      string
	start, end                int64 // Unix nanoseconds; 0 when absent
	line                      int   // line of the request that holds the span
	statusError               bool
	statusMsg                 string

	op, toolName, callID, errorType string
	// args and result are the tool call's arguments and result as the
	// span records them (a string, or JSON text for a structured value).
	args, result       string
	hasArgs, hasResult bool
	filePath           string // Claude Code's tool span attribute

	usage    Usage
	hasUsage bool

	reqModel, respModel, agentName, agentID, convID string
	inMsgs, outMsgs                                 string

	// OpenInference (Arize's conventions): the span kind, a tool span's
	// input.value and output.value, and the tool calls and tool messages
	// of an LLM span, flattened into indexed attributes.
	oiKind            string
	oiInput, oiOutput string
	hasOIIn, hasOIOut bool
	oiCalls           []oiToolCall
	oiToolMsgs        []oiToolMessage

	service, serviceVersion string
}

// otelLog is what is kept of one log record that may be an event about a
// tool call or a model request.
type otelLog struct {
	event     string
	time      int64 // Unix nanoseconds
	line      int
	traceID   string
	sessionID string
	attrs     map[string]otelValue
	service   string
}

// otelValue is a decoded AnyValue: text holds a string value as is, and any
// other value as JSON text.
type otelValue struct {
	text  string
	isStr bool
	num   float64
	isNum bool
}

// int returns the value as an integer: intValue (a decimal string in
// OTLP/JSON), doubleValue, or a string holding a number.
func (v otelValue) int() (int64, bool) {
	if v.isNum {
		return int64(v.num), true
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v.text), 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(v.text), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return int64(f), true
	}
	return 0, false
}

// bool reads a boolValue, or a string "true"/"false" (Claude Code writes
// its success attribute as a string).
func (v otelValue) bool() (b, ok bool) {
	switch strings.ToLower(v.text) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// otelParser decodes requests. It is reused for every record of a file.
type otelParser struct {
	sc    jsonscan.Scanner
	span  jsonscan.Scanner // decodes one span at a time
	arena []byte
	max   int // Options.MaxResultBytes

	// resource attributes of the resourceSpans/resourceLogs being read
	service, serviceVersion string

	spans []otelSpan
	logs  []otelLog
	// metrics counts the metrics requests met, for the message about a
	// file that holds no spans.
	metrics int
	// otlp is set when the last record had an OTLP request's key.
	otlp bool
	// careful is set while a request is read again span by span.
	careful bool
	// bad lists the spans and log records that could not be read.
	bad []otelBad
}

// otelBad is a span or log record skipped because of a field of the
// wrong type; off is its offset in the record, for the line number.
type otelBad struct {
	off  int
	what string
	err  error
}

// otelFieldError reports a field of the wrong JSON type.
type otelFieldError struct {
	field, expected string
}

func (e *otelFieldError) Error() string {
	return fmt.Sprintf("field %s: expected %s", e.field, e.expected)
}

// record decodes one request. Spans and log records are appended to
// p.spans and p.logs; a span or log record with a field of the wrong type
// is listed in p.bad and skipped. A syntax error, or a request that is not
// an object, is returned.
func (p *otelParser) record(data []byte, line int) error {
	// Spans are read in place; only when that meets a field of the wrong
	// type is the request read again, cutting out each span first so that
	// the bad one is skipped alone.
	spans, logs, metrics := len(p.spans), len(p.logs), p.metrics
	err := p.scan(data, line)
	var se *jsonscan.SyntaxError
	if err == nil || errors.As(err, &se) {
		return err
	}
	p.spans, p.logs, p.metrics = p.spans[:spans], p.logs[:logs], metrics
	p.careful = true
	defer func() { p.careful = false }()
	return p.scan(data, line)
}

func (p *otelParser) scan(data []byte, line int) error {
	sc := &p.sc
	sc.Reset(data)
	p.otlp = false
	if !sc.Object() {
		return sc.Err()
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "resourceSpans", "resource_spans":
			p.otlp = true
			p.resources(data, line, false)
		case "resourceLogs", "resource_logs":
			p.otlp = true
			p.resources(data, line, true)
		case "resourceMetrics", "resource_metrics":
			p.otlp = true
			p.metrics++
			sc.Skip()
		default:
			sc.Skip()
		}
	}
	sc.End()
	return sc.Err()
}

// resources reads a resourceSpans or resourceLogs array.
func (p *otelParser) resources(data []byte, line int, logs bool) {
	sc := &p.sc
	if sc.Null() || !sc.Array() {
		return
	}
	for sc.NextElem() {
		if sc.Null() || !sc.Object() {
			return
		}
		p.service, p.serviceVersion = "", ""
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "resource":
				p.resource()
			case "scopeSpans", "scope_spans", "instrumentationLibrarySpans":
				if !logs {
					p.scopes(data, line, false)
				} else {
					sc.Skip()
				}
			case "scopeLogs", "scope_logs", "instrumentationLibraryLogs":
				if logs {
					p.scopes(data, line, true)
				} else {
					sc.Skip()
				}
			default:
				sc.Skip()
			}
		}
	}
}

// resource reads service.name and service.version from a resource.
func (p *otelParser) resource() {
	sc := &p.sc
	if sc.Null() || !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) != "attributes" {
			sc.Skip()
			continue
		}
		p.attributes(sc, func(k []byte, sc *jsonscan.Scanner) bool {
			switch string(k) {
			case "service.name":
				p.service = p.anyValue(sc, -1).text
			case "service.version":
				p.serviceVersion = p.anyValue(sc, -1).text
			default:
				return false
			}
			return true
		})
	}
}

// scopes reads a scopeSpans or scopeLogs array. Each span or log record is
// cut out whole first, so that one with a field of the wrong type can be
// skipped without losing the rest of the request.
func (p *otelParser) scopes(data []byte, line int, logs bool) {
	sc := &p.sc
	if sc.Null() || !sc.Array() {
		return
	}
	for sc.NextElem() {
		if sc.Null() || !sc.Object() {
			return
		}
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch k := string(key); {
			case !logs && k == "spans", logs && (k == "logRecords" || k == "log_records"):
				if sc.Null() || !sc.Array() {
					break
				}
				for sc.NextElem() {
					if !p.careful {
						if logs {
							p.logRecord(sc, line)
						} else {
							p.oneSpan(sc, line)
						}
						continue
					}
					off := sc.Offset()
					raw := sc.Raw()
					if raw == nil {
						return
					}
					sub := &p.span
					sub.Reset(raw)
					if logs {
						p.logRecord(sub, line)
					} else {
						p.oneSpan(sub, line)
					}
					if sub.End(); sub.Err() != nil {
						err := sub.Err()
						what := "span"
						if logs {
							what = "log record"
						}
						p.bad = append(p.bad, otelBad{off: off, what: what, err: err})
					}
				}
			default:
				sc.Skip()
			}
		}
	}
}

// attributes reads a KeyValue array, calling visit for each key; visit
// reads the value and returns true, or returns false to have it skipped.
func (p *otelParser) attributes(sc *jsonscan.Scanner, visit func(key []byte, sc *jsonscan.Scanner) bool) {
	if sc.Null() || !sc.Array() {
		return
	}
	var key []byte
	for sc.NextElem() {
		if !sc.Object() {
			return
		}
		// The key usually comes first; when value comes first it is kept
		// raw and decoded once the key is known.
		key = key[:0]
		var value []byte
		done := false
		for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
			switch string(k) {
			case "key":
				key, _ = sc.AppendString(key[:0], -1)
			case "value":
				if len(key) > 0 && value == nil {
					if visit(key, sc) {
						done = true
					} else {
						sc.Skip()
					}
				} else {
					value = sc.Raw()
				}
			default:
				sc.Skip()
			}
		}
		if value != nil && !done && sc.Err() == nil {
			var sub jsonscan.Scanner
			sub.Reset(value)
			if visit(key, &sub) && sub.Err() != nil {
				sc.Fail(sub.Err())
			}
		}
	}
}

// anyValue decodes an AnyValue. A string longer than max (when max >= 0)
// is cut; structured values are turned into JSON text.
func (p *otelParser) anyValue(sc *jsonscan.Scanner, max int) otelValue {
	var v otelValue
	if sc.Null() || !sc.Object() {
		return v
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "stringValue", "string_value":
			b, _ := p.str(sc, max)
			v.text, v.isStr = string(b), true
		case "intValue", "int_value", "doubleValue", "double_value":
			// Decimal strings in OTLP/JSON, numbers from lenient writers.
			var raw []byte
			if sc.Peek() == jsonscan.String {
				raw, _ = p.str(sc, 64)
			} else {
				raw = sc.Raw()
			}
			v.text = string(raw)
			if f, err := strconv.ParseFloat(v.text, 64); err == nil {
				v.num, v.isNum = f, true
			}
		case "boolValue", "bool_value":
			b, _ := sc.Bool()
			v.text = strconv.FormatBool(b)
		case "bytesValue", "bytes_value":
			b, _ := p.str(sc, -1)
			v.text, v.isStr = string(b), true
		case "arrayValue", "array_value", "kvlistValue", "kvlist_value":
			b := p.appendJSON(sc, nil, string(key) == "kvlistValue" || string(key) == "kvlist_value")
			v.text = string(b)
		default:
			sc.Skip()
		}
	}
	return v
}

// appendJSON writes an ArrayValue or KeyValueList as JSON text.
func (p *otelParser) appendJSON(sc *jsonscan.Scanner, dst []byte, kvlist bool) []byte {
	open, close := byte('['), byte(']')
	if kvlist {
		open, close = '{', '}'
	}
	dst = append(dst, open)
	if sc.Null() || !sc.Object() {
		return append(dst, close)
	}
	n := 0
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) != "values" || sc.Null() || !sc.Array() {
			sc.Skip()
			continue
		}
		for sc.NextElem() {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			if !kvlist {
				dst = p.appendAny(sc, dst)
				continue
			}
			if !sc.Object() {
				return dst
			}
			var k []byte
			var val []byte
			for f, ok := sc.NextKey(); ok; f, ok = sc.NextKey() {
				switch string(f) {
				case "key":
					k, _ = sc.AppendString(nil, -1)
				case "value":
					val = p.appendAny(sc, nil)
				default:
					sc.Skip()
				}
			}
			dst = otelAppendQuoted(dst, k)
			dst = append(dst, ':')
			if val == nil {
				val = []byte("null")
			}
			dst = append(dst, val...)
		}
	}
	return append(dst, close)
}

// appendAny writes an AnyValue as the JSON value it stands for.
func (p *otelParser) appendAny(sc *jsonscan.Scanner, dst []byte) []byte {
	if sc.Null() || !sc.Object() {
		return append(dst, "null"...)
	}
	wrote := false
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "stringValue", "string_value", "bytesValue", "bytes_value":
			dst = append(dst, sc.Raw()...)
		case "intValue", "int_value", "doubleValue", "double_value":
			if sc.Peek() == jsonscan.String {
				b, _ := sc.AppendString(nil, 64)
				if _, err := strconv.ParseFloat(string(b), 64); err != nil {
					b = otelAppendQuoted(nil, b)
				}
				dst = append(dst, b...)
			} else {
				dst = append(dst, sc.Raw()...)
			}
		case "boolValue", "bool_value":
			dst = append(dst, sc.Raw()...)
		case "arrayValue", "array_value":
			dst = p.appendJSON(sc, dst, false)
		case "kvlistValue", "kvlist_value":
			dst = p.appendJSON(sc, dst, true)
		default:
			sc.Skip()
			continue
		}
		wrote = true
	}
	if !wrote {
		dst = append(dst, "null"...)
	}
	return dst
}

// otelAppendQuoted appends s as a JSON string.
func otelAppendQuoted(dst, s []byte) []byte {
	q, _ := json.Marshal(string(s))
	return append(dst, q...)
}

// oneSpan decodes the span sc reads next. A problem is left in sc.Err().
func (p *otelParser) oneSpan(sc *jsonscan.Scanner, line int) {
	sp := otelSpan{line: line, service: p.service, serviceVersion: p.serviceVersion}
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "traceId", "trace_id":
			sp.traceID = p.hexID(sc)
		case "spanId", "span_id":
			sp.spanID = p.hexID(sc)
		case "parentSpanId", "parent_span_id":
			sp.parentID = p.hexID(sc)
		case "name":
			b, _ := p.str(sc, -1)
			sp.name = string(b)
		case "startTimeUnixNano", "start_time_unix_nano":
			sp.start = p.nanos(sc, "startTimeUnixNano")
		case "endTimeUnixNano", "end_time_unix_nano":
			sp.end = p.nanos(sc, "endTimeUnixNano")
		case "status":
			p.status(sc, &sp)
		case "attributes":
			p.attributes(sc, func(k []byte, sc *jsonscan.Scanner) bool { return p.spanAttr(k, sc, &sp) })
		default:
			sc.Skip()
		}
	}
	if sc.Err() == nil {
		p.spans = append(p.spans, sp)
	}
}

// spanAttr reads the attributes the reader uses.
func (p *otelParser) spanAttr(key []byte, sc *jsonscan.Scanner, sp *otelSpan) bool {
	switch string(key) {
	case "gen_ai.operation.name":
		sp.op = p.anyValue(sc, -1).text
	case "gen_ai.tool.name", "tool_name":
		if v := p.anyValue(sc, -1).text; sp.toolName == "" || string(key) == "gen_ai.tool.name" {
			sp.toolName = v
		}
	case "gen_ai.tool.call.id", "tool_use_id":
		if v := p.anyValue(sc, -1).text; sp.callID == "" || string(key) == "gen_ai.tool.call.id" {
			sp.callID = v
		}
	case "gen_ai.tool.call.arguments":
		sp.args, sp.hasArgs = p.anyValue(sc, -1).text, true
	case "gen_ai.tool.call.result":
		sp.result, sp.hasResult = atifClip(p.anyValue(sc, p.limit()).text, p.max), true
	case "file_path":
		sp.filePath = p.anyValue(sc, -1).text
	case "error.type":
		sp.errorType = p.anyValue(sc, -1).text
	case "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens":
		sp.usage.InputTokens, sp.hasUsage = p.count(sc), true
	case "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens":
		sp.usage.OutputTokens, sp.hasUsage = p.count(sc), true
	case "gen_ai.usage.cache_read.input_tokens":
		sp.usage.CacheReadTokens = p.count(sc)
	case "gen_ai.usage.cache_creation.input_tokens":
		sp.usage.CacheCreationTokens = p.count(sc)
	case "gen_ai.request.model":
		sp.reqModel = p.anyValue(sc, -1).text
	case "gen_ai.response.model":
		sp.respModel = p.anyValue(sc, -1).text
	case "gen_ai.agent.name":
		sp.agentName = p.anyValue(sc, -1).text
	case "gen_ai.agent.id":
		sp.agentID = p.anyValue(sc, -1).text
	case "gen_ai.conversation.id":
		sp.convID = p.anyValue(sc, -1).text
	case "gen_ai.input.messages":
		sp.inMsgs = p.anyValue(sc, -1).text
	case "gen_ai.output.messages":
		sp.outMsgs = p.anyValue(sc, -1).text
	case "openinference.span.kind":
		sp.oiKind = strings.ToUpper(p.anyValue(sc, -1).text)
	case "tool.name", "tool_call.function.name":
		if v := p.anyValue(sc, -1).text; sp.toolName == "" {
			sp.toolName = v
		}
	case "tool_call.id":
		if v := p.anyValue(sc, -1).text; sp.callID == "" {
			sp.callID = v
		}
	case "tool_call.function.arguments":
		if v := p.anyValue(sc, -1).text; !sp.hasArgs {
			sp.args, sp.hasArgs = v, true
		}
	case "input.value":
		sp.oiInput, sp.hasOIIn = p.anyValue(sc, -1).text, true
	case "output.value":
		sp.oiOutput, sp.hasOIOut = atifClip(p.anyValue(sc, p.limit()).text, p.max), true
	case "llm.model_name":
		sp.reqModel = p.anyValue(sc, -1).text
	case "llm.token_count.prompt":
		sp.usage.InputTokens, sp.hasUsage = p.count(sc), true
	case "llm.token_count.completion":
		sp.usage.OutputTokens, sp.hasUsage = p.count(sc), true
	case "llm.token_count.prompt_details.cache_read":
		sp.usage.CacheReadTokens = p.count(sc)
	case "llm.token_count.prompt_details.cache_write":
		sp.usage.CacheCreationTokens = p.count(sc)
	default:
		return p.oiMessageAttr(string(key), sc, sp)
	}
	return true
}

// str decodes the next string into the parser's reused buffer; the bytes
// are valid until the next call.
func (p *otelParser) str(sc *jsonscan.Scanner, max int) ([]byte, bool) {
	var ok bool
	p.arena, ok = sc.AppendString(p.arena[:0], max)
	return p.arena, ok
}

// limit is the most bytes of a result to keep, for AppendString: -1 for
// all of it.
func (p *otelParser) limit() int {
	if p.max <= 0 {
		return -1
	}
	return p.max
}

func (p *otelParser) count(sc *jsonscan.Scanner) int64 {
	n, _ := p.anyValue(sc, -1).int()
	return max(n, 0)
}

// hexID reads a trace or span id: a hex string in OTLP/JSON, read in lower
// case. protobuf's own JSON mapping writes bytes in base64; such an id is
// turned into hex.
func (p *otelParser) hexID(sc *jsonscan.Scanner) string {
	if sc.Null() {
		return ""
	}
	b, ok := p.str(sc, 128)
	if !ok {
		return ""
	}
	s := string(b)
	if otelIsHex(s) {
		return strings.ToLower(s)
	}
	if raw, err := base64.StdEncoding.DecodeString(s); err == nil && (len(raw) == 16 || len(raw) == 8) {
		return fmt.Sprintf("%x", raw)
	}
	// Ids only link spans together: any other spelling is kept as written.
	return s
}

func otelIsHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// nanos reads a fixed64 timestamp: a decimal string, or a number.
func (p *otelParser) nanos(sc *jsonscan.Scanner, field string) int64 {
	var s string
	switch sc.Peek() {
	case jsonscan.String:
		b, _ := p.str(sc, 64)
		s = string(b)
	case jsonscan.Number:
		s = string(sc.Raw())
	case jsonscan.Null:
		sc.Null()
		return 0
	default:
		sc.Fail(&otelFieldError{field: field, expected: "a decimal string of nanoseconds"})
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < math.MaxInt64 {
		return int64(f)
	}
	sc.Fail(&otelFieldError{field: field, expected: "a decimal string of nanoseconds"})
	return 0
}

// status reads a span's status; code 2 (or its enum name) is an error.
func (p *otelParser) status(sc *jsonscan.Scanner, sp *otelSpan) {
	if sc.Null() || !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "code":
			switch sc.Peek() {
			case jsonscan.Number:
				n, _ := sc.Int()
				sp.statusError = n == 2
			case jsonscan.String:
				b, _ := p.str(sc, 64)
				sp.statusError = string(b) == "STATUS_CODE_ERROR" || string(b) == "2"
			default:
				sc.Skip()
			}
		case "message":
			if !sc.Null() {
				b, _ := p.str(sc, p.limit())
				sp.statusMsg = string(b)
			}
		default:
			sc.Skip()
		}
	}
}

// logRecord decodes the log record sc reads next, keeping it only when it
// is an event the reader uses. A problem is left in sc.Err().
func (p *otelParser) logRecord(sc *jsonscan.Scanner, line int) {
	lg := otelLog{line: line, service: p.service}
	var observed int64
	attrs := map[string]otelValue{}
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "timeUnixNano", "time_unix_nano":
			lg.time = p.nanos(sc, "timeUnixNano")
		case "observedTimeUnixNano", "observed_time_unix_nano":
			observed = p.nanos(sc, "observedTimeUnixNano")
		case "traceId", "trace_id":
			lg.traceID = p.hexID(sc)
		case "eventName", "event_name":
			b, _ := p.str(sc, 256)
			lg.event = string(b)
		case "body":
			if v := p.anyValue(sc, 256); lg.event == "" && v.isStr && strings.Contains(v.text, ".") && !strings.Contains(v.text, " ") {
				// Claude Code writes the event name as the body.
				lg.event = v.text
			}
		case "attributes":
			p.attributes(sc, func(k []byte, sc *jsonscan.Scanner) bool {
				attrs[string(k)] = p.anyValue(sc, -1)
				return true
			})
		default:
			sc.Skip()
		}
	}
	if sc.Err() != nil {
		return
	}
	if v, ok := attrs["event.name"]; ok && (lg.event == "" || !strings.Contains(lg.event, ".")) {
		lg.event = v.text
	}
	if !otelLogEvents[lg.event] {
		return
	}
	if lg.time == 0 {
		lg.time = observed
	}
	lg.sessionID = attrs["session.id"].text
	lg.attrs = attrs
	p.logs = append(p.logs, lg)
}
