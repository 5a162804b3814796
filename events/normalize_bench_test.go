package events

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchgen"
	"github.com/agentretrieval/agentretrieval/trace"
)

// The generated sessions of the benchmarks, over 100 MB each: a
// real-shaped one (many small lines, mostly sidechains, typical result
// sizes) and one of large tool outputs.
var (
	benchRealShaped   = sync.OnceValue(func() []byte { return benchgen.RealShaped(100 << 20) })
	benchLargeResults = sync.OnceValue(func() []byte { return benchgen.LargeResults(100 << 20) })
)

// benchSession reads a generated session as the events command does.
func benchSession(b *testing.B, data []byte) *trace.Session {
	b.Helper()
	s, err := trace.Read(bytes.NewReader(data), trace.Options{Source: "bench", MaxResultBytes: ResultBytesRead})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchNormalize measures Normalize alone on a session read beforehand;
// MB/s is against the size of the trace file.
func benchNormalize(b *testing.B, data []byte) {
	s := benchSession(b, data)
	opts := Options{Taxonomy: DefaultTaxonomy()}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Normalize(s, opts)
	}
}

func BenchmarkNormalizeRealShaped(b *testing.B)   { benchNormalize(b, benchRealShaped()) }
func BenchmarkNormalizeLargeResults(b *testing.B) { benchNormalize(b, benchLargeResults()) }

// benchWriteJSON measures Document.WriteJSON alone; MB/s is against the
// size of the trace file the document was made from.
func benchWriteJSON(b *testing.B, data []byte) {
	doc := Normalize(benchSession(b, data), Options{Taxonomy: DefaultTaxonomy()})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := doc.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSONRealShaped(b *testing.B)   { benchWriteJSON(b, benchRealShaped()) }
func BenchmarkWriteJSONLargeResults(b *testing.B) { benchWriteJSON(b, benchLargeResults()) }
