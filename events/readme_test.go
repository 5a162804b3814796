package events

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// readmeTaxonomy returns the Taxonomies section of docs/traces.md.
func readmeTaxonomy(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../docs/traces.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "\n## Taxonomies\n")
	require.True(t, ok, "docs/traces.md has a Taxonomies section")
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestREADMETaxonomyExampleParses keeps the README's taxonomy file a valid
// one, with its per-call rule doing what the README says.
func TestREADMETaxonomyExampleParses(t *testing.T) {
	t.Parallel()
	section := readmeTaxonomy(t)
	_, block, ok := strings.Cut(section, "```yaml\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	rules, err := ParseTaxonomy("docs/traces.md", []byte(block))
	require.NoError(t, err)
	tax, err := NewTaxonomy(rules...)
	require.NoError(t, err)
	view, _ := tax.ClassifyCall(&trace.ToolCall{Name: "my_editor", Arguments: json.RawMessage(`{"command": "view", "path": "a.go"}`)})
	assert.Equal(t, FileRead, view.Category)
	edit, _ := tax.ClassifyCall(&trace.ToolCall{Name: "my_editor", Arguments: json.RawMessage(`{"command": "insert", "path": "a.go"}`)})
	assert.Equal(t, Edit, edit.Class)
}

// TestREADMEListsEveryProfile keeps the README's profile table complete.
func TestREADMEListsEveryProfile(t *testing.T) {
	t.Parallel()
	section := readmeTaxonomy(t)
	for _, p := range ProfileNames() {
		assert.Contains(t, section, "| `"+p+"` |", "the README's profile table lists %s", p)
	}
}
