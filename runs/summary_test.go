package runs

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./runs/ -update")
	assert.Equal(t, string(want), string(got), "differs from %s; run go test ./runs/ -update if the change is intended", path)
}

func ptr[T any](v T) *T { return &v }

// taskResult computes the metrics of the project's search-read-edit
// fixture, a real trace with graded ground truth.
func taskResult(t *testing.T) *metrics.Result {
	t.Helper()
	sess, err := trace.ReadFile("../testdata/metrics/search-read-edit.toolcalls.json", trace.Options{Source: "search-read-edit.toolcalls.json"})
	require.NoError(t, err)
	truth, err := groundtruth.Load("../testdata/metrics/search-read-edit.groundtruth.yaml")
	require.NoError(t, err)
	doc := events.Normalize(sess, events.Options{
		GroundTruth: truth.Events(),
		Provenance:  events.Provenance{RunID: "run-1", TaskName: "search-read-edit", ConfigName: "baseline"},
	})
	return metrics.Compute(doc, metrics.Options{})
}

func TestTaskMetricsArtifactGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, err := WriteTaskMetrics(dir, "search-read-edit", taskResult(t))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "search-read-edit.retrieval_metrics.json"), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	golden(t, "search-read-edit.retrieval_metrics.json", data)
	var back metrics.Result
	require.NoError(t, json.Unmarshal(data, &back))
	assert.True(t, back.Computable)
	assert.Equal(t, "run-1", back.Provenance.RunID)
}

// summaryEntries: a baseline and a candidate configuration with a task run
// twice, a task without ground truth and a task without a trace.
func summaryEntries() map[string][]TaskEntry {
	entry := func(name, task string, st TaskStatus, reward *float64, values map[string]float64) TaskEntry {
		e := TaskEntry{Name: name, Task: task, Status: st, Reward: reward, Values: values, Model: "model-a",
			EventsFile: "cfg/" + name + EventsSuffix, MetricsFile: "cfg/" + name + MetricsSuffix}
		if st != Degraded {
			e.TraceSource = ptr(events.SourceMerged)
		}
		switch st {
		case NonComputable:
			e.Reason = "the task has no ground-truth files"
		case Degraded:
			e.Reason = "no agent/trajectory.json or agent/claude-code.txt"
		}
		return e
	}
	return map[string][]TaskEntry{
		"mcp": {
			entry("fix-auth", "fix-auth", Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 2}),
			entry("add-cache", "add-cache", Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 0.5, "steps_to_target": 3}),
			entry("parse-config", "parse-config", Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 4}),
			entry("rename-flag", "rename-flag", Computable, ptr(1.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 1}),
			entry("docs-only", "docs-only", NonComputable, ptr(1.0), map[string]float64{"steps_to_target": 3}),
			entry("new-task", "new-task", Computable, nil, map[string]float64{"recall@5": 1}),
		},
		"baseline": {
			entry("fix-auth__t1", "fix-auth", Computable, ptr(1.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 4}),
			entry("fix-auth__t2", "fix-auth", Computable, ptr(0.0), map[string]float64{"recall@5": 1, "mrr": 1, "steps_to_target": 6}),
			entry("add-cache", "add-cache", Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.25, "steps_to_target": 7}),
			entry("parse-config", "parse-config", Computable, ptr(0.0), map[string]float64{"recall@5": 0.5, "mrr": 0.5, "steps_to_target": 5}),
			entry("rename-flag", "rename-flag", Computable, ptr(1.0), map[string]float64{"recall@5": 0.5, "mrr": 0.33, "steps_to_target": 3}),
			entry("docs-only", "docs-only", NonComputable, ptr(1.0), map[string]float64{"steps_to_target": 5}),
			entry("old-task", "old-task", Degraded, nil, map[string]float64{}),
		},
	}
}

func TestRunSummaryGolden(t *testing.T) {
	t.Parallel()
	s := Summarize("run-1", summaryEntries())
	path := filepath.Join(t.TempDir(), SummaryFile)
	require.NoError(t, WriteSummary(path, s))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	golden(t, "run_retrieval_summary.json", data)

	back, err := ReadSummary(path)
	require.NoError(t, err)
	base := back.Config("baseline")
	require.NotNil(t, base)
	assert.Equal(t, 7, base.Trials)
	assert.Equal(t, 6, base.Tasks)
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"docs-only"}}, base.NonComputable)
	assert.Equal(t, TaskGroup{Count: 1, Names: []string{"old-task"}}, base.Degraded)
	// fix-auth's two trials average to 0.75 first: the mean over the four
	// computable tasks is (0.75 + 0.5 + 0.5 + 0.5) / 4, not the mean over
	// five trials.
	assert.Equal(t, 4, base.Metrics["recall@5"].N)
	assert.InDelta(t, 0.5625, base.Metrics["recall@5"].Mean, 1e-12)
	require.NotNil(t, base.Reward)
	assert.Equal(t, 5, base.Reward.N, "rewards of every task that has one, computable or not")
}

func TestReadSummaryRejectsAnotherMajorVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SummaryFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"schema_version": "3.0", "configs": []}`), 0o644))
	_, err := ReadSummary(path)
	require.ErrorIs(t, err, ErrSummaryVersion)
	assert.ErrorContains(t, err, "this build reads 1.x and 2.x")
}

// A summary of either layout reads into the same summary: 1.1 holds its
// entries, 2.0 points to the table that holds them.
func TestReadSummaryReadsBothLayouts(t *testing.T) {
	t.Parallel()
	entries := summaryEntries()
	entries["baseline"][0].Warnings = []string{"one", "two"}
	inline := Summarize("run-1", entries)
	dir := t.TempDir()
	old := filepath.Join(dir, "old", SummaryFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(old), 0o755))
	require.NoError(t, WriteSummary(old, inline))
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	for config, es := range entries {
		for i := range es {
			require.NoError(t, sp.add(config, &es[i], nil))
		}
	}
	_, newDir := spoolFiles(t, sp, "run-1", nil)

	a, err := ReadSummary(old)
	require.NoError(t, err)
	b, err := ReadSummary(filepath.Join(newDir, SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, InlineSummarySchemaVersion, a.SchemaVersion)
	assert.Equal(t, SummarySchemaVersion, b.SchemaVersion)
	assert.Nil(t, a.Trials)
	b.SchemaVersion, b.Trials = a.SchemaVersion, nil
	assert.Equal(t, a, b)
	warned := 0
	for _, e := range b.Config("baseline").Entries {
		if len(e.Warnings) > 0 {
			assert.Equal(t, []string{"one", "two"}, e.Warnings)
			warned++
		}
	}
	assert.Equal(t, 1, warned, "the warnings of the entry that has them")
}

// What ReadSummary refuses in a summary of schema 2.x, or of 1.x with a
// member of 2.x, naming the file and what is wrong.
func TestReadSummaryRefusesABrokenPointerToItsTable(t *testing.T) {
	t.Parallel()
	sp, err := newSpool()
	require.NoError(t, err)
	defer sp.Close()
	e := TaskEntry{Name: "a", Task: "a", Status: Computable, Values: map[string]float64{"mrr": 1}}
	require.NoError(t, sp.add("c", &e, nil))
	_, dir := spoolFiles(t, sp, "r", nil)
	good := mustRead(t, filepath.Join(dir, SummaryFile))
	for _, tc := range []struct{ name, old, new, want string }{
		{"a summary of 2.0 without its table's pointer", `"trials_table"`, `"no_table"`, `needs "trials_table"`},
		{"a table of another format", `"format": "parquet"`, `"format": "csv"`, `trials_table: format "csv", want "parquet"`},
		{"a table in another folder", `"file": "run_retrieval_trials.parquet"`, `"file": "../x.parquet"`, `file "../x.parquet" is not a file name in the summary's folder`},
		{"a table that is not there", `"file": "run_retrieval_trials.parquet"`, `"file": "gone.parquet"`, "gone.parquet"},
		{"a count of rows that is not the trials'", `"rows": 1`, `"rows": 2`, "trials_table: 2 rows, but the configurations count 1 trials"},
		{"entries inline in a summary of 2.0", `"reward": null`, `"reward": null, "tasks": [{"name": "a"}]`, `configuration "c" lists entries under "tasks"`},
		{"a summary of 1.x with a table", `"schema_version": "2.0"`, `"schema_version": "1.1"`, `has its entries under "tasks", yet the file has a "trials_table"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Contains(t, good, tc.old)
			d := t.TempDir()
			file := filepath.Join(d, SummaryFile)
			require.NoError(t, os.WriteFile(file, []byte(strings.Replace(good, tc.old, tc.new, 1)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, TrialsFile), []byte(mustRead(t, filepath.Join(dir, TrialsFile))), 0o644))
			_, err := ReadSummary(file)
			require.Error(t, err)
			assert.ErrorContains(t, err, file)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestFailedErrorNamesEachFailedTrial(t *testing.T) {
	t.Parallel()
	s := &Summary{Configs: []*ConfigSummary{
		{Config: "base", Entries: []TaskEntry{{Task: "a", Trial: "a__1", Batch: "b1", Status: Computable}}},
		{Config: "mcp", Entries: []TaskEntry{
			{Task: "a", Trial: "a__2", Batch: "b1", Status: Failed, Reason: "result.json cannot be read"},
			{Task: "c", Trial: "c__3", Batch: "b1", Status: Failed, Reason: "bad task name"},
		}},
	}}
	err := s.FailedError()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrTrialFailed)
	assert.Equal(t, "mcp/b1/a__2: trial failed: result.json cannot be read\nmcp/b1/c__3: trial failed: bad task name", err.Error())
	assert.NoError(t, (&Summary{Configs: s.Configs[:1]}).FailedError(), "no failed trial, no error")
}
