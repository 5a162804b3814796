package report

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/runs"
)

func ptr[T any](v T) *T { return &v }

// indexRows: a passing direct scenario, a failing fishing one, one
// without a ratio (and a pipe in its name) and a flaky one.
var indexRows = []IndexRow{
	{Scenario: "fix-bug", SemanticRatio: ptr(0.45), StepsToTarget: ptr(6), Patterns: []string{"guessing", "fishing", "fishing"}, Result: Fail},
	{Scenario: "add-service", SemanticRatio: ptr(0.72), StepsToTarget: ptr(2), Patterns: []string{"direct"}, Result: Pass},
	{Scenario: "docs|only", Result: Skipped},
	{Scenario: "rename-flag", SemanticRatio: ptr(0.585), StepsToTarget: ptr(3), Result: Flaky},
}

func TestIndexTableGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteIndexTable(&b, indexRows, IndexOptions{}))
	golden(t, "index.md", b.Bytes())
	assert.Contains(t, b.String(), "**Aggregate:** 58.5% semantic tool usage (target: 60%)",
		"the mean of 0.45, 0.72 and 0.585, leaving out the scenario without a ratio")
}

func TestIndexTableWithBaselineGolden(t *testing.T) {
	t.Parallel()
	base := NewBaseline("scenario")
	base.Set("add-service", "semantic_ratio", 0.70)
	base.Set("add-service", "steps_to_target", 3)
	base.Set("fix-bug", "semantic_ratio", 0.55)
	base.Set("fix-bug", "steps_to_target", 6)
	base.Set("rename-flag", "semantic_ratio", 0.60)
	var b bytes.Buffer
	require.NoError(t, WriteIndexTable(&b, indexRows, IndexOptions{Target: 0.625, Baseline: base, MaxRegression: 0.05}))
	golden(t, "index-baseline.md", b.Bytes())
	out := b.String()
	assert.Contains(t, out, "45.0% **(-10.0 pp) ▼**", "ten points down is beyond 0.05: a regression")
	assert.Contains(t, out, "58.5% (-1.5 pp) ▼", "1.5 points down is within 0.05: worse, not a regression")
	assert.Contains(t, out, "2 (-1) ▲", "one step fewer is better")
	assert.Contains(t, out, "(target: 62.5%)")
}

var retrievalRows = []RetrievalRow{
	{Name: "fix-bug", Values: map[string]float64{"recall@5": 0.5, "precision@5": 0.2, "mrr": 1, "ttfr_steps": 3, "read.recall@5": 0.5}},
	{Name: "add-service", Values: map[string]float64{"recall@5": 1, "precision@5": 0.4, "mrr": 0.5, "ttfr_steps": 2, "ttfr_seconds": 12.5, "read.recall@5": 1}},
	{Name: "docs-only", Values: map[string]float64{"semantic_ratio": 0.5}, Reason: "non-computable: the task has no ground-truth files"},
	{Name: "src/a|b", Values: map[string]float64{"recall@5": 0}, Reasons: map[string]string{"mrr": "no relevant file\nwas ranked"}},
}

var retrievalMetrics = []string{"recall@5", "precision@5", "mrr", "ttfr_steps", "ttfr_seconds", "read.recall@5"}

func TestRetrievalTableGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteRetrievalTable(&b, retrievalRows, RetrievalOptions{Metrics: retrievalMetrics}))
	golden(t, "retrieval.md", b.Bytes())
	out := b.String()
	assert.Contains(t, out, "| Scenario ", "the first column")
	assert.Contains(t, out, "Recall@5 (TREC)", "the header names the definition")
	assert.Contains(t, out, "Recall@5 (TREC), read")
	assert.Contains(t, out, "n/a¹")
	assert.Contains(t, out, `src/a\|b`)
	assert.Contains(t, out, "no relevant file<br>was ranked")
}

func TestRetrievalTableWithBaselineGolden(t *testing.T) {
	t.Parallel()
	base := BaselineFromRows("scenario", []RetrievalRow{
		{Name: "fix-bug", Values: map[string]float64{"recall@5": 0.42, "mrr": 1, "ttfr_steps": 5}},
		{Name: "add-service", Values: map[string]float64{"recall@5": 1, "precision@5": 0.6, "ttfr_steps": 2}},
	})
	var b bytes.Buffer
	require.NoError(t, WriteRetrievalTable(&b, retrievalRows, RetrievalOptions{
		Metrics: []string{"recall@5", "precision@5", "mrr", "ttfr_steps"}, FirstColumn: "Task", Baseline: base, MaxRegression: 0.1,
	}))
	golden(t, "retrieval-baseline.md", b.Bytes())
	out := b.String()
	assert.Contains(t, out, "0.50 (+0.08) ▲")
	assert.Contains(t, out, "0.40 **(-0.20) ▼**", "precision fell by more than 0.1")
	assert.Contains(t, out, "3 (-2) ▲", "fewer steps is better")
	assert.Contains(t, out, "1.00 (±0.00)")
}

// expectationRows include a pipe in a path and a newline in a tool name.
var expectationRows = []ExpectationRow{
	{
		Scenario: "fix-bug", Type: "index_usage", Description: "Agent should use semantic tools for discovery",
		Status: Fail, Measured: "0.45", Threshold: "≥ 0.60",
		Evidence: []string{"fishing at steps 1–5", "src/a|b.go"},
		Message:  "semantic ratio 0.45 is below 0.60", Pos: "scenarios/fix-bug.yaml:12:5",
	},
	{
		Scenario: "fix-bug", Type: "tools", Description: "must not call grep\nsearch",
		Status: Pass, Measured: "0 calls of grep\nsearch", Threshold: "0 calls",
		Message: "grep\nsearch was never called",
	},
	{Scenario: "add-service", Type: "retrieval", Status: Pass, Measured: "recall@5 = 1.00", Threshold: "≥ 0.80", Evidence: []string{"`pkg/service.go` at rank 1"}},
	{Scenario: "add-service", Type: "compiles", Description: "Project compiles", Status: Skipped, Message: "compiles needs a live run; a trace cannot judge it"},
	{Scenario: "rename-flag", Type: "patterns", Description: "no fishing", Status: Flaky, Measured: "fishing at steps 2-6", Threshold: "forbid fishing", Evidence: []string{"steps 2, 3, 4, 5, 6"}, Message: "fishing was seen at steps 2-6"},
}

func TestExpectationsTableGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteExpectationsTable(&b, expectationRows))
	golden(t, "expectations.md", b.Bytes())
	out := b.String()
	assert.Contains(t, out, "**FAIL**")
	assert.Contains(t, out, `src/a\|b.go`)
	assert.Contains(t, out, "grep<br>search")
	assert.Contains(t, out, "| flaky ")
	assert.Contains(t, out, "| skipped ")
}

func TestJUnitGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, expectationRows, JUnitOptions{}))
	golden(t, "junit.xml", b.Bytes())

	var doc junitSuites
	require.NoError(t, xml.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, 5, doc.Tests)
	assert.Equal(t, 1, doc.Failures, "the flaky failure does not count")
	assert.Equal(t, 1, doc.Skipped)
	require.Len(t, doc.Suites, 3, "one suite per scenario")
	assert.Equal(t, "add-service", doc.Suites[0].Name)
	fix := doc.Suites[1]
	require.NotNil(t, fix.Cases[0].Failure)
	assert.Equal(t, "semantic ratio 0.45 is below 0.60", fix.Cases[0].Failure.Message)
	assert.Contains(t, fix.Cases[0].Failure.Text, "src/a|b.go")
	assert.Equal(t, "tools: must not call grep\nsearch", fix.Cases[1].Name, "the newline survives as a character reference")
	assert.NotEmpty(t, doc.Suites[2].Cases[0].SystemOut)
}

func TestBaselineGoldenAndRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	b := BaselineFromRows("scenario", retrievalRows)
	require.NoError(t, WriteBaseline(path, b))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	golden(t, "baseline.json", data)

	back, err := ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, b.Entries, back.Entries)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestReadBaselineChecksTheVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
	}{
		{"a newer version is rejected", `{"version": 2, "entries": {}}`},
		{"a file without a version is rejected", `{"entries": {"a": {"mrr": 1}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "b.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			_, err := ReadBaseline(path)
			require.ErrorIs(t, err, ErrBaselineVersion)
			assert.Contains(t, err.Error(), path, "the error names the file")
		})
	}
}

func TestRegressions(t *testing.T) {
	t.Parallel()
	base := NewBaseline("scenario")
	base.Set("a", "recall@5", 0.80)
	base.Set("a", "ttfr_steps", 3)
	base.Set("a", "num_ret", 10)
	base.Set("a", "mrr", 0.5)
	base.Set("b", "recall@5", 0.5)
	base.Set("gone", "recall@5", 1)
	tests := []struct {
		name     string
		cur      map[string]map[string]float64
		maxDelta float64
		want     []string // key/metric of each regression
	}{
		{"recall falling beyond the delta regresses", map[string]map[string]float64{"a": {"recall@5": 0.70, "ttfr_steps": 3, "num_ret": 10, "mrr": 0.5}}, 0.05, []string{"a/recall@5"}},
		{"recall falling within the delta does not", map[string]map[string]float64{"a": {"recall@5": 0.76, "ttfr_steps": 3, "num_ret": 10, "mrr": 0.5}}, 0.05, nil},
		{"a fall of exactly the delta does not regress", map[string]map[string]float64{"a": {"recall@5": 0.75, "ttfr_steps": 3, "num_ret": 10, "mrr": 0.5}}, 0.05, nil},
		{"more steps regress, because lower is better", map[string]map[string]float64{"a": {"recall@5": 0.8, "ttfr_steps": 5, "num_ret": 10, "mrr": 0.5}}, 1, []string{"a/ttfr_steps"}},
		{"fewer steps and higher recall are improvements", map[string]map[string]float64{"a": {"recall@5": 0.9, "ttfr_steps": 1, "num_ret": 10, "mrr": 0.5}}, 0, nil},
		{"a neutral figure never regresses", map[string]map[string]float64{"a": {"recall@5": 0.8, "ttfr_steps": 3, "num_ret": 1, "mrr": 0.5}}, 0, nil},
		{"a figure that lost its value regresses", map[string]map[string]float64{"a": {"recall@5": 0.8, "ttfr_steps": 3, "num_ret": 10}}, 0.5, []string{"a/mrr"}},
		{"a key missing from the current run is not a regression", map[string]map[string]float64{"b": {"recall@5": 0.5}}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := Baseline{Version: BaselineVersion, Entries: tt.cur}
			var got []string
			for _, r := range Regressions(*base, cur, tt.maxDelta) {
				got = append(got, r.Key+"/"+r.Metric)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEveryDefinedMetricHasADirection(t *testing.T) {
	t.Parallel()
	for _, d := range metrics.Definitions() {
		_, ok := directions[d.Name]
		assert.True(t, ok, "metric %s has no entry in the direction table", d.Name)
	}
	assert.Equal(t, HigherIsBetter, DirectionOf("read.recall@10"))
	assert.Equal(t, LowerIsBetter, DirectionOf("read.ttfr_tokens"))
	assert.Equal(t, Neutral, DirectionOf("no_such_metric"))
}

// summaryEntries: a baseline and a candidate configuration with a task run
// twice, a task without ground truth and a task without a trace.
func summaryEntries() map[string][]runs.TaskEntry {
	entry := func(name, task string, st runs.TaskStatus, reward *float64, values map[string]float64) runs.TaskEntry {
		e := runs.TaskEntry{Name: name, Task: task, Status: st, Reward: reward, Values: values, Model: "model-a",
			EventsFile: "cfg/" + name + runs.EventsSuffix, MetricsFile: "cfg/" + name + runs.MetricsSuffix}
		if st != runs.Degraded {
			e.TraceSource = ptr(events.SourceMerged)
		}
		switch st {
		case runs.NonComputable:
			e.Reason = "the task has no ground-truth files"
		case runs.Degraded:
			e.Reason = "no agent/trajectory.json or agent/claude-code.txt"
		}
		return e
	}
	return map[string][]runs.TaskEntry{
		"mcp": {
			entry("fix-auth", "fix-auth", runs.Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 2}),
			entry("add-cache", "add-cache", runs.Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 0.5, "steps_to_target": 3}),
			entry("parse-config", "parse-config", runs.Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 4}),
			entry("rename-flag", "rename-flag", runs.Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 1}),
			entry("docs-only", "docs-only", runs.NonComputable, ptr(1.0), map[string]float64{"steps_to_target": 3}),
			entry("new-task", "new-task", runs.Computable, nil, map[string]float64{"recall@5": 1}),
		},
		"baseline": {
			entry("fix-auth__t1", "fix-auth", runs.Computable, ptr(1.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 4}),
			entry("fix-auth__t2", "fix-auth", runs.Computable, ptr(0.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 6}),
			entry("add-cache", "add-cache", runs.Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.25, "steps_to_target": 7}),
			entry("parse-config", "parse-config", runs.Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 5}),
			entry("rename-flag", "rename-flag", runs.Computable, ptr(1.0), map[string]float64{"recall@5": 0.5, "mrr": 0.33, "steps_to_target": 3}),
			entry("docs-only", "docs-only", runs.NonComputable, ptr(1.0), map[string]float64{"steps_to_target": 5}),
			entry("old-task", "old-task", runs.Degraded, nil, map[string]float64{}),
		},
	}
}

func TestSummaryTableGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteSummaryTable(&b, runs.Summarize("run-1", summaryEntries()), []string{"recall@5", "mrr", "ttfr_steps"}))
	golden(t, "summary.md", b.Bytes())
}

func TestSummaryTableHasAFailedColumnOnlyWhenATrialFailed(t *testing.T) {
	t.Parallel()
	entries := summaryEntries()
	var b bytes.Buffer
	require.NoError(t, WriteSummaryTable(&b, runs.Summarize("run-1", entries), []string{"mrr"}))
	assert.NotContains(t, b.String(), "Failed")

	entries["mcp"] = append(entries["mcp"], runs.TaskEntry{Name: "broken", Task: "broken", Status: runs.Failed, Reason: "result.json cannot be read"})
	b.Reset()
	require.NoError(t, WriteSummaryTable(&b, runs.Summarize("run-1", entries), []string{"mrr"}))
	assert.Regexp(t, `\| Degraded +\| Failed +\|`, b.String())
	assert.Regexp(t, `\| mcp +\| 7 +\| 5 +\| 1 +\| 0 +\| 1 +\|`, b.String())
	assert.Regexp(t, `\| baseline +\| 7 +\| 5 +\| 1 +\| 1 +\| 0 +\|`, b.String())
}

func TestComparisonGolden(t *testing.T) {
	t.Parallel()
	// The figures are checked in runs' tests; this checks their rendering.
	c, err := runs.Compare(runs.Summarize("run-1", summaryEntries()), "baseline", "mcp", []string{"recall@5", "mrr", "steps_to_target", "ttfr_seconds"})
	require.NoError(t, err)

	var b bytes.Buffer
	require.NoError(t, WriteComparison(&b, c))
	golden(t, "compare.md", b.Bytes())
	assert.Contains(t, b.String(), "Association only, not causation")
}
