package runcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/internal/synthrun"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// The miniature run of the repository's testdata: 11 trials in two
// configurations, 8 of them computable with the ground truth of miniGT.
const (
	miniRun = "../../../../testdata/runs/mini"
	miniGT  = "../../../../testdata/runs/gt"
)

// call runs a command of this package and returns its exit code, standard
// output and standard error.
func call(ctx context.Context, cmd func(context.Context, []string, io.Writer, io.Writer, string) int, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cmd(ctx, args, &stdout, &stderr, "USAGE TEXT")
	return code, stdout.String(), stderr.String()
}

// outsideCI clears the variables by which a run in CI is recognized (its
// history key) and those of the batch engines (-shard auto).
func outsideCI(t *testing.T) {
	for _, v := range []string{"GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", runs.EnvShard, runs.EnvJobIndex, runs.EnvSlurmTask, runs.EnvSlurmCount, runs.EnvSlurmMin} {
		t.Setenv(v, "")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestRunDirRefusesBadFlagsAndArguments(t *testing.T) {
	outsideCI(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no run folder", nil, "want exactly one RUN_DIR, got 0 arguments"},
		{"two run folders", []string{miniRun, miniRun}, "want exactly one RUN_DIR, got 2 arguments"},
		{"no worker", []string{"-j", "0", miniRun}, "-j 0: want 1 or more"},
		{"a plan without its shards", []string{"-plan", filepath.Join(tmp, "p"), miniRun}, "-plan " + filepath.Join(tmp, "p") + ": give the number of shards with -shards N (1 to 100000)"},
		{"a plan of too many shards", []string{"-plan", filepath.Join(tmp, "p"), "-shards", "100001", miniRun}, "give the number of shards with -shards N"},
		{"a shard that is not K/N", []string{"-shard", "one", miniRun}, `-shard: shard "one": want K/N`},
		{"a shard recorded in a history", []string{"-shard", "1/2", "-history", filepath.Join(tmp, "h.db"), miniRun}, "-history with -shard"},
		{"a history that cannot be opened", []string{"-history", tmp, miniRun}, "is a folder"},
		{"a plan that is not there", []string{"-plan", filepath.Join(tmp, "missing"), "-shard", "1/2", miniRun}, "missing"},
		{"a plan that is no plan", []string{"-plan", file, "-shard", "1/2", miniRun}, file},
		{"a bad cutoff", []string{"-k", "0", miniRun}, "-k"},
		{"a missing ground-truth root", []string{"-gt-root", filepath.Join(tmp, "nope"), miniRun}, "-gt-root " + filepath.Join(tmp, "nope") + ": not a folder"},
		{"a file as ground-truth root", []string{"-gt-root", file, miniRun}, "-gt-root " + file + ": not a folder"},
		{"an unknown profile", []string{"-profile", "windsurf", miniRun}, `unknown taxonomy profile "windsurf"`},
		{"a missing run folder", []string{filepath.Join(tmp, "nope")}, "no such file"},
		{"a bucket without drivers", []string{"s3://bucket/run"}, "s3://bucket/run"},
	} {
		code, stdout, stderr := call(context.Background(), RunDir, append([]string{"-out", filepath.Join(tmp, "out")}, tc.args...)...)
		assert.Equal(t, cli.ExitBadInput, code, tc.name)
		assert.Contains(t, stderr, tc.want, tc.name)
		assert.Empty(t, stdout, tc.name)
	}
	assert.NoDirExists(t, filepath.Join(tmp, "out"), "no case wrote anything")
	assert.NoFileExists(t, filepath.Join(tmp, "h.db"))
}

func TestRunDirEvaluatesTheRunAndRecordsIt(t *testing.T) {
	outsideCI(t)
	tmp := t.TempDir()
	out, db := filepath.Join(tmp, "out"), filepath.Join(tmp, "h.db")
	code, stdout, stderr := call(context.Background(), RunDir, "-j", "1", "-gt-root", miniGT, "-out", out, "-metrics", "mrr", "-history", db, "-branch", "main", miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stdout, "| MRR (TREC RR) (mean) |")
	assert.NotContains(t, stderr, "no -gt-root")
	assert.Contains(t, stderr, "retrievaltest run-dir: 11 trial(s) in 2 configuration(s): 8 computable, 2 non-computable, 1 degraded, 0 failed; wrote "+
		filepath.Join(out, htmlreport.RunReportFile)+" and "+filepath.Join(out, runs.SummaryFile)+"\n")
	assert.Contains(t, stderr, `retrievaltest run-dir: run run:mini (2 configuration(s), 11 trial(s), branch "main"`)
	for _, f := range []string{runs.SummaryFile, runs.TrialsFile, htmlreport.RunReportFile} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	s, err := runs.ReadSummary(filepath.Join(out, runs.SummaryFile))
	require.NoError(t, err)
	assert.Equal(t, "mini", s.RunID)
	st, err := history.OpenExisting(context.Background(), db)
	require.NoError(t, err)
	list, err := st.Runs(context.Background(), history.Filter{})
	require.NoError(t, err)
	st.Close()
	require.Len(t, list, 1)
	assert.Equal(t, 11, list[0].Trials)

	// Without -gt-root every task is non-computable, and it says so.
	code, _, stderr = call(context.Background(), RunDir, "-out", filepath.Join(tmp, "o2"), miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "warning: retrievaltest run-dir: no -gt-root: every task is non-computable\n")
	assert.Contains(t, stderr, "0 computable")

	code, _, stderr = call(context.Background(), RunDir, "-gt-root", miniGT, "-out", filepath.Join(tmp, "o3"), "-history", db, "-history-shard", miniRun)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stderr, "-history-shard records a shard")

	assert.Equal(t, cli.ExitBadInput, RunDir(context.Background(), []string{"-gt-root", miniGT, "-out", filepath.Join(tmp, "o4"), miniRun}, failingWriter{}, io.Discard, ""),
		"a table that cannot be written")
}

// A run folder's default output is its own retrieval folder, and a trial
// whose files are bad is a warning that names it.
func TestRunDirWritesBesideTheRunAndNamesTheTrialOfAWarning(t *testing.T) {
	outsideCI(t)
	run := t.TempDir()
	trial := filepath.Join(run, "baseline", "2026-02-01__09-00-00", "fix-auth__zz9")
	require.NoError(t, os.MkdirAll(filepath.Join(trial, "agent"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(trial, "result.json"), []byte(`{"task_name": `), 0o644))
	code, _, stderr := call(context.Background(), RunDir, "-gt-root", miniGT, run)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "warning: baseline/2026-02-01__09-00-00/fix-auth__zz9: result.json:")
	assert.FileExists(t, filepath.Join(run, runs.OutDir, runs.SummaryFile))
}

func TestAPlanShardsAndAMergeGiveTheWholeRun(t *testing.T) {
	outsideCI(t)
	tmp := t.TempDir()
	plan, out, db := filepath.Join(tmp, "run.plan"), filepath.Join(tmp, "shards"), filepath.Join(tmp, "h.db")
	code, stdout, stderr := call(context.Background(), RunDir, "-plan", plan, "-shards", "2", "-gt-root", miniGT, "-out", out, miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "retrievaltest run-dir: plan of 11 trial(s) in 2 shard(s); wrote "+plan+"\n", stderr)
	assert.NoDirExists(t, out, "a plan evaluates nothing")
	code, _, stderr = call(context.Background(), RunDir, "-plan", filepath.Join(tmp, "p1"), "-shards", "1", miniRun)
	require.Equal(t, cli.ExitOK, code, "one shard is a plan too: %s", stderr)
	code, _, stderr = call(context.Background(), RunDir, "-plan", filepath.Join(tmp, "pmax"), "-shards", fmt.Sprint(runs.MaxShards), miniRun)
	require.Equal(t, cli.ExitOK, code, "as many shards as allowed: %s", stderr)
	code, _, stderr = call(context.Background(), RunDir, "-plan", filepath.Join(tmp, "no", "such", "p"), "-shards", "2", miniRun)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stderr, filepath.Join(tmp, "no", "such", "p"))

	trials := 0
	for k := 1; k <= 2; k++ {
		code, stdout, stderr = call(context.Background(), RunDir, "-plan", plan, "-shard", fmt.Sprintf("%d/2", k), "-gt-root", miniGT, "-out", out,
			"-history", db, "-history-shard", "-branch", "main", miniRun)
		require.Equal(t, cli.ExitOK, code, stderr)
		assert.Empty(t, stdout, "a shard writes no table")
		var n, of int
		from := fmt.Sprintf("(-shard %d/2): ", k)
		require.Contains(t, stderr, from)
		_, err := fmt.Sscanf(stderr[strings.Index(stderr, from)+len(from):], "%d of the run's %d trial(s)", &n, &of)
		require.NoError(t, err, stderr)
		assert.Equal(t, 11, of)
		trials += n
		assert.Contains(t, stderr, fmt.Sprintf("retrievaltest run-dir: shard %d of 2 (-shard %d/2): ", k, k))
		assert.Contains(t, stderr, fmt.Sprintf("run run:mini/shard-%d-of-2 (", k))
	}
	assert.Equal(t, 11, trials)

	merged := filepath.Join(tmp, "merged")
	code, stdout, stderr = call(context.Background(), Merge, "-out", merged, "-metrics", "mrr", "-history", db, "-branch", "main", out)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stdout, "| MRR (TREC RR) (mean) |")
	assert.Contains(t, stderr, "retrievaltest merge: 11 trial(s) in 2 configuration(s): 8 computable")
	assert.Contains(t, stderr, `retrievaltest merge: run run:mini (2 configuration(s), 11 trial(s), branch "main"`)
	for _, f := range []string{runs.SummaryFile, runs.TrialsFile, htmlreport.RunReportFile} {
		assert.FileExists(t, filepath.Join(merged, f))
	}
	page, err := os.ReadFile(filepath.Join(merged, htmlreport.RunReportFile))
	require.NoError(t, err)
	whole := filepath.Join(tmp, "whole")
	code, _, stderr = call(context.Background(), RunDir, "-gt-root", miniGT, "-out", whole, miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	wholePage, err := os.ReadFile(filepath.Join(whole, htmlreport.RunReportFile))
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(wholePage), "<svg"), strings.Count(string(page), "<svg"), "the merged page has the coverage curves of the whole run's")

	// A shard without a plan lists the run itself.
	code, _, stderr = call(context.Background(), RunDir, "-shard", "2/2", "-gt-root", miniGT, "-out", filepath.Join(tmp, "s2"), miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "retrievaltest run-dir: shard 2 of 2 (-shard 2/2): ")
	assert.NotContains(t, stderr, "recorded in")
}

func TestMergeRefusesBadFlagsAndArguments(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	shards := filepath.Join(tmp, "shards")
	code, _, stderr := call(context.Background(), RunDir, "-gt-root", miniGT, "-out", shards, "-shard", "1/1", miniRun)
	require.Equal(t, cli.ExitOK, code, stderr)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{tmp}, "retrievaltest merge: -out is required"},
		{"no shard", []string{"-out", filepath.Join(tmp, "o")}, "retrievaltest merge: no shard folder or file given"},
		{"a history that cannot be opened", []string{"-out", filepath.Join(tmp, "o"), "-history", tmp, tmp}, "is a folder"},
		{"a folder of no shard", []string{"-out", filepath.Join(tmp, "o"), tmp}, tmp},
		{"a shard that is not there", []string{"-out", filepath.Join(tmp, "o"), filepath.Join(tmp, "nope")}, "nope"},
		{"a bad flag", []string{"-bogus"}, "-bogus"},
		{"local shards merged into a bucket", []string{"-out", "s3://bucket/merged", shards}, "its artifacts cannot be named from s3://bucket/merged: s3://bucket/merged and " + shards + " are not both bucket URLs: merge into a folder of the bucket the shards wrote to"},
	} {
		code, stdout, stderr := call(context.Background(), Merge, tc.args...)
		assert.Equal(t, cli.ExitBadInput, code, tc.name)
		assert.Contains(t, stderr, tc.want, tc.name)
		assert.Empty(t, stdout, tc.name)
	}
	_, _, stderr = call(context.Background(), Merge, tmp)
	assert.Contains(t, stderr, "USAGE TEXT", "the usage is shown")
	_, _, stderr = call(context.Background(), Merge, "-out", filepath.Join(tmp, "o"))
	assert.Contains(t, stderr, "USAGE TEXT")
	assert.NoDirExists(t, filepath.Join(tmp, "o"))
}

// A run with a failed trial is written and recorded, and run-dir, its
// shard and merge exit 2.
func TestARunWithAFailedTrialIsWrittenAndExitsTwo(t *testing.T) {
	outsideCI(t)
	tmp := t.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	_, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 3, Seed: 3, Failed: true})
	require.NoError(t, err)
	db := filepath.Join(tmp, "h.db")

	out := filepath.Join(tmp, "out")
	code, stdout, stderr := call(context.Background(), RunDir, "-gt-root", gt, "-out", out, "-history", db, run)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stdout, "| Config ", "the table is written")
	assert.Contains(t, stderr, "broken__zz0: trial failed")
	assert.Contains(t, stderr, "recorded in "+db, "a run with failed trials is recorded")
	assert.FileExists(t, filepath.Join(out, runs.SummaryFile))

	shards := filepath.Join(tmp, "shards")
	failed := 0
	for k := 1; k <= 2; k++ {
		code, _, stderr = call(context.Background(), RunDir, "-gt-root", gt, "-out", shards, "-shard", fmt.Sprintf("%d/2", k), run)
		if code != cli.ExitOK {
			assert.Equal(t, cli.ExitBadInput, code)
			assert.Contains(t, stderr, "broken__zz0: trial failed")
			assert.Contains(t, stderr, fmt.Sprintf("shard %d of 2", k), "the shard is written")
			failed++
		}
	}
	assert.Equal(t, 1, failed)
	code, stdout, stderr = call(context.Background(), Merge, "-out", filepath.Join(tmp, "merged"), "-history", db, shards)
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Contains(t, stdout, "| Config ")
	assert.Contains(t, stderr, "retrievaltest merge: baseline-grep/"+synthrun.Batch+"/broken__zz0: trial failed")
	assert.Contains(t, stderr, "recorded in "+db)
}

func TestAnInterruptedEvaluationSaysSo(t *testing.T) {
	outsideCI(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tmp := t.TempDir()
	for _, args := range [][]string{
		{"-out", filepath.Join(tmp, "a"), miniRun},
		{"-out", filepath.Join(tmp, "b"), "-shard", "1/2", miniRun},
		{"-out", filepath.Join(tmp, "c"), "-plan", filepath.Join(tmp, "p"), "-shards", "2", miniRun},
	} {
		code, _, stderr := call(ctx, RunDir, append([]string{"-gt-root", miniGT}, args...)...)
		assert.Equal(t, cli.ExitBadInput, code, "%v", args)
		assert.Equal(t, "retrievaltest run-dir: interrupted\n", stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:], "%v", args)
	}
}

func TestTheSummaryKeepsTheShownFiguresAndThePagesOnce(t *testing.T) {
	t.Parallel()
	got := shownValues("mrr, recall@5")
	assert.Equal(t, []string{"mrr", "recall@5"}, got[:2])
	for _, m := range htmlreport.DefaultRunMetrics {
		assert.Contains(t, got, m)
	}
	for _, m := range got {
		assert.Equal(t, 1, strings.Count(","+strings.Join(got, ",")+",", ","+m+","), "%s once", m)
	}
	all := shownValues(strings.Join(htmlreport.DefaultRunMetrics, ","))
	assert.Equal(t, htmlreport.DefaultRunMetrics, all)
	assert.True(t, slices.Equal(htmlreport.DefaultRunMetrics, shownValues("")))
}

func TestOnlyCommandsOfRunTablesNeedTheParquetLibrary(t *testing.T) {
	for _, args := range [][]string{
		{"run-dir", "x"}, {"merge", "x"}, {"report", "x"}, {"compare", "x"},
		{"run-dir", "-out", "o", "--", "-shard"}, {"run-dir", "-shardx", "1/2", "x"},
	} {
		assert.True(t, NeedsTable(args), "%v", args)
	}
	for _, args := range [][]string{
		nil, {"check", "scenarios"}, {"events", "run-dir"}, {"history"}, {"version"},
		{"run-dir", "-shard", "1/2", "x"}, {"run-dir", "--shard=1/2", "x"}, {"run-dir", "-plan", "p", "x"},
		{"merge", "-h"}, {"report", "--help"},
	} {
		assert.False(t, NeedsTable(args), "%v", args)
	}
}
