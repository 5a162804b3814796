package events

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// The tests below turn real traces of each agent into calls the way the
// trace readers name them (raw tool names, arguments as recorded) with a
// few lines of encoding/json, independently of the readers, and check that
// the default taxonomy, preferring the agent's profile, leaves no tool
// unclassified and reads what the agent read.

func readSample(t *testing.T, rel string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(samplesDir, rel))
	if os.IsNotExist(err) {
		t.Skip("no real samples in " + samplesDir)
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}

// sweAgentActionCalls names each pre-1.0 action by its command word when
// that is an SWE-agent command, and bash otherwise, with the whole line as
// the command.
func sweAgentActionCalls(t *testing.T, rel string) []trace.ToolCall {
	var traj struct {
		Trajectory []struct {
			Action      string `json:"action"`
			Observation string `json:"observation"`
		} `json:"trajectory"`
	}
	readSample(t, rel, &traj)
	var calls []trace.ToolCall
	for _, step := range traj.Trajectory {
		name := "bash"
		if f := strings.Fields(step.Action); len(f) > 0 {
			if _, ok := sweSignatures[f[0]]; ok {
				name = f[0]
			}
		}
		args, err := json.Marshal(map[string]string{"command": strings.TrimSpace(step.Action)})
		require.NoError(t, err)
		calls = append(calls, trace.ToolCall{Index: len(calls), Name: name, Arguments: args, Result: step.Observation, HasResult: true})
	}
	return calls
}

func normalizeSample(t *testing.T, format, cwd string, calls []trace.ToolCall) *Document {
	t.Helper()
	require.NotEmpty(t, calls)
	doc := Normalize(&trace.Session{Format: format, CWD: cwd, Calls: calls}, Options{})
	assert.Empty(t, doc.Summary.UnclassifiedTools, "every tool of the agent is classified")
	return doc
}

// eventFor returns the first event whose call's command or arguments
// contain s.
func eventFor(t *testing.T, doc *Document, calls []trace.ToolCall, s string) Event {
	t.Helper()
	for i, c := range calls {
		if strings.Contains(string(c.Arguments), s) {
			return doc.Events[i]
		}
	}
	t.Fatalf("no call with %q", s)
	return Event{}
}

func TestRealSWEAgentTrajectories(t *testing.T) {
	t.Parallel()
	t.Run("pre-1.0 pydicom run", func(t *testing.T) {
		t.Parallel()
		calls := sweAgentActionCalls(t, "swe-agent/gpt4-pydicom__pydicom-1458.traj")
		doc := normalizeSample(t, "swe-agent", "/pydicom__pydicom", calls)
		open := eventFor(t, doc, calls, "open pydicom/pixel_data_handlers/numpy_handler.py 293")
		assert.Equal(t, FileRead, open.ToolCategory)
		assert.Equal(t, []LineRange{lines("pydicom/pixel_data_handlers/numpy_handler.py", 273, 372)}, open.LineRanges, "the window the result shows, clamped at the end of the file")
		find := eventFor(t, doc, calls, `find_file \"numpy_handler.py\"`)
		assert.Equal(t, FileSearch, find.ToolCategory)
		assert.Contains(t, find.TargetFiles, "pydicom/pixel_data_handlers/numpy_handler.py")
		assert.Len(t, find.TargetFiles, 3)
		assert.Equal(t, "numpy_handler.py", find.Query)
		create := eventFor(t, doc, calls, "create reproduce_bug.py")
		assert.Equal(t, []string{"reproduce_bug.py"}, create.FilesWritten)
	})
	t.Run("1.x marshmallow run as command lines", func(t *testing.T) {
		t.Parallel()
		calls := sweAgentActionCalls(t, "swe-agent/demo-function_calling_replace-marshmallow-1867.traj")
		doc := normalizeSample(t, "swe-agent", "/testbed", calls)
		open := eventFor(t, doc, calls, `open \"src/marshmallow/fields.py\" 1474`)
		assert.Equal(t, []LineRange{lines("src/marshmallow/fields.py", 1457, 1556)}, open.LineRanges)
		find := eventFor(t, doc, calls, "find_file fields.py src")
		assert.Equal(t, []string{"src/marshmallow/fields.py"}, find.TargetFiles)
		edits := 0
		for _, ev := range doc.Events {
			if ev.ToolName == "edit" && len(ev.FilesWritten) > 0 {
				edits++
				assert.Equal(t, []string{"src/marshmallow/fields.py"}, ev.FilesWritten)
			}
		}
		assert.Positive(t, edits, "an accepted edit writes the open file")
	})
}

func TestRealMiniSWEAgentTrajectory(t *testing.T) {
	t.Parallel()
	var traj struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	readSample(t, "mini-swe-agent/deepseek-chat-v2.2.7-toolcall-sqlfluff-2419.traj.json", &traj)
	var calls []trace.ToolCall
	byID := map[string]int{}
	for _, m := range traj.Messages {
		for _, tc := range m.ToolCalls {
			byID[tc.ID] = len(calls)
			calls = append(calls, trace.ToolCall{Index: len(calls), ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
		}
		if i, ok := byID[m.ToolCallID]; ok && m.Role == "tool" {
			calls[i].Result, calls[i].HasResult = blockText(m.Content), true
		}
	}
	doc := normalizeSample(t, "mini-swe-agent", "/testbed", calls)
	head := eventFor(t, doc, calls, "cat ./src/sqlfluff/rules/L007.py | head -100")
	assert.Equal(t, FileRead, head.ToolCategory)
	assert.Equal(t, []string{"src/sqlfluff/rules/L007.py"}, head.FilesRead)
	assert.Equal(t, []LineRange{lines("src/sqlfluff/rules/L007.py", 1, 100)}, head.LineRanges)
	write := eventFor(t, doc, calls, "cat > ./src/sqlfluff/rules/L060.py")
	assert.Equal(t, []string{"src/sqlfluff/rules/L060.py"}, write.FilesWritten, "a heredoc redirect writes the file")
}

func TestRealOpenHandsEventLists(t *testing.T) {
	t.Parallel()
	var events []struct {
		ID               int             `json:"id"`
		Source           string          `json:"source"`
		Action           string          `json:"action"`
		Observation      string          `json:"observation"`
		Cause            int             `json:"cause"`
		Content          string          `json:"content"`
		Args             json.RawMessage `json:"args"`
		ToolCallMetadata *struct {
			FunctionName string `json:"function_name"`
		} `json:"tool_call_metadata"`
	}
	readSample(t, "openhands/openhands-runtime-trajs-wrong_initial_state.json", &events)
	var calls []trace.ToolCall
	byID := map[int]int{}
	for _, e := range events {
		switch {
		case e.Action != "" && e.ToolCallMetadata != nil:
			byID[e.ID] = len(calls)
			calls = append(calls, trace.ToolCall{Index: len(calls), Name: e.ToolCallMetadata.FunctionName, Arguments: e.Args})
		case e.Observation != "":
			if i, ok := byID[e.Cause]; ok {
				calls[i].Result, calls[i].HasResult = e.Content, true
			}
		}
	}
	doc := normalizeSample(t, "openhands-v0", "/workspace", calls)
	view := eventFor(t, doc, calls, `"path": "/workspace"`)
	assert.Equal(t, "str_replace_editor", view.ToolName)
	assert.Equal(t, FileSearch, view.ToolCategory, "a read action of a directory is a listing, not an edit")
	assert.Equal(t, FileLevel, view.ToolClass)
	views := 0
	for _, ev := range doc.Events {
		if ev.ToolName == "str_replace_editor" {
			views++
			assert.NotEqual(t, Edit, ev.ToolClass, "the sample's editor calls only view")
		}
	}
	assert.Equal(t, 2, views)
}

func TestRealCodexRollout(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(samplesDir, "codex", "acidicsoil-rollout-2025-11-17-codex-0.58.0.jsonl"))
	if os.IsNotExist(err) {
		t.Skip("no real samples in " + samplesDir)
	}
	require.NoError(t, err)
	var calls []trace.ToolCall
	byID := map[string]int{}
	for line := range strings.Lines(string(data)) {
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type      string          `json:"type"`
				Name      string          `json:"name"`
				Arguments string          `json:"arguments"`
				CallID    string          `json:"call_id"`
				Output    json.RawMessage `json:"output"`
			} `json:"payload"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		p := rec.Payload
		switch {
		case rec.Type == "response_item" && p.Type == "function_call":
			byID[p.CallID] = len(calls)
			calls = append(calls, trace.ToolCall{Index: len(calls), Name: p.Name, Arguments: json.RawMessage(p.Arguments)})
		case rec.Type == "response_item" && p.Type == "function_call_output":
			if i, ok := byID[p.CallID]; ok {
				var out struct {
					Output string `json:"output"`
				}
				var s string
				if json.Unmarshal(p.Output, &s) == nil && json.Unmarshal([]byte(s), &out) == nil {
					calls[i].Result = out.Output
				} else {
					calls[i].Result = s
				}
				calls[i].HasResult = true
			}
		}
	}
	require.Len(t, calls, 39, "the samples README counts 39 calls")
	doc := normalizeSample(t, "codex-rollout", "/home/user/projects/temp/chatbot-ui", calls)
	reads := 0
	for i, ev := range doc.Events {
		if calls[i].Name == "shell" && ev.ToolCategory == FileRead {
			reads++
			assert.NotEmpty(t, ev.FilesRead, "a read through the shell names its file: %s", calls[i].Arguments)
		}
	}
	assert.Positive(t, reads, "the agent read files through bash -lc")
	patches := 0
	for i, ev := range doc.Events {
		if strings.Contains(string(calls[i].Arguments), "*** Begin Patch") {
			patches++
			assert.Equal(t, Edit, ev.ToolClass, "apply_patch through the shell is an edit")
			assert.NotEmpty(t, ev.FilesWritten)
		}
	}
	assert.Positive(t, patches, "the agent patched files through bash -lc")
}

func TestRealGeminiSession(t *testing.T) {
	t.Parallel()
	var sess struct {
		Messages []struct {
			ToolCalls []struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"toolCalls"`
		} `json:"messages"`
	}
	readSample(t, "gemini-cli/skillsbench-gemini3pro-offer-letter.session.json", &sess)
	var calls []trace.ToolCall
	for _, m := range sess.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, trace.ToolCall{Index: len(calls), Name: tc.Name, Arguments: tc.Args})
		}
	}
	require.Len(t, calls, 10, "the samples README counts 10 tool calls")
	doc := normalizeSample(t, "gemini-cli", "/root", calls)
	read := eventFor(t, doc, calls, "employee_data.json")
	assert.Equal(t, []string{"employee_data.json"}, read.FilesRead)
	write := eventFor(t, doc, calls, `"content"`)
	assert.Equal(t, Edit, write.ToolClass)
	assert.NotEmpty(t, write.FilesWritten)
}
