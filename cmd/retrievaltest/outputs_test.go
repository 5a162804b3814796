package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/runs"
)

func TestOutputFilesThatCannotBeReplacedAreExitTwoAndLeftIntact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "report.md")
	require.NoError(t, os.WriteFile(readOnly, []byte("keep"), 0o444))
	baseline := filepath.Join(dir, "baseline.json")
	require.NoError(t, os.WriteFile(baseline, []byte(`{"schema_version": "1.0", "figures": {}}`), 0o444))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"-o names a folder", []string{"check", "-o", dir, checkMixed}, dir + " is a folder"},
		{"-o names a read-only file", []string{"check", "-o", readOnly, checkMixed}, readOnly + " is read-only"},
		{"-baseline names a read-only file", []string{"check", "-baseline", baseline, "-update-baseline", "-run", "^good$", checkMixed}, baseline + " is read-only"},
		{"trec-export -o-run names a folder", []string{"trec-export", "-o-run", dir, sreTrace}, dir + " is a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, nil, tt.args...)
			assert.Equal(t, exitBadInput, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.NotContains(t, stderr, ".tmp-", "the message names the path given, not a temporary file")
		})
	}
	for _, f := range []string{readOnly, baseline} {
		info, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o444), info.Mode().Perm(), f)
	}
	data, _ := os.ReadFile(readOnly)
	assert.Equal(t, "keep", string(data))
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 2, "no temporary file is left behind")
}

func TestCheckWritesTheReportThroughDevNull(t *testing.T) {
	t.Parallel()
	before, err := os.Stat(os.DevNull)
	if err != nil || before.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	code, _, stderr := runCLI(t, nil, "check", "-o", os.DevNull, checkMixed)
	assert.Equal(t, exitFailed, code, stderr)
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.Equal(t, before.Mode(), after.Mode(), "the device is still a device")
}

func TestRunDirListsAFailedTrialAndExitsTwoAfterTheOthers(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	for rel, content := range map[string]string{
		"cfg/b1/good__1/result.json": `{"task_name": "good"}`,
		"cfg/b1/good__1/agent/":      "",
		"cfg/b1/bad__2/result.json/": "",
		"cfg/b1/bad__2/agent/":       "",
	} {
		p := filepath.Join(run, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	code, stdout, stderr := runCLI(t, nil, "run-dir", run)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stdout, "| cfg ", "the table of the trials evaluated")
	assert.Contains(t, stderr, "2 trial(s) in 1 configuration(s): 0 computable, 0 non-computable, 1 degraded, 1 failed")
	assert.Contains(t, stderr, "cfg/b1/bad__2: trial failed: result.json cannot be read: is a folder, not a file")
	s, err := runs.ReadSummary(filepath.Join(run, runs.OutDir, runs.SummaryFile))
	require.NoError(t, err)
	assert.Len(t, s.FailedEntries(), 1)
}
