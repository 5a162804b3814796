package events_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// ClassifyCall classifies one call: an editor that views and edits is a
// read or an edit depending on its command argument, whether the agent
// called it with structured arguments or wrote it as an SWE-agent command
// line.
func ExampleTaxonomy_ClassifyCall() {
	tax := events.DefaultTaxonomy()
	for _, args := range []string{
		`{"command": "view", "path": "/repo/x.py"}`,
		`{"command": "str_replace", "path": "/repo/x.py", "old_str": "a", "new_str": "b"}`,
		`{"command": "str_replace_editor view /repo/x.py --view_range 10 40"}`,
		`{"path": "/repo/x.py"}`,
	} {
		r, _ := tax.ClassifyCall(&trace.ToolCall{Name: "str_replace_editor", Arguments: json.RawMessage(args)})
		fmt.Println(r.Category, r.Class)
	}
	// Output:
	// file_read file_level
	// file_write edit
	// file_read file_level
	// file_write edit
}
