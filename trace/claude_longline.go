package trace

import "github.com/agentretrieval/agentretrieval/internal/jsonscan"

// Claude Code writes a tool's whole output into one line, twice (the
// tool_result content and toolUseResult), so one `cat` of a log can make a
// line of gigabytes. The Claude reader keeps at most MaxResultBytes of a
// result and skips toolUseResult, so such a line need not be held whole:
// past claudeLongLine bytes, the line reader passes the rest of the line
// through a claudeCompactor, which drops, as they stream by, the parts of
// long strings the reader would not use. The line the reader then parses
// holds the same JSON structure and every value the reader uses, so it
// reads to the same calls and results; errors are reported at their
// offsets in the original line.

// claudeLongLine is the length past which a Claude line is compacted as it
// is read. Shorter lines, nearly all of them, are read whole. Tests lower
// it to compact every line.
var claudeLongLine = 16 << 20

// A cut is a run of bytes the compactor dropped: n bytes that stood before
// offset at of the compacted line.
type cut struct{ at, n int }

// claudeCompactor drops the unused parts of long strings of one line. It
// lexes the line byte by byte, tracking the keys on the path to each
// string, and checks the bytes it drops the way the JSON scanner would
// (control characters, escapes): at the first byte that is not valid it
// stops dropping for the rest of the line, so that the reader meets the
// error where the original line has it.
type claudeCompactor struct {
	// keep is how many bytes of a result's text (a tool_result content
	// string, or a text block of a content array) to keep; < 0 keeps all.
	keep int
	// rule, when set, replaces Claude's rule of what to keep of the
	// string value that starts under the containers of path: the number
	// of bytes, < 0 for all.
	rule func(path []frame) int

	out  []byte // the compacted line
	cuts []cut

	stack     []frame
	expectKey bool
	inString  bool
	isKey     bool
	key       []byte // the key being read, raw, while short
	keyLong   bool
	esc       int         // bytes left of an escape sequence (1 after '\', 5 after "\u")
	dropEsc   escapeCheck // an escape in the dropped part of a string
	budget    int         // decoded bytes still to keep of the current string; < 0: all
	dropping  bool
	given     bool // a dropped byte was not valid JSON: keep the rest
}

// frame is one open container: an object, with the key of the member
// being read, or an array.
type frame struct {
	object bool
	key    string
}

func newClaudeCompactor(maxResult int) *claudeCompactor {
	keep := -1
	if maxResult > 0 {
		// A margin past what is decoded: the reader then still sees that
		// the text went on (and cuts it at a character boundary itself).
		keep = maxResult + 8
	}
	return &claudeCompactor{keep: keep}
}

func (c *claudeCompactor) line() []byte { return c.out }

// tooLong reports a line over lineMax even compacted; without a result
// budget ("keep everything") no line is.
func (c *claudeCompactor) tooLong() bool      { return c.keep >= 0 && len(c.out) > lineMax }
func (c *claudeCompactor) summary(int) string { return "" }

// reset starts a new line.
func (c *claudeCompactor) reset() {
	*c = claudeCompactor{keep: c.keep, rule: c.rule, out: c.out[:0], cuts: c.cuts[:0], stack: c.stack[:0], key: c.key[:0], dropEsc: escapeCheck{buf: c.dropEsc.buf[:0]}}
}

// original maps an offset of the compacted line to the original line.
func (c *claudeCompactor) original(off int) int { return originalOffset(c.cuts, off) }

// write passes the next bytes of the line through.
func (c *claudeCompactor) write(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if c.given {
			c.out = append(c.out, p[i:]...)
			return
		}
		if !c.inString {
			c.structural(b)
			c.out = append(c.out, b)
			continue
		}
		if c.dropping {
			if !c.dropEsc.open() {
				// Plain content is dropped in bulk.
				if n := jsonscan.PlainLen(p[i:]); n > 0 {
					c.cuts[len(c.cuts)-1].n += n
					i += n - 1
					continue
				}
			}
			c.drop(b)
			continue
		}
		if c.esc == 0 && c.budget != 0 && !c.isKey {
			// So is plain content kept, within the budget.
			n := jsonscan.PlainLen(p[i:])
			if c.budget > 0 {
				n = min(n, c.budget)
				c.budget -= n
			}
			if n > 0 {
				c.out = append(c.out, p[i:i+n]...)
				i += n - 1
				continue
			}
		}
		c.stringByte(b)
	}
}

// structural follows the containers and keys outside strings.
func (c *claudeCompactor) structural(b byte) {
	switch b {
	case '"':
		c.inString, c.isKey, c.esc = true, c.expectKey, 0
		c.key, c.keyLong = c.key[:0], false
		c.budget = -1
		if !c.isKey {
			c.budget = c.stringBudget()
		}
	case '{':
		c.stack = append(c.stack, frame{object: true})
		c.expectKey = true
	case '[':
		c.stack = append(c.stack, frame{})
		c.expectKey = false
	case '}', ']':
		if len(c.stack) > 0 {
			c.stack = c.stack[:len(c.stack)-1]
		}
		c.expectKey = false
	case ',':
		c.expectKey = len(c.stack) > 0 && c.stack[len(c.stack)-1].object
	case ':':
		c.expectKey = false
	}
}

// stringBudget says how much of the string value starting now to keep:
// nothing of a top-level member the reader skips (toolUseResult), keep
// bytes of a tool result's text, all of anything else.
func (c *claudeCompactor) stringBudget() int {
	path := c.stack
	if c.rule != nil {
		return c.rule(path)
	}
	if len(path) == 0 || !path[0].object {
		return -1
	}
	if !claudeReadsTopLevel(path[0].key) {
		return 0
	}
	if c.keep < 0 || path[0].key != "message" {
		return -1
	}
	// message.content[].content, or message.content[].content[].text:
	// the frames are the line, message, content array, block, and for
	// the second its content array and text block.
	block := len(path) >= 4 && path[1].object && path[1].key == "content" && !path[2].object &&
		path[3].object && path[3].key == "content"
	switch {
	case block && len(path) == 4:
		return c.keep
	case block && len(path) == 6 && !path[4].object && path[5].object && path[5].key == "text":
		return c.keep
	}
	return -1
}

// claudeReadsTopLevel reports whether the reader reads a top-level member
// (parseLine); it skips all others.
func claudeReadsTopLevel(key string) bool {
	switch key {
	case "type", "subtype", "timestamp", "uuid", "parentUuid", "isSidechain", "isMeta", "cwd", "sessionId",
		"session_id", "version", "claude_code_version", "model", "parent_tool_use_id", "result", "usage", "tools", "message":
		return true
	}
	return false
}

// stringByte handles a byte of a string that is kept so far.
func (c *claudeCompactor) stringByte(b byte) {
	if c.esc > 0 {
		c.esc--
		if c.esc == 4 && b != 'u' {
			c.esc = 0 // a one-byte escape
		}
		c.out = append(c.out, b)
		c.noteKey(b)
		return
	}
	if b == '"' {
		c.endString()
		c.out = append(c.out, b)
		return
	}
	// Drop from here when the budget is spent and b starts a character.
	if c.budget == 0 && (b < 0x80 || b >= 0xc0) {
		c.dropping = true
		c.cuts = append(c.cuts, cut{at: len(c.out)})
		c.drop(b)
		return
	}
	if b == '\\' {
		c.esc = 5 // one more for 'u' and four hex digits, or less
	}
	if c.budget > 0 {
		c.budget--
	}
	c.out = append(c.out, b)
	c.noteKey(b)
}

// noteKey collects the bytes of a key (short keys only: those the path
// rules name are short, and a key with escapes never matches them).
func (c *claudeCompactor) noteKey(b byte) {
	if !c.isKey || c.keyLong {
		return
	}
	if len(c.key) >= 32 || b == '\\' {
		c.keyLong = true
		return
	}
	c.key = append(c.key, b)
}

func (c *claudeCompactor) endString() {
	c.inString = false
	if c.isKey && len(c.stack) > 0 {
		k := ""
		if !c.keyLong {
			k = string(c.key)
		}
		c.stack[len(c.stack)-1].key = k
	}
}

// drop handles a byte of the dropped part of a string, checking it.
func (c *claudeCompactor) drop(b byte) {
	last := &c.cuts[len(c.cuts)-1]
	if c.dropEsc.open() {
		if !c.dropEsc.add(b) {
			c.giveUp()
		} else if !c.dropEsc.open() {
			last.n += len(c.dropEsc.buf)
		}
		return
	}
	switch {
	case b == '"':
		c.dropping = false
		c.endString()
		c.out = append(c.out, b)
	case b == '\\':
		c.dropEsc.start(b)
	case b < 0x20:
		c.dropEsc.buf = append(c.dropEsc.buf[:0], b)
		c.giveUp()
	default:
		last.n++
	}
}

// giveUp keeps the rest of the line from the invalid bytes in dropEsc.buf on.
func (c *claudeCompactor) giveUp() {
	c.out = append(c.out, c.dropEsc.buf...)
	c.dropEsc.reset()
	c.given = true
}
