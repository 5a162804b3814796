package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const initTrace = "../../testdata/init/two-tasks.openhands-output.jsonl"

func TestInitWritesAScenarioThatCheckPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "scenarios", "auth.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	code, out, stderr := runCLI(t, nil, "init", "-o", file, initTrace)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, out)
	assert.Equal(t, "retrievaltest init: wrote "+file+"; check it with: retrievaltest check "+file+"\n", stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	abs, _ := filepath.Abs(initTrace)
	rel, _ := filepath.Rel(filepath.Dir(file), abs)
	assert.Contains(t, string(data), "trace: "+filepath.ToSlash(rel)+"  # the trace init read, relative to this file\n", "the trace is relative to the scenario's folder")
	assert.Contains(t, string(data), "trace_id: auth-2")

	code, out, stderr = runCLI(t, nil, "check", file)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "**PASS:** 1 of 1 scenarios passed.")

	code, _, stderr = runCLI(t, nil, "init", "-o", file, initTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, file+" exists: init never overwrites a scenario")
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, data, after)
}

func TestInitFlagsChangeTheProposal(t *testing.T) {
	t.Parallel()
	prop := func(args ...string) string {
		t.Helper()
		code, out, stderr := runCLI(t, nil, append([]string{"init"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		return out
	}
	base := prop(initTrace)
	assert.Contains(t, base, "recall@10: {min: 0.9}")
	assert.Contains(t, base, "max_steps_to_target: 3")
	assert.Contains(t, prop("-ratio-margin", "0.25", initTrace), "recall@10: {min: 0.75}")
	assert.Contains(t, prop("-steps-margin", "5", initTrace), "max_steps_to_target: 6")
	assert.Contains(t, prop("-format", "openhands-eval", initTrace), "trace_id: auth-2")
	withDiff := prop("-diff", "../../testdata/init/fix-token-expiry.diff", "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json")
	assert.Contains(t, withDiff, "cwd: /root")
	assert.Contains(t, withDiff, "fix-token-expiry.diff}  # the files of the diff")

	code, _, stderr := runCLI(t, nil, "init", "-trace-id", "docs-1", initTrace)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "the agent changed no file")
	code, _, stderr = runCLI(t, nil, "init", "-format", "codex", initTrace)
	assert.Equal(t, exitBadInput, code, "a forced format that does not read: %s", stderr)
	code, _, stderr = runCLI(t, nil, "init", "-max-input-size", "100", initTrace)
	assert.Equal(t, exitBadInput, code, "the trace is bounded: %s", stderr)
}

func TestInitBadInputIsExitTwo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no trace", []string{"init"}, "give one trace file"},
		{"two traces", []string{"init", initTrace, initTrace}, "give one trace file"},
		{"a ratio margin of 1", []string{"init", "-ratio-margin", "1", initTrace}, "-ratio-margin 1: expected a number in [0, 1)"},
		{"a negative steps margin", []string{"init", "-steps-margin", "-1", initTrace}, "-steps-margin -1: expected 0 or more"},
		{"a missing trace", []string{"init", "no/such.jsonl"}, "no/such.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runCLI(t, nil, tc.args...)
			assert.Equal(t, exitBadInput, code)
			assert.Empty(t, out)
			assert.True(t, strings.Contains(stderr, tc.want), stderr)
		})
	}
}
