package expectations

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// longRun is a run of n calls cycling through a search, a read, a failing
// test and an edit, with arguments and classified events.
func longRun(n int) *Run {
	sess := &trace.Session{CWD: "/repo"}
	source := events.SourceTrajectory
	doc := &events.Document{Coverage: events.Coverage{TraceSource: &source}}
	kinds := []struct {
		tool  string
		class events.Class
		cat   events.Category
	}{
		{"aura_search", events.Semantic, events.CodeSearch},
		{"Read", events.FileLevel, events.FileRead},
		{"Bash", events.OtherClass, events.OtherCategory},
		{"Edit", events.Edit, events.FileWrite},
	}
	for i := range n {
		k := kinds[i%len(kinds)]
		file := fmt.Sprintf("services/s%d/checkout/f%d.go", i%50, i%7)
		args, _ := json.Marshal(map[string]any{"file_path": "/repo/" + file, "query": "discount rounding", "command": "go test ./..."})
		sess.Calls = append(sess.Calls, trace.ToolCall{Index: i, Name: k.tool, Arguments: args, IsError: k.tool == "Bash"})
		doc.Events = append(doc.Events, events.Event{
			StepIndex: i, ToolName: k.tool, ToolClass: k.class, ToolCategory: k.cat,
			TargetFiles: []string{file}, IsError: k.tool == "Bash",
		})
	}
	return &Run{Session: sess, Document: doc}
}

func BenchmarkTrajectoryTypesOnALongRun(b *testing.B) {
	run := longRun(10000)
	calls := []CallPattern{
		{Tool: "class:semantic"},
		{Category: "file_read", Args: map[string]ArgMatcher{"file_path": {Glob: "**/checkout/*.go"}}},
		{Tool: "Bash", Args: map[string]ArgMatcher{"command": {Regex: `go test`}}},
		{Class: "edit", Min: ptr(2000)},
	}
	b.Run("sequence in_order", func(b *testing.B) {
		p := &Sequence{Calls: calls}
		for b.Loop() {
			checkSequence(p, run)
		}
	})
	b.Run("sequence superset", func(b *testing.B) {
		p := &Sequence{Calls: calls, Mode: modeSuperset}
		for b.Loop() {
			checkSequence(p, run)
		}
	})
	b.Run("before same_file", func(b *testing.B) {
		p := &Before{First: CallPattern{Category: "file_read"}, Then: CallPattern{Class: "edit"}, SameFile: true}
		for b.Loop() {
			checkBefore(p, run)
		}
	})
	b.Run("errors", func(b *testing.B) {
		p := &CallErrors{MaxFailed: ptr(10), MaxRetries: ptr(1)}
		for b.Loop() {
			checkErrors(p, run)
		}
	})
}
