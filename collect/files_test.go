package collect

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

func TestSanitizeKeepsSafeNamesAndHashesTheOthers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string // want "" means: changed, with a hash
	}{
		{"a plain id is kept", "abc-123_X.y", "abc-123_X.y"},
		{"the first and last letters and digits are kept", "aAzZ09", "aAzZ09"},
		{"the bytes beside the letters and digits are replaced", "`{@[/:", ""},
		{"a parent folder is not a path", "..", ""},
		{"a path is flattened", "../../etc/passwd", ""},
		{"a Windows path is flattened", `..\..\x`, ""},
		{"a leading dot is replaced", ".hidden", ""},
		{"a NUL byte is replaced", "a\x00b", ""},
		{"bytes that are not UTF-8 are replaced", "a\xff\xfeb", ""},
		{"letters outside ASCII are replaced", "séance", ""},
		{"an empty value gets a name", "", ""},
		{"a long value is cut", strings.Repeat("a", 500), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sanitize(tc.in)
			if tc.want != "" {
				assert.Equal(t, tc.want, got)
				return
			}
			assert.NotEqual(t, tc.in, got)
			assert.LessOrEqual(t, len(got), maxNameBytes+9)
			assert.NotEmpty(t, got)
			assert.False(t, strings.HasPrefix(got, "."), got)
			for _, c := range []byte(got) {
				assert.True(t, c == '-' || c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z', "%q in %q", c, got)
			}
		})
	}
	assert.NotEqual(t, sanitize("a/b"), sanitize("a_b"), "a changed name never meets the name it was changed into")
	assert.NotEqual(t, sanitize("a/b"), sanitize("a:b"))
}

// Service names and session ids that try to climb out of the folder, or
// hold bytes a file system dislikes, become plain names inside it.
func TestNamesFromRequestsStayInsideTheFolder(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	srv := startServer(t, Options{Dir: dir, Group: BySession})
	hostile := []string{"../escape", "../../tmp/x", "/etc/passwd", `..\..\win`, "a\x00b", "\u202egnp.exe", "tab\tnew\nline", "C:", ".", "..", ""}
	for _, h := range hostile {
		req := logsRequest(h, &logspb.LogRecord{EventName: "gemini_cli.tool_call",
			Attributes: []*commonpb.KeyValue{str("session.id", h), str("function_name", "ls")}})
		code, out := post(t, srv.Endpoint(), "/v1/logs", ctProto, mustProto(t, req))
		require.Equal(t, http.StatusOK, code, "%q: %s", h, out)
	}
	// Protobuf strings are UTF-8: a body with other bytes is refused
	// before any name is made (sanitize replaces them all the same).
	// Nothing was written beside the folder.
	assert.Equal(t, []string{"out"}, dirNames(t, parent))
	names := dirNames(t, dir)
	assert.NotEmpty(t, names)
	for _, n := range names {
		assert.False(t, strings.HasPrefix(n, "."), n)
		assert.True(t, strings.HasSuffix(n, ".jsonl"), n)
		fi, err := os.Lstat(filepath.Join(dir, n))
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular(), n)
	}
}

// The file set refuses a name that is a path, even if one were built.
func TestAppendRefusesAPath(t *testing.T) {
	t.Parallel()
	fs := newFileSet(t.TempDir())
	for _, name := range []string{"../x.jsonl", "a/b.jsonl", `a\b.jsonl`, ".x.jsonl", ""} {
		assert.Error(t, fs.append(name, []byte("{}\n")), name)
	}
}

// heldSync is a file set's sync that holds each call until the test
// releases it, and counts the calls.
type heldSync struct {
	entered chan struct{}
	release chan error
	calls   atomic.Int64
}

func holdSyncs(fs *fileSet) *heldSync {
	h := &heldSync{entered: make(chan struct{}, 100), release: make(chan error)}
	fs.sync = func(f *os.File) error {
		h.calls.Add(1)
		h.entered <- struct{}{}
		if err := <-h.release; err != nil {
			return err
		}
		return f.Sync()
	}
	return h
}

// waitQueued waits until n requests wait for the next commit of name.
func waitQueued(t *testing.T, fs *fileSet, name string, n int) {
	t.Helper()
	f := fs.file(name)
	deadline := time.Now().Add(time.Minute)
	for {
		f.mu.Lock()
		got := f.requests
		f.mu.Unlock()
		if got == n {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d requests queued, want %d", got, n)
		time.Sleep(time.Millisecond)
	}
}

// appendAll starts an append of line i for each i, and returns their
// errors on a channel as they return.
func appendAll(fs *fileSet, name string, lines ...string) chan error {
	errs := make(chan error, len(lines))
	for _, l := range lines {
		go func() { errs <- fs.append(name, []byte(l+"\n")) }()
	}
	return errs
}

// Requests that arrive while a file is being synced wait, and go to the
// file together in the next commit: one write and one fsync for all of
// them, and none is answered before the fsync that covers it returns.
func TestRequestsForOneFileCommitTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fs := newFileSet(dir)
	h := holdSyncs(fs)
	first := appendAll(fs, "t.jsonl", "first")
	<-h.entered
	var rest []string
	for i := range 9 {
		rest = append(rest, fmt.Sprint("line-", i))
	}
	others := appendAll(fs, "t.jsonl", rest...)
	waitQueued(t, fs, "t.jsonl", 9)
	select {
	case err := <-first:
		t.Fatalf("answered before its fsync returned: %v", err)
	case err := <-others:
		t.Fatalf("a request waiting for the next commit was answered: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	h.release <- nil
	require.NoError(t, <-first)
	<-h.entered // the nine, in one commit
	select {
	case err := <-others:
		t.Fatalf("answered before its fsync returned: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	h.release <- nil
	for range 9 {
		require.NoError(t, <-others)
	}
	assert.EqualValues(t, 2, h.calls.Load(), "one fsync for the first request, one for the nine")
	data, err := os.ReadFile(filepath.Join(dir, "t.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 10)
	assert.Equal(t, "first", lines[0])
	assert.ElementsMatch(t, rest, lines[1:])
	assert.Equal(t, []string{filepath.Join(dir, "t.jsonl")}, fs.paths())
}

// A commit that fails fails the requests in it, and only those; the
// next commit is written.
func TestAFailedCommitFailsItsRequestsOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fs := newFileSet(dir)
	h := holdSyncs(fs)
	first := appendAll(fs, "t.jsonl", "first")
	<-h.entered
	others := appendAll(fs, "t.jsonl", "a", "b", "c")
	waitQueued(t, fs, "t.jsonl", 3)
	h.release <- errors.New("disk on fire")
	assert.ErrorContains(t, <-first, "disk on fire")
	<-h.entered
	h.release <- nil
	for range 3 {
		assert.NoError(t, <-others)
	}
	// Another file is not held by this one.
	other := appendAll(fs, "u.jsonl", "u")
	<-h.entered
	h.release <- nil
	assert.NoError(t, <-other)
	assert.EqualValues(t, 3, h.calls.Load())
}
