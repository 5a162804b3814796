package trace

import (
	"bytes"
	"encoding/json"
	"strings"
)

// What the Claude Code readers lend to Options.CallDone: a call's result is
// read from the line's arena, which the next line overwrites, and its
// arguments are copied into a buffer that a released call gives back.

// handOver hands call i to Options.CallDone, which borrows its arguments
// and result. A call it releases gives its arguments' buffer back for the
// next calls' (copyArgs), and its result's bytes are the line's arena,
// which the next line overwrites; a call it keeps is given a copy of what
// Result holds then.
func (r *claudeReader) handOver(i int) {
	args := r.sess.Call(i).Arguments
	if handOver(r.sess, i, r.opts.CallDone) {
		r.freeArgs(args)
		return
	}
	if c := r.sess.Call(i); c != nil {
		c.Result = strings.Clone(c.Result)
	}
}

// Bounds of the buffers kept for arguments: a few buffers, since few calls
// wait for their result at a time, of the size most arguments fit (a
// longer one, a large file's content, is left to the collector).
const (
	maxArgBufs   = 8
	maxArgBufCap = 64 << 10
)

// copyArgs returns a copy of a call's input, in a buffer a released call
// gave back when one is large enough. Only a reader with a CallDone gets
// buffers back (freeArgs): it alone lends the arguments.
func (r *claudeReader) copyArgs(input []byte) json.RawMessage {
	for k, buf := range r.argBufs {
		if cap(buf) >= len(input) {
			last := len(r.argBufs) - 1
			r.argBufs[k] = r.argBufs[last]
			r.argBufs[last] = nil
			r.argBufs = r.argBufs[:last]
			return append(buf[:0], input...)
		}
	}
	return bytes.Clone(input)
}

// freeArgs keeps the buffer of a released call's arguments for copyArgs,
// in place of the smallest one kept when there are maxArgBufs already.
func (r *claudeReader) freeArgs(args json.RawMessage) {
	if cap(args) == 0 || cap(args) > maxArgBufCap {
		return
	}
	if len(r.argBufs) < maxArgBufs {
		r.argBufs = append(r.argBufs, args)
		return
	}
	small := 0
	for k, buf := range r.argBufs {
		if cap(buf) < cap(r.argBufs[small]) {
			small = k
		}
	}
	if cap(args) > cap(r.argBufs[small]) {
		r.argBufs[small] = args
	}
}
