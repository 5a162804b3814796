package trace

import (
	"bytes"
	"testing"
)

// malformedTrace is a Claude Code transcript of one valid line followed by
// n lines that are not JSON: the worst case for warnings.
func malformedTrace(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	for range n {
		b.WriteString("x\n")
	}
	return b.Bytes()
}

// BenchmarkReadMalformedLines reads a trace of a million malformed lines
// through format detection, as the CLI does: the time and the bytes
// allocated per read stay small because only the first warnings are kept.
func BenchmarkReadMalformedLines(b *testing.B) {
	data := malformedTrace(1_000_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(bytes.NewReader(data), Options{Source: "bench"})
		if err != nil || s.Format != "claude-code" {
			b.Fatalf("read failed: %v", err)
		}
	}
}
