package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// TestAResultCutAtResultBytesReadExtractsTheSame: a reader that keeps
// ResultBytesRead of each result (trace.Options.MaxResultBytes) loses
// nothing extraction would have used, and adds nothing: the line the cut
// falls in is still known to be cut.
func TestAResultCutAtResultBytesReadExtractsTheSame(t *testing.T) {
	t.Parallel()
	// Grep lines of 64 KiB; the scan's cut falls 40 bytes into one, after
	// its "path:line:" prefix.
	const content = 64 << 10
	lineLen := len("pkg/f000000.go:1:") + content + 1
	var b strings.Builder
	pad := (ResultBytesRead-1-40)%lineLen + lineLen
	b.WriteString(strings.Repeat("#", pad-1) + "\n")
	for i := 0; b.Len() < ResultBytesRead+2*lineLen; i++ {
		fmt.Fprintf(&b, "pkg/f%06d.go:1:%s\n", i, strings.Repeat("x", content))
	}
	full := b.String()
	call := func(result string) *trace.ToolCall {
		return &trace.ToolCall{Name: "Grep", Arguments: json.RawMessage(`{"pattern": "x"}`), Result: result, HasResult: true}
	}
	want := Extract(call(full), ruleGrep, PathNormalizer{})
	got := Extract(call(full[:ResultBytesRead]), ruleGrep, PathNormalizer{})
	require.NotEmpty(t, want.Files)
	assert.Equal(t, want, got)
}
