package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
	"github.com/agentretrieval/agentretrieval/runs"
)

// These tests run the commands on s3:// URLs served by an S3 API server
// on loopback (package blobtest); they set the AWS environment, so they
// are not parallel.

// localFiles lists the files under dir, slash-separated and relative.
func localFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	return files
}

func TestARunInABucketIsEvaluatedAsTheSameRunOnDisk(t *testing.T) {
	srv := blobtest.Start(t, "bench", nil)
	srv.PutDir(t, miniRun, "runs/mini")
	srv.PutDir(t, miniGT, "gt")

	out := t.TempDir()
	code, wantTable, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", out, miniRun)
	require.Equal(t, exitOK, code, stderr)

	code, table, stderr := runCLI(t, nil, "run-dir", "-gt-root", srv.URL("gt"), srv.URL("runs/mini"))
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, wantTable, table)
	assert.Contains(t, stderr, "wrote s3://bench/runs/mini/retrieval_events/report.html and s3://bench/runs/mini/retrieval_events/"+runs.SummaryFile,
		"the default output is the run's retrieval_events, in the bucket; messages name the URLs")
	assert.NotContains(t, stderr, "retrievaltest-bucket-", "no message names a local copy")

	var keys []string
	for _, f := range localFiles(t, out) {
		keys = append(keys, "runs/mini/retrieval_events/"+f)
		want, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		got, ok := srv.Get(t, "runs/mini/retrieval_events/"+f)
		require.True(t, ok, f)
		if f == runs.TrialsFile {
			// Compressed, the table cannot be compared with the root
			// replaced: the summary holds the same entries.
			assert.Equal(t, "PAR1", string(got[:4]), f)
			continue
		}
		// The one difference: a task's reason names the ground-truth root.
		want = bytes.ReplaceAll(want, []byte(miniGT), []byte("s3://bench/gt"))
		assert.Equal(t, string(want), string(got), f)
	}
	assert.Equal(t, keys, srv.Keys(t, "runs/mini/retrieval_events/"), "every artifact is uploaded")
}

func TestShardsInABucketMergeIntoTheSummaryOfTheWholeRun(t *testing.T) {
	var mu sync.Mutex
	var read []string // the keys read
	srv := blobtest.Start(t, "bench", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				mu.Lock()
				read = append(read, strings.TrimPrefix(r.URL.Path, "/bench/runs/mini/"))
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	})
	srv.PutDir(t, miniRun, "runs/mini")
	_, whole := runMini(t)
	trials, err := runs.Walk(miniRun)
	require.NoError(t, err)

	for _, k := range []string{"1/2", "2/2"} {
		read = nil
		code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-shard", k, "-out", srv.URL("shards"), srv.URL("runs/mini"))
		require.Equal(t, exitOK, code, stderr)
		shard, err := runs.ParseShard(k)
		require.NoError(t, err)
		for _, tr := range trials {
			assert.Contains(t, read, tr.Rel+"/result.json", "every result.json is read")
			_, err := os.Stat(filepath.Join(miniRun, filepath.FromSlash(tr.Rel), runs.TrajectoryFile))
			assert.Equal(t, err == nil && shard.Contains(tr.Rel), slices.Contains(read, tr.Rel+"/"+runs.TrajectoryFile),
				"shard %s reads the trajectory of %s only if it is its own", k, tr.Rel)
		}
	}
	assert.Contains(t, srv.Keys(t, "shards/"), "shards/run_retrieval_summary.shard-2-of-2.json")
	read = nil
	code, _, stderr := runCLI(t, nil, "merge", "-out", srv.URL("merged"), srv.URL("shards"))
	require.Equal(t, exitOK, code, stderr)
	for _, key := range read {
		assert.NotContains(t, key, ".retrieval_", "the merge reads no artifact")
	}
	assert.Equal(t, []string{"merged/report.html", "merged/" + runs.SummaryFile, "merged/" + runs.TrialsFile}, srv.Keys(t, "merged/"), "the merge copies no artifact")
	got, ok := srv.Get(t, "merged/"+runs.SummaryFile)
	require.True(t, ok)
	file := filepath.Join(t.TempDir(), runs.SummaryFile)
	require.NoError(t, os.WriteFile(file, got, 0o644))
	table, ok := srv.Get(t, "merged/"+runs.TrialsFile)
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(file), runs.TrialsFile), table, 0o644))
	merged, err := runs.ReadSummary(file)
	require.NoError(t, err)
	require.Len(t, merged.Configs, len(whole.Configs))
	for i, c := range merged.Configs {
		assert.Equal(t, whole.Configs[i].Metrics, c.Metrics)
		for j, e := range c.Entries {
			if e.EventsFile == "" {
				continue
			}
			assert.Equal(t, "../shards/"+whole.Configs[i].Entries[j].EventsFile, e.EventsFile, "the artifact is named where the shard wrote it")
			_, ok := srv.Get(t, "shards/"+whole.Configs[i].Entries[j].EventsFile)
			assert.True(t, ok)
		}
	}

	code, report, stderr := runCLI(t, nil, "report", srv.URL("merged/"+runs.SummaryFile))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, report, baseCfg, "report reads a summary in a bucket")
}

func TestTraceCommandsReadATraceInABucket(t *testing.T) {
	srv := blobtest.Start(t, "traces", nil)
	data, err := os.ReadFile(exampleTrace)
	require.NoError(t, err)
	srv.Put(t, "a/"+filepath.Base(exampleTrace), data)
	url := srv.URL("a/" + filepath.Base(exampleTrace))

	// A trajectory that names no task: its file name does.
	untitled := filepath.Join(miniRun, baseCfg, "2026-01-15__10-00-00", "fix-auth__a1b2c3", runs.TrajectoryFile)
	data, err = os.ReadFile(untitled)
	require.NoError(t, err)
	srv.Put(t, "b/trajectory.json", data)

	for _, cmd := range []string{"events", "metrics"} {
		code, want, stderr := runCLI(t, nil, cmd, "-gt", exampleGT, exampleTrace, untitled)
		require.Equal(t, exitOK, code, stderr)
		// The query as a user types it, slashes unescaped.
		typed := "s3://traces/b/trajectory.json?region=us-east-1&use_path_style=true&disable_https=true&endpoint=" + srv.Endpoint
		code, got, stderr := runCLI(t, nil, cmd, "-gt", exampleGT, url, typed)
		require.Equal(t, exitOK, code, stderr)
		want = strings.ReplaceAll(want, exampleTrace, "s3://traces/a/"+filepath.Base(exampleTrace))
		want = strings.ReplaceAll(want, untitled, "s3://traces/b/trajectory.json")
		assert.Equal(t, want, got, cmd)
		assert.Contains(t, got, `"task_name": "trajectory"`, "the task is named after the object, not the URL's query")
	}
	code, got, stderr := runCLI(t, nil, "trec-export", "-gt", exampleGT, url)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, got, "fix-token-expiry Q0 ")
}

func TestBucketInputsThatCannotBeReadAreBadInputNamingTheURL(t *testing.T) {
	srv := blobtest.Start(t, "bench", nil)
	srv.Put(t, "present", []byte("x"))
	for _, args := range [][]string{
		{"run-dir", srv.URL("runs/absent")},
		{"merge", "-out", t.TempDir(), srv.URL("runs/absent")},
		{"events", srv.URL("runs/absent")},
		{"report", srv.URL("runs/absent")},
		{"view", "-o", filepath.Join(t.TempDir(), "v.html"), srv.URL("runs/absent")},
	} {
		code, _, stderr := runCLI(t, nil, args...)
		assert.Equal(t, exitBadInput, code, args[0])
		assert.Contains(t, stderr, "s3://bench/runs/absent: no such object, and no object under it", args[0])
	}

	broken := blobtest.Start(t, "bench", func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "<Error><Code>InternalError</Code><Message>broken</Message></Error>", http.StatusInternalServerError)
		})
	})
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", t.TempDir(), broken.URL("runs/mini"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "retrievaltest run-dir: s3://bench/runs/mini: ")
	assert.Contains(t, stderr, "StatusCode: 500")
}

func TestAnOutputThatCannotBeUploadedIsBadInputAndLeavesNoSummary(t *testing.T) {
	srv := blobtest.Start(t, "bench", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "fix-auth") {
				http.Error(w, "<Error><Code>InternalError</Code><Message>broken</Message></Error>", http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", srv.URL("out"), miniRun)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "s3://bench/out/"+baseCfg+"/fix-auth")
	assert.NotContains(t, srv.Keys(t, "out/"), "out/"+runs.SummaryFile)
}

func TestViewNamesATraceInABucketByItsURL(t *testing.T) {
	srv := blobtest.Start(t, "traces", nil)
	data, err := os.ReadFile(exampleTrace)
	require.NoError(t, err)
	srv.Put(t, "a/"+filepath.Base(exampleTrace), data)
	page := filepath.Join(t.TempDir(), "v.html")
	code, _, stderr := runCLI(t, nil, "view", "-o", page, srv.URL("a/"+filepath.Base(exampleTrace)))
	require.Equal(t, exitOK, code, stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "s3://traces/a/"+filepath.Base(exampleTrace))
	assert.NotContains(t, string(html), "retrievaltest-bucket-", "the page never names the local copy")
}
