package htmlreport_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/trace"
)

// syntheticRun is a measured trace of n calls cycling through a grep, a
// read and an edit, each with a result of a few dozen lines.
func syntheticRun(b *testing.B, n int) *expectations.Run {
	b.Helper()
	sess := &trace.Session{Format: "tool-calls", Source: "synthetic"}
	result := ""
	for l := 1; l <= 40; l++ {
		result += fmt.Sprintf("%6d\tline %d of a file\n", l, l)
	}
	for i := range n {
		var name string
		var args map[string]any
		switch i % 3 {
		case 0:
			name, args = "Grep", map[string]any{"pattern": fmt.Sprintf("Func%d", i)}
		case 1:
			name, args = "Read", map[string]any{"file_path": fmt.Sprintf("pkg/f%d.go", i%50)}
		default:
			name, args = "Edit", map[string]any{"file_path": fmt.Sprintf("pkg/f%d.go", i%50), "old_string": "a", "new_string": "b"}
		}
		raw, _ := json.Marshal(args)
		sess.Calls = append(sess.Calls, trace.ToolCall{Index: i, Name: name, Arguments: raw, Result: result, HasResult: true})
	}
	tax, err := events.LoadTaxonomy(nil)
	if err != nil {
		b.Fatal(err)
	}
	doc := events.Normalize(sess, events.Options{Taxonomy: tax, GroundTruth: &events.GroundTruth{Files: []string{"pkg/f1.go"}}})
	return &expectations.Run{Trace: "synthetic", Session: sess, Document: doc, Metrics: metrics.Compute(doc, metrics.Options{})}
}

func BenchmarkWriteTraces(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("%d calls", n), func(b *testing.B) {
			run := syntheticRun(b, n)
			var size countingWriter
			for b.Loop() {
				size = 0
				if err := htmlreport.WriteTraces(&size, []*expectations.Run{run}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size)/float64(n), "page-bytes/call")
		})
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
