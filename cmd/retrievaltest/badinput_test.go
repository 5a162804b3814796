package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checkBadInput = "../../testdata/check/badinput"

// One scenario that cannot be checked does not erase the report: every
// scenario that loads is evaluated and reported, each that does not is a
// row with its file:line:col, and the exit status says bad input.
func TestCheckReportsEveryScenarioWhenSomeCannotBeChecked(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_ACTIONS", "")
	code, out, stderr := runCLI(t, nil, "check", checkBadInput)
	require.Equal(t, exitBadInput, code, "bad input outranks a failed expectation:\n%s", stderr)

	assert.Contains(t, out, "**FAIL:** 1 of 5 scenarios passed; 3 could not be checked (bad input); 1 failed.")
	rows := tableRows(out, "## Failures")
	require.Len(t, rows, 4, out)
	assert.Contains(t, rows[0], "| input: the scenario file does not load | n/a | n/a | **ERROR** | ../../testdata/check/badinput/missing-truth.yaml:4:22: ground_truth.from:")
	assert.Contains(t, rows[1], "badinput/typo.yaml:6:5: unknown key \"min_aura_tool_raito\" in index_usage; did you mean min_aura_tool_ratio?; ../../testdata/check/badinput/typo.yaml:8:5: unknown metric \"recal@5\"", "every problem of the file")
	assert.Contains(t, rows[2], "| unreadable-trace | input: a trace cannot be read |")
	assert.Contains(t, rows[2], "badinput/unreadable-trace.yaml:4:8: trace ../../testdata/check/badinput/not-a-trace.json: not a known trace format")
	assert.Equal(t, 1, strings.Count(rows[2], "not-a-trace.json"), "the trace is named once: %s", rows[2])
	assert.Contains(t, rows[2], "(format: tool-calls)", "the suggestion names the scenario key, not a flag check lacks")
	assert.NotContains(t, rows[2], "-format")
	assert.Contains(t, rows[3], "| failing | index_usage | semantic ratio = 0.33 | ≥ 0.60 | **FAIL** |")
	assert.Contains(t, out, "| passing | index_usage | semantic ratio = 0.33 | ≥ 0.30 | pass |")

	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(data), "3 could not be checked (bad input)", "the step summary is written too")
	assert.Contains(t, stderr, "check [3/3] ", "the count is of the scenarios evaluated")

	code, junitOut, _ := runCLI(t, nil, "check", "-format", "junit", checkBadInput)
	assert.Equal(t, exitBadInput, code)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	require.NoError(t, xml.Unmarshal([]byte(junitOut), &suites))
	assert.Equal(t, 5, suites.Tests)
	assert.Equal(t, 1, suites.Failures)
	assert.Equal(t, 3, suites.Errors)
	assert.Contains(t, junitOut, `<error message="a trace cannot be read" type="input">`)

	code, jsonOut, _ := runCLI(t, nil, "check", "-format", "json", checkBadInput)
	assert.Equal(t, exitBadInput, code)
	var doc struct {
		Passed    bool `json:"passed"`
		Scenarios []struct {
			Name string `json:"name"`
		} `json:"scenarios"`
		Errors []struct {
			File     string `json:"file"`
			Scenario string `json:"scenario"`
			Problems []struct{ Pos, Message string }
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &doc))
	assert.False(t, doc.Passed)
	assert.Len(t, doc.Scenarios, 2)
	require.Len(t, doc.Errors, 3)
	require.Len(t, doc.Errors[1].Problems, 2, "typo.yaml has two problems")
	assert.Equal(t, "../../testdata/check/badinput/typo.yaml:8:5", doc.Errors[1].Problems[1].Pos)
	assert.Equal(t, "unreadable-trace", doc.Errors[2].Scenario)
}

// tableRows returns the rows of the first table after heading.
func tableRows(md, heading string) []string {
	_, after, ok := strings.Cut(md, heading+"\n")
	if !ok {
		return nil
	}
	var rows []string
	for i, line := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i >= 2 { // the header and its separator
			rows = append(rows, line)
		}
	}
	return rows
}

func TestCheckOnlyFailuresLeavesPassingScenariosOut(t *testing.T) {
	t.Parallel()
	_, all, _ := runCLI(t, nil, "check", checkMixed)
	assert.Contains(t, all, "| good | index_usage: At least a third of discovery through the index |", "collapsed, but there")
	assert.Contains(t, all, "<details>")
	code, only, stderr := runCLI(t, nil, "check", "-only-failures", checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.NotContains(t, only, "| good ")
	assert.Contains(t, only, "| bad | index_usage: Agent should use semantic tools for discovery |")
	assert.Contains(t, only, "1 passing scenario(s) left out (-only-failures).")
}

func TestCheckFormatGitHubWritesAnAnnotationPerFailure(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", "-format", "github", checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.Equal(t, "::error file=../../testdata/check/mixed/bad.yaml,line=6,col=5,title=bad%3A index_usage%3A Agent should use semantic tools for discovery::"+
		"semantic ratio measured 0.33, required ≥ 0.60 (1 semantic of 3 semantic + file-level calls)\n", out)
}

// Under GitHub Actions the annotations go to standard error besides the
// report, unless -annotations=false.
func TestCheckAnnotatesUnderGitHubActions(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	t.Setenv("GITHUB_ACTIONS", "true")
	_, out, stderr := runCLI(t, nil, "check", checkMixed)
	assert.Contains(t, out, "# Retrieval check", "the report is still written")
	assert.Contains(t, stderr, "::error file=../../testdata/check/mixed/bad.yaml,line=6,col=5,")
	_, _, stderr = runCLI(t, nil, "check", "-annotations=false", checkMixed)
	assert.NotContains(t, stderr, "::error")
	t.Setenv("GITHUB_ACTIONS", "")
	_, _, stderr = runCLI(t, nil, "check", checkMixed)
	assert.NotContains(t, stderr, "::error", "off outside GitHub Actions")
	_, _, stderr = runCLI(t, nil, "check", "-annotations", checkMixed)
	assert.Contains(t, stderr, "::error")
}

// -write-baseline is the flag report has; -update-baseline stays as its
// deprecated spelling.
func TestCheckWriteBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	written := filepath.Join(dir, "written.json")
	code, _, stderr := runCLI(t, nil, "check", "-write-baseline", written, "-run", "^good$", checkMixed)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, written)
	updated := filepath.Join(dir, "updated.json")
	code, _, stderr = runCLI(t, nil, "check", "-baseline", updated, "-update-baseline", "-run", "^good$", checkMixed)
	require.Equal(t, exitOK, code, stderr)
	a, err := os.ReadFile(written)
	require.NoError(t, err)
	b, err := os.ReadFile(updated)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	code, out, _ := runCLI(t, nil, "check", "-baseline", written, "-run", "^good$", checkMixed)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "**PASS:** 1 of 1 scenarios passed; no figure regressed past the allowed change.")
}
