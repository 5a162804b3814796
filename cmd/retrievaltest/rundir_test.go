package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/runs"
)

// The miniature run (see testdata/runs/README.md): two configurations of
// five tasks, a task run twice in one of them, a trial without its
// transcript, one without any trace, and a task without ground truth. The
// evaluation itself is tested in package runs; these tests check the
// command's flags, output and exit codes.
const (
	miniRun = "../../testdata/runs/mini"
	miniGT  = "../../testdata/runs/gt"
	baseCfg = "baseline-local-direct"
	mcpCfg  = "mcp-remote-direct"
)

// runMini evaluates the miniature run into a fresh folder and returns the
// folder and the summary.
func runMini(t *testing.T, extra ...string) (string, *runs.Summary) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"run-dir", "-gt-root", miniGT, "-out", out}, extra...)
	code, stdout, stderr := runCLI(t, nil, append(args, miniRun)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "| Config ", "a table of the configurations on standard output")
	s, err := runs.ReadSummary(filepath.Join(out, runs.SummaryFile))
	require.NoError(t, err)
	return out, s
}

func TestRunDirWritesTheSummaryAndATable(t *testing.T) {
	t.Parallel()
	out, s := runMini(t, "-j", "2", "-metrics", "mrr")
	require.Equal(t, []string{baseCfg, mcpCfg}, s.ConfigNames())
	assert.Equal(t, 4, s.Config(baseCfg).Computable.Count)
	assert.FileExists(t, filepath.Join(out, mcpCfg, "fix-auth__p7q8r9"+runs.MetricsSuffix))

	code, stdout, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, "-out", t.TempDir(), "-metrics", "mrr,recall@5", miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "| MRR (TREC RR) (mean) | Recall@5 (TREC) (mean) |", "-metrics chooses the columns")
	assert.Contains(t, stderr, "11 trial(s) in 2 configuration(s): 8 computable, 2 non-computable, 1 degraded")
}

func TestRunDirExitCodes(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	file := filepath.Join(empty, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"-h prints the usage", []string{"-h"}, exitOK, "Usage: retrievaltest run-dir"},
		{"no run folder is bad input", nil, exitBadInput, "want exactly one RUN_DIR"},
		{"a missing run folder is bad input", []string{filepath.Join(empty, "nope")}, exitBadInput, "no such file"},
		{"a file is not a run folder", []string{file}, exitBadInput, "is not a folder"},
		{"a folder without trials is bad input", []string{empty}, exitBadInput, "no trial folders"},
		{"-j 0 is bad input", []string{"-j", "0", miniRun}, exitBadInput, "-j 0"},
		{"a bad cutoff list is bad input", []string{"-k", "0", miniRun}, exitBadInput, "-k"},
		{"a missing ground-truth root is bad input", []string{"-gt-root", filepath.Join(empty, "nope"), miniRun}, exitBadInput, "-gt-root"},
		{"the run folder itself as output is refused", []string{"-out", miniRun, miniRun}, exitBadInput, "is the run folder"},
		{"an output inside a configuration is refused", []string{"-out", filepath.Join(miniRun, baseCfg, "out"), miniRun}, exitBadInput, "inside the run's folder"},
		{"a configuration as output is refused", []string{"-out", filepath.Join(miniRun, baseCfg), miniRun}, exitBadInput, "holds trials"},
		{"an unknown profile is bad input", []string{"-profile", "windsurf", miniRun}, exitBadInput, `unknown taxonomy profile "windsurf"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, append([]string{"run-dir"}, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

func TestRunDirWithoutGroundTruthRootScoresNothing(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, _, stderr := runCLI(t, nil, "run-dir", "-out", out, miniRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "no -gt-root")
	s, err := runs.ReadSummary(filepath.Join(out, runs.SummaryFile))
	require.NoError(t, err)
	for _, c := range s.Configs {
		assert.Zero(t, c.Computable.Count, c.Config)
	}
}

func TestRunDirWarningsNameTheTrial(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	trial := filepath.Join(run, "baseline", "2026-02-01__09-00-00", "fix-auth__zz9")
	require.NoError(t, os.MkdirAll(filepath.Join(trial, "agent"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(trial, "result.json"), []byte(`{"task_name": `), 0o644))

	code, _, stderr := runCLI(t, nil, "run-dir", "-gt-root", miniGT, run)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "warning: baseline/2026-02-01__09-00-00/fix-auth__zz9: result.json:")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(stderr), filepath.Join(run, runs.OutDir, runs.SummaryFile)), "the last line names the summary:\n%s", stderr)
}

// copyTree copies the files of a folder into another.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	}))
}
