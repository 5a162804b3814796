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

// copilotSampleCalls decodes the samples on their own: the model's calls
// of every request (toolCallRounds) and the ids toolCallResults holds. Of
// an operation log it reads the initial state and the requests appended
// by kind 2 records at ["requests"], which is all the samples change.
func copilotSampleCalls(t *testing.T, file string) (ids, names []string, results map[string]bool) {
	t.Helper()
	type request struct {
		Result struct {
			Metadata struct {
				ToolCallRounds []struct {
					ToolCalls []struct{ Name, ID string } `json:"toolCalls"`
				} `json:"toolCallRounds"`
				ToolCallResults map[string]json.RawMessage `json:"toolCallResults"`
			} `json:"metadata"`
		} `json:"result"`
	}
	var requests []request
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	if filepath.Ext(file) == ".json" {
		var doc struct{ Requests []request }
		require.NoError(t, json.NewDecoder(f).Decode(&doc))
		requests = doc.Requests
	} else {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var op struct {
				Kind int
				K    []any
				V    json.RawMessage
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &op))
			switch {
			case op.Kind == 0:
				var v struct{ Requests []request }
				require.NoError(t, json.Unmarshal(op.V, &v))
				requests = v.Requests
			case op.Kind == 2 && len(op.K) == 1 && op.K[0] == "requests":
				var more []request
				require.NoError(t, json.Unmarshal(op.V, &more))
				requests = append(requests, more...)
			}
		}
		require.NoError(t, sc.Err())
	}
	results = map[string]bool{}
	for _, q := range requests {
		for _, r := range q.Result.Metadata.ToolCallRounds {
			for _, c := range r.ToolCalls {
				ids, names = append(ids, c.ID), append(names, c.Name)
			}
		}
		for id := range q.Result.Metadata.ToolCallResults {
			results[id] = true
		}
	}
	return ids, names, results
}

// The Copilot samples against their own decoding. The samples README
// counts, per file, the toolInvocationSerialized parts (2 and 3) and the
// model calls behind them (replace_string_in_file and grep_search; read_file
// and insert_edit_into_file), each with a result: the model calls are
// what the reader reads.
func TestCopilotChatSamplesMatchAnIndependentDecoding(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]int{
		"gitai-copilot_session_simple-v3.json":         {"replace_string_in_file": 1, "grep_search": 1},
		"gitai-copilot_session_multiline-0.37.1.jsonl": {"read_file": 1, "insert_edit_into_file": 1},
	}
	for _, file := range sampleFiles(t, "copilot-chat/*") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			ids, names, results := copilotSampleCalls(t, file)
			s, err := ReadFile(file, Options{})
			require.NoError(t, err)
			assert.Equal(t, "copilot-chat", s.Format)
			assert.Equal(t, "/Users/svarlamov/projects/testing-git", s.CWD)
			assert.Empty(t, s.Warnings)
			require.Len(t, s.Calls, len(ids))
			for i, c := range s.Calls {
				assert.Equal(t, ids[i], c.ID)
				assert.Equal(t, names[i], c.Name)
				assert.True(t, results[c.ID], "%s has a result", c.ID)
				assert.True(t, c.HasResult, c.ID)
				assert.False(t, c.IsError, c.ID)
				assert.NotEmpty(t, c.Result, c.ID)
			}
			assert.Equal(t, want[filepath.Base(file)], nameCounts(s.Calls))
		})
	}
}
