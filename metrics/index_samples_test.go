package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// A real Claude Code session (CLI 1.0.108, ../shared/samples): the agent
// updates CLAUDE.md with the help of two Task subagents. Hand check of its
// 21 calls, from the events (step index: tool, class):
//
//	 0 TodoWrite other      7 Glob  file_level*   14 Read      file_level*
//	 1 Glob  file_level     8 Read  file_level*   15 Bash ls   file_level*
//	 2 Glob  file_level     9 Task  other         16 TodoWrite other
//	 3 TodoWrite other     10 Bash find file_level* 17 Edit    edit (error)
//	 4 Task  other (error) 11 Bash ls file_level*  18 Read     file_level
//	 5 Task  other         12 Bash tree file_level* (error)  19 MultiEdit edit
//	 6 TodoWrite other     13 Bash ls file_level*  20 TodoWrite other
//	(* subagent calls)
//
// No semantic tool: 0 semantic, 11 file-level, 2 edits, 8 other; ratio 0/11
// = 0, grade poor. No ground truth, so steps to target is the first edit:
// step index 17, step 18. With no semantic call at all, the 11 file-level
// calls form one fishing run (other calls neither extend nor break it). There
// is no guessing: the Globs at 1, 2, 7 (**/*.md, **/package.json) and the
// find at 10 search file names, not file contents for an identifier. Failed calls: 4, 12,
// 17. todo-app/package.json is read twice (8 and 14, lines 1-29 each) and
// never written: backtracking 1 file; CLAUDE.md is read (1-97) and then
// edited. Lines read 29 + 29 + 97 = 155, re-read 29: redundancy 29/155.
func TestIndexOnARealClaudeCodeSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "shared", "samples", "claude-code-jsonl", "dkimuson-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Skip("shared samples not available:", err)
	}
	sess, err := trace.ReadFile(file, trace.Options{})
	require.NoError(t, err)
	ie := AnalyzeIndex(events.Normalize(sess, events.Options{}), IndexOptions{})

	assert.Equal(t, 21, ie.TotalCalls)
	assert.Equal(t, [4]int{0, 11, 2, 8}, [4]int{ie.SemanticCalls, ie.FileLevelCalls, ie.EditCalls, ie.OtherCalls})
	require.NotNil(t, ie.SemanticRatio)
	assert.Zero(t, *ie.SemanticRatio)
	assert.Equal(t, "poor", ie.Grade)
	assert.Equal(t, 18, *ie.StepsToTarget)
	assert.Equal(t, RuleFirstEdit, ie.StepsToTargetRule)

	fishing := ie.Occurrences(PatternFishing)
	require.Len(t, fishing, 1)
	assert.Equal(t, []int{1, 2, 7, 8, 10, 11, 12, 13, 14, 15, 18}, fishing[0].Steps)
	assert.False(t, ie.Has(PatternGuessing), "file-name searches are not guesses: %+v", ie.Occurrences(PatternGuessing))
	assert.False(t, ie.Has(PatternDirect))

	assert.Equal(t, []int{4, 12, 17}, ie.FailedSteps)
	assert.Equal(t, []string{"todo-app/package.json"}, ie.Backtracking)
	// package.json 1-28 twice and CLAUDE.md 1-97.
	assert.Equal(t, 153, ie.LinesRead)
	assert.Equal(t, 28, ie.LinesReread)
	assert.False(t, ie.ToolsKnown, "a session transcript does not list the available tools")
}

// In every real Claude Code sample, no guess is a file-name search: each
// one the analysis reports comes from a content search (Grep, shell grep or
// rg), never from a Glob, find or listing.
func TestNoClaudeCodeSampleGuessesWithAFileNameSearch(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "samples", "claude-code-jsonl")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("shared samples not available in", dir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			sess, err := trace.ReadFile(file, trace.Options{})
			require.NoError(t, err)
			doc := events.Normalize(sess, events.Options{})
			byStep := map[int]events.Event{}
			globs := 0
			for _, ev := range doc.Events {
				byStep[ev.StepIndex] = ev
				if ev.ToolName == "Glob" {
					globs++
				}
			}
			ie := AnalyzeIndex(doc, IndexOptions{})
			for _, p := range ie.Occurrences(PatternGuessing) {
				ev := byStep[p.Steps[0]]
				assert.Equal(t, events.CodeSearch, ev.ToolCategory, "step %d: %s %q", ev.StepIndex, ev.ToolName, ev.Query)
			}
			t.Logf("%d calls, %d Globs, %d guesses", ie.TotalCalls, globs, len(ie.Occurrences(PatternGuessing)))
		})
	}
}
