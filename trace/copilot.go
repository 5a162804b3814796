package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// CopilotChat reads the chat sessions that VS Code keeps for GitHub
// Copilot Chat (ask, edit and agent mode), one file a session:
// <User>/workspaceStorage/<workspace>/chatSessions/<session>.json or .jsonl
// for a window with a folder open, and
// <User>/globalStorage/emptyWindowChatSessions/ for an empty window, where
// <User> is ~/.config/Code/User on Linux, ~/Library/Application
// Support/Code/User on macOS and %APPDATA%\Code\User on Windows (Code -
// Insiders for the Insiders build).
//
// # Format
//
// A session is VS Code's serialized chat model, version 3:
//
//	{"version": 3, "sessionId": "…", "creationDate": 1759845046680,
//	 "requests": [{"requestId": "…", "timestamp": …, "modelId": "copilot/claude-sonnet-4",
//	   "message": {"text": "…"},
//	   "response": [{"kind": "toolInvocationSerialized", "toolId": "copilot_findTextInFiles", "toolCallId": "…"}, …],
//	   "result": {"metadata": {
//	     "toolCallRounds": [{"toolCalls": [{"name": "grep_search", "arguments": "{\"query\": \"…\"}", "id": "toolu_…"}]}],
//	     "toolCallResults": {"toolu_…": {"content": [{"value": {"node": {…}}}]}}}}}]}
//
// Until early 2026 the file is that document (.json). Later versions keep
// it as an operation log (.jsonl): the first line {"kind": 0, "v": {…}}
// holds the whole session, and each later line changes it at the path k
// (an array of keys and indexes): kind 1 sets the value v there, kind 2
// appends the items of v to the array there (first cutting it to length i
// when i is given), kind 3 deletes it. The log is replayed in memory, since
// the session it describes is only known at its end; a line that cannot be
// applied is skipped with a warning. A .json document is read one request
// at a time.
//
// Tool calls are the calls the model made, in the order of each request's
// toolCallRounds, named as the model names them (read_file, grep_search,
// replace_string_in_file) with their JSON arguments; the result of each is
// the entry of toolCallResults under its id, the text of its parts as
// the model received it (a text part's value; a rendered prompt element's
// text pieces, in order, a line break before those that ask for one).
// A result that starts "ERROR" (Copilot's "ERROR while calling tool: …")
// marks the call IsError. A request without toolCallRounds (one cancelled
// before its result was saved, or an older version) gives its
// toolInvocationSerialized response parts instead, named by their toolId
// (copilot_readFile), without arguments or result. The working directory
// is the first workspace folder the prompt names (the workspace_info
// Copilot renders into it), else the folder response text is relative to.
type CopilotChat struct{}

// Name returns "copilot-chat".
func (CopilotChat) Name() string { return "copilot-chat" }

// Info describes the format.
func (CopilotChat) Info() FormatInfo {
	return FormatInfo{
		Writer:    "VS Code with GitHub Copilot Chat, for every chat session (ask, edit and agent mode)",
		Detection: `a JSON object with "version" a number and "requests" an array beside "requesterUsername", "responderUsername", "sessionId" or "initialLocation"; or JSON Lines whose first record is {"kind": 0, "v": such an object}`,
		Example: "<User>/workspaceStorage/<id>/chatSessions/<session>.jsonl (.json before 2026), <User> being ~/.config/Code/User (Linux), " +
			"~/Library/Application Support/Code/User (macOS), %APPDATA%\\Code\\User (Windows)",
	}
}

// Detect reports a session document, or an operation log whose first
// record is the initial state (kind 0) holding one. Members read up to the
// prefix's end count.
func (CopilotChat) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' || !bytes.Contains(prefix, []byte(`"version"`)) {
		return false
	}
	var sc jsonscan.Scanner
	sc.Reset(prefix)
	sc.Object()
	key, ok := sc.NextKey()
	if ok && string(key) == "kind" {
		if n, ok := sc.Int(); !ok || n != 0 {
			return false
		}
		key, ok = sc.NextKey()
		if !ok || string(key) != "v" || sc.Peek() != jsonscan.Object {
			return false
		}
		sc.Object()
		key, ok = sc.NextKey()
	}
	var version, requests, named bool
	for ; ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "version":
			if sc.Peek() != jsonscan.Number {
				return false
			}
			version = true
		case "requests":
			if sc.Peek() != jsonscan.Array {
				return false
			}
			requests = true
			if version && named {
				// The requests may run past the prefix: what came before
				// them decides.
				return true
			}
		case "requesterUsername", "responderUsername", "sessionId", "initialLocation":
			named = named || sc.Peek() == jsonscan.String
		}
		sc.Skip()
	}
	return version && named && requests
}

// copilotRequest is one request of a session: a user message and what
// answered it.
type copilotRequest struct {
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	ModelID  string            `json:"modelId"`
	Response []json.RawMessage `json:"response"`
	Result   struct {
		Metadata struct {
			ToolCallRounds []struct {
				ToolCalls []struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
					ID        string          `json:"id"`
				} `json:"toolCalls"`
			} `json:"toolCallRounds"`
			ToolCallResults       map[string]json.RawMessage `json:"toolCallResults"`
			RenderedGlobalContext []struct {
				Text string `json:"text"`
			} `json:"renderedGlobalContext"`
		} `json:"metadata"`
	} `json:"result"`
}

// copilotPart is the part of a response item the reader looks at.
type copilotPart struct {
	Kind       string `json:"kind"`
	ToolID     string `json:"toolId"`
	ToolCallID string `json:"toolCallId"`
	Value      string `json:"value"`
	BaseURI    *struct {
		Path string `json:"path"`
	} `json:"baseUri"`
}

type copilotReader struct {
	s       *Session
	opts    Options
	baseDir string // the folder response text is relative to
	records int
}

// Read reads one chat session, either layout.
func (CopilotChat) Read(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	cr := &copilotReader{s: &Session{Source: opts.Source}, opts: opts}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	head, err := br.Peek(64)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", opts.Source, err)
	}
	if copilotIsLog(head) {
		err = cr.readLog(br)
	} else {
		cut, summary := cutDocument(br, opts)
		err = cr.readDocument(newJSONDoc(cut))
		warnCut(cr.s, summary)
	}
	if err != nil {
		return nil, err
	}
	if cr.s.CWD == "" {
		cr.s.CWD = strings.TrimSuffix(cr.baseDir, "/")
	}
	return cr.s, nil
}

// copilotIsLog reports an operation log: its first record starts with
// "kind".
func copilotIsLog(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte(bom)), " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	head = bytes.TrimLeft(head[1:], " \t\r\n")
	return bytes.HasPrefix(head, []byte(`"kind"`))
}

// readDocument reads a session document, one request at a time.
func (cr *copilotReader) readDocument(d *jsonDoc) error {
	src := cr.s.Source
	c, _ := d.peek()
	line := d.Line()
	if c != '{' {
		return fmt.Errorf("%s:%d: expected a Copilot chat session (a JSON object with version and requests), found %s", src, line, jsonValueKind(c))
	}
	d.Open()
	sawRequests := false
	err := func() error {
		for {
			key, more, err := d.NextKey()
			if err != nil || !more {
				return err
			}
			c, _ := d.peek()
			at := d.Line()
			if key != "requests" {
				raw, err := d.Value()
				if err != nil {
					return err
				}
				cr.meta(key, raw, at)
				continue
			}
			if c != '[' {
				if err := d.Skip(); err != nil {
					return err
				}
				cr.s.Warnf(at, "requests: expected an array, found %s; no requests read", jsonValueKind(c))
				continue
			}
			sawRequests = true
			d.Open()
			for {
				more, err := d.NextElem()
				if err != nil || !more {
					if err != nil {
						return err
					}
					break
				}
				d.peek()
				at := d.Line()
				raw, err := d.Value()
				if err != nil {
					return err
				}
				cr.request(raw, at)
			}
		}
	}()
	if err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return fmt.Errorf("%s: %w", src, err)
		}
		if cr.records == 0 {
			return fmt.Errorf("%s:%d: reading Copilot chat session: no request could be read: %w", src, de.Line, de.Err)
		}
		cr.s.Warnf(de.Line, "session is cut short or malformed (%v); kept the %d requests read before it", de.Err, cr.records)
		return nil
	}
	if !sawRequests {
		return fmt.Errorf("%s:%d: not a Copilot chat session: the object has no requests array", src, line)
	}
	if note, at := d.End(); note != "" {
		cr.s.Warnf(at, "%s", note)
	}
	return nil
}

// meta reads a session member other than requests.
func (cr *copilotReader) meta(key string, raw []byte, line int) {
	switch key {
	case "sessionId":
		if json.Unmarshal(raw, &cr.s.ID) != nil {
			cr.s.Warnf(line, "sessionId: expected a string")
		}
	case "creationDate":
		var ms int64
		if json.Unmarshal(raw, &ms) == nil && ms > 0 {
			cr.s.NoteTime(time.UnixMilli(ms).UTC())
		}
	}
}

// request reads one request and adds its calls.
func (cr *copilotReader) request(raw []byte, line int) {
	cr.records++
	var q copilotRequest
	if err := json.Unmarshal(raw, &q); err != nil {
		cr.s.Warnf(line, "request skipped: expected an object with message, response and result: %s", atifTypeMessage(err))
		return
	}
	if cr.s.Prompt == "" {
		cr.s.Prompt = q.Message.Text
	}
	if q.ModelID != "" {
		cr.s.Model = q.ModelID
	}
	md := &q.Result.Metadata
	if cr.s.CWD == "" {
		for _, part := range md.RenderedGlobalContext {
			if dir := copilotWorkspaceFolder(part.Text); dir != "" {
				cr.s.CWD = dir
				break
			}
		}
	}
	var invocations []copilotPart
	answer := ""
	for _, item := range q.Response {
		var p copilotPart
		if json.Unmarshal(item, &p) != nil {
			continue
		}
		if p.BaseURI != nil && cr.baseDir == "" {
			cr.baseDir = p.BaseURI.Path
		}
		switch p.Kind {
		case "toolInvocationSerialized":
			invocations = append(invocations, p)
		case "":
			answer += p.Value
		}
	}
	if strings.TrimSpace(answer) != "" {
		cr.s.Answer = answer
	}
	rounds := 0
	for _, round := range md.ToolCallRounds {
		for _, tc := range round.ToolCalls {
			rounds++
			if tc.Name == "" {
				cr.s.Warnf(line, "tool call %q skipped: it has no name", tc.ID)
				continue
			}
			c := ToolCall{ID: tc.ID, Name: tc.Name, Arguments: copilotArguments(tc.Arguments)}
			if res, ok := md.ToolCallResults[tc.ID]; ok {
				text, err := copilotResultText(res)
				if err != nil {
					cr.s.Warnf(line, "result of tool call %q: %v; kept without text", tc.ID, err)
				}
				c.HasResult = true
				c.IsError = strings.HasPrefix(text, "ERROR")
				c.Result = atifClip(text, cr.opts.MaxResultBytes)
			}
			cr.s.AddCall(c)
		}
	}
	if rounds > 0 {
		return
	}
	for _, p := range invocations {
		if p.ToolID == "" {
			continue
		}
		cr.s.AddCall(ToolCall{ID: p.ToolCallID, Name: p.ToolID})
	}
}

// copilotArguments turns a tool call's arguments (a JSON string holding an
// object, as the model wrote them) into JSON.
func copilotArguments(raw json.RawMessage) json.RawMessage {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return jsonArgsText(s)
	}
	return jsonArgs(raw)
}

// copilotWorkspaceFolder finds the first workspace folder in the
// workspace_info Copilot renders into its prompt ("I am working in a
// workspace with the following folders:\n- /path").
func copilotWorkspaceFolder(text string) string {
	const intro = "with the following folders:\n"
	i := strings.Index(text, intro)
	if i < 0 {
		return ""
	}
	rest := text[i+len(intro):]
	line, _, _ := strings.Cut(rest, "\n")
	dir, ok := strings.CutPrefix(line, "- ")
	if !ok {
		return ""
	}
	// A folder may be followed by a note in parentheses.
	if j := strings.Index(dir, " ("); j >= 0 {
		dir = dir[:j]
	}
	return strings.TrimSpace(dir)
}

// copilotMaxDepth bounds the nesting of a rendered prompt element.
const copilotMaxDepth = 256

// copilotResultText renders a tool result as the model received it: the
// text of each of its content parts, in order.
func copilotResultText(raw json.RawMessage) (string, error) {
	var res struct {
		Content []struct {
			Value json.RawMessage `json:"value"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("expected an object with content parts: %s", atifTypeMessage(err))
	}
	var b strings.Builder
	for _, part := range res.Content {
		v := bytes.TrimSpace(part.Value)
		if len(v) == 0 {
			continue
		}
		switch v[0] {
		case '"':
			var s string
			if json.Unmarshal(v, &s) == nil {
				b.WriteString(s)
			}
		case '{':
			var el struct {
				Node *copilotNode `json:"node"`
			}
			if err := json.Unmarshal(v, &el); err != nil {
				return b.String(), fmt.Errorf("a prompt element: %s", atifTypeMessage(err))
			}
			if el.Node != nil {
				el.Node.render(&b, 0)
			}
		}
	}
	return b.String(), nil
}

// copilotNode is a node of a rendered prompt element (@vscode/prompt-tsx):
// type 1 holds children, type 2 is a piece of text.
type copilotNode struct {
	Type            int            `json:"type"`
	Text            string         `json:"text"`
	LineBreakBefore bool           `json:"lineBreakBefore"`
	Children        []*copilotNode `json:"children"`
}

func (n *copilotNode) render(b *strings.Builder, depth int) {
	if n == nil || depth > copilotMaxDepth {
		return
	}
	switch n.Type {
	case 1:
		for _, c := range n.Children {
			c.render(b, depth+1)
		}
	case 2:
		if n.LineBreakBefore && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(n.Text)
	}
}
