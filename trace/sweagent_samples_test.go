package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SWE-agent samples: one call per trajectory step with an action (or,
// for a file without trajectory, per assistant tool call of the history),
// every one with its observation.
func TestSWEAgentSamples(t *testing.T) {
	t.Parallel()
	files := sampleFiles(t, "swe-agent/*.traj")
	want := map[string][]string{
		"gpt4-sweagenttestrepo-6e44b9.traj": {"find_file", "open", "edit", "bash", "submit"},
		"gpt4-pydicom__pydicom-1458.traj": {"create", "edit", "bash", "find_file", "open",
			"edit", "edit", "edit", "edit", "bash", "bash", "submit"},
		"demo-function_calling_replace-marshmallow-1867.traj": {"create", "insert", "bash", "bash", "find_file",
			"open", "edit", "edit", "bash", "bash", "submit"},
		"demo-function_calling_simple.traj": {"find_file", "open", "edit", "bash", "submit"},
	}
	require.Len(t, files, len(want), "a new SWE-agent sample needs its figures here")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var doc struct {
				Trajectory []struct {
					Action      string  `json:"action"`
					Observation *string `json:"observation"`
				} `json:"trajectory"`
				History []struct {
					Role      string `json:"role"`
					IsDemo    bool   `json:"is_demo"`
					ToolCalls []struct {
						Function struct {
							Name string `json:"name"`
						} `json:"function"`
					} `json:"tool_calls"`
					ToolCallIDs []string `json:"tool_call_ids"`
				} `json:"history"`
				Info struct {
					ModelStats struct {
						TokensSent     int64 `json:"tokens_sent"`
						TokensReceived int64 `json:"tokens_received"`
					} `json:"model_stats"`
				} `json:"info"`
			}
			require.NoError(t, json.Unmarshal(data, &doc))
			calls, results := 0, 0
			if doc.Trajectory != nil {
				for _, st := range doc.Trajectory {
					if strings.TrimSpace(st.Action) != "" {
						calls++
						if st.Observation != nil {
							results++
						}
					}
				}
			} else {
				for _, h := range doc.History {
					if h.IsDemo {
						continue
					}
					if h.Role == "assistant" {
						calls += len(h.ToolCalls)
					}
					if h.Role == "tool" {
						results += len(h.ToolCallIDs)
					}
				}
			}
			w := want[filepath.Base(file)]
			assert.Equal(t, len(w), calls, "decoded independently")
			assert.Equal(t, len(w), results, "decoded independently")

			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "swe-agent", s.Format)
			assert.Empty(t, s.Warnings)
			assert.Equal(t, w, callNames(s))
			got := 0
			for _, c := range s.Calls {
				if c.HasResult {
					got++
				}
				assert.Nil(t, c.CumulativeTokens)
			}
			assert.Equal(t, results, got)
			if total := doc.Info.ModelStats.TokensSent + doc.Info.ModelStats.TokensReceived; total > 0 {
				require.NotNil(t, s.Usage)
				assert.Equal(t, total, s.Usage.Total())
			} else {
				assert.Nil(t, s.Usage, "a replayed run's zero totals")
			}
		})
	}
}
