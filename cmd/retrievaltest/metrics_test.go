package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

const (
	sreTrace = "../../testdata/metrics/search-read-edit.toolcalls.json"
	sreGT    = "../../testdata/metrics/search-read-edit.groundtruth.yaml"
	mcpTrace = "../../testdata/metrics/subagent-mcp.toolcalls.json"
	mcpGT    = "../../testdata/metrics/subagent-mcp.groundtruth.json"
)

// decodeResults splits the concatenated JSON documents of metrics' output.
func decodeResults(t *testing.T, out string) []*metrics.Result {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var rs []*metrics.Result
	for dec.More() {
		var r metrics.Result
		require.NoError(t, dec.Decode(&r))
		rs = append(rs, &r)
	}
	return rs
}

func value(t *testing.T, r *metrics.Result, name string) float64 {
	t.Helper()
	v, ok := r.Metric(name)
	require.True(t, ok, "%s has no value", name)
	return v
}

func TestMetricsOnTheFixture(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "metrics", "-gt", sreGT, sreTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	rs := decodeResults(t, out)
	require.Len(t, rs, 1)
	r := rs[0]
	assert.True(t, r.Computable)
	assert.Equal(t, "search-read-edit", r.Provenance.TaskName)
	assert.Equal(t, metrics.Judgments{"pkg/auth/token.go": 2, "pkg/auth/errors.go": 1}, r.Judgments, "grades come from the ground-truth file")
	// surfaced = token.go(2) session.go errors.go(1): nDCG with the grades.
	assert.InDelta(t, (2/log2(2)+1/log2(4))/(2/log2(2)+1/log2(3)), value(t, r, "ndcg"), 1e-12)
	assert.Equal(t, 0.5, value(t, r, "recall@1"))
	assert.Equal(t, 0.5, value(t, r, "read.mrr"))
}

func TestMetricsFlagsChangeTheFigures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []string
		check func(t *testing.T, r *metrics.Result)
	}{
		{"-k sets the cutoffs", []string{"-k", "2,4"}, func(t *testing.T, r *metrics.Result) {
			assert.Equal(t, []int{2, 4}, r.Options.Ks)
			assert.Equal(t, 0.5, value(t, r, "recall@2"))
			_, ok := r.Metric("recall@5")
			assert.False(t, ok)
		}},
		{"-l 2 keeps only the grade-2 file relevant", []string{"-l", "2"}, func(t *testing.T, r *metrics.Result) {
			assert.Equal(t, []string{"pkg/auth/token.go"}, r.Relevant)
			assert.Equal(t, 1.0, value(t, r, "recall@1"))
		}},
		{"-include-writes ranks the written test file", []string{"-include-writes"}, func(t *testing.T, r *metrics.Result) {
			assert.Contains(t, r.Ranked.Surfaced, "pkg/auth/token_test.go")
		}},
		{"-task and -config name the run", []string{"-task", "fix-expiry", "-config", "baseline"}, func(t *testing.T, r *metrics.Result) {
			assert.Equal(t, "fix-expiry", r.Provenance.TaskName)
			assert.Equal(t, "baseline", r.Provenance.ConfigName)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"metrics", "-gt", sreGT}, tt.flags...)
			code, out, stderr := runCLI(t, nil, append(args, sreTrace)...)
			require.Equal(t, exitOK, code, stderr)
			rs := decodeResults(t, out)
			require.Len(t, rs, 1)
			tt.check(t, rs[0])
		})
	}
}

func TestMetricsWithoutGroundTruthIsNonComputable(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "metrics", sreTrace)
	require.Equal(t, exitOK, code, stderr)
	rs := decodeResults(t, out)
	require.Len(t, rs, 1)
	assert.False(t, rs[0].Computable)
	assert.Equal(t, "the task has no ground-truth files", *rs[0].NonComputableReason)
	assert.NotContains(t, out, `"recall@`)

	// A task folder without ground truth warns and is non-computable too.
	code, out, stderr = runCLI(t, nil, "metrics", "-gt", t.TempDir(), sreTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "the results are non-computable")
	assert.False(t, decodeResults(t, out)[0].Computable)
}

func TestMetricsReadsSeveralTracesAndStandardInput(t *testing.T) {
	t.Parallel()
	f, err := os.Open(mcpTrace)
	require.NoError(t, err)
	defer f.Close()
	code, out, stderr := runCLI(t, f, "metrics", "-gt", sreGT, sreTrace, "-")
	require.Equal(t, exitOK, code, stderr)
	rs := decodeResults(t, out)
	require.Len(t, rs, 2)
	assert.Equal(t, "mcp", rs[1].Slices.EvidenceType)
}

func TestMetricsBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		message string
	}{
		{"a missing trace names the file", []string{"metrics", "testdata/no-such-trace.json"}, "no-such-trace.json"},
		{"a missing ground truth names the file", []string{"metrics", "-gt", "no-such-gt.yaml", sreTrace}, "no-such-gt.yaml"},
		{"a bad cutoff", []string{"metrics", "-k", "1,x", sreTrace}, `-k "1,x"`},
		{"a zero cutoff", []string{"metrics", "-k", "0", sreTrace}, "not a cutoff"},
		{"level 0", []string{"metrics", "-l", "0", sreTrace}, "the level must be 1 or more"},
		{"no trace", []string{"metrics"}, "no trace given"},
		{"an unknown flag", []string{"metrics", "-bogus", sreTrace}, "bogus"},
		{"an unknown profile", []string{"metrics", "-profile", "nope", sreTrace}, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.message)
		})
	}

	// A bad trace among good ones: the good ones are still measured.
	code, out, stderr := runCLI(t, nil, "metrics", sreTrace, "missing.json", mcpTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "missing.json")
	assert.Len(t, decodeResults(t, out), 2)
}

func TestMetricsHelp(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, nil, "metrics", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "Usage: retrievaltest metrics")
	code, out, _ := runCLI(t, nil, "help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "metrics")
	assert.Contains(t, out, "trec-export")
}

func TestMetricsReportsIndexEffectiveness(t *testing.T) {
	t.Parallel()
	fix := "../../testdata/index/worked-fix-bug.aura.toolcalls.json"
	ie := func(t *testing.T, args ...string) map[string]any {
		t.Helper()
		code, out, stderr := runCLI(t, nil, append([]string{"metrics"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		m, ok := doc["index_effectiveness"].(map[string]any)
		require.True(t, ok, "index_effectiveness key in %s", out)
		return m
	}
	names := func(m map[string]any) []string {
		var out []string
		for _, p := range m["patterns"].([]any) {
			out = append(out, p.(map[string]any)["name"].(string))
		}
		return out
	}
	// No ground truth: the metrics are not computable, but the index
	// analysis is; steps to target falls back to the first edit.
	m := ie(t, fix)
	assert.InDelta(t, 0.45, m["semantic_ratio"], 1e-12)
	assert.Equal(t, "first_edit", m["steps_to_target_rule"])
	assert.Equal(t, float64(21), m["steps_to_target"])
	assert.Contains(t, names(m), "fishing")
	assert.Contains(t, names(m), "guessing", "without a symbol list, the grep before any semantic call guesses")

	// -fishing-min-run raises the bar.
	assert.NotContains(t, names(ie(t, "-fishing-min-run", "6", fix)), "fishing")
	// -symbols switches guessing to the known-symbol rule.
	syms := filepath.Join(t.TempDir(), "tags")
	require.NoError(t, os.WriteFile(syms, []byte("DiscountCalculator\n"), 0o644))
	m = ie(t, "-symbols", syms, fix)
	assert.Equal(t, "known_symbol", m["guessing_rule"])
	assert.NotContains(t, names(m), "guessing", `"discount" is not the identifier DiscountCalculator`)
	// -text-search-tools narrows what counts as a text search.
	assert.NotContains(t, names(ie(t, "-text-search-tools", "Grep", fix)), "guessing")

	code, _, stderr := runCLI(t, nil, "metrics", "-fishing-min-run", "0", fix)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "-fishing-min-run 0")
	code, _, stderr = runCLI(t, nil, "metrics", "-symbols", "/nonexistent/tags", fix)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "/nonexistent/tags")
}

// metrics -list prints every metric name with its definition, reading no
// trace.
func TestMetricsListPrintsEveryMetricWithItsDefinition(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "metrics", "-list")
	require.Equal(t, exitOK, code, stderr)
	for _, d := range metrics.Definitions() {
		assert.Contains(t, out, d.Name+"\n", "the name of %s", d.Name)
		assert.Contains(t, out, d.Definition, "the definition of %s", d.Name)
	}
	assert.Contains(t, out, "[read.]recall@k\n")
}
