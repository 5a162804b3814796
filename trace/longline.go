package trace

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// A tool's whole output, or a whole conversation, can make one line of a
// trace gigabytes long, and most formats are read a line at a time. Past
// longLine bytes, a line of a reader with a result budget is passed
// through a stringCutter as it streams in: every string is kept up to
// keepBytes, and a long string whose text is itself JSON (Codex's
// function_call output, OpenTelemetry's gen_ai.*.messages, a tool's JSON
// arguments) is read as JSON, its own long strings cut, and written back
// as a string. The line the reader parses then holds the same structure,
// every short value, and the start of every long one, so a call, its id,
// its name and the start of its result survive; the bytes the cutter drops
// are checked the way the JSON scanner would check them, so an invalid
// line is still met as invalid. What was cut is reported once a line.
//
// A line that stays over lineMax even so (millions of small values) is
// skipped, with a warning: the bound on what one line may take.

// longLine is the length past which a line is cut as it is read (a
// variable so that tests can cut every line).
var longLine = 16 << 20

// Limits of the cutter; variables so that tests can lower them.
var (
	// minKeepBytes is the least kept of a string: more than any id, name,
	// path or command, so that only results and contents are cut.
	minKeepBytes = 1 << 20
	// nestMax is what the JSON text of one string may take once its own
	// long strings are cut; past it, the rest of the string is dropped.
	nestMax = 32 << 20
	// lineMax is what a cut line may take.
	lineMax = 64 << 20
)

// stringCutter cuts the long strings of one line. It never holds more of
// the line than it keeps, and keeps the line valid JSON where it was.
type stringCutter struct {
	keep  int  // bytes kept of a string, counted as read (an escape once)
	nests bool // a long string holding JSON is read as JSON
	max   int  // bytes the cut line may take; past them it is full

	out  []byte
	cuts []cut
	full bool // out passed max: the line is not read

	inString bool
	raw      bool // the string is counted in raw bytes, n of them so far
	bs       int  // backslashes ending the raw bytes of the string so far
	esc      int  // bytes left of an escape in a kept string
	start    int  // offset in out where the current string's content starts
	n        int  // raw bytes of the current string read so far
	dropping bool
	drop     escapeCheck // an escape in the dropped part of a string
	given    bool        // a byte that is not valid JSON was met: the rest is kept

	// While the current string is read as JSON, its content is decoded
	// into inner and its raw length counted in nestRaw.
	inner   *stringCutter
	nesting bool
	nestRaw int
	dec     stringDecoder

	cutN, nestedN int // strings cut, strings read as JSON, this line
	longest       int // raw length of the longest string cut

	// newlines counts the line breaks met outside strings (a string
	// holds none), and firstCut is the 1-based line of the first string
	// cut or read as JSON, for a whole document's warning.
	newlines, firstCut int
}

func newStringCutter(maxResult int) *stringCutter {
	return &stringCutter{keep: max(maxResult+8, minKeepBytes), nests: true, max: lineMax}
}

func (c *stringCutter) reset() {
	*c = stringCutter{keep: c.keep, nests: c.nests, max: c.max, out: c.out[:0], cuts: c.cuts[:0],
		drop: escapeCheck{buf: c.drop.buf[:0]}, inner: c.inner}
}

func (c *stringCutter) line() []byte  { return c.out }
func (c *stringCutter) tooLong() bool { return c.full }

// original maps an offset of the cut line to the line as read. Within a
// string read as JSON the map is approximate: its cut is placed at its end.
func (c *stringCutter) original(off int) int { return originalOffset(c.cuts, off) }

// originalOffset maps an offset of a compacted line to the line as read,
// past the cuts made before it.
func originalOffset(cuts []cut, off int) int {
	orig := off
	for _, ct := range cuts {
		if ct.at > off {
			break
		}
		orig += ct.n
	}
	return orig
}

// summary says what was cut of the line, or "" when nothing was.
func (c *stringCutter) summary(length int) string {
	if c.cutN == 0 && c.nestedN == 0 {
		return ""
	}
	msg := fmt.Sprintf("a line of %s was read with its long strings cut:", byteSize(length))
	if c.cutN > 0 {
		msg += fmt.Sprintf(" %d kept only their first %s (the longest was %s)", c.cutN, byteSize(c.keep), byteSize(c.longest))
	}
	if c.nestedN > 0 {
		if c.cutN > 0 {
			msg += ";"
		}
		msg += fmt.Sprintf(" %d holding JSON were read as JSON with their own long strings cut", c.nestedN)
	}
	return msg
}

// documentCutting, when false, turns cutDocument off (tests compare).
var documentCutting = true

// A cuttingReader passes a whole JSON document through a stringCutter,
// for the readers that take a document rather than lines: a record of
// it then takes what is kept of its strings, not their length. No line
// break is dropped, so lines are those of the document.
type cuttingReader struct {
	r   io.Reader
	c   *stringCutter
	buf []byte
	pos int // bytes of c.out already read
	err error
}

// cutDocument returns r with the long strings of its document cut as a
// reader keeping opts.MaxResultBytes of a result uses them; without a
// result budget it keeps everything, and a file known to be no longer
// than longLine is read as it is too (as a line that long would be).
// summary then says what was cut, and where.
func cutDocument(r io.Reader, opts Options) (cut io.Reader, summary func() (msg string, line int)) {
	maxResult := opts.MaxResultBytes
	if maxResult <= 0 || !documentCutting || opts.fileSize > 0 && opts.fileSize <= int64(longLine) {
		return r, func() (string, int) { return "", 0 }
	}
	c := newStringCutter(maxResult)
	c.max = math.MaxInt // the document is read as it is cut, not held
	cr := &cuttingReader{r: r, c: c, buf: make([]byte, 64<<10)}
	return cr, func() (string, int) {
		if c.cutN == 0 && c.nestedN == 0 {
			return "", 0
		}
		msg := c.summary(0)
		_, rest, _ := strings.Cut(msg, ":")
		return "the document was read with its long strings cut:" + rest, c.firstCut
	}
}

func (cr *cuttingReader) Read(p []byte) (int, error) {
	c := cr.c
	for {
		if end := cr.settled(); cr.pos < end {
			n := copy(p, c.out[cr.pos:end])
			cr.pos += n
			return n, nil
		}
		if cr.err != nil {
			return 0, cr.err
		}
		if cr.pos > 0 && cr.pos >= len(c.out)/2 {
			// Drop what was read, keeping an open string's kept part.
			n := copy(c.out, c.out[cr.pos:])
			c.out = c.out[:n]
			c.start -= cr.pos
			if len(c.cuts) > 1 {
				// Offsets are not mapped in a document; the last cut is
				// kept only for a string still being dropped.
				c.cuts[0] = c.cuts[len(c.cuts)-1]
				c.cuts = c.cuts[:1]
			}
			cr.pos = 0
		}
		n, err := cr.r.Read(cr.buf)
		c.write(cr.buf[:n])
		cr.err = err
	}
}

// settled is how much of the cut document is final: all of it, but the
// kept part of a string still open that may yet be read as JSON.
func (cr *cuttingReader) settled() int {
	c := cr.c
	if cr.err == nil && (c.inString && !c.dropping && !c.given || c.nesting) {
		return c.start
	}
	return len(c.out)
}

// readCut reads a document with read, its long strings cut (see
// cutDocument), and warns in the session it returns of what was cut.
func readCut(r io.Reader, opts Options, read func(io.Reader) (*Session, error)) (*Session, error) {
	cut, summary := cutDocument(r, opts)
	s, err := read(cut)
	if s != nil {
		warnCut(s, summary)
	}
	return s, err
}

// warnCut warns in s of what a cutDocument reader cut.
func warnCut(s *Session, summary func() (string, int)) {
	if msg, line := summary(); msg != "" {
		s.Warnf(line, "%s", msg)
	}
}

// byteSize writes n bytes for a person.
func byteSize(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// write passes the next bytes of the line through.
func (c *stringCutter) write(p []byte) {
	for len(p) > 0 && !c.full {
		switch {
		case c.given:
			c.emit(p)
			return
		case !c.inString:
			p = p[c.passShort(p):]
		case c.nesting:
			p = p[c.nestWrite(p):]
		case c.dropping:
			p = p[c.dropWrite(p):]
		default:
			p = p[c.keptWrite(p):]
		}
	}
}

// passShort passes, outside strings, the bytes up to the first string
// that does not end within p or may be long, and enters that string; it
// returns how many bytes it used. Strings that end within keep bytes,
// nearly all of them, are passed here in bulk: only quotes are looked for.
func (c *stringCutter) passShort(p []byte) int {
	j := 0 // p[:j] is passed
	for {
		k := bytes.IndexByte(p[j:], '"')
		if k < 0 {
			c.newlines += bytes.Count(p[j:], newline)
			c.emit(p)
			return len(p)
		}
		c.newlines += bytes.Count(p[j:j+k], newline)
		s := j + k + 1 // the string's first byte
		m := closingQuote(p, s, 0)
		if m < 0 || m-s > c.keep {
			// Open past p, or long: read by keptWrite.
			c.emit(p[:s])
			c.inString, c.esc, c.n, c.start = true, 0, 0, len(c.out)
			c.raw, c.bs = true, 0
			return s
		}
		j = m + 1
	}
}

// closingQuote returns the offset of the first quote in p from s on that
// no escape takes, or -1; carry is the number of backslashes that end the
// string's bytes before p.
func closingQuote(p []byte, s, carry int) int {
	for m := s; ; m++ {
		q := bytes.IndexByte(p[m:], '"')
		if q < 0 {
			return -1
		}
		m += q
		bs := 0
		for t := m - 1; t >= s && p[t] == '\\'; t-- {
			bs++
		}
		if bs == m-s {
			bs += carry
		}
		if bs%2 == 0 {
			return m
		}
	}
}

// trailingBackslashes counts the backslashes that end p.
func trailingBackslashes(p []byte) int {
	n := 0
	for t := len(p) - 1; t >= 0 && p[t] == '\\'; t-- {
		n++
	}
	return n
}

// scanUnits counts raw string content as keptWrite does (an escape once),
// and returns the state of an escape it ends inside.
func scanUnits(raw []byte) (n, esc int) {
	for i := 0; i < len(raw); i++ {
		switch {
		case esc == 5 && raw[i] != 'u':
			esc = 0
		case esc > 0:
			esc--
		case raw[i] == '\\':
			n++
			esc = 5
		default:
			n++
		}
	}
	return n, esc
}

// emit appends to the cut line, and marks it full past max.
func (c *stringCutter) emit(p []byte) {
	if len(c.out)+len(p) > c.max {
		c.full = true
		return
	}
	c.out = append(c.out, p...)
}

// keptWrite reads bytes of a string that is kept so far, and returns how
// many it consumed. An escape counts once, at its backslash: it reads to
// at least one byte, so keep counts bytes of the string read.
func (c *stringCutter) keptWrite(p []byte) int {
	if c.raw {
		// Counted in raw bytes while that stays within keep: only the
		// closing quote is looked for.
		m := closingQuote(p, 0, c.bs)
		end := m
		if m < 0 {
			end = len(p)
		}
		if c.n+end <= c.keep {
			if m >= 0 {
				c.inString, c.raw = false, false
				c.emit(p[:m+1])
				return m + 1
			}
			if run := trailingBackslashes(p); run == len(p) {
				c.bs += run
			} else {
				c.bs = run
			}
			c.n += len(p)
			c.emit(p)
			return len(p)
		}
		// Near keep: count what is kept exactly from here on.
		c.n, c.esc = scanUnits(c.out[c.start:])
		c.raw = false
	}
	i, from := 0, 0 // p[from:i] is kept but not yet written out
	for i < len(p) {
		if c.esc > 0 {
			// The rest of an escape begun in an earlier piece.
			if c.esc == 5 && p[i] != 'u' {
				c.esc = 0 // a one-byte escape
			} else {
				c.esc--
			}
			i++
			continue
		}
		b := p[i]
		switch {
		case b == '"':
			c.inString = false
			c.emit(p[from : i+1])
			return i + 1
		case c.n >= c.keep && (b < 0x80 || b >= 0xc0):
			// The budget is spent and b starts a character (unless it
			// is the low half of a surrogate pair).
			c.emit(p[from:i])
			from = i
			if b == '\\' && endsInHighSurrogate(c.out[c.start:]) {
				c.n-- // the pair counts once
				break
			}
			c.overBudget()
			return i
		}
		if b == '\\' {
			c.n++
			switch {
			case i+1 < len(p) && p[i+1] != 'u':
				i += 2
			case i+5 < len(p):
				i += 6
			default:
				c.esc = 5 // one more for 'u' and four hex digits, or less
				i++
			}
			continue
		}
		run := max(jsonscan.PlainLen(p[i:]), 1) // a control character is left to the parser
		if room := c.keep - c.n; run > room {
			run = max(room, 1)
		}
		c.n += run
		i += run
	}
	c.emit(p[from:])
	return i
}

var newline = []byte{'\n'}

// overBudget starts reading the rest of a string that passed keep: as JSON
// when its text is JSON, else by dropping it.
func (c *stringCutter) overBudget() {
	if c.firstCut == 0 {
		c.firstCut = c.newlines + 1
	}
	if c.nests && startsJSON(c.out[c.start:]) {
		if c.inner == nil {
			c.inner = &stringCutter{}
		}
		*c.inner = stringCutter{keep: c.keep, max: nestMax, out: c.inner.out[:0], cuts: c.inner.cuts[:0]}
		c.nesting, c.nestRaw, c.dec = true, len(c.out)-c.start, stringDecoder{}
		kept := c.out[c.start:]
		if _, ok := c.dec.decode(kept, c.inner); !ok {
			// A control character in what was kept: the line is not valid
			// JSON, and the parser is left to say where.
			c.nesting, c.given = false, true
			return
		}
		c.out = c.out[:c.start]
		return
	}
	c.dropping = true
	c.cuts = append(c.cuts, cut{at: len(c.out)})
	c.cutN++
}

// endsInHighSurrogate reports whether raw string content ends with the
// escape of the high half of a surrogate pair.
func endsInHighSurrogate(raw []byte) bool {
	if len(raw) < 6 {
		return false
	}
	e := raw[len(raw)-6:]
	if e[0] != '\\' || e[1] != 'u' || e[2] != 'd' && e[2] != 'D' {
		return false
	}
	switch e[3] {
	case '8', '9', 'a', 'b', 'A', 'B':
		return len(raw) < 7 || raw[len(raw)-7] != '\\' || escapedBackslash(raw[:len(raw)-6])
	}
	return false
}

// escapedBackslash reports whether raw ends inside an even run of
// backslashes, so that a backslash after it starts an escape.
func escapedBackslash(raw []byte) bool {
	n := 0
	for i := len(raw) - 1; i >= 0 && raw[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// startsJSON reports whether the raw content of a string starts, after
// white space, with an object or an array.
func startsJSON(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ':
		case '\\':
			if i+1 < len(raw) && (raw[i+1] == 'n' || raw[i+1] == 't' || raw[i+1] == 'r') {
				i++
				continue
			}
			return false
		case '{', '[':
			return true
		default:
			return false
		}
	}
	return false
}

// dropWrite reads bytes of the dropped part of a string, checking them,
// and returns how many it consumed.
func (c *stringCutter) dropWrite(p []byte) int {
	last := &c.cuts[len(c.cuts)-1]
	if !c.drop.open() {
		if n := jsonscan.PlainLen(p); n > 0 {
			last.n += n
			c.n += n
			return n
		}
	}
	b := p[0]
	if c.drop.open() {
		if !c.drop.add(b) {
			c.giveUp()
			return 1
		}
		if !c.drop.open() {
			last.n += len(c.drop.buf)
			c.n += len(c.drop.buf)
		}
		return 1
	}
	switch {
	case b == '"':
		c.dropping, c.inString = false, false
		c.longest = max(c.longest, c.n)
		c.emit(p[:1])
	case b == '\\':
		c.drop.start(b)
	default: // a control character
		c.drop.buf = append(c.drop.buf[:0], b)
		c.giveUp()
	}
	return 1
}

// giveUp keeps the rest of the line from the invalid bytes in drop.buf on.
func (c *stringCutter) giveUp() {
	c.emit(c.drop.buf)
	c.drop.reset()
	c.dropping, c.given = false, true
}

// escapeCheck checks an escape in the dropped part of a string byte by
// byte, as the JSON scanner would, and keeps its bytes so that an invalid
// one is written back where it was met.
type escapeCheck struct {
	left int    // bytes still to come; 0 when no escape is open
	buf  []byte // the escape's bytes so far
}

func (e *escapeCheck) open() bool { return e.left > 0 }

func (e *escapeCheck) reset() { e.left, e.buf = 0, e.buf[:0] }

// start opens an escape at its backslash.
func (e *escapeCheck) start(backslash byte) {
	e.left, e.buf = 1, append(e.buf[:0], backslash)
}

// add takes the next byte of an open escape and reports whether the escape
// is still valid. Once it is closed, buf holds all of it.
func (e *escapeCheck) add(b byte) bool {
	e.buf = append(e.buf, b)
	if len(e.buf) > 2 {
		e.left--
		return jsonscan.Unhex(b) >= 0
	}
	switch b {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		e.left = 0
	case 'u':
		e.left = 4
	default:
		return false
	}
	return true
}

// nestWrite reads raw bytes of a string read as JSON, up to and with its
// closing quote, and returns how many it consumed.
func (c *stringCutter) nestWrite(p []byte) int {
	end := c.dec.end(p)
	if used, ok := c.dec.decode(p[:end], c.inner); !ok {
		// An invalid escape or a control character: write back what was
		// read, then the rest of the line as it is, for the parser.
		c.closeNest(false)
		c.drop.buf = append(c.drop.buf[:0], c.dec.bad...)
		c.giveUp()
		return used
	}
	c.nestRaw += end
	if c.inner.full {
		// Its JSON takes too much even cut: keep what fits, drop the rest.
		c.closeNest(false)
		c.dropping = true
		c.cuts = append(c.cuts, cut{at: len(c.out)})
		c.n = c.nestRaw
		c.cutN++
		return end
	}
	if end < len(p) {
		// The closing quote.
		c.closeNest(true)
		c.inString = false
		c.emit(p[end : end+1])
		return end + 1
	}
	return end
}

// closeNest writes the JSON read from the current string back into it.
func (c *stringCutter) closeNest(done bool) {
	c.nesting = false
	text := c.inner.out
	if !done {
		text = cutAtRune(text)
	}
	if c.dec.high != 0 {
		text = utf8.AppendRune(text, utf8.RuneError)
	}
	c.out = jsonscan.AppendEscaped(c.out, text)
	if n := c.nestRaw - (len(c.out) - c.start); n > 0 {
		c.cuts = append(c.cuts, cut{at: len(c.out), n: n})
	}
	if len(c.out) > c.max {
		c.full = true
	}
	c.nestedN++
}

// cutAtRune drops a character cut short at the end of text.
func cutAtRune(text []byte) []byte {
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if b := text[i]; b < 0x80 || b >= 0xc0 {
			if !utf8.FullRune(text[i:]) {
				return text[:i]
			}
			break
		}
	}
	return text
}

// stringDecoder decodes the raw content of a JSON string, in pieces.
type stringDecoder struct {
	esc  []byte // an escape split across pieces
	high rune   // a high surrogate waiting for its low half
	bad  []byte // the bytes of an invalid escape or character
	buf  []byte
}

// end returns the length of p before the string's closing quote, or
// len(p) when the string goes on past p.
func (d *stringDecoder) end(p []byte) int {
	i := 0
	if len(d.esc) > 0 {
		// Finish the escape split across pieces first.
		need := 2
		if len(d.esc) >= 2 && d.esc[1] == 'u' {
			need = 6
		}
		i = min(need-len(d.esc), len(p))
	}
	for i < len(p) {
		i += jsonscan.PlainLen(p[i:])
		if i >= len(p) {
			break
		}
		switch p[i] {
		case '"':
			return i
		case '\\':
			i += 2
			if i-1 < len(p) && p[i-1] == 'u' {
				i += 4
			}
		default:
			i++
		}
	}
	return len(p)
}

// decode decodes p into w and returns how many bytes it used; false means
// an invalid escape or a control character, whose bytes are then in bad
// (used counts them).
func (d *stringDecoder) decode(p []byte, w *stringCutter) (used int, ok bool) {
	d.buf = d.buf[:0]
	defer func() { w.write(d.buf) }()
	for used < len(p) {
		if len(d.esc) > 0 {
			need := 2
			if len(d.esc) >= 2 && d.esc[1] == 'u' {
				need = 6
			}
			take := min(need-len(d.esc), len(p)-used)
			d.esc = append(d.esc, p[used:used+take]...)
			used += take
			if len(d.esc) == 2 && d.esc[1] == 'u' || len(d.esc) < need {
				continue
			}
			if !d.escape() {
				return used, false
			}
			d.esc = d.esc[:0]
			continue
		}
		if n := jsonscan.PlainLen(p[used:]); n > 0 {
			d.flushHigh()
			d.buf = append(d.buf, p[used:used+n]...)
			used += n
			continue
		}
		if p[used] != '\\' {
			d.bad = append(d.bad[:0], p[used])
			return used + 1, false
		}
		d.esc = append(d.esc[:0], '\\')
		used++
	}
	return used, true
}

// escape decodes the complete escape in d.esc into d.buf.
func (d *stringDecoder) escape() bool {
	var r rune
	switch d.esc[1] {
	case '"', '\\', '/':
		r = rune(d.esc[1])
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		for _, h := range d.esc[2:6] {
			v := jsonscan.Unhex(h)
			if v < 0 {
				d.bad = append(d.bad[:0], d.esc...)
				return false
			}
			r = r<<4 | rune(v)
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			d.flushHigh()
			d.high = r
			return true
		case utf16.IsSurrogate(r) && d.high != 0:
			r = utf16.DecodeRune(d.high, r)
			d.high = 0
		}
	default:
		d.bad = append(d.bad[:0], d.esc...)
		return false
	}
	d.flushHigh()
	d.buf = utf8.AppendRune(d.buf, r)
	return true
}

// flushHigh writes a high surrogate that no low half followed.
func (d *stringDecoder) flushHigh() {
	if d.high != 0 {
		d.buf = utf8.AppendRune(d.buf, utf8.RuneError)
		d.high = 0
	}
}
