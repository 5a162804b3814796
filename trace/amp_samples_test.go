package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Amp threads of the samples, checked against a decoding of their own
// with encoding/json: every tool_use, in order, joined to the tool_result
// naming its id. The samples README gives 4 Read calls for the first
// thread and Read and edit_file for the second, each with a result.
func TestAmpSamplesMatchAnIndependentDecoding(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]int{
		"gitai-T-019ca1ce-3ae2-7686-a41e-ccc078837f8a.json": {"Read": 4},
		"gitai-T-019ca1f6-7f21-77b5-a308-65416ebbdf48.json": {"Read": 1, "edit_file": 1},
	}
	for _, file := range sampleFiles(t, "amp/*.json") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var doc struct {
				ID       string `json:"id"`
				Messages []struct {
					Content []struct {
						Type      string          `json:"type"`
						ID        string          `json:"id"`
						Name      string          `json:"name"`
						Input     json.RawMessage `json:"input"`
						ToolUseID string          `json:"toolUseID"`
					} `json:"content"`
				} `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(data, &doc))
			var ids, names []string
			results := map[string]bool{}
			for _, m := range doc.Messages {
				for _, b := range m.Content {
					switch b.Type {
					case "tool_use":
						ids, names = append(ids, b.ID), append(names, b.Name)
					case "tool_result":
						results[b.ToolUseID] = true
					}
				}
			}
			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "amp", s.Format)
			assert.Equal(t, doc.ID, s.ID)
			assert.Equal(t, "/Users/svarlamov/projects/testing-git-amp", s.CWD)
			assert.Empty(t, s.Warnings)
			require.Len(t, s.Calls, len(ids))
			for i, c := range s.Calls {
				assert.Equal(t, ids[i], c.ID)
				assert.Equal(t, names[i], c.Name)
				assert.Equal(t, results[c.ID], c.HasResult, c.ID)
				assert.False(t, c.IsError, c.ID)
				assert.NotEmpty(t, c.Result, c.ID)
			}
			assert.Equal(t, want[filepath.Base(file)], nameCounts(s.Calls))
		})
	}
}
