package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionCommandPrintsOneLine(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^retrievaltest \S+.* go1\.\d+`, out)

	code, _, stderr = runCLI(t, nil, "version", "extra")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, `takes no arguments, got "extra"`)
}

// --version (and -version) is the version command.
func TestDashDashVersionIsTheVersionCommand(t *testing.T) {
	t.Parallel()
	_, want, _ := runCLI(t, nil, "version")
	for _, flag := range []string{"--version", "-version"} {
		code, out, stderr := runCLI(t, nil, flag)
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, want, out, flag)
		code, _, stderr = runCLI(t, nil, flag, "extra")
		assert.Equal(t, exitBadInput, code)
		assert.Contains(t, stderr, `takes no arguments, got "extra"`)
	}
	_, usage, _ := runCLI(t, nil, "help")
	assert.Contains(t, usage, `"retrievaltest --version" is "retrievaltest version"`)
}

// A release build sets the version, the commit and its time with
// -ldflags -X, as .goreleaser.yaml does; both spellings print them.
func TestAReleaseBuildPrintsItsStampedVersionAndCommit(t *testing.T) {
	bin := leanBinary(t, "-ldflags", "-X main.version=v9.8.7 -X main.commit=0123456789abcdef0123456789abcdef01234567 -X main.date=2026-12-07T10:00:00Z")
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, stderr := runBinary(t, bin, args...)
		require.Equal(t, exitOK, code, stderr)
		assert.Regexp(t, `^retrievaltest v9\.8\.7 \(commit 0123456789ab, 2026-12-07T10:00:00Z\) go1\.\d+`, out, args)
	}
}
