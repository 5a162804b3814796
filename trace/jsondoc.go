package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// This file holds jsonDoc, the streaming reader of the whole-document JSON
// formats that hold many records in one array (OpenHands event lists,
// SWE-agent trajectories, older Gemini CLI sessions, mini-swe-agent
// trajectories). It walks the few outer containers itself and
// hands each record to the caller as the bytes of one complete value, checked
// by jsonscan, so that a reader decodes only the fields it keeps. Memory is
// bounded by the largest record, not by the document.

// jsonDocError is a syntax error, truncation or read error that stops a
// jsonDoc, with the line where it happened.
type jsonDocError struct {
	Line int
	Err  error
	// Truncated is true when the document ends in the middle of a value.
	Truncated bool
}

func (e *jsonDocError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *jsonDocError) Unwrap() error { return e.Err }

// jsonDocFrame is one container the walk has entered.
type jsonDocFrame struct {
	object bool
	// started is true once the first member or element was read.
	started bool
}

// jsonDoc reads one JSON document from a stream.
type jsonDoc struct {
	r   io.Reader
	buf []byte
	pos int // next unread byte of buf
	eof bool
	// line is the 1-based line of buf[counted]: newlines before it are
	// already counted.
	line    int
	counted int
	stack   []jsonDocFrame
	sc      jsonscan.Scanner
	err     error
}

// jsonDocBufSize is the initial buffer; it doubles while one value does not
// fit.
const jsonDocBufSize = 64 << 10

func newJSONDoc(r io.Reader) *jsonDoc { return newJSONDocSize(r, jsonDocBufSize) }

// newJSONDocSize starts with a buffer of the given size (tests use tiny
// ones to cut values everywhere).
func newJSONDocSize(r io.Reader, size int) *jsonDoc {
	return &jsonDoc{r: r, buf: make([]byte, 0, max(size, 1)), line: 1}
}

// Line returns the line on which the next unread byte sits.
func (d *jsonDoc) Line() int {
	d.line += bytes.Count(d.buf[d.counted:d.pos], []byte{'\n'})
	d.counted = d.pos
	return d.line
}

// fill reads more input, keeping buf[pos:]. It doubles the buffer when the
// unread part fills it, so that a value of n bytes is rescanned O(log n)
// times. It returns false at the end of input or on a read error.
func (d *jsonDoc) fill() bool {
	if d.eof || d.err != nil {
		return false
	}
	d.Line()
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:])
		d.buf = d.buf[:n]
		d.pos, d.counted = 0, 0
	}
	if len(d.buf) == cap(d.buf) {
		grown := make([]byte, len(d.buf), 2*cap(d.buf))
		copy(grown, d.buf)
		d.buf = grown
	}
	start := len(d.buf)
	for empty := 0; len(d.buf) < cap(d.buf); {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err == io.EOF {
			d.eof = true
			break
		}
		if err != nil {
			d.err = err
			break
		}
		if n == 0 {
			if empty++; empty > 100 {
				d.err = io.ErrNoProgress
				break
			}
		}
	}
	return len(d.buf) > start
}

// peek skips white space and returns the next byte; ok is false at the end
// of input.
func (d *jsonDoc) peek() (byte, bool) {
	for {
		for d.pos < len(d.buf) {
			switch c := d.buf[d.pos]; c {
			case ' ', '\t', '\r', '\n':
				d.pos++
			default:
				return c, true
			}
		}
		if !d.fill() {
			return 0, false
		}
	}
}

// fail builds the error for an unexpected byte or the end of input.
func (d *jsonDoc) fail(expected string) error {
	if d.err != nil {
		return &jsonDocError{Line: d.Line(), Err: d.err}
	}
	c, ok := d.peek()
	if !ok {
		return &jsonDocError{Line: d.Line(), Err: fmt.Errorf("unexpected end of input (expected %s)", expected), Truncated: true}
	}
	return &jsonDocError{Line: d.Line(), Err: fmt.Errorf("invalid character %q (expected %s)", c, expected)}
}

// Open enters the object or array that comes next and reports which it is.
func (d *jsonDoc) Open() (object bool, err error) {
	c, ok := d.peek()
	if !ok || c != '{' && c != '[' {
		return false, d.fail("an object or an array")
	}
	d.pos++
	d.stack = append(d.stack, jsonDocFrame{object: c == '{'})
	return c == '{', nil
}

// more moves past the separator before the next member or element of the
// innermost container; it returns false, leaving the container, at its end.
func (d *jsonDoc) more() (bool, error) {
	f := &d.stack[len(d.stack)-1]
	closer := byte(']')
	if f.object {
		closer = '}'
	}
	c, ok := d.peek()
	if ok && c == closer {
		d.pos++
		d.stack = d.stack[:len(d.stack)-1]
		return false, nil
	}
	if f.started {
		if !ok || c != ',' {
			return false, d.fail(fmt.Sprintf("',' or '%c'", closer))
		}
		d.pos++
	}
	f.started = true
	return true, nil
}

// NextElem moves to the next element of the array being read; it returns
// false after the closing bracket.
func (d *jsonDoc) NextElem() (bool, error) { return d.more() }

// NextKey moves to the next member of the object being read and returns its
// key; ok is false after the closing brace.
func (d *jsonDoc) NextKey() (key string, ok bool, err error) {
	if ok, err = d.more(); !ok || err != nil {
		return "", false, err
	}
	if c, ok := d.peek(); !ok || c != '"' {
		return "", false, d.fail("a string for an object key")
	}
	raw, err := d.Value()
	if err != nil {
		return "", false, err
	}
	d.sc.Reset(raw)
	k, _ := d.sc.AppendString(nil, -1)
	if c, ok := d.peek(); !ok || c != ':' {
		return "", false, d.fail("':' after an object key")
	}
	d.pos++
	return string(k), true, nil
}

// Value reads the next complete value and returns its bytes, checked to be
// valid JSON. The slice is valid until the next call.
func (d *jsonDoc) Value() ([]byte, error) {
	if _, ok := d.peek(); !ok {
		return nil, d.fail("a value")
	}
	for {
		d.sc.Reset(d.buf[d.pos:])
		d.sc.Skip()
		end := d.sc.Offset()
		err := d.sc.Err()
		// A value that reaches the end of the buffer may go on (a number,
		// or a string or container cut by the buffer): read more and look
		// again.
		if d.pos+end >= len(d.buf) && !d.eof && d.err == nil {
			d.fill()
			continue
		}
		if err != nil {
			var se *jsonscan.SyntaxError
			off := len(d.buf) - d.pos
			if errors.As(err, &se) {
				off = min(se.Offset, off)
			}
			d.Line()
			line := d.line + bytes.Count(d.buf[d.pos:d.pos+off], []byte{'\n'})
			if d.err != nil {
				return nil, &jsonDocError{Line: line, Err: d.err}
			}
			return nil, &jsonDocError{Line: line, Err: err, Truncated: d.pos+off >= len(d.buf)}
		}
		v := d.buf[d.pos : d.pos+end]
		d.pos += end
		return v, nil
	}
}

// Frame reads the next value and returns its bytes without checking them,
// for a caller that decodes all of the value with jsonscan, which checks it
// then (an error from that decode goes through RecordError). It finds the
// end of the value by its quotes and brackets alone, at the speed of
// bytes.IndexByte inside strings, where the bulk of a trace is, so that the
// value is scanned once rather than twice. The slice is valid until the
// next call.
func (d *jsonDoc) Frame() ([]byte, error) {
	c, ok := d.peek()
	if !ok {
		return nil, d.fail("a value")
	}
	var end int
	switch c {
	case '{', '[':
		end, ok = d.frameContainer()
	case '"':
		end, ok = d.frameString()
	case '}', ']', ',', ':':
		return nil, d.fail("a value")
	default:
		end, ok = d.frameScalar()
	}
	if !ok {
		d.pos = len(d.buf)
		if d.err != nil {
			return nil, &jsonDocError{Line: d.Line(), Err: d.err}
		}
		return nil, &jsonDocError{Line: d.Line(), Err: errors.New("unexpected end of input"), Truncated: true}
	}
	v := d.buf[d.pos : d.pos+end]
	d.pos += end
	return v, nil
}

// frameString finds the end of the string starting at buf[pos]; end is
// relative to pos.
func (d *jsonDoc) frameString() (end int, ok bool) {
	off := 1
	for {
		data := d.buf[d.pos:]
		for {
			j := bytes.IndexByte(data[off:], '"')
			if j < 0 {
				off = len(data)
				break
			}
			q := off + j
			if escapedQuote(data, q) {
				off = q + 1
				continue
			}
			return q + 1, true
		}
		if !d.fill() {
			return 0, false
		}
	}
}

// escapedQuote reports whether the quote at data[q] is escaped: preceded by
// an odd number of backslashes.
func escapedQuote(data []byte, q int) bool {
	k := q
	for k > 0 && data[k-1] == '\\' {
		k--
	}
	return (q-k)%2 == 1
}

// frameContainer finds the end of the object or array starting at
// buf[pos], by counting brackets outside strings.
func (d *jsonDoc) frameContainer() (end int, ok bool) {
	off, depth, inString := 0, 0, false
	for {
		data := d.buf[d.pos:]
		for off < len(data) {
			if inString {
				j := bytes.IndexByte(data[off:], '"')
				if j < 0 {
					off = len(data)
					break
				}
				q := off + j
				off = q + 1
				if !escapedQuote(data, q) {
					inString = false
				}
				continue
			}
			j := bytes.IndexAny(data[off:], "\"{}[]")
			if j < 0 {
				off = len(data)
				break
			}
			off += j
			switch data[off] {
			case '"':
				inString = true
			case '{', '[':
				depth++
			default:
				depth--
				if depth == 0 {
					return off + 1, true
				}
			}
			off++
		}
		if !d.fill() {
			return 0, false
		}
	}
}

// frameScalar finds the end of a number or literal: the next delimiter or
// white space. A scalar may end the input.
func (d *jsonDoc) frameScalar() (end int, ok bool) {
	off := 0
	for {
		data := d.buf[d.pos:]
		for ; off < len(data); off++ {
			switch data[off] {
			case ',', '}', ']', ':', ' ', '\t', '\r', '\n', '"', '{', '[':
				return off, true
			}
		}
		if !d.fill() {
			return off, off > 0
		}
	}
}

// Parse reads the next value in place, in one pass: it resets sc on the
// buffered input from the value on and calls parse, which must consume
// exactly one value with sc (without calling End) and may not keep
// anything that points into the input past the next call to the jsonDoc.
// When the scan runs into the end of the buffered input, Parse reads more
// and calls parse again, so parse must start from a clean state each time.
// A syntax error or truncation is returned as err. Any other error parse
// left in sc (a field of the wrong type) is returned as recErr, with the
// value skipped, so that the caller can report the record and go on.
func (d *jsonDoc) Parse(sc *jsonscan.Scanner, parse func()) (recErr, err error) {
	if _, ok := d.peek(); !ok {
		return nil, d.fail("a value")
	}
	for {
		sc.Reset(d.buf[d.pos:])
		parse()
		end, perr := sc.Offset(), sc.Err()
		var se *jsonscan.SyntaxError
		isSyntax := errors.As(perr, &se)
		// The value may go on past the buffered input: read more and
		// parse again.
		if (perr == nil && d.pos+end >= len(d.buf) || isSyntax && se.Offset >= len(d.buf)-d.pos) && !d.eof && d.err == nil {
			d.fill()
			continue
		}
		switch {
		case perr == nil:
			d.pos += end
			return nil, nil
		case isSyntax:
			// Value finds the line of the error and tells a truncation.
			_, err := d.Value()
			if err == nil {
				err = &jsonDocError{Line: d.Line(), Err: perr}
			}
			return nil, err
		}
		return perr, d.Skip()
	}
}

// Skip reads and drops the next value.
func (d *jsonDoc) Skip() error {
	_, err := d.Value()
	return err
}

// RecordError turns an error from decoding raw, a value Value returned that
// starts on line, into a jsonDocError that stops the document: a type error
// names what was expected there.
func (d *jsonDoc) RecordError(line int, raw []byte, err error, what string) error {
	var se *jsonscan.SyntaxError
	var te *jsonscan.TypeError
	switch {
	case errors.As(err, &se):
		at := min(max(se.Offset, 0), len(raw))
		return &jsonDocError{Line: line + bytes.Count(raw[:at], []byte{'\n'}), Err: err}
	case errors.As(err, &te):
		return &jsonDocError{Line: line, Err: fmt.Errorf("expected %s, found %s", what, te.Found)}
	}
	return &jsonDocError{Line: line, Err: err}
}

// End reports what follows the root value: nothing, or a note about the
// data that was ignored and the line where it starts.
func (d *jsonDoc) End() (note string, line int) {
	if _, ok := d.peek(); !ok {
		return "", 0
	}
	return "ignored data after the end of the document", d.Line()
}

// jsonValueKind names the kind of JSON value that starts with c.
func jsonValueKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	}
	return "text that is not JSON"
}
