package expectations

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// Every built-in type has a scenario file that passes and one that fails,
// and the message of each is checked in full: the message is what a person
// reads in CI.
func TestEveryBuiltinTypePassesAndFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		status   Status
		message  string
		measured string
	}{
		{"index_usage-pass.yaml", Pass,
			"semantic ratio 0.72, required ≥ 0.60 (18 semantic of 25 semantic + file-level calls); " +
				"steps to target 2, required ≤ 3 (step 2 is the first to touch a ground-truth file: aura_navigate src/Startup.cs)",
			"semantic ratio = 0.72; steps to target = 2"},
		{"index_usage-fail.yaml", Fail,
			"semantic ratio measured 0.45, required ≥ 0.60 (9 semantic of 20 semantic + file-level calls; fishing at steps 1–5; guessing at step 3)",
			"semantic ratio = 0.45"},
		{"retrieval-pass.yaml", Pass,
			"read.mrr 0.50, required ≥ 0.50 (relevant: pkg/auth/token.go at rank 2, pkg/auth/errors.go at rank 3); " +
				"recall@3 1.00, required ≥ 1.00 (relevant: pkg/auth/token.go at rank 1, pkg/auth/errors.go at rank 3)",
			"read.mrr = 0.50; recall@3 = 1.00"},
		{"retrieval-fail.yaml", Fail,
			"recall@1 measured 0.50, required ≥ 0.80 (relevant: pkg/auth/token.go at rank 1, pkg/auth/errors.go at rank 3)",
			"recall@1 = 0.50"},
		{"line_coverage-pass.yaml", Pass, "line coverage 0.87, required ≥ 0.80 (13 of 15 ground-truth lines read)", "line coverage = 0.87"},
		{"line_coverage-fail.yaml", Fail, "line precision measured 0.42, required ≥ 0.50 (13 of 31 lines read are ground-truth lines)", "line precision = 0.42"},
		{"patterns-pass.yaml", Pass,
			"fishing none, required none; direct 1 occurrence at steps 25–26, required at least one (aura_search, then step 26 edited src/Startup.cs)",
			"fishing = none; direct = 1 occurrence at steps 25–26"},
		{"patterns-fail.yaml", Fail,
			"fishing measured 1 occurrence at steps 1–5, required none (a run of 5 file-level calls with no semantic call between them)",
			"fishing = 1 occurrence at steps 1–5"},
		{"tools-pass.yaml", Pass,
			"aura_* calls 2 calls at steps 1–2, required at least one; grep_search calls none, required none",
			"aura_* calls = 2 calls at steps 1–2; grep_search calls = none"},
		{"tools-fail.yaml", Fail,
			"aura_* calls measured none, required at least one; grep_search calls measured 1 call at step 1, required none",
			"aura_* calls = none; grep_search calls = 1 call at step 1"},
		{"utilization-pass.yaml", Pass, "read overlap 1.00, required ≥ 1.00 (2 of 2 relevant files read)", "read overlap = 1.00"},
		{"utilization-fail.yaml", Fail, "read before write measured 0.50, required ≥ 1.00 (1 of 2 written files read first)", "read before write = 0.50"},
		{"budget-pass.yaml", Pass,
			"calls before the first relevant file 0, required ≤ 0 (pkg/auth/token.go first surfaced at step 1); total tool calls 6, required ≤ 6",
			"calls before the first relevant file = 0; total tool calls = 6"},
		{"budget-fail.yaml", Fail,
			"calls before the first relevant file measured 5, required ≤ 3 (src/Pricing/DiscountCalculator.cs first surfaced at step 6)",
			"calls before the first relevant file = 5"},
		{"answer-pass.yaml", Pass,
			"answer correct, required all required keywords (all 1 required keyword present: $1.4M; $1.2M ignored because the correct answer is present); " +
				"entities 1 of 1 named, required all of INC-2024-089",
			"answer = correct; entities = 1 of 1 named"},
		{"answer-fail.yaml", Fail,
			"answer measured incorrect, required all required keywords (names $1.2M, an incorrect answer, and not the correct one; missing $1.5M)",
			"answer = incorrect"},
		{"sequence-pass.yaml", Pass, "the 3 expected calls came in order (in_order)", "3 of 3 expected calls matched"},
		{"sequence-fail.yaml", Fail,
			`matching stopped at step 3 (Bash): it matches neither expected call 2 of 3 {category: file_read, args: {path: "**/checkout/*.go"}} ` +
				`nor expected call 3 of 3 {class: edit, args: {path: "**/checkout/*.go"}}`,
			"2 of 3 expected calls matched"},
		{"before-pass.yaml", Pass,
			"every {class: edit} (1) has a {category: file_read} on the same file before it",
			"{category: file_read} at step 2, {class: edit} at step 6"},
		{"before-fail.yaml", Fail,
			"the first {class: edit} at step 6 (file.write services/checkout/discount.go) comes after the first {tool: Bash} at step 3 (Bash)",
			"{class: edit} at step 6, {tool: Bash} at steps 3–5, 7"},
		{"errors-pass.yaml", Pass,
			`failed edit calls 0, required ≤ 0; retries of a failing call 2, required ≤ 2 (Bash {"command":"go test ./services/checkout/..."} failed 3 times in a row at steps 3–5)`,
			"failed edit calls = 0; retries of a failing call = 2"},
		{"errors-fail.yaml", Fail, "failed calls measured 3, required ≤ 1", "failed calls = 3"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s, err := Load(filepath.Join("testdata/scenarios", tt.file), LoadOptions{})
			require.NoError(t, err)
			res, err := Evaluate(s, EvalOptions{})
			require.NoError(t, err)
			r := only(t, res)
			assert.Equal(t, tt.status, r.Status)
			assert.Equal(t, tt.message, r.Message)
			assert.Equal(t, tt.measured, r.Measured)
			assert.Equal(t, tt.status == Fail, res.Failed())
			require.Len(t, r.Runs, 1)
			assert.Equal(t, tt.status, r.Runs[0].Status)
		})
	}
}

func TestOutcomesCarryThresholdAndEvidence(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/scenarios/index_usage-fail.yaml", LoadOptions{})
	require.NoError(t, err)
	res, err := Evaluate(s, EvalOptions{})
	require.NoError(t, err)
	r := only(t, res)
	assert.Equal(t, "≥ 0.60", r.Threshold)
	assert.Equal(t, []string{
		"fishing at steps 1–5: a run of 5 file-level calls with no semantic call between them",
		`guessing at step 3: grep_search searched text for "discount" before any semantic call`,
	}, r.Evidence)
	assert.Equal(t, Pos{File: "testdata/scenarios/index_usage-fail.yaml", Line: 8, Col: 5}, r.Pos)
	assert.Equal(t, "fix-bug", r.Scenario)
	assert.Equal(t, "Agent should use semantic tools for discovery", r.Description)
}

// A figure that does not exist for a run fails its check, with the reason:
// passing would let a broken pipeline through, and 0 would claim a
// measurement that was never made.
func TestMissingFiguresFailWithTheReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, message string
	}{
		{"a metric without ground truth is not computable",
			exp("trace: ../traces/index-first-then-edit.toolcalls.json\n", "retrieval", "recall@5: {min: 0.8}"),
			"recall@5 has no figure (not computable: the task has no ground-truth files), required ≥ 0.80"},
		{"line coverage without chunks is null",
			exp(indexFirst, "line_coverage", "min_coverage: 0.5"),
			"line coverage has no figure (the ground truth has no line ranges (chunks)), required ≥ 0.50"},
		{"read before write without writes is null",
			exp("trace: ../traces/answer-budget.stream.jsonl\nground_truth: [docs/budget.md]\n", "utilization", "min_read_before_write_ratio: 0.5"),
			"read before write has no figure (no file was written: the write proxy and read-before-write ratio are undefined; the ground truth has no expected edit files), required ≥ 0.50"},
		{"tokens of a trace without usage are missing",
			exp(indexFirst, "budget", "max_total_tokens: 100000"),
			"total tokens has no figure (the trace records no token usage), required ≤ 100000"},
		{"the ratio of a trace with only edits is missing",
			exp("trace: ../traces/answer-budget.stream.jsonl\nprofile: aura\n", "index_usage", "min_semantic_ratio: 0.5"),
			"semantic ratio has no figure (the trace has no semantic or file-level call), required ≥ 0.50"},
		{"the first relevant file never reached has no budget figure",
			exp("trace: ../traces/grep-then-read.toolcalls.json\nground_truth: [pkg/billing/invoice.go]\n", "budget", "max_calls_before_first_relevant: 10"),
			"calls before the first relevant file has no figure (never reached: no relevant file was surfaced), required ≤ 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, tt.src))
			assert.Equal(t, Fail, r.Status)
			assert.Equal(t, tt.message, r.Message)
			assert.True(t, strings.HasSuffix(r.Measured, " = n/a"), "the measured value names the figure that has none: %q", r.Measured)
			require.NotEmpty(t, r.Evidence)
			assert.Contains(t, r.Evidence[0], " is n/a: ", "the evidence says why first")
		})
	}
}

func TestTotalTokensFallBackToTheLastCallsCount(t *testing.T) {
	t.Parallel()
	// search-read-edit records cumulative tokens per call (7400 at the
	// last) and no session total.
	r := only(t, evalInline(t, exp(searchReadEdit, "budget", "max_total_tokens: 7000")))
	assert.Equal(t, Fail, r.Status)
	assert.Equal(t, "total tokens measured 7400, required ≤ 7000 (up to the last tool call, step 6; the trace records no session total)", r.Message)
}

// The grading seed's code accepted any one keyword and penalized correct
// answers that also named a historical value; the design's rule is all
// required keywords, or one paraphrase in full, and incorrect patterns only
// when the answer is not correct.
func TestAnswerGradingIsCorrectFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string
		params Answer
		want   Status
	}{
		{"a correct answer that names a historical value passes", "The budget increased from $1.2M to $1.4M",
			Answer{Required: []string{"$1.4M"}, Incorrect: []string{"$1.2M"}}, Pass},
		{"an answer with only the historical value fails", "The budget is $1.2M",
			Answer{Required: []string{"$1.4M"}, Incorrect: []string{"$1.2M"}}, Fail},
		{"one of two required keywords is not enough", "The budget is $1.4M",
			Answer{Required: []string{"$1.4M", "Q3"}}, Fail},
		{"keywords match without case", "the BUDGET is $1.4m",
			Answer{Required: []string{"budget", "$1.4M"}}, Pass},
		{"a paraphrase in full is correct", "one point four million dollars",
			Answer{Required: []string{"$1.4M"}, Paraphrases: [][]string{{"one point four", "million"}}}, Pass},
		{"half a paraphrase is not", "one point four",
			Answer{Required: []string{"$1.4M"}, Paraphrases: [][]string{{"one point four", "million"}}}, Fail},
		{"min_score passes a partial answer", "The budget is $1.4M",
			Answer{Required: []string{"$1.4M", "Q3"}, MinScore: ptr(0.5)}, Pass},
		{"an incorrect value sinks a partial answer", "The budget is $1.2M, up in Q3",
			Answer{Required: []string{"$1.4M", "Q3"}, MinScore: ptr(0.5), Incorrect: []string{"$1.2M"}}, Fail},
		{"an entity ID is extracted whole", "See INC-2024-089.",
			Answer{Entities: []string{"INC-2024-08"}}, Fail},
		{"every entity must be named", "Compare INC-2024-089 and INC-2024-102",
			Answer{Entities: []string{"INC-2024-089", "INC-2024-102"}}, Pass},
		{"custom entity patterns find other IDs", "Tracked as PROJ-456",
			Answer{Entities: []string{"proj456"}, EntityPatterns: []string{`proj\d+`}}, Fail},
		{"no answer fails", "", Answer{Required: []string{"x"}}, Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params
			run := &Run{Trace: "answer.json", Session: &trace.Session{Answer: tt.answer}}
			got := CheckOne(&Expectation{Type: "answer", Params: &p}, run, nil)
			assert.Equal(t, tt.want, got.Status, got.Message)
		})
	}
}

// An expectation's evidence is only that of what it checks: a steps-to-
// target check shows the step that reached the target, not the fishing
// runs before it; a patterns check shows only the patterns it names.
func TestEvidenceIsOnlyThatOfTheExpectation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, params, typ string
		want, unwanted    string
	}{
		{"steps to target shows its step only", "max_steps_to_target: 1", "index_usage", "step ", "fishing at"},
		{"a semantic ratio shows the fishing that pulls it down", "min_semantic_ratio: 0.9", "index_usage", "fishing at", ""},
		{"a pattern it does not name is not evidence", "forbid: [guessing]", "patterns", "", "fishing at"},
		{"a pattern it names is", "forbid: [fishing]", "patterns", "fishing at steps 1–5", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := only(t, evalInline(t, exp(fixBug, tt.typ, tt.params)))
			ev := strings.Join(r.Evidence, "\n")
			if tt.want != "" {
				assert.Contains(t, ev, tt.want)
			}
			if tt.unwanted != "" {
				assert.NotContains(t, ev, tt.unwanted)
			}
		})
	}
}
