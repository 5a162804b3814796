package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

// outsideCI clears the variables by which DetectRun recognizes a CI run,
// so that a test run in CI records as one outside it.
func outsideCI(t *testing.T) {
	for _, v := range []string{"GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE"} {
		t.Setenv(v, "")
	}
}

func TestRunDirRecordsTheEvaluatedRunInTheHistory(t *testing.T) {
	outsideCI(t)
	db := filepath.Join(t.TempDir(), "history.db")
	out, summary := runMini(t, "-history", db, "-branch", "main", "-commit", "0123456789abcdef")

	st, err := history.Open(context.Background(), db)
	require.NoError(t, err)
	list, err := st.Runs(context.Background(), history.Filter{})
	require.NoError(t, err)
	st.Close()
	require.Len(t, list, 1)
	assert.Equal(t, "run:"+summary.RunID, list[0].Key, "outside CI the key is the evaluated run's id")
	assert.Equal(t, 2, list[0].Configs)
	assert.Equal(t, 11, list[0].Trials)

	// Evaluating the same run again replaces its record.
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", out, "-history", db, "-branch", "main", miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, `retrievaltest run-dir: run run:mini (2 configuration(s), 11 trial(s), branch "main"`)
	assert.Contains(t, stderr, "recorded in "+db)

	code, stdout, stderr := runCLI(t, nil, "history", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 1, strings.Count(stdout, "| run:mini |"), stdout)
	assert.Contains(t, stdout, "| Configurations | Trials | Failed trials |")
	assert.Contains(t, stdout, " | 0 | 0 | 0 | 0 | 2 | 11 | 0 |  |")

	base := summary.Config(baseCfg).Metrics["recall@5"]
	code, stdout, stderr = runCLI(t, nil, "trend", "-figure", "recall@5", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "| recall@5 · "+baseCfg+" | ▁ | "+fig(base.Mean)+" | "+fig(base.Mean)+" ["+fig(base.CILow)+", "+fig(base.CIHigh)+"] |")
	assert.Contains(t, stdout, "| recall@5 · "+mcpCfg+" |")
	assert.NotContains(t, stdout, "expectations passed")

	code, stdout, stderr = runCLI(t, nil, "trend", "-config", mcpCfg, "-figure", "recall@5,reward", db)
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stdout, baseCfg)
	assert.Contains(t, stdout, "| reward · "+mcpCfg+" |", "the verifier's reward is a figure of a configuration")
	code, _, stderr = runCLI(t, nil, "trend", "-config", mcpCfg, "-scenario", "s", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "not both")
}

func fig(v float64) string { return report.FigureText("recall@5", v) }

func TestRunDirWithoutHistoryRecordsNothing(t *testing.T) {
	dir, wd := t.TempDir(), mustWD(t)
	t.Chdir(dir)
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", filepath.Join(wd, miniGT), "-out", filepath.Join(dir, "out"), filepath.Join(wd, miniRun))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "recorded in")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the output folder alone")
}

func TestShardsAreRecordedOnceByMerge(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "history.db")
	shards := filepath.Join(tmp, "shards")

	// A shard given -history is refused before it evaluates anything.
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", shards, "-shard", "1/2", "-history", db, miniRun)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "-history with -shard: a shard holds part of the run's trials; give -history to merge")
	assert.NoFileExists(t, db)
	assert.NoDirExists(t, shards)

	runShards(t, miniRun, miniGT, 2, func(int) string { return shards })
	assert.NoFileExists(t, db, "the shards recorded nothing")
	merged := filepath.Join(tmp, "merged")
	code, _, stderr = runCLI(t, nil, "merge", "-out", merged, "-history", db, "-run-id", "ci:42", "-branch", "main", shards)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, `retrievaltest merge: run ci:42 (2 configuration(s), 11 trial(s), branch "main"`)

	whole, err := runs.ReadSummary(filepath.Join(merged, runs.SummaryFile))
	require.NoError(t, err)
	st, err := history.Open(context.Background(), db)
	require.NoError(t, err)
	defer st.Close()
	tr, err := st.Trend(context.Background(), history.TrendOptions{Figures: []string{"recall@5"}, Config: baseCfg})
	require.NoError(t, err)
	require.Len(t, tr.Points, 1)
	assert.Equal(t, "ci:42", tr.Points[0].Key)
	assert.Equal(t, whole.Config(baseCfg).Metrics["recall@5"].Mean, tr.Series[0].Values[0], "the whole run's figure, not a shard's")
	assert.Equal(t, whole.Config(baseCfg).Metrics["recall@5"].CIHigh, tr.Series[0].High[0])
}

func TestAShardRecordsItselfWhenAsked(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	db := filepath.Join(tmp, "history.db")
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", filepath.Join(tmp, "s"), "-shard", "2/2",
		"-history", db, "-history-shard", "-run-id", "ci:7", miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "run ci:7/shard-2-of-2 (")
	code, stdout, _ := runCLI(t, nil, "history", db)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "| ci:7/shard-2-of-2 |")

	for _, bad := range [][]string{
		{"run-dir", "-gt-root", miniGT, "-out", filepath.Join(tmp, "x"), "-history-shard", "-history", db, miniRun},
		{"run-dir", "-gt-root", miniGT, "-out", filepath.Join(tmp, "x"), "-shard", "1/2", "-history-shard", miniRun},
		{"run-dir", "-gt-root", miniGT, "-plan", filepath.Join(tmp, "plan"), "-shards", "2", "-history", db, miniRun},
	} {
		code, _, stderr := runCLI(t, nil, bad...)
		assert.Equal(t, exitBadInput, code, "%v: %s", bad, stderr)
		assert.Contains(t, stderr, "-history")
	}
	assert.NoDirExists(t, filepath.Join(tmp, "x"))
	assert.NoFileExists(t, filepath.Join(tmp, "plan"))
}

func TestADatabaseThatCannotBeOpenedFailsTheCommandFirst(t *testing.T) {
	t.Parallel()
	notDB := filepath.Join(t.TempDir(), "baseline.json")
	require.NoError(t, os.WriteFile(notDB, []byte(`{"version": 1}`), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", out, "-history", notDB, miniRun)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "baseline.json: not a SQLite database (expected a SQLite file path or a postgres:// URL)")
	assert.NoDirExists(t, out, "the database is opened before the run is evaluated")
	code, _, stderr = runCLI(t, nil, "merge", "-out", out, "-history", notDB, t.TempDir())
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "baseline.json: not a SQLite database")
}

// The thresholds drawn are read from what check recorded: the check
// report's own texts, not ones a test wrote.
func TestTrendDrawsTheThresholdsTheCheckRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for _, id := range []string{"c1", "c2"} {
		code, _, stderr := runCLI(t, nil, "check", "-history", db, "-run-id", id, "-branch", "main", checkMixed)
		require.NotEqual(t, exitBadInput, code, stderr)
	}
	page := filepath.Join(dir, "trend.html")
	code, _, stderr := runCLI(t, nil, "trend", "-figure", "recall@5,mrr", "-html", page, db)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	recall, _, _ := strings.Cut(string(b)[strings.Index(string(b), "<h2>recall@5</h2>"):], "<h2>mrr</h2>")
	assert.Contains(t, recall, `<path class="thr" d="M`, "scenario bad requires recall@5 ≥ 1")
	assert.Contains(t, recall, ">required ≥ 1.00</text>")
	_, mrr, _ := strings.Cut(string(b), "<h2>mrr</h2>")
	mrr, _, _ = strings.Cut(mrr, "<h2>")
	assert.NotContains(t, mrr, `class="thr"`, "no expectation bounds mrr")

	code, _, stderr = runCLI(t, nil, "trend", "-figure", "recall@5", "-scenario", "good", "-html", page, db)
	require.Equal(t, exitOK, code, stderr)
	b, err = os.ReadFile(page)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `<path class="thr"`, "scenario good sets no threshold on recall@5")
}
