package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// A plan written once, shards that read it and write into one shared
// folder, and a merge of that folder give the summary of the whole run.
func TestShardsOfAPlanMergeIntoTheSummaryOfTheWholeRun(t *testing.T) {
	t.Parallel()
	whole, _ := runMini(t)
	tmp := t.TempDir()
	plan, shared := filepath.Join(tmp, "run.plan"), filepath.Join(tmp, "shared")
	code, stdout, stderr := runCLI(t, nil, "run-dir", "-plan", plan, "-shards", "3", "-gt-root", miniGT, "-out", shared, miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "plan of 11 trial(s) in 3 shard(s); wrote "+plan)
	assert.NoDirExists(t, shared, "writing the plan evaluates nothing")
	for _, k := range []string{"1/3", "2/3", "3/3"} {
		code, _, stderr := runCLI(t, nil, "run-dir", "-plan", plan, "-shard", k, "-gt-root", miniGT, "-out", shared, miniRun)
		require.Equal(t, exitOK, code, stderr)
	}
	// The merge reads the shard summaries only: the artifacts could be
	// gone, and report.html still has the run's coverage curves.
	events, err := filepath.Glob(filepath.Join(shared, "*", "*"+runs.EventsSuffix))
	require.NoError(t, err)
	require.NotEmpty(t, events)
	for _, f := range events {
		require.NoError(t, os.Remove(f))
	}
	code, _, stderr = runCLI(t, nil, "merge", "-out", shared, shared)
	require.Equal(t, exitOK, code, stderr)
	for _, f := range []string{runs.SummaryFile, runs.TrialsFile, htmlreport.RunReportFile} {
		want, err := os.ReadFile(filepath.Join(whole, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(shared, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), f)
	}
}

func TestRunDirPlanFlagErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	plan := filepath.Join(tmp, "run.plan")
	code, _, stderr := runCLI(t, nil, "run-dir", "-plan", plan, "-shards", "2", "-gt-root", miniGT, "-out", filepath.Join(tmp, "o"), miniRun)
	require.Equal(t, exitOK, code, stderr)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a plan without its number of shards", []string{"-plan", filepath.Join(tmp, "p2")}, "give the number of shards with -shards N"},
		{"a plan read by a shard of another cut", []string{"-plan", plan, "-shard", "1/3"}, "it is cut into 2 shards, not 3"},
		{"a plan that is not there", []string{"-plan", filepath.Join(tmp, "missing"), "-shard", "1/2"}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run-dir", "-gt-root", miniGT, "-out", filepath.Join(tmp, "o")}, tc.args...)
			code, _, stderr := runCLI(t, nil, append(args, miniRun)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
	assert.NoFileExists(t, filepath.Join(tmp, "p2"))
}

// With a plan in a bucket, a shard fetches the plan's header and its own
// part (ranged reads), lists the folders of its own trials only and reads
// nothing of the other shards' trials.
func TestAShardOfAPlanInABucketReadsOnlyItsOwnTrials(t *testing.T) {
	var mu sync.Mutex
	var gets, lists, ranges []string
	srv := blobtest.Start(t, "bench", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				mu.Lock()
				if p := r.URL.Query().Get("prefix"); p != "" || r.URL.Query().Has("list-type") {
					lists = append(lists, p)
				} else {
					gets = append(gets, strings.TrimPrefix(r.URL.Path, "/bench/"))
					if r.Header.Get("Range") != "" {
						ranges = append(ranges, r.Header.Get("Range"))
					}
				}
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	})
	srv.PutDir(t, miniRun, "runs/mini")
	srv.PutDir(t, miniGT, "gt")
	_, whole := runMini(t)
	code, _, stderr := runCLI(t, nil, "run-dir", "-plan", srv.URL("plans/mini.plan"), "-shards", "2", "-gt-root", srv.URL("gt"), srv.URL("runs/mini"))
	require.Equal(t, exitOK, code, stderr)
	trials, err := runs.Walk(miniRun)
	require.NoError(t, err)

	for _, k := range []string{"1/2", "2/2"} {
		gets, lists, ranges = nil, nil, nil
		code, _, stderr := runCLI(t, nil, "run-dir", "-plan", srv.URL("plans/mini.plan"), "-shard", k, "-gt-root", srv.URL("gt"), "-out", srv.URL("shared"), srv.URL("runs/mini"))
		require.Equal(t, exitOK, code, stderr)
		shard, err := runs.ParseShard(k)
		require.NoError(t, err)
		assert.NotContains(t, lists, "runs/mini/", "the run is not listed")
		require.Len(t, ranges, 2, "the plan is read in two ranges, the header's and the part's")
		assert.Equal(t, "bytes=0-65535", ranges[0])
		for _, tr := range trials {
			own := shard.Contains(tr.Rel)
			assert.Equal(t, own, slicesContains(gets, "runs/mini/"+tr.Rel+"/result.json"), "shard %s reads the result.json of %s only if it is its own", k, tr.Rel)
			assert.Equal(t, own, slicesContains(lists, "runs/mini/"+tr.Rel+"/"), "shard %s lists %s only if it is its own", k, tr.Rel)
		}
	}
	code, _, stderr = runCLI(t, nil, "merge", "-out", srv.URL("shared"), srv.URL("shared"))
	require.Equal(t, exitOK, code, stderr)
	got, ok := srv.Get(t, "shared/"+runs.SummaryFile)
	require.True(t, ok)
	file := filepath.Join(t.TempDir(), runs.SummaryFile)
	require.NoError(t, os.WriteFile(file, got, 0o644))
	table, ok := srv.Get(t, "shared/"+runs.TrialsFile)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(file), runs.TrialsFile), table, 0o644))
	merged, err := runs.ReadSummary(file)
	require.NoError(t, err)
	assert.Equal(t, len(whole.Configs), len(merged.Configs))
	for i := range whole.Configs {
		assert.Equal(t, whole.Configs[i].Metrics, merged.Configs[i].Metrics)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
