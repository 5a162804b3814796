package runs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareMatchesTasksAndPairsTheirFigures(t *testing.T) {
	t.Parallel()
	c, err := Compare(Summarize("run-1", summaryEntries()), "baseline", "mcp", []string{"recall@5", "mrr", "steps_to_target", "ttfr_seconds"})
	require.NoError(t, err)
	assert.Equal(t, []string{"add-cache", "fix-auth", "parse-config", "rename-flag"}, c.Matched)
	assert.Equal(t, []string{"old-task"}, c.OnlyBaseline)
	assert.Equal(t, []string{"new-task"}, c.OnlyCandidate)
	assert.Contains(t, c.NotComputable, "docs-only")

	recall := c.Metrics[0]
	// Differences mcp − baseline: fix-auth 1 − 0.75, add-cache 0.5,
	// parse-config 0, rename-flag 0.5.
	assert.Equal(t, 4, recall.N)
	assert.InDelta(t, (0.25+0.5+0+0.5)/4, recall.Diff.Mean, 1e-12)
	assert.Equal(t, 3, recall.Wilcoxon.N, "the zero difference is dropped")
	assert.Equal(t, 3, recall.Sign.Plus)
}

func TestCompareNeedsThreeMatchedTasks(t *testing.T) {
	t.Parallel()
	entries := summaryEntries()
	entries["mcp"] = entries["mcp"][:2] // fix-auth and add-cache only
	_, err := Compare(Summarize("run-1", entries), "baseline", "mcp", nil)
	require.ErrorIs(t, err, ErrTooFewMatched)
	assert.Contains(t, err.Error(), "2 task(s)")

	_, err = Compare(Summarize("run-1", entries), "baseline", "nope", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "have: baseline, mcp")
}

func TestPickConfigs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		all        []string
		base, cand string
		wantBase   string
		wantCand   string
		wantErr    string
	}{
		{"baseline prefix and the other one", []string{"baseline-local", "mcp-remote"}, "", "", "baseline-local", "mcp-remote", ""},
		{"the mcp one among several candidates", []string{"baseline", "mcp-remote", "other"}, "", "", "baseline", "mcp-remote", ""},
		{"two baselines are ambiguous", []string{"baseline-a", "baseline-b"}, "", "", "", "", "cannot tell the baseline"},
		{"several candidates without mcp are ambiguous", []string{"baseline", "x", "y"}, "", "", "", "", "cannot tell the candidate"},
		{"flags win", []string{"a", "b"}, "b", "a", "b", "a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, c, err := PickConfigs(tt.all, tt.base, tt.cand)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantBase, b)
			assert.Equal(t, tt.wantCand, c)
		})
	}
}

func TestReadSummariesPoolsConfigurations(t *testing.T) {
	t.Parallel()
	entries := summaryEntries()
	dir := t.TempDir()
	// One summary per configuration: the mcp one under a run folder's
	// OutDir, the baseline one as a file.
	mcpRun := filepath.Join(dir, "run-mcp")
	require.NoError(t, os.MkdirAll(filepath.Join(mcpRun, OutDir), 0o755))
	require.NoError(t, WriteSummary(filepath.Join(mcpRun, OutDir, SummaryFile), Summarize("r-mcp", map[string][]TaskEntry{"mcp": entries["mcp"]})))
	baseFile := filepath.Join(dir, "base.json")
	require.NoError(t, WriteSummary(baseFile, Summarize("r-base", map[string][]TaskEntry{"baseline": entries["baseline"]})))

	s, err := ReadSummaries(baseFile, mcpRun)
	require.NoError(t, err)
	assert.Equal(t, "r-base+r-mcp", s.RunID)
	assert.Equal(t, []string{"baseline", "mcp"}, s.ConfigNames())

	_, err = ReadSummaries(baseFile, baseFile)
	assert.ErrorContains(t, err, `configuration "baseline" is in both`)
	_, err = ReadSummaries(dir)
	assert.ErrorContains(t, err, "has no "+SummaryFile)
}
