package trace

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claudeGenericCall is a tool_use found by decoding a line into generic
// maps with encoding/json, independently of the reader under test.
type claudeGenericCall struct {
	id, name string
	input    any
	// sidechain is set for calls on isSidechain lines or lines with a
	// non-null parent_tool_use_id.
	sidechain bool
	// task is the Task call a sidechain belongs to, found by following
	// parentUuid links up to the sidechain's first line and matching its
	// text with the prompts of Task calls.
	task string
	// result is the tool_result's text (text blocks joined with "\n").
	result             string
	hasResult, isError bool
}

func claudeGenericCalls(t *testing.T, file string) []claudeGenericCall {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		lines = append(lines, m)
	}
	require.NoError(t, sc.Err())

	byUUID := map[string]map[string]any{}
	for _, m := range lines {
		if u, ok := m["uuid"].(string); ok {
			byUUID[u] = m
		}
	}
	promptTask := map[string]string{}
	var calls []claudeGenericCall
	index := map[string]int{}
	for _, m := range lines {
		msg, _ := m["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			b := c.(map[string]any)
			if b["type"] == "tool_result" && m["type"] == "user" {
				call := &calls[index[b["tool_use_id"].(string)]]
				call.hasResult = true
				call.isError, _ = b["is_error"].(bool)
				switch v := b["content"].(type) {
				case string:
					call.result = v
				case []any:
					var texts []string
					for _, e := range v {
						if e := e.(map[string]any); e["type"] == "text" {
							texts = append(texts, e["text"].(string))
						}
					}
					call.result = strings.Join(texts, "\n")
				}
			}
			if b["type"] != "tool_use" || m["type"] != "assistant" {
				continue
			}
			call := claudeGenericCall{id: b["id"].(string), name: b["name"].(string), input: b["input"]}
			if p, ok := m["parent_tool_use_id"].(string); ok {
				call.sidechain, call.task = true, p
			}
			if m["isSidechain"] == true {
				call.sidechain = true
				root := m
				for root["parentUuid"] != nil {
					root = byUUID[root["parentUuid"].(string)]
				}
				rootMsg := root["message"].(map[string]any)
				call.task = promptTask[rootMsg["content"].(string)]
			} else if call.name == "Task" {
				input := b["input"].(map[string]any)
				if p, ok := input["prompt"].(string); ok {
					promptTask[p] = call.id
				}
			}
			index[call.id] = len(calls)
			calls = append(calls, call)
		}
	}
	return calls
}

func TestClaudeSamplesReadWithoutWarnings(t *testing.T) {
	t.Parallel()
	for _, dir := range []struct {
		name   string
		format Format
	}{
		{"claude-code-jsonl", ClaudeCode{}},
		{"claude-stream-json", ClaudeStreamJSON{}},
	} {
		for _, file := range sampleFiles(t, dir.name+"/*") {
			t.Run(filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				sess, err := ReadFile(file, Options{})
				require.NoError(t, err)
				assert.Equal(t, dir.format.Name(), sess.Format, "detected format")
				assert.Empty(t, sess.Warnings)
				assert.Equal(t, "claude-code", sess.Agent)
				assert.NotEmpty(t, sess.ID)
				assert.NotEmpty(t, sess.CWD)
				assert.NotEmpty(t, sess.AgentVersion)
				assert.NotEmpty(t, sess.Model)
				require.NotNil(t, sess.Usage)

				want := claudeGenericCalls(t, file)
				require.Len(t, sess.Calls, len(want))
				for i, c := range sess.Calls {
					assert.Equal(t, i, c.Index)
					assert.Equal(t, want[i].id, c.ID)
					assert.Equal(t, want[i].name, c.Name)
					assert.Equal(t, want[i].sidechain, c.Subagent, "call %d (%s)", i, c.ID)
					assert.Equal(t, want[i].task, c.ParentID, "call %d (%s)", i, c.ID)
					assert.Equal(t, want[i].hasResult, c.HasResult, "call %d (%s)", i, c.ID)
					assert.Equal(t, want[i].isError, c.IsError, "call %d (%s)", i, c.ID)
					assert.Equal(t, want[i].result, c.Result, "call %d (%s)", i, c.ID)
					input, err := json.Marshal(want[i].input)
					require.NoError(t, err)
					assert.JSONEq(t, string(input), string(c.Arguments), "call %d (%s)", i, c.ID)
					require.NotNil(t, c.CumulativeTokens)
					if i > 0 {
						assert.GreaterOrEqual(t, *c.CumulativeTokens, *sess.Calls[i-1].CumulativeTokens)
					}
				}
			})
		}
	}
}

func TestClaudeSampleWithParallelTasks(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "claude-code-jsonl/*")
	file := filepath.Join(samplesDir, "claude-code-jsonl", "dkimuson-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
	sess, err := ReadFile(file, Options{})
	require.NoError(t, err)

	// Pinned from an independent count of the tool_use blocks.
	want := map[string]int{}
	for _, c := range claudeGenericCalls(t, file) {
		want[c.name]++
	}
	assert.Equal(t, map[string]int{"TodoWrite": 5, "Glob": 3, "Task": 3, "Read": 3, "Bash": 5, "Edit": 1, "MultiEdit": 1}, want)
	assert.Equal(t, want, nameCounts(sess.Calls))
	require.Len(t, sess.Calls, 21)

	// Of the two parallel Task calls the first failed (no prompt), so both
	// sidechains belong to the ones that ran.
	bySubagent := map[string]int{}
	for _, c := range sess.Calls {
		if c.Subagent {
			bySubagent[c.ParentID]++
		}
	}
	assert.Equal(t, map[string]int{"toolu_014YF9TXhDRR7BnpasNJ7gjC": 2, "toolu_01LKfUwrsnof18CpWZQcJH44": 6}, bySubagent)
	failed := claudeCallByID(t, sess, "toolu_018t5jce2ZNoGr2ADsHGQife")
	assert.True(t, failed.IsError)
	assert.Contains(t, failed.Result, "The required parameter `prompt` is missing")
	assert.Equal(t, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", sess.ID)
	assert.Equal(t, "/path/to/Demo", sess.CWD)
	assert.Equal(t, "1.0.108", sess.AgentVersion)
	assert.Equal(t, "claude-sonnet-4-20250514", sess.Model)
	assert.Equal(t, "2025-09-07T09:52:03.071Z", sess.Start.UTC().Format("2006-01-02T15:04:05.000Z"))
}

func TestClaudeSampleWithInterleavedSidechains(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "claude-code-jsonl/*")
	file := filepath.Join(samplesDir, "claude-code-jsonl", "dkimuson-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
	sess, err := ReadFile(file, Options{})
	require.NoError(t, err)
	require.Len(t, sess.Calls, 167)
	sub := 0
	for _, c := range sess.Calls {
		if c.Subagent {
			sub++
			assert.NotEmpty(t, c.ParentID, "call %d", c.Index)
		}
	}
	assert.Equal(t, 156, sub)
}

func TestClaudeStreamSampleCutMidRun(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "claude-stream-json/*")
	file := filepath.Join(samplesDir, "claude-stream-json", "skillsbench-exoplanet-claude-code-v2.1.19.stream.jsonl")
	sess, err := ReadFile(file, Options{})
	require.NoError(t, err)

	want := map[string]int{}
	for _, c := range claudeGenericCalls(t, file) {
		want[c.name]++
	}
	assert.Equal(t, map[string]int{"Read": 2, "TodoWrite": 1, "Bash": 4, "Write": 1}, want)
	assert.Equal(t, want, nameCounts(sess.Calls))
	require.Len(t, sess.Calls, 8)

	last := sess.Calls[7]
	assert.Equal(t, "Bash", last.Name)
	assert.False(t, last.HasResult)
	assert.Empty(t, last.Result)
	for _, c := range sess.Calls[:7] {
		assert.True(t, c.HasResult, "call %d", c.Index)
		assert.False(t, c.Subagent)
	}
	assert.True(t, sess.Calls[0].IsError)
	assert.Len(t, sess.Tools, 17)
	assert.Equal(t, "us.anthropic.claude-opus-4-5-20251101-v1:0", sess.Model)
	assert.Equal(t, "2.1.19", sess.AgentVersion)
	assert.Equal(t, "/root", sess.CWD)
	assert.True(t, sess.Start.IsZero(), "stream-json lines carry no timestamps")
}

func TestClaudeStreamSampleAnswerComesFromTheResultLine(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "claude-stream-json/*")
	sess, err := ReadFile(filepath.Join(samplesDir, "claude-stream-json", "charlieyou-basic_query-v2.1.7.ndjson"), Options{})
	require.NoError(t, err)
	assert.Empty(t, sess.Calls)
	assert.Equal(t, "4", sess.Answer)
	// The assistant line streamed 5 output tokens; the result line's total
	// has the final 25.
	assert.Equal(t, &Usage{InputTokens: 10 + 21570, OutputTokens: 25, CacheCreationTokens: 21570}, sess.Usage)
}

func claudeCallByID(t *testing.T, s *Session, id string) ToolCall {
	t.Helper()
	for _, c := range s.Calls {
		if c.ID == id {
			return c
		}
	}
	require.Failf(t, "no such call", "no call with id %s", id)
	return ToolCall{}
}
