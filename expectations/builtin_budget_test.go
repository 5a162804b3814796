package expectations

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A budget's figure that the trace cannot give says which record is
// missing, and a figure that is there names the step that reached the
// first relevant file.
func TestBudgetSaysWhatTheTraceLacks(t *testing.T) {
	t.Parallel()
	// Two calls without timestamps; only the first records a running
	// token count.
	dir := t.TempDir()
	bare := filepath.Join(dir, "bare.toolcalls.json")
	require.NoError(t, os.WriteFile(bare, []byte(`{"cwd": "/repo", "toolCalls": [
  {"tool": "file.read", "arguments": {"path": "pkg/auth/token.go"}, "result": "package auth", "cumulativeTokens": 900},
  {"tool": "file.read", "arguments": {"path": "pkg/auth/session.go"}, "result": "package auth"}
]}`), 0o600))
	bareTrace := "trace: " + bare + "\nground_truth: [pkg/auth/token.go]\n"

	tests := []struct {
		name, src string
		status    Status
		message   string
	}{
		{"tokens of a trace without counts",
			exp(indexFirst, "budget", "max_tokens_before_first_relevant: 100"), Fail,
			"tokens at the first relevant file has no figure (the trace records no token counts), required ≤ 100"},
		{"seconds of a trace without timestamps",
			exp(bareTrace, "budget", "max_seconds_before_first_relevant: 10"), Fail,
			"seconds to the first relevant file has no figure (the trace records no timestamps), required ≤ 10"},
		{"seconds of a trace with timestamps",
			exp(indexFirst, "budget", "max_seconds_before_first_relevant: 10"), Pass,
			"seconds to the first relevant file 0, required ≤ 10 (pkg/auth/token.go first surfaced at step 1)"},
		{"tokens of the first relevant file",
			exp(bareTrace, "budget", "max_tokens_before_first_relevant: 100"), Fail,
			"tokens at the first relevant file measured 900, required ≤ 100 (pkg/auth/token.go first surfaced at step 1)"},
		{"a total from the first call's count",
			exp(bareTrace, "budget", "max_total_tokens: 1000"), Pass,
			"total tokens 900, required ≤ 1000 (up to the last tool call, step 1; the trace records no session total)"},
		{"no ground truth says why",
			exp("trace: ../traces/index-first-then-edit.toolcalls.json\n", "budget", "max_calls_before_first_relevant: 3"), Fail,
			"calls before the first relevant file has no figure (not computable: the task has no ground-truth files), required ≤ 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, tt.src))
			assert.Equal(t, tt.status, r.Status)
			assert.Equal(t, tt.message, r.Message)
		})
	}
}

// The evidence names the step at which the first relevant file was
// reached, counted from one.
func TestBudgetEvidenceNamesTheFirstRelevantStep(t *testing.T) {
	t.Parallel()
	r := only(t, evalInline(t, exp(fixBug, "budget", "max_calls_before_first_relevant: 10")))
	assert.Equal(t, Pass, r.Status)
	assert.Contains(t, r.Evidence, "step 6: first relevant file src/Pricing/DiscountCalculator.cs")
}
