package events_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Normalize classifies each call, extracts the files and lines it revealed
// and marks the calls that touch the ground truth. What a command revealed
// is what it printed: the sed below asked for 20 lines of a file that has
// 3.
func ExampleNormalize() {
	records := `[
	  {"tool": "Grep", "arguments": {"pattern": "ValidateToken", "path": "/workspace"}, "result": "/workspace/pkg/auth/token.go:42:func ValidateToken(tok *Token) error {"},
	  {"tool": "Read", "arguments": {"file_path": "/workspace/pkg/auth/token.go", "offset": 40, "limit": 5}},
	  {"tool": "Bash", "arguments": {"command": "sed -n '1,20p' /workspace/pkg/auth/errors.go"}, "result": "package auth\n\nvar ErrExpired = errors.New(\"expired\")\n"},
	  {"tool": "Edit", "arguments": {"file_path": "/workspace/pkg/auth/token.go", "old_string": "a", "new_string": "b"}}
	]`
	sess, err := trace.Read(strings.NewReader(records), trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	doc := events.Normalize(sess, events.Options{
		GroundTruth: &events.GroundTruth{Files: []string{"pkg/auth/token.go"}},
	})
	for _, ev := range doc.Events {
		fmt.Println(ev.StepIndex, ev.ToolName, ev.ToolCategory, ev.ToolClass, ev.TargetFiles, ev.LineRanges, ev.HitsGroundTruth)
	}
	fmt.Println("first ground-truth hit at step", *doc.Summary.FirstGroundTruthHitStep)
	// Output:
	// 0 Grep code_search file_level [pkg/auth/token.go] [{pkg/auth/token.go 42 42}] true
	// 1 Read file_read file_level [pkg/auth/token.go] [{pkg/auth/token.go 40 44}] true
	// 2 Bash file_read file_level [pkg/auth/errors.go] [{pkg/auth/errors.go 1 3}] false
	// 3 Edit file_write edit [pkg/auth/token.go] [] true
	// first ground-truth hit at step 0
}
