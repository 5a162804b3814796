package trace

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// claudeUsage is a message.usage object as Claude writes it: input_tokens
// excludes the cached prompt tokens, which come in two fields of their own.
type claudeUsage struct {
	set                                     bool
	input, cacheCreation, cacheRead, output int64
}

// claudeBlock is one element of message.content.
type claudeBlock struct {
	// text is a text block's text, or a thinking block's thinking.
	typ, id, name, toolUseID, text lineSpan
	// content is a tool_result's text: the string, or the text blocks of
	// the array joined with "\n".
	content lineSpan
	// input is a tool_use's input as raw JSON; it points into the line.
	input   []byte
	isError bool
}

// claudeLine holds the fields of one line that either dialect uses. The
// same value is reused for every line.
type claudeLine struct {
	typ, subtype, timestamp, uuid, parentUUID lineSpan
	cwd, sessionID, version, model            lineSpan
	parentToolUseID, result                   lineSpan
	isSidechain, isMeta                       bool
	tools                                     []lineSpan
	resultUsage                               claudeUsage

	hasMessage      bool
	msgID, msgModel lineSpan
	usage           claudeUsage
	// contentText is message.content when it is a plain string.
	contentText lineSpan
	blocks      []claudeBlock
}

func (l *claudeLine) reset() {
	*l = claudeLine{tools: l.tools[:0], blocks: l.blocks[:0]}
}

// parseLine reads one line into r.line in a single pass, decoding the
// strings it keeps into r.arena and skipping every other field (notably
// toolUseResult, which repeats the tool output). A field it skips is
// checked as JSON but for the content of its strings, which nothing
// reads (jsonscan.Scanner.SkipUnchecked): a long output's escaped
// newlines are passed over by a byte search. A problem is left in
// r.sc.Err().
func (r *claudeReader) parseLine(line []byte) {
	l := &r.line
	l.reset()
	r.reset(line)
	sc := &r.sc
	if !sc.Object() {
		return
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "type":
			l.typ = r.str("type")
		case "subtype":
			l.subtype = r.str("subtype")
		case "timestamp":
			l.timestamp = r.str("timestamp")
		case "uuid":
			l.uuid = r.str("uuid")
		case "parentUuid":
			l.parentUUID = r.str("parentUuid")
		case "isSidechain":
			l.isSidechain = r.boolean("isSidechain")
		case "isMeta":
			l.isMeta = r.boolean("isMeta")
		case "cwd":
			l.cwd = r.str("cwd")
		case "sessionId":
			l.sessionID = r.str("sessionId")
		case "session_id":
			l.sessionID = r.str("session_id")
		case "version":
			l.version = r.str("version")
		case "claude_code_version":
			l.version = r.str("claude_code_version")
		case "model":
			l.model = r.str("model")
		case "parent_tool_use_id":
			l.parentToolUseID = r.str("parent_tool_use_id")
		case "result":
			l.result = r.str("result")
		case "usage":
			l.resultUsage = r.usage("usage")
		case "tools":
			r.toolNames()
		case "message":
			r.message()
		default:
			sc.SkipUnchecked()
		}
	}
	sc.End()
}

func (r *claudeReader) message() {
	sc := &r.sc
	l := &r.line
	if sc.Null() {
		return
	}
	if sc.Peek() != jsonscan.Object {
		r.fieldError("message", "object")
		return
	}
	sc.Object()
	l.hasMessage = true
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "id":
			l.msgID = r.str("message.id")
		case "model":
			l.msgModel = r.str("message.model")
		case "usage":
			l.usage = r.usage("message.usage")
		case "content":
			switch sc.Peek() {
			case jsonscan.Null:
				sc.Null()
			case jsonscan.String:
				l.contentText = r.decode(-1)
			case jsonscan.Array:
				sc.Array()
				for sc.NextElem() {
					r.block()
				}
			default:
				r.fieldError("message.content", "string or array")
			}
		default:
			sc.SkipUnchecked()
		}
	}
}

// block reads one element of message.content.
func (r *claudeReader) block() {
	sc := &r.sc
	l := &r.line
	if sc.Peek() != jsonscan.Object {
		r.fieldError("message.content[]", "object")
		return
	}
	sc.Object()
	var b claudeBlock
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "type":
			b.typ = r.str("message.content[].type")
		case "id":
			b.id = r.str("message.content[].id")
		case "name":
			b.name = r.str("message.content[].name")
		case "input":
			b.input = sc.Raw()
		case "tool_use_id":
			b.toolUseID = r.str("message.content[].tool_use_id")
		case "text":
			b.text = r.str("message.content[].text")
		case "thinking":
			// A thinking block's text; the block has no "text" field.
			b.text = r.str("message.content[].thinking")
		case "content":
			b.content = r.resultContent()
		case "is_error":
			b.isError = r.boolean("message.content[].is_error")
		default:
			sc.SkipUnchecked()
		}
	}
	l.blocks = append(l.blocks, b)
}

// resultContent reads a tool_result's content: a string, or an array of
// blocks whose text blocks are joined with "\n" (image blocks and others
// have no text and are left out). Other block types that have a content
// field use other shapes (a web search error is an object), so any other
// kind is skipped rather than rejected. With Options.MaxResultBytes the
// text is cut to that many bytes without decoding the rest.
func (r *claudeReader) resultContent() lineSpan {
	sc := &r.sc
	max := r.opts.MaxResultBytes
	if max <= 0 {
		max = -1
	}
	switch sc.Peek() {
	case jsonscan.String:
		return r.decode(max)
	case jsonscan.Array:
	default:
		sc.Skip()
		return lineSpan{}
	}
	start := len(r.arena)
	texts := 0
	full := false
	sc.Array()
	for sc.NextElem() {
		if sc.Peek() != jsonscan.Object {
			sc.Skip()
			continue
		}
		sc.Object()
		mark, fullBefore := len(r.arena), full
		isText, hasText := true, false
		for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
			switch string(key) {
			case "type":
				if sc.Peek() != jsonscan.String {
					sc.Skip()
					isText = false
					break
				}
				var t [8]byte
				typ, _ := sc.AppendString(t[:0], len(t))
				isText = string(typ) == "text"
			case "text":
				if full || sc.Peek() != jsonscan.String {
					sc.Skip()
					break
				}
				if texts > 0 {
					if max >= 0 && len(r.arena)-start >= max {
						full = true
						sc.Skip()
						break
					}
					r.arena = append(r.arena, '\n')
				}
				limit := -1
				if max >= 0 {
					limit = max - (len(r.arena) - start)
				}
				r.arena, _ = sc.AppendString(r.arena, limit)
				// Once a text is cut, later ones lie past the limit.
				full = sc.Truncated()
				hasText = true
			default:
				sc.Skip()
			}
		}
		if isText && hasText {
			texts++
		} else {
			// The block turned out not to be text (its type came after
			// its text), or had none: drop what was appended for it.
			r.arena = r.arena[:mark]
			full = fullBefore
		}
	}
	return lineSpan{off: start, end: len(r.arena), set: true}
}

// toolNames reads the init line's tools, a list of tool names.
func (r *claudeReader) toolNames() {
	sc := &r.sc
	l := &r.line
	if sc.Null() {
		return
	}
	if sc.Peek() != jsonscan.Array {
		r.fieldError("tools", "array")
		return
	}
	sc.Array()
	for sc.NextElem() {
		if sc.Peek() != jsonscan.String {
			r.fieldError("tools[]", "string")
			return
		}
		l.tools = append(l.tools, r.decode(-1))
	}
}

// usage reads a usage object, keeping the four token counts.
func (r *claudeReader) usage(field string) claudeUsage {
	sc := &r.sc
	if sc.Null() {
		return claudeUsage{}
	}
	if sc.Peek() != jsonscan.Object {
		r.fieldError(field, "object")
		return claudeUsage{}
	}
	sc.Object()
	u := claudeUsage{set: true}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "input_tokens":
			u.input = r.count(field, "input_tokens")
		case "cache_creation_input_tokens":
			u.cacheCreation = r.count(field, "cache_creation_input_tokens")
		case "cache_read_input_tokens":
			u.cacheRead = r.count(field, "cache_read_input_tokens")
		case "output_tokens":
			u.output = r.count(field, "output_tokens")
		default:
			sc.Skip()
		}
	}
	return u
}

// count reads a token count; null counts as zero. Unlike integer, it
// joins the field's name only for an error: a usage object comes with
// every assistant line.
func (r *claudeReader) count(field, key string) int64 {
	sc := &r.sc
	if sc.Null() {
		return 0
	}
	if sc.Peek() != jsonscan.Number {
		r.fieldError(field+"."+key, "integer")
		return 0
	}
	raw := sc.Number()
	if v, ok := digits(raw); ok {
		return v
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil && sc.Err() == nil {
		r.fail(field+"."+key, "integer", jsonscan.Number)
	}
	return v
}

// digits reads a count of 1 to 18 decimal digits, which fits an int64,
// without strconv; ok is false for any other text.
func digits(b []byte) (v int64, ok bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// blockField numbers the content block a field's name is in, for the
// error about it: the block being read is the next one of the line.
func (r *claudeReader) blockField(field string) string {
	if strings.Contains(field, "content[]") {
		field = strings.Replace(field, "content[]", fmt.Sprintf("content[%d]", len(r.line.blocks)), 1)
	}
	return field
}

// parseTimestamp reads a line's timestamp as time.Parse with
// time.RFC3339Nano does. Claude Code writes every timestamp in one form,
// UTC with milliseconds ("2025-09-03T00:00:01.615Z"), read here without
// the string time.Parse needs; any other form goes to time.Parse.
func parseTimestamp(b []byte) (time.Time, bool) {
	if t, ok := parseUTCTimestamp(b); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	return t, err == nil
}

// parseUTCTimestamp reads "YYYY-MM-DDTHH:MM:SS[.F]Z" with one to nine
// fraction digits and fields in range, the subset of RFC 3339 on which it
// gives what time.Parse gives; ok is false for anything else.
func parseUTCTimestamp(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		if nsec = num(20, len(frac)-1); nsec < 0 {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn is the number of days of a month (1 to 12) of a year of the
// proleptic Gregorian calendar.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
