package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"github.com/agentretrieval/agentretrieval/internal/percent"
)

// Amp reads the thread documents of Amp, Sourcegraph's coding agent: one
// JSON document a thread, which `amp threads export T-<id>` prints on every
// OS and which Amp's CLI and editor extensions kept on disk, under
// ~/.local/share/amp/threads/T-<id>.json, until they began keeping threads
// on Amp's servers (early 2026).
//
// # Format
//
//	{"v": 220, "id": "T-019c…", "created": 1772241201792,
//	 "env": {"initial": {"trees": [{"uri": "file:///Users/me/project", …}], …}},
//	 "messages": [
//	   {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "…"}]},
//	   {"role": "assistant", "messageId": 1,
//	    "usage": {"model": "claude-opus-4-6", "inputTokens": 3, "outputTokens": 70,
//	              "cacheCreationInputTokens": 1601, "cacheReadInputTokens": 13248,
//	              "timestamp": "2026-02-28T01:56:54.783Z"},
//	    "content": [{"type": "thinking", …},
//	                {"type": "tool_use", "id": "toolu_…", "name": "Read", "input": {"path": "…"}}]},
//	   {"role": "user", "messageId": 2,
//	    "content": [{"type": "tool_result", "toolUseID": "toolu_…",
//	                 "run": {"status": "done", "result": {"absolutePath": "…", "content": "1: …"}}}]}]}
//
// Tool calls are the tool_use blocks of assistant messages, joined to the
// tool_result block whose toolUseID is the call's id. A result's run holds
// the status ("done"; "error", "cancelled" and "rejected-by-user" mark the
// call IsError) and the tool's answer as JSON: a string is the result as
// it is, an array of strings one a line; of an object, the text the model
// reads is taken from the member that holds it (content: a file's
// numbered lines; diff: an edit's diff; output: a command's output, where
// a non-zero exitCode marks the call IsError; error: a failure; message),
// a folder's listing (isDirectory, with its directoryEntries) stays JSON
// so that it reads as a listing, and any other value is kept as JSON. The first tree of env.initial is the
// working directory. Tokens are the usage of each assistant message,
// counted once; the input counts cached tokens.
//
// The document is read one message at a time, so memory grows with the
// largest message, not with the thread.
type Amp struct{}

// Name returns "amp".
func (Amp) Name() string { return "amp" }

// Info describes the format.
func (Amp) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Amp (Sourcegraph): amp threads export T-<id> on any OS; the CLI and editor extensions kept every thread on disk until early 2026",
		Detection: `a JSON object whose "id" is a string starting "T-", with "v" a number and a "messages" array`,
		Example:   "T-<id>.json (amp threads export T-<id> > T-<id>.json); ~/.local/share/amp/threads/T-<id>.json before",
	}
}

// Detect reports a JSON object whose top-level members, read up to the
// prefix's end, include "id" (a string starting "T-") and "v" (a number),
// and "messages" as an array when it is reached.
func (Amp) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' || !bytes.Contains(prefix, []byte(`"T-`)) {
		return false
	}
	var sc jsonscan.Scanner
	sc.Reset(prefix)
	sc.Object()
	var id, v bool
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			s, ok := sc.AppendString(nil, 64)
			if !ok || !bytes.HasPrefix(s, []byte("T-")) {
				return false
			}
			id = true
		case "v":
			if sc.Peek() != jsonscan.Number {
				return false
			}
			v = true
			sc.Skip()
		case "messages":
			return id && v && sc.Peek() == jsonscan.Array
		default:
			sc.Skip()
		}
	}
	return id && v
}

// ampMessage is one message of a thread.
type ampMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
	Usage   *struct {
		Model         string `json:"model"`
		Input         int64  `json:"inputTokens"`
		Output        int64  `json:"outputTokens"`
		CacheCreation int64  `json:"cacheCreationInputTokens"`
		CacheRead     int64  `json:"cacheReadInputTokens"`
		Timestamp     string `json:"timestamp"`
	} `json:"usage"`
	Meta *struct {
		SentAt int64 `json:"sentAt"`
	} `json:"meta"`
}

// ampBlock is one content block.
type ampBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"toolUseID"`
	Run       *struct {
		Status string          `json:"status"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"run"`
}

type ampReader struct {
	s       *Session
	opts    Options
	pending map[string]int // call id -> index of a call without result
	tokens  int64
	usage   Usage
	hasUse  bool
	records int
}

// Read reads one thread. A malformed message is skipped with a warning; a
// tool_result whose call is unknown is a warning. It returns an error when
// the input is not an Amp thread.
func (Amp) Read(r io.Reader, opts Options) (*Session, error) {
	return readCut(r, opts, func(r io.Reader) (*Session, error) { return readAmp(r, opts) })
}

func readAmp(r io.Reader, opts Options) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	ar := &ampReader{s: &Session{Source: opts.Source}, opts: opts, pending: map[string]int{}}
	d := newJSONDoc(r)
	src := opts.Source
	c, _ := d.peek()
	line := d.Line()
	if c != '{' {
		return nil, fmt.Errorf("%s:%d: expected an Amp thread (a JSON object with id and messages), found %s", src, line, jsonValueKind(c))
	}
	d.Open()
	sawMessages, err := ar.fields(d)
	if err != nil {
		var de *jsonDocError
		if !errors.As(err, &de) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if ar.records == 0 {
			return nil, fmt.Errorf("%s:%d: reading Amp thread: no message could be read: %w", src, de.Line, de.Err)
		}
		ar.s.Warnf(de.Line, "thread is cut short or malformed (%v); kept the %d messages read before it", de.Err, ar.records)
	} else {
		if !sawMessages {
			return nil, fmt.Errorf("%s:%d: not an Amp thread: the object has no messages array", src, line)
		}
		if note, at := d.End(); note != "" {
			ar.s.Warnf(at, "%s", note)
		}
	}
	if ar.hasUse {
		u := ar.usage
		ar.s.Usage = &u
	}
	return ar.s, nil
}

// fields reads the members of the thread object, which d has entered.
func (ar *ampReader) fields(d *jsonDoc) (sawMessages bool, err error) {
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return sawMessages, err
		}
		c, _ := d.peek()
		line := d.Line()
		if key != "messages" {
			raw, err := d.Value()
			if err != nil {
				return sawMessages, err
			}
			ar.meta(key, raw, line)
			continue
		}
		if c != '[' {
			if err := d.Skip(); err != nil {
				return sawMessages, err
			}
			ar.s.Warnf(line, "messages: expected an array, found %s; no messages read", jsonValueKind(c))
			continue
		}
		sawMessages = true
		d.Open()
		for {
			more, err := d.NextElem()
			if err != nil {
				return sawMessages, err
			}
			if !more {
				break
			}
			d.peek()
			line := d.Line()
			raw, err := d.Value()
			if err != nil {
				return sawMessages, err
			}
			ar.records++
			var m ampMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				ar.s.Warnf(line, "message skipped: expected an object with role and content: %v", err)
				continue
			}
			ar.message(&m, line)
		}
	}
}

// meta reads a top-level member other than messages.
func (ar *ampReader) meta(key string, raw []byte, line int) {
	switch key {
	case "id":
		if err := json.Unmarshal(raw, &ar.s.ID); err != nil {
			ar.s.Warnf(line, "id: expected a string")
		}
	case "created":
		var ms int64
		if err := json.Unmarshal(raw, &ms); err == nil && ms > 0 {
			ar.s.NoteTime(time.UnixMilli(ms).UTC())
		}
	case "env":
		var env struct {
			Initial struct {
				Trees []struct {
					URI string `json:"uri"`
				} `json:"trees"`
				Tags []string `json:"tags"`
			} `json:"initial"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			ar.s.Warnf(line, "env: expected an object: %v", err)
			return
		}
		if t := env.Initial.Trees; len(t) > 0 {
			ar.s.CWD = fileURIPath(t[0].URI)
		}
		for _, tag := range env.Initial.Tags {
			if m, ok := strings.CutPrefix(tag, "model:"); ok && ar.s.Model == "" {
				ar.s.Model = m
			}
		}
	}
}

func (ar *ampReader) message(m *ampMessage, line int) {
	var at time.Time
	if u := m.Usage; u != nil {
		ar.hasUse = true
		ar.usage = ar.usage.Add(Usage{
			InputTokens:         u.Input + u.CacheCreation + u.CacheRead,
			OutputTokens:        u.Output,
			CacheReadTokens:     u.CacheRead,
			CacheCreationTokens: u.CacheCreation,
		})
		ar.tokens = ar.usage.Total()
		if u.Model != "" && ar.s.Model == "" {
			ar.s.Model = u.Model
		}
		if t, err := time.Parse(time.RFC3339Nano, u.Timestamp); err == nil {
			at = t
			ar.s.NoteTime(t)
		}
	}
	if m.Meta != nil && m.Meta.SentAt > 0 {
		ar.s.NoteTime(time.UnixMilli(m.Meta.SentAt).UTC())
	}
	for _, raw := range m.Content {
		var b ampBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			ar.s.Warnf(line, "content block skipped: expected an object with a type: %v", err)
			continue
		}
		switch b.Type {
		case "text":
			if m.Role == "user" && ar.s.Prompt == "" {
				ar.s.Prompt = b.Text
			}
			if m.Role == "assistant" && strings.TrimSpace(b.Text) != "" {
				ar.s.Answer = b.Text
			}
		case "tool_use":
			ar.toolUse(&b, at, line)
		case "tool_result":
			ar.toolResult(&b, line)
		}
	}
}

func (ar *ampReader) toolUse(b *ampBlock, at time.Time, line int) {
	if b.Name == "" {
		ar.s.Warnf(line, "tool_use %q skipped: it has no name", b.ID)
		return
	}
	c := ToolCall{ID: b.ID, Name: b.Name, Arguments: jsonArgs(b.Input), Time: at}
	if ar.hasUse {
		t := ar.tokens
		c.CumulativeTokens = &t
	}
	i := ar.s.AddCall(c)
	if b.ID != "" {
		ar.pending[b.ID] = i
	}
}

func (ar *ampReader) toolResult(b *ampBlock, line int) {
	i, ok := ar.pending[b.ToolUseID]
	if !ok {
		ar.s.Warnf(line, "tool_result for %q, which no earlier tool_use started, skipped", b.ToolUseID)
		return
	}
	delete(ar.pending, b.ToolUseID)
	c := ar.s.Call(i)
	if b.Run == nil {
		return
	}
	c.HasResult = true
	text, failed := ampResultText(b.Run.Result)
	if text == "" && len(b.Run.Error) > 0 {
		text, _ = ampResultText(b.Run.Error)
		failed = true
	}
	switch b.Run.Status {
	case "error", "cancelled", "rejected-by-user", "cancelled-by-user":
		failed = true
	}
	c.Result = atifClip(text, ar.opts.MaxResultBytes)
	c.IsError = failed
}

// ampResultText is the text the model reads of a tool's answer, and
// whether the answer says the tool failed.
func ampResultText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, false
		}
	case '[':
		var lines []string
		if json.Unmarshal(raw, &lines) == nil {
			return strings.Join(lines, "\n"), false
		}
	case '{':
		var obj struct {
			IsDirectory bool             `json:"isDirectory"`
			Content     *string          `json:"content"`
			Diff        *string          `json:"diff"`
			Output      *string          `json:"output"`
			Error       *string          `json:"error"`
			Message     *string          `json:"message"`
			ExitCode    *json.RawMessage `json:"exitCode"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			failed := obj.ExitCode != nil && string(*obj.ExitCode) != "0" && string(*obj.ExitCode) != "null"
			switch {
			case obj.IsDirectory:
				// A folder's listing stays JSON: its entries, and that it
				// is a folder.
				return string(raw), failed
			case obj.Content != nil:
				return *obj.Content, failed
			case obj.Diff != nil:
				return *obj.Diff, failed
			case obj.Output != nil:
				return *obj.Output, failed
			case obj.Error != nil:
				return *obj.Error, true
			case obj.Message != nil:
				return *obj.Message, failed
			}
			return string(raw), failed
		}
	}
	return string(raw), false
}

// fileURIPath turns a file:// URI into a path; other strings are returned
// as they are.
func fileURIPath(uri string) string {
	p, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		return uri
	}
	if u, err := percent.Decode(p); err == nil {
		p = u
	}
	// file:///c%3A/work is a Windows drive path.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return p
}
