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

	"github.com/agentretrieval/agentretrieval/report"
)

const (
	checkMixed  = "../../testdata/check/mixed"
	checkBroken = "../../testdata/check/broken"
)

func TestCheckPassesOnTheBundledScenarios(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", "../../scenarios")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "# Retrieval check")
	assert.Contains(t, out, "**Aggregate:**")
	assert.NotContains(t, out, "**FAIL**")
}

func TestCheckFailsAndShowsTheFailingRow(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.True(t, strings.HasPrefix(out, "# Retrieval check\n\n**FAIL:** 1 of 2 scenarios passed; 1 failed.\n\n## Failures\n"), "the verdict, then the failures:\n%s", out)
	var failing []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "**FAIL**") {
			failing = append(failing, line)
		}
	}
	require.Len(t, failing, 2, "the expectation row, first, and the index table row:\n%s", out)
	assert.Contains(t, failing[0], "| bad | index_usage: Agent should use semantic tools for discovery | semantic ratio = 0.33 | ≥ 0.60 | **FAIL** |")
	assert.Regexp(t, `^\| bad \| 33\.3%`, failing[1])
	assert.Contains(t, stderr, "FAIL: bad")
	assert.Contains(t, stderr, "check [2/2]")
}

func TestCheckBadInputIsExitTwo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a misspelled key names file:line:col and the right key", []string{"check", checkBroken}, `typo.yaml:5:5: `},
		{"a missing path", []string{"check", "no/such/folder"}, "no/such/folder"},
		{"an unknown format", []string{"check", "-format", "xml", checkMixed}, `invalid value "xml" for flag -format: "xml": expected one of md, json, junit, github, html, or FORMAT=FILE`},
		{"an update without a baseline file", []string{"check", "-update-baseline", checkMixed}, "-update-baseline needs -baseline"},
		{"an unknown metric column", []string{"check", "-metrics", "recal@5", checkMixed}, `unknown metric "recal@5"; did you mean recall@5?`},
		{"a bad -run expression", []string{"check", "-run", "(", checkMixed}, "-run:"},
		{"a -run matching nothing", []string{"check", "-run", "^nothing$", checkMixed}, "no scenario to run"},
		{"a missing baseline file", []string{"check", "-baseline", "no-such-baseline.json", checkMixed}, "no-such-baseline.json"},
		{"no path", []string{"check"}, "no scenario file or folder given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
	_, _, stderr := runCLI(t, nil, "check", checkBroken)
	assert.Contains(t, stderr, "min_aura_tool_ratio", "the typo's fix is suggested")
}

func TestCheckRunSelectsScenarios(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", "-run", "^good$", checkMixed)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "1 of 1 scenarios passed.")
	assert.NotContains(t, out, "| bad")
}

func TestCheckFormats(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "check", "-format", "json", checkMixed)
	require.Equal(t, exitFailed, code)
	var doc struct {
		Passed    bool `json:"passed"`
		Scenarios []struct {
			Name    string `json:"name"`
			Results []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
			} `json:"results"`
		} `json:"scenarios"`
		Figures map[string]map[string]float64 `json:"figures"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.False(t, doc.Passed)
	require.Len(t, doc.Scenarios, 2)
	assert.Equal(t, "bad", doc.Scenarios[0].Name)
	assert.Equal(t, "fail", doc.Scenarios[0].Results[0].Status)
	assert.InDelta(t, 1.0/3.0, doc.Figures["bad"]["semantic_ratio"], 1e-12)

	code, out, _ = runCLI(t, nil, "check", "-format", "junit", checkMixed)
	require.Equal(t, exitFailed, code)
	var suites struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &suites), out)
	require.Len(t, suites.Suites, 2)
	assert.Equal(t, "bad", suites.Suites[0].Name)
	assert.Equal(t, 1, suites.Suites[0].Failures)
	assert.Equal(t, 0, suites.Suites[1].Failures)
}

func TestCheckWritesTheReportToAFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "report.md")
	code, out, _ := runCLI(t, nil, "check", "-o", file, checkMixed)
	assert.Equal(t, exitFailed, code)
	assert.Empty(t, out)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), "**FAIL**")
}

func TestCheckIsDeterministicAcrossParallelism(t *testing.T) {
	t.Parallel()
	_, one, _ := runCLI(t, nil, "check", "-j", "1", "../../scenarios", checkMixed)
	_, four, _ := runCLI(t, nil, "check", "-j", "4", "../../scenarios", checkMixed)
	assert.Equal(t, one, four)
}

func TestCheckAppendsToTheGitHubStepSummary(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	code, _, _ := runCLI(t, nil, "check", "-format", "junit", checkMixed)
	assert.Equal(t, exitFailed, code)
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "earlier step\n# Retrieval check"), "appended, in markdown whatever -format says:\n%s", data)
}

func TestCheckBaselines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.json")

	code, _, stderr := runCLI(t, nil, "check", "-baseline", base, "-update-baseline", "-run", "^good$", checkMixed)
	require.Equal(t, exitOK, code, stderr)
	b, err := report.ReadBaseline(base)
	require.NoError(t, err)
	ratio, ok := b.Get("good", "semantic_ratio")
	require.True(t, ok)
	assert.InDelta(t, 1.0/3.0, ratio, 1e-12)

	// The same run against its own baseline: no regression.
	code, out, _ := runCLI(t, nil, "check", "-baseline", base, "-run", "^good$", checkMixed)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "## Regressions")

	// A baseline that was better: the ratio fell by 0.17 and recall@1 by 0.5.
	b.Set("good", "semantic_ratio", 0.5)
	b.Set("good", "recall@1", 1)
	require.NoError(t, report.WriteBaseline(base, b))
	code, out, stderr = runCLI(t, nil, "check", "-baseline", base, "-run", "^good$", checkMixed)
	assert.Equal(t, exitFailed, code, "a regression fails the gate")
	assert.Contains(t, stderr, "2 figure(s) regressed past the allowed change")
	assert.Contains(t, out, "**FAIL:** 1 of 1 scenarios passed, but 2 figure(s) regressed past the allowed change: good recall@1, good semantic_ratio", "the verdict comes first")
	assert.Contains(t, out, "good semantic_ratio: 50.0% → 33.3% (-16.7 pp, allowed 5.0 pp; higher is better)", "the same unit as the table")
	assert.Contains(t, out, "33.3% **(-16.7 pp) ▼**")

	// Within the allowed delta, the regression passes: by kind, by name,
	// and as the old single number.
	for _, allowed := range []string{"ratio=0.6", "ratio=0.2,recall@1=0.5", "0.6"} {
		code, _, stderr = runCLI(t, nil, "check", "-baseline", base, "-max-regression", allowed, "-run", "^good$", checkMixed)
		assert.Equal(t, exitOK, code, "%s: %s", allowed, stderr)
	}
	// A tolerance by name wins over its kind.
	code, out, _ = runCLI(t, nil, "check", "-baseline", base, "-max-regression", "ratio=0.6,recall@1=0.1", "-run", "^good$", checkMixed)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "good recall@1: 1.00 → 0.50 (-0.50, allowed 0.1; higher is better)")
	// A single number of 1 or more would switch ratio checks off.
	code, _, stderr = runCLI(t, nil, "check", "-baseline", base, "-max-regression", "1", checkMixed)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "give it by kind, such as steps=1,ratio=0.05")
	code, _, stderr = runCLI(t, nil, "check", "-baseline", base, "-max-regression", "recal@1=0.1", checkMixed)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "did you mean recall@1?")
}

// The index-effectiveness plan's report table, reproduced from the two
// calibration scenarios:
//
//	| add-service | 72% | 2 | direct  |
//	| fix-bug     | 45% | 6 | fishing |
//	**Aggregate:** 58.5% Aura tool usage (target: 60%)
func TestCheckReproducesThePlansReportTable(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", "-target", "0.6", "-run", "^(add-service|fix-discount-rounding)$", "../../scenarios")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `\| add-service +\| 72\.0% +\| 2 +\| direct +\| pass +\|`, out)
	// The last column is the scenario's overall result: its patterns
	// expectation is a known, flaky failure.
	assert.Regexp(t, `\| fix-discount-rounding +\| 45\.0% +\| 6 +\| fishing +\| flaky +\|`, out)
	assert.Contains(t, out, "| Scenario result |")
	assert.Contains(t, out, "**Aggregate:** 58.5% semantic tool usage (target: 60%)")
}

func TestCheckOnAFolderSkipsYAMLFilesThatAreNotScenariosSayingSoOnce(t *testing.T) {
	t.Parallel()
	const dir = "../../testdata/check/beside-other-yaml"
	code, out, stderr := runCLI(t, nil, "check", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "1 of 1 scenarios passed")
	const skipped = "retrievaltest check: skipped 2 files that are not scenarios (no trace, expectations or other key only a scenario has): " +
		dir + "/docker-compose.yaml, " + dir + "/my-index.taxonomy.yaml\n"
	assert.Equal(t, 1, strings.Count(stderr, "skipped"), stderr)
	assert.Contains(t, stderr, skipped)

	code, _, stderr = runCLI(t, nil, "check", dir+"/my-index.taxonomy.yaml")
	assert.Equal(t, exitBadInput, code, "a file named directly is a scenario: %s", stderr)
	assert.Contains(t, stderr, `unknown key "tools"`)

	code, _, stderr = runCLI(t, nil, "check", dir+"/good.yaml")
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "skipped")
}

func TestCheckCwdMakesAbsoluteTracePathsMatchTheGroundTruth(t *testing.T) {
	t.Parallel()
	const dir = "../../testdata/check/cwd"
	code, out, stderr := runCLI(t, nil, "check", dir)
	require.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, out, "did you mean cwd: /root?")

	code, _, stderr = runCLI(t, nil, "check", "-cwd", "/root", dir)
	assert.Equal(t, exitOK, code, stderr)

	code, _, stderr = runCLI(t, nil, "check", "-cwd", "/srv", dir)
	assert.Equal(t, exitFailed, code, "another folder is no match: %s", stderr)
}

func TestCheckWritesSeveralReportsInOneRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	code, out, stderr := runCLI(t, nil, "check", "-o", at("report.md"), "-junit", at("junit.xml"), "-json", at("report.json"),
		"-html", at("report.html"), "-format", "md="+at("copy.md"), "-format", "github="+at("annotations.txt"), checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.Empty(t, out, "every report went to a file")

	md, err := os.ReadFile(at("report.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(md), "# Retrieval check\n\n**FAIL:** 1 of 2 scenarios passed"))
	copyMD, err := os.ReadFile(at("copy.md"))
	require.NoError(t, err)
	assert.Equal(t, string(md), string(copyMD))

	var suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Failures int      `xml:"failures,attr"`
	}
	data, err := os.ReadFile(at("junit.xml"))
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(data, &suites))
	assert.Equal(t, 1, suites.Failures)

	var doc map[string]any
	data, err = os.ReadFile(at("report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Contains(t, doc, "scenarios")

	html, err := os.ReadFile(at("report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<html")
	ann, err := os.ReadFile(at("annotations.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(ann), "::error file=")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 6, "no temporary file is left behind")
}

func TestCheckFormatFlagTakesAFormatOrFormatAndFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, stderr := runCLI(t, nil, "check", "-format", "junit", "-format", "json="+filepath.Join(dir, "r.json"), checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	assert.True(t, strings.HasPrefix(out, "<?xml"), "the last plain format is the main report's:\n%s", out)
	_, err := os.Stat(filepath.Join(dir, "r.json"))
	assert.NoError(t, err)

	code, _, stderr = runCLI(t, nil, "check", "-format", "html="+filepath.Join(dir, "r.html"), checkMixed)
	require.Equal(t, exitFailed, code, stderr)
	_, err = os.Stat(filepath.Join(dir, "r.html"))
	assert.NoError(t, err)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"html without a file", []string{"-format", "html"}, "html is written to a file"},
		{"a format with an empty file", []string{"-format", "json="}, `"json=": no file after =`},
		{"two HTML reports", []string{"-format", "html=a.html", "-format", "html=b.html"}, "one HTML report a run"},
		{"-html and html= apart", []string{"-html", "a.html", "-format", "html=b.html"}, "give one HTML report"},
		{"one file for two reports", []string{"-o", "r.md", "-junit", "r.md"}, "r.md is named for two outputs"},
		{"a report over the baseline", []string{"-json", "b.json", "-write-baseline", "b.json"}, "b.json is named for two outputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, nil, append(append([]string{"check"}, tc.args...), checkMixed)...)
			assert.Equal(t, exitBadInput, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestCheckWritesNoReportWhenOneCannotBeWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, nil, "check", "-o", filepath.Join(dir, "report.md"), "-junit", filepath.Join(dir, "missing", "junit.xml"), checkMixed)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "junit.xml")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the reports are written together or not at all")
}

func TestCheckProgressTellsAFlakyFailureFromAPass(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, nil, "check", "../../scenarios/fishing-near-miss.yaml", "../../scenarios/fix-token-expiry.yaml")
	require.Equal(t, exitOK, code, "a flaky failure never fails the run: %s", stderr)
	assert.Contains(t, stderr, "fishing-near-miss: pass (flaky failed)\n")
	assert.Contains(t, stderr, "fix-token-expiry: pass\n")
}

func TestCheckAggregateNamesATargetOnlyWhenOneIsSet(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "check", "../../scenarios/fix-token-expiry.yaml")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "semantic tool usage (no target set)\n")
	assert.NotContains(t, out, "(target:")

	code, out, stderr = runCLI(t, nil, "check", "-target", "0.5", "../../scenarios/fix-token-expiry.yaml")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "semantic tool usage (target: 50%)\n")

	code, _, stderr = runCLI(t, nil, "check", "-target", "0", "../../scenarios/fix-token-expiry.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "-target 0: a target of 0% is no target")
}
