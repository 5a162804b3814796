package expectations

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/trace"
)

// loadErrors loads a file that must fail and returns its error lines.
func loadErrors(t *testing.T, file string) []string {
	t.Helper()
	_, err := Load(file, LoadOptions{})
	require.Error(t, err)
	var errs Errors
	require.ErrorAs(t, err, &errs)
	return strings.Split(err.Error(), "\n")
}

func TestAMisspeltKeyIsOneErrorWithASuggestion(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		`testdata/scenarios/bad/typo-key.yaml:8:5: unknown key "min_aura_tool_raito" in index_usage; did you mean min_aura_tool_ratio?`,
	}, loadErrors(t, "testdata/scenarios/bad/typo-key.yaml"))
}

func TestARatioOfSixIsOneErrorWithAHint(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		`testdata/scenarios/bad/ratio-six.yaml:12:26: min_aura_tool_ratio: 6 is out of range [0, 1] (a ratio: did you mean 0.6, or 0.06 for 6%?)`,
	}, loadErrors(t, "testdata/scenarios/bad/ratio-six.yaml"))
}

func TestEveryErrorOfAFileIsReported(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		`testdata/scenarios/bad/many-errors.yaml:2:1: unknown key "nme" in the scenario; did you mean name?`,
		`testdata/scenarios/bad/many-errors.yaml:3:10: traces[0]: testdata/traces/no-such-run-*.json matches no file`,
		`testdata/scenarios/bad/many-errors.yaml:4:17: profile: unknown taxonomy profile "claude-cod"; did you mean claude-code?`,
		`testdata/scenarios/bad/many-errors.yaml:7:25: min_semantic_ratio: 60 is out of range [0, 1] (a ratio: did you mean 0.6 for 60%?)`,
		`testdata/scenarios/bad/many-errors.yaml:9:5: unknown metric "recal@5" in retrieval; did you mean recall@5?`,
		`testdata/scenarios/bad/many-errors.yaml:11:14: forbid[0]: unknown value "fising"; did you mean fishing?`,
		`testdata/scenarios/bad/many-errors.yaml:13:16: max_calls: -1 is below the minimum 0`,
	}, loadErrors(t, "testdata/scenarios/bad/many-errors.yaml"))
}

func TestAnUnknownTypeIsAnError(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{
		`testdata/scenarios/bad/unknown-type.yaml:3:11: unknown expectation type "index_usgae"; did you mean index_usage?`,
	}, loadErrors(t, "testdata/scenarios/bad/unknown-type.yaml"))
}

func TestErrorsAreYAMLErrors(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/scenarios/bad/typo-key.yaml", LoadOptions{})
	var ye *yamlerr.Error
	require.True(t, errors.As(err, &ye))
	assert.Equal(t, yamlerr.Error{File: "testdata/scenarios/bad/typo-key.yaml", Line: 8, Col: 5,
		Msg: `unknown key "min_aura_tool_raito" in index_usage; did you mean min_aura_tool_ratio?`}, *ye)
}

// One problem per case, each written where it occurs; want is the whole
// error text.
func TestEachProblemIsReportedAtItsPlace(t *testing.T) {
	t.Parallel()
	const f = inlineFile
	tests := []struct {
		name, src, want string
	}{
		{"a scenario needs a trace",
			"expectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":1:1: no trace: give trace (one file) or traces (files or globs, one per run of the task)"},
		{"trace and traces exclude each other",
			indexFirst + "traces: [../traces/grep-then-read.toolcalls.json]\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:1: give trace (one file) or traces (the runs of the task), not both"},
		{"a missing trace file",
			"trace: ../traces/nope.json\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":1:8: trace: testdata/traces/nope.json does not exist"},
		{"a folder is not a trace",
			"trace: ../traces\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":1:8: trace: testdata/traces is a folder, not a trace file"},
		{"a glob that matches no file",
			"traces: [../traces/runs/*.jsonl]\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":1:10: traces[0]: testdata/traces/runs/*.jsonl matches no file"},
		{"a missing ground-truth file",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth: {from: ../nope.json}\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":2:22: ground_truth.from: testdata/nope.json does not exist"},
		{"a ground-truth file name needs from",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth: truth.json\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + `:2:15: ground_truth: expected a list of paths, a mapping (files, symbols, expected_edit_files, chunks) or {from: FILE}, got the string "truth.json"; to load a file write {from: truth.json}`},
		{"a number is no ground truth",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth: 3\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":2:15: ground_truth: expected a list of paths, a mapping (files, symbols, expected_edit_files, chunks) or {from: FILE}, got the number 3"},
		{"inline ground truth's types are named as the file writes them",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth:\n  files: [{path: a.go, grade: high}]\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:31: ground_truth: expected a whole number, got a string"},
		{"a list where inline ground truth wants a string",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth:\n  expected_edit_files: [[a.go]]\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:25: ground_truth: expected a string, got a list"},
		{"inline ground truth is checked in place",
			"trace: ../traces/grep-then-read.toolcalls.json\nground_truth:\n  files: [pkg/a.go]\n  file: [pkg/b.go]\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + `:4:3: ground_truth: unknown key "file"`},
		{"a missing symbol file",
			grepFirst + "symbols: ../nope.tags\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:10: symbols: testdata/nope.tags does not exist"},
		{"a missing taxonomy file",
			grepFirst + "taxonomy: ../nope.yaml\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:11: taxonomy: testdata/nope.yaml does not exist"},
		{"an unknown trace format",
			grepFirst + "format: claude\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + `:3:9: format: unknown trace format "claude" (known: ` + strings.Join(sortedFormats(), ", ") + ")"},
		{"a harness key spelt the snake_case way",
			grepFirst + "timeout_seconds: 300\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + `:3:1: unknown key "timeout_seconds" in the scenario; did you mean timeoutSeconds?`},
		{"a key given twice",
			grepFirst + "expectations:\n  - type: tools\n    max_calls: 3\n    max_calls: 4\n",
			f + ":6:5: max_calls is given twice (first at line 5)"},
		{"a scenario key with no value",
			"trace:\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":1:1: trace has no value"},
		{"a key with no value",
			grepFirst + "expectations:\n  - type: index_usage\n    min_semantic_ratio:\n",
			f + ":5:5: min_semantic_ratio has no value"},
		{"a string where a number goes",
			grepFirst + "expectations:\n  - type: index_usage\n    min_semantic_ratio: \"0.6\"\n",
			f + `:5:25: min_semantic_ratio: expected a number, got the string "0.6"`},
		{"a percentage where a ratio goes",
			grepFirst + "expectations:\n  - type: index_usage\n    min_semantic_ratio: 60%\n",
			f + `:5:25: min_semantic_ratio: expected a number, got the string "60%" (a ratio: write 0.6 for 60%)`},
		{"a fraction where a whole number goes",
			grepFirst + "expectations:\n  - type: index_usage\n    max_steps_to_target: 2.5\n",
			f + ":5:26: max_steps_to_target: 2.5 is not a whole number"},
		{"a number below a minimum",
			grepFirst + "expectations:\n  - type: index_usage\n    max_steps_to_target: 0\n",
			f + ":5:26: max_steps_to_target: 0 is below the minimum 1"},
		{"an unknown enum value",
			grepFirst + "expectations:\n  - type: index_usage\n    min_grade: great\n",
			f + `:5:16: min_grade: unknown value "great" (known: excellent, fair, good, poor)`},
		{"a scalar where a list goes",
			grepFirst + "expectations:\n  - type: patterns\n    forbid: fishing\n",
			f + `:5:13: forbid: expected a list of strings, got the string "fishing"; write [fishing]`},
		{"a key and its alias together",
			grepFirst + "expectations:\n  - type: index_usage\n    min_semantic_ratio: 0.6\n    min_aura_tool_ratio: 0.6\n",
			f + ":6:5: min_semantic_ratio and min_aura_tool_ratio are the same key (min_aura_tool_ratio is an alias of min_semantic_ratio): give one"},
		{"an expectation with no threshold",
			grepFirst + "expectations:\n  - type: index_usage\n    description: nothing to check\n",
			f + ":4:5: index_usage: no threshold: give at least one of min_semantic_ratio (alias min_aura_tool_ratio), min_semantic_ratio_all_calls, max_steps_to_target, min_grade"},
		{"a pattern both forbidden and required",
			grepFirst + "expectations:\n  - type: patterns\n    forbid: [direct]\n    require: [direct]\n",
			f + ":4:5: patterns: direct is both forbidden and required: no run can pass"},
		{"an unknown metric",
			grepFirst + "expectations:\n  - type: retrieval\n    read.recal@20: {min: 0.5}\n",
			f + `:5:5: unknown metric "read.recal@20" in retrieval; did you mean read.recall@20?`},
		{"a ratio bound on a ratio metric",
			grepFirst + "expectations:\n  - type: retrieval\n    ndcg@10: {min: 80}\n",
			f + ":5:20: ndcg@10.min: 80 is out of range [0, 1] (a ratio: did you mean 0.8 for 80%?)"},
		{"a bound key misspelt",
			grepFirst + "expectations:\n  - type: retrieval\n    mrr: {mn: 0.5}\n",
			f + `:5:11: unknown key "mn" in mrr; did you mean min?`},
		{"a bad regular expression",
			answerTrace + "expectations:\n  - type: answer\n    entities: [X-1]\n    entity_patterns: ['X-(']\n",
			f + ":5:23: entity_patterns[0]: \"X-(\" is not a regular expression: missing closing ): `X-(`"},
		{"a bad glob",
			grepFirst + "expectations:\n  - type: tools\n    must_call: ['[a']\n",
			f + `:5:17: must_call[0]: "[a" is not a glob: syntax error in pattern`},
		{"an expectation without a type",
			grepFirst + "expectations:\n  - max_calls: 3\n",
			f + ":4:5: expectations[0] has no type (known: answer, before, budget, build_succeeds, command_succeeds, compiles, errors, file_contains, file_exists, file_not_contains, index_usage, line_coverage, patterns, retrieval, sequence, tests_pass, tools, utilization)"},
		{"an empty expectations list",
			grepFirst + "expectations: []\n",
			f + ":3:15: expectations is empty: a scenario must check something"},
		{"runs with both rules",
			grepFirst + "runs: {min_pass_rate: 0.5, at_least: 1}\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:7: runs: give one rule, not at_least and min_pass_rate"},
		{"runs that need more runs than there are",
			grepFirst + "runs: {at_least: 2}\nexpectations:\n  - type: tools\n    max_calls: 3\n",
			f + ":3:7: runs.at_least: 2 runs must pass but the scenario has 1 trace(s): it could never pass"},
		{"a live type's keys are checked too",
			grepFirst + "expectations:\n  - type: file_contains\n    path: a.cs\n    patern: x\n",
			f + `:6:5: unknown key "patern" in file_contains; did you mean pattern?`},
		{"a live type with no keys takes none",
			grepFirst + "expectations:\n  - type: compiles\n    project: a.csproj\n",
			f + `:5:5: unknown key "project" in compiles (known: description, flaky, type)`},
		{"a file that is not a mapping",
			"- type: tools\n",
			f + ":1:1: a scenario is a mapping of keys (name, trace, expectations, …), not a list"},
		{"two documents in one file",
			grepFirst + "expectations:\n  - type: tools\n    max_calls: 3\n---\nname: second\n",
			f + ":7:1: a scenario file holds one document; split the scenarios into files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseInline(t, tt.src)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestBrokenYAMLIsAnErrorAtItsPlace(t *testing.T) {
	t.Parallel()
	_, err := parseInline(t, "name: [unclosed\n")
	require.Error(t, err)
	var ye *yamlerr.Error
	require.ErrorAs(t, err, &ye)
	assert.Equal(t, inlineFile, ye.File)
	assert.Positive(t, ye.Line)

	_, err = parseInline(t, "")
	assert.EqualError(t, err, inlineFile+": the file is empty: a scenario needs a trace and expectations")
}

func TestAScenarioLoadsWithEveryKeyResolved(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/scenarios/fix-token-expiry.yaml", LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, "fix-token-expiry", s.Name)
	assert.Equal(t, "The agent fixes token expiry and should find token.go through the index.", s.Description)
	assert.Equal(t, "testdata/scenarios/fix-token-expiry.yaml", s.File)
	assert.Equal(t, []string{
		filepath.FromSlash("testdata/traces/runs/run-1.toolcalls.json"),
		filepath.FromSlash("testdata/traces/runs/run-2.toolcalls.json"),
		filepath.FromSlash("testdata/traces/runs/run-3.toolcalls.json"),
	}, s.Traces)
	assert.Equal(t, []string{"aura"}, s.Profiles)
	require.NotNil(t, s.GroundTruth)
	assert.Equal(t, []groundtruth.File{{Path: "pkg/auth/token.go", Grade: 2}}, s.GroundTruth.Files)
	assert.Equal(t, []string{"pkg/auth/token.go"}, s.GroundTruth.EditFiles)
	require.NotNil(t, s.Runs.MinPassRate)
	assert.InDelta(t, 0.6, *s.Runs.MinPassRate, 0)
	assert.Nil(t, s.Runs.AtLeast)
	assert.Equal(t, []string{"auth"}, s.Tags)
	assert.Nil(t, s.Harness)
	require.Len(t, s.Expectations, 4)
	e := s.Expectations[0]
	assert.Equal(t, "index_usage", e.Type)
	assert.Equal(t, "Agent should use semantic tools for discovery", e.Description)
	assert.Equal(t, Pos{File: s.File, Line: 18, Col: 5}, e.Pos)
	// The alias fills the field it names: the fault this package exists to
	// prevent is this threshold going missing.
	assert.Equal(t, &IndexUsage{MinSemanticRatio: ptr(0.6), MaxStepsToTarget: ptr(3)}, e.Params)
	assert.Equal(t, &Retrieval{Metrics: map[string]Bound{"recall@1": {Min: ptr(1.0)}}}, s.Expectations[1].Params)
}

func TestPathsAndTheDefaultName(t *testing.T) {
	t.Parallel()
	s := mustParse(t, grepFirst+"taxonomy: ../support/grep-is-semantic.taxonomy.yaml\nsymbols: ../support/unrelated.symbols\n"+
		"expectations:\n  - type: patterns\n    forbid: [guessing]\n    symbols: ../support/unrelated.symbols\n")
	assert.Equal(t, "inline", s.Name)
	assert.Equal(t, filepath.FromSlash("testdata/support/grep-is-semantic.taxonomy.yaml"), s.Taxonomy)
	assert.Equal(t, filepath.FromSlash("testdata/support/unrelated.symbols"), s.Symbols)
	assert.Equal(t, filepath.FromSlash("testdata/support/unrelated.symbols"), s.Expectations[0].Params.(*Patterns).Symbols)
}

func TestAnchorsAliasesAndMergeKeysAreFollowed(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "trace: ../traces/index-first-then-edit.toolcalls.json\ntags: &files [pkg/auth/token.go]\nground_truth: *files\n"+`expectations:
  - &strict
    type: index_usage
    min_semantic_ratio: 0.6
  - <<: *strict
    max_steps_to_target: 3
  - type: tools
    max_calls: &most 4
  - type: budget
    max_total_calls: *most
`)
	require.Len(t, s.Expectations, 4)
	assert.Equal(t, []string{"pkg/auth/token.go"}, s.GroundTruth.Paths())
	assert.Equal(t, &IndexUsage{MinSemanticRatio: ptr(0.6)}, s.Expectations[0].Params)
	assert.Equal(t, &IndexUsage{MinSemanticRatio: ptr(0.6), MaxStepsToTarget: ptr(3)}, s.Expectations[1].Params)
	assert.Equal(t, &Budget{MaxTotalCalls: ptr(4)}, s.Expectations[3].Params)
}

// docBlock returns the indented block of doc.go that starts with first.
func docBlock(t *testing.T, first string) string {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	var block []string
	in := false
	for line := range strings.SplitSeq(string(doc), "\n") {
		switch {
		case line == "//\t"+first:
			in = true
		case in && !strings.HasPrefix(line, "//\t"):
			in = false
		}
		if in {
			block = append(block, strings.TrimPrefix(line, "//\t"))
		}
	}
	require.NotEmpty(t, block, "%q not found in doc.go", first)
	return strings.Join(block, "\n") + "\n"
}

// The manual's examples are the first scenarios a user copies; their keys
// and values must be valid. (Their files do not exist here.)
func TestTheManualsExamplesAreValidScenarios(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t, DefaultRegistry())
	for _, first := range []string{"# scenarios/fix-token-expiry.yaml", "name: add-user-validation"} {
		src := docBlock(t, first)
		require.Greater(t, strings.Count(src, "\n"), 15)
		_, err := Parse("scenarios/example.yaml", []byte(src), LoadOptions{})
		var errs Errors
		if err != nil {
			require.ErrorAs(t, err, &errs)
		}
		for _, e := range errs {
			if !strings.Contains(e.Msg, "does not exist") && !strings.Contains(e.Msg, "matches no file") {
				t.Errorf("the manual's example has a problem: %v", e)
			}
		}
		assert.NoError(t, schema.Validate(yamlAsJSON(t, []byte(src))))
	}
}

// sortedFormats lists the built-in trace formats as error messages do.
func sortedFormats() []string {
	names := trace.DefaultRegistry().Names()
	slices.Sort(names)
	return names
}

// The YAML a scenario is written in can ask its reader for unbounded work:
// each of these once overflowed the stack, took exponential time or
// gigabytes of memory. Each must be one error at its place.
func TestYAMLThatWouldExhaustTheLoaderIsAnErrorAtItsPlace(t *testing.T) {
	t.Parallel()
	var chain strings.Builder
	chain.WriteString("name: chained\nanchors:\n  l0: &l0 {a: 1, b: 2}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&chain, "  l%d: &l%d {<<: *l%d, <<: *l%d}\n", i, i, i-1, i-1)
	}
	chain.WriteString("<<: *l40\n")
	tests := []struct {
		name, src, want string
	}{
		{
			name: "a merge key naming its own mapping",
			src:  "name: self\ntrace: t.jsonl\nexpectations:\n  - &a\n    type: recall\n    <<: *a\n",
			want: "s.yaml:6:9: alias *a is inside its own anchor",
		},
		{
			name: "forty chained merge keys",
			src:  chain.String(),
			want: "s.yaml:19:18: aliases expand to more than 1000000 nodes",
		},
		{
			name: "tags nested thirty thousand deep",
			src:  "name: deep\ntags: " + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "\n",
			want: "s.yaml:2:1006: collections nested more than 1000 deep",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("s.yaml", []byte(tt.src), LoadOptions{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Editors on Windows start a file with a byte-order mark; it is not part
// of the first key.
func TestAByteOrderMarkBeforeTheFirstKeyIsSkipped(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "\ufeffname: with-bom\n"+grepFirst+"expectations:\n  - type: patterns\n    forbid: [guessing]\n")
	assert.Equal(t, "with-bom", s.Name)
	_, err := parseInline(t, "\ufeffnme: x\n"+grepFirst+"expectations:\n  - type: patterns\n    forbid: [guessing]\n")
	assert.EqualError(t, err, inlineFile+`:1:1: unknown key "nme" in the scenario; did you mean name?`)
}

// A flow list of five million items (10 MB, within the 64 MiB scenario
// limit) took 23 s and 4 GB to parse; it is refused from its bytes, at the
// item that crosses the token limit.
func TestAScenarioOfMillionsOfItemsIsRefusedAtTheTokenLimit(t *testing.T) {
	t.Parallel()
	_, err := parseInline(t, "x: ["+strings.Repeat("1,", 5_000_000)+"1]\n")
	var ye *yamlerr.Error
	require.ErrorAs(t, err, &ye)
	// x : [ are three tokens; then "1" and "," alternate from column 5.
	assert.Equal(t, []int{1, 100_002}, []int{ye.Line, ye.Col})
	assert.Contains(t, ye.Msg, "more than 100000 YAML tokens")
}

func TestCwdIsAnAbsolutePathAsTheTraceSpellsIt(t *testing.T) {
	t.Parallel()
	const rest = "\ntrace: ../../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json\nexpectations:\n  - type: tools\n    max_calls: 3\n"
	for _, tc := range []struct {
		name, cwd, wantErr string
	}{
		{name: "a path from the root is taken", cwd: "/root"},
		{name: "a Windows drive path is taken", cwd: `'C:\work'`},
		{name: "a drive path with slashes is taken", cwd: "c:/work"},
		{name: "a relative path is refused", cwd: "root", wantErr: `testdata/scenarios/s.yaml:1:6: cwd: "root" is not an absolute path`},
		{name: "a drive letter alone is refused", cwd: "'C:'", wantErr: `cwd: "C:" is not an absolute path`},
		{name: "a digit is not a drive", cwd: `'1:\work'`, wantErr: `is not an absolute path`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse("testdata/scenarios/s.yaml", []byte("cwd: "+tc.cwd+rest), LoadOptions{})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, strings.Trim(tc.cwd, "'"), s.CWD)
		})
	}
}
