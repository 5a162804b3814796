// Package jsonscan reads JSON text in place, one value at a time, without
// building a tree. A caller walks the objects it cares about, decodes the
// strings and numbers it needs and skips everything else; skipping allocates
// nothing. It exists so that trace readers can pull a few fields out of JSON
// lines of many megabytes (Claude Code repeats every tool output in a
// toolUseResult field) at close to memory speed.
//
// # Accepted input
//
// The scanner accepts exactly the JSON that encoding/json accepts: every
// value it reads or skips (SkipUnchecked excepted) is fully checked (structure, literals, number
// syntax, string escapes, control characters, nesting up to 10000 levels),
// and decoded strings are identical to what encoding/json produces,
// including \uXXXX surrogate pairs and the replacement of invalid UTF-8 and
// lone surrogates by U+FFFD.
//
// # Use
//
//	var s jsonscan.Scanner
//	s.Reset(line)
//	if s.Object() {
//		for key, ok := s.NextKey(); ok; key, ok = s.NextKey() {
//			switch string(key) {
//			case "type":
//				typ, _ = s.AppendString(typ[:0], -1)
//			default:
//				s.Skip()
//			}
//		}
//	}
//	s.End()
//	if err := s.Err(); err != nil { ... }
//
// After Object (or Array) the caller calls NextKey (or NextElem) until it
// returns false, and reads or skips exactly one value per key or element.
// Errors are sticky: after the first one every method returns a zero result
// and Err reports that error.
package jsonscan

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects the scanner accepts,
// the same limit as encoding/json.
const MaxDepth = 10000

// A Kind is the type of a JSON value, as told by its first byte.
type Kind uint8

// The kinds of JSON values. Invalid stands for the end of input or a byte
// that cannot start a value.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{
	Invalid: "invalid value",
	Null:    "null",
	Bool:    "boolean",
	Number:  "number",
	String:  "string",
	Array:   "array",
	Object:  "object",
}

// String names the kind as error messages do ("object", "string", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A SyntaxError reports input that is not well-formed JSON.
type SyntaxError struct {
	// Offset is the byte offset at which the error was found.
	Offset int
	msg    string
	// For an unexpected byte, the byte and what was expected instead: the
	// message is built when asked for, since a reader skipping millions of
	// malformed lines asks for few of them.
	char     byte
	expected string
	// depth is set for nesting past MaxDepth.
	depth bool
}

// Error describes the problem and, for an unexpected byte, its offset.
func (e *SyntaxError) Error() string {
	if e.expected != "" {
		return fmt.Sprintf("invalid character %s at offset %d (expected %s)", quoteByte(e.char), e.Offset, e.expected)
	}
	if e.depth {
		return fmt.Sprintf("exceeded max depth of %d at offset %d", MaxDepth, e.Offset)
	}
	return e.msg
}

// A TypeError reports a value of another kind than the one asked for.
type TypeError struct {
	// Offset is the byte offset of the value.
	Offset int
	// Expected names what was asked for ("object", "integer", ...).
	Expected string
	// Found is the kind of the value that was there.
	Found Kind
}

// Error says what was expected and what was found.
func (e *TypeError) Error() string {
	return fmt.Sprintf("expected %s, found %s", e.Expected, e.Found)
}

// A Scanner reads one JSON text held in memory. The zero value is ready to
// use after Reset. A Scanner never modifies its input, and byte slices it
// returns point into the input or into its own buffers (see each method).
type Scanner struct {
	data []byte
	pos  int
	err  error
	// open is true right after Object or Array consumed an opening bracket,
	// so that the next NextKey or NextElem expects no comma.
	open  bool
	depth int
	// truncated is true when the last AppendString dropped bytes.
	truncated bool
	// unchecked is set while SkipUnchecked runs: strings are passed over
	// without checking their content.
	unchecked bool
	key       []byte
	// stack holds one bit per nesting level entered by Skip: 1 for an
	// object, 0 for an array.
	stack [MaxDepth/64 + 1]uint64
}

// Reset makes the scanner read data from its start and clears any error.
func (s *Scanner) Reset(data []byte) {
	s.data = data
	s.pos = 0
	s.err = nil
	s.open = false
	s.depth = 0
}

// Err returns the first error met, or nil.
func (s *Scanner) Err() error { return s.err }

// Offset returns the byte offset of the next unread byte.
func (s *Scanner) Offset() int { return s.pos }

// Fail records err as the scanner's error unless one is already recorded.
// It lets a caller stop the scan for a reason of its own (a field of the
// wrong type, say) and report it through Err.
func (s *Scanner) Fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// tooDeep records nesting past MaxDepth at s.pos. The message is made
// when asked for, from the offset, which a caller may have moved.
func (s *Scanner) tooDeep() {
	s.Fail(&SyntaxError{Offset: s.pos, depth: true})
}

// eof records an unexpected end of input and returns false.
func (s *Scanner) eof() bool {
	s.pos = len(s.data)
	s.Fail(&SyntaxError{Offset: s.pos, msg: "unexpected end of input"})
	return false
}

// invalid records an unexpected byte at s.pos (or the end of input) and
// returns false. context says what was expected.
func (s *Scanner) invalid(context string) bool {
	if s.pos >= len(s.data) {
		return s.eof()
	}
	s.Fail(&SyntaxError{Offset: s.pos, char: s.data[s.pos], expected: context})
	return false
}

func quoteByte(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf("%q", rune(c))
	}
	return "'" + string(rune(c)) + "'"
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// ws skips white space and returns the next byte, or 0 at the end of input.
func (s *Scanner) ws() byte {
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c > ' ' || !isSpace(c) {
			return c
		}
		s.pos++
	}
	return 0
}

// Peek returns the kind of the next value without consuming it. It
// returns Invalid at the end of input, on a byte that cannot start a value
// and after an error; it records no error itself.
func (s *Scanner) Peek() Kind {
	if s.err != nil {
		return Invalid
	}
	switch c := s.ws(); c {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// typeError records that the next value is not of the expected kind. A
// byte that starts no value at all is a syntax error instead.
func (s *Scanner) typeError(expected string) {
	k := s.Peek()
	if k == Invalid {
		s.invalid("value")
		return
	}
	s.Fail(&TypeError{Offset: s.pos, Expected: expected, Found: k})
}

// Object consumes the opening brace of an object. It records a TypeError
// and returns false when the next value is not an object.
func (s *Scanner) Object() bool {
	if s.Peek() != Object {
		s.typeError("object")
		return false
	}
	return s.enter()
}

// Array consumes the opening bracket of an array. It records a TypeError and
// returns false when the next value is not an array.
func (s *Scanner) Array() bool {
	if s.Peek() != Array {
		s.typeError("array")
		return false
	}
	return s.enter()
}

func (s *Scanner) enter() bool {
	if s.depth >= MaxDepth {
		s.tooDeep()
		return false
	}
	s.depth++
	s.pos++
	s.open = true
	return true
}

// NextKey moves to the next member of the object being read: it consumes
// the separating comma, then the key and its colon, and returns the key. At
// the closing brace it consumes it and returns false. The key slice points
// into the input, or into a scanner buffer when the key has escapes; it is
// valid until the next call to NextKey.
func (s *Scanner) NextKey() ([]byte, bool) {
	if s.err != nil {
		return nil, false
	}
	c := s.ws()
	if s.open {
		s.open = false
		switch c {
		case '}':
			s.pos++
			s.depth--
			return nil, false
		case '"':
		default:
			s.invalid("string for object key or '}'")
			return nil, false
		}
	} else {
		switch c {
		case '}':
			s.pos++
			s.depth--
			return nil, false
		case ',':
			s.pos++
			c = s.ws()
		default:
			s.invalid("',' or '}' after object member")
			return nil, false
		}
	}
	if c != '"' {
		s.invalid("string for object key")
		return nil, false
	}
	key, ok := s.readKey()
	if !ok {
		return nil, false
	}
	if s.ws() != ':' {
		s.invalid("':' after object key")
		return nil, false
	}
	s.pos++
	return key, true
}

// readKey reads the string at s.pos, returning it unescaped.
func (s *Scanner) readKey() ([]byte, bool) {
	start := s.pos + 1
	// Keys are short and plain ASCII: a byte at a time finds their end
	// sooner than plainRun's words do.
	d := s.data
	end := start
	for end < len(d) && keyByte[d[end]] {
		end++
	}
	if end < len(d) && d[end] == '"' {
		s.pos = end + 1
		return d[start:end], true
	}
	n, ascii := plainRun(d[start:])
	if end := start + n; end < len(d) && d[end] == '"' && (ascii || utf8.Valid(d[start:end])) {
		// Nothing to unescape or replace: return the input bytes.
		s.pos = end + 1
		return d[start:end], true
	}
	var ok bool
	s.key, ok = s.appendString(s.key[:0], -1)
	return s.key, ok
}

// keyByte marks the bytes that stand for themselves in a key read without
// a check of its UTF-8: printable ASCII but the quote and the backslash.
var keyByte = func() (t [256]bool) {
	for c := ' '; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// NextElem moves to the next element of the array being read, consuming
// the separating comma, and reports whether there is one. At the closing
// bracket it consumes it and returns false.
func (s *Scanner) NextElem() bool {
	if s.err != nil {
		return false
	}
	c := s.ws()
	if s.open {
		s.open = false
		if c == ']' {
			s.pos++
			s.depth--
			return false
		}
		return true
	}
	switch c {
	case ']':
		s.pos++
		s.depth--
		return false
	case ',':
		s.pos++
		return true
	}
	s.invalid("',' or ']' after array element")
	return false
}

// Null consumes a null and reports whether the next value was one. It
// consumes nothing otherwise.
func (s *Scanner) Null() bool {
	if s.Peek() != Null {
		return false
	}
	return s.literal("null")
}

// Bool reads a boolean. It records a TypeError when the next value is not
// true or false.
func (s *Scanner) Bool() (bool, bool) {
	if s.Peek() != Bool {
		s.typeError("boolean")
		return false, false
	}
	if s.data[s.pos] == 't' {
		return true, s.literal("true")
	}
	return false, s.literal("false")
}

func (s *Scanner) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) {
		if string(s.data[s.pos:]) == lit[:len(s.data)-s.pos] {
			return s.eof()
		}
	} else if string(s.data[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	// Point at the first byte that differs, as encoding/json does.
	for i := 0; i < len(lit) && s.pos < len(s.data) && s.data[s.pos] == lit[i]; i++ {
		s.pos++
	}
	return s.invalid("literal " + lit)
}

// Int reads a number that is an integer in the int64 range, written
// without fraction or exponent (what encoding/json accepts for an int64).
// Otherwise it records a TypeError.
func (s *Scanner) Int() (int64, bool) {
	if s.Peek() != Number {
		s.typeError("integer")
		return 0, false
	}
	start := s.pos
	if !s.number() {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s.data[start:s.pos]), 10, 64)
	if err != nil {
		s.Fail(&TypeError{Offset: start, Expected: "integer", Found: Number})
		return 0, false
	}
	return v, true
}

// Number consumes a number and returns its text as it appears in the
// input, checked but not converted. The slice points into the input. It
// records a TypeError when the next value is not a number.
func (s *Scanner) Number() []byte {
	if s.Peek() != Number {
		s.typeError("number")
		return nil
	}
	start := s.pos
	if !s.number() {
		return nil
	}
	return s.data[start:s.pos]
}

// number consumes a number, checking its syntax.
func (s *Scanner) number() bool {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		s.pos = i
		return s.eof()
	case d[i] == '0':
		i++
	case '1' <= d[i] && d[i] <= '9':
		for i++; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	default:
		s.pos = i
		return s.invalid("digit in number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) {
			s.pos = i
			return s.eof()
		}
		if d[i] < '0' || d[i] > '9' {
			s.pos = i
			return s.invalid("digit after decimal point")
		}
		for i++; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) {
			s.pos = i
			return s.eof()
		}
		if d[i] < '0' || d[i] > '9' {
			s.pos = i
			return s.invalid("digit in exponent")
		}
		for i++; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
		}
	}
	s.pos = i
	return true
}

// Skip consumes the next value, whatever its kind, checking it fully.
func (s *Scanner) Skip() {
	s.skip()
}

// SkipUnchecked consumes the next value as Skip does, checking its
// structure, numbers and literals but not the content of its strings:
// their end is found by a byte search for the closing quote (one not
// escaped by an odd run of backslashes), and a control character or an
// invalid escape inside them goes unreported. It is for values a reader
// never looks into, most of whose bytes lie in long strings full of
// escaped newlines (Claude Code's toolUseResult repeats each tool's
// output): there the search passes over escapes that Skip stops at one by
// one. A value that ends early is still an error.
func (s *Scanner) SkipUnchecked() {
	s.unchecked = true
	s.skip()
	s.unchecked = false
}

// Raw consumes the next value and returns its bytes as they appear in the
// input, without surrounding white space. The slice points into the input.
func (s *Scanner) Raw() []byte {
	if s.Peek() == Invalid {
		s.invalid("value")
		return nil
	}
	start := s.pos
	if !s.skip() {
		return nil
	}
	return s.data[start:s.pos]
}

// End checks that only white space follows the value read.
func (s *Scanner) End() bool {
	if s.err != nil {
		return false
	}
	if s.ws(); s.pos < len(s.data) {
		return s.invalid("end of input after top-level value")
	}
	return true
}

// skip consumes one value without recursion: nesting is tracked in a bit
// stack so that deep input cannot exhaust the goroutine stack.
func (s *Scanner) skip() bool {
	if s.err != nil {
		return false
	}
	base := s.depth
	top := 0 // levels entered by this call
	for {
		// A value is expected at s.pos.
		switch c := s.ws(); c {
		case '{':
			if s.depth+top >= MaxDepth {
				s.tooDeep()
				return false
			}
			s.stack[top/64] |= 1 << (top % 64)
			top++
			s.pos++
			switch s.ws() {
			case '}':
				s.pos++
				top--
			case '"':
				if !s.memberKey() {
					return false
				}
				continue
			default:
				return s.invalid("string for object key or '}'")
			}
		case '[':
			if s.depth+top >= MaxDepth {
				s.tooDeep()
				return false
			}
			s.stack[top/64] &^= 1 << (top % 64)
			top++
			s.pos++
			if s.ws() == ']' {
				s.pos++
				top--
			} else {
				continue
			}
		case '"':
			if !s.skipString() {
				return false
			}
		case 't':
			if !s.literal("true") {
				return false
			}
		case 'f':
			if !s.literal("false") {
				return false
			}
		case 'n':
			if !s.literal("null") {
				return false
			}
		default:
			if c == '-' || '0' <= c && c <= '9' {
				if !s.number() {
					return false
				}
			} else {
				return s.invalid("value")
			}
		}
		// A value ended: close containers until one continues.
		for {
			if top == 0 {
				s.depth = base
				return true
			}
			inObject := s.stack[(top-1)/64]&(1<<((top-1)%64)) != 0
			c := s.ws()
			if c == ',' {
				s.pos++
				if inObject {
					if s.ws() != '"' {
						return s.invalid("string for object key")
					}
					if !s.memberKey() {
						return false
					}
				}
				break
			}
			if inObject && c == '}' || !inObject && c == ']' {
				s.pos++
				top--
				continue
			}
			if inObject {
				return s.invalid("',' or '}' after object member")
			}
			return s.invalid("',' or ']' after array element")
		}
	}
}

// memberKey consumes an object key at s.pos and the colon after it.
func (s *Scanner) memberKey() bool {
	if !s.skipString() {
		return false
	}
	if s.ws() != ':' {
		return s.invalid("':' after object key")
	}
	s.pos++
	return true
}
