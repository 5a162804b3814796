package trace_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/agentretrieval/agentretrieval/trace"
)

// A malformed record does not stop the reader: it is skipped and reported
// as a warning naming the source and the line, and the calls around it are
// kept.
func ExampleRead_warnings() {
	const transcript = `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2025-09-07T10:00:00Z","message":{"role":"user","content":"Find main."}}
{"type":"assistant","sessionId":"s1","uuid":"a1","timestamp":"2025-09-07T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"func main"}}]}}
not json at all
{"type":"user","sessionId":"s1","uuid":"u2","timestamp":"2025-09-07T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"cmd/app/main.go"}]}}
`
	sess, err := trace.Read(strings.NewReader(transcript), trace.Options{Source: "session.jsonl"})
	if err != nil {
		log.Fatal(err) // no known format, or nothing readable at all
	}
	for _, c := range sess.Calls {
		fmt.Println(sess.Format, c.Name, c.Result)
	}
	for _, w := range sess.Warnings {
		fmt.Println(w)
	}
	// Output:
	// claude-code Grep cmd/app/main.go
	// session.jsonl:3: invalid JSON: invalid character 'o' at offset 1 (expected literal null); line skipped
}
