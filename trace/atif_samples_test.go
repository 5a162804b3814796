package trace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atifGenericStep is an ATIF step decoded generically, independently of
// the reader, to cross-check it.
type atifGenericStep struct {
	IsCopiedContext bool   `json:"is_copied_context"`
	Timestamp       string `json:"timestamp"`
	ToolCalls       []struct {
		ID   string `json:"tool_call_id"`
		Name string `json:"function_name"`
	} `json:"tool_calls"`
	Observation *struct {
		Results []struct {
			SourceCallID string `json:"source_call_id"`
			Content      any    `json:"content"`
		} `json:"results"`
	} `json:"observation"`
}

func atifGenericSteps(t *testing.T, file string) []atifGenericStep {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var doc struct {
		Steps []atifGenericStep `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	return doc.Steps
}

func TestATIFSamplesAreReadAndJoined(t *testing.T) {
	t.Parallel()
	for _, file := range sampleFiles(t, "atif/*.json") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "atif", s.Format, "detected format")
			// A redacted copy replaces every timestamp by "<redacted>": that
			// is worth exactly one warning, and nothing else is.
			steps := atifGenericSteps(t, file)
			unreadable := 0
			for _, st := range steps {
				if _, err := time.Parse(time.RFC3339Nano, st.Timestamp); st.Timestamp != "" && err != nil {
					unreadable++
				}
			}
			if unreadable == 0 {
				assert.Empty(t, s.Warnings)
			} else {
				require.Len(t, s.Warnings, 1, "one warning for %d unreadable timestamps", unreadable)
				assert.Contains(t, s.Warnings[0].Message, "is not ISO 8601")
				if unreadable > 1 {
					assert.Contains(t, s.Warnings[0].Message, fmt.Sprintf("nor are the timestamps of %d more steps", unreadable-1))
				}
			}
			byID := map[string]*ToolCall{}
			for i := range s.Calls {
				require.Equal(t, i, s.Calls[i].Index)
				byID[s.Calls[i].ID] = &s.Calls[i]
			}
			// Every result that names its call must be on that call.
			joined := 0
			for _, st := range steps {
				if st.IsCopiedContext || st.Observation == nil {
					continue
				}
				for _, r := range st.Observation.Results {
					text, isString := r.Content.(string)
					if r.SourceCallID == "" || !isString {
						continue
					}
					c := byID[r.SourceCallID]
					require.NotNil(t, c, "call %s", r.SourceCallID)
					assert.True(t, c.HasResult, "call %s has its result", r.SourceCallID)
					assert.Equal(t, text, c.Result, "result of %s", r.SourceCallID)
					joined++
				}
			}
			t.Logf("%d calls, %d results joined by source_call_id", len(s.Calls), joined)
		})
	}
}

func TestATIFSampleCallsMatchAGenericCount(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "atif/*.json")
	tests := []struct {
		file  string
		calls int
		names map[string]int
	}{
		// Counted by hand as well: steps 2-4 and 7-10 of the main
		// trajectory; the summarization subagents live in other files.
		{"harbor-golden-terminus2-context-summarization.trajectory.json", 7, map[string]int{"bash_command": 5, "mark_task_complete": 2}},
		{"harbor-golden-openhands-hello-world.trajectory.json", 2, map[string]int{"str_replace_editor": 1, "finish": 1}},
		// Steps 2 and 3 are copied from the parent: no calls of its own.
		{"harbor-golden-terminus2-context-summarization.summarization-1-summary.json", 0, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(samplesDir, "atif", tt.file)
			generic := map[string]int{}
			for _, st := range atifGenericSteps(t, file) {
				if st.IsCopiedContext {
					continue
				}
				for _, c := range st.ToolCalls {
					generic[c.Name]++
				}
			}
			require.Equal(t, tt.names, generic, "the generic count agrees with the pinned one")

			s, err := ReadFile(file, Options{Format: "atif"})
			require.NoError(t, err)
			assert.Len(t, s.Calls, tt.calls)
			assert.Equal(t, generic, nameCounts(s.Calls))
		})
	}
}

func TestATIFSampleTokensFollowTheSpec(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "atif/*.json")
	// The invalid-JSON terminus-2 run: agent steps 682+100, 785+50, 850+30,
	// 100+20 (no cached tokens). Calls are in steps 3, 4 and 5.
	s, err := ReadFile(filepath.Join(samplesDir, "atif", "harbor-golden-terminus2-hello-world-invalid-json.trajectory.json"), Options{})
	require.NoError(t, err)
	require.Len(t, s.Calls, 3)
	var cum []int64
	for _, c := range s.Calls {
		require.NotNil(t, c.CumulativeTokens)
		cum = append(cum, *c.CumulativeTokens)
	}
	assert.Equal(t, []int64{782 + 835, 782 + 835 + 880, 782 + 835 + 880 + 120}, cum)
	// final_metrics of the file: 2417 prompt, 200 completion.
	assert.Equal(t, &Usage{InputTokens: 2417, OutputTokens: 200}, s.Usage)
}
