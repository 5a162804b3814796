package events_test

import (
	"fmt"
	"log"

	"github.com/agentretrieval/agentretrieval/events"
)

// LoadTaxonomy puts the rules of a user file before those of the built-in
// profiles: here a private index's MCP tools become semantic, and so does
// Grep, which the user's set-up routes to the index. A tool no rule matches
// stays other/other.
func ExampleLoadTaxonomy() {
	tax, err := events.LoadTaxonomy([]string{"claude-code"}, "testdata/my-index.taxonomy.yaml")
	if err != nil {
		log.Fatal(err) // names the file, the line and what was expected
	}
	for _, tool := range []string{"mcp__myindex__search_code", "Grep", "Read", "deploy_preview"} {
		rule, ok := tax.Classify(tool)
		if !ok {
			fmt.Printf("%s: unclassified\n", tool)
			continue
		}
		fmt.Printf("%s: %s, %s (from %s)\n", tool, rule.Category, rule.Class, rule.Profile)
	}
	// Output:
	// mcp__myindex__search_code: code_search, semantic (from my-index)
	// Grep: code_search, semantic (from my-index)
	// Read: file_read, file_level (from claude-code)
	// deploy_preview: unclassified
}
