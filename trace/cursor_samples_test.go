package trace

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Cursor database of the samples against the counts of the samples
// README, checked by hand with sqlite3 on the raw file: one composer, 42
// bubbles listed, 19 tool calls (grep 10, read_file 5, codebase_search 2,
// apply_patch 1, read_lints 1), each completed with a result, 19 distinct
// call ids.
func TestCursorDatabaseSampleMatchesItsCounts(t *testing.T) {
	t.Parallel()
	file := sampleFiles(t, "cursor-vscdb/*.vscdb")[0]
	all, err := ReadFileAll(file, Options{})
	require.NoError(t, err)
	require.Len(t, all, 1)
	s := all[0]
	assert.Equal(t, "00812842-49fe-4699-afae-bb22cda3f6e1", s.ID)
	assert.Equal(t, "gpt-5", s.Model)
	assert.Equal(t, "/Users/svarlamov/projects/git-ai", s.CWD)
	assert.Equal(t, "Give me the queries used in the cursor sqlite storage db", s.Prompt)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, map[string]int{"grep": 10, "read_file": 5, "codebase_search": 2, "apply_patch": 1, "read_lints": 1}, nameCounts(s.Calls))
	ids := map[string]bool{}
	for _, c := range s.Calls {
		assert.True(t, c.HasResult, c.ID)
		assert.False(t, c.IsError, c.ID)
		assert.Regexp(t, `^call_[A-Za-z0-9]{24}$`, c.ID)
		ids[c.ID] = true
	}
	assert.Len(t, ids, 19)
	assert.Equal(t, "call_rricLGTaFI8H2uEKdJoYku5E", s.Calls[0].ID)
	assert.Equal(t, "Success. Updated the following files:\nM /Users/svarlamov/projects/git-ai/src/commands/checkpoint_agent/agent_preset.rs", s.Calls[17].Result)
}

// The Cursor agent transcript of the samples: 11 lines, 10 tool_use
// (WebSearch 4, Read 3, WebFetch 1, Grep 1, Write 1), no ids, no results.
func TestCursorTranscriptSampleMatchesItsCounts(t *testing.T) {
	t.Parallel()
	file := sampleFiles(t, "cursor-agent-transcript/*.jsonl")[0]
	s, err := ReadFile(file, Options{})
	require.NoError(t, err)
	assert.Equal(t, "cursor-agent-transcript", filepath.Base(filepath.Dir(file)))
	assert.Equal(t, "cursor-agent-transcript", s.Format)
	assert.Empty(t, s.Warnings)
	assert.Equal(t, "Generate a file with all the HBO shows from the 90's in it", s.Prompt)
	assert.Equal(t, map[string]int{"WebSearch": 4, "Read": 3, "WebFetch": 1, "Grep": 1, "Write": 1}, nameCounts(s.Calls))
	for _, c := range s.Calls {
		assert.Empty(t, c.ID)
		assert.False(t, c.HasResult)
	}
	assert.Equal(t, `{"path":"/Users/aidancunniffe/Desktop/testing-gitflows-git-ai/pbs-shows-1990s.txt","limit":40}`, string(s.Calls[0].Arguments))
}
