package trace

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// OpenHands reads an OpenHands V0 event list: the trajectory that OpenHands
// saves with save_trajectory_path (config.toml) or --save-trajectory-path,
// that the GUI exports, and that its replay tests keep under
// tests/runtime/trajs.
//
// # Format
//
// A JSON array of events, each either an action or an observation:
//
//	[
//	  {"id": 5, "timestamp": "2025-10-10T06:10:38.391633", "source": "agent",
//	   "action": "run", "args": {"command": "ls", "thought": ""},
//	   "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "call_1",
//	                          "model_response": {"model": "…", "choices": [{"message": {"tool_calls": [
//	                              {"id": "call_1", "function": {"name": "execute_bash", "arguments": "{\"command\":\"ls\"}"}}]}}]}},
//	   "llm_metrics": {"accumulated_token_usage": {"prompt_tokens": 5863, "completion_tokens": 1042,
//	                                               "cache_read_tokens": 0, "cache_write_tokens": 0}}},
//	  {"id": 6, "source": "agent", "observation": "run", "cause": 5, "content": "…",
//	   "extras": {"command": "ls", "metadata": {"exit_code": 0, "working_dir": "/app"}}}
//	]
//
// An action is a tool call when it carries tool_call_metadata, or when it is
// one of the actions that run a tool (run, run_ipython, read, write, edit,
// browse, browse_interactive, delegate, call_tool_mcp) and the agent issued
// it. User messages, the system prompt, recalls and agent-state changes are
// not calls. A call is named by tool_call_metadata.function_name
// (execute_bash, str_replace_editor, …) when present, else by its action
// type; its arguments are those of the model's tool call with that
// tool_call_id when the model response is recorded, else the event's args.
// Its result is the observation whose cause is the action's id (or, for
// observations without a cause, whose tool_call_id is the call's); an
// observation of type error or user_rejected, or a command with a non-zero
// extras.metadata.exit_code, marks the result as an error.
//
// A delegate action starts a sub-agent whose events follow it in the same
// list until the delegate observation: calls in between are the
// sub-agent's (Subagent, ParentID = the delegate call's ID). A call's ID is
// its tool_call_id, else its event id.
//
// Tokens come from llm_metrics.accumulated_token_usage, a running total that
// OpenHands attaches to the actions a model response produced: a call's
// CumulativeTokens is prompt_tokens + completion_tokens of the latest total
// at or before it, and Session.Usage is the last total. prompt_tokens
// already includes the cached prompt tokens (cache_read_tokens and
// cache_write_tokens are parts of it, kept in Usage for information and not
// added again).
//
// The reader streams: it holds one event at a time. With Options.CallDone
// each call is handed over once its observation is read, and the calls
// left without one at the end of the list, so that with
// Options.DropReleased a list of any length holds only the calls waiting
// for their observation; without CallDone memory grows with the number of
// calls. A malformed event is skipped with a warning; a list cut short is
// read up to its last complete event.
type OpenHands struct{}

// Name returns "openhands".
func (OpenHands) Name() string { return "openhands" }

// Info describes the format.
func (OpenHands) Info() FormatInfo {
	return FormatInfo{
		Writer:    "OpenHands V0 (save_trajectory_path in config.toml, or the GUI's trajectory export)",
		Detection: `a JSON array whose first element is an object with an "action" or "observation" key, an "id", "source" or "timestamp" key, and no "kind" key`,
		Example:   "trajectories/<session>.json",
	}
}

// Detect reports whether prefix starts a JSON array of OpenHands events.
func (OpenHands) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '[' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	return ohLooksLikeV0Event(dec)
}

// ohLooksLikeV0Event reports whether the object dec reads next has the keys
// of an OpenHands V0 event. A truncated object is judged on the keys seen.
func ohLooksLikeV0Event(dec *json.Decoder) bool {
	var kind, meta, v1 bool
	atifWalkDecoder(dec, func(key string, _ *json.Decoder) bool {
		switch key {
		case "action", "observation":
			kind = true
		case "id", "source", "timestamp":
			meta = true
		case "kind":
			// V1 SDK events have an observation too, and a kind.
			v1 = true
		}
		return false
	})
	return kind && meta && !v1
}

// Read reads an OpenHands event list.
func (OpenHands) Read(r io.Reader, opts Options) (*Session, error) {
	return readCut(r, opts, func(r io.Reader) (*Session, error) { return openHandsReadList(newJSONDoc(r), opts) })
}

func openHandsReadList(d *jsonDoc, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	s := &Session{Format: "openhands", Source: src, Agent: "openhands", skipMessages: opts.SkipMessages}
	b := newOHV0Builder(s, opts.MaxResultBytes)
	if opts.CallDone != nil {
		b.handOverAsRead(opts)
	}
	if obj, err := d.Open(); err != nil || obj {
		line := d.Line()
		if err != nil {
			var de *jsonDocError
			if errors.As(err, &de) {
				line = de.Line
			}
		}
		return nil, fmt.Errorf("%s:%d: not an OpenHands event list: expected a JSON array of events", src, line)
	}
	err := ohParseEvents(d, &b.rec.sc, b.parseValue, b.apply)
	if err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if b.events == 0 {
			return nil, fmt.Errorf("%s:%d: reading OpenHands event list: no event could be read: %v", src, de.Line, de.Err)
		}
		s.Warnf(de.Line, "event list is cut short or malformed (%v); kept the %d events read before it", de.Err, b.events)
	} else if note, line := d.End(); note != "" {
		s.Warnf(line, "%s", note)
	}
	if b.events == 0 && b.skipped == 0 {
		return nil, fmt.Errorf("%s: not an OpenHands event list: the array holds no event", src)
	}
	b.finish()
	b.handOverRest()
	return s, nil
}

// ohReadEvents hands each element of the array d has entered to event, with
// the line where it starts.
func ohReadEvents(d *jsonDoc, event func(raw []byte, line int)) error {
	for {
		ok, err := d.NextElem()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		d.peek()
		line := d.Line()
		raw, err := d.Value()
		if err != nil {
			return err
		}
		event(raw, line)
	}
}

// ohParseEvents parses each element of the array d has entered in place
// with parse, and hands what parsing met to apply, with the line where the
// element starts.
func ohParseEvents(d *jsonDoc, sc *jsonscan.Scanner, parse func(), apply func(err error, line int)) error {
	for {
		ok, err := d.NextElem()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		d.peek()
		line := d.Line()
		recErr, err := d.Parse(sc, parse)
		if err != nil {
			return err
		}
		apply(recErr, line)
	}
}

// ohV0ToolActions are the action types that run a tool even when the event
// has no tool_call_metadata (traces of agents without function calling).
var ohV0ToolActions = map[string]bool{
	"run": true, "run_ipython": true, "read": true, "write": true, "edit": true,
	"browse": true, "browse_interactive": true, "delegate": true, "call_tool_mcp": true,
}

// ohUsage is an accumulated_token_usage object.
type ohUsage struct {
	set                                       bool
	prompt, completion, cacheRead, cacheWrite int64
}

// cumulative is the running total a call made now carries, or nil.
func (u ohUsage) cumulative() *int64 {
	if !u.set {
		return nil
	}
	n := u.prompt + u.completion
	return &n
}

func (u ohUsage) usage() Usage {
	return Usage{InputTokens: u.prompt, OutputTokens: u.completion, CacheReadTokens: u.cacheRead, CacheCreationTokens: u.cacheWrite}
}

// ohModelCall is one tool call of a recorded model response.
type ohModelCall struct {
	id, name string
	args     json.RawMessage
}

// ohV0Event holds the fields of one V0 event the reader uses.
type ohV0Event struct {
	id, cause          int64
	hasID, hasCause    bool
	timestamp, source  string
	action, obs        string
	isAction, isObs    bool
	content            string
	hasContent         bool
	args               []byte
	finalThought, text string // args.final_thought, args.content
	thought            string // args.thought: what the model said with the action
	exitCode           int64
	hasExit            bool
	workingDir         string
	fn, toolCallID     string
	model              string
	modelCalls         []ohModelCall
	usage              ohUsage
}

// ohV0Builder turns V0 events into calls. The OpenHands harness's
// output.jsonl uses it for the history of each line.
type ohV0Builder struct {
	s   *Session
	max int
	rec jsonRec
	ev  ohV0Event
	// byEvent and byToolCall find the call an observation answers.
	byEvent    map[int64]int
	byToolCall map[string]int
	// delegates is the stack of delegate calls whose sub-agent is running.
	delegates []ohDelegate
	cum       ohUsage
	answer    string
	lastText  string
	// events counts the events read; skipped the malformed ones.
	events, skipped int
	// done, when set, is handed each call once its observation is read.
	done func(*Session, int) bool
	// callTokens holds the CumulativeTokens of every call by index, for a
	// session that drops its calls as it hands them over.
	callTokens    []*int64
	anyCallTokens bool
}

// ohDelegate is a delegate call whose sub-agent is running: its index, and
// its ID, which the sub-agent's calls carry as ParentID (the call itself
// may have been handed over and dropped before its sub-agent ends, when an
// error observation answers it first).
type ohDelegate struct {
	i  int
	id string
}

func newOHV0Builder(s *Session, max int) *ohV0Builder {
	if max <= 0 {
		max = -1
	}
	return &ohV0Builder{s: s, max: max, byEvent: map[int64]int{}, byToolCall: map[string]int{}}
}

// handOverAsRead makes b hand each call to opts.CallDone once its
// observation is read, and, with opts.DropReleased, drop the calls it
// releases.
func (b *ohV0Builder) handOverAsRead(opts Options) {
	b.done = opts.CallDone
	if opts.DropReleased {
		b.s.dropReleased()
	}
}

// handOverRest hands over the calls no observation answered, in order,
// once the list is read, and ends a read that drops its calls: the
// session's Calls become the calls kept, with the tokens of all.
func (b *ohV0Builder) handOverRest() {
	if b.done == nil {
		return
	}
	var tokens []*int64
	if b.anyCallTokens {
		tokens = b.callTokens
	}
	b.s.finishHandOver(func(i int) { handOver(b.s, i, b.done) }, tokens)
}

// event reads one event held in raw; a malformed one is skipped with a
// warning.
func (b *ohV0Builder) event(raw []byte, line int) {
	sc := &b.rec.sc
	sc.Reset(raw)
	b.parseValue()
	sc.End()
	b.apply(sc.Err(), line)
}

// apply turns the event just parsed into b.ev into calls; err is what
// parsing it met.
func (b *ohV0Builder) apply(err error, line int) {
	if err == nil {
		err = b.check()
	}
	if err != nil {
		b.skipped++
		b.s.Warnf(line, "skipped an OpenHands event: %v", err)
		return
	}
	b.events++
	e := &b.ev
	t, ok := atifParseTime(e.timestamp)
	if !ok && e.timestamp != "" {
		b.s.Warnf(line, "event %d: timestamp %q is not ISO 8601; the event has no time", e.id, e.timestamp)
	}
	b.s.NoteTime(t)
	if e.model != "" && b.s.Model == "" {
		b.s.Model = e.model
	}
	if e.workingDir != "" && b.s.CWD == "" {
		b.s.CWD = e.workingDir
	}
	if e.usage.set {
		b.cum = e.usage
	}
	switch {
	case e.isAction:
		b.action()
	case e.isObs:
		b.observation()
	}
}

func (b *ohV0Builder) action() {
	e := &b.ev
	b.message()
	// The answer is the main agent's, not a delegate's.
	switch main := len(b.delegates) == 0; {
	case main && e.action == "finish" && e.finalThought != "":
		b.answer = e.finalThought
	case main && e.action == "message" && e.source == "agent" && e.text != "":
		b.lastText = e.text
	case main && e.action == "message" && e.source == "user" && e.text != "" && b.s.Prompt == "":
		// The first user message is the task in the user's words.
		b.s.Prompt = strings.TrimSpace(e.text)
	}
	if e.fn == "" && !(ohV0ToolActions[e.action] && e.source != "user" && e.source != "environment") {
		return
	}
	c := ToolCall{Name: e.fn, ID: e.toolCallID}
	if c.Name == "" {
		c.Name = e.action
	}
	if c.ID == "" && e.hasID {
		c.ID = strconv.FormatInt(e.id, 10)
	}
	c.Arguments = jsonArgs(e.args)
	for _, mc := range e.modelCalls {
		if mc.id == e.toolCallID || len(e.modelCalls) == 1 && e.toolCallID == "" {
			if mc.args != nil {
				c.Arguments = mc.args
			}
			break
		}
	}
	c.Time, _ = atifParseTime(e.timestamp)
	c.CumulativeTokens = b.cum.cumulative()
	if len(b.delegates) > 0 {
		c.Subagent = true
		c.ParentID = b.delegates[len(b.delegates)-1].id
	}
	i := b.s.AddCall(c)
	if b.done != nil {
		b.callTokens = append(b.callTokens, c.CumulativeTokens)
		b.anyCallTokens = b.anyCallTokens || c.CumulativeTokens != nil
	}
	if e.hasID {
		b.byEvent[e.id] = i
	}
	if e.toolCallID != "" {
		b.byToolCall[e.toolCallID] = i
	}
	if e.action == "delegate" {
		b.delegates = append(b.delegates, ohDelegate{i: i, id: c.ID})
	}
}

// message keeps what an action says: a message's content (the user's or
// the agent's), the thought the model wrote with any other action of the
// agent, and a finish action's final thought.
func (b *ohV0Builder) message() {
	e := &b.ev
	t, _ := atifParseTime(e.timestamp)
	sub := len(b.delegates) > 0
	switch {
	case e.action == "message" && e.source == "user":
		b.s.AddMessage(RoleUser, KindText, e.text, t, sub)
	case e.action == "message" && e.source == "agent":
		b.s.AddMessage(RoleAssistant, KindText, cmp.Or(e.text, e.thought), t, sub)
	case e.source == "agent":
		b.s.AddMessage(RoleAssistant, KindText, e.thought, t, sub)
		if e.finalThought != e.thought {
			b.s.AddMessage(RoleAssistant, KindText, e.finalThought, t, sub)
		}
	}
}

func (b *ohV0Builder) observation() {
	e := &b.ev
	i, ok := -1, false
	if e.hasCause {
		i, ok = b.byEvent[e.cause]
	}
	if !ok && e.toolCallID != "" {
		i, ok = b.byToolCall[e.toolCallID]
	}
	if e.obs == "delegate" {
		// The delegate observation ends the sub-agent it answers, or the
		// innermost one when it names none.
		for k := len(b.delegates) - 1; k >= 0; k-- {
			if !ok || b.delegates[k].i == i {
				b.delegates = b.delegates[:k]
				break
			}
		}
	}
	if !ok {
		return
	}
	// nil: answered already, handed over and dropped.
	c := b.s.Call(i)
	if c == nil || c.HasResult {
		return
	}
	c.Result, c.HasResult = e.content, true
	c.IsError = e.obs == "error" || e.obs == "user_rejected" || e.hasExit && e.exitCode != 0
	delete(b.byToolCall, c.ID)
	if e.hasCause {
		delete(b.byEvent, e.cause)
	}
	if b.done != nil {
		handOver(b.s, i, b.done)
	}
}

// finish sets what the session learns from the whole list.
func (b *ohV0Builder) finish() {
	if b.cum.set {
		u := b.cum.usage()
		b.s.Usage = &u
	}
	b.s.Answer = b.answer
	if b.s.Answer == "" {
		b.s.Answer = b.lastText
	}
}

// parseValue reads the event the scanner is at into b.ev, leaving any
// problem in the scanner.
func (b *ohV0Builder) parseValue() {
	e := &b.ev
	*e = ohV0Event{modelCalls: e.modelCalls[:0]}
	r := &b.rec
	sc := &r.sc
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			e.id, e.hasID = r.int("id")
		case "timestamp":
			e.timestamp = r.str("timestamp")
		case "source":
			e.source = r.str("source")
		case "action":
			e.action = r.str("action")
			e.isAction = true
		case "observation":
			e.obs = r.str("observation")
			e.isObs = true
		case "cause":
			e.cause, e.hasCause = r.int("cause")
		case "content":
			e.content, e.hasContent = r.text("content", b.max)
		case "args":
			b.args()
		case "extras":
			b.extras()
		case "tool_call_metadata":
			b.toolCallMetadata()
		case "llm_metrics":
			b.llmMetrics()
		default:
			sc.Skip()
		}
	}
}

// check reports an event that parsed but makes no sense.
func (b *ohV0Builder) check() error {
	if b.ev.isAction && b.ev.isObs {
		return errors.New(`the event has both "action" and "observation"`)
	}
	return nil
}

func (b *ohV0Builder) args() {
	r := &b.rec
	sc := &r.sc
	if sc.Peek() != jsonscan.Object {
		b.ev.args = r.objectRaw("args")
		return
	}
	raw := sc.Raw()
	b.ev.args = raw
	// A second pass over the object picks the texts that make the answer.
	var sub jsonscan.Scanner
	sub.Reset(raw)
	sub.Object()
	for key, ok := sub.NextKey(); ok; key, ok = sub.NextKey() {
		switch string(key) {
		case "final_thought", "content", "thought":
			if sub.Peek() != jsonscan.String {
				sub.Skip()
				continue
			}
			s, _ := sub.AppendString(nil, -1)
			switch string(key) {
			case "content":
				b.ev.text = string(s)
			case "thought":
				b.ev.thought = string(s)
			default:
				b.ev.finalThought = string(s)
			}
		default:
			sub.Skip()
		}
	}
}

func (b *ohV0Builder) extras() {
	r := &b.rec
	sc := &r.sc
	if !r.object("extras") {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) != "metadata" {
			sc.Skip()
			continue
		}
		if !r.object("extras.metadata") {
			continue
		}
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "exit_code":
				b.ev.exitCode, b.ev.hasExit = r.int("extras.metadata.exit_code")
			case "working_dir":
				b.ev.workingDir = r.str("extras.metadata.working_dir")
			default:
				sc.Skip()
			}
		}
	}
}

func (b *ohV0Builder) toolCallMetadata() {
	r := &b.rec
	sc := &r.sc
	if !r.object("tool_call_metadata") {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "function_name":
			b.ev.fn = r.str("tool_call_metadata.function_name")
		case "tool_call_id":
			b.ev.toolCallID = r.str("tool_call_metadata.tool_call_id")
		case "model_response":
			b.modelResponse()
		default:
			sc.Skip()
		}
	}
}

// modelResponse reads the model name and the tool calls of a recorded
// LiteLLM response: choices[].message.tool_calls[].{id, function}.
func (b *ohV0Builder) modelResponse() {
	r := &b.rec
	sc := &r.sc
	const f = "tool_call_metadata.model_response"
	if !r.object(f) {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "model":
			b.ev.model = r.str(f + ".model")
		case "choices":
			if !r.array(f + ".choices") {
				continue
			}
			for sc.NextElem() {
				if !r.object(f + ".choices[]") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) != "message" {
						sc.Skip()
						continue
					}
					if !r.object(f + ".choices[].message") {
						continue
					}
					for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
						if string(key) != "tool_calls" {
							sc.Skip()
							continue
						}
						b.ev.modelCalls = ohReadToolCalls(r, &ohV0ToolCallFields, b.ev.modelCalls)
					}
				}
			}
		default:
			sc.Skip()
		}
	}
}

// ohToolCallFields names the fields of a tool_calls array in errors; they
// are spelled out once so that reading joins no strings.
type ohToolCallFields struct{ list, elem, id, function, name, arguments string }

func ohToolCallFieldsAt(f string) ohToolCallFields {
	return ohToolCallFields{f, f + "[]", f + "[].id", f + "[].function", f + "[].function.name", f + "[].function.arguments"}
}

var (
	ohV0ToolCallFields = ohToolCallFieldsAt("tool_call_metadata.model_response.choices[].message.tool_calls")
	sweToolCallFields  = ohToolCallFieldsAt("tool_calls")
)

// ohReadToolCalls appends the calls of a tool_calls array in the OpenAI
// shape, [{id, function: {name, arguments}}], to calls: a V0 event's model
// response and a SWE-agent history message hold one. Arguments may be a
// JSON text in a string or the object itself.
func ohReadToolCalls(r *jsonRec, f *ohToolCallFields, calls []ohModelCall) []ohModelCall {
	sc := &r.sc
	if !r.array(f.list) {
		return calls
	}
	for sc.NextElem() {
		if !r.object(f.elem) {
			continue
		}
		var mc ohModelCall
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "id":
				mc.id = r.str(f.id)
			case "function":
				if !r.object(f.function) {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					switch string(key) {
					case "name":
						mc.name = r.str(f.name)
					case "arguments":
						if sc.Peek() == jsonscan.String {
							mc.args = jsonArgsText(r.str(f.arguments))
						} else {
							mc.args = jsonArgs(sc.Raw())
						}
					default:
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
		calls = append(calls, mc)
	}
	return calls
}

func (b *ohV0Builder) llmMetrics() {
	r := &b.rec
	sc := &r.sc
	if !r.object("llm_metrics") {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) != "accumulated_token_usage" {
			sc.Skip()
			continue
		}
		b.ev.usage = ohReadUsage(r, "llm_metrics.accumulated_token_usage")
	}
}

// ohReadUsage reads an OpenHands TokenUsage object (V0 and V1 share it).
func ohReadUsage(r *jsonRec, f string) ohUsage {
	sc := &r.sc
	var u ohUsage
	if !r.object(f) {
		return u
	}
	u.set = true
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "prompt_tokens":
			u.prompt, _ = r.int(f + ".prompt_tokens")
		case "completion_tokens":
			u.completion, _ = r.int(f + ".completion_tokens")
		case "cache_read_tokens":
			u.cacheRead, _ = r.int(f + ".cache_read_tokens")
		case "cache_write_tokens":
			u.cacheWrite, _ = r.int(f + ".cache_write_tokens")
		default:
			sc.Skip()
		}
	}
	return u
}
