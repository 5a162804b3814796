package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// OTel reads OpenTelemetry traces of agents that follow the GenAI semantic
// conventions, as OTLP/JSON: one ExportTraceServiceRequest document, or
// OTLP JSON Lines, one request a line, as the OpenTelemetry Collector's
// file exporter writes them.
//
// # Format
//
//	{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"my-agent"}}]},
//	  "scopeSpans":[{"scope":{"name":"…"},"spans":[
//	    {"traceId":"5b8e…","spanId":"eee1…","parentSpanId":"…","name":"execute_tool read_file",
//	     "startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000",
//	     "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},
//	                   {"key":"gen_ai.tool.name","value":{"stringValue":"read_file"}},
//	                   {"key":"gen_ai.tool.call.id","value":{"stringValue":"call_1"}},
//	                   {"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"path\":\"a.go\"}"}}],
//	     "status":{"code":2,"message":"…"}}]}]}]}
//
// Each trace id is one session (Session.ID is the trace id in lower-case
// hex); a file that holds several is read with ReadAll, or one of them is
// picked with Options.SessionID.
//
// A tool call is an execute_tool span (gen_ai.operation.name, or a span
// name starting "execute_tool"; Claude Code's claude_code.tool spans too),
// with gen_ai.tool.name, gen_ai.tool.call.id, gen_ai.tool.call.arguments
// and gen_ai.tool.call.result; error.type or an error status marks it
// failed. A call is also read from the tool_call parts of a chat span's
// gen_ai.input.messages and gen_ai.output.messages, joined by id to its
// tool_call_response part. A call that both a span and a message part
// describe is one call (same id; a span without an id takes the earliest
// unclaimed part of the same tool issued before it started). Since every
// chat span repeats the conversation so far in its input messages, a part
// without an id is read only from output messages. Calls are ordered by
// the time they were issued: the span's start, or the end of the chat span
// that produced the part.
//
// A tool call made inside an invoke_agent span that itself runs under a tool
// call is a subagent's; ParentID is that tool call's id. Tokens come from
// gen_ai.usage.input_tokens and output_tokens of the spans that carry them;
// a span whose descendants also carry usage (an invoke_agent span that sums
// its chat spans) is not counted again. gen_ai.usage.input_tokens includes
// cached tokens (gen_ai.usage.cache_read.input_tokens is the part that was
// a cache read), so it is not added again. The agent is gen_ai.agent.name
// of the outermost invoke_agent span, else the resource's service.name;
// the model is the first chat span's gen_ai.response.model (or
// request.model).
//
// Spans that follow OpenInference, the conventions of Arize Phoenix's
// instrumentations (LangChain and LangGraph, LlamaIndex, CrewAI,
// smolagents, the OpenAI Agents SDK), are read alike: a span whose
// openinference.span.kind is TOOL is a call (tool.name, tool_call.id, its
// arguments in input.value, its result in output.value), an AGENT span is
// an agent span, an LLM span gives its model (llm.model_name), its tokens
// (llm.token_count.prompt, which includes
// llm.token_count.prompt_details.cache_read, and .completion), the calls
// the model asked for (llm.output_messages.<i>.message.tool_calls.<j>.
// tool_call.id, .function.name, .function.arguments) and the answers it
// was given (llm.input_messages.<i>.message with role tool, tool_call_id
// and content), which join the TOOL spans as message parts do.
//
// A file of OTLP logs (resourceLogs) is read for the tool-call events that
// Gemini CLI (gemini_cli.tool_call) and Claude Code (claude_code.tool_result)
// export, one session per session.id; they record which tool ran with what
// arguments and whether it failed, not its output. Log events are ignored
// in a file whose spans already describe tool calls.
//
// The reader streams: it holds one request at a time and keeps only the
// fields it uses of every span, so memory grows with the number of spans,
// not with the size of their attributes.
type OTel struct{}

// Name returns "otel".
func (OTel) Name() string { return "otel" }

// Info describes the format.
func (OTel) Info() FormatInfo {
	return FormatInfo{
		Writer:    "agents instrumented with the OpenTelemetry GenAI conventions or OpenInference (Arize Phoenix: LangGraph, CrewAI, smolagents, OpenAI Agents SDK, LlamaIndex), exported as OTLP/JSON by the OpenTelemetry Collector's file exporter",
		Detection: `a JSON object whose first key is "resourceSpans", "resourceLogs" or "resourceMetrics"`,
		Example:   "traces.jsonl",
	}
}

// Detect reports whether prefix starts an OTLP/JSON request: an object
// whose first key is resourceSpans, resourceLogs or resourceMetrics (or
// their protobuf spellings). Exporters write that key first, and no other
// format has it. A file of metrics is claimed so that reading it says that
// metrics hold no tool calls.
func (OTel) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' {
		return false
	}
	rest := bytes.TrimLeft(prefix[1:], " \t\r\n")
	for _, key := range []string{`"resourceSpans"`, `"resourceLogs"`, `"resourceMetrics"`, `"resource_spans"`, `"resource_logs"`, `"resource_metrics"`} {
		if bytes.HasPrefix(rest, []byte(key)) {
			after := bytes.TrimLeft(rest[len(key):], " \t\r\n")
			return len(after) == 0 || after[0] == ':'
		}
	}
	return false
}

// Read reads the one session of the input, or the one Options.SessionID
// names.
func (f OTel) Read(r io.Reader, opts Options) (*Session, error) {
	all, err := f.ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	return pickSession(all, opts)
}

// ReadAll reads every trace of the input as a session, in the order their
// first span appears. It returns an error when the input holds no OTLP
// request, or requests with no span and no tool-call log event.
func (OTel) ReadAll(r io.Reader, opts Options) ([]*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	rd := &otelReader{src: src, p: otelParser{max: opts.MaxResultBytes}}
	if err := rd.readRecords(r); err != nil {
		return nil, err
	}
	return rd.sessions()
}

// otelReader holds the state of one ReadAll.
type otelReader struct {
	src      string
	p        otelParser
	requests int     // requests read
	file     Session // its warnings are about the file as a whole, given to every session
}

func (rd *otelReader) warnf(line int, format string, args ...any) {
	rd.file.Source = rd.src
	rd.file.Warnf(line, format, args...)
}

// readRecords reads every request of the input. A file is JSON Lines when
// its first request fits on one line; otherwise requests are read as
// (pretty-printed) documents that end where their braces balance.
func (rd *otelReader) readRecords(r io.Reader) error {
	lr := newLineReader(r)
	var buf []byte // the request being gathered over several lines
	var depth otelDepth
	start := 0     // line where buf starts
	jsonl := false // the first request was one line
	// cut is a line that ends inside its request: the last line of a file
	// whose writer was stopped, or a line whose writer was.
	cut := 0
	flushCut := func(last bool) {
		if cut == 0 {
			return
		}
		if last {
			rd.warnf(cut, "the last request is cut short (the file ends inside it); kept the requests before it")
		} else {
			rd.warnf(cut, "the request is cut short (the line ends inside it); line skipped")
		}
		cut = 0
	}
	skip := func(n int, msg string) { rd.warnf(n, "%s", msg) }
	lr.cutLongLines(rd.p.max, skip)
	for {
		// A line may be a request only outside a pretty-printed one.
		lr.skip = nil
		if len(buf) == 0 {
			lr.skip = skip
		}
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: reading OTLP/JSON: %w", rd.src, n+1, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if len(buf) == 0 {
			line = bytes.TrimLeft(line, " \t\r")
			if len(line) == 0 {
				continue
			}
			flushCut(false)
			if jsonl || line[0] != '{' {
				if rd.request(line, n) {
					cut = n
				}
				continue
			}
			depth = otelDepth{}
			if depth.scan(line) {
				jsonl = true
				if rd.request(line, n) {
					cut = n
				}
				continue
			}
			buf = append(buf[:0], line...)
			start = n
			continue
		}
		buf = append(buf, '\n')
		buf = append(buf, line...)
		if depth.scan(line) {
			if rd.request(buf, start) {
				cut = start
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		cut = start
	}
	if cut != 0 && rd.requests == 0 && rd.file.WarningCount() == 0 {
		return fmt.Errorf("%s:%d: reading OTLP/JSON: the request is cut short (the file ends inside it)", rd.src, cut)
	}
	flushCut(true)
	return nil
}

// request decodes one request. It reports whether the request is cut
// short, which is a warning the caller words; any other problem is a
// warning here.
func (rd *otelReader) request(data []byte, line int) (cut bool) {
	err := rd.p.record(data, line)
	for _, b := range rd.p.bad {
		off := min(b.off, len(data))
		for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		at := line + bytes.Count(data[:off], []byte{'\n'})
		rd.warnf(at, "%s skipped: %v", b.what, otelErrMessage(b.err))
	}
	rd.p.bad = rd.p.bad[:0]
	var se *jsonscan.SyntaxError
	var te *jsonscan.TypeError
	switch {
	case err == nil && !rd.p.otlp:
		rd.warnf(line, "a JSON object without resourceSpans, resourceLogs or resourceMetrics; skipped")
	case err == nil:
		rd.requests++
	case errors.As(err, &se) && se.Offset >= len(data):
		return true
	case errors.As(err, &te) && te.Offset == 0:
		rd.warnf(line, "expected an OTLP/JSON request (a JSON object), found %s; line skipped", te.Found)
	case errors.As(err, &te):
		rd.warnf(line, "not an OTLP/JSON request: %s; line skipped", otelErrMessage(err))
	default:
		rd.warnf(line, "invalid JSON: %s; line skipped", otelErrMessage(err))
	}
	return false
}

func otelErrMessage(err error) string {
	var te *jsonscan.TypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("expected %s, found %s", te.Expected, te.Found)
	}
	return err.Error()
}

// otelDepth follows the nesting of braces and brackets over the lines of a
// pretty-printed document, outside strings.
type otelDepth struct {
	depth      int
	inStr, esc bool
}

// scan reads one more line and reports whether the value is complete.
func (d *otelDepth) scan(line []byte) bool {
	for _, c := range line {
		switch {
		case d.esc:
			d.esc = false
		case d.inStr:
			switch c {
			case '\\':
				d.esc = true
			case '"':
				d.inStr = false
			}
		case c == '"':
			d.inStr = true
		case c == '{' || c == '[':
			d.depth++
		case c == '}' || c == ']':
			d.depth--
		}
	}
	return d.depth <= 0
}

// sessions builds the sessions from what was read.
func (rd *otelReader) sessions() ([]*Session, error) {
	p := &rd.p
	if rd.requests == 0 {
		if len(rd.file.Warnings) > 0 {
			w := rd.file.Warnings[0]
			return nil, fmt.Errorf("%s: not OTLP/JSON: no line holds a request (line %d: %s)", rd.src, w.Line, w.Message)
		}
		return nil, fmt.Errorf("%s: not OTLP/JSON: the input is empty", rd.src)
	}
	all := rd.traceSessions()
	calls := 0
	for _, s := range all {
		calls += len(s.Calls)
	}
	if len(p.logs) > 0 {
		if calls > 0 {
			rd.warnf(p.logs[0].line, "ignored %d log events about tool calls and model requests: the spans already describe the tool calls", len(p.logs))
		} else if logs := rd.logSessions(); len(logs) > 0 {
			// Traces without tool calls next to an agent's log events are
			// other telemetry of the same program (HTTP spans).
			all = logs
		}
	}
	if len(all) == 0 {
		what := "no span and no tool-call log event"
		if p.metrics > 0 {
			what = "only metrics (resourceMetrics), which record no tool calls"
		}
		if len(rd.file.Warnings) > 0 {
			w := rd.file.Warnings[0]
			return nil, fmt.Errorf("%s: the OTLP/JSON requests hold %s (line %d: %s)", rd.src, what, w.Line, w.Message)
		}
		return nil, fmt.Errorf("%s: the OTLP/JSON requests hold %s", rd.src, what)
	}
	for _, s := range all {
		s.prependWarnings(&rd.file)
	}
	return all, nil
}

// otelSessionName is how warnings name a session of the file.
func otelSessionName(id string) string {
	if id == "" {
		return "the spans without a trace id"
	}
	return "trace " + strings.ToLower(id)
}
