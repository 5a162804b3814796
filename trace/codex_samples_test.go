package trace

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codexGenericCount is what a rollout holds, counted by decoding every
// line with encoding/json, independently of the reader under test.
type codexGenericCount struct {
	calls, withOutput, failed int
	names                     map[string]int
	// total is the last token_count's total_token_usage, nil without one.
	total map[string]any
}

func codexCountRollout(t *testing.T, file string) codexGenericCount {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	count := codexGenericCount{names: map[string]int{}}
	callIDs := map[string]bool{}
	var outputs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		payload, _ := line["payload"].(map[string]any)
		switch {
		case line["type"] == "response_item":
		case line["type"] == "event_msg" && payload["type"] == "token_count":
			if info, ok := payload["info"].(map[string]any); ok {
				count.total = info["total_token_usage"].(map[string]any)
			}
			continue
		default:
			continue
		}
		switch payload["type"] {
		case "function_call", "custom_tool_call", "local_shell_call":
			count.calls++
			count.names[payload["name"].(string)]++
			callIDs[payload["call_id"].(string)] = true
		case "function_call_output", "custom_tool_call_output":
			outputs = append(outputs, payload)
		}
	}
	require.NoError(t, sc.Err())
	for _, out := range outputs {
		if !callIDs[out["call_id"].(string)] {
			continue
		}
		count.withOutput++
		// Shell outputs are JSON texts {"output", "metadata": {"exit_code"}}.
		var wrapped struct {
			Metadata struct {
				ExitCode int `json:"exit_code"`
			} `json:"metadata"`
		}
		if s, ok := out["output"].(string); ok && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Metadata.ExitCode != 0 {
			count.failed++
		}
	}
	return count
}

func TestCodexSamplesAreReadAndJoined(t *testing.T) {
	t.Parallel()
	files := sampleFiles(t, "codex/*")
	// What the samples README states, checked against the independent
	// count too.
	stated := map[string]struct {
		calls int
		names map[string]int
	}{
		"acidicsoil-rollout-2025-11-17-codex-0.58.0.jsonl": {39, map[string]int{"shell": 37, "update_plan": 2}},
		"kvsankar-real-session-01-codex-0.135.0.jsonl":     {0, map[string]int{}},
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			want := codexCountRollout(t, file)
			if st, ok := stated[filepath.Base(file)]; ok {
				assert.Equal(t, st.calls, want.calls, "the README's call count")
				assert.Equal(t, st.names, want.names, "the README's tool names")
			}

			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "codex", s.Format)
			assert.Empty(t, s.Warnings)
			assert.NotEmpty(t, s.ID)
			assert.NotEmpty(t, s.AgentVersion)
			assert.NotEmpty(t, s.Model)
			assert.NotEmpty(t, s.CWD)
			assert.False(t, s.Start.IsZero())

			names := map[string]int{}
			withResult, failed, withTokens := 0, 0, 0
			var last int64
			for _, c := range s.Calls {
				names[c.Name]++
				if c.HasResult {
					withResult++
				}
				if c.IsError {
					failed++
				}
				assert.NotEmpty(t, c.ID)
				assert.False(t, c.Time.IsZero())
				if c.CumulativeTokens != nil {
					withTokens++
					assert.GreaterOrEqual(t, *c.CumulativeTokens, last, "call %d: totals never shrink", c.Index)
					last = *c.CumulativeTokens
				}
			}
			assert.Len(t, s.Calls, want.calls)
			assert.Equal(t, want.names, names)
			assert.Equal(t, want.withOutput, withResult)
			assert.Equal(t, want.failed, failed)
			assert.Equal(t, len(s.Calls), withTokens)

			require.NotNil(t, want.total)
			require.NotNil(t, s.Usage)
			assert.Equal(t, int64(want.total["input_tokens"].(float64)), s.Usage.InputTokens)
			assert.Equal(t, int64(want.total["cached_input_tokens"].(float64)), s.Usage.CacheReadTokens)
			assert.Equal(t, int64(want.total["output_tokens"].(float64)), s.Usage.OutputTokens)
			assert.Equal(t, int64(want.total["total_tokens"].(float64)), s.Usage.Total())
			assert.LessOrEqual(t, last, s.Usage.Total())
		})
	}
}
