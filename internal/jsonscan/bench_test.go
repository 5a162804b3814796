package jsonscan

import (
	"bytes"
	"sync"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
)

// realLines are the lines of a real-shaped Claude Code session of about
// 20 MB (internal/benchgen): what the trace readers scan.
var realLines = sync.OnceValue(func() [][]byte {
	return bytes.Split(bytes.TrimSuffix(benchgen.RealShaped(20<<20), []byte("\n")), []byte("\n"))
})

func benchLines(b *testing.B, scan func(s *Scanner, line []byte)) {
	lines := realLines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		for _, l := range lines {
			s.Reset(l)
			scan(&s, l)
			if s.Err() != nil {
				b.Fatal(s.Err())
			}
		}
	}
}

// BenchmarkSkipRealShaped checks and skips every line of a real-shaped
// session, as a reader does with the members it does not use.
func BenchmarkSkipRealShaped(b *testing.B) {
	benchLines(b, func(s *Scanner, _ []byte) {
		s.Skip()
		s.End()
	})
}

// BenchmarkDecodeRealShaped decodes every string of a real-shaped session.
func BenchmarkDecodeRealShaped(b *testing.B) {
	var buf []byte
	var walk func(s *Scanner)
	walk = func(s *Scanner) {
		switch s.Peek() {
		case Object:
			s.Object()
			for _, ok := s.NextKey(); ok; _, ok = s.NextKey() {
				walk(s)
			}
		case Array:
			s.Array()
			for s.NextElem() {
				walk(s)
			}
		case String:
			buf, _ = s.AppendString(buf[:0], -1)
		default:
			s.Skip()
		}
	}
	benchLines(b, func(s *Scanner, _ []byte) {
		walk(s)
		s.End()
	})
}
