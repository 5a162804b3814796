package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

func TestEventsShowsTheFirstWarningsAndSummarisesTheRest(t *testing.T) {
	t.Parallel()
	const bad = 5000
	var b strings.Builder
	b.WriteString(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	b.WriteString(strings.Repeat("not json\n", bad))
	file := filepath.Join(t.TempDir(), "broken.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))

	code, out, stderr := runCLI(t, nil, "events", file)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, trace.MaxWarnings+1)
	assert.Contains(t, lines[0], file+":2: invalid JSON")
	assert.Equal(t, fmt.Sprintf("warning: %s: and 4,980 more warnings, not kept", file), lines[trace.MaxWarnings])

	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	w := docs[0].Coverage.Warnings
	require.Len(t, w, trace.MaxWarnings+1)
	assert.Equal(t, file+": and 4,980 more warnings, not kept", w[trace.MaxWarnings])
	require.NotNil(t, docs[0].Coverage.DegradedReason)
	assert.Contains(t, *docs[0].Coverage.DegradedReason, "5000 warning(s)")
}
