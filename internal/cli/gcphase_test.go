package cli

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Commands run side by side in one process (a test binary, a program
// that calls them) share the collector's percent: the one that ends last
// must not put back the lowered percent it found when it started.
func TestOverlappingGCPhasesPutBackThePercentOfBeforeTheFirst(t *testing.T) {
	// No t.Parallel: the percent is the process's. Setenv puts GOGC back
	// at the end; the phases run without it.
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	before := gcPercent()
	for _, tt := range []struct {
		name  string
		steps func(a, b *gcPhases)
	}{
		{"the first ends first", func(a, b *gcPhases) { a.done(); b.done() }},
		{"the second ends first", func(a, b *gcPhases) { b.done(); a.done() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := startGCPhases()
			a.read()
			a.made()
			b := startGCPhases()
			b.read()
			b.made()
			assert.Equal(t, min(before, afterReadGCPercent), gcPercent(), "while both make their runs")
			a.read()
			assert.Equal(t, before, gcPercent(), "while one reads")
			a.made()
			tt.steps(a, b)
			assert.Equal(t, before, gcPercent(), "once both are done")
		})
	}
}
