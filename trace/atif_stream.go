package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds the streaming machinery shared by the two whole-document
// JSON readers, ATIF and ToolCalls: a json.Decoder walked token by token so
// that only one step (or one record) is in memory at a time, plus line
// numbers for warnings, which json.Decoder does not track.
// It stays apart from jsonDoc (jsondoc.go): both readers decode steps into
// structs with encoding/json, whose type errors are their warnings.

// atifLineIndex wraps the decoder's input and remembers where newlines are,
// so that a byte offset from json.Decoder.InputOffset can be turned into a
// 1-based line number. It keeps only the newlines the decoder has read but
// not yet consumed (those in its buffer), so memory is bounded by the
// decoder's buffer, which holds at most one step.
type atifLineIndex struct {
	r io.Reader
	// floor reports the decoder's current input offset; newlines before it
	// can be forgotten. Nil until the decoder exists.
	floor func() int64
	pos   int64   // bytes read so far
	nl    []int64 // offsets of newlines at or after the floor, ascending
	head  int     // nl[:head] are already counted in passed
	// passed counts the newlines before nl[head].
	passed int
}

func (x *atifLineIndex) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	if x.floor != nil {
		x.forget(x.floor())
	}
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		x.nl = append(x.nl, x.pos+int64(i+j))
		i += j + 1
	}
	x.pos += int64(n)
	return n, err
}

// forget counts the newlines before off as passed.
func (x *atifLineIndex) forget(off int64) {
	for x.head < len(x.nl) && x.nl[x.head] < off {
		x.head++
		x.passed++
	}
	if x.head > 0 && x.head >= len(x.nl)/2 {
		n := copy(x.nl, x.nl[x.head:])
		x.nl = x.nl[:n]
		x.head = 0
	}
}

// lineAt returns the line holding byte offset off. Offsets must not go back
// in time: off is at least the offset of every earlier call.
func (x *atifLineIndex) lineAt(off int64) int {
	x.forget(off)
	return x.passed + 1
}

// atifStream is a json.Decoder that knows line numbers.
type atifStream struct {
	dec *json.Decoder
	idx *atifLineIndex
}

func newATIFStream(r io.Reader) *atifStream {
	idx := &atifLineIndex{r: r}
	dec := json.NewDecoder(idx)
	idx.floor = dec.InputOffset
	return &atifStream{dec: dec, idx: idx}
}

// line returns the line on which the next token starts.
func (st *atifStream) line() int {
	line := st.idx.lineAt(st.dec.InputOffset())
	// The decoder may still sit before the separator and white space that
	// precede the next token; count the newlines among them.
	br, ok := st.dec.Buffered().(io.ByteReader)
	if !ok {
		return line
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			return line
		}
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r', ',', ':':
		default:
			return line
		}
	}
}

// errLine returns the line of the syntax error or truncation that stopped
// the decoder. A failed Decode leaves the whole broken value in the
// decoder's buffer, so decoding that buffer again on its own finds the
// offending byte; the error's own Offset cannot be used because
// json.Decoder counts it from the start of the stream's first value.
func (st *atifStream) errLine() int {
	line := st.idx.lineAt(st.dec.InputOffset())
	buf, _ := io.ReadAll(st.dec.Buffered())
	start := 0
	for start < len(buf) && strings.IndexByte(" \t\r\n,:", buf[start]) >= 0 {
		start++
	}
	at := len(bytes.TrimRight(buf, " \t\r\n"))
	var raw json.RawMessage
	err := json.NewDecoder(bytes.NewReader(buf[start:])).Decode(&raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		at = start + int(se.Offset) - 1
	case err == nil:
		at = start
	}
	at = max(0, min(at, len(buf)))
	return line + bytes.Count(buf[:at], []byte{'\n'})
}

// atifStreamError is a syntax error, truncation or read error that stops a
// streaming reader, with the line where it happened.
type atifStreamError struct {
	Line int
	Err  error
}

func (e *atifStreamError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *atifStreamError) Unwrap() error { return e.Err }

// fail wraps err with the line where the stream broke. io.EOF in the middle
// of a document is a truncation.
func (st *atifStream) fail(err error) error {
	var se *atifStreamError
	if errors.As(err, &se) {
		return err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &atifStreamError{Line: st.errLine(), Err: err}
}

// token reads the next token, wrapping errors with their line.
func (st *atifStream) token() (json.Token, error) {
	tok, err := st.dec.Token()
	if err != nil {
		return nil, st.fail(err)
	}
	return tok, nil
}

// raw reads the next whole value.
func (st *atifStream) raw() (json.RawMessage, error) {
	var raw json.RawMessage
	if err := st.dec.Decode(&raw); err != nil {
		return nil, st.fail(err)
	}
	return raw, nil
}

// skip reads and drops the next value without holding it in memory (a
// long string is still read whole).
func (st *atifStream) skip() error {
	tok, err := st.token()
	if err != nil {
		return err
	}
	return st.skipRest(tok)
}

// skipRest drops the rest of a value whose first token was tok.
func (st *atifStream) skipRest(tok json.Token) error {
	depth := 0
	for {
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth <= 0 {
			return nil
		}
		var err error
		if tok, err = st.token(); err != nil {
			return err
		}
	}
}

// endOfDocument reports what follows the root value: nothing, or a note
// about trailing data that was ignored.
func (st *atifStream) endOfDocument() (note string, line int) {
	line = st.line()
	_, err := st.dec.Token()
	switch {
	case err == io.EOF:
		return "", 0
	case err != nil:
		return "ignored malformed data after the document: " + err.Error(), line
	default:
		return "ignored data after the end of the document", line
	}
}

// atifJSONKind names the kind of a JSON value for messages ("a string",
// "an array").
func atifJSONKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	return jsonValueKind(raw[0])
}

// atifTypeMessage turns a decoding error into a message a user can act on:
// the field, what was expected and what was found, without Go type names.
func atifTypeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "value"
		} else {
			field = "field " + field
		}
		return fmt.Sprintf("%s: expected %s, found %s", field, atifGoKind(te.Type), te.Value)
	}
	return err.Error()
}

func atifGoKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		if t == reflect.TypeFor[json.RawMessage]() {
			return "a JSON value"
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return atifGoKind(t.Elem())
	}
	return t.Kind().String()
}

// atifArguments normalizes a call's arguments to compact raw JSON. An
// object stays an object. A string that holds a JSON object (OpenAI-style
// function arguments, the Arguments of a C# ToolCallRecord)
// becomes that object; any other string stays a JSON string. Null and
// absent arguments are nil.
func atifArguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
				if c := atifCompact([]byte(t)); c != nil {
					return c
				}
			}
		}
	}
	if c := atifCompact(raw); c != nil {
		return c
	}
	return nil
}

// atifCompact returns a compact copy of a JSON value, or nil when it is not
// valid JSON.
func atifCompact(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil
	}
	return buf.Bytes()
}

// atifText returns the text of a message or result content: a string as is,
// the text parts of an ATIF v1.6 ContentPart array joined by newlines
// (images carry no text), and any other value as compact JSON. ok is false
// for null or absent content.
func atifText(raw json.RawMessage) (text string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", false
		}
		var texts []string
		for _, p := range parts {
			var part struct {
				Type string          `json:"type"`
				Text json.RawMessage `json:"text"`
			}
			if len(p) > 0 && p[0] == '"' {
				var s string
				if json.Unmarshal(p, &s) == nil {
					texts = append(texts, s)
				}
				continue
			}
			if json.Unmarshal(p, &part) != nil || (part.Type != "" && part.Type != "text") {
				continue
			}
			var s string
			if json.Unmarshal(part.Text, &s) == nil && s != "" {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n"), true
	}
	return string(atifCompact(raw)), true
}

// atifParseTime parses the timestamps agents write: RFC 3339 with or
// without fractional seconds, and Python's isoformat output, which may
// lack a zone (read as UTC) or use a space instead of "T".
func atifParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// atifUnixTime reads a Unix timestamp in seconds or milliseconds. Values of
// at least 1e11 are milliseconds: as seconds they would fall after the
// year 5000, as milliseconds they fall after 1973.
func atifUnixTime(n json.Number) (time.Time, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || f > 1e16 || f < -1e16 {
		return time.Time{}, false
	}
	if f >= 1e11 || f <= -1e11 {
		return time.UnixMilli(int64(f)).UTC(), true
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), true
}

// atifClip shortens s to at most n bytes (when n > 0) without splitting a
// UTF-8 sequence.
func atifClip(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
