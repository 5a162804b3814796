package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
)

func TestCompareTheMiniatureRun(t *testing.T) {
	t.Parallel()
	out, _ := runMini(t)
	code, stdout, stderr := runCLI(t, nil, "compare", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "## Matched comparison: mcp-remote-direct vs baseline-local-direct", "the baseline and candidate are found by name")
	assert.Contains(t, stdout, "Matched tasks (computable in both): 3: add-cache, fix-auth, parse-config.")
	assert.Contains(t, stdout, "- rename-flag: degraded in mcp-remote-direct", "an unmatched task is listed with why")
	assert.Contains(t, stdout, "- docs-only: non_computable in baseline-local-direct")
	assert.Contains(t, stdout, "| Recall@5 (TREC) | 3 ")
	assert.Contains(t, stdout, "Spearman")
	assert.Contains(t, stdout, "Association only, not causation")
}

func TestCompareArguments(t *testing.T) {
	t.Parallel()
	out, _ := runMini(t)
	summary := filepath.Join(out, runs.SummaryFile)

	// A ground-truth root with two of the tasks leaves two matched tasks.
	gt := t.TempDir()
	copyTree(t, filepath.Join(miniGT, "fix-auth"), filepath.Join(gt, "fix-auth"))
	copyTree(t, filepath.Join(miniGT, "add-cache"), filepath.Join(gt, "add-cache"))
	fewOut := t.TempDir()
	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", gt, "-out", fewOut, miniRun)
	require.Equal(t, exitOK, code, stderr)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"a summary file is read directly", []string{summary}, exitOK, "Matched tasks (computable in both): 3", ""},
		{"flags name the configurations", []string{"-baseline-config", mcpCfg, "-candidate-config", baseCfg, summary}, exitOK, "## Matched comparison: baseline-local-direct vs mcp-remote-direct", ""},
		{"-metrics chooses the rows", []string{"-metrics", "mrr", summary}, exitOK, "| MRR (TREC RR) | 3 ", ""},
		{"fewer than three matched tasks is bad input", []string{fewOut}, exitBadInput, "", "too few matched tasks: 2 task(s)"},
		{"the unmatched tasks are named when too few match", []string{fewOut}, exitBadInput, "", "not matched: parse-config"},
		{"an unknown configuration is bad input", []string{"-candidate-config", "nope", summary}, exitBadInput, "", `no configuration "nope"`},
		{"the same configuration twice is bad input", []string{"-baseline-config", baseCfg, "-candidate-config", baseCfg, summary}, exitBadInput, "", "both"},
		{"pooling two summaries with the same configurations is bad input", []string{summary, fewOut}, exitBadInput, "", "compare needs distinct configuration names"},
		{"a folder without a summary is bad input", []string{t.TempDir()}, exitBadInput, "", "run \"retrievaltest run-dir"},
		{"no argument is bad input", nil, exitBadInput, "", "no run folder or summary given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, nil, append([]string{"compare"}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stdout, tt.stdout)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestReportGatesOnABaseline(t *testing.T) {
	t.Parallel()
	out, _ := runMini(t)
	dir := t.TempDir()
	basePath := filepath.Join(dir, "baseline.json")

	code, stdout, stderr := runCLI(t, nil, "report", "-write-baseline", basePath, out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "### Index effectiveness")
	assert.Contains(t, stdout, "**Aggregate:** 66.7% semantic tool usage (target: 60%)", "mcp: mean of 0.5, 1, 0.5, 1/3 and 1")
	assert.Contains(t, stdout, "| Task ")
	assert.Contains(t, stdout, "Recall@5 (TREC)")
	assert.Contains(t, stdout, "degraded: no usable trace")

	code, stdout, stderr = runCLI(t, nil, "report", "-baseline", basePath, out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "No figure regressed past the allowed change (ratio=0.05,steps=2,seconds=30,tokens=2000,count=2).", "a run compared with itself has no regression")

	// A baseline in which add-cache's mcp recall@5 was higher, and
	// parse-config's baseline steps were fewer, makes both regressions.
	b, err := report.ReadBaseline(basePath)
	require.NoError(t, err)
	b.Set(mcpCfg+"/add-cache", "recall@5", 1.5)
	b.Set(baseCfg+"/parse-config", "ttfr_steps", 0)
	b.Set(mcpCfg+"/docs-only", "recall@5", 1) // now has no value: a regression
	edited := filepath.Join(dir, "edited.json")
	require.NoError(t, report.WriteBaseline(edited, b))

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
	}{
		{"worse figures beyond the allowance fail", []string{"-baseline", edited, "-max-regression", "0.1"}, exitFailed, []string{
			"# Retrieval report: mini\n\n**FAIL:** 3 figure(s) regressed past the allowed change: baseline-local-direct/parse-config ttfr_steps,",
			"**3 figure(s) regressed** past the allowed change",
			"mcp-remote-direct/add-cache recall@5: 1.50 → 1.00",
			"baseline-local-direct/parse-config ttfr_steps: 0 → 1 (+1, allowed 0.1; lower is better)",
			"mcp-remote-direct/docs-only recall@5: was 1.00, now has no value",
			"1.00 **(-0.50) ▼**",
		}},
		{"a large allowance keeps only the lost value", []string{"-baseline", edited, "-max-regression", "ratio=0.9,steps=2"}, exitFailed, []string{"**1 figure(s) regressed**"}},
		{"the default tolerances allow 2 steps, not half a recall", []string{"-baseline", edited}, exitFailed, []string{"**2 figure(s) regressed**", "add-cache recall@5: 1.50 → 1.00 (-0.50, allowed 0.05;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, nil, append(append([]string{"report"}, tt.args...), out)...)
			assert.Equal(t, tt.code, code, stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
		})
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	out, _ := runMini(t)
	newer := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, os.WriteFile(newer, []byte(`{"version": 9, "entries": {}}`), 0o644))
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"a baseline of another version", []string{"-baseline", newer, out}, "version 9"},
		{"a target above 1", []string{"-target", "60", out}, "-target 60"},
		{"a negative allowance", []string{"-max-regression", "-1", out}, "-max-regression -1"},
		{"no summary", []string{t.TempDir()}, "run-dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, append([]string{"report"}, tt.args...)...)
			assert.Equal(t, exitBadInput, code)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}
