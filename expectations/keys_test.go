package expectations

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/collect"
)

// The harness this package replaces read a documented threshold key
// through a mapping that never matched it, and nothing noticed because no
// test showed the key changing an outcome. Every key documented here has a
// case in which two scenarios differ only in that key (present or absent,
// or two values) and their outcomes differ.

type keyCase struct {
	// key is the documented key, qualified by where it is:
	// "scenario.trace", "index_usage.min_semantic_ratio", "harness.story".
	key  string
	a, b string
	// observe reads the outcome; nil reads the status of the one result.
	observe      func(*ScenarioResult, error) string
	wantA, wantB string
}

func status(res *ScenarioResult, err error) string {
	if err != nil {
		return "error"
	}
	if len(res.Results) != 1 {
		return fmt.Sprintf("%d results", len(res.Results))
	}
	return string(res.Results[0].Status)
}

// exp wraps an expectation's lines (each indented by four spaces) in a
// scenario with the given head.
func exp(head, typ string, lines ...string) string {
	return head + "expectations:\n  - type: " + typ + "\n" + indent(lines)
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

func passFail(key, a, b string) keyCase {
	return keyCase{key: key, a: a, b: b, wantA: "pass", wantB: "fail"}
}

func keyCases() []keyCase {
	idxRatio := func(head string) string { return exp(head, "index_usage", "min_semantic_ratio: 0.6") }
	const threeRuns = "traces: [../traces/runs/run-*.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n"
	const gtNoSymbols = "trace: ../traces/grep-then-read.toolcalls.json\nground_truth: [pkg/auth/token.go]\n"
	const twoRelevant = "trace: ../traces/index-first-then-edit.toolcalls.json\n" +
		"ground_truth: {files: [pkg/auth/token.go, pkg/auth/errors.go], expected_edit_files: [pkg/auth/token.go, pkg/auth/errors.go]}\n"
	cases := []keyCase{
		// Scenario keys.
		{key: "scenario.name", a: "name: alpha\n" + idxRatio(indexFirst), b: "name: beta\n" + idxRatio(indexFirst),
			observe: func(r *ScenarioResult, _ error) string { return r.Results[0].Scenario }, wantA: "alpha", wantB: "beta"},
		{key: "scenario.description", a: "description: finds token.go\n" + idxRatio(indexFirst), b: idxRatio(indexFirst),
			observe: func(r *ScenarioResult, _ error) string { return r.Scenario.Description }, wantA: "finds token.go", wantB: ""},
		passFail("scenario.trace", idxRatio(indexFirst), idxRatio(grepFirst)),
		passFail("scenario.traces",
			idxRatio("traces: [../traces/index-first-then-edit.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n"),
			idxRatio("traces: [../traces/index-first-then-edit.toolcalls.json, ../traces/grep-then-read.toolcalls.json]\nground_truth: [pkg/auth/token.go]\n")),
		passFail("scenario.trace_id",
			"trace: ../traces/two-instances.openhands-output.jsonl\ntrace_id: auth-1\n"+exp("", "tools", "max_calls: 1"),
			"trace: ../traces/two-instances.openhands-output.jsonl\ntrace_id: auth-2\n"+exp("", "tools", "max_calls: 1")),
		passFail("scenario.cwd",
			exp("trace: ../../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json\ncwd: /root\nground_truth: [pkg/auth/token.go]\n", "retrieval", "recall@1: {min: 1}"),
			exp("trace: ../../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json\nground_truth: [pkg/auth/token.go]\n", "retrieval", "recall@1: {min: 1}")),
		{key: "scenario.format", a: idxRatio(indexFirst), b: "format: atif\n" + idxRatio(indexFirst),
			observe: status, wantA: "pass", wantB: "error"},
		passFail("scenario.profile", "profile: aura\n"+idxRatio(indexFirst), "profile: claude-code\n"+idxRatio(indexFirst)),
		passFail("scenario.taxonomy",
			"taxonomy: ../support/grep-is-semantic.taxonomy.yaml\n"+exp(grepFirst, "index_usage", "min_semantic_ratio: 0.3"),
			exp(grepFirst, "index_usage", "min_semantic_ratio: 0.3")),
		passFail("scenario.ground_truth",
			exp(indexFirst, "retrieval", "recall@1: {min: 1}"),
			exp("trace: ../traces/index-first-then-edit.toolcalls.json\n", "retrieval", "recall@1: {min: 1}")),
		passFail("scenario.ground_truth (mapping)",
			exp("trace: ../traces/index-first-then-edit.toolcalls.json\nground_truth: {files: [{path: pkg/auth/token.go, grade: 1}]}\n", "retrieval", "recall@1: {min: 1}"),
			exp("trace: ../traces/index-first-then-edit.toolcalls.json\n", "retrieval", "recall@1: {min: 1}")),
		passFail("scenario.ground_truth (from)",
			exp(searchReadEdit, "retrieval", "recall@3: {min: 1}"),
			exp("trace: ../../../testdata/metrics/search-read-edit.toolcalls.json\n", "retrieval", "recall@3: {min: 1}")),
		passFail("scenario.symbols",
			"symbols: ../support/unrelated.symbols\n"+exp(gtNoSymbols, "patterns", "forbid: [guessing]"),
			exp(gtNoSymbols, "patterns", "forbid: [guessing]")),
		{key: "scenario.expectations", a: idxRatio(indexFirst), b: idxRatio(indexFirst) + "  - type: tools\n    must_call: [file.read]\n",
			observe: func(r *ScenarioResult, _ error) string { return fmt.Sprint(len(r.Results)) }, wantA: "1", wantB: "2"},
		passFail("scenario.runs", "runs: {min_pass_rate: 0.6}\n"+idxRatio(threeRuns), idxRatio(threeRuns)),
		passFail("runs.min_pass_rate", "runs: {min_pass_rate: 0.6}\n"+idxRatio(threeRuns), "runs: {min_pass_rate: 0.7}\n"+idxRatio(threeRuns)),
		passFail("runs.at_least", "runs: {at_least: 2}\n"+idxRatio(threeRuns), "runs: {at_least: 3}\n"+idxRatio(threeRuns)),
		// 2 of 3 runs pass: pass@2 1, pass^2 1/3, pass^3 0, Wilson 0.21–0.94.
		passFail("runs.min_pass_at_k", "runs: {k: 2, min_pass_at_k: 0.9}\n"+idxRatio(threeRuns), "runs: {k: 1, min_pass_at_k: 0.9}\n"+idxRatio(threeRuns)),
		passFail("runs.min_pass_hat_k", "runs: {k: 2, min_pass_hat_k: 0.3}\n"+idxRatio(threeRuns), "runs: {k: 2, min_pass_hat_k: 0.4}\n"+idxRatio(threeRuns)),
		passFail("runs.k", "runs: {k: 2, min_pass_hat_k: 0.3}\n"+idxRatio(threeRuns), "runs: {k: 3, min_pass_hat_k: 0.3}\n"+idxRatio(threeRuns)),
		passFail("runs.min_wilson_low", "runs: {min_wilson_low: 0.2}\n"+idxRatio(threeRuns), "runs: {min_wilson_low: 0.25}\n"+idxRatio(threeRuns)),
		passFail("scenario.run",
			runOf("../traces/index-first-then-edit.toolcalls.json")+idxRatio("ground_truth: [pkg/auth/token.go]\n"),
			runOf("../traces/grep-then-read.toolcalls.json")+idxRatio("ground_truth: [pkg/auth/token.go]\n")),
		{key: "scenario.tags", a: "tags: [auth]\n" + idxRatio(indexFirst), b: idxRatio(indexFirst),
			observe: func(r *ScenarioResult, _ error) string { return strings.Join(r.Scenario.Tags, ",") }, wantA: "auth", wantB: ""},

		// Keys of every expectation.
		{key: "common.type", a: exp(indexFirst, "index_usage", "min_semantic_ratio: 0.6"), b: exp(indexFirst, "patterns", "forbid: [fishing]"),
			observe: func(r *ScenarioResult, _ error) string { return r.Results[0].Type }, wantA: "index_usage", wantB: "patterns"},
		{key: "common.description", a: exp(indexFirst, "index_usage", "description: use the index", "min_semantic_ratio: 0.6"), b: idxRatio(indexFirst),
			observe: func(r *ScenarioResult, _ error) string { return r.Results[0].Description }, wantA: "use the index", wantB: ""},
		{key: "common.flaky", a: exp(grepFirst, "index_usage", "flaky: true", "min_semantic_ratio: 0.6"), b: idxRatio(grepFirst),
			observe: func(r *ScenarioResult, _ error) string {
				return fmt.Sprintf("%s failed=%v", r.Results[0].Status, r.Failed())
			},
			wantA: "fail failed=false", wantB: "fail failed=true"},

		// index_usage on indexFirst: ratio 0.67, 0.50 over all calls, grade
		// good; on fixBug: steps to target 6.
		passFail("index_usage.min_semantic_ratio", exp(indexFirst, "index_usage", "min_semantic_ratio: 0.6"), exp(indexFirst, "index_usage", "min_semantic_ratio: 0.7")),
		passFail("index_usage.min_aura_tool_ratio", exp(indexFirst, "index_usage", "min_aura_tool_ratio: 0.6"), exp(indexFirst, "index_usage", "min_aura_tool_ratio: 0.7")),
		passFail("index_usage.min_semantic_ratio_all_calls", exp(indexFirst, "index_usage", "min_semantic_ratio_all_calls: 0.5"), exp(indexFirst, "index_usage", "min_semantic_ratio_all_calls: 0.6")),
		passFail("index_usage.max_steps_to_target", exp(fixBug, "index_usage", "max_steps_to_target: 6"), exp(fixBug, "index_usage", "max_steps_to_target: 5")),
		passFail("index_usage.min_grade", exp(indexFirst, "index_usage", "min_grade: good"), exp(indexFirst, "index_usage", "min_grade: excellent")),

		// retrieval on searchReadEdit: recall@1 0.5 (token.go, grade 2, at
		// rank 1 of R = 2), 1 irrelevant file surfaced, 3 files ranked.
		passFail("retrieval.<metric>", exp(searchReadEdit, "retrieval", "recall@1: {min: 0.5}"), exp(searchReadEdit, "retrieval", "recall@1: {min: 0.5}", "read.recall@1: {min: 0.5}")),
		passFail("bound.min", exp(searchReadEdit, "retrieval", "recall@1: {min: 0.5}"), exp(searchReadEdit, "retrieval", "recall@1: {min: 0.6}")),
		passFail("bound.max", exp(searchReadEdit, "retrieval", "irrelevant_retrieval: {max: 1}"), exp(searchReadEdit, "retrieval", "irrelevant_retrieval: {max: 0}")),
		passFail("retrieval.level", exp(searchReadEdit, "retrieval", "level: 2", "recall@1: {min: 0.6}"), exp(searchReadEdit, "retrieval", "recall@1: {min: 0.6}")),
		passFail("retrieval.include_writes", exp(searchReadEdit, "retrieval", "num_ret: {max: 3}"), exp(searchReadEdit, "retrieval", "include_writes: true", "num_ret: {max: 3}")),

		// line_coverage on searchReadEdit: coverage 13/15, precision 13/31,
		// F1 26/46, IoU 13/33.
		passFail("line_coverage.min_coverage", exp(searchReadEdit, "line_coverage", "min_coverage: 0.8"), exp(searchReadEdit, "line_coverage", "min_coverage: 0.9")),
		passFail("line_coverage.min_precision", exp(searchReadEdit, "line_coverage", "min_precision: 0.4"), exp(searchReadEdit, "line_coverage", "min_precision: 0.45")),
		passFail("line_coverage.min_f1", exp(searchReadEdit, "line_coverage", "min_f1: 0.5"), exp(searchReadEdit, "line_coverage", "min_f1: 0.6")),
		passFail("line_coverage.min_iou", exp(searchReadEdit, "line_coverage", "min_iou: 0.35"), exp(searchReadEdit, "line_coverage", "min_iou: 0.4")),

		// patterns: fixBug fishes at steps 0–4 and has no direct edit;
		// gtNoSymbols greps before any semantic call.
		passFail("patterns.forbid", exp(fixBug, "patterns", "forbid: [direct]"), exp(fixBug, "patterns", "forbid: [fishing]")),
		passFail("patterns.require", exp(fixBug, "patterns", "require: [fishing]"), exp(fixBug, "patterns", "require: [direct]")),
		passFail("patterns.fishing_min_run", exp(fixBug, "patterns", "forbid: [fishing]", "fishing_min_run: 6"), exp(fixBug, "patterns", "forbid: [fishing]")),
		passFail("patterns.symbols", exp(gtNoSymbols, "patterns", "forbid: [guessing]", "symbols: ../support/unrelated.symbols"), exp(gtNoSymbols, "patterns", "forbid: [guessing]")),
		passFail("patterns.text_search_tools", exp(gtNoSymbols, "patterns", "forbid: [guessing]", "text_search_tools: [rg]"), exp(gtNoSymbols, "patterns", "forbid: [guessing]")),

		// tools on indexFirst: aura_search, aura_navigate, file.read,
		// file.write.
		passFail("tools.must_call", exp(indexFirst, "tools", "must_call: [aura_search]"), exp(indexFirst, "tools", "must_call: [grep_search]")),
		passFail("tools.must_not_call", exp(indexFirst, "tools", "must_not_call: [grep_search]"), exp(indexFirst, "tools", "must_not_call: [file.read]")),
		passFail("tools.calls", exp(indexFirst, "tools", `calls: {"aura_*": {min: 2}}`), exp(indexFirst, "tools", `calls: {"aura_*": {min: 3}}`)),
		passFail("tools.max_calls", exp(indexFirst, "tools", "max_calls: 4"), exp(indexFirst, "tools", "max_calls: 3")),

		// utilization: twoRelevant reads and writes token.go only (1 of 2);
		// searchReadEdit reads 1 of its 2 written files first.
		passFail("utilization.min_read_overlap", exp(twoRelevant, "utilization", "min_read_overlap: 0.5"), exp(twoRelevant, "utilization", "min_read_overlap: 0.6")),
		passFail("utilization.min_write_overlap_expected_edit", exp(twoRelevant, "utilization", "min_write_overlap_expected_edit: 0.5"), exp(twoRelevant, "utilization", "min_write_overlap_expected_edit: 0.6")),
		passFail("utilization.min_read_before_write_ratio", exp(searchReadEdit, "utilization", "min_read_before_write_ratio: 0.5"), exp(searchReadEdit, "utilization", "min_read_before_write_ratio: 0.6")),

		// budget: fixBug reaches its file at call 6, 10 s in;
		// searchReadEdit at call 1 with 1200 tokens, 6 calls in all; the
		// answer trace used 2250 tokens.
		passFail("budget.max_calls_before_first_relevant", exp(fixBug, "budget", "max_calls_before_first_relevant: 5"), exp(fixBug, "budget", "max_calls_before_first_relevant: 4")),
		passFail("budget.max_tokens_before_first_relevant", exp(searchReadEdit, "budget", "max_tokens_before_first_relevant: 1200"), exp(searchReadEdit, "budget", "max_tokens_before_first_relevant: 1199")),
		passFail("budget.max_seconds_before_first_relevant", exp(fixBug, "budget", "max_seconds_before_first_relevant: 10"), exp(fixBug, "budget", "max_seconds_before_first_relevant: 9.5")),
		passFail("budget.max_total_calls", exp(searchReadEdit, "budget", "max_total_calls: 6"), exp(searchReadEdit, "budget", "max_total_calls: 5")),
		passFail("budget.max_total_tokens", exp(answerTrace, "budget", "max_total_tokens: 2250"), exp(answerTrace, "budget", "max_total_tokens: 2249")),

		// answer: "The budget increased from $1.2M to $1.4M after
		// INC-2024-089."
		passFail("answer.required", exp(answerTrace, "answer", "required: [$1.4M]"), exp(answerTrace, "answer", "required: [$1.5M]")),
		passFail("answer.paraphrases", exp(answerTrace, "answer", "required: [$1.5M]", "paraphrases: [[1.4M, budget]]"), exp(answerTrace, "answer", "required: [$1.5M]")),
		passFail("answer.min_score", exp(answerTrace, "answer", "required: [$1.5M, budget]", "min_score: 0.5"), exp(answerTrace, "answer", "required: [$1.5M, budget]")),
		passFail("answer.incorrect", exp(answerTrace, "answer", "required: [$1.5M, budget]", "min_score: 0.5"), exp(answerTrace, "answer", "required: [$1.5M, budget]", "min_score: 0.5", "incorrect: [$1.2M]")),
		passFail("answer.entities", exp(answerTrace, "answer", "entities: [INC-2024-089]"), exp(answerTrace, "answer", "entities: [INC-2024-102]")),
		passFail("answer.entity_patterns", exp(answerTrace, "answer", "entities: [INC-2024-089]"), exp(answerTrace, "answer", "entities: [INC-2024-089]", `entity_patterns: ['CVE-\d{4}-\d+']`)),
		// The grading rubric's key names.
		passFail("answer.correct_keywords", exp(answerTrace, "answer", "correct_keywords: [$1.4M]"), exp(answerTrace, "answer", "correct_keywords: [$1.5M]")),
		passFail("answer.acceptable_paraphrases", exp(answerTrace, "answer", "required: [$1.5M]", "acceptable_paraphrases: [[1.4M, budget]]"), exp(answerTrace, "answer", "required: [$1.5M]")),
		passFail("answer.incorrect_patterns", exp(answerTrace, "answer", "required: [$1.5M, budget]", "min_score: 0.5"), exp(answerTrace, "answer", "required: [$1.5M, budget]", "min_score: 0.5", "incorrect_patterns: [$1.2M]")),

		// sequence, before, errors on checkoutFix: aura_search, file.read
		// of discount.go, three identical failing Bash calls, file.write of
		// discount.go, a passing Bash.
		passFail("sequence.calls", exp(checkoutFix, "sequence", "calls: [aura_search, file.write]"), exp(checkoutFix, "sequence", "calls: [file.write, aura_search]")),
		passFail("sequence.mode", exp(checkoutFix, "sequence", "calls: [aura_search, file.write]"), exp(checkoutFix, "sequence", "mode: exact", "calls: [aura_search, file.write]")),
		passFail("call.tool", exp(checkoutFix, "sequence", "calls: [{tool: file.read}, {tool: file.write}]"), exp(checkoutFix, "sequence", "calls: [{tool: file.write}, {tool: file.read}]")),
		passFail("call.class", exp(checkoutFix, "sequence", "calls: [{class: semantic}, file.read]"), exp(checkoutFix, "sequence", "calls: [{class: edit}, file.read]")),
		passFail("call.category", exp(checkoutFix, "sequence", "calls: [{category: code_search}, file.read]"), exp(checkoutFix, "sequence", "calls: [{category: file_write}, file.read]")),
		passFail("call.args", exp(checkoutFix, "sequence", "calls: [{tool: file.read}]"), exp(checkoutFix, "sequence", `calls: [{tool: file.read, args: {path: "**/billing/*.go"}}]`)),
		passFail("call.match", exp(checkoutFix, "sequence", `calls: [{tool: file.write, args: {path: "**/discount.go"}}]`), exp(checkoutFix, "sequence", `calls: [{tool: file.write, args: {path: "**/discount.go"}, match: exact}]`)),
		passFail("call.min", exp(checkoutFix, "sequence", "calls: [{tool: Bash, min: 4}]"), exp(checkoutFix, "sequence", "calls: [{tool: Bash, min: 5}]")),
		passFail("call.max", exp(checkoutFix, "sequence", "calls: [file.read, {tool: Bash, max: 3}, file.write]"), exp(checkoutFix, "sequence", "calls: [file.read, {tool: Bash, max: 2}, file.write]")),
		passFail("arg.glob", exp(checkoutFix, "sequence", `calls: [{tool: file.read, args: {path: {glob: "**/checkout/*.go"}}}]`), exp(checkoutFix, "sequence", `calls: [{tool: file.read, args: {path: {glob: "**/billing/*.go"}}}]`)),
		passFail("arg.regex", exp(checkoutFix, "sequence", `calls: [{tool: aura_search, args: {query: {regex: rounding}}}]`), exp(checkoutFix, "sequence", `calls: [{tool: aura_search, args: {query: {regex: ^rounding}}}]`)),
		passFail("before.first", exp(checkoutFix, "before", "first: file.read", "then: file.write"), exp(checkoutFix, "before", "first: Bash", "then: file.read")),
		passFail("before.then", exp(checkoutFix, "before", "first: file.read", "then: file.write"), exp(checkoutFix, "before", "first: file.read", "then: aura_search")),
		passFail("before.mode", exp(checkoutFix, "before", "first: aura_search", "then: grep_search", "mode: every"), exp(checkoutFix, "before", "first: aura_search", "then: grep_search")),
		passFail("before.same_file", exp(checkoutFix, "before", "first: Bash", "then: {class: edit}", "mode: every"), exp(checkoutFix, "before", "first: Bash", "then: {class: edit}", "same_file: true")),
		passFail("errors.max_failed", exp(checkoutFix, "errors", "max_failed: 3"), exp(checkoutFix, "errors", "max_failed: 2")),
		passFail("errors.failed", exp(checkoutFix, "errors", "failed: {Bash: {max: 3}}"), exp(checkoutFix, "errors", "failed: {Bash: {max: 2}}")),
		passFail("errors.failed_by_class", exp(checkoutFix, "errors", "failed_by_class: {other: {max: 3}}"), exp(checkoutFix, "errors", "failed_by_class: {other: {max: 2}}")),
		passFail("errors.max_retries", exp(checkoutFix, "errors", "max_retries: 2"), exp(checkoutFix, "errors", "max_retries: 1")),
	}
	// The harness's keys are kept, not interpreted: each shows up in
	// Scenario.Harness.
	harnessValues := map[string]string{
		"story": "{title: Fix, description: Fix it}", "repository": "/src/app", "executor": "internal",
		"timeoutSeconds": "300", "language": "go", "setup": "[make deps]", "prompt": "Fix the bug",
		"steps": "[plan, implement]", "model": "gpt-4.1", "agent": "aura",
	}
	for _, key := range harnessKeyNames() {
		cases = append(cases, keyCase{
			key: "harness." + key,
			a:   key + ": " + harnessValues[key] + "\n" + idxRatio(indexFirst),
			b:   idxRatio(indexFirst),
			observe: func(r *ScenarioResult, _ error) string {
				v, ok := r.Scenario.Harness[key]
				return fmt.Sprintf("%v %v", ok, v)
			},
		})
	}
	return cases
}

func TestEveryDocumentedKeyChangesTheOutcome(t *testing.T) {
	t.Parallel()
	for _, tc := range keyCases() {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			observe := tc.observe
			if observe == nil {
				observe = status
			}
			run := func(src string) string {
				s, err := parseInline(t, src)
				require.NoError(t, err, "scenario:\n%s", src)
				res, err := Evaluate(s, EvalOptions{RecordDir: t.TempDir(), Recorder: collect.Record})
				if err == nil && tc.observe == nil {
					require.Len(t, res.Results, 1)
				}
				return observe(res, err)
			}
			a, b := run(tc.a), run(tc.b)
			assert.NotEqual(t, a, b, "the key changed nothing:\n%s\n---\n%s", tc.a, tc.b)
			if tc.wantA != "" || tc.wantB != "" {
				assert.Equal(t, tc.wantA, a, "scenario:\n%s", tc.a)
				assert.Equal(t, tc.wantB, b, "scenario:\n%s", tc.b)
			}
		})
	}
}

// TestEveryKeyHasACase keeps the table above complete: a key added to a
// parameter struct or the scenario format without a case fails here.
func TestEveryKeyHasACase(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, tc := range keyCases() {
		// "scenario.ground_truth (mapping)" covers scenario.ground_truth.
		covered[strings.SplitN(tc.key, " (", 2)[0]] = true
	}
	var want []string
	for _, k := range scenarioKeys {
		want = append(want, "scenario."+k)
	}
	for _, k := range commonKeys {
		want = append(want, "common."+k)
	}
	for _, k := range harnessKeyNames() {
		want = append(want, "harness."+k)
	}
	want = append(want, "runs.min_pass_rate", "runs.at_least", "runs.k", "runs.min_pass_at_k", "runs.min_pass_hat_k", "runs.min_wilson_low", "bound.min", "bound.max")
	// The keys of a call pattern (sequence's calls, before's first and
	// then) and of an argument matcher.
	for prefix, params := range map[string]any{"call": CallPattern{}, "arg": ArgMatcher{}} {
		spec, err := specOf(reflect.TypeOf(params))
		require.NoError(t, err)
		for _, k := range spec.keys() {
			want = append(want, prefix+"."+k)
		}
	}
	reg := DefaultRegistry()
	for _, name := range reg.Names() {
		typ, _ := reg.Lookup(name)
		if typ.Live {
			continue // validated, never judged: nothing to change
		}
		spec := reg.specs[name]
		for _, k := range spec.keys() {
			want = append(want, name+"."+k)
		}
		if spec.inline != nil {
			want = append(want, name+".<metric>")
		}
	}
	var missing []string
	for _, k := range want {
		if !covered[k] {
			missing = append(missing, k)
		}
	}
	assert.Empty(t, missing, "documented keys with no case in keyCases")
	// And the table names no key that does not exist.
	var unknown []string
	for k := range covered {
		if !slices.Contains(want, k) {
			unknown = append(unknown, k)
		}
	}
	assert.Empty(t, unknown, "cases for keys that are not documented")
}
