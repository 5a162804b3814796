package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// CursorAgentTranscript reads the agent transcript that Cursor writes for
// its hooks (the file a hook's transcript_path names), one JSON message a
// line, under ~/.cursor/projects/<workspace-slug>/agent-transcripts/ on
// every OS:
//
//	{"role":"user","message":{"content":[{"type":"text","text":"<user_query>…</user_query>"}]}}
//	{"role":"assistant","message":{"content":[{"type":"text","text":"…"},
//	  {"type":"tool_use","name":"Read","input":{"path":"/w/a.txt","limit":40}}]}}
//
// Tool calls are the tool_use blocks of assistant messages, in order. The
// transcript records neither call ids nor results, nor times or tokens:
// every call has HasResult false, and what it read is not known from the
// transcript (the conversation in Cursor's state.vscdb, format "cursor",
// has the results). A line that is not such a message is skipped with a
// warning.
type CursorAgentTranscript struct{}

// Name returns "cursor-agent-transcript".
func (CursorAgentTranscript) Name() string { return "cursor-agent-transcript" }

// Info describes the format.
func (CursorAgentTranscript) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Cursor, the agent transcript its hooks are given (transcript_path); no tool results",
		Detection: `JSON Lines whose first record has exactly the keys "role" (a string) and "message" (an object)`,
		Example:   "~/.cursor/projects/<workspace-slug>/agent-transcripts/<id>.jsonl",
	}
}

// Detect reports a first record whose only keys are role and message.
func (CursorAgentTranscript) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' {
		return false
	}
	if i := bytes.IndexByte(prefix, '\n'); i >= 0 {
		prefix = prefix[:i]
	}
	var sc jsonscan.Scanner
	sc.Reset(prefix)
	sc.Object()
	var role, message bool
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "role":
			role = sc.Peek() == jsonscan.String
		case "message":
			message = sc.Peek() == jsonscan.Object
		default:
			return false
		}
		sc.Skip()
	}
	return role && message && sc.Err() == nil
}

// cursorTranscriptLine is one message of the transcript.
type cursorTranscriptLine struct {
	Role    string `json:"role"`
	Message *struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	} `json:"message"`
}

// Read reads the transcript. It returns an error when no line is a
// message.
func (CursorAgentTranscript) Read(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	s := &Session{Source: opts.Source}
	lr := newLineReader(r)
	lr.cutLongLines(opts.MaxResultBytes, func(n int, msg string) { s.Warnf(n, "%s", msg) })
	messages := 0
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: reading Cursor agent transcript: %w", opts.Source, n+1, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m cursorTranscriptLine
		if err := json.Unmarshal(line, &m); err != nil || m.Role == "" || m.Message == nil {
			s.Warnf(n, "line skipped: expected a message object with role and message.content")
			continue
		}
		messages++
		for _, b := range m.Message.Content {
			switch b.Type {
			case "text":
				if m.Role == "user" && s.Prompt == "" {
					s.Prompt = cursorUserQuery(b.Text)
				}
				if m.Role == "assistant" && strings.TrimSpace(b.Text) != "" {
					s.Answer = b.Text
				}
			case "tool_use":
				if b.Name == "" {
					s.Warnf(n, "tool_use without a name, skipped")
					continue
				}
				s.AddCall(ToolCall{Name: b.Name, Arguments: jsonArgs(b.Input)})
			}
		}
	}
	if messages == 0 {
		return nil, fmt.Errorf("%s: not a Cursor agent transcript: no line is a message with role and message.content", opts.Source)
	}
	return s, nil
}

// cursorUserQuery unwraps the <user_query> element Cursor puts the user's
// words in.
func cursorUserQuery(text string) string {
	t := strings.TrimSpace(text)
	if inner, ok := strings.CutPrefix(t, "<user_query>"); ok {
		if q, _, ok := strings.Cut(inner, "</user_query>"); ok {
			return strings.TrimSpace(q)
		}
	}
	return text
}
