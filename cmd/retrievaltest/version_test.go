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
