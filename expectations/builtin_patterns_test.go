package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A patterns check with no options of its own judges the analysis that was
// measured, so a run kept without its document (its metrics only) is
// judged; one that changes what counts as a pattern needs the document to
// analyse again, and says so.
func TestPatternsNeedTheDocumentOnlyForTheirOptions(t *testing.T) {
	t.Parallel()
	run, err := Measure("../testdata/index/worked-fix-bug.aura.toolcalls.json", MeasureOptions{Profiles: []string{"aura"}})
	require.NoError(t, err)
	run.Document = nil
	noDocument := "the run has no retrieval-events document to analyse with the expectation's pattern options"
	tests := []struct {
		name   string
		params Patterns
		want   string
	}{
		{"no options", Patterns{Forbid: []string{"fishing"}},
			"fishing measured 1 occurrence at steps 1–5, required none (a run of 5 file-level calls with no semantic call between them)"},
		{"a fishing run", Patterns{Forbid: []string{"fishing"}, FishingMinRun: 3}, noDocument},
		{"text search tools", Patterns{Forbid: []string{"guessing"}, TextSearchTools: []string{"grep_*"}}, noDocument},
		{"symbols", Patterns{Forbid: []string{"guessing"}, Symbols: "symbols.txt"}, noDocument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			got := CheckOne(&Expectation{Type: "patterns", Params: &p}, run, nil)
			assert.Equal(t, Fail, got.Status)
			assert.Equal(t, tt.want, got.Message)
		})
	}
}
