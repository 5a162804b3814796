package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The localization and context measures are thresholds of the retrieval
// expectation like any other metric: each passes and fails on the
// search-read-edit trace (see metrics' TestComputeOnTheSearchReadEditTrace
// for the hand-computed figures).
func TestLocalizationMeasuresAreRetrievalThresholds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bound   string
		status  Status
		message string
	}{
		{"acc@3: {min: 1}", Pass, "acc@3 1.00, required ≥ 1.00"},
		{"acc@1: {min: 1}", Fail, "acc@1 measured 0.00, required ≥ 1.00"},
		{"read.acc@3: {min: 1}", Pass, "read.acc@3 1.00, required ≥ 1.00"},
		{"symbol_acc@10: {min: 1}", Fail, "symbol_acc@10 measured 0.00, required ≥ 1.00"},
		{"coverage_auc: {min: 0.5}", Pass, "coverage_auc 0.58, required ≥ 0.50"},
		{"read.coverage_auc: {min: 0.5}", Fail, "read.coverage_auc measured 0.42, required ≥ 0.50"},
		{"coverage_auc_tokens: {min: 0.6}", Fail, "coverage_auc_tokens measured 0.59, required ≥ 0.60"},
		{"evidence_drop: {max: 0}", Fail, "evidence_drop measured 1, required ≤ 0"},
		{"evidence_drop: {max: 1}", Pass, "evidence_drop 1, required ≤ 1"},
		{"line_context_efficiency: {min: 0.4}", Pass, "line_context_efficiency 0.42, required ≥ 0.40"},
		// A budget the run was not measured with is measured on demand:
		// the first 20 lines read are session.go 1-5 and token.go 40-54.
		{"line_recall@20: {min: 0.7}", Fail, "line_recall@20 measured 0.67, required ≥ 0.70"},
		{"line_recall@100: {min: 0.8}", Pass, "line_recall@100 0.87, required ≥ 0.80"},
	}
	for _, tt := range tests {
		t.Run(tt.bound, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(searchReadEdit, "retrieval", tt.bound)))
			assert.Equal(t, tt.status, r.Status, r.Message)
			assert.Contains(t, r.Message, tt.message)
		})
	}
}

func TestLocalizationMeasuresWithoutAFigureSayWhy(t *testing.T) {
	t.Parallel()
	r := only(t, evalInline(t, exp("trace: ../traces/answer-budget.stream.jsonl\nground_truth: [docs/budget.md]\n", "retrieval", "evidence_drop: {max: 0}")))
	assert.Equal(t, Fail, r.Status)
	assert.Contains(t, r.Message, "evidence_drop has no figure (no file was written")
	r = only(t, evalInline(t, exp(indexFirst, "retrieval", "line_recall@100: {min: 0.5}")))
	assert.Equal(t, Fail, r.Status)
	assert.Contains(t, r.Message, "line_recall@100 has no figure (the ground truth has no line ranges (chunks))")
}
