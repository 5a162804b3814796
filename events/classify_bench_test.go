package events

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentretrieval/agentretrieval/trace"
)

// BenchmarkNormalizeAgentSession normalizes a generated session that mixes
// per-call editor rules, SWE-agent command lines, shell reads and plain
// file tools, 1,000 calls with typical result sizes.
func BenchmarkNormalizeAgentSession(b *testing.B) {
	numbered := ""
	for i := 1; i <= 60; i++ {
		numbered += fmt.Sprintf("%6d\tline %d of the file\n", i, i)
	}
	window := "[File: /testbed/src/x.py (300 lines total)]\n"
	for i := 100; i < 200; i++ {
		window += fmt.Sprintf("%d:    x = %d\n", i, i)
	}
	kinds := []trace.ToolCall{
		{Name: "str_replace_editor", Arguments: json.RawMessage(`{"command": "view", "path": "/testbed/src/a.py", "view_range": [1, 60]}`), Result: numbered},
		{Name: "str_replace_editor", Arguments: json.RawMessage(`{"command": "str_replace", "path": "/testbed/src/a.py", "old_str": "x = 1", "new_str": "x = 2"}`), Result: "The file has been edited."},
		{Name: "open", Arguments: json.RawMessage(`{"command": "open src/x.py 120"}`), Result: window},
		{Name: "bash", Arguments: json.RawMessage(`{"command": "nl -ba src/b.py | sed -n '10,40p'"}`), Result: numbered},
		{Name: "search_dir", Arguments: json.RawMessage(`{"command": "search_dir \"def parse\" src"}`), Result: "Found 2 matches for \"def parse\" in /testbed/src:\n/testbed/src/p.py (1 matches)\n/testbed/src/q.py (1 matches)\nEnd of matches"},
	}
	s := &trace.Session{Format: "swe-agent", CWD: "/testbed"}
	for i := range 1000 {
		c := kinds[i%len(kinds)]
		c.Index, c.HasResult = i, true
		s.Calls = append(s.Calls, c)
	}
	tax := DefaultTaxonomy()
	b.ReportAllocs()
	for b.Loop() {
		Normalize(s, Options{Taxonomy: tax})
	}
}
