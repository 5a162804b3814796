// Package printable escapes control characters in text that comes from
// input files (scenario, task and tool names, paths, trace contents) before
// it is printed: to a terminal, where ESC ] 0 ; … BEL retitles the window
// and ESC [ 2 J clears it, into a CI log, a markdown report or JUnit XML.
//
// Escaped are the C0 controls (U+0000–U+001F), DEL (U+007F), the C1
// controls (U+0080–U+009F, which some terminals obey as ESC sequences), the
// Unicode characters that reorder or break text without showing (the bidi
// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the
// line and paragraph separators U+2028 and U+2029), and bytes that are not
// UTF-8. Each becomes an escape a reader can recognise: \n, \r, \t, \a,
// \u001b, \u009b, \u202e, and \xff for a stray byte. Everything else,
// backslashes included, is left as it is, so text without such characters
// prints unchanged. The \u escapes are JSON's too, and JSON encoders
// already escape C0 controls, so a JSON document stays valid, and means
// the same, through Text.
package printable

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A Writer escapes what is written through it with Text. A character cut
// in two by the end of a Write (a bufio.Writer flushing) is held back until
// the next Write completes it; one still cut when writing ends is dropped.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that escapes onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Text(p) to the underlying writer and reports len(p).
func (w *Writer) Write(p []byte) (int, error) {
	data := append(w.pending, p...)
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i > len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	w.pending = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(w.w, Text(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the underlying writer, for a caller that writes its own
// control sequences (a progress line on a terminal) and escapes the text
// it puts in them.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Line escapes every control character of s, newline and tab included: the
// result is one line whatever s holds. Use it for a name or a value
// printed inside a line.
func Line(s string) string { return escape(s, false) }

// Text escapes the control characters of s but newlines and tabs, which
// lay out a message of several lines and cannot move the cursor back or
// program the terminal. Use it for a whole message.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLayout bool) string {
	i := firstUnsafe(s, keepLayout)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafe(r, keepLayout):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\a':
			b.WriteString(`\a`)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s to escape, or
// len(s).
func firstUnsafe(s string, keepLayout bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafe(rune(c), keepLayout) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafe(r, keepLayout) {
			return i
		}
		i += size
	}
	return len(s)
}

// unsafe reports whether r is to be escaped.
func unsafe(r rune, keepLayout bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLayout
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}
