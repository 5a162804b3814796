package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func log2(x float64) float64 { return math.Log2(x) }

// trecNames maps Compute's metric names to trec_eval's, for every figure
// the two share, at the cutoffs 1, 3, 5 and 10.
func trecNames() map[string]string {
	m := map[string]string{
		"map": "map", "mrr": "recip_rank", "r_precision": "Rprec", "ndcg": "ndcg",
		"file_recall": "set_recall", "context_efficiency": "set_P",
		"num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
	}
	for _, k := range []int{1, 3, 5, 10} {
		m[fmt.Sprintf("precision@%d", k)] = fmt.Sprintf("P_%d", k)
		m[fmt.Sprintf("recall@%d", k)] = fmt.Sprintf("recall_%d", k)
		m[fmt.Sprintf("ndcg@%d", k)] = fmt.Sprintf("ndcg_cut_%d", k)
		m[fmt.Sprintf("success@%d", k)] = fmt.Sprintf("success_%d", k)
	}
	return m
}

func trecMeasures(t *testing.T) []metrics.TRECMeasure {
	t.Helper()
	ms, err := metrics.ParseTRECMeasures([]string{
		"P.1,3,5,10", "recall.1,3,5,10", "ndcg_cut.1,3,5,10", "success.1,3,5,10",
		"map", "recip_rank", "Rprec", "ndcg", "set_P", "set_recall", "num_ret", "num_rel", "num_rel_ret",
	})
	require.NoError(t, err)
	return ms
}

// evaluate parses exported files and evaluates them as trec_eval -c does.
func evaluate(t *testing.T, qrelsText, runText string, level int) *metrics.TRECResult {
	t.Helper()
	qrels, err := metrics.ParseQrels(strings.NewReader(qrelsText), "qrels")
	require.NoError(t, err)
	run, err := metrics.ParseTRECRun(strings.NewReader(runText), "run")
	require.NoError(t, err)
	res, err := metrics.EvaluateTREC(qrels, run, metrics.TRECOptions{Level: level, Complete: true, Measures: trecMeasures(t)})
	require.NoError(t, err)
	return res
}

// crossCheck asserts that every shared figure of r (in view v) equals
// trec_eval's figure for query q.
func crossCheck(t *testing.T, r *metrics.Result, v metrics.View, q metrics.TRECQueryResult, desc string) {
	t.Helper()
	for ours, theirs := range trecNames() {
		want, ok := q.Value(theirs)
		require.True(t, ok, "trec_eval gave no %s", theirs)
		got := value(t, r, v.Prefix()+ours)
		// Equal, not close: both sides run the same arithmetic.
		assert.Equal(t, want, got, "%s%s vs trec_eval %s; %s", v.Prefix(), ours, theirs, desc)
	}
}

func TestTrecExportAgreesWithTrecEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		trace, gt string
		view      string
		level     string
	}{
		{sreTrace, sreGT, "surfaced", "1"},
		{sreTrace, sreGT, "read", "1"},
		{sreTrace, sreGT, "surfaced", "2"},
		{mcpTrace, mcpGT, "surfaced", "1"},
		{mcpTrace, mcpGT, "read", "2"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s view %s level %s", filepath.Base(tt.trace), tt.view, tt.level)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			runFile, qrelsFile := filepath.Join(dir, "agent.run"), filepath.Join(dir, "agent.qrels")
			code, _, stderr := runCLI(t, nil, "trec-export", "-gt", tt.gt, "-view", tt.view, "-o-run", runFile, "-o-qrels", qrelsFile, tt.trace)
			require.Equal(t, exitOK, code, stderr)
			code, out, stderr := runCLI(t, nil, "metrics", "-gt", tt.gt, "-l", tt.level, tt.trace)
			require.Equal(t, exitOK, code, stderr)
			r := decodeResults(t, out)[0]
			require.True(t, r.Computable)

			runText, err := os.ReadFile(runFile)
			require.NoError(t, err)
			qrelsText, err := os.ReadFile(qrelsFile)
			require.NoError(t, err)
			level := int(tt.level[0] - '0')
			res := evaluate(t, string(qrelsText), string(runText), level)
			require.Len(t, res.Queries, 1)
			assert.Equal(t, r.Provenance.TaskName, res.Queries[0].Query)
			crossCheck(t, r, metrics.View(tt.view), res.Queries[0], name)
		})
	}
}

func TestTrecExportWritesTRECLines(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "trec-export", sreTrace, mcpTrace)
	require.Equal(t, exitOK, code, stderr)
	// Scores N - rank + 1 decrease strictly; the run tag is fixed.
	assert.Equal(t, `search-read-edit Q0 pkg/auth/token.go 1 3 agentretrieval
search-read-edit Q0 pkg/auth/session.go 2 2 agentretrieval
search-read-edit Q0 pkg/auth/errors.go 3 1 agentretrieval
subagent-mcp Q0 src/Orders/Pricing/PriceCalculator.cs 1 3 agentretrieval
subagent-mcp Q0 src/Orders/Pricing/IPriceCalculator.cs 2 2 agentretrieval
subagent-mcp Q0 src/Orders/OrderService.cs 3 1 agentretrieval
`, out)

	dir := t.TempDir()
	qrelsFile := filepath.Join(dir, "gt.qrels")
	code, out, stderr = runCLI(t, nil, "trec-export", "-gt", sreGT, "-view", "read", "-o-qrels", qrelsFile, sreTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "search-read-edit Q0 pkg/auth/session.go 1 3 agentretrieval\nsearch-read-edit Q0 pkg/auth/token.go 2 2 agentretrieval\nsearch-read-edit Q0 pkg/auth/errors.go 3 1 agentretrieval\n", out)
	qrels, err := os.ReadFile(qrelsFile)
	require.NoError(t, err)
	assert.Equal(t, "search-read-edit 0 pkg/auth/errors.go 1\nsearch-read-edit 0 pkg/auth/token.go 2\n", string(qrels))
}

func TestTrecExportReplacesFilesAtomically(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runFile := filepath.Join(dir, "agent.run")
	require.NoError(t, os.WriteFile(runFile, []byte("old\n"), 0o644))

	// A bad trace: nothing is written, the old file stays.
	code, _, stderr := runCLI(t, nil, "trec-export", "-o-run", runFile, sreTrace, "missing.json")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "missing.json")
	got, err := os.ReadFile(runFile)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(got))

	code, _, stderr = runCLI(t, nil, "trec-export", "-o-run", runFile, sreTrace)
	require.Equal(t, exitOK, code, stderr)
	got, err = os.ReadFile(runFile)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "search-read-edit Q0 "))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
	info, err := os.Stat(runFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())

	// A directory that does not exist: exit 2, naming the problem.
	code, _, stderr = runCLI(t, nil, "trec-export", "-o-run", filepath.Join(dir, "no", "such", "x.run"), sreTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "writing the run")
}

func TestTrecExportBadInput(t *testing.T) {
	t.Parallel()
	spaced := filepath.Join(t.TempDir(), "spaced.json")
	require.NoError(t, os.WriteFile(spaced, []byte(`{"toolCalls": [{"tool": "Read", "arguments": {"file_path": "my docs/a.go"}, "result": "1\tx"}]}`), 0o644))
	tests := []struct {
		name    string
		args    []string
		message string
	}{
		{"an unknown view", []string{"-view", "top", sreTrace}, `-view "top"`},
		{"qrels without ground truth", []string{"-o-qrels", "x.qrels", sreTrace}, "give -gt"},
		{"two traces of one task", []string{"-task", "same", sreTrace, mcpTrace}, `same task name "same"`},
		{"a path with white space names the trace", []string{spaced}, `spaced.json: path "my docs/a.go" contains white space`},
		{"a missing trace", []string{"nope.json"}, "nope.json"},
		{"a missing ground truth", []string{"-gt", "nope.yaml", sreTrace}, "nope.yaml"},
		{"no trace", nil, "no trace given"},
		{"run and qrels in one file", []string{"-gt", sreGT, "-o-run", "x", "-o-qrels", "x", sreTrace}, "the same file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runCLI(t, nil, append([]string{"trec-export"}, tt.args...)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.message)
			assert.Empty(t, out)
		})
	}
}

func TestTrecExportRefusesOneGroundTruthForSeveralSessions(t *testing.T) {
	t.Parallel()
	const several = "../../expectations/testdata/traces/two-instances.openhands-output.jsonl"
	gt := filepath.Join(t.TempDir(), "gt.txt")
	require.NoError(t, os.WriteFile(gt, []byte("pkg/auth/token.go\n"), 0o644))
	code, out, stderr := runCLI(t, nil, "trec-export", "-gt", gt, several)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, several+" holds 2 sessions and -gt "+gt+" is the ground truth of one task: pick its session with -trace-id")

	code, out, stderr = runCLI(t, nil, "trec-export", "-gt", gt, "-trace-id", "auth-1", several)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "auth-1 Q0 pkg/auth/token.go 1 ")

	code, out, stderr = runCLI(t, nil, "trec-export", several)
	require.Equal(t, exitOK, code, "without -gt every session is its own query: %s", stderr)
	assert.Contains(t, out, "auth-1 Q0 ")
	assert.Contains(t, out, "auth-2 Q0 ")
}
