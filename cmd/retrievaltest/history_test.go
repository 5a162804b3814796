package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/history"
)

// recordRuns writes runs into the history database db directly: for each
// figures map, one run of branch main whose scenario "good" has those
// figures and one expectation with the given outcome, on the same traces.
func recordRuns(t *testing.T, db string, runs []map[string]float64, outcomes []history.Status) {
	t.Helper()
	ctx := context.Background()
	st, err := history.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	for i, figs := range runs {
		run := &history.Run{Key: fmt.Sprintf("seed-%d", i), Time: time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC),
			Branch: "main", Commit: fmt.Sprintf("%02dbeef%034d", i, i)}
		run.Scenarios = []history.Scenario{{Name: "good", Status: outcomes[i], TraceDigest: "sha256:aa", Figures: figs,
			Expectations: []history.Expectation{{Type: "retrieval", Status: outcomes[i], SettingsDigest: "sha256:bb", RunsJudged: 1}}}}
		require.NoError(t, st.Record(ctx, run))
	}
}

func TestCheckRecordsTheRunInTheHistory(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "history.db")
	code, _, stderr := runCLI(t, nil, "check", "-history", db, "-run-id", "ci-1", "-commit", "0123456789abcdef", "-branch", "main",
		"-report-url", "https://reports.example/1", checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, `run ci-1 (2 scenario(s), branch "main", commit 0123456789ab) recorded in `+db)

	code, out, stderr := runCLI(t, nil, "history", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "| ci-1 | ")
	assert.Contains(t, out, " | main | 0123456789ab | 2 | 1 | 0 | 0 | [report](https://reports.example/1) |")

	// Two jobs with the same run id (shards) add up to one run.
	db2 := filepath.Join(t.TempDir(), "shards.db")
	for _, only := range []string{"^good$", "^bad$"} {
		code, _, stderr = runCLI(t, nil, "check", "-history", db2, "-run-id", "ci-7", "-branch", "main", "-run", only, checkMixed)
		require.NotEqual(t, exitBadInput, code, stderr)
	}
	code, out, _ = runCLI(t, nil, "history", "-branch", "main", db2)
	require.Equal(t, exitOK, code)
	assert.Equal(t, 1, strings.Count(out, "| ci-7 |"), out)
	assert.Contains(t, out, " | 2 | 1 | 0 | 0 |")
}

func TestCheckWithoutHistoryWritesNoDatabase(t *testing.T) {
	dir, scenarios := t.TempDir(), filepath.Join(mustWD(t), checkMixed)
	t.Chdir(dir)
	code, _, stderr := runCLI(t, nil, "check", "-run", "^good$", scenarios)
	require.Equal(t, exitOK, code, stderr)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
	assert.NotContains(t, stderr, "recorded in")
}

func mustWD(t *testing.T) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	return wd
}

func TestCheckComparesWithTheLatestRunOfABranchOrCommit(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "history.db")
	// The first run's figures equal what the scenario measures now (it is
	// recorded by check); the second, later one had a better recall@1.
	code, _, stderr := runCLI(t, nil, "check", "-history", db, "-run-id", "first", "-commit", "aaaa1111", "-branch", "main", "-run", "^good$", checkMixed)
	require.Equal(t, exitOK, code, stderr)
	st, err := history.Open(context.Background(), db)
	require.NoError(t, err)
	base, _, err := st.Baseline(context.Background(), "main")
	require.NoError(t, err)
	st.Close()
	better := base.Entries["good"]
	better["recall@1"] = better["recall@1"] + 0.5
	recordRunsAt(t, db, "second", "main", "bbbb2222", time.Now().Add(time.Hour), better)

	code, out, stderr := runCLI(t, nil, "check", "-baseline", db+"@main", "-run", "^good$", checkMixed)
	assert.Equal(t, exitFailed, code, "the latest run of main had a better recall@1")
	assert.Contains(t, stderr, "baseline: run second of main")
	assert.Contains(t, out, "good recall@1")

	code, _, stderr = runCLI(t, nil, "check", "-baseline", db+"@aaaa", "-run", "^good$", checkMixed)
	assert.Equal(t, exitOK, code, "the run of commit aaaa1111 measured the same: %s", stderr)
	assert.Contains(t, stderr, "baseline: run first of aaaa")

	code, _, stderr = runCLI(t, nil, "check", "-baseline", db+"@release", "-run", "^good$", checkMixed)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `no run of branch or commit "release" (branches recorded: main)`)

	// A run of a history is not a file to update.
	code, _, stderr = runCLI(t, nil, "check", "-update-baseline", "-baseline", db+"@main", "-run", "^good$", checkMixed)
	assert.Equal(t, exitBadInput, code, stderr)
	assert.Contains(t, stderr, "record runs with -history DB instead")
	assert.NoFileExists(t, db+"@main")
}

func recordRunsAt(t *testing.T, db, key, branch, commit string, at time.Time, figs map[string]float64) {
	t.Helper()
	st, err := history.Open(context.Background(), db)
	require.NoError(t, err)
	defer st.Close()
	run := &history.Run{Key: key, Time: at, Branch: branch, Commit: commit,
		Scenarios: []history.Scenario{{Name: "good", Status: history.Pass, Figures: figs}}}
	require.NoError(t, st.Record(context.Background(), run))
}

func TestTrendPrintsASparklinePerFigure(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "history.db")
	recordRuns(t, db, []map[string]float64{
		{"recall@5": 0.2, "mrr": 0.5}, {"recall@5": 0.7, "mrr": 0.5}, {"recall@5": 1, "mrr": 0.25},
	}, []history.Status{history.Pass, history.Fail, history.Pass})

	code, out, stderr := runCLI(t, nil, "trend", db, "-figure", "recall@5,mrr,ttfr_steps")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "### Retrieval trend of main")
	assert.Contains(t, out, "3 run(s), 2026-11-01 12:00 (00beef000000) to 2026-11-03 12:00 (02beef000000)")
	assert.Contains(t, out, "| recall@5 | ▁▅█ | 0.20 | 1.00 | +0.80 better | 0.20 | 1.00 |")
	assert.Contains(t, out, "| mrr | ██▁ | 0.50 | 0.25 | **-0.25 worse** | 0.25 | 0.50 |")
	assert.Contains(t, out, "| ttfr_steps | ··· | n/a | n/a | n/a | n/a | n/a |")
	assert.Contains(t, out, "| expectations passed | █▁█ | 1 of 1 | 1 of 1 | 0.0 pp | | |")
	assert.Contains(t, out, "| good | retrieval | 67% | 2 of 3 | aa |", "the same traces passed and failed: flaky")

	code, out, _ = runCLI(t, nil, "trend", "-n", "2", "-scenario", "good", "-figure", "recall@5", db)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "| recall@5 | ▁█ | 0.70 | 1.00 |")
	assert.Contains(t, out, "scenario good")

	code, _, stderr = runCLI(t, nil, "trend", "-scenario", "nope", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `scenario "nope" is in none of the last 3 runs of branch main`)
	code, _, stderr = runCLI(t, nil, "trend", "-figure", "recal@5", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "did you mean recall@5?")
	code, _, stderr = runCLI(t, nil, "trend", "-branch", "dev", db)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `no run of branch "dev" (branches recorded: main)`)

	outFile := filepath.Join(t.TempDir(), "trend.md")
	code, out, _ = runCLI(t, nil, "trend", "-o", outFile, db)
	require.Equal(t, exitOK, code)
	assert.Empty(t, out)
	written, err := os.ReadFile(outFile)
	require.NoError(t, err)
	assert.Contains(t, string(written), "| recall@5 | ▁▅█ |")
}

func TestHistoryListsFlakyExpectationsAndFiltersRuns(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "history.db")
	recordRuns(t, db, []map[string]float64{{}, {}, {}, {}},
		[]history.Status{history.Pass, history.Fail, history.Pass, history.Pass})

	code, out, stderr := runCLI(t, nil, "history", "-flaky", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "**1 flaky expectation(s)**")
	assert.Contains(t, out, "| good | retrieval | 75% | 3 of 4 | aa |")
	code, out, _ = runCLI(t, nil, "history", "-flaky", "-window", "2", db)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "No expectation changed its outcome", "the last two runs both passed")

	recordRunsAt(t, db, "on-dev", "dev", "dddd", time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), nil)
	code, out, _ = runCLI(t, nil, "history", "-branch", "main", db)
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "on-dev")
	assert.Equal(t, 2+4, strings.Count(out, "\n"), out)
	code, out, _ = runCLI(t, nil, "history", "-n", "1", db)
	require.Equal(t, exitOK, code)
	assert.Equal(t, 2+1, strings.Count(out, "\n"), out)
	assert.Contains(t, out, "| on-dev |")

	code, out, _ = runCLI(t, nil, "history", "-branch", "main", "-since", "2026-11-03", db)
	require.Equal(t, exitOK, code)
	assert.Equal(t, 2+2, strings.Count(out, "\n"), out)
	code, out, _ = runCLI(t, nil, "history", "-scenario", "other", db)
	require.Equal(t, exitOK, code)
	assert.Equal(t, "No run recorded matches.\n", out)

	for _, bad := range [][]string{
		{"history"}, {"history", db, "extra"}, {"history", "-since", "yesterday", db}, {"history", "-n", "-1", db},
		{"trend", "-n", "0", db}, {"history", filepath.Join("..", "..", "go.mod")},
	} {
		code, _, stderr := runCLI(t, nil, bad...)
		assert.Equal(t, exitBadInput, code, "%v: %s", bad, stderr)
	}
}

func TestTrendWritesAPageWithHTML(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "history.db")
	recordRuns(t, db, []map[string]float64{{"recall@5": 0.2}, {"recall@5": 0.4}}, []history.Status{history.Pass, history.Pass})
	page := filepath.Join(t.TempDir(), "trend.html")
	code, out, stderr := runCLI(t, nil, "trend", "-html", page, db)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "| recall@5 | ▁█ |", "the table is still printed")
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<h2>recall@5</h2>")
	assert.Contains(t, string(b), "Content-Security-Policy")
}

func TestReadingCommandsCreateNoDatabase(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.db")
	for _, cmd := range []string{"history", "trend"} {
		code, _, stderr := runCLI(t, nil, cmd, missing)
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, stderr, "nope.db: no such file (runs are recorded with check -history")
	}
	_, err := os.Stat(missing)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
