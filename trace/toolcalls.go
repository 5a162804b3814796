package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// ToolCalls reads tool-call records: the simplest trace, a list of the calls
// an agent made. Harnesses that log an agent's calls write it (a /trace
// endpoint returning C# ToolCallRecord objects, for one), and it is the
// format users write by hand.
//
// # Format
//
// Either an object holding the list, with optional metadata,
//
//	{"sessionId": "…", "agent": "aura", "model": "…", "cwd": "/repo",
//	 "prompt": "Add coupon support to order creation",
//	 "tools": ["aura_search", "file.read"],
//	 "toolCalls": [{"tool": "aura_search", "arguments": {"query": "…"},
//	                "result": "…", "timestamp": "2025-01-01T10:00:00Z"}]}
//
// or a bare array of the same records. Key spelling is forgiving: keys are
// compared without case, "_" or "-", so toolName, tool_name and ToolName
// (a C# record serialized with default settings) are one key. In a record:
//
//   - tool name: tool, toolName or name (required; a record without one is
//     skipped with a warning)
//   - arguments, args or input: an object, or a string; a string holding a
//     JSON object becomes that object (a C# ToolCallRecord stores arguments
//     as a JSON string)
//   - result or output: a string, or any JSON value, kept as compact JSON
//     text; null or absent means no result
//   - timestamp: RFC 3339, or Unix seconds or milliseconds
//   - id or toolCallId; isError, or error (true, or an error message);
//     subagent (true); parentId; cumulativeTokens
type ToolCalls struct{}

// Name returns "tool-calls".
func (ToolCalls) Name() string { return "tool-calls" }

// Info describes the format.
func (ToolCalls) Info() FormatInfo {
	return FormatInfo{
		Writer:    "your own harness, or by hand",
		Detection: `a JSON object with a "toolCalls" array, or an array of objects with a "tool" or "toolName" string`,
		Example:   "run.toolcalls.json",
	}
}

// Detect reports whether prefix starts an object with a top-level
// "toolCalls" array, or an array whose first element is an object with a
// tool, toolName or tool_name key holding a string. Event arrays of other
// agents (OpenHands: action, source, message) have no such key.
func (ToolCalls) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 {
		return false
	}
	// The substring test skips the token walk for most other formats.
	if !bytes.Contains(prefix, []byte(`"tool`)) && !bytes.Contains(prefix, []byte(`"Tool`)) {
		return false
	}
	found := false
	switch prefix[0] {
	case '{':
		atifWalkObject(prefix, func(key string, dec *json.Decoder) bool {
			if key != "toolCalls" && key != "ToolCalls" {
				return false
			}
			tok, err := dec.Token()
			found = err == nil && tok == json.Delim('[')
			return true
		})
	case '[':
		dec := json.NewDecoder(bytes.NewReader(prefix))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return false
		}
		atifWalkDecoder(dec, func(key string, dec *json.Decoder) bool {
			if k := toolCallsKey(key); k != "tool" && k != "toolname" {
				return false
			}
			tok, err := dec.Token()
			_, isString := tok.(string)
			found = err == nil && isString
			return true
		})
	}
	return found
}

// Read reads tool-call records. A record without a tool name, or that is
// not an object, is skipped with a warning naming its index and line; a
// syntax error or truncation keeps the records read before it. It returns
// an error only when no record could be read from a broken document, or
// when the input is neither an object nor an array.
func (ToolCalls) Read(r io.Reader, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	rd := &toolCallsReader{s: &Session{Format: "tool-calls", Source: src}, st: newATIFStream(toolCallsCompacted(r, opts.MaxResultBytes)), max: opts.MaxResultBytes}
	s := rd.s
	if err := rd.document(); err != nil {
		var shape *atifShapeError
		if errors.As(err, &shape) {
			return nil, fmt.Errorf("%s:%d: %s", src, shape.Line, shape.Msg)
		}
		var se *atifStreamError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if rd.records == 0 {
			return nil, fmt.Errorf("%s:%d: reading tool-call records: no record could be read: %w", src, se.Line, se.Err)
		}
		s.Warnf(se.Line, "tool-call records are cut short or malformed (%v); kept the %d records read before it", se.Err, rd.records)
	} else if note, line := rd.st.endOfDocument(); note != "" {
		s.Warnf(line, "%s", note)
	}
	return s, nil
}

// toolCallsKey folds a key's spelling: toolName, tool_name, ToolName and
// tool-name are all "toolname".
func toolCallsKey(k string) string {
	k = strings.ToLower(k)
	if strings.ContainsAny(k, "_-") {
		k = strings.NewReplacer("_", "", "-", "").Replace(k)
	}
	return k
}

type toolCallsReader struct {
	s   *Session
	st  *atifStream
	max int
	// records counts the records decoded, kept or skipped.
	records int
}

func (rd *toolCallsReader) document() error {
	line := rd.st.line()
	tok, err := rd.st.token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		return rd.list("")
	case json.Delim('{'):
	default:
		return &atifShapeError{Line: line, Msg: "expected tool-call records (an object with toolCalls, or an array of records), found " + atifTokenKind(tok)}
	}
	sawList := false
	for rd.st.dec.More() {
		tok, err := rd.st.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch toolCallsKey(key) {
		case "toolcalls":
			sawList = true
			err = rd.listValue(key)
		case "sessionid":
			err = rd.stringValue(key, &rd.s.ID)
		case "agent":
			err = rd.agent(key)
		case "agentversion":
			err = rd.stringValue(key, &rd.s.AgentVersion)
		case "model", "modelname":
			err = rd.stringValue(key, &rd.s.Model)
		case "cwd", "workingdirectory":
			err = rd.stringValue(key, &rd.s.CWD)
		case "prompt":
			err = rd.stringValue(key, &rd.s.Prompt)
		case "tools":
			err = rd.tools(key)
		default:
			err = rd.st.skip()
		}
		if err != nil {
			return err
		}
	}
	if _, err := rd.st.token(); err != nil {
		return err
	}
	if !sawList {
		// Some other JSON object (an ATIF trajectory, a Claude JSONL line):
		// an empty session would hide the mistake when the format was forced.
		return &atifShapeError{Line: line, Msg: "not tool-call records: the object has no toolCalls array"}
	}
	return nil
}

// listValue reads the value of a toolCalls key.
func (rd *toolCallsReader) listValue(key string) error {
	line := rd.st.line()
	tok, err := rd.st.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		rd.s.Warnf(line, "%s: expected an array of records, found %s; no calls read", key, atifTokenKind(tok))
		return rd.st.skipRest(tok)
	}
	return rd.list(key)
}

// list reads records up to the end of the array whose "[" has been read.
func (rd *toolCallsReader) list(key string) error {
	for i := 0; rd.st.dec.More(); i++ {
		line := rd.st.line()
		raw, err := rd.st.raw()
		if err != nil {
			return err
		}
		rd.record(key, i, line, raw)
	}
	_, err := rd.st.token()
	return err
}

func (rd *toolCallsReader) stringValue(key string, dst *string) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	if string(raw) != "null" && json.Unmarshal(raw, dst) != nil {
		rd.s.Warnf(line, "%s: expected a string, found %s; ignored", key, atifJSONKind(raw))
	}
	return nil
}

// agent reads the agent's name, or an object {"name", "version"}.
func (rd *toolCallsReader) agent(key string) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	if json.Unmarshal(raw, &rd.s.Agent) == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		rd.s.Warnf(line, "%s: expected a string or an object with name, found %s; ignored", key, atifJSONKind(raw))
		return nil
	}
	f := toolCallsFields(obj)
	rd.s.Agent = toolCallsString(f, "name")
	rd.s.AgentVersion = toolCallsString(f, "version")
	return nil
}

// tools reads the names of the available tools: strings, or objects with
// a name.
func (rd *toolCallsReader) tools(key string) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		rd.s.Warnf(line, "%s: expected an array of tool names, found %s; ignored", key, atifJSONKind(raw))
		return nil
	}
	for _, v := range list {
		var name string
		if json.Unmarshal(v, &name) != nil {
			var obj map[string]json.RawMessage
			if json.Unmarshal(v, &obj) == nil {
				name = toolCallsString(toolCallsFields(obj), "name")
			}
		}
		if name != "" {
			rd.s.Tools = append(rd.s.Tools, name)
		}
	}
	return nil
}

// toolCallsFields folds the keys of an object. When two keys fold to the
// same name, the first in sorted order wins, so the result never depends on
// map order.
func toolCallsFields(obj map[string]json.RawMessage) map[string]json.RawMessage {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	f := make(map[string]json.RawMessage, len(obj))
	for _, k := range keys {
		fk := toolCallsKey(k)
		if _, dup := f[fk]; !dup && string(bytes.TrimSpace(obj[k])) != "null" {
			f[fk] = obj[k]
		}
	}
	return f
}

// toolCallsGet returns the first of the named fields that is present.
func toolCallsGet(f map[string]json.RawMessage, names ...string) json.RawMessage {
	for _, n := range names {
		if v, ok := f[n]; ok {
			return v
		}
	}
	return nil
}

// toolCallsString returns the first of the named fields that holds a
// non-empty string.
func toolCallsString(f map[string]json.RawMessage, names ...string) string {
	for _, n := range names {
		raw := f[n]
		var s string
		if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// record reads record i of the list under key ("" for a bare array).
func (rd *toolCallsReader) record(key string, i, line int, raw json.RawMessage) {
	rd.records++
	name := func() string {
		if key == "" {
			return fmt.Sprintf("record [%d]", i)
		}
		return fmt.Sprintf("%s[%d]", key, i)
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		rd.s.Warnf(line, "%s: expected a tool-call object, found %s; skipped", name(), atifJSONKind(raw))
		return
	}
	f := toolCallsFields(obj)
	c := ToolCall{Name: toolCallsString(f, "tool", "toolname", "name")}
	if c.Name == "" {
		rd.s.Warnf(line, "%s: no tool name (expected a string in tool, toolName, tool_name or name); skipped", name())
		return
	}
	c.Arguments = atifArguments(toolCallsGet(f, "arguments", "args", "input"))
	if res := toolCallsGet(f, "result", "output"); res != nil {
		text, ok := atifText(res)
		if ok && res[0] == '[' {
			// An array result is data, not ATIF content parts: keep it whole.
			text = string(atifCompact(res))
		}
		c.Result, c.HasResult = atifClip(text, rd.max), ok
	}
	if ts := toolCallsGet(f, "timestamp"); ts != nil {
		if t, ok := toolCallsTime(ts); ok {
			c.Time = t
			rd.s.NoteTime(t)
		} else {
			rd.s.Warnf(line, "%s: timestamp %s is neither RFC 3339 nor Unix seconds or milliseconds; the call has no time", name(), atifClip(string(ts), 64))
		}
	}
	c.ID = toolCallsString(f, "id", "toolcallid", "callid")
	c.IsError = toolCallsTrue(f["iserror"]) || toolCallsTrue(f["error"])
	c.Subagent = toolCallsTrue(f["subagent"])
	c.ParentID = toolCallsString(f, "parentid")
	if v := toolCallsGet(f, "cumulativetokens"); v != nil {
		var n atifCount
		if json.Unmarshal(v, &n) == nil {
			tokens := int64(n)
			c.CumulativeTokens = &tokens
		}
	}
	rd.s.AddCall(c)
}

// toolCallsTrue reads a flag: true, or a non-empty string (an error
// message stands for an error).
func toolCallsTrue(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return string(raw) == "true"
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s != "" && s != "false"
}

// toolCallsTime reads a timestamp: an RFC 3339 string, or Unix seconds or
// milliseconds as a number or a string of digits.
func toolCallsTime(raw json.RawMessage) (time.Time, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, ok := atifParseTime(s); ok {
			return t, true
		}
		raw = json.RawMessage(strings.TrimSpace(s))
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return time.Time{}, false
	}
	return atifUnixTime(n)
}
