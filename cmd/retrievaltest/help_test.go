package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command's -h text fits an 80-column terminal (but for a single
// word too long to break), each flag's description indented under it.
func TestHelpTextsFitEightyColumns(t *testing.T) {
	t.Parallel()
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runCLI(t, nil, name, "-h")
			require.Equal(t, exitOK, code)
			text := out + stderr
			require.NotEmpty(t, text)
			for i, line := range strings.Split(text, "\n") {
				if len(strings.Fields(line)) > 1 { // a single long word cannot be broken
					assert.LessOrEqual(t, len([]rune(line)), 80, "line %d: %q", i+1, line)
				}
				assert.NotContains(t, line, "\t", "line %d: %q is aligned with spaces", i+1, line)
			}
		})
	}
}
