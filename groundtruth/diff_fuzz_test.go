package groundtruth

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzParseDiff checks that ParseDiff never panics, that it fails only
// with a *ParseError naming the file, and that what it accepts holds: a
// chunk is a non-empty range of lines 1 or later, on a file of the truth.
func FuzzParseDiff(f *testing.F) {
	for _, seed := range []string{
		"diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n",
		"--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
		"diff --git a/old.go b/new.go\nsimilarity index 90%\nrename from old.go\nrename to new.go\n",
		"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		"--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		"diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n",
		"diff --git \"a/my docs/caf\\303\\251.md\" \"b/my docs/caf\\303\\251.md\"\n--- \"a/my docs/caf\\303\\251.md\"\n+++ \"b/my docs/caf\\303\\251.md\"\n@@ -3 +3 @@\n-x\n+y\n",
		"--- a/x.go\n+++ b/x.go\n@@ -1,1 +9223372036854775807,2 @@\n-a\n+b\n+c\n",
		"--- a/x.go\n+++ b/x.go\n@@ -9223372036854775807 +9223372036854775807 @@\n-a\n+b\n",
		"--- a/x.go\r\n+++ b/x.go\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		got, err := ParseDiff("fuzz.diff", strings.NewReader(diff))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !errors.Is(err, errNoChanges) {
				t.Fatalf("error %v (%T) is not a ParseError", err, err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.diff") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		files := make([]string, 0, len(got.Files))
		for _, f := range got.Files {
			if f.Path == "" {
				t.Fatalf("empty path in %+v", got.Files)
			}
			files = append(files, f.Path)
		}
		for _, c := range got.Chunks {
			if c.Start < 1 || c.End < c.Start {
				t.Fatalf("chunk %+v is not a range of lines 1 or later", c)
			}
			if !slices.Contains(files, c.Path) {
				t.Fatalf("chunk %+v on a file not among %q", c, files)
			}
		}
	})
}
