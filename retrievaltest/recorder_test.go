package retrievaltest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/collect"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
)

// A scenario with a run key is recorded by Options.Recorder. The library
// links no receiver of its own: without one the scenario is an error that
// names collect.Record, and a fake one stands in for it here.
func TestOptionsRecorderRecordsTheRunKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "recorded.yaml")
	require.NoError(t, os.WriteFile(file, []byte("name: recorded\nrun: echo agent\n"+
		"expectations:\n  - type: tools\n    max_calls: 4\n"), 0o644))
	trace, err := filepath.Abs("../expectations/testdata/traces/index-first-then-edit.toolcalls.json")
	require.NoError(t, err)

	_, err = retrievaltest.CheckWith(retrievaltest.Options{}, file)
	require.ErrorIs(t, err, expectations.ErrNoRecorder)
	assert.Contains(t, err.Error(), "collect.Record")

	var ran bool
	fake := func(ctx context.Context, _ string, cmd *exec.Cmd) ([]string, error) {
		ran = true
		return []string{trace}, cmd.Run()
	}
	results, err := retrievaltest.CheckWith(retrievaltest.Options{Recorder: fake}, file)
	require.NoError(t, err)
	assert.True(t, ran)
	require.Len(t, results, 1)
	assert.False(t, results[0].Failed(), "%+v", results[0].Results)
	assert.Equal(t, trace, results[0].Runs[0].Trace)
}

// collect.Record is a Recorder, the one the command uses.
var _ expectations.Recorder = collect.Record
