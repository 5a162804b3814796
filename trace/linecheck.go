package trace

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// A line that is not a record can be as long as a record: a tool's binary
// output pasted into the file, a log line of gigabytes. Holding it to
// report it would cost its length in memory, so once a line is longer than
// lineCheckAt the line reader checks its syntax as it streams in
// (lineCheck), and at the first byte that shows the line cannot be a record
// (a JSON object) it drops the rest of the line unread into memory and
// warns with the line's number and first bytes. Shorter lines, nearly all
// of them, are left to the readers' own parsers.

// lineCheckAt is the length past which a line is checked as it is read:
// the length past which Claude lines are compacted. Checking costs about a
// tenth of a read, and a shorter line, held whole, takes little memory.
// Tests lower it to check every line.
var lineCheckAt = 16 << 20

// lineHeadBytes bounds the quoted start of a skipped line in its warning.
const lineHeadBytes = 64

// lineCheck states: what the next byte may be.
const (
	lcStart     = iota // white space, then '{'
	lcValue            // a value (after ':' or ',' in an array)
	lcElemOrEnd        // a value or ']' (after '[')
	lcKeyOrEnd         // '"' or '}' (after '{')
	lcKey              // '"' (after ',' in an object)
	lcColon            // ':'
	lcAfter            // ',' or the closing bracket, after a value
	lcString           // inside a string
	lcEscape           // after '\' in a string
	lcHex              // in the four hex digits of \u
	lcNumber           // inside a number
	lcLiteral          // inside true, false or null
	lcDone             // after the record: white space only
)

// lineCheck follows the JSON syntax of one line, byte by byte, without
// keeping it. It accepts every line the readers' scanner accepts (it is
// looser with numbers), so a line it rejects is one no reader could use.
type lineCheck struct {
	state   int
	isKey   bool // the string being read is a key
	hexLeft int
	lit     string // the rest of the literal being read
	depth   int
	stack   [jsonscan.MaxDepth/64 + 1]uint64 // bit set: an object
	off     int                              // bytes checked
	bad     string                           // why the line is not a record; "" while it may be one
	badAt   int
}

func (c *lineCheck) reset() {
	c.state, c.depth, c.off, c.bad, c.badAt = lcStart, 0, 0, "", 0
}

func (c *lineCheck) fail(i int, what string) {
	c.bad, c.badAt = what, c.off+i
}

// write checks the next bytes of the line; it reports false, with c.bad
// set, at the first byte that shows the line is not a record.
func (c *lineCheck) write(p []byte) bool {
	if c.bad != "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch c.state {
		case lcString:
			if n := jsonscan.PlainLen(p[i:]); n > 0 {
				i += n - 1
				continue
			}
			switch {
			case b == '"':
				c.state = lcAfter
				if c.isKey {
					c.state = lcColon
				}
			case b == '\\':
				c.state = lcEscape
			default:
				c.fail(i, "a control character in a string")
				return false
			}
			continue
		case lcEscape:
			switch b {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.state = lcString
			case 'u':
				c.state, c.hexLeft = lcHex, 4
			default:
				c.fail(i, "an invalid escape "+lineQuoteByte(b)+" in a string")
				return false
			}
			continue
		case lcHex:
			if jsonscan.Unhex(b) < 0 {
				c.fail(i, "an invalid \\u escape in a string")
				return false
			}
			if c.hexLeft--; c.hexLeft == 0 {
				c.state = lcString
			}
			continue
		case lcLiteral:
			if b != c.lit[0] {
				c.fail(i, "invalid character "+lineQuoteByte(b)+" in a literal")
				return false
			}
			if c.lit = c.lit[1:]; c.lit == "" {
				c.state = lcAfter
			}
			continue
		case lcNumber:
			if b >= '0' && b <= '9' || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-' {
				continue
			}
			c.state = lcAfter
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		if !c.next(i, b) {
			return false
		}
	}
	c.off += len(p)
	return true
}

// next handles a byte outside strings, numbers and literals.
func (c *lineCheck) next(i int, b byte) bool {
	switch c.state {
	case lcStart:
		if c.off+i < 3 && (b == 0xef || b == 0xbb || b == 0xbf) {
			return true // a byte order mark
		}
		if b != '{' {
			c.fail(i, "found "+lineQuoteByte(b)+" where a record (a JSON object) starts")
			return false
		}
		return c.open(i, true)
	case lcKeyOrEnd, lcKey:
		switch {
		case b == '"':
			c.state, c.isKey = lcString, true
			return true
		case b == '}' && c.state == lcKeyOrEnd:
			return c.close(i, b)
		}
		c.fail(i, "invalid character "+lineQuoteByte(b)+" where a key is expected")
		return false
	case lcColon:
		if b != ':' {
			c.fail(i, "invalid character "+lineQuoteByte(b)+" after a key")
			return false
		}
		c.state = lcValue
		return true
	case lcValue, lcElemOrEnd:
		return c.value(i, b)
	case lcAfter:
		switch {
		case b == ',' && c.depth > 0:
			c.state = lcValue
			if c.inObject() {
				c.state = lcKey
			}
			return true
		case b == '}' || b == ']':
			return c.close(i, b)
		}
		c.fail(i, "invalid character "+lineQuoteByte(b)+" after a value")
		return false
	}
	c.fail(i, "invalid character "+lineQuoteByte(b)+" after the record")
	return false
}

// value starts a value with byte b.
func (c *lineCheck) value(i int, b byte) bool {
	switch {
	case b == '"':
		c.state, c.isKey = lcString, false
	case b == '{':
		return c.open(i, true)
	case b == '[':
		return c.open(i, false)
	case b == ']' && c.state == lcElemOrEnd:
		return c.close(i, b)
	case b == '-' || b >= '0' && b <= '9':
		c.state = lcNumber
	case b == 't':
		c.state, c.lit = lcLiteral, "rue"
	case b == 'f':
		c.state, c.lit = lcLiteral, "alse"
	case b == 'n':
		c.state, c.lit = lcLiteral, "ull"
	default:
		c.fail(i, "invalid character "+lineQuoteByte(b)+" where a value is expected")
		return false
	}
	return true
}

func (c *lineCheck) inObject() bool {
	d := c.depth - 1
	return c.stack[d/64]&(1<<(d%64)) != 0
}

func (c *lineCheck) open(i int, object bool) bool {
	if c.depth >= jsonscan.MaxDepth {
		c.fail(i, fmt.Sprintf("nesting deeper than %d", jsonscan.MaxDepth))
		return false
	}
	d := c.depth
	if object {
		c.stack[d/64] |= 1 << (d % 64)
		c.state = lcKeyOrEnd
	} else {
		c.stack[d/64] &^= 1 << (d % 64)
		c.state = lcElemOrEnd
	}
	c.depth++
	return true
}

func (c *lineCheck) close(i int, b byte) bool {
	if c.depth == 0 || c.inObject() != (b == '}') {
		c.fail(i, "unexpected "+lineQuoteByte(b))
		return false
	}
	c.depth--
	c.state = lcAfter
	if c.depth == 0 {
		c.state = lcDone
	}
	return true
}

// lineSkipMessage is the warning for a line dropped as it streamed by.
func lineSkipMessage(c *lineCheck, head []byte, more bool) string {
	return fmt.Sprintf("not a JSON record: %s at offset %d; line skipped (it starts %s)", c.bad, c.badAt, lineQuoteHead(head, more))
}

// lineQuoteHead quotes the start of a line in at most lineHeadBytes
// escaped bytes, with "…" after it when the line goes on (more).
func lineQuoteHead(head []byte, more bool) string {
	out := []byte{'"'}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		var esc []byte
		if r == utf8.RuneError && size == 1 {
			esc = fmt.Appendf(nil, `\x%02x`, head[i])
		} else {
			q := strconv.QuoteRuneToASCII(r)
			esc = []byte(q[1 : len(q)-1])
			if r == '"' {
				esc = []byte(`\"`)
			} else if r == '\'' {
				esc = []byte(`'`)
			}
		}
		if len(out)-1+len(esc) > lineHeadBytes {
			return string(out) + `"…`
		}
		out = append(out, esc...)
		i += size
	}
	if more {
		return string(out) + `"…`
	}
	return string(out) + `"`
}

func lineQuoteByte(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return strconv.QuoteRune(rune(b))
	}
	return fmt.Sprintf("byte 0x%02x", b)
}
