package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geminiGenericSession is a Gemini CLI session document decoded with
// encoding/json, independently of the reader, to cross-check it.
type geminiGenericSession struct {
	SessionID string `json:"sessionId"`
	Messages  []struct {
		Type      string `json:"type"`
		ToolCalls []struct {
			ID     string            `json:"id"`
			Name   string            `json:"name"`
			Status string            `json:"status"`
			Result []json.RawMessage `json:"result"`
		} `json:"toolCalls"`
		Tokens *struct {
			Total int64 `json:"total"`
		} `json:"tokens"`
	} `json:"messages"`
}

func TestGeminiSamplesMatchAGenericCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		calls int
		names map[string]int
		// results counts the calls with a result, as the samples README
		// states it.
		results int
	}{
		{"skillsbench-gemini3pro-offer-letter.session.json", 10, map[string]int{"run_shell_command": 8, "read_file": 1, "write_file": 1}, 10},
		// The ATIF RFC's example: one question, one answer, no tool call.
		{"harbor-rfc-gemini-cli-trajectory.json", 0, map[string]int{}, 0},
	}
	files := sampleFiles(t, "gemini-cli/*.json")
	require.Len(t, files, len(tests), "every Gemini CLI sample is pinned")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(samplesDir, "gemini-cli", tt.file)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var doc geminiGenericSession
			require.NoError(t, json.Unmarshal(data, &doc))
			generic, results := map[string]int{}, 0
			var total int64
			for _, m := range doc.Messages {
				for _, c := range m.ToolCalls {
					generic[c.Name]++
					if len(c.Result) > 0 {
						results++
					}
				}
				if m.Tokens != nil {
					total += m.Tokens.Total
				}
			}
			require.Equal(t, tt.names, generic, "the generic count agrees with the pinned one")
			require.Equal(t, tt.results, results)

			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "gemini-cli", s.Format, "detected format")
			assert.Empty(t, s.Warnings)
			assert.Equal(t, doc.SessionID, s.ID)
			got, withResult := map[string]int{}, 0
			for i, c := range s.Calls {
				require.Equal(t, i, c.Index)
				got[c.Name]++
				if c.HasResult {
					withResult++
				}
			}
			assert.Len(t, s.Calls, tt.calls)
			assert.Equal(t, generic, got)
			assert.Equal(t, results, withResult)
			// Gemini's totalTokenCount is input (cache included) + output +
			// thoughts + tool-use prompt: the reader's total must match
			// the sum of the recorded totals.
			require.NotNil(t, s.Usage)
			assert.Equal(t, total, s.Usage.Total())
			assert.NotEmpty(t, s.Answer)
		})
	}
}

// TestGeminiSampleResultsAreTheFunctionResponses checks each result against
// what the recording says the tool returned: a shell command's output is
// what Gemini CLI displayed of it (resultDisplay, the output alone), every
// other tool's the functionResponse output as recorded.
func TestGeminiSampleResultsAreTheFunctionResponses(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "gemini-cli/*.json")
	file := filepath.Join(samplesDir, "gemini-cli", "skillsbench-gemini3pro-offer-letter.session.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var doc struct {
		Messages []struct {
			ToolCalls []struct {
				ID            string `json:"id"`
				Name          string `json:"name"`
				Args          map[string]any
				ResultDisplay json.RawMessage `json:"resultDisplay"`
				Result        []struct {
					FunctionResponse struct {
						Response struct {
							Output string `json:"output"`
						} `json:"response"`
					} `json:"functionResponse"`
				} `json:"result"`
			} `json:"toolCalls"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	// The commands that exited non-zero, by their recorded "Exit Code":
	// file (127), pip3 install (1) and python3 -m venv (1).
	failed := map[string]bool{
		"run_shell_command-1769380617429-dfebe1df2463":  true,
		"run_shell_command-1769380626493-b95a6dd5bf5e6": true,
		"run_shell_command-1769380630309-b851171acad54": true,
	}
	s, err := ReadFile(file, Options{})
	require.NoError(t, err)
	i := 0
	for _, m := range doc.Messages {
		for _, c := range m.ToolCalls {
			require.Less(t, i, len(s.Calls))
			got := s.Calls[i]
			assert.Equal(t, c.ID, got.ID)
			want := c.Result[0].FunctionResponse.Response.Output
			if c.Name == "run_shell_command" {
				require.NoError(t, json.Unmarshal(c.ResultDisplay, &want), "resultDisplay of %s", c.ID)
			}
			assert.Equal(t, want, got.Result, "result of %s", c.ID)
			assert.Equal(t, failed[c.ID], got.IsError, "IsError of %s", c.ID)
			if cmd, ok := c.Args["command"]; ok {
				assert.Equal(t, cmd, got.ArgumentsMap()["command"], "command of %s", c.ID)
			}
			i++
		}
	}
	assert.Equal(t, i, len(s.Calls))
}

func TestGeminiSampleFailedCommandShowsOnlyItsOutput(t *testing.T) {
	t.Parallel()
	sampleFiles(t, "gemini-cli/*.json")
	s, err := ReadFile(filepath.Join(samplesDir, "gemini-cli", "skillsbench-gemini3pro-offer-letter.session.json"), Options{})
	require.NoError(t, err)
	var found bool
	for _, c := range s.Calls {
		if c.ID == "run_shell_command-1769380617429-dfebe1df2463" {
			found = true
			assert.True(t, c.IsError, "file exited 127 although the call's status is success")
			assert.Equal(t, "bash: line 1: file: command not found", c.Result)
		}
	}
	assert.True(t, found)
}
