package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// codexExecItem holds the fields of an exec event's item that the reader
// uses. Raw values point into the line.
type codexExecItem struct {
	set                                    bool
	id, typ, command, output, status       lineSpan
	server, tool, query, text, prompt, err lineSpan
	exitCode                               int64
	hasExit                                bool
	changes, arguments, action, items      []byte
	receivers                              []byte
	// result is an MCP result's text: its text content joined with "\n",
	// or its structured content as JSON when it has no text.
	result lineSpan
}

// codexExecLine holds the fields of one exec event.
type codexExecLine struct {
	typ, threadID lineSpan
	usage         codexUsage
	item          codexExecItem
}

// codexExecReader builds a Session from a codex exec --json stream.
type codexExecReader struct {
	sess *Session
	opts Options
	s    codexScan
	line codexExecLine

	records int
	items   map[string]int // item id → index of its call
	// plans holds the calls made from the todo list item, which are
	// closed when the item completes.
	plans  map[string][]int
	names  map[string]string
	turn   []int // calls of the current turn
	tokens []int64
	total  codexUsage
	answer string
}

func codexReadExec(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	name := CodexExecJSON{}.Name()
	er := &codexExecReader{
		sess:  &Session{Format: name, Source: opts.Source, Agent: "codex", Calls: []ToolCall{}, skipMessages: opts.SkipMessages},
		opts:  opts,
		items: map[string]int{},
		plans: map[string][]int{},
		names: map[string]string{},
	}
	objects, err := codexLines(r, er.sess, name, &er.s, er, er.opts.MaxResultBytes)
	if err != nil {
		return nil, err
	}
	if er.records == 0 {
		return nil, codexNoRecords(er.sess, opts.Source, "codex exec --json stream", "an event with type thread.started, turn.*, item.* or error", objects)
	}
	codexSetTokens(er.sess, er.tokens)
	er.sess.Answer = er.answer
	if er.total.set {
		u := er.total.usage()
		er.sess.Usage = &u
	}
	return er.sess, nil
}

func (r *codexExecReader) parse(line []byte) {
	l := &r.line
	*l = codexExecLine{}
	s := &r.s
	s.reset(line)
	if !s.sc.Object() {
		return
	}
	for key, ok := s.sc.NextKey(); ok; key, ok = s.sc.NextKey() {
		switch string(key) {
		case "type":
			l.typ = s.str("type")
		case "thread_id":
			l.threadID = s.str("thread_id")
		case "usage":
			l.usage = s.readUsage("usage")
		case "item":
			r.item()
		default:
			s.sc.Skip()
		}
	}
	s.sc.End()
}

// item reads an event's item.
func (r *codexExecReader) item() {
	s := &r.s
	sc := &s.sc
	it := &r.line.item
	if !s.object("item") {
		return
	}
	it.set = true
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			// A web_search item repeats the key with the search's own id
			// (Codex flattens both structs into one object); the item id
			// comes first.
			if id := s.str("item.id"); !it.id.set {
				it.id = id
			}
		case "type":
			it.typ = s.str("item.type")
		case "command":
			it.command = s.str("item.command")
		case "aggregated_output":
			it.output = s.str("item.aggregated_output")
		case "exit_code":
			it.exitCode, it.hasExit = s.integer("item.exit_code")
		case "status":
			it.status = s.str("item.status")
		case "server":
			it.server = s.str("item.server")
		case "tool":
			it.tool = s.str("item.tool")
		case "query":
			it.query = s.str("item.query")
		case "text":
			it.text = s.str("item.text")
		case "prompt":
			it.prompt = s.str("item.prompt")
		case "changes":
			it.changes = sc.Raw()
		case "arguments":
			it.arguments = sc.Raw()
		case "action":
			it.action = sc.Raw()
		case "items":
			it.items = sc.Raw()
		case "receiver_thread_ids":
			it.receivers = sc.Raw()
		case "result":
			r.mcpResult()
		case "error":
			if s.object("item.error") {
				for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
					if string(k) == "message" {
						it.err = s.str("item.error.message")
					} else {
						sc.Skip()
					}
				}
			}
		default:
			sc.Skip()
		}
	}
}

// mcpResult reads an MCP call's result {content: [...], structured_content}.
func (r *codexExecReader) mcpResult() {
	s := &r.s
	sc := &s.sc
	it := &r.line.item
	if !s.object("item.result") {
		return
	}
	start := len(s.arena)
	var structured []byte
	texts := 0
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "content":
			if !s.array("item.result.content") {
				break
			}
			for sc.NextElem() {
				if sc.Peek() != jsonscan.Object {
					sc.Skip()
					continue
				}
				sc.Object()
				for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
					// Only text blocks have a text field.
					if string(k) != "text" || sc.Peek() != jsonscan.String {
						sc.Skip()
						continue
					}
					if texts > 0 {
						s.arena = append(s.arena, '\n')
					}
					s.arena, _ = sc.AppendString(s.arena, -1)
					texts++
				}
			}
		case "structured_content":
			structured = sc.Raw()
		default:
			sc.Skip()
		}
	}
	if texts == 0 && structured != nil && string(structured) != "null" {
		s.arena = append(s.arena, structured...)
	}
	it.result = lineSpan{off: start, end: len(s.arena), set: true}
}

// apply adds what one parsed event says to the session.
func (r *codexExecReader) apply(n int) {
	s := &r.s
	l := &r.line
	if !l.typ.set {
		r.sess.Warnf(n, "not a codex exec event: missing field type; line skipped")
		return
	}
	typ := s.text(l.typ)
	switch typ {
	case "thread.started":
		r.records++
		if r.sess.ID == "" && l.threadID.set {
			r.sess.ID = s.text(l.threadID)
		}
	case "turn.started", "turn.failed", "error", "item.plan.delta", "request_user_input":
		r.records++
	case "turn.completed":
		r.records++
		// The usage is the thread's running total, which only grows.
		if l.usage.set && (!r.total.set || l.usage.usage().Total() >= r.total.usage().Total()) {
			r.total = l.usage
		}
		if r.total.set {
			total := r.total.usage().Total()
			for _, i := range r.turn {
				r.tokens[i] = total
			}
		}
		r.turn = r.turn[:0]
	case "item.started", "item.updated", "item.completed":
		r.records++
		if !l.item.set {
			r.sess.Warnf(n, "%s event without an item object; line skipped", typ)
			return
		}
		r.onItem(n, typ)
	default:
		r.sess.Warnf(n, "not a codex exec event: type %q; line skipped", typ)
	}
}

// onItem reads an item event: the first event of a tool item adds its call,
// and its completion gives the result.
func (r *codexExecReader) onItem(n int, event string) {
	s := &r.s
	it := &r.line.item
	id := s.text(it.id)
	kind := s.text(it.typ)
	switch kind {
	case "agent_message":
		if event == "item.completed" && it.text.set {
			r.answer = s.text(it.text)
			r.sess.addMessageBytes(RoleAssistant, KindText, s.bytes(it.text), time.Time{}, false)
		}
		return
	case "reasoning":
		// The stream has no user message: the prompt was codex exec's
		// argument.
		if event == "item.completed" && it.text.set {
			r.sess.addMessageBytes(RoleAssistant, KindReasoning, s.bytes(it.text), time.Time{}, false)
		}
		return
	case "todo_list":
		r.plan(event, id)
		return
	case "command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call":
	default:
		return // reasoning, error and plan items are no tool calls
	}
	i, known := r.items[id]
	if !known || id == "" {
		name, args := r.call(kind)
		i = r.add(id, name, args)
	} else if kind == "file_change" && it.changes != nil {
		// The changes grow while the patch is applied.
		r.sess.Calls[i].Arguments = r.args("changes", it.changes)
	}
	if event != "item.completed" {
		return
	}
	c := &r.sess.Calls[i]
	if c.HasResult {
		r.sess.Warnf(n, "second item.completed for item %q; ignored", id)
		return
	}
	// At the end of a turn Codex completes the items that never finished
	// with the status they had, in_progress: they have no result.
	status := s.text(it.status)
	if status == "in_progress" {
		return
	}
	c.HasResult = true
	c.IsError = status == "failed" || status == "declined"
	var out []byte
	switch kind {
	case "command_execution":
		out = s.bytes(it.output)
		c.IsError = c.IsError || it.hasExit && it.exitCode != 0
	case "mcp_tool_call":
		out = s.bytes(it.result)
		if it.err.set {
			out = s.bytes(it.err)
			c.IsError = true
		}
	}
	max := r.opts.MaxResultBytes
	if max <= 0 {
		max = -1
	}
	c.Result = string(cutUTF8(out, max))
}

// call names a tool item's call and builds its arguments, as a rollout
// would record the tool (see CodexExecJSON).
func (r *codexExecReader) call(kind string) (string, []byte) {
	s := &r.s
	it := &r.line.item
	switch kind {
	case "command_execution":
		return "shell", r.args("command", codexJSONString(s.bytes(it.command)))
	case "file_change":
		return "apply_patch", r.args("changes", it.changes)
	case "mcp_tool_call":
		args := it.arguments
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		if !it.server.set && !it.tool.set {
			return kind, bytes.Clone(args)
		}
		return r.intern(s.bytes(it.server), "__", s.bytes(it.tool)), bytes.Clone(args)
	case "web_search":
		if len(it.action) > 0 && it.action[0] == '{' && bytes.Contains(it.action, []byte(`"query"`)) {
			return "web_search", bytes.Clone(it.action)
		}
		return "web_search", r.args("query", codexJSONString(s.bytes(it.query)))
	default: // collab_tool_call
		args := []byte("{")
		if it.prompt.set {
			args = append(append(args, `"prompt":`...), codexJSONString(s.bytes(it.prompt))...)
		}
		if len(it.receivers) > 0 && it.receivers[0] == '[' {
			if len(args) > 1 {
				args = append(args, ',')
			}
			args = append(append(args, `"receiver_thread_ids":`...), it.receivers...)
		}
		if !it.tool.set {
			return kind, append(args, '}')
		}
		return r.intern(s.bytes(it.tool), "", nil), append(args, '}')
	}
}

// plan reads a todo_list event. Codex updates the list once per call of
// its plan tool: the start and each update are one update_plan call, and
// the item's completion (at the end of the turn) closes them.
func (r *codexExecReader) plan(event, id string) {
	it := &r.line.item
	if event == "item.completed" {
		for _, i := range r.plans[id] {
			r.sess.Calls[i].HasResult = true
		}
		delete(r.plans, id)
		return
	}
	i := r.add("", "update_plan", r.args("items", it.items))
	r.sess.Calls[i].ID = id
	r.plans[id] = append(r.plans[id], i)
}

// add appends a call of the current turn.
func (r *codexExecReader) add(id, name string, args []byte) int {
	i := r.sess.AddCall(ToolCall{ID: id, Name: name, Arguments: args})
	if id != "" {
		r.items[id] = i
	}
	r.turn = append(r.turn, i)
	r.tokens = append(r.tokens, -1)
	return i
}

// args builds {"key": value} from a raw JSON value; a missing or null
// value gives {}.
func (r *codexExecReader) args(key string, value []byte) []byte {
	if len(value) == 0 || string(value) == "null" {
		return []byte("{}")
	}
	b := make([]byte, 0, len(key)+len(value)+5)
	b = append(b, '{', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	b = append(b, value...)
	return append(b, '}')
}

// intern returns a+sep+b as a string shared by every call of that name.
func (r *codexExecReader) intern(a []byte, sep string, b []byte) string {
	key := append(append(slices.Clip(a), sep...), b...)
	name, ok := r.names[string(key)]
	if !ok {
		name = string(key)
		r.names[name] = name
	}
	return name
}

// codexJSONString encodes s as a JSON string (without HTML escaping, as
// Codex writes it).
func codexJSONString(s []byte) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(string(s))
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}
