package groundtruth_test

import (
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/groundtruth"
)

// ParseDiff takes the files and line ranges of a reference fix: every
// touched file is relevant and expected to be edited, and each hunk gives
// the new lines a reader of the fixed code should look at.
func ExampleParseDiff() {
	const fix = `diff --git a/pkg/auth/token.go b/pkg/auth/token.go
--- a/pkg/auth/token.go
+++ b/pkg/auth/token.go
@@ -41,3 +41,4 @@ func ValidateToken(tok *Token) error {
 	if tok == nil {
 		return ErrInvalid
 	}
+	if tok.Expired() { return ErrExpired }
diff --git a/pkg/auth/old.go b/pkg/auth/old.go
deleted file mode 100644
--- a/pkg/auth/old.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package auth
-// old
`
	truth, err := groundtruth.ParseDiff("fix.patch", strings.NewReader(fix))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("files:", truth.Paths())
	fmt.Println("edits:", truth.EditFiles)
	for _, c := range truth.Chunks {
		fmt.Printf("chunk: %s:%d-%d\n", c.Path, c.Start, c.End)
	}
	fmt.Println("confidence:", truth.Confidence)
	// Output:
	// files: [pkg/auth/token.go pkg/auth/old.go]
	// edits: [pkg/auth/token.go pkg/auth/old.go]
	// chunk: pkg/auth/token.go:41-44
	// chunk: pkg/auth/old.go:1-2
	// confidence: high
}

// Parse reads the ground-truth file format: a list of paths, or a mapping
// with graded files, symbols, expected edit files and line ranges. A
// problem is an error at its line and column.
func ExampleParse() {
	truth, err := groundtruth.Parse("fix-token-expiry.groundtruth.yaml", []byte(`
files:
  - {path: pkg/auth/token.go, grade: 2}
  - pkg/auth/errors.go
expected_edit_files: [pkg/auth/token.go]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range truth.Files {
		fmt.Println(f.Path, "grade", f.Grade)
	}
	fmt.Println("edits:", truth.EditFiles)

	_, err = groundtruth.Parse("bad.yaml", []byte("files:\n  - {path: pkg/a.go, grade: -1}\n"))
	fmt.Println(err)
	// Output:
	// pkg/auth/token.go grade 2
	// pkg/auth/errors.go grade 1
	// edits: [pkg/auth/token.go]
	// bad.yaml:2:5: grade -1: expected an integer >= 0
}
