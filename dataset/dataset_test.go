package dataset_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/dataset"
	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/trace"
)

var update = flag.Bool("update", false, "rewrite the golden dataset rows of testdata/examples/dataset/rows")

const example = "../testdata/examples/dataset"

// exampleConfig is the walk-through's first command (README, "Datasets
// from traces").
func exampleConfig(out string) dataset.Config {
	return dataset.Config{
		Diff:   filepath.Join(example, "change.diff"),
		Traces: []string{filepath.Join(example, "first-run.toolcalls.json")},
		Out:    out, Base: "3f9c2ab", CaseID: "fix-token-expiry",
		Query: "Tokens stay valid one tick past their expiry",
	}
}

func TestRowsMatchTheGoldenFiles(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	res, err := dataset.Generate(context.Background(), exampleConfig(out))
	require.NoError(t, err)
	assert.Equal(t, []string{"fix-token-expiry"}, res.Written)
	for _, name := range []string{dataset.FileA, dataset.FileB} {
		got, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		golden := filepath.Join(example, "rows", name)
		if *update {
			require.NoError(t, os.WriteFile(golden, got, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s differs from %s (go test -update rewrites it)", name, golden)
	}
}

// exampleCase builds the example's case once per test.
func exampleCase(t *testing.T) *dataset.Case {
	t.Helper()
	golden, err := groundtruth.Load(filepath.Join(example, "change.diff"))
	require.NoError(t, err)
	s, err := trace.ReadFile(filepath.Join(example, "first-run.toolcalls.json"), trace.Options{})
	require.NoError(t, err)
	return dataset.Build(golden, s, dataset.Options{})
}

func TestBuildRanksGoldenEntriesFirstThenEachCallsArgumentsThenResults(t *testing.T) {
	t.Parallel()
	c := exampleCase(t)
	files := map[string][]string{}
	var order []string
	for _, f := range c.Files {
		files[f.Path] = f.Sources
		order = append(order, f.Path)
	}
	ranges := map[string][]string{}
	for _, r := range c.Ranges {
		ranges[r.Path+":"+strconv.Itoa(r.StartLine)+"-"+strconv.Itoa(r.EndLine)] = r.Sources
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"golden files come in diff order, then files in first-seen order", order,
			[]string{"pkg/auth/token.go", "pkg/auth/session_store.go", "pkg/auth/sessions.go", "pkg/auth/legacy.go", "pkg/auth/claims.go", "pkg/auth/token_test.go"}},
		{"a rename names both paths as golden", []any{files["pkg/auth/session_store.go"], files["pkg/auth/sessions.go"]},
			[]any{[]string{"review_merge_diff"}, []string{"review_merge_diff"}}},
		{"a deleted file is golden under its old path, and a later read adds its source", files["pkg/auth/legacy.go"],
			[]string{"review_merge_diff", "tool_call_args"}},
		{"a golden file found again keeps its place and gains sources in order", files["pkg/auth/token.go"],
			[]string{"review_merge_diff", "tool_call_result", "tool_call_args"}},
		{"a file only a result named is a result's", files["pkg/auth/token_test.go"], []string{"tool_call_result"}},
		{"a hunk is golden on the new side", ranges["pkg/auth/token.go:10-15"], []string{"golden_diff"}},
		{"a pure-deletion hunk is golden on the old side", ranges["pkg/auth/token.go:40-41"], []string{"golden_diff"}},
		{"a renamed file's hunk is on the new path", ranges["pkg/auth/sessions.go:1-3"], []string{"golden_diff"}},
		{"a deleted file's hunk is its old lines, and a read of the same lines adds its source", ranges["pkg/auth/legacy.go:1-3"],
			[]string{"golden_diff", "tool_call_args"}},
		{"a grep hit is a result's line", ranges["pkg/auth/token.go:13-13"], []string{"tool_call_result"}},
		{"a read asked for and shown is both", ranges["pkg/auth/token.go:9-13"], []string{"tool_call_args", "tool_call_result"}},
		{"a read window of 4 around line 21 is lines 17 to 25, not halved", ranges["pkg/auth/claims.go:17-25"],
			[]string{"tool_call_args", "tool_call_result"}},
		{"the halved window the first extractor wrote is not there", ranges["pkg/auth/claims.go:19-23"], []string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
	assert.Equal(t, 4, slices.IndexFunc(c.Ranges, func(r dataset.LineRange) bool { return r.Sources[0] != "golden_diff" }),
		"the four golden ranges come first")
}

func TestBuildLeavesOutWritesUnlessAsked(t *testing.T) {
	t.Parallel()
	s := &trace.Session{}
	s.AddCall(trace.ToolCall{Name: "Write", Arguments: []byte(`{"file_path": "new.go", "content": "package x"}`), HasResult: true, Result: "ok"})
	assert.Empty(t, dataset.Build(nil, s, dataset.Options{}).Files, "a write is not retrieval")
	got := dataset.Build(nil, s, dataset.Options{IncludeWrites: true}).Files
	assert.Equal(t, []dataset.FilePath{{Path: "new.go", Sources: []string{"tool_call_args"}}}, got)
}

func TestBuildMergesPathsUnderTheNormalizersKey(t *testing.T) {
	t.Parallel()
	s := &trace.Session{}
	s.AddCall(trace.ToolCall{Name: "Read", Arguments: []byte(`{"file_path": "PKG/A.go"}`)})
	s.AddCall(trace.ToolCall{Name: "Read", Arguments: []byte(`{"file_path": "pkg/a.go"}`)})
	opts := dataset.Options{Events: events.Options{Paths: events.PathNormalizer{FoldCase: true}}}
	assert.Len(t, dataset.Build(nil, s, opts).Files, 1, "folded case: one file")
	assert.Len(t, dataset.Build(nil, s, dataset.Options{}).Files, 2, "case-sensitive: two files")
}

// TestRowsReadBackAsTheSameGroundTruth is the round trip: what Write puts
// in Dataset B (and A), groundtruth.LoadDataset reads back as the diff's
// own files and ranges.
func TestRowsReadBackAsTheSameGroundTruth(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	_, err := dataset.Generate(context.Background(), exampleConfig(out))
	require.NoError(t, err)
	diff, err := groundtruth.Load(filepath.Join(example, "change.diff"))
	require.NoError(t, err)

	cases, err := groundtruth.LoadDataset(out)
	require.NoError(t, err)
	require.Contains(t, cases, "fix-token-expiry")
	both := cases["fix-token-expiry"]
	assert.ElementsMatch(t, diff.Paths(), both.Paths(), "Dataset A's golden files are the diff's")
	assert.ElementsMatch(t, diff.Chunks, both.Chunks, "Dataset B's golden ranges are the diff's hunks")
	assert.Equal(t, groundtruth.High, both.Confidence)

	b, err := groundtruth.Load(filepath.Join(out, dataset.FileB))
	require.NoError(t, err, "Load reads a one-case Dataset B file")
	assert.Equal(t, diff.Chunks, b.Chunks, "in the diff's order")
	var withRanges []string
	for _, c := range diff.Chunks {
		if !slices.Contains(withRanges, c.Path) {
			withRanges = append(withRanges, c.Path)
		}
	}
	assert.Equal(t, withRanges, b.Paths(), "Dataset B alone knows the files that have golden ranges")
}

func TestWriteIsIncremental(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	one := &dataset.Case{ID: "one", Query: "q1", BaseCommit: "b1", Files: []dataset.FilePath{{Path: "a.go", Sources: []string{"review_merge_diff"}}}}
	two := &dataset.Case{ID: "two", Ranges: []dataset.LineRange{{Path: "b.go", StartLine: 1, EndLine: 2, Sources: []string{"golden_diff"}}}}
	_, err := dataset.Write(out, []*dataset.Case{one}, false, nil)
	require.NoError(t, err)
	first, err := os.ReadFile(filepath.Join(out, dataset.FileA))
	require.NoError(t, err)

	res, err := dataset.Write(out, []*dataset.Case{one, two}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, res.Skipped, "a case already there is skipped")
	assert.Equal(t, []string{"two"}, res.Written)
	a, err := os.ReadFile(filepath.Join(out, dataset.FileA))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(a), string(first)), "existing rows stay byte for byte")
	lines := strings.Split(strings.TrimSpace(string(a)), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, `{"caseId":"two","caseIndex":1,"query":"","baseCommit":"","needsQuery":true,"needsBaseCommit":true,"filePaths":[]}`, lines[1],
		"the new row is numbered on, marked incomplete, with an empty list rather than null")

	res, err = dataset.Write(out, []*dataset.Case{two}, true, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"two"}, res.Written)
	b, err := os.ReadFile(filepath.Join(out, dataset.FileB))
	require.NoError(t, err)
	assert.Equal(t, `{"caseId":"two","caseIndex":0,"query":"","baseCommit":"","needsQuery":true,"needsBaseCommit":true,"lineRanges":[{"path":"b.go","startLine":1,"endLine":2,"sources":["golden_diff"]}]}`+"\n", string(b),
		"full rewrites the file with the cases alone, numbered from 0")
}

func TestWriteCompletesAFileThatMissesARowAndKeepsUnreadableLines(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	one := &dataset.Case{ID: "one", Query: "q", BaseCommit: "b"}
	require.NoError(t, os.WriteFile(filepath.Join(out, dataset.FileA), []byte(`{"caseId":"one","caseIndex":4}`+"\n"+`{"caseId": half a row`), 0o644))
	var warnings []string
	res, err := dataset.Write(out, []*dataset.Case{one}, false, func(w string) { warnings = append(warnings, w) })
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, res.Written, "Dataset B lacked the case")
	assert.Equal(t, []string{filepath.Join(out, dataset.FileA) + ":2: not a dataset row with a caseId; kept as it is"}, warnings)
	a, err := os.ReadFile(filepath.Join(out, dataset.FileA))
	require.NoError(t, err)
	assert.Equal(t, `{"caseId":"one","caseIndex":4}`+"\n"+`{"caseId": half a row`, string(a), "Dataset A already had it: left as it was")
	b, err := os.ReadFile(filepath.Join(out, dataset.FileB))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"caseId":"one","caseIndex":4,`, "the case keeps the index Dataset A gave it")

	two := &dataset.Case{ID: "two"}
	_, err = dataset.Write(out, []*dataset.Case{two}, false, nil)
	require.NoError(t, err)
	b, err = os.ReadFile(filepath.Join(out, dataset.FileB))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"caseId":"two","caseIndex":5,`, "a new case is numbered after the largest index in either file")
}

func TestWriteRefusesTwoCasesWithOneID(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	_, err := dataset.Write(out, []*dataset.Case{{ID: "x"}, {ID: "x"}}, false, nil)
	require.ErrorContains(t, err, `two cases have the id "x"`)
	entries, _ := os.ReadDir(out)
	assert.Empty(t, entries, "nothing is written")
}

func TestGenerateRefusesInputsThatCannotMakeACase(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(example, "first-run.toolcalls.json")
	diff := filepath.Join(example, "change.diff")
	tests := []struct {
		name string
		cfg  dataset.Config
		want string
	}{
		{"no diff", dataset.Config{Traces: []string{trace}}, "no diff given"},
		{"a diff with no change", dataset.Config{Diff: trace, Traces: []string{trace}}, "no file changes found"},
		{"a final commit without a repository", dataset.Config{Diff: diff, Final: "HEAD", Traces: []string{trace}}, "without a repository"},
		{"a base and a final commit", dataset.Config{Diff: diff, Base: "a", Final: "b", Repo: ".", Traces: []string{trace}}, "both a base and a final commit"},
		{"no trace and no case id", dataset.Config{Diff: diff}, "needs a case id"},
		{"one case id for two sessions", dataset.Config{Diff: diff, CaseID: "x", Traces: []string{trace, filepath.Join(example, "rerun.toolcalls.json")}}, `case id "x" names one case, but the traces hold 2 sessions`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.cfg.Out = t.TempDir()
			_, err := dataset.Generate(context.Background(), tt.cfg)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestADiffAloneIsACaseOfGoldenEntries(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	_, err := dataset.Generate(context.Background(), dataset.Config{Diff: filepath.Join(example, "change.diff"), CaseID: "diff-only", Out: out})
	require.NoError(t, err)
	cases, err := groundtruth.LoadDataset(filepath.Join(out, dataset.FileA))
	require.NoError(t, err)
	assert.Len(t, cases["diff-only"].Paths(), 4)
}

func TestEachSessionIsACaseNamedByItsSession(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	cfg := exampleConfig(out)
	cfg.CaseID = ""
	cfg.Traces = append(cfg.Traces, filepath.Join(example, "rerun.toolcalls.json"))
	res, err := dataset.Generate(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"7d1e52c0", "93ab04f1"}, res.Written, "the session ids of the two traces")
}

func TestTheQueryIsTheTracesPromptUnlessGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	withPrompt := filepath.Join(dir, "with.toolcalls.json")
	require.NoError(t, os.WriteFile(withPrompt, []byte(`{"prompt": "Fix expiry", "toolCalls": [{"tool": "Read", "arguments": {"file_path": "a.go"}}]}`), 0o644))
	without := filepath.Join(dir, "without.toolcalls.json")
	require.NoError(t, os.WriteFile(without, []byte(`{"toolCalls": [{"tool": "Read", "arguments": {"file_path": "a.go"}}]}`), 0o644))
	tests := []struct {
		name, query string
		traces      []string
		want        []string
	}{
		{"the prompt the trace records", "", []string{withPrompt, without},
			[]string{`"caseId":"with","caseIndex":0,"query":"Fix expiry","baseCommit":"b","needsQuery":false`,
				`"caseId":"without","caseIndex":1,"query":"","baseCommit":"b","needsQuery":true`}},
		{"the query given wins", "Given", []string{withPrompt}, []string{`"query":"Given"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			_, err := dataset.Generate(context.Background(), dataset.Config{Diff: filepath.Join(example, "change.diff"), Base: "b", Query: tt.query, Traces: tt.traces, Out: out})
			require.NoError(t, err)
			a, err := os.ReadFile(filepath.Join(out, dataset.FileA))
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, string(a), w)
			}
		})
	}
}
