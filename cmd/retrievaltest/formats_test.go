package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/trace"
)

func TestFormatsListsEveryRegisteredFormat(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "formats")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	infos := trace.DefaultRegistry().Infos()
	require.Len(t, lines, 2+len(infos), "a header, its rule and one row per format:\n%s", out)
	assert.Regexp(t, `^\| Format +\| Folder +\| Sessions +\| Example +\| Written by +\| Detected by +\|$`, lines[0])
	for i, f := range infos {
		row := lines[2+i]
		assert.True(t, strings.HasPrefix(row, "| `"+f.Name+"` "), "row %d is %s, in registration order: %q", i+1, f.Name, row)
		assert.Contains(t, row, "`"+f.Example+"`", f.Name)
		assert.Contains(t, row, report.Escape(f.Writer), f.Name)
	}

	code, out, stderr = runCLI(t, nil, "formats", "-json")
	require.Equal(t, exitOK, code, stderr)
	var got []trace.FormatInfo
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, infos, got)
}

func TestFormatsBadInput(t *testing.T) {
	t.Parallel()
	_, out, _ := runCLI(t, nil, "help")
	assert.Regexp(t, `(?m)^  formats +list the trace formats`, out, "the command list names it")
	code, _, stderr := runCLI(t, nil, "formats", "extra")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `unexpected argument "extra"`)
	code, _, stderr = runCLI(t, nil, "formats", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "Usage: retrievaltest formats")
}
