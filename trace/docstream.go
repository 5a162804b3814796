package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// docStream reads one JSON document from a stream a value at a time, for
// the formats that keep a whole run in one document (an older Gemini CLI
// session, a mini-swe-agent trajectory). It walks the document's outer
// structure itself and frames the values inside it: it finds where a value
// ends, tracking only strings and brackets, and hands its bytes to the
// caller, who decodes them with jsonscan, which checks them fully. Only the
// value being read is held in memory, and framing runs at the speed of
// bytes.IndexByte inside strings, where the bulk of a trace is.
//
// Errors are *atifStreamError, with the line where the document broke.
type docStream struct {
	r   io.Reader
	buf []byte
	pos int // next unread byte of buf
	// counted is how far the newlines of buf have been counted into lines.
	counted, lines int
	eof            bool
	rerr           error
}

func newDocStream(r io.Reader) *docStream {
	return &docStream{r: r, buf: make([]byte, 0, 64<<10)}
}

// fill reads more input, first dropping the bytes before keep (which must
// not be after pos). It returns false when no byte could be added.
func (d *docStream) fill(keep int) bool {
	if d.eof {
		return false
	}
	if keep > 0 {
		if d.counted < keep {
			d.lines += bytes.Count(d.buf[d.counted:keep], []byte{'\n'})
			d.counted = keep
		}
		n := copy(d.buf, d.buf[keep:])
		d.buf = d.buf[:n]
		d.pos -= keep
		d.counted -= keep
	}
	if len(d.buf) == cap(d.buf) {
		grown := make([]byte, len(d.buf), 2*cap(d.buf))
		copy(grown, d.buf)
		d.buf = grown
	}
	for {
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		if err != nil {
			d.eof = true
			if err != io.EOF {
				d.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// line returns the line of buf[pos].
func (d *docStream) line() int {
	if d.counted < d.pos {
		d.lines += bytes.Count(d.buf[d.counted:d.pos], []byte{'\n'})
		d.counted = d.pos
	}
	return d.lines + 1
}

// fail returns the error for a document that broke at the current
// position: a read error, or err.
func (d *docStream) fail(err error) error {
	if d.rerr != nil {
		err = d.rerr
	}
	return &atifStreamError{Line: d.line(), Err: err}
}

// peek skips white space and returns the next byte; ok is false at the end
// of input.
func (d *docStream) peek() (byte, bool) {
	for {
		for d.pos < len(d.buf) {
			switch c := d.buf[d.pos]; c {
			case ' ', '\t', '\r', '\n':
				d.pos++
			default:
				return c, true
			}
		}
		if !d.fill(d.pos) {
			return 0, false
		}
	}
}

// expect consumes the byte c after white space.
func (d *docStream) expect(c byte, what string) error {
	got, ok := d.peek()
	if !ok {
		return d.fail(io.ErrUnexpectedEOF)
	}
	if got != c {
		return d.fail(fmt.Errorf("invalid character %s (expected %s)", docQuoteChar(got), what))
	}
	d.pos++
	return nil
}

func docQuoteChar(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return "'" + string(rune(c)) + "'"
}

// next reports whether the object or array being walked has another
// member, consuming the comma before it (first is true before the first
// member) or the closing bracket after the last.
func (d *docStream) next(first bool, closing byte) (bool, error) {
	c, ok := d.peek()
	if !ok {
		return false, d.fail(io.ErrUnexpectedEOF)
	}
	if c == closing {
		d.pos++
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, d.fail(fmt.Errorf("invalid character %s after a value (expected ',' or '%c')", docQuoteChar(c), closing))
	}
	d.pos++
	if c, ok := d.peek(); ok && c == closing {
		return false, d.fail(fmt.Errorf("invalid character '%c' after a comma (expected a value)", closing))
	}
	return true, nil
}

// key reads an object member's key and the colon after it.
func (d *docStream) key(sc *jsonscan.Scanner, dst []byte) ([]byte, error) {
	line := d.line()
	raw, err := d.value()
	if err != nil {
		return nil, err
	}
	sc.Reset(raw)
	k, _ := sc.AppendString(dst[:0], -1)
	if err := sc.Err(); err != nil {
		return nil, d.valueError(line, raw, err, "an object key")
	}
	return k, d.expect(':', "':' after an object key")
}

// valueError turns a jsonscan error in a framed value that starts on line
// into a stream error naming the line of the offending byte.
func (d *docStream) valueError(line int, raw []byte, err error, what string) error {
	var se *jsonscan.SyntaxError
	var te *jsonscan.TypeError
	switch {
	case errors.As(err, &se):
		at := min(max(se.Offset, 0), len(raw))
		return &atifStreamError{Line: line + bytes.Count(raw[:at], []byte{'\n'}), Err: err}
	case errors.As(err, &te):
		return &atifStreamError{Line: line, Err: fmt.Errorf("expected %s, found %s", what, te.Found)}
	}
	return &atifStreamError{Line: line, Err: err}
}

// value frames the next value and returns its bytes, which stay valid
// until the next call. A value cut by the end of input is an
// io.ErrUnexpectedEOF error.
func (d *docStream) value() ([]byte, error) {
	c, ok := d.peek()
	if !ok {
		return nil, d.fail(io.ErrUnexpectedEOF)
	}
	var end int
	var done bool
	switch c {
	case '{', '[':
		end, done = d.frameContainer()
	case '"':
		end, done = d.frameString()
	case '}', ']', ',', ':':
		return nil, d.fail(fmt.Errorf("invalid character %s (expected a value)", docQuoteChar(c)))
	default:
		end, done = d.frameScalar()
	}
	if !done {
		d.pos = len(d.buf)
		return nil, d.fail(io.ErrUnexpectedEOF)
	}
	v := d.buf[d.pos : d.pos+end]
	d.pos += end
	return v, nil
}

// skip drops the next value.
func (d *docStream) skip() error {
	_, err := d.value()
	return err
}

// frameString finds the end of the string starting at buf[pos]; end is
// relative to pos.
func (d *docStream) frameString() (end int, done bool) {
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
			if docEscapedQuote(data, q) {
				off = q + 1
				continue
			}
			return q + 1, true
		}
		if !d.fill(d.pos) {
			return 0, false
		}
	}
}

// docEscapedQuote reports whether the quote at data[q] is escaped: preceded
// by an odd number of backslashes.
func docEscapedQuote(data []byte, q int) bool {
	k := q
	for k > 0 && data[k-1] == '\\' {
		k--
	}
	return (q-k)%2 == 1
}

// frameContainer finds the end of the object or array starting at
// buf[pos], by counting brackets outside strings.
func (d *docStream) frameContainer() (end int, done bool) {
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
				if !docEscapedQuote(data, q) {
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
		if !d.fill(d.pos) {
			return 0, false
		}
	}
}

// frameScalar finds the end of a number or literal: the next delimiter or
// white space. A scalar may end the input.
func (d *docStream) frameScalar() (end int, done bool) {
	off := 0
	for {
		data := d.buf[d.pos:]
		for ; off < len(data); off++ {
			switch data[off] {
			case ',', '}', ']', ':', ' ', '\t', '\r', '\n', '"', '{', '[':
				return off, true
			}
		}
		if !d.fill(d.pos) {
			return off, off > 0
		}
	}
}

// end reports what follows the document: nothing, or a note about the
// data that was ignored.
func (d *docStream) end() (note string, line int) {
	c, ok := d.peek()
	if !ok {
		return "", 0
	}
	return fmt.Sprintf("ignored data after the end of the document (starting with %s)", docQuoteChar(c)), d.line()
}

// docValueKind names the kind of JSON value that starts with c.
func docValueKind(c byte) string {
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
