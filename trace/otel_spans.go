package trace

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// This file turns the spans of one trace into a session: tool calls from
// execute_tool spans and from the tool_call parts of chat messages, joined
// and ordered, with subagents and token counts.

// otelMaxDepth bounds the walks up the span tree, so that a cycle of
// parent ids in hostile input cannot loop.
const otelMaxDepth = 512

// otelTrace indexes the spans of one trace.
type otelTrace struct {
	spans []*otelSpan
	byID  map[string]*otelSpan
	// callOf is the id of the call read from a tool span, for the ParentID
	// of the calls its subagent makes.
	callOf map[*otelSpan]string
}

func (t *otelTrace) parent(sp *otelSpan) *otelSpan {
	if sp.parentID == "" || sp.parentID == sp.spanID {
		return nil
	}
	return t.byID[sp.parentID]
}

func (sp *otelSpan) isTool() bool {
	return sp.op == "execute_tool" || strings.HasPrefix(sp.name, "execute_tool") || sp.name == "claude_code.tool" || sp.oiKind == "TOOL"
}

func (sp *otelSpan) isAgent() bool {
	return sp.op == "invoke_agent" || strings.HasPrefix(sp.name, "invoke_agent") || sp.oiKind == "AGENT"
}

// isGenAI reports whether the span carries anything of the GenAI
// conventions.
func (sp *otelSpan) isGenAI() bool {
	return sp.op != "" || sp.isTool() || sp.isAgent() || sp.hasUsage || sp.inMsgs != "" || sp.outMsgs != "" ||
		sp.reqModel != "" || sp.respModel != "" || sp.oiKind != ""
}

// traceSessions makes one session of each trace id, in the order the
// traces first appear in the file.
func (rd *otelReader) traceSessions() []*Session {
	spans := rd.p.spans
	var order []string
	byTrace := map[string][]*otelSpan{}
	for i := range spans {
		id := spans[i].traceID
		if _, ok := byTrace[id]; !ok {
			order = append(order, id)
		}
		byTrace[id] = append(byTrace[id], &spans[i])
	}
	all := make([]*Session, 0, len(order))
	for _, id := range order {
		all = append(all, rd.traceSession(id, byTrace[id]))
	}
	return all
}

// otelPartCall is a tool call read from a tool_call message part.
type otelPartCall struct {
	id, name  string
	args      json.RawMessage
	time      int64
	chat      *otelSpan // the chat span whose messages hold the part
	result    string
	hasResult bool
	claimed   bool // an execute_tool span describes the same call
}

// otelCall is a call of the session before ordering.
type otelCall struct {
	call  ToolCall
	time  int64
	order int
	from  *otelSpan // the span whose ancestors say whether a subagent made it
}

func (rd *otelReader) traceSession(id string, spans []*otelSpan) *Session {
	s := &Session{Format: "otel", Source: rd.src, ID: id}
	t := &otelTrace{byID: map[string]*otelSpan{}, callOf: map[*otelSpan]string{}}
	dups := 0
	for _, sp := range spans {
		if sp.spanID != "" {
			if _, dup := t.byID[sp.spanID]; dup {
				// An exporter that retried a request writes its spans twice.
				dups++
				continue
			}
			t.byID[sp.spanID] = sp
		}
		t.spans = append(t.spans, sp)
	}
	if dups > 0 {
		s.Warnf(0, "%s: %d spans appear more than once (same span id); each is read once", otelSessionName(id), dups)
	}
	// Spans in start order; the file order breaks ties.
	slices.SortStableFunc(t.spans, func(a, b *otelSpan) int { return cmp.Compare(a.start, b.start) })

	genAI := false
	for _, sp := range t.spans {
		s.NoteTime(otelTime(sp.start))
		genAI = genAI || sp.isGenAI()
	}

	parts, partByID := rd.messageCalls(s, t)
	calls := rd.spanCalls(s, t, parts, partByID)
	for _, pc := range parts {
		if pc.claimed {
			continue
		}
		c := ToolCall{ID: pc.id, Name: pc.name, Arguments: pc.args, Result: pc.result, HasResult: pc.hasResult, Time: otelTime(pc.time)}
		calls = append(calls, otelCall{call: c, time: pc.time, order: len(calls), from: pc.chat})
	}
	slices.SortStableFunc(calls, func(a, b otelCall) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.order, b.order))
	})

	usage, events := t.usage()
	if usage != nil {
		s.Usage = usage
	}
	var used int64
	next := 0
	times := make([]int64, len(calls))
	for i, oc := range calls {
		times[i] = oc.time
		c := oc.call
		c.Subagent, c.ParentID = t.subagent(oc.from)
		if usage != nil {
			for next < len(events) && events[next].time <= oc.time {
				used += events[next].tokens
				next++
			}
			n := used
			c.CumulativeTokens = &n
		}
		s.AddCall(c)
	}

	otelConversation(s, t, times)
	rd.describe(s, t)
	if !genAI {
		s.Warnf(0, "%s: none of its %d spans follows the OpenTelemetry GenAI conventions (no execute_tool span, no gen_ai.* attribute, no OpenInference span kind); it holds no tool calls", otelSessionName(id), len(t.spans))
	}
	return s
}

// spanCalls reads the calls of the execute_tool spans, joining each to the
// message part that describes the same call.
func (rd *otelReader) spanCalls(s *Session, t *otelTrace, parts []*otelPartCall, partByID map[string]*otelPartCall) []otelCall {
	var calls []otelCall
	for _, sp := range t.spans {
		if !sp.isTool() {
			continue
		}
		name := sp.toolName
		if name == "" {
			name = strings.TrimSpace(strings.TrimPrefix(sp.name, "execute_tool"))
		}
		var pc *otelPartCall
		if sp.callID != "" {
			if p := partByID[sp.callID]; p != nil && !p.claimed {
				pc = p
			}
		} else {
			// Without an id, the span is the earliest call of the same tool
			// that a chat span issued before the tool started.
			for _, p := range parts {
				if !p.claimed && p.name == name && (sp.start == 0 || p.time <= sp.start) {
					pc = p
					break
				}
			}
		}
		if name == "" && pc != nil {
			name = pc.name
		}
		if name == "" {
			s.Warnf(sp.line, "%s: tool span %s has no gen_ai.tool.name or tool.name; skipped", otelSessionName(sp.traceID), sp.spanID)
			continue
		}
		c := ToolCall{ID: sp.callID, Name: name, Time: otelTime(sp.start), IsError: sp.statusError || sp.errorType != ""}
		switch {
		case sp.hasArgs:
			c.Arguments = otelArguments(sp.args)
		case sp.hasOIIn:
			c.Arguments = otelArguments(sp.oiInput)
		case pc != nil:
			c.Arguments = pc.args
		case sp.filePath != "":
			c.Arguments, _ = json.Marshal(map[string]string{"file_path": sp.filePath})
		}
		switch {
		case sp.hasResult:
			c.Result, c.HasResult = sp.result, true
		case sp.hasOIOut:
			c.Result, c.HasResult = sp.oiOutput, true
		case pc != nil && pc.hasResult:
			c.Result, c.HasResult = atifClip(pc.result, rd.p.max), true
		case sp.statusError && sp.statusMsg != "":
			c.Result, c.HasResult = sp.statusMsg, true
		}
		if pc != nil {
			pc.claimed = true
			c.ID = cmp.Or(c.ID, pc.id)
		}
		t.callOf[sp] = c.ID
		calls = append(calls, otelCall{call: c, time: sp.start, order: len(calls), from: sp})
	}
	return calls
}

// otelMessage is an element of gen_ai.input.messages or output.messages.
type otelMessage struct {
	Role  string     `json:"role"`
	Parts []otelPart `json:"parts"`
}

type otelPart struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Result    json.RawMessage `json:"result"`
	Content   json.RawMessage `json:"content"`
}

// messageCalls reads the tool_call and tool_call_response parts of the
// chat spans' messages. Output messages come first: a call is issued when
// the chat span that produced it ends; input messages repeat the
// conversation so far, so a call found only there (the span that produced
// it was not exported) is dated by the first span that mentions it.
func (rd *otelReader) messageCalls(s *Session, t *otelTrace) ([]*otelPartCall, map[string]*otelPartCall) {
	var parts []*otelPartCall
	byID := map[string]*otelPartCall{}
	responses := map[string]string{}
	add := func(sp *otelSpan, p otelPart, at int64) {
		if p.Name == "" {
			return
		}
		if p.ID != "" {
			if byID[p.ID] != nil {
				return
			}
		}
		pc := &otelPartCall{id: p.ID, name: p.Name, args: atifArguments(p.Arguments), time: at, chat: sp}
		parts = append(parts, pc)
		if p.ID != "" {
			byID[p.ID] = pc
		}
	}
	respond := func(p otelPart) {
		if p.ID == "" {
			return
		}
		if _, ok := responses[p.ID]; ok {
			return
		}
		raw := p.Response
		if len(raw) == 0 {
			raw = p.Result
		}
		if text, ok := atifText(raw); ok {
			responses[p.ID] = text
		}
	}
	for _, sp := range t.spans {
		if len(sp.oiCalls) > 0 || len(sp.oiToolMsgs) > 0 {
			calls, answers := oiParts(sp)
			end := cmp.Or(sp.end, sp.start)
			for _, p := range calls {
				add(sp, p, end)
			}
			for id, text := range answers {
				if _, ok := responses[id]; !ok {
					responses[id] = text
				}
			}
		}
		if sp.outMsgs == "" && sp.inMsgs == "" {
			continue
		}
		end := sp.end
		if end == 0 {
			end = sp.start
		}
		for _, m := range rd.messages(s, sp, sp.outMsgs, "gen_ai.output.messages") {
			for _, p := range m.Parts {
				switch p.Type {
				case "tool_call":
					add(sp, p, end)
				case "tool_call_response":
					respond(p)
				}
			}
		}
		for _, m := range rd.messages(s, sp, sp.inMsgs, "gen_ai.input.messages") {
			for _, p := range m.Parts {
				switch p.Type {
				case "tool_call":
					if p.ID != "" {
						add(sp, p, sp.start)
					}
				case "tool_call_response":
					respond(p)
				}
			}
		}
	}
	for _, pc := range parts {
		if text, ok := responses[pc.id]; ok && pc.id != "" {
			pc.result, pc.hasResult = atifClip(text, rd.p.max), true
		}
	}
	return parts, byID
}

// messages decodes a messages attribute; one that is not a JSON array of
// messages is a warning.
func (rd *otelReader) messages(s *Session, sp *otelSpan, text, key string) []otelMessage {
	if text == "" || !strings.Contains(text, `"parts"`) {
		return nil
	}
	var msgs []otelMessage
	if err := json.Unmarshal([]byte(text), &msgs); err != nil {
		s.Warnf(sp.line, "%s: span %s: %s is not a JSON array of messages with parts (%s); ignored", otelSessionName(sp.traceID), sp.spanID, key, atifTypeMessage(err))
		return nil
	}
	return msgs
}

// otelArguments turns gen_ai.tool.call.arguments into raw JSON: a string
// that holds a JSON object or array is that value; any other text is a JSON
// string.
func otelArguments(text string) json.RawMessage {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil
	}
	if t[0] == '{' || t[0] == '[' {
		if c := atifCompact([]byte(t)); c != nil {
			return c
		}
	}
	q, _ := json.Marshal(text)
	return q
}

// otelUsageAt is the tokens of one counted span, at its end.
type otelUsageAt struct {
	time   int64
	tokens int64
}

// usage totals the spans that carry token usage, skipping a span whose
// descendants carry usage too (an agent span that sums its model calls),
// and lists them in end order for cumulative counts.
func (t *otelTrace) usage() (*Usage, []otelUsageAt) {
	summed := map[*otelSpan]bool{}
	for _, sp := range t.spans {
		if !sp.hasUsage {
			continue
		}
		a := t.parent(sp)
		for n := 0; a != nil && n < otelMaxDepth && !summed[a]; n++ {
			summed[a] = true
			a = t.parent(a)
		}
	}
	var total Usage
	var events []otelUsageAt
	for _, sp := range t.spans {
		if !sp.hasUsage || summed[sp] {
			continue
		}
		total = total.Add(sp.usage)
		at := sp.end
		if at == 0 {
			at = sp.start
		}
		events = append(events, otelUsageAt{time: at, tokens: sp.usage.Total()})
	}
	if events == nil {
		return nil, nil
	}
	slices.SortStableFunc(events, func(a, b otelUsageAt) int { return cmp.Compare(a.time, b.time) })
	return &total, events
}

// subagent reports whether a call made under span from is a subagent's: it
// runs inside an invoke_agent span that is itself under a tool call (the
// call that started the subagent, whose id is returned) or under another
// invoke_agent span.
func (t *otelTrace) subagent(from *otelSpan) (sub bool, parentID string) {
	var agent *otelSpan
	a := from
	for n := 0; a != nil && n < otelMaxDepth; n++ {
		if a.isAgent() {
			agent = a
			break
		}
		a = t.parent(a)
	}
	if agent == nil {
		return false, ""
	}
	a = t.parent(agent)
	for n := 0; a != nil && n < otelMaxDepth; n++ {
		if a.isTool() {
			return true, t.callOf[a]
		}
		if a.isAgent() {
			sub = true
		}
		a = t.parent(a)
	}
	return sub, ""
}

// describe fills the session's agent, model and answer.
func (rd *otelReader) describe(s *Session, t *otelTrace) {
	var root *otelSpan // the outermost agent span
	for _, sp := range t.spans {
		if !sp.isAgent() {
			continue
		}
		if sub, _ := t.subagent(sp); !sub && t.outerAgent(sp) {
			root = sp
			break
		}
	}
	if root != nil {
		s.Agent = root.agentName
	}
	for _, sp := range t.spans {
		s.Agent = cmp.Or(s.Agent, sp.service)
		s.AgentVersion = cmp.Or(s.AgentVersion, sp.serviceVersion)
		if !sp.isTool() && !sp.isAgent() {
			s.Model = cmp.Or(s.Model, sp.respModel, sp.reqModel)
		}
	}
	for _, sp := range t.spans {
		s.Model = cmp.Or(s.Model, sp.respModel, sp.reqModel)
	}
	// The answer is the text of the main agent's last model output.
	var last *otelSpan
	for _, sp := range t.spans {
		if sp.outMsgs == "" || sp.isAgent() {
			continue
		}
		if sub, _ := t.subagent(sp); sub {
			continue
		}
		if last == nil || sp.end >= last.end {
			last = sp
		}
	}
	if last != nil {
		var msgs []otelMessage
		if json.Unmarshal([]byte(last.outMsgs), &msgs) == nil {
			var texts []string
			for _, m := range msgs {
				for _, p := range m.Parts {
					if p.Type == "text" {
						if text, ok := atifText(p.Content); ok && text != "" {
							texts = append(texts, text)
						}
					}
				}
			}
			s.Answer = strings.Join(texts, "\n")
		}
	}
}

// otelConversation keeps the text and reasoning parts of the chat spans'
// messages: what each model output said, at the end of its span, and the
// user's messages, which every later input repeats, once each, at the start
// of the first span that holds them. callTimes are the session's calls'
// times, in order: a message goes before the first call that is not
// earlier.
func otelConversation(s *Session, t *otelTrace, callTimes []int64) {

	type timed struct {
		at  int64
		msg Message
	}
	var msgs []timed
	seenUser := map[string]bool{}
	add := func(at int64, sp *otelSpan, role, kind string, raw json.RawMessage) {
		text, ok := atifText(raw)
		if !ok || text == "" {
			return
		}
		if role == RoleUser {
			if seenUser[text] {
				return
			}
			seenUser[text] = true
		}
		sub, _ := t.subagent(sp)
		for _, m := range appendMessage(nil, role, kind, text, otelTime(at), sub, 0) {
			msgs = append(msgs, timed{at, m})
		}
	}
	// messageCalls has warned about attributes that are not messages.
	decode := func(text string) (msgs []otelMessage) {
		if strings.Contains(text, `"parts"`) {
			json.Unmarshal([]byte(text), &msgs)
		}
		return msgs
	}
	for _, sp := range t.spans {
		if sp.isAgent() || sp.outMsgs == "" && sp.inMsgs == "" {
			continue
		}
		for _, m := range decode(sp.inMsgs) {
			if m.Role != "user" {
				continue
			}
			for _, p := range m.Parts {
				if p.Type == "text" {
					add(sp.start, sp, RoleUser, KindText, p.Content)
				}
			}
		}
		end := cmp.Or(sp.end, sp.start)
		for _, m := range decode(sp.outMsgs) {
			for _, p := range m.Parts {
				switch p.Type {
				case "reasoning":
					add(end, sp, RoleAssistant, KindReasoning, p.Content)
				case "text":
					add(end, sp, RoleAssistant, KindText, p.Content)
				}
			}
		}
	}
	slices.SortStableFunc(msgs, func(a, b timed) int { return cmp.Compare(a.at, b.at) })
	for _, m := range msgs {
		m.msg.Before, _ = slices.BinarySearch(callTimes, m.at)
		s.Messages = append(s.Messages, m.msg)
	}
}

// outerAgent reports whether no agent span encloses sp.
func (t *otelTrace) outerAgent(sp *otelSpan) bool {
	a := t.parent(sp)
	for n := 0; a != nil && n < otelMaxDepth; n++ {
		if a.isAgent() {
			return false
		}
		a = t.parent(a)
	}
	return true
}

// otelTime converts Unix nanoseconds; 0 is no time.
func otelTime(ns int64) time.Time {
	if ns <= 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
