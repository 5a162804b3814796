package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLineNamesVersionCommitAndGo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a tagged module with its commit", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}, {Key: "vcs.modified", Value: "false"},
		}}, "retrievaltest v0.3.0 (commit 1a2b3c4d5e6f, 2026-11-20T10:00:00Z) go1.26.0"},
		{"a modified checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"},
		}}, "retrievaltest (devel) (commit abc, modified) go1.26.0"},
		{"no version control information", debug.BuildInfo{GoVersion: "go1.26.0"}, "retrievaltest (devel) go1.26.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, versionLine(&tt.info))
		})
	}
}

func TestVersionCommandPrintsOneLine(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^retrievaltest \S+.* go1\.\d+`, out)

	code, _, stderr = runCLI(t, nil, "version", "extra")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `takes no arguments, got "extra"`)
}
