package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// OpenHandsV1 reads a conversation of the OpenHands V1 agent SDK (the
// OpenHands CLI and app since 1.0): the folder that the SDK persists for a
// conversation, or its events as JSON Lines or a JSON array.
//
// # Format
//
// The folder (~/.openhands/conversations/<id>/, or the persistence_dir given
// to Conversation) holds base_state.json (conversation id, agent with
// llm.model and tools, workspace.working_dir, stats) and one file per event,
// events/event-NNNNN-<event id>.json, read in the numeric order of NNNNN.
// Each event is an object with a "kind":
//
//	{"kind": "ActionEvent", "id": "…", "timestamp": "2026-06-16T05:39:48.701247",
//	 "source": "agent", "tool_name": "terminal", "tool_call_id": "call_1",
//	 "tool_call": {"id": "call_1", "name": "terminal", "arguments": "{\"command\": \"ls\"}"},
//	 "action": {"kind": "TerminalAction", "command": "ls"}, "llm_response_id": "…"}
//	{"kind": "ObservationEvent", "tool_name": "terminal", "tool_call_id": "call_1",
//	 "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": "…"}],
//	                 "is_error": false, "exit_code": 0}}
//
// An ActionEvent is a call named by tool_name (terminal, file_editor,
// task_tracker, think, finish, …; execute_bash and str_replace_editor in
// early versions), with the model's arguments (tool_call.arguments) or,
// when absent, the action's fields without "kind". Its result is the
// ObservationEvent, AgentErrorEvent or UserRejectObservation with the same
// tool_call_id; the text parts of observation.content are joined with
// newlines. observation.is_error, a non-zero exit_code, an AgentErrorEvent
// and a rejection mark the result as an error.
//
// Tokens come from ConversationStateUpdateEvent events whose key is
// "stats": a running total per LLM (usage_to_metrics.<usage id>.
// accumulated_token_usage). A call's CumulativeTokens is prompt_tokens +
// completion_tokens of the latest totals before it, summed over the LLMs
// (the agent's and the condenser's); Session.Usage is the total of
// base_state.json, else of the last update. As in V0, prompt_tokens already
// includes cached tokens.
//
// Sub-agents started by the delegate tool persist their own conversations
// under subagents/<id>/ in the folder; their calls are read as the
// sub-agent's (Subagent, ParentID = the delegate call that started them,
// the last one issued before the sub-conversation's first event), and
// placed after that call.
type OpenHandsV1 struct{}

// Name returns "openhands-v1".
func (OpenHandsV1) Name() string { return "openhands-v1" }

// Info describes the format.
func (OpenHandsV1) Info() FormatInfo {
	return FormatInfo{
		Writer:    "OpenHands V1 agent SDK and CLI (every conversation is persisted; Conversation(persistence_dir=…))",
		Detection: `a folder with events/event-NNNNN-<id>.json files or base_state.json; a file of JSON Lines (or a JSON array) of objects with a "kind" ending in "Event" and a "source"`,
		Example:   "~/.openhands/conversations/<id>/",
	}
}

// ohV1IsEventKind reports whether kind names a V1 event class.
func ohV1IsEventKind(kind string) bool {
	return strings.HasSuffix(kind, "Event") || kind == "UserRejectObservation" || kind == "Condensation" || kind == "CondensationRequest"
}

// Detect reports whether prefix starts JSON Lines or a JSON array of V1
// events.
func (OpenHandsV1) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if prefix[0] == '[' {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return false
		}
	} else if prefix[0] != '{' {
		return false
	}
	var kind string
	var source bool
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	// The walk ends quietly where a prefix cuts the object.
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok {
		case "kind":
			tok, _ = dec.Token()
			var ok bool
			if kind, ok = tok.(string); !ok {
				return false // a kind that is not a string
			}
			continue
		case "source":
			source = true
		}
		if atifSkipDecoder(dec) != nil {
			break
		}
	}
	return source && ohV1IsEventKind(kind)
}

// Read reads V1 events from JSON Lines, or from a JSON array.
func (OpenHandsV1) Read(r io.Reader, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	s := &Session{Format: "openhands-v1", Source: src, Agent: "openhands"}
	b := newOHV1Builder(s, opts.MaxResultBytes)
	br := bufio.NewReaderSize(r, 1<<16)
	first, _ := br.Peek(1 << 10)
	if t := trimLeading(first); len(t) > 0 && t[0] == '[' {
		cut, summary := cutDocument(br, opts)
		defer warnCut(s, summary)
		d := newJSONDoc(cut)
		if _, err := d.Open(); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		err := ohReadEvents(d, func(raw []byte, line int) { b.event(raw, src, line) })
		if err != nil {
			var de *jsonDocError
			if !errors.As(err, &de) || b.events == 0 {
				return nil, fmt.Errorf("%s: reading OpenHands events: %w", src, err)
			}
			s.Warnf(de.Line, "event list is cut short or malformed (%v); kept the %d events read before it", de.Err, b.events)
		}
	} else {
		lr := newLineReader(br)
		lr.skip = func(n int, msg string) { s.Warnf(n, "%s", msg) }
		lr.cutLongLines(opts.MaxResultBytes, lr.skip)
		for {
			line, n, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", src, n+1, err)
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			b.event(line, src, n)
		}
	}
	if b.events == 0 {
		return nil, fmt.Errorf("%s: not OpenHands V1 events: no line is an event object with a \"kind\"", src)
	}
	b.finish(nil)
	return s, nil
}

// DetectDir reports whether the folder holds a V1 conversation: event files
// under events/, or a base_state.json.
func (OpenHandsV1) DetectDir(fsys fs.FS) bool {
	if _, err := fs.Stat(fsys, "base_state.json"); err == nil {
		return true
	}
	return ohV1HasEventFile(fsys, "events")
}

// ReadDir reads a conversation folder. An event file that is not a JSON
// object (one being written when the agent was stopped) is skipped with a
// warning naming it.
//
// A folder of one event a file holds as many files as events: with
// Options.CallDone, each call is handed over once its result is read (the
// calls left without one at the end), so that a long conversation holds
// only the calls waiting for their result. A folder with sub-agent
// conversations is handed over once read, as its calls are numbered only
// once the sub-agents' are placed among them.
func (OpenHandsV1) ReadDir(fsys fs.FS, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "."
	}
	s := &Session{Format: "openhands-v1", Source: src, Agent: "openhands", skipMessages: opts.SkipMessages}
	entries, subErr := fs.ReadDir(fsys, "subagents")
	var done func(*Session, int) bool
	if opts.CallDone != nil && subErr != nil {
		done = opts.CallDone
		if opts.DropReleased {
			s.dropReleased()
		}
	}
	b, err := ohV1ReadConversation(fsys, ".", src, s, &opts, done)
	if err != nil {
		return nil, err
	}
	if done != nil {
		b.finish(nil)
		var tokens []*int64
		if b.anyCallTokens {
			tokens = b.callTokens
		}
		s.finishHandOver(func(i int) { handOver(s, i, done) }, tokens)
		return s, nil
	}
	var subs []*ohV1Builder
	if subErr == nil {
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			dir := path.Join("subagents", e.Name())
			sub := &Session{Source: path.Join(src, dir)}
			sb, err := ohV1ReadConversation(fsys, dir, sub.Source, sub, &opts, nil)
			if errors.Is(err, input.ErrTooLarge) {
				return nil, err
			}
			if err != nil {
				s.Warnf(0, "skipped the sub-agent conversation %s: %v", dir, err)
				continue
			}
			s.AddWarnings(sub)
			subs = append(subs, sb)
		}
	}
	b.finish(subs)
	return s, nil
}

// ohV1ReadConversation reads base_state.json and the event files of the
// conversation stored in dir; done, when set, is handed each call once
// its result is read.
func ohV1ReadConversation(fsys fs.FS, dir, src string, s *Session, opts *Options, done func(*Session, int) bool) (*ohV1Builder, error) {
	b := newOHV1Builder(s, opts.MaxResultBytes)
	b.done = done
	state, stateErr := opts.readFS(fsys, path.Join(dir, "base_state.json"))
	switch {
	case stateErr == nil:
		b.baseState(state, path.Join(src, "base_state.json"))
	case errors.Is(stateErr, input.ErrTooLarge):
		return nil, stateErr
	case !errors.Is(stateErr, fs.ErrNotExist):
		s.Warn(Warning{Source: path.Join(src, "base_state.json"), Message: "skipped the conversation state: " + stateErr.Error()})
	}
	files := ohV1ListEventFiles(fsys, path.Join(dir, "events"))
	if files.len() == 0 && stateErr != nil {
		return nil, fmt.Errorf("%s: not an OpenHands V1 conversation: no base_state.json and no events/event-NNNNN-<id>.json file", src)
	}
	for k := range files.len() {
		fname := files.name(k)
		name := path.Join(dir, "events", fname)
		data, err := opts.readFS(fsys, name)
		if errors.Is(err, input.ErrTooLarge) {
			return nil, err
		}
		if err != nil {
			s.Warn(Warning{Source: path.Join(src, "events", fname), Message: "skipped the event file: " + err.Error()})
			continue
		}
		b.event(data, path.Join(src, "events", fname), 1)
	}
	return b, nil
}

// ohV1Event holds the fields of one V1 event the reader uses.
type ohV1Event struct {
	kind, id, timestamp, source string
	toolName, toolCallID        string
	callArgs                    json.RawMessage // tool_call.arguments
	action                      []byte          // the action object
	result                      string
	hasResult, isError          bool
	exitCode                    int64
	hasExit                     bool
	text                        string // a MessageEvent's text
	thought, reasoning          string // an ActionEvent's thought and reasoning_content
	role                        string
	stats                       bool // a ConversationStateUpdateEvent with key "stats"
	statsTotal                  ohUsage
}

// ohV1Builder turns V1 events into calls.
type ohV1Builder struct {
	s        *Session
	max      int
	rec      jsonRec
	ev       ohV1Event
	pending  map[string]int
	cum      ohUsage
	total    ohUsage // base_state.json stats
	lastText string
	// lastThought and lastReasoning are the last action's, kept once.
	lastThought, lastReasoning string
	events                     int
	// firstTime is the timestamp of the first event, to place a
	// sub-conversation after the delegate call that started it.
	firstTime string
	// done, when set, is handed each call once its result is read.
	done func(*Session, int) bool
	// callTokens holds the CumulativeTokens of every call by index, for a
	// session that drops its calls as it hands them over.
	callTokens    []*int64
	anyCallTokens bool
}

func newOHV1Builder(s *Session, max int) *ohV1Builder {
	if max <= 0 {
		max = -1
	}
	return &ohV1Builder{s: s, max: max, pending: map[string]int{}}
}

// event reads one event; a malformed one is skipped with a warning naming
// where it came from.
func (b *ohV1Builder) event(raw []byte, src string, line int) {
	if err := b.parse(raw); err != nil {
		b.s.Warn(Warning{Source: src, Line: line, Message: "skipped an OpenHands event: " + err.Error()})
		return
	}
	b.events++
	e := &b.ev
	if b.firstTime == "" {
		b.firstTime = e.timestamp
	}
	t, ok := atifParseTime(e.timestamp)
	if !ok && e.timestamp != "" {
		b.s.Warn(Warning{Source: src, Line: line, Message: fmt.Sprintf("timestamp %q is not ISO 8601; the event has no time", e.timestamp)})
	}
	b.s.NoteTime(t)
	switch e.kind {
	case "ConversationStateUpdateEvent":
		if e.stats {
			b.cum = e.statsTotal
		}
	case "MessageEvent":
		if e.role == "assistant" && e.text != "" {
			b.lastText = e.text
		}
		role := RoleAssistant
		if e.role == "user" || e.source == "user" {
			role = RoleUser
		}
		b.s.AddMessage(role, KindText, e.text, t, false)
	case "ActionEvent":
		// Several actions of one model turn repeat its thought and
		// reasoning: the first of them carries them.
		if e.reasoning != b.lastReasoning {
			b.s.AddMessage(RoleAssistant, KindReasoning, e.reasoning, t, false)
			b.lastReasoning = e.reasoning
		}
		if e.thought != b.lastThought {
			b.s.AddMessage(RoleAssistant, KindText, e.thought, t, false)
			b.lastThought = e.thought
		}
		c := ToolCall{ID: e.toolCallID, Name: e.toolName, Arguments: e.callArgs, Time: t}
		if c.Arguments == nil {
			c.Arguments = ohV1ActionArgs(e.action)
		}
		c.CumulativeTokens = b.cum.cumulative()
		i := b.s.AddCall(c)
		if b.done != nil {
			b.callTokens = append(b.callTokens, c.CumulativeTokens)
			b.anyCallTokens = b.anyCallTokens || c.CumulativeTokens != nil
		}
		if e.toolCallID != "" {
			b.pending[e.toolCallID] = i
		}
	case "ObservationEvent", "AgentErrorEvent", "UserRejectObservation":
		i, ok := b.pending[e.toolCallID]
		if !ok || !e.hasResult {
			return
		}
		delete(b.pending, e.toolCallID)
		c := b.s.Call(i)
		c.Result, c.HasResult = e.result, true
		c.IsError = e.isError || e.hasExit && e.exitCode != 0
		if b.done != nil {
			handOver(b.s, i, b.done)
		}
	}
}

// ohV1ActionArgs returns an action object without its "kind".
func ohV1ActionArgs(action []byte) json.RawMessage {
	if len(action) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(action, &m) != nil {
		return nil
	}
	delete(m, "kind")
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// finish sets the session's answer and usage and merges the sub-agents'
// calls after the delegate calls that started them.
func (b *ohV1Builder) finish(subs []*ohV1Builder) {
	switch {
	case b.total.set:
		u := b.total.usage()
		b.s.Usage = &u
	case b.cum.set:
		u := b.cum.usage()
		b.s.Usage = &u
	}
	b.s.Answer = b.lastText
	if len(subs) == 0 {
		return
	}
	slices.SortStableFunc(subs, func(x, y *ohV1Builder) int { return strings.Compare(x.firstTime, y.firstTime) })
	after := map[int][]*ohV1Builder{} // index of the delegate call → sub-agents
	for _, sub := range subs {
		parent := -1
		first, _ := atifParseTime(sub.firstTime)
		for i, c := range b.s.Calls {
			if c.Name == "delegate" && (first.IsZero() || c.Time.IsZero() || !c.Time.After(first)) {
				parent = i
			}
		}
		after[parent] = append(after[parent], sub)
	}
	calls, msgs := b.s.Calls, b.s.Messages
	b.s.Calls = make([]ToolCall, 0, len(calls))
	b.s.Messages = nil
	next := 0 // the main conversation's next message
	// mainMessages places the main conversation's messages that come
	// before call i (of the main agent's calls) before the next call.
	mainMessages := func(i int) {
		for ; next < len(msgs) && msgs[next].Before <= i; next++ {
			m := msgs[next]
			m.Before = len(b.s.Calls)
			b.s.Messages = append(b.s.Messages, m)
		}
	}
	add := func(parent int) {
		for _, sub := range after[parent] {
			base := len(b.s.Calls)
			for _, m := range sub.s.Messages {
				m.Before += base
				m.Subagent = true
				b.s.Messages = append(b.s.Messages, m)
			}
			for _, c := range sub.s.Calls {
				c.Subagent = true
				if parent >= 0 {
					c.ParentID = calls[parent].ID
				}
				c.CumulativeTokens = nil // the sub-agent's LLM counts on its own
				b.s.AddCall(c)
			}
		}
	}
	for i, c := range calls {
		mainMessages(i)
		b.s.AddCall(c)
		add(i)
	}
	mainMessages(len(calls))
	add(-1)
}

// baseState reads the conversation's base_state.json.
func (b *ohV1Builder) baseState(data []byte, src string) {
	r := &b.rec
	sc := &r.sc
	sc.Reset(data)
	var id, model, cwd string
	var tools []string
	var total ohUsage
	if sc.Object() {
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "id":
				id = r.str("id")
			case "agent":
				if !r.object("agent") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					switch string(key) {
					case "llm":
						if !r.object("agent.llm") {
							continue
						}
						for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
							if string(key) == "model" {
								model = r.str("agent.llm.model")
							} else {
								sc.Skip()
							}
						}
					case "tools":
						if !r.array("agent.tools") {
							continue
						}
						for sc.NextElem() {
							if !r.object("agent.tools[]") {
								continue
							}
							for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
								if string(key) == "name" {
									tools = append(tools, r.str("agent.tools[].name"))
								} else {
									sc.Skip()
								}
							}
						}
					default:
						sc.Skip()
					}
				}
			case "workspace":
				if !r.object("workspace") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) == "working_dir" {
						cwd = r.str("workspace.working_dir")
					} else {
						sc.Skip()
					}
				}
			case "stats":
				total = ohV1Stats(r, "stats")
			default:
				sc.Skip()
			}
		}
	}
	sc.End()
	if err := sc.Err(); err != nil {
		b.s.Warn(Warning{Source: src, Message: "ignored base_state.json: " + err.Error()})
		return
	}
	b.s.ID, b.s.Model, b.s.CWD, b.s.Tools, b.total = id, model, cwd, tools, total
}

// ohV1Stats sums the accumulated_token_usage of every LLM of a
// ConversationStats object ({"usage_to_metrics": {"<usage id>": Metrics}}).
func ohV1Stats(r *jsonRec, f string) ohUsage {
	sc := &r.sc
	var total ohUsage
	if !r.object(f) {
		return total
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) != "usage_to_metrics" {
			sc.Skip()
			continue
		}
		if !r.object(f + ".usage_to_metrics") {
			continue
		}
		for _, ok := sc.NextKey(); ok; _, ok = sc.NextKey() {
			if !r.object(f + ".usage_to_metrics.*") {
				continue
			}
			for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
				if string(key) != "accumulated_token_usage" {
					sc.Skip()
					continue
				}
				u := ohReadUsage(r, f+".usage_to_metrics.*.accumulated_token_usage")
				if u.set {
					total.set = true
					total.prompt += u.prompt
					total.completion += u.completion
					total.cacheRead += u.cacheRead
					total.cacheWrite += u.cacheWrite
				}
			}
		}
	}
	return total
}

// parse reads one event into b.ev.
func (b *ohV1Builder) parse(raw []byte) error {
	e := &b.ev
	*e = ohV1Event{}
	r := &b.rec
	sc := &r.sc
	sc.Reset(raw)
	if !sc.Object() {
		return sc.Err()
	}
	var key string
	var value []byte
	for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
		switch string(k) {
		case "kind":
			e.kind = r.str("kind")
		case "id":
			e.id = r.str("id")
		case "timestamp":
			e.timestamp = r.str("timestamp")
		case "source":
			e.source = r.str("source")
		case "tool_name":
			e.toolName = r.str("tool_name")
		case "tool_call_id":
			e.toolCallID = r.str("tool_call_id")
		case "tool_call":
			if !r.object("tool_call") {
				continue
			}
			for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
				if string(k) != "arguments" {
					sc.Skip()
					continue
				}
				if sc.Peek() == jsonscan.String {
					e.callArgs = jsonArgsText(r.str("tool_call.arguments"))
				} else {
					e.callArgs = jsonArgs(sc.Raw())
				}
			}
		case "action":
			e.action = r.objectRaw("action")
		case "observation":
			b.observation()
		case "error":
			e.result, e.hasResult = r.text("error", b.max)
			e.isError = true
		case "rejection_reason":
			e.result, e.hasResult = r.text("rejection_reason", b.max)
			e.result = "Action rejected: " + e.result
			e.isError = true
		case "llm_message":
			b.message()
		case "thought":
			// Shown, never relied on: a thought of another shape is
			// skipped rather than costing the event.
			if k := sc.Peek(); k == jsonscan.String || k == jsonscan.Array {
				e.thought, _ = r.text("thought", -1)
			} else {
				sc.Skip()
			}
		case "reasoning_content":
			if sc.Peek() == jsonscan.String {
				e.reasoning, _ = r.text("reasoning_content", -1)
			} else {
				sc.Skip()
			}
		case "key":
			key = r.str("key")
		case "value":
			value = sc.Raw()
		default:
			sc.Skip()
		}
	}
	sc.End()
	if err := sc.Err(); err != nil {
		return err
	}
	if e.kind == "" {
		return errors.New(`the event has no "kind"`)
	}
	if e.kind == "UserRejectObservation" && !e.hasResult {
		e.result, e.hasResult, e.isError = "Action rejected", true, true
	}
	if e.kind == "ConversationStateUpdateEvent" && key == "stats" && value != nil {
		var sub jsonRec
		sub.sc.Reset(value)
		e.statsTotal = ohV1Stats(&sub, "value")
		e.stats = e.statsTotal.set && sub.sc.Err() == nil
	}
	return nil
}

// observation reads an observation object: its text content, is_error and
// exit_code.
func (b *ohV1Builder) observation() {
	r := &b.rec
	sc := &r.sc
	e := &b.ev
	if !r.object("observation") {
		return
	}
	e.hasResult = true
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "content":
			e.result, _ = r.text("observation.content", b.max)
		case "is_error":
			e.isError = r.boolean("observation.is_error")
		case "exit_code":
			e.exitCode, e.hasExit = r.int("observation.exit_code")
		default:
			sc.Skip()
		}
	}
}

// message reads a MessageEvent's llm_message: its role and text.
func (b *ohV1Builder) message() {
	r := &b.rec
	sc := &r.sc
	if !r.object("llm_message") {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "role":
			b.ev.role = r.str("llm_message.role")
		case "content":
			b.ev.text, _ = r.text("llm_message.content", -1)
		default:
			sc.Skip()
		}
	}
}
