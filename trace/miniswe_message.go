package trace

import (
	"fmt"
	"strconv"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// This file decodes one mini-swe-agent message with jsonscan, keeping only
// what the reader needs of it: the role, the content's text, the tool
// calls, and from extra the parsed actions, the return code, the exception,
// the time and the model response's usage.

// miniMsg is one message as parsed. Byte slices point into the framed
// message and are valid while it is handled.
type miniMsg struct {
	role, toolCallID string
	// text is the content's text (see miniReader.content), in a buffer
	// reused for the next message; hasText is false when there is none.
	text    []byte
	hasText bool
	calls   []miniCall
	// From extra: the parsed actions (raw command values), the
	// observation's return code (raw) and exception, the time it was
	// recorded, and the model response's creation time and usage.
	actions      [][]byte
	returncode   []byte
	exception    string
	timestamp    float64
	created      float64
	usage        Usage
	hasUsage     bool
	cachedDetail int64
	// bad names the first field of the wrong type; the message is then
	// skipped.
	bad string
}

type miniCall struct {
	id, name string
	args     []byte
}

// parse reads the message object at mr.sc into m.
func (mr *miniReader) parse(m *miniMsg) {
	sc := &mr.sc
	*m = miniMsg{calls: m.calls[:0], actions: m.actions[:0], text: m.text[:0]}
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "role":
			m.role = mr.str(m, "role")
		case "content":
			m.text, m.hasText = mr.content(m.text[:0])
		case "tool_call_id":
			m.toolCallID = mr.str(m, "tool_call_id")
		case "tool_calls":
			mr.toolCalls(m)
		case "extra":
			if mr.kind(m, "extra", jsonscan.Object) {
				mr.extra(m)
			}
		default:
			sc.Skip()
		}
	}
}

// kind reports whether the next value is of kind k. Null is skipped and
// reported false; another kind is skipped and marks the message bad.
func (mr *miniReader) kind(m *miniMsg, field string, k jsonscan.Kind) bool {
	sc := &mr.sc
	switch got := sc.Peek(); got {
	case k:
		return true
	case jsonscan.Null:
		sc.Null()
	case jsonscan.Invalid:
		sc.Skip() // records the syntax error
	default:
		sc.Skip()
		if m.bad == "" {
			m.bad = fmt.Sprintf("field %s: expected %s, found %s", field, miniKindName(k), atifJSONKind([]byte(miniKindByte(got))))
		}
	}
	return false
}

func miniKindName(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Object:
		return "an object"
	case jsonscan.Array:
		return "an array"
	case jsonscan.String:
		return "a string"
	}
	return "a number"
}

// miniKindByte returns a first byte of a value of kind k, for atifJSONKind.
func miniKindByte(k jsonscan.Kind) string {
	switch k {
	case jsonscan.Object:
		return "{"
	case jsonscan.Array:
		return "["
	case jsonscan.String:
		return `"`
	case jsonscan.Bool:
		return "t"
	case jsonscan.Null:
		return "n"
	}
	return "0"
}

func (mr *miniReader) str(m *miniMsg, field string) string {
	if !mr.kind(m, field, jsonscan.String) {
		return ""
	}
	b, _ := mr.sc.AppendString(mr.buf[:0], -1)
	mr.buf = b[:0]
	return string(b)
}

func (mr *miniReader) num(m *miniMsg, field string) float64 {
	if !mr.kind(m, field, jsonscan.Number) {
		return 0
	}
	f, _ := strconv.ParseFloat(string(mr.sc.Raw()), 64)
	return f
}

func (mr *miniReader) count(m *miniMsg, field string) (int64, bool) {
	if mr.sc.Peek() != jsonscan.Number {
		mr.kind(m, field, jsonscan.Number)
		return 0, false
	}
	f := mr.num(m, field)
	if f > 1e15 || f < -1e15 {
		return 0, false
	}
	return int64(f), true
}

func (mr *miniReader) toolCalls(m *miniMsg) {
	sc := &mr.sc
	if !mr.kind(m, "tool_calls", jsonscan.Array) {
		return
	}
	sc.Array()
	for sc.NextElem() {
		if !mr.kind(m, "tool_calls[]", jsonscan.Object) {
			continue
		}
		var c miniCall
		sc.Object()
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "id":
				c.id = mr.str(m, "tool_calls[].id")
			case "function":
				if !mr.kind(m, "tool_calls[].function", jsonscan.Object) {
					continue
				}
				sc.Object()
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					switch string(key) {
					case "name":
						c.name = mr.str(m, "tool_calls[].function.name")
					case "arguments":
						c.args = sc.Raw()
					default:
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
		m.calls = append(m.calls, c)
	}
}

func (mr *miniReader) extra(m *miniMsg) {
	sc := &mr.sc
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "actions":
			if !mr.kind(m, "extra.actions", jsonscan.Array) {
				continue
			}
			sc.Array()
			for sc.NextElem() {
				if !mr.kind(m, "extra.actions[]", jsonscan.Object) {
					continue
				}
				sc.Object()
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) == "command" {
						m.actions = append(m.actions, sc.Raw())
					} else {
						sc.Skip()
					}
				}
			}
		case "returncode":
			m.returncode = sc.Raw()
		case "exception_info":
			if sc.Peek() == jsonscan.String {
				m.exception = mr.str(m, "extra.exception_info")
			} else {
				sc.Skip()
			}
		case "timestamp":
			if sc.Peek() == jsonscan.Number {
				m.timestamp = mr.num(m, "extra.timestamp")
			} else {
				sc.Skip()
			}
		case "response":
			// 2.x stores the response's repr, a string, when it cannot be
			// serialized: it has no usage.
			if sc.Peek() == jsonscan.Object {
				mr.response(m)
			} else {
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
}

// response reads a model response's creation time and usage (litellm's
// OpenAI-style usage).
func (mr *miniReader) response(m *miniMsg) {
	sc := &mr.sc
	sc.Object()
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "created":
			if sc.Peek() == jsonscan.Number {
				m.created = mr.num(m, "extra.response.created")
			} else {
				sc.Skip()
			}
		case "usage":
			if sc.Peek() != jsonscan.Object {
				sc.Skip()
				continue
			}
			sc.Object()
			u := &m.usage
			for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
				var n int64
				var isCount bool
				switch k := string(key); k {
				case "prompt_tokens", "completion_tokens", "cache_read_input_tokens", "cache_creation_input_tokens":
					if sc.Peek() != jsonscan.Number {
						sc.Skip()
						continue
					}
					n, isCount = mr.count(m, "extra.response.usage."+k)
					if !isCount {
						continue
					}
					switch k {
					case "prompt_tokens":
						u.InputTokens, m.hasUsage = n, true
					case "completion_tokens":
						u.OutputTokens, m.hasUsage = n, true
					case "cache_read_input_tokens":
						u.CacheReadTokens = n
					default:
						u.CacheCreationTokens = n
					}
				case "prompt_tokens_details":
					if sc.Peek() != jsonscan.Object {
						sc.Skip()
						continue
					}
					sc.Object()
					for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
						if string(key) == "cached_tokens" && sc.Peek() == jsonscan.Number {
							m.cachedDetail, _ = mr.count(m, "extra.response.usage.prompt_tokens_details.cached_tokens")
						} else {
							sc.Skip()
						}
					}
				default:
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
}

// content reads a message's content at mr.sc and appends its text to dst:
// a string, or the text parts of a list of parts joined by newlines; any
// other value as compact JSON. ok is false for null content.
func (mr *miniReader) content(dst []byte) ([]byte, bool) {
	sc := &mr.sc
	switch sc.Peek() {
	case jsonscan.String:
		return miniAppended(sc.AppendString(dst, -1)), true
	case jsonscan.Array:
		sc.Array()
		for sc.NextElem() {
			start := len(dst)
			if start > 0 {
				dst = append(dst, '\n')
			}
			switch sc.Peek() {
			case jsonscan.String:
				dst = miniAppended(sc.AppendString(dst, -1))
			case jsonscan.Object:
				// {"type": "text", "text": …}; other parts (images) have
				// no text.
				sc.Object()
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) == "text" && sc.Peek() == jsonscan.String {
						dst = miniAppended(sc.AppendString(dst, -1))
					} else {
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
			if len(dst) == start+1 && start > 0 {
				dst = dst[:start] // the part had no text: no separator
			}
		}
		return dst, true
	case jsonscan.Null:
		sc.Null()
		return dst, false
	}
	raw := sc.Raw()
	return append(dst, atifCompact(raw)...), raw != nil
}

// miniAppended drops the ok of an append whose failure the scanner records.
func miniAppended(b []byte, _ bool) []byte { return b }
