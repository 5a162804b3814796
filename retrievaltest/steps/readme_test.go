package steps

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the step catalogue section of ../../docs/scenarios.md")

const (
	readme     = "../../docs/scenarios.md"
	stepsBegin = "<!-- steps:begin -->"
	stepsEnd   = "<!-- steps:end -->"
)

// catalogueMarkdown renders the step catalogue as the README shows it.
func catalogueMarkdown() string {
	var b strings.Builder
	b.WriteString("| Step (regular expression) | Example | Meaning |\n|---|---|---|\n")
	var r stepRunner
	for _, d := range r.defs() {
		example, _, more := strings.Cut(d.example, "\n")
		if more {
			example += " (and a table)"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", cell(d.pattern), cell(example), cell(d.doc))
	}
	return b.String()
}

// cell escapes a table cell: GitHub-flavoured Markdown ends a cell at any
// unescaped |, inside code spans too.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestREADMEStepCatalogue keeps the README's step catalogue equal to the
// steps Register registers. Run with -update to rewrite it.
func TestREADMEStepCatalogue(t *testing.T) {
	data, err := os.ReadFile(readme)
	require.NoError(t, err)
	begin := bytes.Index(data, []byte(stepsBegin))
	end := bytes.Index(data, []byte(stepsEnd))
	require.True(t, begin >= 0 && end > begin, "docs/scenarios.md has no %s … %s section", stepsBegin, stepsEnd)

	want := "\n" + catalogueMarkdown()
	got := string(data[begin+len(stepsBegin) : end])
	if *update {
		var out bytes.Buffer
		out.Write(data[:begin+len(stepsBegin)])
		out.WriteString(want)
		out.Write(data[end:])
		require.NoError(t, os.WriteFile(readme, out.Bytes(), 0o644))
		return
	}
	assert.Equal(t, want, got, "the step catalogue in docs/scenarios.md is out of date: go test ./retrievaltest/steps -run TestREADMEStepCatalogue -update")
}
