package events

import (
	"bytes"
	"io"
	"runtime"
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

// BenchmarkStreamRealShaped measures what the events command does with a
// session: read through a concurrent Stream, the reader dropping each
// call the Stream took (trace.Options.DropReleased) and keeping no message
// (trace.Options.SkipMessages), then write from
// Pending. It also reports the memory the read holds per call: the live
// heap, after a collection, when nine tenths of the calls are handed over
// (the reader's maps, the calls waiting for a result and the events
// kept), less the live heap before the read. That figure is what the input's size multiplies.
func BenchmarkStreamRealShaped(b *testing.B) {
	data := benchRealShaped()
	calls := len(benchSession(b, data).Calls)
	opts := Options{Taxonomy: DefaultTaxonomy()}
	liveHeap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var held int64
	for b.Loop() {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		st := NewConcurrentStream(opts)
		n := 0
		all, err := trace.ReadAll(bytes.NewReader(data), trace.Options{Source: "bench", MaxResultBytes: ResultBytesRead, DropReleased: true, SkipMessages: true, CallDone: func(s *trace.Session, i int) bool {
			if n++; n == calls*9/10 {
				b.StopTimer()
				st.mustWait()
				held = liveHeap() - before
				b.StartTimer()
			}
			return st.CallDone(s, i)
		}})
		if err == nil {
			err = st.Wait()
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range st.Pending(all, "bench") {
			if err := p.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(held)/float64(calls*9/10), "live-B/call")
}
