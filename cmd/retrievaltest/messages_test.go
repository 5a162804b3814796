package main

import (
	"encoding/xml"
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

// hostile holds the characters a name from an input file must not pass to
// a terminal: an OSC title sequence (ESC ] … BEL), a carriage return and a
// C1 control (CSI as one character).
const (
	hostile        = "evil\x1b]0;pwned\a\r\u009b"
	hostileEscaped = `evil\u001b]0;pwned\a\r\u009b`
)

// assertNoControls fails when text holds a control character other than a
// newline or a tab.
func assertNoControls(t *testing.T, what, text string) {
	t.Helper()
	for _, r := range text {
		if r != '\n' && r != '\t' && (r < 0x20 || 0x7f <= r && r <= 0x9f) {
			assert.Failf(t, "a control character got through", "%s holds %U:\n%q", what, r, text)
			return
		}
	}
}

func TestCheckEscapesAHostileScenarioName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace, err := filepath.Abs(exampleTrace)
	require.NoError(t, err)
	gt, err := filepath.Abs(exampleGT)
	require.NoError(t, err)
	scenario := fmt.Sprintf(`name: "evil\e]0;pwned\a\r\x9b"
trace: %s
ground_truth: {from: %s}
expectations:
  - type: index_usage
    min_aura_tool_ratio: 0.6
`, trace, gt)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.yaml"), []byte(scenario), 0o644))

	for _, format := range []string{"md", "junit"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runCLI(t, nil, "check", "-format", format, dir)
			require.Equal(t, exitFailed, code, stderr)
			assertNoControls(t, "standard error", stderr)
			assert.Contains(t, stderr, "FAIL: "+hostileEscaped)
			assert.Contains(t, stderr, "check [1/1] "+hostileEscaped)
			assertNoControls(t, "the "+format+" report", out)
			if format == "junit" {
				var suites struct {
					Suites []struct {
						Name string `xml:"name,attr"`
					} `xml:"testsuite"`
				}
				require.NoError(t, xml.Unmarshal([]byte(out), &suites), out)
				require.Len(t, suites.Suites, 1)
				assert.Equal(t, hostileEscaped, suites.Suites[0].Name)
			} else {
				assert.Contains(t, out, `evil\\u001b\]0;pwned\\a<br>\\u009b`)
			}
		})
	}
}

func TestEventsEscapesHostileFileAndToolNames(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), hostile+".jsonl")
	lines := `{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read\u001b]0;x\u0007\r\u009b","input":{"file_path":"a.go","offset":1e400}}]}}
not json
`
	require.NoError(t, os.WriteFile(file, []byte(lines), 0o644))

	code, out, stderr := runCLI(t, nil, "events", file)
	require.Equal(t, exitOK, code, stderr)
	assertNoControls(t, "standard error", stderr)
	assert.Contains(t, stderr, hostileEscaped+".jsonl:2: invalid JSON")
	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	assert.Contains(t, docs[0].Coverage.Warnings, filepath.Dir(file)+"/"+hostileEscaped+`.jsonl: step 1 (Read\u001b]0;x\a\r\u009b): arguments: offset: 1e400 is out of range for a number`)
}
