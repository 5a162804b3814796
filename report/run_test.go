package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/runs"
)

func TestWriteRun(t *testing.T) {
	t.Parallel()
	s := runs.Summarize("run-1", summaryEntries())

	var b bytes.Buffer
	regs, err := WriteRun(&b, s, RunOptions{Metrics: []string{"recall@5"}, Config: "mcp"})
	require.NoError(t, err)
	assert.Nil(t, regs, "no baseline, no regressions")
	assert.Contains(t, b.String(), "# Retrieval report: run-1\n\n## mcp\n\n### Index effectiveness")
	assert.NotContains(t, b.String(), "## baseline", "-config keeps one configuration")
	assert.Contains(t, b.String(), "non_computable: the task has no ground-truth files")

	figures := RunBaseline(s, "")
	v, ok := figures.Get("baseline/fix-auth__t2", "recall@5")
	require.True(t, ok, "keyed <config>/<name>")
	assert.Equal(t, 1.0, v)
	_, ok = RunBaseline(s, "mcp").Get("baseline/fix-auth__t2", "recall@5")
	assert.False(t, ok, "only the configuration asked for")

	// The run against a baseline where mcp's parse-config recall was 1.
	figures.Set("mcp/parse-config", "recall@5", 1)
	b.Reset()
	regs, err = WriteRun(&b, s, RunOptions{Baseline: figures, BaselineName: "base.json", MaxRegression: 0.1})
	require.NoError(t, err)
	require.Len(t, regs, 1)
	assert.Equal(t, "mcp/parse-config", regs[0].Key)
	assert.Contains(t, b.String(), "## Regressions against base.json")
}
