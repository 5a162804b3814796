package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// jsonRec reads the fields of one JSON record with jsonscan. A field whose
// JSON type is not the one the format uses stops the scan with a
// jsonRecFieldError, so that the caller skips the record with a warning
// naming the field; null counts as absent everywhere.
type jsonRec struct {
	sc  jsonscan.Scanner
	tmp []byte
}

// jsonRecFieldError reports a field of the wrong JSON type.
type jsonRecFieldError struct {
	Field    string
	Expected string
	Found    jsonscan.Kind
}

func (e *jsonRecFieldError) Error() string {
	return fmt.Sprintf("field %s: expected %s, found %s", e.Field, e.Expected, e.Found)
}

func (r *jsonRec) wrong(field, expected string) {
	if r.sc.Peek() == jsonscan.Invalid {
		// Not a value at all: a syntax error, or the end of the input
		// (which a streaming caller reads more of).
		r.sc.Skip()
		return
	}
	r.sc.Fail(&jsonRecFieldError{Field: field, Expected: expected, Found: r.sc.Peek()})
}

// str reads a string field; null is "".
func (r *jsonRec) str(field string) string {
	return r.strMax(field, -1)
}

// strMax reads a string field, keeping at most max bytes when max >= 0.
func (r *jsonRec) strMax(field string, max int) string {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return ""
	case jsonscan.String:
		r.tmp, _ = r.sc.AppendString(r.tmp[:0], max)
		return string(r.tmp)
	}
	r.wrong(field, "a string")
	return ""
}

// text reads a field that holds text: a string, or an array of content
// parts whose "text" members are joined with newlines (OpenHands V1
// TextContent lists, multimodal messages). Other parts carry no text. ok is
// false when the field is null.
func (r *jsonRec) text(field string, max int) (string, bool) {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return "", false
	case jsonscan.String:
		return r.strMax(field, max), true
	case jsonscan.Array:
	default:
		r.wrong(field, "a string or an array of content parts")
		return "", false
	}
	var b strings.Builder
	r.sc.Array()
	for r.sc.NextElem() {
		switch r.sc.Peek() {
		case jsonscan.String:
			s := r.str(field)
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
			continue
		case jsonscan.Object:
		default:
			r.sc.Skip()
			continue
		}
		r.sc.Object()
		var s string
		isText := true
		for key, ok := r.sc.NextKey(); ok; key, ok = r.sc.NextKey() {
			switch string(key) {
			case "text":
				s = r.str(field + ".text")
			case "type":
				if t := r.str(field + ".type"); t != "" && t != "text" {
					isText = false
				}
			default:
				r.sc.Skip()
			}
		}
		if isText && s != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
		}
	}
	return atifClip(b.String(), max), true
}

// int reads an integer field; ok is false when it is null. A number with a
// fraction or exponent is read as its integer part, since some writers
// (Python's json on floats) write token counts as 12.0.
func (r *jsonRec) int(field string) (int64, bool) {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return 0, false
	case jsonscan.Number:
		raw := r.sc.Raw()
		var f json.Number = json.Number(raw)
		if n, err := f.Int64(); err == nil {
			return n, true
		}
		if x, err := f.Float64(); err == nil && x >= -9e18 && x <= 9e18 {
			return int64(x), true
		}
		r.sc.Fail(&jsonRecFieldError{Field: field, Expected: "an integer", Found: jsonscan.Number})
		return 0, false
	}
	r.wrong(field, "an integer")
	return 0, false
}

// boolean reads a boolean field; null is false.
func (r *jsonRec) boolean(field string) bool {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return false
	case jsonscan.Bool:
		b, _ := r.sc.Bool()
		return b
	}
	r.wrong(field, "a boolean")
	return false
}

// object enters an object field; it returns false for null (consumed) and
// for another type (recorded as an error).
func (r *jsonRec) object(field string) bool {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return false
	case jsonscan.Object:
		return r.sc.Object()
	}
	r.wrong(field, "an object")
	return false
}

// array enters an array field, like object.
func (r *jsonRec) array(field string) bool {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return false
	case jsonscan.Array:
		return r.sc.Array()
	}
	r.wrong(field, "an array")
	return false
}

// objectRaw reads an object field as raw bytes (pointing into the record);
// null gives nil.
func (r *jsonRec) objectRaw(field string) []byte {
	switch r.sc.Peek() {
	case jsonscan.Null:
		r.sc.Null()
		return nil
	case jsonscan.Object:
		return r.sc.Raw()
	}
	r.wrong(field, "an object")
	return nil
}

// jsonArgs turns the arguments of a call into a compact JSON object: an
// object as is, a string holding an object (OpenAI function arguments)
// decoded to that object, any other string kept as a JSON string. Empty
// input gives nil.
func jsonArgs(raw []byte) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return atifArguments(raw)
}

// jsonArgsText is jsonArgs for arguments already decoded from a JSON string.
func jsonArgsText(s string) json.RawMessage {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		if c := atifCompact([]byte(t)); c != nil {
			return c
		}
	}
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}
