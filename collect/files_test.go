package collect

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
