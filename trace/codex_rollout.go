package trace

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// codexItem holds the fields of a rollout line, or of its payload, that the
// reader uses: every item type and record type share the one struct, and
// the same value is reused for every line.
type codexItem struct {
	typ, timestamp, id, role, name, namespace, callID, status lineSpan
	cwd, cliVersion, model, message                           lineSpan
	// instructions and recordType mark the lines of the older layout.
	instructions, recordType bool
	// args is a call's arguments value as raw JSON (a string for
	// function_call, an object for tool_search_call), input a custom tool
	// call's raw input string, action a local shell or web search action.
	// They point into the line.
	args, input, action []byte
	// output is a *_output item's output, decoded to text (see
	// codexRolloutReader.output); outputFailed is set when the output says
	// the call failed (success false, isError true).
	output       lineSpan
	outputIsText bool
	outputFailed bool
	// resultFailed is set when an mcp_tool_call_end event's result is an
	// error: {"Err": …} or {"Ok": {…, "isError": true}}.
	resultFailed bool
	// outputKind is the kind of an output of none of the shapes Codex
	// writes (a number, say): the result is then dropped with a warning.
	outputKind jsonscan.Kind
	text       lineSpan // an assistant message's output_text parts, joined
	summary    lineSpan // a reasoning item's summary_text parts, joined
	total      codexUsage
	hasInfo    bool
	hasPayload bool
}

func (it *codexItem) reset() { *it = codexItem{} }

// codexRolloutReader builds a Session from a rollout file.
type codexRolloutReader struct {
	sess *Session
	opts Options
	s    codexScan
	line codexItem // the line itself (the item, in the older layout)
	pay  codexItem // its payload (current layout)

	records int            // lines that were rollout records
	calls   map[string]int // call_id → index in sess.Calls
	names   map[string]string
	// mcpFailed holds the call_ids of MCP calls whose end event reported
	// an error before their output was read.
	mcpFailed map[string]bool

	// Token totals: total is the latest running total; pending are calls
	// that still wait for the total of the turn that issued them; tokens
	// holds each call's total, -1 for none.
	total    codexUsage
	pending  []int
	tokens   []int64
	answer   string
	eventAns string
	// done are the calls whose output was read, to hand to
	// Options.CallDone at the next call (an event after an output may
	// still mark it failed).
	done    []int
	scratch []byte // a decoded shell output, reused from call to call
}

func codexReadRollout(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	name := Codex{}.Name()
	cr := &codexRolloutReader{
		sess:  &Session{Format: name, Source: opts.Source, Agent: "codex", Calls: []ToolCall{}, skipMessages: opts.SkipMessages},
		opts:  opts,
		calls: map[string]int{},
		names: map[string]string{},
	}
	if opts.CallDone != nil && opts.DropReleased {
		cr.sess.dropReleased()
	}
	objects, err := codexLines(r, cr.sess, name, &cr.s, cr, cr.opts.MaxResultBytes)
	if err != nil {
		return nil, err
	}
	if cr.records == 0 {
		return nil, codexNoRecords(cr.sess, opts.Source, "Codex rollout", "a {timestamp, type, payload} record or an older-layout session line", objects)
	}
	cr.finish()
	return cr.sess, nil
}

// codexNoRecords is the error for an input in which no line is a record of
// the format: it says what was expected and what the first skipped line
// was.
func codexNoRecords(sess *Session, source, what, expected string, objects int) error {
	if len(sess.Warnings) > 0 && objects == 0 {
		w := sess.Warnings[0]
		return fmt.Errorf("%s: not a %s: no line holds a JSON object (line %d: %s)", source, what, w.Line, w.Message)
	}
	return fmt.Errorf("%s: not a %s: no line is %s", source, what, expected)
}

// parse reads one line into r.line and, when it has one, r.pay.
func (r *codexRolloutReader) parse(line []byte) {
	r.line.reset()
	r.pay.reset()
	r.s.reset(line)
	if !r.s.sc.Object() {
		return
	}
	r.fields(&r.line, true)
	r.s.sc.End()
}

// fields reads the members of the object at the scanner into it. top is
// true for the line itself, whose payload is read into r.pay.
func (r *codexRolloutReader) fields(it *codexItem, top bool) {
	s := &r.s
	sc := &s.sc
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "payload":
			if !top {
				sc.Skip()
				break
			}
			if s.object("payload") {
				it.hasPayload = true
				r.fields(&r.pay, false)
			}
		case "type":
			it.typ = s.str("type")
		case "timestamp":
			it.timestamp = s.str("timestamp")
		case "id":
			it.id = r.optionalStr()
		case "role":
			it.role = s.str("role")
		case "name":
			it.name = s.str("name")
		case "namespace":
			it.namespace = s.str("namespace")
		case "call_id":
			it.callID = s.str("call_id")
		case "status":
			it.status = r.optionalStr()
		case "cwd":
			it.cwd = s.str("cwd")
		case "cli_version":
			it.cliVersion = s.str("cli_version")
		case "model":
			it.model = r.optionalStr()
		case "message":
			it.message = r.optionalStr()
		case "instructions":
			it.instructions = true
			sc.Skip()
		case "record_type":
			it.recordType = true
			sc.Skip()
		case "arguments":
			it.args = sc.Raw()
		case "input":
			if sc.Peek() == jsonscan.String {
				it.input = sc.Raw()
			} else {
				sc.Skip()
			}
		case "action":
			if sc.Peek() == jsonscan.Object {
				it.action = sc.Raw()
			} else {
				sc.Skip()
			}
		case "output":
			r.output(it)
		case "result":
			r.mcpResult(it)
		case "content":
			it.text = r.messageText()
		case "summary":
			if sc.Peek() == jsonscan.Array {
				it.summary = r.contentTexts(false)
			} else {
				sc.Skip()
			}
		case "info":
			r.info(it)
		default:
			sc.Skip()
		}
	}
}

// optionalStr reads a string field whose other kinds Codex never relies on
// (an id, a model, a status that some record types write as objects): any
// non-string value is skipped.
func (r *codexRolloutReader) optionalStr() lineSpan {
	if r.s.sc.Peek() != jsonscan.String {
		r.s.sc.Skip()
		return lineSpan{}
	}
	return r.s.str("")
}

// output reads a *_output item's output: a string; an array of content
// items, whose texts are joined with "\n"; or an object {content, success}
// (success false marks a failure) as some releases wrote it.
func (r *codexRolloutReader) output(it *codexItem) {
	s := &r.s
	sc := &s.sc
	switch sc.Peek() {
	case jsonscan.String:
		it.output = s.str("output")
		it.outputIsText = true
	case jsonscan.Array:
		it.output = r.contentTexts(false)
	case jsonscan.Object:
		sc.Object()
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "content", "output":
				switch sc.Peek() {
				case jsonscan.String:
					it.output = s.str("output.content")
					it.outputIsText = true
				case jsonscan.Array:
					it.output = r.contentTexts(false)
				default:
					sc.Skip()
				}
			case "success":
				if sc.Peek() == jsonscan.Bool {
					ok, _ := sc.Bool()
					it.outputFailed = it.outputFailed || !ok
				} else {
					sc.Skip()
				}
			case "isError", "is_error":
				if sc.Peek() == jsonscan.Bool {
					failed, _ := sc.Bool()
					it.outputFailed = it.outputFailed || failed
				} else {
					sc.Skip()
				}
			default:
				sc.Skip()
			}
		}
		if !it.output.set {
			it.output = lineSpan{off: len(s.arena), end: len(s.arena), set: true}
		}
	case jsonscan.Null:
		sc.Null()
	case jsonscan.Invalid:
		sc.Skip() // records the syntax error
	default:
		// Only an output item's output matters, and the item type may
		// come later in the object: decide in result.
		it.outputKind = sc.Peek()
		sc.Skip()
	}
}

// mcpResult reads the result of an mcp_tool_call_end event: {"Ok":
// CallToolResult} or {"Err": message}. Any other value (an image
// generation's result, say) is skipped.
func (r *codexRolloutReader) mcpResult(it *codexItem) {
	sc := &r.s.sc
	if sc.Peek() != jsonscan.Object {
		sc.Skip()
		return
	}
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "Err":
			it.resultFailed = it.resultFailed || sc.Peek() != jsonscan.Null
			sc.Skip()
		case "Ok":
			if sc.Peek() != jsonscan.Object {
				sc.Skip()
				break
			}
			sc.Object()
			for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
				if (string(k) == "isError" || string(k) == "is_error") && sc.Peek() == jsonscan.Bool {
					failed, _ := sc.Bool()
					it.resultFailed = it.resultFailed || failed
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
}

// messageText reads a message's content array, keeping the text of its
// output_text parts (what an assistant says).
func (r *codexRolloutReader) messageText() lineSpan {
	if r.s.sc.Peek() != jsonscan.Array {
		r.s.sc.Skip()
		return lineSpan{}
	}
	return r.contentTexts(true)
}

// contentTexts reads an array of content items and joins the text of the
// text items with "\n": output_text items only when outputOnly (a
// message), input_text, output_text and text items otherwise (a tool
// output). Items of other types (images) and other kinds are skipped.
func (r *codexRolloutReader) contentTexts(outputOnly bool) lineSpan {
	s := &r.s
	sc := &s.sc
	start := len(s.arena)
	texts := 0
	sc.Array()
	for sc.NextElem() {
		if sc.Peek() != jsonscan.Object {
			sc.Skip()
			continue
		}
		sc.Object()
		mark := len(s.arena)
		var typ [16]byte
		var t []byte
		hasText := false
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "type":
				if sc.Peek() == jsonscan.String {
					t, _ = sc.AppendString(typ[:0], len(typ))
				} else {
					sc.Skip()
				}
			case "text":
				if hasText || sc.Peek() != jsonscan.String {
					sc.Skip()
					break
				}
				if texts > 0 {
					s.arena = append(s.arena, '\n')
				}
				s.arena, _ = sc.AppendString(s.arena, -1)
				hasText = true
			default:
				sc.Skip()
			}
		}
		keep := string(t) == "output_text" || !outputOnly && (string(t) == "input_text" || string(t) == "text" || string(t) == "summary_text")
		if hasText && keep {
			texts++
		} else {
			s.arena = s.arena[:mark]
		}
	}
	return lineSpan{off: start, end: len(s.arena), set: true}
}

// info reads a token_count event's info: {total_token_usage, ...} or null.
func (r *codexRolloutReader) info(it *codexItem) {
	s := &r.s
	if !s.object("info") {
		return
	}
	for key, ok := s.sc.NextKey(); ok; key, ok = s.sc.NextKey() {
		if string(key) == "total_token_usage" {
			it.total = s.readUsage("info.total_token_usage")
			it.hasInfo = it.total.set
		} else {
			s.sc.Skip()
		}
	}
}

// codexItemTypes are the conversation item types of the older layout, in
// which items are written bare.
var codexItemTypes = []string{
	"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
	"custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
	"tool_search_output", "ghost_snapshot", "compaction", "compaction_summary",
}

// apply adds what one parsed line says to the session.
func (r *codexRolloutReader) apply(n int) {
	s := &r.s
	l := &r.line
	var t time.Time
	if l.timestamp.set {
		if p, ok := codexTime(s.text(l.timestamp)); ok {
			t = p
			r.sess.NoteTime(t)
		} else {
			r.sess.Warnf(n, "field timestamp: %q is not an RFC 3339 time; time ignored", s.text(l.timestamp))
		}
	}
	switch {
	case l.typ.set && l.hasPayload:
		r.records++
		switch s.text(l.typ) {
		case "session_meta":
			r.meta(&r.pay)
		case "turn_context":
			r.setOnce(&r.sess.CWD, r.pay.cwd)
			r.setOnce(&r.sess.Model, r.pay.model)
		case "response_item":
			r.item(n, &r.pay, t)
		case "event_msg":
			r.event(&r.pay, t)
		}
	case !l.typ.set && l.recordType:
		r.records++
	case !l.typ.set && l.instructions && l.id.set:
		// The first line of the older layout.
		r.records++
		r.meta(l)
	case l.typ.set && slices.Contains(codexItemTypes, s.text(l.typ)):
		r.records++
		r.item(n, l, t)
	case !l.typ.set:
		r.sess.Warnf(n, "not a rollout record: missing field type; line skipped")
	default:
		r.sess.Warnf(n, "record of type %q without a payload object; line skipped", s.text(l.typ))
	}
}

// meta reads a session_meta payload (or the older layout's first line).
// A resumed or forked session repeats earlier meta lines: the first wins.
func (r *codexRolloutReader) meta(it *codexItem) {
	r.setOnce(&r.sess.ID, it.id)
	r.setOnce(&r.sess.CWD, it.cwd)
	r.setOnce(&r.sess.AgentVersion, it.cliVersion)
	r.setOnce(&r.sess.Model, it.model)
	if it.timestamp.set {
		if t, ok := codexTime(r.s.text(it.timestamp)); ok {
			r.sess.NoteTime(t)
		}
	}
}

func (r *codexRolloutReader) event(it *codexItem, t time.Time) {
	s := &r.s
	switch s.text(it.typ) {
	case "token_count":
		// The total only grows; Codex repeats it, sometimes out of order.
		if it.hasInfo && (!r.total.set || it.total.usage().Total() >= r.total.usage().Total()) {
			r.total = it.total
		}
	case "agent_message":
		if it.message.set {
			r.eventAns = s.text(it.message)
		}
	case "user_message":
		// What the user typed, without the instructions and environment
		// Codex sends as user messages of the conversation: the task.
		if it.message.set && r.sess.Prompt == "" {
			r.sess.Prompt = strings.TrimSpace(s.text(it.message))
		}
		// The conversation's user messages come from these events, not
		// from the user message items, which also hold the instructions
		// and environment Codex sends; the assistant's text and reasoning
		// come from the items (the agent_message and agent_reasoning
		// events repeat them).
		if it.message.set {
			r.sess.addMessageBytes(RoleUser, KindText, s.bytes(it.message), t, false)
		}
	case "mcp_tool_call_end":
		// Newer releases keep this event, whose result says whether the
		// MCP tool failed; the output item that follows does not.
		if !it.resultFailed || !it.callID.set {
			break
		}
		id := s.text(it.callID)
		if i, ok := r.calls[id]; ok {
			if c := r.sess.Call(i); c != nil && c.HasResult {
				c.IsError = true
				break
			}
		}
		if r.mcpFailed == nil {
			r.mcpFailed = map[string]bool{}
		}
		r.mcpFailed[id] = true
	}
}

// item reads one conversation item.
func (r *codexRolloutReader) item(n int, it *codexItem, t time.Time) {
	s := &r.s
	switch s.text(it.typ) {
	case "function_call":
		name := r.name(it)
		r.call(n, s.text(it.callID), name, codexObjectArgs(it.args), t)
	case "custom_tool_call":
		var args []byte
		if it.input != nil {
			args = append(append([]byte(`{"input":`), it.input...), '}')
		}
		r.call(n, s.text(it.callID), r.name(it), args, t)
	case "local_shell_call":
		id := it.callID
		if !id.set {
			id = it.id
		}
		r.call(n, s.text(id), "local_shell", bytes.Clone(it.action), t)
	case "web_search_call":
		i := r.call(n, s.text(it.id), "web_search", bytes.Clone(it.action), t)
		if i >= 0 && s.is(it.status, "completed") {
			r.sess.Call(i).HasResult = true
			r.done = append(r.done, i)
		}
	case "tool_search_call":
		r.call(n, s.text(it.callID), "tool_search", codexObjectArgs(it.args), t)
	case "reasoning":
		if it.summary.set {
			r.sess.addMessageBytes(RoleAssistant, KindReasoning, s.bytes(it.summary), t, false)
		}
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		r.result(n, it)
		r.input()
	case "message":
		switch s.text(it.role) {
		case "assistant":
			if it.text.set && it.text.end > it.text.off {
				r.answer = s.text(it.text)
				r.sess.addMessageBytes(RoleAssistant, KindText, s.bytes(it.text), t, false)
			}
		default:
			r.input()
		}
	}
}

// name returns a call's tool name, namespace first as Codex flattens it.
func (r *codexRolloutReader) name(it *codexItem) string {
	s := &r.s
	key := s.bytes(it.name)
	if it.namespace.set {
		key = append(slices.Clip(s.bytes(it.namespace)), key...)
	}
	name, ok := r.names[string(key)]
	if !ok {
		name = string(key)
		r.names[name] = name
	}
	return name
}

// call adds a call and returns its index, or -1 when it is a repeat.
func (r *codexRolloutReader) call(n int, id, name string, args []byte, t time.Time) int {
	if id != "" {
		if _, dup := r.calls[id]; dup {
			r.sess.Warnf(n, "second call with call_id %q; call ignored", id)
			return -1
		}
	}
	if len(args) == 0 {
		args = nil
	}
	r.handOverDone()
	i := r.sess.AddCall(ToolCall{ID: id, Name: name, Arguments: args, Time: t})
	if id != "" {
		r.calls[id] = i
	}
	r.pending = append(r.pending, i)
	r.tokens = append(r.tokens, -1)
	return i
}

// result joins an output item to its call.
func (r *codexRolloutReader) result(n int, it *codexItem) {
	s := &r.s
	id := s.text(it.callID)
	if id == "" {
		r.sess.Warnf(n, "%s without call_id; output dropped", s.text(it.typ))
		return
	}
	i, ok := r.calls[id]
	if !ok {
		r.sess.Warnf(n, "%s for unknown call_id %q; output dropped", s.text(it.typ), id)
		return
	}
	c := r.sess.Call(i)
	if c == nil || c.HasResult {
		r.sess.Warnf(n, "second output for call_id %q; ignored", id)
		return
	}
	if it.outputKind != jsonscan.Invalid {
		r.sess.Warnf(n, "field output: expected string, array or object, found %s; output dropped", it.outputKind)
		return
	}
	max := r.opts.MaxResultBytes
	if max <= 0 {
		max = -1
	}
	out := s.bytes(it.output)
	failed := it.outputFailed || r.mcpFailed[id]
	delete(r.mcpFailed, id)
	if it.outputIsText {
		// A failure message is read from the whole text, before it is
		// cut to MaxResultBytes.
		failed = failed || codexTextFailed(out)
		var exit int64
		var hasExit bool
		out, r.scratch, exit, hasExit = codexShellResult(out, r.scratch, max)
		failed = failed || hasExit && exit != 0
	}
	c.Result = string(cutUTF8(out, max))
	c.HasResult = true
	c.IsError = failed
	r.done = append(r.done, i)
}

// handOverDone hands the calls whose output was read to Options.CallDone.
func (r *codexRolloutReader) handOverDone() {
	if r.opts.CallDone == nil {
		r.done = r.done[:0]
		return
	}
	for _, i := range r.done {
		handOver(r.sess, i, r.opts.CallDone)
	}
	r.done = r.done[:0]
}

// input notes that the model received input (a tool output, a user
// message): the turn that issued the pending calls is over, so they take
// the running total as it stands.
func (r *codexRolloutReader) input() {
	if !r.total.set {
		r.pending = r.pending[:0]
		return
	}
	total := r.total.usage().Total()
	for _, i := range r.pending {
		r.tokens[i] = total
	}
	r.pending = r.pending[:0]
}

// finish settles the calls still pending and the session's totals.
func (r *codexRolloutReader) finish() {
	r.input()
	r.handOverDone()
	if l := r.sess.ledger; l != nil {
		ptrs := make([]*int64, len(r.tokens))
		for i := range r.tokens {
			if r.tokens[i] >= 0 {
				ptrs[i] = &r.tokens[i]
			}
		}
		l.setTokens(ptrs)
	} else {
		codexSetTokens(r.sess, r.tokens)
	}
	if r.opts.CallDone != nil {
		// The calls whose output never came are done too.
		r.sess.finishHandOver(func(i int) { handOver(r.sess, i, r.opts.CallDone) }, nil)
	}
	r.sess.Answer = r.answer
	if r.answer == "" {
		r.sess.Answer = r.eventAns
	}
	if r.total.set {
		u := r.total.usage()
		r.sess.Usage = &u
	}
}

func (r *codexRolloutReader) setOnce(dst *string, sp lineSpan) {
	if *dst == "" && sp.end > sp.off {
		*dst = r.s.text(sp)
	}
}

// codexSetTokens points each call's CumulativeTokens into tokens, where -1
// stands for none. The pointers are set once every call is read, so that
// appending never moves what they point to.
func codexSetTokens(sess *Session, tokens []int64) {
	for i := range sess.Calls {
		if tokens[i] >= 0 {
			sess.Calls[i].CumulativeTokens = &tokens[i]
		}
	}
}
