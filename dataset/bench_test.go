package dataset_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/dataset"
	"github.com/agentretrieval/agentretrieval/trace"
)

// benchSession is a session of n calls over 500 files: reads with
// line-numbered results and greps with hits.
func benchSession(n int) *trace.Session {
	s := &trace.Session{}
	var numbered strings.Builder
	for l := 1; l <= 40; l++ {
		fmt.Fprintf(&numbered, "%6d\u2192line %d\n", l, l)
	}
	for i := range n {
		file := fmt.Sprintf("pkg/p%d/f%d.go", i%50, i%500)
		if i%2 == 0 {
			args, _ := json.Marshal(map[string]any{"file_path": file, "offset": 1, "limit": 40})
			s.AddCall(trace.ToolCall{Name: "Read", Arguments: args, Result: numbered.String(), HasResult: true})
			continue
		}
		var hits strings.Builder
		for h := range 20 {
			fmt.Fprintf(&hits, "pkg/p%d/f%d.go:%d:match\n", h, (i+h)%500, h+1)
		}
		s.AddCall(trace.ToolCall{Name: "Grep", Arguments: json.RawMessage(`{"pattern": "match", "output_mode": "content"}`), Result: hits.String(), HasResult: true})
	}
	return s
}

func BenchmarkBuild(b *testing.B) {
	s := benchSession(10000)
	b.ReportAllocs()
	for b.Loop() {
		dataset.Build(nil, s, dataset.Options{})
	}
}
