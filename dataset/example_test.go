package dataset_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agentretrieval/agentretrieval/dataset"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Build ranks the diff's files and hunks first, then what each tool call
// named, from its arguments and then its result.
func ExampleBuild() {
	diff := `diff --git a/pkg/auth/token.go b/pkg/auth/token.go
--- a/pkg/auth/token.go
+++ b/pkg/auth/token.go
@@ -12,1 +12,1 @@
-	return now.After(t.ExpiresAt)
+	return !now.Before(t.ExpiresAt)
`
	golden, err := groundtruth.ParseDiff("change.diff", strings.NewReader(diff))
	if err != nil {
		panic(err)
	}
	session, err := trace.Read(strings.NewReader(`{"toolCalls": [
		{"tool": "Grep", "arguments": {"pattern": "ExpiresAt"}, "result": "pkg/auth/claims.go:21:\tExpiresAt time.Time"},
		{"tool": "Read", "arguments": {"file_path": "pkg/auth/token.go", "offset": 1, "limit": 40}}
	]}`), trace.Options{Source: "run.json"})
	if err != nil {
		panic(err)
	}
	c := dataset.Build(golden, session, dataset.Options{})
	c.ID, c.Query = "fix-expiry", "Tokens stay valid one tick too long"
	a, b := c.Rows(0)
	enc := json.NewEncoder(os.Stdout)
	for _, f := range a.FilePaths {
		enc.Encode(f)
	}
	for _, r := range b.LineRanges {
		enc.Encode(r)
	}
	fmt.Println("needsBaseCommit:", b.NeedsBaseCommit)
	// Output:
	// {"path":"pkg/auth/token.go","sources":["review_merge_diff","tool_call_args"]}
	// {"path":"pkg/auth/claims.go","sources":["tool_call_result"]}
	// {"path":"pkg/auth/token.go","startLine":12,"endLine":12,"sources":["golden_diff"]}
	// {"path":"pkg/auth/claims.go","startLine":21,"endLine":21,"sources":["tool_call_result"]}
	// {"path":"pkg/auth/token.go","startLine":1,"endLine":40,"sources":["tool_call_args"]}
	// needsBaseCommit: true
}
