package main

import (
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

const (
	viewTrace = "../../report/htmlreport/testdata/session-expiry.toolcalls.json"
	viewGT    = "../../report/htmlreport/testdata/session-expiry.groundtruth.json"
)

// marks counts the call marks of the timelines of a page.
func marks(page string) int { return strings.Count(page, `<rect class="call `) }

func TestViewWritesThePageAndPrintsItsPath(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "view.html")
	code, stdout, stderr := runCLI(t, nil, "view", "-gt", viewGT, "-o", out, viewTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, out+"\n", stdout)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 18, marks(string(page)), "one mark per call")
	assert.Contains(t, string(page), "ground-truth hit", "the ground truth given with -gt marks the hits")
}

func TestViewWithoutOutputWritesANewTemporaryFile(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, nil, "view", viewTrace)
	require.Equal(t, exitOK, code, stderr)
	path := strings.TrimSpace(stdout)
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(path)) })
	assert.True(t, strings.HasPrefix(path, os.TempDir()), "%s is in the temporary folder", path)
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 18, marks(string(page)))
	assert.NotContains(t, string(page), "ground-truth hit", "no ground truth, no ground-truth row")
}

func TestViewBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no trace is a usage error", []string{"view"}, "no trace given"},
		{"a missing trace is named", []string{"view", "-o", filepath.Join(t.TempDir(), "x.html"), "testdata/no-such.jsonl"}, "no-such.jsonl"},
		{"a missing ground truth is named", []string{"view", "-gt", "no-such-gt.json", viewTrace}, "no-such-gt.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestCheckHTMLIsWrittenEvenWhenAnExpectationFails(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "check.html")
	code, _, stderr := runCLI(t, nil, "check", "-html", out, "../../report/htmlreport/testdata/session-expiry.yaml")
	require.Equal(t, exitFailed, code, stderr)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<span class="badge">FAIL</span> session-expiry`, "the verdict heads the scenario")
	assert.Equal(t, 18, marks(string(page)))
	// check keeps the calls' results for the page only; without -html a
	// run holds none.
	assert.True(t, strings.Contains(callData(t, string(page)), "var ErrSessionExpired"), "a call's result is shown")
}

// callData is the text of the calls a page carries for its script:
// each data block, base64 of gzip-compressed JSON, decoded.
func callData(t *testing.T, page string) string {
	t.Helper()
	var all strings.Builder
	for _, part := range strings.Split(page, `<script type="application/gzip"`)[1:] {
		_, block, _ := strings.Cut(part, ">")
		block, _, _ = strings.Cut(block, "<")
		zr, err := gzip.NewReader(base64.NewDecoder(base64.RawURLEncoding, strings.NewReader(block)))
		require.NoError(t, err)
		text, err := io.ReadAll(zr)
		require.NoError(t, err)
		all.Write(text)
	}
	return all.String()
}

func TestRunDirAndReportWriteHTML(t *testing.T) {
	t.Parallel()
	out, _ := runMini(t)
	page, err := os.ReadFile(filepath.Join(out, htmlreport.RunReportFile))
	require.NoError(t, err, "run-dir writes report.html beside the summary")
	for _, want := range []string{"Configuration " + baseCfg, "Paired comparison", `<polyline class="series s0"`, `<polyline class="series s1"`} {
		assert.Contains(t, string(page), want)
	}

	again := filepath.Join(t.TempDir(), "report.html")
	code, _, stderr := runCLI(t, nil, "report", "-html", again, out)
	require.Equal(t, exitOK, code, stderr)
	page2, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, string(page), string(page2), "report -html on the summary writes the page run-dir wrote")
}
