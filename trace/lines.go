package trace

import (
	"bufio"
	"bytes"
	"io"
)

// lineReader reads newline-separated records of any length from a stream.
// Memory is bounded by the longest line, not the input size.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int // 1-based number of the line last returned

	// compact, when set, takes over a line once it is longer than
	// claudeLongLine; compacted tells whether it did for the line last
	// returned.
	compact   *claudeCompactor
	compacted bool
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
	lr.buf = lr.buf[:0]
	lr.compacted = false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if lr.compacted {
			lr.compact.write(chunk)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && err != io.EOF {
				return nil, lr.line, err
			}
			lr.line++
			out := bytes.TrimSuffix(lr.compact.out, []byte{'\n'})
			return bytes.TrimSuffix(out, []byte{'\r'}), lr.line, nil
		}
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf, chunk...)
			if lr.compact != nil && len(lr.buf) > claudeLongLine {
				// From here on the line goes through the compactor.
				lr.compacted = true
				lr.compact.reset()
				lr.compact.write(lr.buf)
				lr.buf = nil // not held while the rest streams by
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, lr.line, err
		}
		if lr.compact != nil && len(lr.buf)+len(chunk) > claudeLongLine {
			lr.compacted = true
			lr.compact.reset()
			lr.compact.write(lr.buf)
			lr.compact.write(chunk)
			lr.line++
			out := bytes.TrimSuffix(lr.compact.out, []byte{'\n'})
			return bytes.TrimSuffix(out, []byte{'\r'}), lr.line, nil
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
			return nil, lr.line, io.EOF
		}
		lr.line++
		out = bytes.TrimSuffix(out, []byte{'\n'})
		out = bytes.TrimSuffix(out, []byte{'\r'})
		return out, lr.line, nil
	}
}
