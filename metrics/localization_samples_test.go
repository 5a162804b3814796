package metrics_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// The real Claude Code session of TestIndexOnARealClaudeCodeSession (21
// calls, ../shared/samples), with the ground truth todo-app/package.json
// (lines 1-29) and CLAUDE.md (lines 1-10). Hand check from its events:
//
//   - surfaced: package.json at call 8 (index 7, a Glob), CLAUDE.md at call
//     12 (index 11, a Bash ls); read: package.json at index 8, CLAUDE.md at
//     index 18. Coverage after each call, surfaced: 0 ×7, 1/2 ×4, 1 ×10;
//     read: 0 ×8, 1/2 ×10, 1 ×3.
//   - tokens: calls of one turn share a count (indices 1-3, 4-6). A call
//     weighs its count minus the previous call's: surfaced 1/2 from the
//     call at 71346 (previous 58433) to the one at 131637, then 1 from the
//     call at 145110 (previous 131637); read 1/2 from 84358 (previous
//     71346), 1 from 300421 (previous 278775); 349380 in all.
//   - reads: package.json 1-28 twice (each Read's empty "29→" stands for
//     the final newline, not a line), CLAUDE.md 1-97: 153 lines with the
//     re-read, 28 + 28 + 10 of them in the ground truth (which names line
//     29 too: 39 lines); the first 30 are package.json 1-28 and two
//     re-read lines, the first 58 add CLAUDE.md 1-2, the first 68 CLAUDE.md
//     1-12.
//   - CLAUDE.md is written (MultiEdit, index 19); package.json, read, is not.
//   - retrieval calls (Glob, Read, Bash: file_level) are calls 2, 3, 8, 9,
//     11-16 and 19; the other ten are TodoWrite and Task (other), Edit and
//     MultiEdit (edit). Coverage at them, surfaced: 0 ×2, 1/2 ×3, 1 ×6;
//     read: 0 ×3, 1/2 ×7, 1 ×1.
func TestLocalizationOnARealClaudeCodeSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "shared", "samples", "claude-code-jsonl", "dkimuson-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Skip("shared samples not available:", err)
	}
	sess, err := trace.ReadFile(file, trace.Options{})
	require.NoError(t, err)
	gt := &events.GroundTruth{
		Files:  []string{"todo-app/package.json", "CLAUDE.md"},
		Chunks: []events.LineRange{{Path: "todo-app/package.json", Start: 1, End: 29}, {Path: "CLAUDE.md", Start: 1, End: 10}},
	}
	res := metrics.Compute(events.Normalize(sess, events.Options{GroundTruth: gt}), metrics.Options{LineBudgets: []int{30, 58, 68}})
	require.True(t, res.Computable, "reason: %v", res.NonComputableReason)
	require.Len(t, res.CoverageOverTime.Curve, 21)

	const total = 349380.0
	want := map[string]float64{
		"coverage_auc":                (4*0.5 + 10*1) / 21.0,
		"read.coverage_auc":           (10*0.5 + 3*1) / 21.0,
		"coverage_auc_retrieval":      (3*0.5 + 6*1) / 11.0,
		"read.coverage_auc_retrieval": (7*0.5 + 1*1) / 11.0,
		"coverage_auc_tokens":         (0.5*(131637-58433) + 1*(total-131637)) / total,
		"read.coverage_auc_tokens":    (0.5*(278775-71346) + 1*(total-278775)) / total,
		"evidence_drop":               1,
		"line_context_efficiency":     (28 + 28 + 10) / 153.0,
		"line_precision":              38 / 125.0,
		"line_recall@30":              28 / 39.0,
		"line_recall@58":              30 / 39.0,
		"line_recall@68":              38 / 39.0,
	}
	for name, w := range want {
		assert.InDelta(t, w, metric(t, res, name), 1e-12, name)
	}
}
