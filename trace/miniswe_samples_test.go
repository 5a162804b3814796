package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// miniGenericTrajectory is a trajectory decoded with encoding/json,
// independently of the reader, to cross-check it.
type miniGenericTrajectory struct {
	Info struct {
		MiniVersion string `json:"mini_version"`
		ModelStats  struct {
			APICalls int `json:"api_calls"`
		} `json:"model_stats"`
	} `json:"info"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	TrajectoryFormat string `json:"trajectory_format"`
	InstanceID       string `json:"instance_id"`
}

func TestMiniSWEAgentSamplesMatchAGenericCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		// calls and results as the samples README states them (the
		// text-mode sample: three responses, each one bash block, each
		// followed by a user message).
		calls, results int
		names          map[string]int
	}{
		{"deepseek-chat-v2.2.7-toolcall-sqlfluff-2419.traj.json", 48, 47, map[string]int{"bash": 48}},
		{"harbor-rfc-mini-swe-agent-trajectory.json", 3, 3, map[string]int{"bash": 3}},
	}
	files := sampleFiles(t, "mini-swe-agent/*.json")
	require.Len(t, files, len(tests), "every mini-swe-agent sample is pinned")
	block := regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(samplesDir, "mini-swe-agent", tt.file)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var doc miniGenericTrajectory
			require.NoError(t, json.Unmarshal(data, &doc))

			// Count independently: tool_calls and the role "tool" replies
			// naming them, or, in text mode, assistant messages with one
			// bash block and a user message right after.
			generic, replies := map[string]int{}, 0
			ids := map[string]bool{}
			for i, m := range doc.Messages {
				for _, c := range m.ToolCalls {
					generic[c.Function.Name]++
					ids[c.ID] = true
				}
				if m.Role == "tool" && ids[m.ToolCallID] {
					replies++
				}
				var text string
				if m.Role == "assistant" && len(m.ToolCalls) == 0 && json.Unmarshal(m.Content, &text) == nil && len(block.FindAllString(text, -1)) == 1 {
					generic["bash"]++
					if i+1 < len(doc.Messages) && doc.Messages[i+1].Role == "user" {
						replies++
					}
				}
			}
			require.Equal(t, tt.names, generic, "the generic count agrees with the pinned one")
			require.Equal(t, tt.results, replies)

			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "mini-swe-agent", s.Format, "detected format")
			assert.Empty(t, s.Warnings)
			assert.Equal(t, doc.InstanceID, s.Task)
			assert.Equal(t, doc.Info.MiniVersion, s.AgentVersion)
			got, withResult := map[string]int{}, 0
			for i, c := range s.Calls {
				require.Equal(t, i, c.Index)
				got[c.Name]++
				if c.HasResult {
					withResult++
				}
				assert.NotEmpty(t, c.ArgumentsMap()["command"], "call %d has a command", i)
			}
			assert.Len(t, s.Calls, tt.calls)
			assert.Equal(t, generic, got)
			assert.Equal(t, replies, withResult)
			require.NotNil(t, s.Usage, "the responses record their usage")
		})
	}
}

// TestMiniSWEAgentSampleToolRepliesAreJoinedByID checks each result against
// what mini-swe-agent itself recorded of the command: the raw output and
// return code it keeps in the reply's extra, beside the rendered
// observation the model saw.
func TestMiniSWEAgentSampleToolRepliesAreJoinedByID(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "mini-swe-agent/*.json")
	file := filepath.Join(samplesDir, "mini-swe-agent", "deepseek-chat-v2.2.7-toolcall-sqlfluff-2419.traj.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var doc struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			Extra      struct {
				RawOutput  *string `json:"raw_output"`
				Returncode int     `json:"returncode"`
			} `json:"extra"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	s, err := ReadFile(file, Options{})
	require.NoError(t, err)
	byID := map[string]*ToolCall{}
	for i := range s.Calls {
		byID[s.Calls[i].ID] = &s.Calls[i]
	}
	joined, failed := 0, 0
	for _, m := range doc.Messages {
		if m.Role != "tool" {
			continue
		}
		c := byID[m.ToolCallID]
		require.NotNil(t, c, "call %s", m.ToolCallID)
		require.NotNil(t, m.Extra.RawOutput, "reply to %s", m.ToolCallID)
		require.NotContains(t, m.Content, "<output_head>", "no output of this run was elided")
		assert.Equal(t, *m.Extra.RawOutput, c.Result, "result of %s", m.ToolCallID)
		assert.Equal(t, m.Extra.Returncode != 0, c.IsError, "IsError of %s", m.ToolCallID)
		if c.IsError {
			failed++
		}
		joined++
	}
	assert.Equal(t, 47, joined)
	assert.Equal(t, 8, failed, "the replies with a non-zero return code")
	// The last call submitted; the exit message is not its result.
	last := s.Calls[len(s.Calls)-1]
	assert.False(t, last.HasResult)
	assert.Contains(t, last.ArgumentsMap()["command"], "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
}

func TestMiniSWEAgentSampleResultsAreTheCommandOutput(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "mini-swe-agent/*.json")
	s, err := ReadFile(filepath.Join(samplesDir, "mini-swe-agent", "deepseek-chat-v2.2.7-toolcall-sqlfluff-2419.traj.json"), Options{})
	require.NoError(t, err)
	var cat *ToolCall
	for i := range s.Calls {
		if s.Calls[i].ID == "call_00_MgjteRh3y9KV0XPSGzJOnDxt" {
			cat = &s.Calls[i]
		}
	}
	require.NotNil(t, cat)
	assert.Equal(t, "cat ./src/sqlfluff/rules/L060.py", cat.ArgumentsMap()["command"])
	assert.True(t, strings.HasPrefix(cat.Result, `"""Implementation of Rule L060."""`+"\n"), cat.Result)
	assert.Len(t, strings.Split(strings.TrimSuffix(cat.Result, "\n"), "\n"), 62, "the file's 62 lines")
	assert.False(t, cat.IsError)

	// Text mode (1.x): the observations are user messages; the last user
	// message is the submission, the output after the submit line.
	v1, err := ReadFile(filepath.Join(samplesDir, "mini-swe-agent", "harbor-rfc-mini-swe-agent-trajectory.json"), Options{})
	require.NoError(t, err)
	var results []string
	for _, c := range v1.Calls {
		results = append(results, c.Result)
		assert.False(t, c.IsError)
	}
	assert.Equal(t, []string{"", "Hello, world!\n", ""}, results)
}
