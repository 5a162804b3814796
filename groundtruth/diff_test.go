package groundtruth

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
)

// lr keeps the expected chunks of the tables on one line each.
func lr(path string, start, end int) events.LineRange {
	return events.LineRange{Path: path, Start: start, End: end}
}

func TestParseDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		diff       string
		wantFiles  []string
		wantChunks []events.LineRange
	}{
		{
			name: "multiple hunks give the new side of each",
			diff: `diff --git a/pkg/auth/token.go b/pkg/auth/token.go
index 1a2b3c4..5d6e7f8 100644
--- a/pkg/auth/token.go
+++ b/pkg/auth/token.go
@@ -10,3 +10,4 @@ import (
 	"time"
+	"errors"
 )
 
@@ -41,4 +42,4 @@ func ValidateToken(t Token) error {
 	now := time.Now()
-	if t.Expiry.Before(now) {
+	if !t.Expiry.After(now) {
 		return ErrExpired
 	}
`,
			wantFiles:  []string{"pkg/auth/token.go"},
			wantChunks: []events.LineRange{lr("pkg/auth/token.go", 10, 13), lr("pkg/auth/token.go", 42, 45)},
		},
		{
			name: "a rename touches both paths and its hunks fall on the new path",
			diff: `diff --git a/pkg/util/strings.go b/pkg/text/strings.go
similarity index 92%
rename from pkg/util/strings.go
rename to pkg/text/strings.go
index 0f1e2d3..4c5b6a7 100644
--- a/pkg/util/strings.go
+++ b/pkg/text/strings.go
@@ -1,3 +1,3 @@
-package util
+package text
 
 import "strings"
`,
			wantFiles:  []string{"pkg/util/strings.go", "pkg/text/strings.go"},
			wantChunks: []events.LineRange{lr("pkg/text/strings.go", 1, 3)},
		},
		{
			name: "a pure rename has files and no chunks",
			diff: `diff --git a/docs/old.md b/docs/new.md
similarity index 100%
rename from docs/old.md
rename to docs/new.md
`,
			wantFiles: []string{"docs/old.md", "docs/new.md"},
		},
		{
			name: "a deleted file gives its old path and old lines",
			diff: `diff --git a/internal/legacy/shim.go b/internal/legacy/shim.go
deleted file mode 100644
index 8a7b6c5..0000000
--- a/internal/legacy/shim.go
+++ /dev/null
@@ -1,3 +0,0 @@
-package legacy
-
-func Shim() {}
`,
			wantFiles:  []string{"internal/legacy/shim.go"},
			wantChunks: []events.LineRange{lr("internal/legacy/shim.go", 1, 3)},
		},
		{
			name: "a new file gives its new path and all its lines",
			diff: `diff --git a/pkg/auth/errors.go b/pkg/auth/errors.go
new file mode 100644
index 0000000..3e4f5a6
--- /dev/null
+++ b/pkg/auth/errors.go
@@ -0,0 +1,5 @@
+package auth
+
+import "errors"
+
+var ErrExpired = errors.New("token expired")
`,
			wantFiles:  []string{"pkg/auth/errors.go"},
			wantChunks: []events.LineRange{lr("pkg/auth/errors.go", 1, 5)},
		},
		{
			name: "a pure-deletion hunk gives the old side on the old path",
			diff: `--- a/server/routes.py
+++ b/server/routes.py
@@ -30,2 +30,3 @@ def index():
 x = 1
+y = 2
 z = 3
@@ -88,4 +89,0 @@ def legacy():
-def legacy():
-    pass
-
-
`,
			wantFiles:  []string{"server/routes.py"},
			wantChunks: []events.LineRange{lr("server/routes.py", 30, 32), lr("server/routes.py", 88, 91)},
		},
		{
			name:       "a pure deletion in a plain diff between two names falls on the file it touches",
			diff:       "--- conf.ini.orig\n+++ conf.ini\n@@ -4,2 +3,0 @@\n-a\n-b\n",
			wantFiles:  []string{"conf.ini"},
			wantChunks: []events.LineRange{lr("conf.ini", 4, 5)},
		},
		{
			name: "binary files count as touched without chunks",
			diff: `diff --git a/web/static/logo.png b/web/static/logo.png
index 5a5a5a5..6b6b6b6 100644
Binary files a/web/static/logo.png and b/web/static/logo.png differ
diff --git a/web/static/icon.ico b/web/static/icon.ico
new file mode 100644
index 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391
GIT binary patch
literal 12
Tcmd;LU|?WmU|?WmU|;|M00;Yr

literal 0
HcmV?d00001

diff --git a/web/static/site.css b/web/static/site.css
--- a/web/static/site.css
+++ b/web/static/site.css
@@ -1 +1 @@
-body { margin: 0 }
+body { margin: 0; padding: 0 }
`,
			wantFiles:  []string{"web/static/logo.png", "web/static/icon.ico", "web/static/site.css"},
			wantChunks: []events.LineRange{lr("web/static/site.css", 1, 1)},
		},
		{
			name: "a plain diff's binary file counts as touched",
			diff: "Binary files old/img.png and b/assets/img.png differ\n",
			// Not a git diff, but "b/" is the prefix of the new side.
			wantFiles: []string{"assets/img.png"},
		},
		{
			name: "a top-level folder literally named a keeps its name",
			diff: `diff --git a/a/config.yaml b/a/config.yaml
--- a/a/config.yaml
+++ b/a/config.yaml
@@ -2 +2 @@
-debug: true
+debug: false
diff --git a/b/main.go b/b/cmd.go
similarity index 100%
rename from b/main.go
rename to b/cmd.go
`,
			wantFiles:  []string{"a/config.yaml", "b/main.go", "b/cmd.go"},
			wantChunks: []events.LineRange{lr("a/config.yaml", 2, 2)},
		},
		{
			name: "several files in a format-patch mail with a signature",
			diff: `From 3f2a1b0c Mon Sep 17 00:00:00 2001
From: Dev <dev@example.com>
Subject: [PATCH] cache: evict the oldest entry

- mention of a change in the message
--- not a header, just prose
---
 pkg/cache/lru.go      | 2 +-
 pkg/cache/lru_test.go | 1 +
 2 files changed, 2 insertions(+), 1 deletion(-)

diff --git a/pkg/cache/lru.go b/pkg/cache/lru.go
--- a/pkg/cache/lru.go
+++ b/pkg/cache/lru.go
@@ -20 +20 @@ func (c *Cache) Put(k string, v any) {
-	c.evict()
+	c.evictOldest()
diff --git a/pkg/cache/lru_test.go b/pkg/cache/lru_test.go
--- a/pkg/cache/lru_test.go
+++ b/pkg/cache/lru_test.go
@@ -5,0 +6 @@ import "testing"
+// TestEvictOldest checks the eviction order.
-- 
2.43.0

`,
			wantFiles:  []string{"pkg/cache/lru.go", "pkg/cache/lru_test.go"},
			wantChunks: []events.LineRange{lr("pkg/cache/lru.go", 20, 20), lr("pkg/cache/lru_test.go", 6, 6)},
		},
		{
			name: "a plain unified diff with timestamps after a tab",
			diff: "--- src/parse.c.orig\t2024-03-01 10:00:00.000000000 +0100\n" +
				"+++ src/parse.c\t2024-03-01 10:05:00.000000000 +0100\n" +
				"@@ -7,2 +7,2 @@\n context\n-old\n+new\n",
			wantFiles:  []string{"src/parse.c"},
			wantChunks: []events.LineRange{lr("src/parse.c", 7, 8)},
		},
		{
			name: "CRLF line ends and a no-newline marker",
			diff: strings.ReplaceAll(`diff --git a/win/setup.bat b/win/setup.bat
--- a/win/setup.bat
+++ b/win/setup.bat
@@ -1,2 +1,2 @@
 @echo off
-set X=1
\ No newline at end of file
+set X=2
\ No newline at end of file
`, "\n", "\r\n"),
			wantFiles:  []string{"win/setup.bat"},
			wantChunks: []events.LineRange{lr("win/setup.bat", 1, 2)},
		},
		{
			name:       "an empty line inside a hunk is a context line whose space was stripped",
			diff:       "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a = 1\n\n-b = 2\n+b = 3\n",
			wantFiles:  []string{"x.py"},
			wantChunks: []events.LineRange{lr("x.py", 1, 3)},
		},
		{
			name: "quoted names and names with spaces",
			diff: `diff --git "a/docs/caf\303\251.md" "b/docs/caf\303\251.md"
--- "a/docs/caf\303\251.md"
+++ "b/docs/caf\303\251.md"
@@ -1 +1 @@
-x
+y
diff --git a/my docs/read me.md b/my docs/read me.md
--- a/my docs/read me.md	
+++ b/my docs/read me.md	
@@ -3 +3 @@
-x
+y
`,
			wantFiles:  []string{"docs/café.md", "my docs/read me.md"},
			wantChunks: []events.LineRange{lr("docs/café.md", 1, 1), lr("my docs/read me.md", 3, 3)},
		},
		{
			// As git 2.43 writes them for files named x"y.go, t<TAB>ab.go,
			// ctl<SOH>.go and lat<0xE9>.go (Latin-1), renamed q"1.go to q"2.go.
			name: "git-quoted names keep the quote, the tab and the bytes of their escapes",
			diff: `diff --git "a/x\"y.go" "b/x\"y.go"
index 7898192..422c2b7 100644
--- "a/x\"y.go"
+++ "b/x\"y.go"
@@ -1 +1,2 @@
 a
+b
diff --git "a/t\tab.go" "b/t\tab.go"
--- "a/t\tab.go"
+++ "b/t\tab.go"
@@ -2 +2 @@
-a
+b
diff --git "a/ctl\001.go" "b/ctl\001.go"
--- "a/ctl\001.go"
+++ "b/ctl\001.go"
@@ -3 +3 @@
-a
+b
diff --git "a/lat\351.go" "b/lat\351.go"
--- "a/lat\351.go"
+++ "b/lat\351.go"
@@ -4 +4 @@
-a
+b
diff --git "a/q\"1.go" "b/q\"2.go"
similarity index 100%
rename from "q\"1.go"
rename to "q\"2.go"
`,
			wantFiles:  []string{"x\"y.go", "t\tab.go", "ctl\x01.go", "lat\xe9.go", "q\"1.go", "q\"2.go"},
			wantChunks: []events.LineRange{lr("x\"y.go", 1, 2), lr("t\tab.go", 2, 2), lr("ctl\x01.go", 3, 3), lr("lat\xe9.go", 4, 4)},
		},
		{
			name: "extensionless files and mode-only changes keep their path",
			diff: `diff --git a/bin/run b/bin/run
old mode 100644
new mode 100755
diff --git a/scripts/bootstrap b/scripts/bootstrap
--- a/scripts/bootstrap
+++ b/scripts/bootstrap
@@ -2 +2,2 @@
 set -e
+set -u
`,
			wantFiles:  []string{"bin/run", "scripts/bootstrap"},
			wantChunks: []events.LineRange{lr("scripts/bootstrap", 2, 3)},
		},
		{
			name:       "a workspace prefix is stripped like an event path's",
			diff:       "--- /testbed/src/app.ts\n+++ /testbed/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n",
			wantFiles:  []string{"src/app.ts"},
			wantChunks: []events.LineRange{lr("src/app.ts", 1, 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDiff("fix.diff", strings.NewReader(tt.diff))
			require.NoError(t, err)
			assert.Equal(t, tt.wantFiles, got.Paths())
			assert.Equal(t, tt.wantFiles, got.EditFiles, "every touched file is an expected edit")
			assert.Equal(t, tt.wantChunks, got.Chunks)
			assert.Equal(t, "fix.diff", got.Source)
			assert.Equal(t, High, got.Confidence)
		})
	}
}

func TestParseDiffErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		diff     string
		wantLine int
		want     string
	}{
		{
			name:     "a malformed hunk header names its line and the expected form",
			diff:     "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,x +1 @@\n-a\n+b\n",
			wantLine: 4,
			want:     `malformed hunk header: expected "@@ -start[,count] +start[,count] @@" in "@@ -1,x +1 @@"`,
		},
		{
			name:     "a hunk header without the closing @@",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1 +1\n-a\n+b\n",
			wantLine: 3,
			want:     "malformed hunk header",
		},
		{
			name:     "a hunk span whose last line is past the largest int names its line",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1,1 +9223372036854775807,2 @@\n-a\n+b\n+c\n",
			wantLine: 3,
			want:     `hunk span "+9223372036854775807,2": its last line, 9223372036854775807 + 2 - 1, is past the largest line number`,
		},
		{
			name:     "an old span whose last line is past the largest int names its line",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -9223372036854775800,9 +1,1 @@\n-a\n+b\n",
			wantLine: 3,
			want:     `hunk span "-9223372036854775800,9"`,
		},
		{
			name:     "a hunk start that an int cannot hold names its line",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1 +99999999999999999999 @@\n-a\n+b\n",
			wantLine: 3,
			want:     "99999999999999999999 is larger than the largest line number",
		},
		{
			name:     "a negative hunk count is malformed",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1 +1,-2 @@\n-a\n+b\n",
			wantLine: 3,
			want:     "malformed hunk header",
		},
		{
			name:     "a hunk span with lines starting at line 0",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -0,1 +0,1 @@\n-a\n+b\n",
			wantLine: 3,
			want:     "expected start >= 1",
		},
		{
			name:     "a hunk cut short by the end of input",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n a\n-b\n",
			wantLine: 5,
			want:     "input ends inside the hunk at line 3: expected 1 more old and 2 more new lines",
		},
		{
			name:     "a foreign line inside a hunk",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n a\n*b\n",
			wantLine: 5,
			want:     `"*b" inside the hunk at line 3: expected a line starting with ' ', '-', '+' or '\'`,
		},
		{
			name:     "a foreign line is quoted up to 64 bytes, escaped, never whole",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n a\nAWS_SECRET_ACCESS_KEY=abcdefghij\x00HOME=/root\x00TOKEN=" + strings.Repeat("s", 40) + "TAIL\n",
			wantLine: 5,
			want:     `"AWS_SECRET_ACCESS_KEY=abcdefghij\x00HOME=/root\x00TOKEN=ssssssssssssss"… inside the hunk at line 3`,
		},
		{
			name:     "a hunk with more lines than its header declares",
			diff:     "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n+c\n",
			wantLine: 6,
			want:     `"+c" follows the hunk at line 3, which its header declares complete`,
		},
		{
			name:     "a hunk before any file header",
			diff:     "@@ -1 +1 @@\n-a\n+b\n",
			wantLine: 1,
			want:     "before any file header",
		},
		{
			name:     "an old-file header without the new one in a git section",
			diff:     "diff --git a/x.go b/x.go\n--- a/x.go\n@@ -1 +1 @@\n",
			wantLine: 2,
			want:     `is not followed by a "+++ " line`,
		},
		{
			name:     "a combined diff",
			diff:     "diff --cc x.go\n--- a/x.go\n+++ b/x.go\n@@@ -1,1 -1,1 +1,1 @@@\n",
			wantLine: 4,
			want:     "combined-diff hunk",
		},
		{
			name:     "lines added to /dev/null",
			diff:     "--- a/x.go\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n",
			wantLine: 3,
			want:     "adds lines to /dev/null",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseDiff("fix.diff", strings.NewReader(tt.diff))
			require.Error(t, err)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "fix.diff", pe.File)
			assert.Equal(t, tt.wantLine, pe.Line, err.Error())
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseDiffWithoutChanges(t *testing.T) {
	t.Parallel()
	for name, input := range map[string]string{
		"empty input is not a diff": "",
		"prose is not a diff":       "Fix the bug.\n--- a note\n- item\n+ item\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseDiff("x.diff", strings.NewReader(input))
			require.Error(t, err)
			assert.True(t, errors.Is(err, errNoChanges), err.Error())
			assert.Contains(t, err.Error(), "x.diff: no file changes found")
		})
	}
}

// A reader that fails part way must not be mistaken for the end of the
// diff.
func TestParseDiffReportsReadErrors(t *testing.T) {
	t.Parallel()
	r := io.MultiReader(strings.NewReader("--- a/x.go\n+++ b/x.go\n"), iotest.ErrReader(errors.New("disk gone")))
	_, err := ParseDiff("x.diff", r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk gone")
}

// A file whose name holds a double quote is the same file in a diff, where
// git quotes and escapes the name, and in an agent's read of it, where the
// tool argument gives it as it is.
func TestAFileGitQuotesIsTheFileAnAgentReads(t *testing.T) {
	t.Parallel()
	diff := "diff --git \"a/pkg/x\\\"y.go\" \"b/pkg/x\\\"y.go\"\n--- \"a/pkg/x\\\"y.go\"\n+++ \"b/pkg/x\\\"y.go\"\n@@ -1 +1,2 @@\n a\n+b\n"
	truth, err := ParseDiff("fix.diff", strings.NewReader(diff))
	require.NoError(t, err)
	read, ok := events.PathNormalizer{}.File(`/testbed/pkg/x"y.go`, events.FromArgument)
	require.True(t, ok)
	assert.Equal(t, []string{read}, truth.Paths())
}
