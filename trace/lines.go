package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// lineReader reads newline-separated records of any length from a stream.
// Memory is bounded by the longest line, not the input size; with skip set,
// by the longest line that may be a record.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int // 1-based number of the line last returned
	// start is the offset in the input of the line last returned, end the
	// offset after it and its line ending.
	start, end int64

	// compact, when set, takes over a line once it is longer than
	// compactAt; compacted tells whether it did for the line last
	// returned. warn is told what compact cut of a line, and of a line it
	// could not bound, which is dropped.
	compact   lineCompactor
	compactAt int
	compacted bool
	warn      func(n int, msg string)
	tooLong   bool // the line being dropped is too long even compacted

	// skip, when set, is told of each line longer than lineCheckAt that
	// cannot be a record; such a line is dropped as it streams in, and
	// next goes on to the following line.
	skip     func(n int, msg string)
	checking bool // the line being read is being checked
	length   int  // bytes of the line read so far
	check    lineCheck
	head     []byte // the first bytes of the line being checked
}

// lineCompactor cuts a long line as it streams in to what its reader
// uses (claudeCompactor, stringCutter).
type lineCompactor interface {
	reset()
	write(p []byte)
	line() []byte
	// tooLong reports a line that takes too much even compacted.
	tooLong() bool
	// original maps an offset of the compacted line to the line as read.
	original(off int) int
	// summary says what was cut of a line of length bytes, or "".
	summary(length int) string
}

// cutLongLines has every line longer than longLine read with its long
// strings cut (see stringCutter), warn told of each; maxResult is what
// the reader keeps of a result. Without a result budget (maxResult <= 0,
// "keep everything") lines are read whole.
func (lr *lineReader) cutLongLines(maxResult int, warn func(n int, msg string)) {
	if maxResult <= 0 {
		return
	}
	lr.compact, lr.compactAt, lr.warn = newStringCutter(maxResult), longLine, warn
}

func newLineReader(r io.Reader) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	return &lineReader{r: br}
}

// next returns the next line without its line ending, and its 1-based
// number. The slice is valid until the following call. It returns io.EOF
// after the last line; a final line without a newline is still returned.
func (lr *lineReader) next() ([]byte, int, error) {
	for {
		line, n, skipped, err := lr.read()
		lr.start, lr.end = lr.end, lr.end+int64(lr.length)
		if !skipped {
			if lr.compacted && lr.warn != nil && err == nil {
				if msg := lr.compact.summary(lr.length); msg != "" {
					lr.warn(n, msg)
				}
			}
			return line, n, err
		}
		head := bytes.TrimSuffix(bytes.TrimSuffix(lr.head, []byte{'\n'}), []byte{'\r'})
		more := lr.length > len(head)+2 // more than the line ending
		if lr.tooLong {
			if lr.warn != nil {
				lr.warn(n, fmt.Sprintf("a line of %s takes over %s even with its long strings cut; line skipped (it starts %s)",
					byteSize(lr.length), byteSize(lineMax), lineQuoteHead(head, more)))
			}
			continue
		}
		lr.skip(n, lineSkipMessage(&lr.check, head, more))
	}
}

// startCheck starts checking the line from its first bytes, p.
func (lr *lineReader) startCheck(p []byte) {
	lr.checking = true
	lr.check.reset()
	lr.head = lr.head[:0]
	lr.noteHead(p)
	lr.check.write(p)
}

// noteHead keeps the first bytes of the line being checked, for its
// warning; p follows the bytes read before it.
func (lr *lineReader) noteHead(p []byte) {
	if n := lineHeadBytes - len(lr.head); n > 0 {
		lr.head = append(lr.head, p[:min(len(p), n)]...)
	}
}

// notRecord reports whether the line being read is to be dropped: it is
// long, and cannot be a record. (A shorter line is left to the reader,
// which says what is wrong with it in its own words.)
func (lr *lineReader) notRecord() bool {
	return lr.checking && lr.check.bad != "" && lr.length > lineCheckAt
}

// drop reads past the rest of a line found not to be a record, without
// keeping it.
func (lr *lineReader) drop(err error) ([]byte, int, bool, error) {
	lr.buf = lr.buf[:0]
	for err == bufio.ErrBufferFull {
		var chunk []byte
		chunk, err = lr.r.ReadSlice('\n')
		lr.length += len(chunk)
		lr.noteHead(chunk)
	}
	if err != nil && err != io.EOF {
		return nil, lr.line, false, err
	}
	lr.line++
	return nil, lr.line, true, nil
}

// startCompacting passes the line read so far, buf and then chunk, to the
// compactor.
func (lr *lineReader) startCompacting(chunk []byte) {
	if !lr.checking {
		lr.head = lr.head[:0]
		lr.noteHead(lr.buf)
		lr.noteHead(chunk)
	}
	lr.compacted = true
	lr.compact.reset()
	lr.compact.write(lr.buf)
	lr.compact.write(chunk)
}

// read reads the next line; skipped reports a line dropped as not a
// record.
func (lr *lineReader) read() (line []byte, n int, skipped bool, err error) {
	lr.buf = lr.buf[:0]
	lr.compacted = false
	lr.checking = false
	lr.tooLong = false
	lr.length = 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.length += len(chunk)
		if lr.checking {
			lr.noteHead(chunk)
			lr.check.write(chunk)
			if lr.notRecord() {
				return lr.drop(err)
			}
		}
		if lr.compacted {
			lr.compact.write(chunk)
			if lr.compact.tooLong() {
				lr.tooLong = true
				return lr.drop(err)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && err != io.EOF {
				return nil, lr.line, false, err
			}
			lr.line++
			out := bytes.TrimSuffix(lr.compact.line(), []byte{'\n'})
			return bytes.TrimSuffix(out, []byte{'\r'}), lr.line, false, nil
		}
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf, chunk...)
			if lr.skip != nil && !lr.checking && (lr.length > lineCheckAt || lr.compact != nil && lr.length > lr.compactAt) {
				lr.startCheck(lr.buf)
				if lr.notRecord() {
					return lr.drop(err)
				}
			}
			if lr.compact != nil && lr.length > lr.compactAt {
				// From here on the line goes through the compactor.
				lr.startCompacting(nil)
				lr.buf = nil // not held while the rest streams by
				if lr.compact.tooLong() {
					lr.tooLong = true
					return lr.drop(err)
				}
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, lr.line, false, err
		}
		if lr.compact != nil && lr.length > lr.compactAt {
			lr.startCompacting(chunk)
			if lr.compact.tooLong() {
				lr.tooLong = true
				return lr.drop(nil)
			}
			lr.line++
			out := bytes.TrimSuffix(lr.compact.line(), []byte{'\n'})
			return bytes.TrimSuffix(out, []byte{'\r'}), lr.line, false, nil
		}
		var out []byte
		if len(lr.buf) == 0 {
			// Common case: the whole line fits in the bufio buffer, so no copy.
			out = chunk
		} else {
			lr.buf = append(lr.buf, chunk...)
			out = lr.buf
		}
		if err == io.EOF && len(out) == 0 {
			return nil, lr.line, false, io.EOF
		}
		lr.line++
		out = bytes.TrimSuffix(out, []byte{'\n'})
		out = bytes.TrimSuffix(out, []byte{'\r'})
		return out, lr.line, false, nil
	}
}
