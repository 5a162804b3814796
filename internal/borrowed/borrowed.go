// Package borrowed views bytes as a string without copying them, for a
// string that lives only while its bytes stay as they are: the text of a
// tool result that a trace reader lends to trace.Options.CallDone, which
// the reader overwrites with the next line.
//
// A Go string is immutable, and code may rely on it: a map keyed by a
// string, a string kept past the call that received it. A borrowed string
// breaks that once its bytes change, so whoever receives one copies
// (strings.Clone) what it keeps past the borrowing, and never uses it, or
// a part of it, as the key of a map that outlives it.
package borrowed

import "unsafe"

// String returns the bytes of b as a string that shares their memory: it
// changes when they do.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
