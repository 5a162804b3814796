package blobio_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
	_ "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/clouds"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

func TestIsURLTakesTheThreeSchemesAndNothingElse(t *testing.T) {
	for name, want := range map[string]bool{
		"s3://b/k": true, "gs://b/k": true, "azblob://c/k": true,
		"file:///tmp/x": false, "http://h/x": false, "runs/s3:/x": false, "s3:b": false, "-": false, "": false,
	} {
		assert.Equal(t, want, IsURL(name), name)
	}
}

func TestJoinAddsToAPathOrToAURLKeyKeepingTheQuery(t *testing.T) {
	assert.Equal(t, filepath.Join("run", "retrieval_events"), Join("run", "retrieval_events"))
	assert.Equal(t, "s3://b/run/retrieval_events?region=eu-west-1", Join("s3://b/run?region=eu-west-1", "retrieval_events"))
	assert.Equal(t, "gs://b/retrieval_events", Join("gs://b", "retrieval_events"))
}

func TestAPathIsNotCopied(t *testing.T) {
	var s Stage
	got, err := s.Input(context.Background(), "some/path")
	require.NoError(t, err)
	assert.Equal(t, "some/path", got)
	got, err = s.Output("out")
	require.NoError(t, err)
	assert.Equal(t, "out", got)
	require.NoError(t, s.Commit(context.Background(), nil))
}

func TestAnObjectIsCopiedToAFileOfItsName(t *testing.T) {
	srv := blobtest.Start(t, "traces", nil)
	srv.Put(t, "a/session.jsonl", []byte("{}\n"))
	var s Stage
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("a/session.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, "session.jsonl", filepath.Base(local))
	data, err := os.ReadFile(local)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(data))
	assert.Equal(t, "s3://traces/a/session.jsonl", s.Name(local))
}

// An object comes with the siblings Siblings names for it, when they are
// in the bucket; a sibling that is not is no error, one over the limit
// is.
func TestAnObjectComesWithItsSiblings(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "out/summary.json", []byte("{}"))
	srv.Put(t, "out/table", []byte("rows"))
	srv.Put(t, "out/big", []byte("12345"))
	srv.Put(t, "out/other", []byte("x"))
	s := Stage{Limit: 4, Siblings: func(base string) []string {
		assert.Equal(t, "summary.json", base)
		return []string{"table", "absent", "summary.json"}
	}}
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("out/summary.json"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(local), "table"))
	require.NoError(t, err)
	assert.Equal(t, "rows", string(data))
	assert.NoFileExists(t, filepath.Join(filepath.Dir(local), "absent"))
	assert.NoFileExists(t, filepath.Join(filepath.Dir(local), "other"), "only the siblings named")

	s.Siblings = func(string) []string { return []string{"big"} }
	_, err = s.Input(context.Background(), srv.URL("out/summary.json"))
	var tl *input.TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, "s3://runs/out/big", tl.Path)
}

func TestAPrefixIsCopiedAsAFolderLeavingOutSkippedFolders(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "r1/cfg/t1/result.json", []byte("1"))
	srv.Put(t, "r1/cfg/t1/agent/trajectory.json", []byte("2"))
	srv.Put(t, "r1/cfg/", nil) // a folder marker
	srv.Put(t, "r1/retrieval_events/old.json", []byte("3"))
	srv.Put(t, "r10/other", []byte("4")) // shares the prefix's letters, not its folder
	var s Stage
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("r1"), "retrieval_events")
	require.NoError(t, err)
	assert.Equal(t, "r1", filepath.Base(local))
	var files []string
	require.NoError(t, filepath.Walk(local, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(local, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	assert.ElementsMatch(t, []string{"cfg/t1/result.json", "cfg/t1/agent/trajectory.json"}, files)
	assert.Equal(t, "s3://runs/r1/cfg/t1/result.json", s.Name(filepath.Join(local, "cfg", "t1", "result.json")))
}

func TestAMissingObjectIsAnErrorNamingTheURL(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "present", []byte("x"))
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), srv.URL("absent/run"))
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "s3://runs/absent/run:")
	assert.NotContains(t, err.Error(), "endpoint", "the query is left out of messages")
}

func TestAMissingBucketIsAnErrorNamingTheURL(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Bucket = "nobucket"
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), srv.URL("run"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s3://nobucket/run")
}

func TestAnObjectOverTheLimitIsRefusedNamingIt(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "run/small", []byte("12"))
	srv.Put(t, "run/big", []byte("12345"))
	s := Stage{Limit: 4}
	defer s.Close()
	_, err := s.Input(context.Background(), srv.URL("run"))
	var tl *input.TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, "s3://runs/run/big", tl.Path)
	assert.Contains(t, err.Error(), input.Flag)
}

func TestAKeyThatLeadsOutOfThePrefixIsRefused(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "run/../escape", []byte("x"))
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), srv.URL("run"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"run/../escape" cannot be a file under the prefix`)

	srv.Put(t, "run/..", []byte("x"))
	_, err = s.Input(context.Background(), srv.URL("run/.."))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `a key ending in ".." cannot be copied to a file`)
}

// failing answers every request with 500 Internal Server Error.
func failing(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<Error><Code>InternalError</Code><Message>broken</Message></Error>", http.StatusInternalServerError)
	})
}

func TestAFailingServerIsAnErrorNamingTheURL(t *testing.T) {
	srv := blobtest.Start(t, "runs", failing)
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), srv.URL("run/trace.jsonl"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s3://runs/run/trace.jsonl")
	assert.Contains(t, err.Error(), "500")
}

// slow delays every request until release is closed or the request ends.
func slow(release <-chan struct{}, delayed *atomic.Int32) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			delayed.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

func TestASlowServerIsWaitedFor(t *testing.T) {
	release := make(chan struct{})
	var delayed atomic.Int32
	srv := blobtest.Start(t, "runs", slow(release, &delayed))
	srv.Put(t, "run/a/result.json", []byte("{}"))
	go func() {
		for delayed.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // the first request waits
		close(release)
	}()
	var s Stage
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("run"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(local, "a", "result.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))
}

func TestAServerSlowerThanTheDeadlineIsAnErrorNamingTheURL(t *testing.T) {
	var delayed atomic.Int32
	srv := blobtest.Start(t, "runs", slow(make(chan struct{}), &delayed)) // never answers
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var s Stage
	defer s.Close()
	_, err := s.Input(ctx, srv.URL("run/trace.jsonl"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "s3://runs/run/trace.jsonl")
}

func TestCommitUploadsEveryFileWithTheSummariesLast(t *testing.T) {
	var order []string
	srv := blobtest.Start(t, "out", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				order = append(order, strings.TrimPrefix(r.URL.Path, "/out/"))
			}
			h.ServeHTTP(w, r)
		})
	})
	var s Stage
	defer s.Close()
	local, err := s.Output(srv.URL("run/retrieval_events"))
	require.NoError(t, err)
	for name, data := range map[string]string{"a.json": "a", "summary.json": "s", "cfg/z.json": "z"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(local, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(local, name), []byte(data), 0o644))
	}
	require.NoError(t, s.Commit(context.Background(), func(rel string) bool { return rel == "summary.json" }))
	assert.Equal(t, []string{"run/retrieval_events/a.json", "run/retrieval_events/cfg/z.json", "run/retrieval_events/summary.json"}, order)
	got, ok := srv.Get(t, "run/retrieval_events/cfg/z.json")
	require.True(t, ok)
	assert.Equal(t, "z", string(got))
	assert.Equal(t, "s3://out/run/retrieval_events/a.json", s.Name(filepath.Join(local, "a.json")))
}

func TestAFailedUploadLeavesNoSummary(t *testing.T) {
	srv := blobtest.Start(t, "out", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/b.json") {
				http.Error(w, "<Error><Code>InternalError</Code><Message>broken</Message></Error>", http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	var s Stage
	defer s.Close()
	local, err := s.Output(srv.URL("o"))
	require.NoError(t, err)
	for _, name := range []string{"a.json", "b.json", "summary.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(local, name), []byte(name), 0o644))
	}
	err = s.Commit(context.Background(), func(rel string) bool { return rel == "summary.json" })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s3://out/o/b.json")
	assert.Equal(t, []string{"o/a.json"}, srv.Keys(t, "o/"))
}

func TestErrAndWriterNameTheURLsOfLocalCopies(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "t.jsonl", []byte("x"))
	var s Stage
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("t.jsonl"))
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = io.WriteString(s.Writer(&buf), local+": bad line 3\n")
	require.NoError(t, err)
	assert.Equal(t, "s3://runs/t.jsonl: bad line 3\n", buf.String())
	base := &os.PathError{Op: "open", Path: local, Err: os.ErrPermission}
	err = s.Err(base)
	assert.Equal(t, "open s3://runs/t.jsonl: permission denied", err.Error())
	assert.ErrorIs(t, err, os.ErrPermission)
}

func TestKeepChoosesTheObjectsCopiedAndMakesTheFoldersOfTheOthers(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "r/t1/result.json", []byte("1"))
	srv.Put(t, "r/t1/agent/trajectory.json", []byte("2"))
	s := Stage{Keep: func(rel string) bool { return !strings.Contains(rel, "/agent/") }}
	defer s.Close()
	local, err := s.Input(context.Background(), srv.URL("r"))
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(local, "t1", "result.json"))
	assert.DirExists(t, filepath.Join(local, "t1", "agent"))
	assert.NoFileExists(t, filepath.Join(local, "t1", "agent", "trajectory.json"))
}

func TestPackageCloudsRegistersEveryScheme(t *testing.T) {
	for _, scheme := range Schemes {
		assert.True(t, Linked(scheme), scheme)
	}
	assert.False(t, Linked("file"))
}
