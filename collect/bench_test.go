package collect

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// BenchmarkReceiverOverLoopback posts requests of 10 execute_tool spans
// (protobuf) to a real server on loopback, one trace per request, as one
// client; each request is decoded, split, encoded and appended with an
// fsync. It reports spans per second of wall time, and the CPU time of a
// request (both ends).
func BenchmarkReceiverOverLoopback(b *testing.B) {
	for _, enc := range []string{ctProto, ctJSON} {
		name := map[string]string{ctProto: "protobuf", ctJSON: "json"}[enc]
		b.Run(name, func(b *testing.B) {
			srv := startServer(b, Options{Dir: b.TempDir()})
			bodies := make([][]byte, 16)
			for i := range bodies {
				spans := make([]*tracepb.Span, 0, 10)
				for j := range 10 {
					spans = append(spans, toolSpan(traceID(uint64(i)), uint64(i*10+j), fmt.Sprint("c", j), "pkg/some/file.go"))
				}
				req := traceRequest("bench", spans...)
				var err error
				if enc == ctProto {
					bodies[i], err = protoMarshal(req)
				} else {
					bodies[i], err = jsonMarshalOTLP(req)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			c := loadClient()
			done := benchcpu.PerOp(b, time.Microsecond)
			for i := 0; b.Loop(); i++ {
				resp, err := c.Post(srv.Endpoint()+"/v1/traces", enc, bytes.NewReader(bodies[i%len(bodies)]))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
			done()
			b.ReportMetric(float64(b.N*10)/b.Elapsed().Seconds(), "spans/s")
		})
	}
}

// BenchmarkDecode decodes and splits a request of 100 execute_tool spans
// over 10 traces, in each encoding, without the server around it.
func BenchmarkDecode(b *testing.B) {
	spans := make([]*tracepb.Span, 0, 100)
	for j := range 100 {
		spans = append(spans, toolSpan(traceID(uint64(j%10)), uint64(j), fmt.Sprint("c", j), "pkg/some/file.go"))
	}
	req := traceRequest("bench", spans...)
	pb, err := protoMarshal(req)
	if err != nil {
		b.Fatal(err)
	}
	js, err := jsonMarshalOTLP(req)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		body []byte
		enc  encoding
	}{{"protobuf", pb, protoEncoding}, {"json", js, jsonEncoding}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(tc.body, tc.enc, traces, ByTrace); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
