package trace

import "io"

// A tool-calls record holds its result whole, and a harness that logs a
// tool's raw output can write results of gigabytes. The reader keeps at
// most MaxResultBytes of each, so with that set the document is passed
// through a claudeCompactor on its way to the decoder, which drops, as
// they stream by, the bytes of result strings past what is kept: a record
// then takes what is kept of it, not its length. The compactor checks the
// bytes it drops and stops dropping at the first one that is not valid
// JSON, so a syntax error is met where the document has it; no newline is
// ever dropped, so line numbers stay those of the document.

// toolCallsCompacting, when false, turns compaction off (tests compare).
var toolCallsCompacting = true

// toolCallsCompacted returns r with the result strings of its records cut
// to what a reader keeping max bytes of each uses; max <= 0 keeps all.
func toolCallsCompacted(r io.Reader, max int) io.Reader {
	if max <= 0 || !toolCallsCompacting {
		return r
	}
	c := newClaudeCompactor(max)
	keep := c.keep
	c.rule = func(path []frame) int {
		// A record is an element of the root array, or of the root
		// object's toolCalls array.
		rec := path
		if len(rec) > 0 && rec[0].object {
			if toolCallsKey(rec[0].key) != "toolcalls" {
				return -1
			}
			rec = rec[1:]
		}
		if len(rec) != 2 || rec[0].object || !rec[1].object {
			return -1
		}
		switch toolCallsKey(rec[1].key) {
		case "result", "output":
			return keep
		}
		return -1
	}
	return &compactingReader{r: r, c: c, buf: make([]byte, 1<<16)}
}

// compactingReader passes a stream through a claudeCompactor.
type compactingReader struct {
	r   io.Reader
	c   *claudeCompactor
	buf []byte
	pos int // bytes of c.out already read
	err error
}

func (cr *compactingReader) Read(p []byte) (int, error) {
	for cr.pos == len(cr.c.out) {
		if cr.err != nil {
			return 0, cr.err
		}
		cr.c.out, cr.pos = cr.c.out[:0], 0
		if n := len(cr.c.cuts); n > 1 {
			// Only the cut being made is still needed: offsets are not
			// mapped back.
			cr.c.cuts[0] = cr.c.cuts[n-1]
			cr.c.cuts = cr.c.cuts[:1]
		}
		n, err := cr.r.Read(cr.buf)
		cr.c.write(cr.buf[:n])
		cr.err = err
	}
	n := copy(p, cr.c.out[cr.pos:])
	cr.pos += n
	return n, nil
}
