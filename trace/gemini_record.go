package trace

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// geminiReader builds a Session from Gemini CLI records. Messages are kept
// in the order Gemini CLI keeps them (a map in insertion order): a record
// with a known id replaces that message in place, a rewind cuts the list.
// Only what the session needs of each message is kept.
type geminiReader struct {
	s   *Session
	max int // Options.MaxResultBytes

	sc, sub, part jsonscan.Scanner
	// scData, subData and partData are the inputs of sc, sub and part, for
	// taking raw values out of them after a walk.
	scData, subData, partData []byte
	buf, text                 []byte
	rec                       geminiRec
	// call is what the result being read needs to know of its call.
	call geminiCallContext

	msgs []geminiEntry
	byID map[string]int

	// records counts the records of the format: messages, metadata, $set
	// and $rewindTo.
	records int
	// lastBroken is the last line that was not valid JSON, lastErr why.
	lastBroken int
	lastErr    string

	sawMeta bool
	// identified counts the messages of a document that have an id.
	identified int
	kind       string
	start      time.Time

	// file is the recording when it is a file read by position; a message
	// on a line of it is kept as the line's place (at, see geminiLineRef)
	// and read again at the end. fileBOM says that the file starts with a
	// byte order mark, base where the stream read starts in it.
	file    io.ReaderAt
	fileBOM bool
	base    int64
	at      geminiLineRef
	seed    maphash.Seed
	// light is set while a record whose message is kept by its place is
	// read: what only the end needs (results, arguments, texts) is not
	// made, the warnings are.
	light bool
	line  []byte // a line read again

	// done, with Options.CallDone, is handed each call once it is added.
	done func(*Session, int) bool
	// streaming is set while the messages of a document go to the session
	// as they are read, its kind being known before them (see
	// geminiDocumentKind); otherwise they are kept until the end.
	streaming bool
	// callTokens holds the CumulativeTokens of every call by index, for a
	// session that drops its calls as it hands them over.
	callTokens    []*int64
	anyCallTokens bool
	// What the messages added so far make of the session: the tokens used
	// up to the last one, their total, the answer candidates.
	used                     int64
	total                    Usage
	hasUsage                 bool
	answerNoCalls, answerAny string
	prompt                   string
}

// geminiCallContext is what reading a call's result needs to know of the
// call: whether it ran the shell tool, and its command.
type geminiCallContext struct {
	shell   bool
	command string
}

// geminiLineRef is the place of the line that recorded a message, to read
// the message from once it is final: a recording holds every version of
// each message until its last line, and a rewind may drop any of them, so
// that the calls are known only at the end. The sum checks that the line
// read again is the line read first.
type geminiLineRef struct {
	off  int64
	size int // 0: none
	line int
	sum  uint64
}

// geminiEntry is one message of the session as read so far: its id, and
// either the place of the line to read it from at the end, or the message
// as read. A recording of a long session holds as many, so the first is
// all most of them keep.
type geminiEntry struct {
	id  string
	at  geminiLineRef
	msg *geminiMsg
}

// geminiMsg is what is kept of one message.
type geminiMsg struct {
	id, typ   string
	time      time.Time
	model     string
	text      string // the content of a gemini or user message
	thoughts  string // a gemini message's thoughts, "subject: description" each
	tokens    geminiTokens
	hasTokens bool
	calls     []ToolCall
}

type geminiTokens struct {
	input, output, cached, thoughts, tool int64
}

// geminiRec is one record as parsed: the fields of a message, of the
// session metadata and of the two update records, whichever it has.
type geminiRec struct {
	id, typ, timestamp, model                       string
	hasID                                           bool
	content, thoughts                               []byte
	tokens                                          geminiTokens
	hasTokens                                       bool
	calls                                           []ToolCall
	rewindTo                                        string
	hasRewind                                       bool
	set, messages                                   []byte
	sessionID, projectHash, startTime, kind         string
	hasSessionID, hasProjectHash, hasKind, hasStart bool
}

func newGeminiReader(opts Options) *geminiReader {
	// Gemini CLI records no working directory (projectHash is a hash of
	// it), so the session's is known from the start: none.
	s := &Session{Format: GeminiCLI{}.Name(), Source: opts.Source, Agent: "gemini-cli", skipMessages: opts.SkipMessages, noCWD: true}
	gr := &geminiReader{s: s, max: opts.MaxResultBytes, byID: map[string]int{}, seed: maphash.MakeSeed()}
	if opts.CallDone != nil {
		gr.done = opts.CallDone
		if opts.DropReleased {
			s.dropReleased()
		}
	}
	return gr
}

// record applies one line of the line format. Records are told apart as
// Gemini CLI tells them apart: a string $rewindTo first, then a string id
// (a message), then an object $set, then sessionId and projectHash (the
// metadata, which in a one-line older document also holds the messages).
func (gr *geminiReader) record(line []byte, n int) {
	rec := &gr.rec
	light := gr.at.size > 0
	gr.light = light
	gr.reset(&gr.sc, line)
	gr.fields(&gr.sc, rec, n, "")
	gr.light = false
	gr.sc.End()
	if err := gr.sc.Err(); err != nil {
		var te *jsonscan.TypeError
		if errors.As(err, &te) && te.Offset == 0 {
			gr.s.Warnf(n, "expected a JSON object, found %s; line skipped", te.Found)
		} else {
			gr.s.Warnf(n, "invalid JSON: %v; line skipped", err)
			gr.lastBroken, gr.lastErr = n, err.Error()
		}
		return
	}
	switch {
	case rec.hasRewind:
		gr.records++
		gr.rewind(rec.rewindTo, n)
	case rec.hasID:
		gr.records++
		gr.light = light
		m := gr.keep(rec, n)
		gr.light = false
		if light {
			// Read again from its line at the end.
			gr.put(geminiEntry{id: m.id, at: gr.at})
		} else {
			gr.put(geminiEntry{id: m.id, msg: m})
		}
	case rec.set != nil:
		gr.records++
		gr.applySet(rec.set, n)
	case rec.hasSessionID && rec.hasProjectHash:
		gr.records++
		gr.sawMeta = true
		gr.applyMeta(rec)
		if rec.messages != nil {
			gr.messageList(rec.messages, n, "messages")
		}
	default:
		gr.s.Warnf(n, "not a Gemini CLI record (expected a message with an id, the session's sessionId and projectHash, $set or $rewindTo); line skipped")
	}
}

// fields reads the keys of the object at sc into rec. Fields of the wrong
// type are ignored with a warning naming them; where says whose fields
// they are ("" for a line, "messages[3]: " for a message in a list).
func (gr *geminiReader) fields(sc *jsonscan.Scanner, rec *geminiRec, n int, where string) {
	*rec = geminiRec{calls: rec.calls[:0]}
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			rec.hasID = gr.str(sc, &rec.id, n, where, "id")
		case "type":
			gr.str(sc, &rec.typ, n, where, "type")
		case "timestamp":
			gr.str(sc, &rec.timestamp, n, where, "timestamp")
		case "model":
			gr.str(sc, &rec.model, n, where, "model")
		case "content":
			rec.content = sc.Raw()
		case "thoughts":
			rec.thoughts = sc.Raw()
		case "tokens":
			rec.hasTokens = gr.tokens(sc, &rec.tokens, n, where)
		case "toolCalls":
			rec.calls = gr.toolCalls(sc, rec.calls, n, where)
		case "$rewindTo":
			rec.hasRewind = gr.str(sc, &rec.rewindTo, n, where, "$rewindTo")
		case "$set":
			if sc.Peek() == jsonscan.Object {
				rec.set = sc.Raw()
			} else {
				gr.wrongType(sc, n, where, "$set", "an object")
			}
		case "messages":
			if sc.Peek() == jsonscan.Array {
				rec.messages = sc.Raw()
			} else {
				gr.wrongType(sc, n, where, "messages", "an array")
			}
		case "sessionId":
			rec.hasSessionID = gr.str(sc, &rec.sessionID, n, where, "sessionId")
		case "projectHash":
			rec.hasProjectHash = gr.str(sc, &rec.projectHash, n, where, "projectHash")
		case "startTime":
			rec.hasStart = gr.str(sc, &rec.startTime, n, where, "startTime")
		case "kind":
			rec.hasKind = gr.str(sc, &rec.kind, n, where, "kind")
		default:
			sc.Skip()
		}
	}
}

// str reads a string field into dst. Null leaves it unset; any other type
// is ignored with a warning.
func (gr *geminiReader) str(sc *jsonscan.Scanner, dst *string, n int, where, field string) bool {
	switch sc.Peek() {
	case jsonscan.String:
		b, ok := sc.AppendString(gr.buf[:0], -1)
		gr.buf = b[:0]
		*dst = string(b)
		return ok
	case jsonscan.Null:
		sc.Null()
		return false
	}
	gr.wrongType(sc, n, where, field, "a string")
	return false
}

// wrongType skips a value of the wrong type with a warning.
func (gr *geminiReader) wrongType(sc *jsonscan.Scanner, n int, where, field, want string) {
	k := sc.Peek()
	if k == jsonscan.Invalid {
		sc.Skip() // records the syntax error
		return
	}
	sc.Skip()
	gr.s.Warnf(n, "%sfield %s: expected %s, found %s; ignored", where, field, want, k)
}

// count reads a token count: any JSON number (null is 0).
func (gr *geminiReader) count(sc *jsonscan.Scanner, n int, where, field string) int64 {
	switch sc.Peek() {
	case jsonscan.Number:
		raw := sc.Raw()
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f > 1e15 || f < -1e15 {
			gr.s.Warnf(n, "%sfield %s: %s is out of range for a token count; ignored", where, field, atifClip(string(raw), 32))
			return 0
		}
		return int64(f)
	case jsonscan.Null:
		sc.Null()
		return 0
	}
	gr.wrongType(sc, n, where, field, "a number")
	return 0
}

func (gr *geminiReader) tokens(sc *jsonscan.Scanner, t *geminiTokens, n int, where string) bool {
	if sc.Peek() == jsonscan.Null {
		sc.Null()
		return false
	}
	if sc.Peek() != jsonscan.Object {
		gr.wrongType(sc, n, where, "tokens", "an object")
		return false
	}
	sc.Object()
	where += "tokens."
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "input":
			t.input = gr.count(sc, n, where, "input")
		case "output":
			t.output = gr.count(sc, n, where, "output")
		case "cached":
			t.cached = gr.count(sc, n, where, "cached")
		case "thoughts":
			t.thoughts = gr.count(sc, n, where, "thoughts")
		case "tool":
			t.tool = gr.count(sc, n, where, "tool")
		default:
			sc.Skip() // total: the sum of the others
		}
	}
	return true
}

// toolCalls reads a message's toolCalls array, appending to calls.
func (gr *geminiReader) toolCalls(sc *jsonscan.Scanner, calls []ToolCall, n int, where string) []ToolCall {
	if sc.Peek() == jsonscan.Null {
		sc.Null()
		return calls
	}
	if sc.Peek() != jsonscan.Array {
		gr.wrongType(sc, n, where, "toolCalls", "an array")
		return calls
	}
	sc.Array()
	for i := 0; sc.NextElem(); i++ {
		at := fmt.Sprintf("%stoolCalls[%d]: ", where, i)
		if sc.Peek() != jsonscan.Object {
			k := sc.Peek()
			sc.Skip()
			if k != jsonscan.Invalid {
				gr.s.Warnf(n, "%sexpected a tool call object, found %s; skipped", at, k)
			}
			continue
		}
		if c, ok := gr.toolCall(sc, n, at); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

func (gr *geminiReader) toolCall(sc *jsonscan.Scanner, n int, at string) (ToolCall, bool) {
	var c ToolCall
	var status, ts string
	var args, result []byte
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			gr.str(sc, &c.ID, n, at, "id")
		case "name":
			gr.str(sc, &c.Name, n, at, "name")
		case "args":
			args = sc.Raw()
		case "status":
			gr.str(sc, &status, n, at, "status")
		case "timestamp":
			gr.str(sc, &ts, n, at, "timestamp")
		case "result":
			// Read once the call's name and command are known: a shell
			// tool's result is unwrapped.
			result = sc.Raw()
		default:
			sc.Skip()
		}
	}
	if sc.Err() != nil {
		return c, false
	}
	if result != nil && !gr.light {
		gr.call = geminiCallContext{shell: c.Name == geminiShellTool}
		if gr.call.shell {
			gr.call.command = gr.argString(args, "command")
		}
		gr.reset(&gr.part, result)
		gr.result(&gr.part, &c)
		gr.call = geminiCallContext{}
	}
	if c.Name == "" {
		gr.s.Warnf(n, "%sno tool name; call skipped", at)
		return c, false
	}
	if !gr.light {
		c.Arguments = atifArguments(args)
	}
	if status == "error" || status == "cancelled" {
		c.IsError = true
	}
	if ts != "" {
		if t, ok := atifParseTime(ts); ok {
			c.Time = t
		} else {
			gr.s.Warnf(n, "%stimestamp %q is not ISO 8601; the call has the message's time", at, ts)
		}
	}
	return c, true
}

// result reads a call's result, a list of parts (Gemini's PartListUnion: a
// string, a part or an array of parts). The text of function responses and
// text parts is kept, joined by newlines.
func (gr *geminiReader) result(sc *jsonscan.Scanner, c *ToolCall) {
	switch sc.Peek() {
	case jsonscan.String:
		c.HasResult = true
		gr.appendText(sc, c)
	case jsonscan.Object:
		gr.resultPart(sc, c)
	case jsonscan.Array:
		sc.Array()
		for sc.NextElem() {
			if sc.Peek() == jsonscan.Object {
				gr.resultPart(sc, c)
			} else {
				sc.Skip()
			}
		}
	default:
		sc.Skip() // null: no result yet
	}
}

// resultPart reads one part: {"functionResponse": {"response": {"output":
// …}}}, {"text": …}, or a part without text (inline data).
func (gr *geminiReader) resultPart(sc *jsonscan.Scanner, c *ToolCall) {
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "text":
			if sc.Peek() == jsonscan.String {
				c.HasResult = true
				gr.appendText(sc, c)
			} else {
				sc.Skip()
			}
		case "functionResponse":
			if sc.Peek() != jsonscan.Object {
				sc.Skip()
				continue
			}
			c.HasResult = true
			sc.Object()
			for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
				if string(key) == "response" {
					gr.response(sc, c)
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
}

// reset makes sc (gr.sc or gr.sub) read data.
func (gr *geminiReader) reset(sc *jsonscan.Scanner, data []byte) {
	sc.Reset(data)
	switch sc {
	case &gr.sub:
		gr.subData = data
	case &gr.part:
		gr.partData = data
	default:
		gr.scData = data
	}
}

// argString returns the string argument key of a call's raw arguments, ""
// when there is none.
func (gr *geminiReader) argString(args []byte, key string) string {
	var sc jsonscan.Scanner
	sc.Reset(args)
	if sc.Peek() != jsonscan.Object {
		return ""
	}
	sc.Object()
	for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
		if string(k) == key && sc.Peek() == jsonscan.String {
			b, _ := sc.AppendString(nil, -1)
			return string(b)
		}
		sc.Skip()
	}
	return ""
}

// response reads a function response: {"output": text} or {"error":
// message}; any other value (an MCP tool's content list) is kept as
// compact JSON. An error, whatever its value, marks the call IsError, and
// so does an output that says the tool failed; a shell tool's output is
// unwrapped (see geminiShellOutput).
func (gr *geminiReader) response(sc *jsonscan.Scanner, c *ToolCall) {
	var data []byte
	switch sc {
	case &gr.sub:
		data = gr.subData
	case &gr.part:
		data = gr.partData
	default:
		data = gr.scData
	}
	if sc.Peek() != jsonscan.Object {
		start := sc.Offset()
		if sc.Skip(); sc.Err() == nil {
			gr.appendRaw(c, data[start:sc.Offset()])
		}
		return
	}
	start := sc.Offset()
	sc.Object()
	found := false
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch k := string(key); {
		case k == "output" && sc.Peek() == jsonscan.String:
			found = true
			gr.appendOutput(sc, c)
		case k == "error" && sc.Peek() == jsonscan.String:
			found = true
			c.IsError = true
			gr.appendText(sc, c)
		case k == "error" && sc.Peek() != jsonscan.Null:
			// An error object: the response is kept whole below.
			c.IsError = true
			sc.Skip()
		default:
			sc.Skip()
		}
	}
	if !found && sc.Err() == nil {
		gr.appendRaw(c, data[start:sc.Offset()])
	}
}

// appendOutput appends a tool's output, the string at sc, to the call's
// result: for the shell tool the command's output, when the text has a
// shape Gemini CLI's shell tool writes. Failures are read from the whole
// text, before MaxResultBytes cuts it.
func (gr *geminiReader) appendOutput(sc *jsonscan.Scanner, c *ToolCall) {
	text := gr.readString(sc)
	if gr.call.shell {
		out, failed, ok := geminiShellOutput(text, gr.call.command)
		c.IsError = c.IsError || failed
		if ok {
			text = out
		}
	} else if geminiTextFailed(text) {
		c.IsError = true
	}
	gr.appendBytes(c, text)
}

// readString reads the string at sc whole into a buffer reused from call
// to call.
func (gr *geminiReader) readString(sc *jsonscan.Scanner) []byte {
	b, _ := sc.AppendString(gr.text[:0], -1)
	gr.text = b[:0]
	return b
}

// appendText appends the string at sc to the call's result (see
// appendBytes).
func (gr *geminiReader) appendText(sc *jsonscan.Scanner, c *ToolCall) {
	gr.appendBytes(c, gr.readString(sc))
}

// appendBytes appends text to the call's result, after a newline when the
// result has text already, keeping the result within MaxResultBytes.
func (gr *geminiReader) appendBytes(c *ToolCall, text []byte) {
	b := append(gr.buf[:0], c.Result...)
	if len(b) > 0 {
		b = append(b, '\n')
	}
	start := len(b)
	b = append(b, text...)
	if gr.max > 0 && len(b) > gr.max {
		cut := gr.max
		for cut > start && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:max(cut, len(c.Result))]
	}
	if len(b) <= start {
		b = b[:len(c.Result)] // nothing added: no separator either
	}
	c.Result = string(b)
	gr.buf = b[:0]
}

func (gr *geminiReader) appendRaw(c *ToolCall, raw []byte) {
	text := string(atifCompact(raw))
	if c.Result != "" {
		text = c.Result + "\n" + text
	}
	c.Result = atifClip(text, gr.max)
}

// keep turns a parsed message record into what the session keeps of it.
func (gr *geminiReader) keep(rec *geminiRec, n int) *geminiMsg {
	m := &geminiMsg{id: rec.id, typ: rec.typ, model: rec.model, tokens: rec.tokens, hasTokens: rec.hasTokens}
	if rec.timestamp != "" {
		if t, ok := atifParseTime(rec.timestamp); ok {
			m.time = t
		} else {
			gr.s.Warnf(n, "message %q: timestamp %q is not ISO 8601; ignored", rec.id, rec.timestamp)
		}
	}
	if gr.light {
		// Read again at the end: only the warnings are given now.
		if m.typ != "gemini" && len(rec.calls) > 0 {
			gr.s.Warnf(n, "message %q of type %q has toolCalls; only gemini messages make calls, so they are ignored", rec.id, rec.typ)
		}
		return m
	}
	if m.typ == "gemini" {
		m.text = gr.contentText(rec.content)
		if !gr.s.skipMessages {
			m.thoughts = gr.thoughtsText(rec.thoughts)
		}
		if len(rec.calls) > 0 {
			m.calls = make([]ToolCall, len(rec.calls))
			copy(m.calls, rec.calls)
		}
	} else if len(rec.calls) > 0 {
		gr.s.Warnf(n, "message %q of type %q has toolCalls; only gemini messages make calls, so they are ignored", rec.id, rec.typ)
	}
	if m.typ == "user" {
		// The first user message is the task in the user's words.
		m.text = gr.contentText(rec.content)
	}
	return m
}

// thoughtsText returns the thoughts of a gemini message, a list of
// {subject, description} objects, as one text: each thought's subject
// and description on a line, a blank line between thoughts. Anything
// else is left out: thoughts are shown, never interpreted.
func (gr *geminiReader) thoughtsText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	p := &gr.part
	gr.reset(p, raw)
	if p.Peek() != jsonscan.Array {
		return ""
	}
	var b []byte
	p.Array()
	for p.NextElem() {
		if p.Peek() != jsonscan.Object {
			p.Skip()
			continue
		}
		p.Object()
		var subject, description []byte
		for key, ok := p.NextKey(); ok; key, ok = p.NextKey() {
			switch {
			case string(key) == "subject" && p.Peek() == jsonscan.String:
				subject, _ = p.AppendString(nil, MaxMessageBytes)
			case string(key) == "description" && p.Peek() == jsonscan.String:
				description, _ = p.AppendString(nil, MaxMessageBytes)
			default:
				p.Skip()
			}
		}
		if len(subject) == 0 && len(description) == 0 {
			continue
		}
		if len(b) > 0 {
			b = append(b, "\n\n"...)
		}
		if len(subject) > 0 {
			b = append(b, subject...)
			if len(description) > 0 {
				b = append(b, ": "...)
			}
		}
		b = append(b, description...)
	}
	return string(b)
}

// contentText returns the text of a message's content: a string, or the
// text parts of a part or a list of parts.
func (gr *geminiReader) contentText(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	p := &gr.part
	gr.reset(p, raw)
	var c ToolCall // collects the text the way results do
	max := gr.max
	gr.max = 0
	defer func() { gr.max = max }()
	switch p.Peek() {
	case jsonscan.String:
		gr.appendText(p, &c)
	case jsonscan.Object:
		gr.textPart(p, &c)
	case jsonscan.Array:
		p.Array()
		for p.NextElem() {
			if p.Peek() == jsonscan.Object {
				gr.textPart(p, &c)
			} else {
				p.Skip()
			}
		}
	}
	return c.Result
}

func (gr *geminiReader) textPart(p *jsonscan.Scanner, c *ToolCall) {
	p.Object()
	for key, ok := p.NextKey(); ok; key, ok = p.NextKey() {
		if string(key) == "text" && p.Peek() == jsonscan.String {
			gr.appendText(p, c)
		} else {
			p.Skip()
		}
	}
}

// addDocumentMessage adds a message of a session document: every element
// of the array is a message where it stands, as Gemini CLI reads an older
// session file (the parsed array itself; a repeated id replaces nothing).
// While the document streams, the message goes to the session at once.
func (gr *geminiReader) addDocumentMessage(m *geminiMsg) {
	if gr.streaming {
		gr.emit(m)
		return
	}
	gr.msgs = append(gr.msgs, geminiEntry{id: m.id, msg: m})
}

// put adds a message, or replaces the message with its id where it stands.
func (gr *geminiReader) put(e geminiEntry) {
	if i, ok := gr.byID[e.id]; ok {
		gr.msgs[i] = e
		return
	}
	gr.byID[e.id] = len(gr.msgs)
	gr.msgs = append(gr.msgs, e)
}

// rewind drops the message with the given id and every message after it.
// Gemini CLI drops every message when the id is unknown; so does this.
func (gr *geminiReader) rewind(id string, n int) {
	i, ok := gr.byID[id]
	if !ok {
		if len(gr.msgs) > 0 {
			gr.s.Warnf(n, "$rewindTo names message %q, which is not in the session; all %d messages before it are dropped, as Gemini CLI does", id, len(gr.msgs))
		}
		i = 0
	}
	for _, m := range gr.msgs[i:] {
		delete(gr.byID, m.id)
	}
	clear(gr.msgs[i:])
	gr.msgs = gr.msgs[:i]
}

// applySet applies a $set record: metadata fields, and a messages list
// that replaces every message.
func (gr *geminiReader) applySet(set []byte, n int) {
	var rec geminiRec
	gr.reset(&gr.sub, set)
	gr.fields(&gr.sub, &rec, n, "$set: ")
	if gr.sub.Err() != nil {
		return // the line was valid JSON; a type problem was reported
	}
	gr.applyMeta(&rec)
	if rec.messages != nil {
		// A checkpoint: the list is rebuilt from the record.
		clear(gr.byID)
		clear(gr.msgs)
		gr.msgs = gr.msgs[:0]
		gr.messageList(rec.messages, n, "$set.messages")
	}
}

// applyMeta keeps the session fields of a metadata or $set record; later
// values win, as Gemini CLI merges them.
func (gr *geminiReader) applyMeta(rec *geminiRec) {
	if rec.hasSessionID {
		gr.s.ID = rec.sessionID
	}
	if rec.hasKind {
		gr.kind = rec.kind
	}
	if rec.hasStart {
		if t, ok := atifParseTime(rec.startTime); ok {
			gr.start = t
		}
	}
}

// metaField reads one top-level field of a session document, whose value
// gr.sc holds.
func (gr *geminiReader) metaField(key string, n int) {
	var rec geminiRec
	switch key {
	case "sessionId":
		rec.hasSessionID = gr.str(&gr.sc, &rec.sessionID, n, "", key)
	case "kind":
		rec.hasKind = gr.str(&gr.sc, &rec.kind, n, "", key)
	case "startTime":
		rec.hasStart = gr.str(&gr.sc, &rec.startTime, n, "", key)
	}
	gr.applyMeta(&rec)
}

// messageList reads an array of messages held in one line.
func (gr *geminiReader) messageList(list []byte, n int, field string) {
	gr.reset(&gr.sub, list)
	gr.sub.Array()
	var rec geminiRec
	for i := 0; gr.sub.NextElem(); i++ {
		where := fmt.Sprintf("%s[%d]: ", field, i)
		if gr.sub.Peek() != jsonscan.Object {
			k := gr.sub.Peek()
			gr.sub.Skip()
			gr.s.Warnf(n, "%sexpected a message object, found %s; skipped", where, k)
			continue
		}
		gr.fields(&gr.sub, &rec, n, where)
		if !rec.hasID {
			gr.s.Warnf(n, "%smessage has no id; skipped", where)
			continue
		}
		m := gr.keep(&rec, n)
		gr.put(geminiEntry{id: m.id, msg: m})
	}
}

// message reads the message held in gr.sc (a document's messages
// element) and returns it, or nil when it cannot be used. A syntax error
// is returned: the document is broken there.
func (gr *geminiReader) message(n int, field string) (*geminiMsg, error) {
	where := fmt.Sprintf("%s at line %d: ", field, n)
	if k := gr.sc.Peek(); k != jsonscan.Object {
		if k == jsonscan.Invalid {
			gr.sc.Skip()
			return nil, gr.sc.Err()
		}
		gr.s.Warnf(n, "%sexpected a message object, found %s; skipped", where, k)
		return nil, nil
	}
	gr.fields(&gr.sc, &gr.rec, n, "")
	gr.sc.End()
	if err := gr.sc.Err(); err != nil {
		var se *jsonscan.SyntaxError
		if errors.As(err, &se) {
			return nil, err
		}
		gr.s.Warnf(n, "%s%v; skipped", where, err)
		return nil, nil
	}
	if !gr.rec.hasID {
		gr.s.Warnf(n, "%smessage has no id; skipped", where)
		return nil, nil
	}
	gr.identified++
	return gr.keep(&gr.rec, n), nil
}

// finish turns the messages left after every update and rewind into the
// session's calls, handing each call over as it is added and letting go of
// each message once it is added, and settles the session's totals.
func (gr *geminiReader) finish() {
	s := gr.s
	s.NoteTime(gr.start)
	gr.byID = nil // no record comes any more: let the ids go with their messages
	for k, e := range gr.msgs {
		m := e.msg
		if e.at.size > 0 {
			m = gr.reread(e)
		}
		if m != nil {
			gr.emit(m)
		}
		gr.msgs[k] = geminiEntry{}
	}
	sub := gr.kind == "subagent"
	if !sub {
		s.Prompt = gr.prompt
		s.Answer = cmp.Or(gr.answerNoCalls, gr.answerAny)
	}
	if gr.hasUsage {
		total := gr.total
		s.Usage = &total
	}
	if gr.done != nil {
		s.streamed = true
		if l := s.ledger; l != nil {
			if gr.anyCallTokens {
				l.setTokens(gr.callTokens)
			}
			s.closeLedger()
		}
	}
}

// emit adds one message to the session: its conversation, its tokens and
// its calls, each handed to Options.CallDone once added. The session's
// kind must be known: it marks subagent calls.
func (gr *geminiReader) emit(m *geminiMsg) {
	s := gr.s
	sub := gr.kind == "subagent"
	s.NoteTime(m.time)
	if m.typ == "user" {
		if gr.prompt == "" {
			gr.prompt = strings.TrimSpace(m.text)
		}
		s.AddMessage(RoleUser, KindText, m.text, m.time, sub)
	}
	if m.typ != "gemini" {
		return
	}
	// A gemini message thinks, says what it will do, then calls.
	s.AddMessage(RoleAssistant, KindReasoning, m.thoughts, m.time, sub)
	s.AddMessage(RoleAssistant, KindText, m.text, m.time, sub)
	if s.Model == "" {
		s.Model = m.model
	}
	if m.hasTokens {
		t := m.tokens
		u := Usage{InputTokens: t.input + t.tool, OutputTokens: t.output + t.thoughts, CacheReadTokens: t.cached}
		gr.total = gr.total.Add(u)
		gr.used += u.Total()
		gr.hasUsage = true
	}
	for _, c := range m.calls {
		if c.Time.IsZero() {
			c.Time = m.time
		}
		s.NoteTime(c.Time)
		if gr.hasUsage {
			cum := gr.used
			c.CumulativeTokens = &cum
		}
		c.Subagent = sub
		i := s.AddCall(c)
		if s.ledger != nil {
			gr.callTokens = append(gr.callTokens, c.CumulativeTokens)
			gr.anyCallTokens = gr.anyCallTokens || c.CumulativeTokens != nil
		}
		if gr.done != nil {
			handOver(s, i, gr.done)
		}
	}
	if m.text != "" {
		gr.answerAny = m.text
		if len(m.calls) == 0 {
			gr.answerNoCalls = m.text
		}
	}
}

// reread reads the message of e from its line in the file, whole this
// time, as the first read would have kept it. Its warnings were given
// then. A line that is no longer what was read (the file was rewritten
// meanwhile) loses its message, with a warning.
func (gr *geminiReader) reread(e geminiEntry) *geminiMsg {
	at := e.at
	gr.line = slices.Grow(gr.line[:0], at.size)[:at.size]
	if n, _ := gr.file.ReadAt(gr.line, at.off); n != at.size || maphash.Bytes(gr.seed, gr.line) != at.sum {
		gr.s.Warnf(at.line, "message %q: the line changed while the recording was read; message left out", e.id)
		return nil
	}
	s := gr.s
	gr.s = &Session{skipMessages: s.skipMessages} // takes the warnings again
	gr.reset(&gr.sc, gr.line)
	gr.fields(&gr.sc, &gr.rec, at.line, "")
	full := gr.keep(&gr.rec, at.line)
	gr.s = s
	return full
}
