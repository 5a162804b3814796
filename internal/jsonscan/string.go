package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// AppendString reads a string, appends its unescaped value to dst and
// returns the extended slice. With max >= 0 it appends at most max bytes,
// cut at a UTF-8 character boundary, and skips the rest of the string; with
// max < 0 it appends it all. It records a TypeError when the next value is
// not a string (a null included: callers that accept null test Null first).
func (s *Scanner) AppendString(dst []byte, max int) ([]byte, bool) {
	if s.Peek() != String {
		s.typeError("string")
		return dst, false
	}
	return s.appendString(dst, max)
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// Truncated reports whether the last AppendString left out part of the
// string because of its max argument.
func (s *Scanner) Truncated() bool { return s.truncated }

// PlainLen returns the length of the longest prefix of b that holds no
// quote, backslash or control character: inside a string literal, the
// bytes that stand for themselves. Streaming readers use it to pass over
// string content in bulk.
func PlainLen(b []byte) int { return plainLen(b) }

// plainLen returns the length of the longest prefix of b that holds no
// quote, backslash or control character: the bytes of a string literal that
// can be copied as they are. It tests eight bytes at a time.
func plainLen(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i < len(b) && len(b) >= 8 {
		// The last word overlaps bytes already passed, which hold no
		// special byte, so its first flagged byte is the one sought.
		at := len(b) - 8
		if m := special(binary.LittleEndian.Uint64(b[at:])); m != 0 {
			return at + bits.TrailingZeros64(m)>>3
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			break
		}
	}
	return i
}

// special flags the bytes of x (eight bytes, the first in the low byte)
// that end a run of plain string bytes: a quote, a backslash or a control
// character. The high bit of the first such byte is set in the result; a
// byte after it may be flagged wrongly (a borrow carries into it), so only
// the lowest set bit tells a position.
func special(x uint64) uint64 {
	// Flipping bit 1 turns a quote (0x22) into 0x20 and keeps the control
	// characters below 0x20, so one comparison, y < 0x21, finds both: the
	// subtraction borrows into the high bit of such a byte. A byte is zero
	// in bs where x holds a backslash.
	y := x ^ (lsb * 0x02)
	bs := x ^ (lsb * '\\')
	return ((y-lsb*0x21)&^y | (bs-lsb)&^bs) & msb
}

// plainRun is plainLen that also reports whether the prefix is all ASCII,
// which spares the decoder a UTF-8 check of it.
func plainRun(b []byte) (int, bool) {
	i := 0
	var hi uint64 // the bytes passed, ORed together
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := special(x); m != 0 {
			k := bits.TrailingZeros64(m) &^ 7 // bit offset of the special byte
			hi |= x & (1<<k - 1)
			return i + k>>3, hi&msb == 0
		}
		hi |= x
	}
	if i < len(b) && len(b) >= 8 {
		// As in plainLen, the last word overlaps plain bytes.
		at := len(b) - 8
		x := binary.LittleEndian.Uint64(b[at:])
		if m := special(x); m != 0 {
			k := bits.TrailingZeros64(m) &^ 7
			hi |= x & (1<<k - 1)
			return at + k>>3, hi&msb == 0
		}
		return len(b), (hi|x)&msb == 0
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		hi |= uint64(c)
	}
	return i, hi&msb == 0
}

// skipString consumes the string literal at s.pos, checking its escapes and
// that it holds no control character.
func (s *Scanner) skipString() bool {
	if s.unchecked {
		return s.passString(s.pos + 1)
	}
	return s.skipRest(s.pos + 1)
}

// passString skips a string literal from d[i] to its closing quote
// without checking what lies between: see SkipUnchecked.
func (s *Scanner) passString(i int) bool {
	d := s.data
	for {
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			return s.eof()
		}
		q += i
		// The run of backslashes before the quote starts after the
		// opening quote or a quote passed, neither a backslash.
		j := q
		for d[j-1] == '\\' {
			j--
		}
		if (q-j)%2 == 0 {
			s.pos = q + 1
			return true
		}
		i = q + 1
	}
}

// escapeLen checks the escape sequence at d[i] (a backslash) and returns
// its length, or 0 after recording an error.
func (s *Scanner) escapeLen(i int) int {
	d := s.data
	if i+1 >= len(d) {
		s.eof()
		return 0
	}
	switch d[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		for j := i + 2; j < i+6; j++ {
			if j >= len(d) {
				s.eof()
				return 0
			}
			if Unhex(d[j]) < 0 {
				s.pos = j
				s.invalid("hexadecimal digit in \\u escape")
				return 0
			}
		}
		return 6
	}
	s.pos = i + 1
	s.invalid("escape character")
	return 0
}

// Unhex is the value of the hexadecimal digit c, or -1 when c is not one.
func Unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// u4 decodes the \uXXXX escape at d[i:], or returns -1 when there is none.
func u4(d []byte, i int) rune {
	if i+6 > len(d) || d[i] != '\\' || d[i+1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range d[i+2 : i+6] {
		h := Unhex(c)
		if h < 0 {
			return -1
		}
		r = r<<4 | h
	}
	return r
}

// appendString decodes the string literal at s.pos into dst, appending at
// most max bytes when max >= 0.
func (s *Scanner) appendString(dst []byte, max int) ([]byte, bool) {
	d := s.data
	start := len(dst)
	s.truncated = false
	limit := -1 // length of dst at which to stop appending
	if max >= 0 {
		limit = start + max
	}
	i := s.pos + 1
	for {
		if limit >= 0 && len(dst) >= limit && (i >= len(d) || d[i] != '"') {
			// Enough kept: check and skip the rest of the literal.
			s.truncated = true
			if !s.skipRest(i) {
				return dst, false
			}
			return truncate(dst, start, limit), true
		}
		n, ascii := plainRun(d[i:])
		if limit >= 0 && n > 0 && n > limit-len(dst)+utf8.UTFMax {
			// Copy only what can be kept; the extra UTFMax bytes let
			// truncate find the character boundary at the limit. (With
			// n > 0 the limit is not reached yet: see above.)
			m := limit - len(dst) + utf8.UTFMax
			dst = appendUTF8(dst, d[i:i+m])
			i += m
			continue
		}
		if ascii {
			dst = append(dst, d[i:i+n]...)
		} else {
			dst = appendUTF8(dst, d[i:i+n])
		}
		i += n
		if i >= len(d) {
			s.eof()
			return dst, false
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			if limit >= 0 && len(dst) > limit {
				s.truncated = true
				dst = truncate(dst, start, limit)
			}
			return dst, true
		case c == '\\':
			if i+1 < len(d) && simpleEscape[d[i+1]] {
				// The common case, without the call.
				dst = append(dst, unescaped[d[i+1]])
				i += 2
				continue
			}
			n := s.escapeLen(i)
			if n == 0 {
				return dst, false
			}
			switch e := d[i+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := u4(d, i)
				if 0xd800 <= r && r < 0xe000 {
					// UTF-16 surrogate: valid only as a high surrogate
					// followed by an escaped low one. Otherwise it becomes
					// U+FFFD and the next escape is read on its own, as
					// encoding/json does.
					r2 := u4(d, i+6)
					if r < 0xdc00 && 0xdc00 <= r2 && r2 < 0xe000 {
						r = (r-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
						n += 6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
			i += n
		default:
			s.pos = i
			s.invalid("no control character in string literal")
			return dst, false
		}
	}
}

// simpleEscape marks the bytes that make a two-byte escape after a
// backslash (\uXXXX is the other kind).
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// unescaped is the byte a two-byte escape stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// skipRest checks and skips a string literal from d[i] to its closing quote.
func (s *Scanner) skipRest(i int) bool {
	d := s.data
	for {
		// plainLen written out, without the call: this loop runs for
		// every string skipped.
		found := false
		for i+8 <= len(d) {
			if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				found = true
				break
			}
			i += 8
		}
		if !found {
			i += plainLen(d[i:])
			if i >= len(d) {
				return s.eof()
			}
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return true
		case c == '\\':
			if i+1 < len(d) && simpleEscape[d[i+1]] {
				i += 2 // the common case, without the call
				continue
			}
			n := s.escapeLen(i)
			if n == 0 {
				return false
			}
			i += n
		default:
			s.pos = i
			return s.invalid("no control character in string literal")
		}
	}
}

// truncate cuts dst to at most limit bytes without splitting a UTF-8
// character of the part appended after start.
func truncate(dst []byte, start, limit int) []byte {
	if len(dst) <= limit {
		return dst
	}
	cut := limit
	for cut > start && !utf8.RuneStart(dst[cut]) {
		cut--
	}
	return dst[:cut]
}

// appendUTF8 appends raw string bytes, replacing each byte that is not part
// of valid UTF-8 by U+FFFD as encoding/json does.
func appendUTF8(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			dst = append(dst, b[0])
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

// AppendEscaped appends text as the content of a JSON string, without its
// quotes: quotes, backslashes and control characters escaped, every other
// byte as it is.
func AppendEscaped(out, text []byte) []byte {
	const hexDigits = "0123456789abcdef"
	for len(text) > 0 {
		n := plainLen(text)
		out = append(out, text[:n]...)
		if n == len(text) {
			break
		}
		switch b := text[n]; b {
		case '"', '\\':
			out = append(out, '\\', b)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
		}
		text = text[n+1:]
	}
	return out
}
