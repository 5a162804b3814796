package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command's own package is flag wiring; logic goes to a library
// package or under internal/ (CONTRIBUTING: under 1,200 lines in all).
func TestTheCommandsPackageStaysUnder1200Lines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += bytes.Count(b, []byte("\n"))
	}
	assert.Greater(t, lines, 500, "the package's files are found")
	assert.LessOrEqual(t, lines, 1200, "cmd/retrievaltest is %d lines of non-test Go: move logic to a package", lines)
}
